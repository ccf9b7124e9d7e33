//! Versioned migrations of the API database, counted in SQLite's
//! `user_version`: version 0 is the first release (Murano's tables of
//! `schema`), each later version adds what the list below says. A file
//! written by a newer `murano` (a version this one does not know) is
//! refused, never changed.

use rusqlite::{Connection, OptionalExtension};
use serde_json::Value;

use super::{Db, StoreError};

/// The migrations, in order: the version each one brings the file to and
/// its SQL.
const MIGRATIONS: &[(i64, &str)] = &[
    (
        1,
        // The offline cloud of each environment (Heat stacks, counters) kept
        // from one engine task to the next.
        "CREATE TABLE IF NOT EXISTS \"environment_cloud\" (\
         \"environment_id\" TEXT PRIMARY KEY, \
         \"state\" TEXT NOT NULL, \
         \"updated\" TEXT)",
    ),
    (
        2,
        // What each engine task (deployment) sent: the Heat templates it
        // pushed and the agent plans, shown on the dashboard's deployment
        // page (Murano keeps them in Heat and the agents' queues only).
        "CREATE TABLE IF NOT EXISTS \"task_artifacts\" (\
         \"task_id\" TEXT PRIMARY KEY, \
         \"environment_id\" TEXT NOT NULL, \
         \"heat\" TEXT NOT NULL, \
         \"agent_plans\" TEXT NOT NULL, \
         \"created\" TEXT); \
         CREATE INDEX IF NOT EXISTS \"ix_task_artifacts_environment_id\" \
         ON \"task_artifacts\" (\"environment_id\")",
    ),
    (
        3,
        // `murano env` shares the file: what it keeps of each task it
        // runs beyond Murano's `task` row (the process running it, so a
        // killed one is found; the engine's outcome, raw reports, Heat
        // operations, agent plans, log and final model), and where each
        // package it imported came from and its version.
        "CREATE TABLE IF NOT EXISTS \"env_run\" (\
         \"task_id\" TEXT PRIMARY KEY, \
         \"pid\" INTEGER NOT NULL, \
         \"kind\" TEXT NOT NULL, \
         \"state\" TEXT NOT NULL, \
         \"outcome\" TEXT, \
         \"reports\" TEXT, \
         \"heat\" TEXT, \
         \"agent_plans\" TEXT, \
         \"log\" TEXT, \
         \"final_model\" TEXT); \
         CREATE TABLE IF NOT EXISTS \"package_source\" (\
         \"package_id\" TEXT PRIMARY KEY, \
         \"source\" TEXT NOT NULL, \
         \"version\" TEXT NOT NULL, \
         \"files\" INTEGER NOT NULL)",
    ),
];

/// The version this build writes.
pub const CURRENT: i64 = 3;

/// Prepare the file at `conn`: refuse a newer one, create Murano's tables
/// (`schema`) where missing, then bring it to [`CURRENT`], each step in a
/// transaction.
pub(super) fn run(conn: &Connection) -> Result<(), StoreError> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > CURRENT {
        return Err(StoreError::Sql(format!(
            "the database has schema version {version}, newer than this murano's {CURRENT}: \
             refusing to open it"
        )));
    }
    // One transaction for every table and index: a new file gets them in
    // one commit, not one per statement.
    conn.execute_batch(&format!("BEGIN; {} COMMIT;", crate::schema::ddl()))
        .inspect_err(|_| {
            let _ = conn.execute_batch("ROLLBACK");
        })?;
    for (to, sql) in MIGRATIONS.iter().filter(|(to, _)| *to > version) {
        conn.execute_batch(&format!(
            "BEGIN; {sql}; PRAGMA user_version = {to}; COMMIT;"
        ))
        .inspect_err(|_| {
            let _ = conn.execute_batch("ROLLBACK");
        })?;
    }
    Ok(())
}

impl Db {
    /// The schema version of the file (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// The stored offline cloud of environment `env_id` (JSON as
    /// `murano_env::CloudState::to_json` writes it), if any.
    pub fn cloud_state(&self, env_id: &str) -> Result<Option<Value>, StoreError> {
        let text: Option<String> = self
            .conn
            .query_row(
                "SELECT state FROM environment_cloud WHERE environment_id = ?1",
                [env_id],
                |r| r.get(0),
            )
            .optional()?;
        text.map(|t| serde_json::from_str(&t).map_err(|e| StoreError::Sql(e.to_string())))
            .transpose()
    }

    /// Store the offline cloud of environment `env_id`.
    pub fn set_cloud_state(&self, env_id: &str, state: &Value) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO environment_cloud (environment_id, state, updated) VALUES (?1, ?2, ?3) \
             ON CONFLICT(environment_id) DO UPDATE SET state = excluded.state, \
             updated = excluded.updated",
            rusqlite::params![env_id, state.to_string(), crate::clock::now()],
        )?;
        Ok(())
    }

    /// Forget the offline cloud of environment `env_id`.
    pub fn delete_cloud_state(&self, env_id: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "DELETE FROM environment_cloud WHERE environment_id = ?1",
            [env_id],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scratch(name: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!(
            "murano-api-migrate-{name}-{}.db",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&p);
        p
    }

    #[test]
    fn a_first_release_file_is_migrated_and_keeps_its_rows() {
        let path = scratch("old");
        {
            // A file as the first release wrote it: Murano's tables only.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(&crate::schema::ddl()).unwrap();
            conn.execute(
                "INSERT INTO environment (id, name, tenant_id, version) VALUES ('e', 'n', 't', 0)",
                [],
            )
            .unwrap();
        }
        let db = Db::open(&path).unwrap();
        assert_eq!(db.schema_version().unwrap(), CURRENT);
        assert!(db.get("environment", "e").unwrap().is_some());
        assert_eq!(db.cloud_state("e").unwrap(), None);
        db.set_cloud_state("e", &json!({"heat": {}})).unwrap();
        db.set_cloud_state("e", &json!({"heat": {"s": 1}})).unwrap();
        drop(db);
        let db = Db::open(&path).unwrap();
        assert_eq!(
            db.cloud_state("e").unwrap(),
            Some(json!({"heat": {"s": 1}}))
        );
        db.delete_cloud_state("e").unwrap();
        assert_eq!(db.cloud_state("e").unwrap(), None);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_version_1_file_gains_the_task_artifacts_and_keeps_its_clouds() {
        let path = scratch("v1");
        {
            // A file as version 1 left it.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(&crate::schema::ddl()).unwrap();
            conn.execute_batch(&format!(
                "BEGIN; {}; PRAGMA user_version = 1; COMMIT;",
                MIGRATIONS[0].1
            ))
            .unwrap();
            conn.execute(
                "INSERT INTO environment_cloud (environment_id, state) VALUES ('e', '{\"heat\": {}}')",
                [],
            )
            .unwrap();
        }
        let db = Db::open(&path).unwrap();
        assert_eq!(db.schema_version().unwrap(), CURRENT);
        assert_eq!(db.cloud_state("e").unwrap(), Some(json!({"heat": {}})));
        let kept = super::super::TaskArtifacts {
            heat: vec![json!({"op": "create"})],
            agent_plans: Vec::new(),
        };
        db.set_task_artifacts("t", "e", &kept).unwrap();
        drop(db);
        let db = Db::open(&path).unwrap();
        assert_eq!(db.task_artifacts("t").unwrap(), Some(kept));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_newer_file_is_refused_untouched() {
        let path = scratch("new");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch("PRAGMA user_version = 99").unwrap();
        }
        let err = Db::open(&path).unwrap_err().to_string();
        assert!(err.contains("newer"), "{err}");
        let conn = Connection::open(&path).unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 99);
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .unwrap();
        assert_eq!(tables, 0);
        let _ = std::fs::remove_file(&path);
    }
}
