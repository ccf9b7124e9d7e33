//! The embedded store of the `murano` tool: one SQLite file holding the
//! catalog (imported packages and their files), environments (their
//! stored description, pending changes, status and offline cloud state),
//! and deployments (every engine task run for an environment, with its
//! status reports, Heat operations, agent plans, log lines, outcome and
//! final model).
//!
//! Every change is one transaction, so a killed process loses nothing
//! committed. A deployment is committed as `running` (with the process
//! id) before the engine runs; opening the store marks the running
//! deployments of dead processes `interrupted` and their environments
//! failed, as murano-api marks stale sessions. Only one deployment of an
//! environment runs at a time: starting one while another runs is
//! refused. The schema is versioned (`PRAGMA user_version`, migrations
//! from version 1 on); a file that is not SQLite, is damaged, belongs to
//! another application or comes from a newer version is refused and never
//! written.

#![forbid(unsafe_code)]

mod ops;
mod schema;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde_json::{json, Value as Json};

pub use ops::{EnvTask, EnvTaskRun};
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file is not a murano store (not SQLite, damaged, another
    /// application's, or a newer schema); it was not changed.
    #[error("{path}: {why}; refusing to use it (the file was not changed)")]
    Refused {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// A name or id that is not there.
    #[error("{0}")]
    NotFound(String),
    /// A request the current state refuses (a deployment running, a name
    /// taken).
    #[error("{0}")]
    Conflict(String),
    /// A stored value could not be read back.
    #[error("stored data is damaged: {0}")]
    Damaged(String),
    /// SQLite failed.
    #[error("database: {0}")]
    Sql(#[from] rusqlite::Error),
}

/// A result of the store.
pub type Result<T> = std::result::Result<T, StoreError>;

/// A package's files by path inside the package.
pub type Files = BTreeMap<String, Arc<Vec<u8>>>;

/// A catalog package as the engine runs it: its manifest read and, for a
/// package type other than MuranoPL (`Heat.HOT`), the class its plug-in
/// generates added, as Murano's API catalog resolves it (a package the
/// plug-in refuses keeps its manifest's classes). `source` names it in
/// stack frames.
pub fn engine_package(
    source: &str,
    files: Files,
) -> std::result::Result<murano_engine::deploy::PackageFiles, murano_engine::deploy::PackageError> {
    let p = murano_engine::deploy::PackageFiles::from_files(source, files)?;
    if !p.classes.is_empty() {
        return Ok(p);
    }
    let mut map = murano_packages::source::FileMap::default();
    for (path, bytes) in &p.files {
        if map.insert(path, bytes.to_vec()).is_err() {
            return Ok(p);
        }
    }
    let mut generated = p.clone();
    Ok(match generated.add_generated_classes(map) {
        Ok(()) => generated,
        Err(_) => p,
    })
}

/// A package of the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogPackage {
    /// `FullName`.
    pub name: String,
    /// `Version` (as written, `0.0.0` without one).
    pub version: String,
    /// Where it was imported from.
    pub source: String,
    /// Its classes.
    pub classes: Vec<String>,
    /// How many files it has.
    pub files: usize,
}

/// An environment as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEnvironment {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The status (`ready`, `pending`, `deploying`, ...).
    pub status: String,
    /// The last status text.
    pub status_text: String,
    /// The deployed description (API form).
    pub description: Json,
    /// Changes not deployed yet (the open session's description).
    pub pending: Option<Json>,
    /// The offline cloud's state.
    pub cloud: Json,
}

/// A deployment (one engine task) of an environment.
#[derive(Debug, Clone, PartialEq)]
pub struct Deployment {
    /// Its number.
    pub id: i64,
    /// The environment.
    pub environment: String,
    /// `deploy`, `action`, `delete`.
    pub kind: String,
    /// The action (method and arguments) or null.
    pub action: Json,
    /// `running`, `success`, `failure`, `interrupted`.
    pub state: String,
    /// The outcome (`{ok, result}` or `{raised}`), null while running.
    pub outcome: Json,
    /// Status reports.
    pub reports: Vec<Json>,
}

/// What a finished task left, to be stored.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskResult {
    /// The outcome.
    pub outcome: Json,
    /// Status reports.
    pub reports: Vec<Json>,
    /// Heat operations.
    pub heat: Vec<Json>,
    /// Agent plans.
    pub agent_plans: Vec<Json>,
    /// Log lines.
    pub log: Vec<Json>,
    /// The final model.
    pub final_model: Json,
    /// Whether it failed (raised, or an error report).
    pub failed: bool,
    /// The environment's new state: `None` when it was removed.
    pub environment: Option<(Json, String, String)>,
    /// The cloud after the task.
    pub cloud: Json,
}

/// The store (one connection).
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

/// Whether a process of this id runs (Linux: `/proc/<pid>`; elsewhere
/// assumed alive, so nothing is marked interrupted by mistake).
fn alive(pid: i64) -> bool {
    if pid <= 0 {
        return false;
    }
    if pid == i64::from(std::process::id()) {
        return true;
    }
    if Path::new("/proc/self").exists() {
        Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

fn refused(path: &Path, why: impl Into<String>) -> StoreError {
    StoreError::Refused {
        path: path.to_owned(),
        why: why.into(),
    }
}

fn parse(text: &str, what: &str) -> Result<Json> {
    serde_json::from_str(text).map_err(|e| StoreError::Damaged(format!("{what}: {e}")))
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl Store {
    /// Opens (or creates) the store at `path`, migrating an older schema,
    /// and marks the deployments of dead processes interrupted.
    pub fn open(path: &Path) -> Result<Store> {
        schema::check_file(path)?;
        let conn = Connection::open(path)?;
        conn.busy_timeout(Duration::from_secs(10))?;
        schema::prepare(&conn, path)?;
        let mut store = Store {
            conn,
            path: path.to_owned(),
        };
        store.recover()?;
        Ok(store)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Marks running deployments of processes that are gone `interrupted`
    /// and their environments failed.
    fn recover(&mut self) -> Result<usize> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let running: Vec<(i64, String, String, i64)> = {
            let mut st = tx.prepare(
                "SELECT id, environment, kind, pid FROM deployments WHERE state = 'running'",
            )?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            rows.collect::<std::result::Result<_, _>>()?
        };
        let mut n = 0;
        for (id, env, kind, pid) in running {
            if alive(pid) {
                continue;
            }
            tx.execute(
                "UPDATE deployments SET state = 'interrupted', finished = ?2,
                 outcome = ?3 WHERE id = ?1",
                params![
                    id,
                    now(),
                    json!({"raised": {"stage": "<interrupted>", "type": "Interrupted",
                            "message": "the process running the deployment ended before it finished"}})
                        .to_string()
                ],
            )?;
            let (status, text) = if kind == "delete" {
                ("delete failure", "Deletion interrupted")
            } else {
                ("deploy failure", "Deployment interrupted")
            };
            tx.execute(
                "UPDATE environments SET status = ?2, status_text = ?3 WHERE id = ?1",
                params![env, status, text],
            )?;
            n += 1;
        }
        tx.commit()?;
        Ok(n)
    }

    // ----- catalog -------------------------------------------------------

    /// Imports a package (replacing one of the same name); `files` are its
    /// files by path inside the package.
    pub fn import_package(
        &mut self,
        source: &str,
        files: &BTreeMap<String, Arc<Vec<u8>>>,
    ) -> Result<CatalogPackage> {
        let p = engine_package(source, files.clone())
            .map_err(|e| StoreError::Conflict(e.to_string()))?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute("DELETE FROM package_files WHERE package = ?1", [&p.name])?;
        tx.execute("DELETE FROM packages WHERE name = ?1", [&p.name])?;
        let classes: Vec<&str> = p.classes.iter().map(|(c, _)| c.as_str()).collect();
        tx.execute(
            "INSERT INTO packages (name, version, source, classes, imported) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![p.name, p.version.to_string(), source, json!(classes).to_string(), now()],
        )?;
        {
            let mut insert =
                tx.prepare("INSERT INTO package_files (package, path, bytes) VALUES (?1, ?2, ?3)")?;
            for (path, bytes) in files {
                insert.execute(params![p.name, path, bytes.as_slice()])?;
            }
        }
        tx.commit()?;
        self.package(&p.name)
    }

    /// The packages of the catalog, by name.
    pub fn packages(&self) -> Result<Vec<CatalogPackage>> {
        let mut st = self.conn.prepare(
            "SELECT p.name, p.version, p.source, p.classes,
                    (SELECT COUNT(*) FROM package_files f WHERE f.package = p.name)
             FROM packages p ORDER BY p.name",
        )?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, i64>(4)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (name, version, source, classes, files) = row?;
            let classes = parse(&classes, "classes")?
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|c| c.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            out.push(CatalogPackage {
                name,
                version,
                source,
                classes,
                files: files as usize,
            });
        }
        Ok(out)
    }

    /// One package by name.
    pub fn package(&self, name: &str) -> Result<CatalogPackage> {
        self.packages()?
            .into_iter()
            .find(|p| p.name == name)
            .ok_or_else(|| StoreError::NotFound(format!("no package {name} in the catalog")))
    }

    /// Removes a package.
    pub fn remove_package(&mut self, name: &str) -> Result<()> {
        let tx = self.conn.transaction()?;
        tx.execute("DELETE FROM package_files WHERE package = ?1", [name])?;
        let n = tx.execute("DELETE FROM packages WHERE name = ?1", [name])?;
        tx.commit()?;
        if n == 0 {
            return Err(StoreError::NotFound(format!(
                "no package {name} in the catalog"
            )));
        }
        Ok(())
    }

    /// The files of the package `name`, `None` when the catalog has no
    /// such package.
    pub fn package_files_of(&self, name: &str) -> Result<Option<Files>> {
        let known: bool = self
            .conn
            .query_row("SELECT 1 FROM packages WHERE name = ?1", [name], |_| {
                Ok(true)
            })
            .optional()?
            .unwrap_or(false);
        if !known {
            return Ok(None);
        }
        let mut st = self
            .conn
            .prepare("SELECT path, bytes FROM package_files WHERE package = ?1 ORDER BY path")?;
        let rows = st.query_map([name], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
        })?;
        let mut files = Files::new();
        for row in rows {
            let (path, bytes) = row?;
            files.insert(path, Arc::new(bytes));
        }
        Ok(Some(files))
    }

    /// Every package's files (name, files), by name.
    pub fn package_files(&self) -> Result<Vec<(String, Files)>> {
        let mut st = self
            .conn
            .prepare("SELECT package, path, bytes FROM package_files ORDER BY package, path")?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Vec<u8>>(2)?,
            ))
        })?;
        let mut out: Vec<(String, Files)> = Vec::new();
        for row in rows {
            let (pkg, path, bytes) = row?;
            match out.last_mut() {
                Some((name, files)) if *name == pkg => {
                    files.insert(path, Arc::new(bytes));
                }
                _ => {
                    let mut files = BTreeMap::new();
                    files.insert(path, Arc::new(bytes));
                    out.push((pkg, files));
                }
            }
        }
        Ok(out)
    }

    // ----- environments ----------------------------------------------------

    /// Creates an environment.
    pub fn create_environment(&mut self, env: &StoredEnvironment) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let taken: bool = tx
            .query_row(
                "SELECT 1 FROM environments WHERE name = ?1 OR id = ?2",
                params![env.name, env.id],
                |_| Ok(true),
            )
            .optional()?
            .unwrap_or(false);
        if taken {
            return Err(StoreError::Conflict(format!(
                "an environment named {} already exists",
                env.name
            )));
        }
        tx.execute(
            "INSERT INTO environments (id, name, status, status_text, description, pending, cloud, created)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                env.id,
                env.name,
                env.status,
                env.status_text,
                env.description.to_string(),
                env.pending.as_ref().map(Json::to_string),
                env.cloud.to_string(),
                now()
            ],
        )?;
        tx.commit()?;
        Ok(())
    }

    fn env_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<[Option<String>; 7]> {
        Ok([
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
            r.get(6)?,
        ])
    }

    fn env_of(row: [Option<String>; 7]) -> Result<StoredEnvironment> {
        let [id, name, status, text, desc, pending, cloud] = row;
        Ok(StoredEnvironment {
            id: id.unwrap_or_default(),
            name: name.unwrap_or_default(),
            status: status.unwrap_or_default(),
            status_text: text.unwrap_or_default(),
            description: parse(desc.as_deref().unwrap_or("null"), "description")?,
            pending: pending.map(|p| parse(&p, "pending")).transpose()?,
            cloud: parse(cloud.as_deref().unwrap_or("null"), "cloud")?,
        })
    }

    /// Every environment, by name.
    pub fn environments(&self) -> Result<Vec<StoredEnvironment>> {
        let mut st = self.conn.prepare(
            "SELECT id, name, status, status_text, description, pending, cloud FROM environments ORDER BY name",
        )?;
        let rows = st.query_map([], Self::env_row)?;
        let mut out = Vec::new();
        for r in rows {
            out.push(Self::env_of(r?)?);
        }
        Ok(out)
    }

    /// An environment by name or id.
    pub fn environment(&self, name_or_id: &str) -> Result<StoredEnvironment> {
        let row = self
            .conn
            .prepare_cached(
                "SELECT id, name, status, status_text, description, pending, cloud FROM environments
                 WHERE name = ?1 OR id = ?1",
            )?
            .query_row([name_or_id], Self::env_row)
            .optional()?;
        match row {
            Some(r) => Self::env_of(r),
            None => Err(StoreError::NotFound(format!("no environment {name_or_id}"))),
        }
    }

    /// Saves the pending changes of an environment (refused while it
    /// deploys).
    pub fn set_pending(&mut self, id: &str, pending: Option<&Json>) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let status: String =
            tx.query_row("SELECT status FROM environments WHERE id = ?1", [id], |r| {
                r.get(0)
            })?;
        if status == "deploying" || status == "deleting" {
            return Err(StoreError::Conflict(format!(
                "environment {id} is {status}; wait for it to finish"
            )));
        }
        let new_status = match (pending.is_some(), status.as_str()) {
            (true, "ready") => "pending",
            (false, "pending") => "ready",
            (_, s) => s,
        }
        .to_owned();
        tx.execute(
            "UPDATE environments SET pending = ?2, status = ?3 WHERE id = ?1",
            params![id, pending.map(Json::to_string), new_status],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Removes an environment murano-api deletes without an engine task
    /// (never deployed); refused while it deploys.
    pub fn remove_environment(&mut self, id: &str) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let running: bool = tx
            .query_row(
                "SELECT 1 FROM deployments WHERE environment = ?1 AND state = 'running'",
                [id],
                |_| Ok(true),
            )
            .optional()?
            .unwrap_or(false);
        if running {
            return Err(StoreError::Conflict(format!(
                "environment {id} is being deployed; wait for it to finish"
            )));
        }
        tx.execute("DELETE FROM environments WHERE id = ?1", [id])?;
        tx.commit()?;
        Ok(())
    }

    // ----- deployments -----------------------------------------------------

    /// Starts a deployment of `env`: committed as `running` by this
    /// process. Refused while another deployment of it runs.
    pub fn begin_deployment(&mut self, env: &str, kind: &str, action: &Json) -> Result<i64> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let running: Option<(i64, i64)> = tx
            .query_row(
                "SELECT id, pid FROM deployments WHERE environment = ?1 AND state = 'running'",
                [env],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        if let Some((id, pid)) = running {
            return Err(StoreError::Conflict(format!(
                "environment {env} is already being deployed (deployment {id}, process {pid}); only one deployment of an environment runs at a time"
            )));
        }
        let status = if kind == "delete" {
            "deleting"
        } else {
            "deploying"
        };
        tx.execute(
            "INSERT INTO deployments (environment, kind, action, state, pid, started)
             VALUES (?1, ?2, ?3, 'running', ?4, ?5)",
            params![env, kind, action.to_string(), std::process::id(), now()],
        )?;
        let id = tx.last_insert_rowid();
        tx.execute(
            "UPDATE environments SET status = ?2 WHERE id = ?1",
            params![env, status],
        )?;
        tx.commit()?;
        Ok(id)
    }

    /// Stores a finished deployment and the environment's new state (or
    /// removes the environment), in one transaction.
    pub fn finish_deployment(&mut self, id: i64, env: &str, result: &TaskResult) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let state = if result.failed { "failure" } else { "success" };
        tx.execute(
            "UPDATE deployments SET state = ?2, finished = ?3, outcome = ?4, final_model = ?5
             WHERE id = ?1",
            params![
                id,
                state,
                now(),
                result.outcome.to_string(),
                result.final_model.to_string()
            ],
        )?;
        {
            // One statement for every record (a task makes hundreds):
            // compiling it per row was most of the store's time.
            let mut insert = tx.prepare(
                "INSERT INTO records (deployment, kind, seq, body) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (kind, items) in [
                ("report", &result.reports),
                ("heat", &result.heat),
                ("agent_plan", &result.agent_plans),
                ("log", &result.log),
            ] {
                for (seq, item) in items.iter().enumerate() {
                    insert.execute(params![id, kind, seq as i64, item.to_string()])?;
                }
            }
        }
        match &result.environment {
            Some((description, status, text)) => {
                tx.execute(
                    "UPDATE environments SET description = ?2, status = ?3, status_text = ?4,
                     cloud = ?5, pending = NULL WHERE id = ?1",
                    params![
                        env,
                        description.to_string(),
                        status,
                        text,
                        result.cloud.to_string()
                    ],
                )?;
            }
            None => {
                tx.execute("DELETE FROM environments WHERE id = ?1", [env])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The deployments of an environment, oldest first.
    pub fn deployments(&self, env: &str) -> Result<Vec<Deployment>> {
        let mut st = self.conn.prepare(
            "SELECT id, environment, kind, action, state, outcome FROM deployments
             WHERE environment = ?1 ORDER BY id",
        )?;
        let rows = st.query_map([env], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<String>>(5)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, environment, kind, action, state, outcome) = row?;
            out.push(Deployment {
                id,
                environment,
                kind,
                action: parse(action.as_deref().unwrap_or("null"), "action")?,
                state,
                outcome: parse(outcome.as_deref().unwrap_or("null"), "outcome")?,
                reports: self.records(id, "report")?,
            });
        }
        Ok(out)
    }

    /// The records of one kind (`report`, `heat`, `agent_plan`, `log`) of
    /// a deployment, in order.
    pub fn records(&self, deployment: i64, kind: &str) -> Result<Vec<Json>> {
        let mut st = self
            .conn
            .prepare("SELECT body FROM records WHERE deployment = ?1 AND kind = ?2 ORDER BY seq")?;
        let rows = st.query_map(params![deployment, kind], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for r in rows {
            out.push(parse(&r?, kind)?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
