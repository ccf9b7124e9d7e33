//! The store of the `murano` tool: one SQLite file shared by `murano env`,
//! `murano catalog` and `murano serve`. Its tables are Murano's database
//! (`murano_api::store`: packages, environments, sessions, tasks and
//! their status reports), so an environment made or deployed by either
//! side is the other's too; this crate is `murano env`'s view of them:
//!
//! - the catalog is Murano's `package` table (a package's files are its
//!   stored zip archive); `murano catalog import` stores public packages
//!   and records where each came from (`package_source`);
//! - an environment is Murano's `environment` row (its deployed
//!   description), its pending changes the description of its open
//!   session, its status Murano's (derived from its sessions), its offline
//!   cloud the `environment_cloud` row;
//! - a deployment is one of its Murano tasks (numbered 1, 2, … in order),
//!   its reports Murano's `status` rows; for the tasks `murano env` runs,
//!   `env_run` keeps the process running it, the engine's outcome, raw
//!   reports, Heat operations, agent plans, log lines and final model.
//!
//! Every change is a transaction, so a killed process loses nothing
//! committed. A deployment is committed as running (with the process id)
//! before the engine runs; opening the store fails the running
//! deployments of processes that are gone (their environments `deploy
//! failure`). Only one deployment of an environment runs at a time,
//! whichever process starts it. A file that is not SQLite, is damaged,
//! belongs to another application or comes from a newer version is
//! refused and never written; a store of the first `murano env` (its own
//! tables) is carried over to Murano's, the old file kept beside it.

#![forbid(unsafe_code)]

mod catalog;
mod deployments;
mod environments;
mod ops;
mod schema;
mod upgrade;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use murano_api::store::Db;
use serde_json::Value as Json;

pub use catalog::catalog_owner;
pub use deployments::INTERRUPTED;
pub use ops::{EnvTask, EnvTaskRun};
pub use schema::{OLD_APPLICATION_ID, SCHEMA_VERSION};

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file is not a murano store (not SQLite, damaged, another
    /// application's, an earlier format, or a newer schema); it was not
    /// changed.
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
    Sql(String),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Sql(e.to_string())
    }
}

impl From<murano_api::store::StoreError> for StoreError {
    fn from(e: murano_api::store::StoreError) -> Self {
        StoreError::Sql(e.to_string())
    }
}

impl From<murano_api::fault::ApiError> for StoreError {
    fn from(e: murano_api::fault::ApiError) -> Self {
        StoreError::Sql(e.body())
    }
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
    /// Where it was imported from (`murano catalog import`), or how it
    /// came (`uploaded through the API`).
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
    /// The status (`ready`, `pending`, `deploying`, ...), as Murano
    /// derives it from the sessions.
    pub status: String,
    /// The text of the last status report of its last deployment.
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
    /// Its number among the environment's deployments (1 for the first).
    pub id: i64,
    /// The id of Murano's task (as the API shows it).
    pub task: String,
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
    /// Whether the reports already reached the status table as they were
    /// made (else they are stored with the result).
    pub reports_stored: bool,
    /// The result Murano's engine sends the API (`{model, action}`).
    pub api_result: Json,
    /// The cloud after the task.
    pub cloud: Json,
}

/// The store (one connection).
#[derive(Debug)]
pub struct Store {
    db: Db,
    path: PathBuf,
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

/// Opens (or creates) the database at `path` for `murano serve`, with
/// the checks of [`Store::open`]: a file that is not a store is refused
/// untouched, and a store of the first `murano env` format is carried
/// over to Murano's tables (the old file kept as `<file>.first-format`).
pub fn open_db(path: &Path) -> Result<Db> {
    if let Some(version) = schema::check_file(path)? {
        upgrade::first_format(path, version)?;
        schema::check_file(path)?;
    }
    Db::open(path).map_err(|e| refused(path, e.to_string()))
}

impl Store {
    /// Opens (or creates) the store at `path`, migrating an older schema,
    /// and fails the deployments of processes that are gone.
    pub fn open(path: &Path) -> Result<Store> {
        let db = open_db(path)?;
        let mut store = Store {
            db,
            path: path.to_owned(),
        };
        store.recover()?;
        Ok(store)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The database (Murano's tables).
    pub fn db(&self) -> &Db {
        &self.db
    }
}

#[cfg(test)]
mod tests;
