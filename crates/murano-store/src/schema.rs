//! The schema and its migrations, and the checks that keep the store
//! from writing into a file that is not its own.

use std::io::Read;
use std::path::Path;

use rusqlite::Connection;

use crate::{refused, Result};

/// `PRAGMA application_id` of a murano store ("MURS").
pub const APPLICATION_ID: i32 = 0x4d55_5253;

/// The newest schema version.
pub const SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

/// Migration `i` takes the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: the first release.
    "CREATE TABLE packages (
        name TEXT PRIMARY KEY,
        version TEXT NOT NULL,
        source TEXT NOT NULL,
        classes TEXT NOT NULL,
        imported INTEGER NOT NULL
     );
     CREATE TABLE package_files (
        package TEXT NOT NULL,
        path TEXT NOT NULL,
        bytes BLOB NOT NULL,
        PRIMARY KEY (package, path)
     );
     CREATE TABLE environments (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL,
        status_text TEXT NOT NULL,
        description TEXT NOT NULL,
        pending TEXT,
        cloud TEXT NOT NULL,
        created INTEGER NOT NULL
     );
     CREATE TABLE deployments (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        environment TEXT NOT NULL,
        kind TEXT NOT NULL,
        action TEXT,
        state TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started INTEGER NOT NULL,
        finished INTEGER,
        outcome TEXT,
        final_model TEXT
     );
     CREATE INDEX deployments_env ON deployments (environment, state);
     CREATE TABLE records (
        deployment INTEGER NOT NULL,
        kind TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (deployment, kind, seq)
     );",
];

const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Refuses, before SQLite opens it, a file that exists and is not an
/// SQLite database (SQLite would treat an empty file as a new one, which
/// is fine, but must not be handed text or another format).
pub(crate) fn check_file(path: &Path) -> Result<()> {
    let mut f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(refused(path, format!("cannot read it: {e}"))),
    };
    let mut head = Vec::new();
    (&mut f)
        .take(16)
        .read_to_end(&mut head)
        .map_err(|e| refused(path, format!("cannot read it: {e}")))?;
    if head.is_empty() {
        return Ok(());
    }
    if head.as_slice() != SQLITE_HEADER {
        return Err(refused(path, "not an SQLite database"));
    }
    Ok(())
}

/// Checks the database and brings its schema up to date.
pub(crate) fn prepare(conn: &Connection, path: &Path) -> Result<()> {
    let damaged = |e: rusqlite::Error| refused(path, format!("damaged database ({e})"));
    let check: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(damaged)?;
    if check != "ok" {
        return Err(refused(path, format!("damaged database ({check})")));
    }
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(damaged)?;
    let version: i32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(damaged)?;
    let tables: i64 = conn
        .query_row("SELECT COUNT(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(damaged)?;
    if app != APPLICATION_ID {
        if app != 0 || tables > 0 {
            return Err(refused(path, "a database of another application"));
        }
    } else if version > SCHEMA_VERSION {
        return Err(refused(
            path,
            format!("schema version {version} is newer than this murano's ({SCHEMA_VERSION})"),
        ));
    }
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    let start = if app == APPLICATION_ID { version } else { 0 };
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(start.max(0) as usize) {
        let tx = conn.unchecked_transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "application_id", APPLICATION_ID)?;
        tx.pragma_update(None, "user_version", i as i32 + 1)?;
        tx.commit()?;
    }
    Ok(())
}
