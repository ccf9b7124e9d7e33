//! The checks that keep the store from writing into a file that is not
//! its own, before Murano's tables are created or migrated in it
//! (`murano_api::store`, whose versioned migrations the file follows).

use std::io::Read;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::{refused, Result};

/// `PRAGMA application_id` of the store the first `murano env` wrote
/// (its own tables, before it shared Murano's): carried over.
pub const OLD_APPLICATION_ID: i32 = 0x4d55_5253;

/// The newest schema version (Murano's tables and the migrations after).
pub const SCHEMA_VERSION: i32 = murano_api::store::SCHEMA_VERSION as i32;

const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Murano's tables a store file has (one is enough to know it).
const MURANO_TABLES: &[&str] = &["environment", "package", "session", "task"];

/// Refuses, without changing it, a file that is not a store this murano
/// can open: not SQLite, damaged, another application's, or a newer
/// schema. A missing or empty file is a new store. A store of the first
/// `murano env` format gives its schema version (to be carried over).
pub(crate) fn check_file(path: &Path) -> Result<Option<i32>> {
    let mut f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(refused(path, format!("cannot read it: {e}"))),
    };
    let mut head = Vec::new();
    (&mut f)
        .take(16)
        .read_to_end(&mut head)
        .map_err(|e| refused(path, format!("cannot read it: {e}")))?;
    if head.is_empty() {
        return Ok(None);
    }
    if head.as_slice() != SQLITE_HEADER {
        return Err(refused(path, "not an SQLite database"));
    }
    // Read-only: nothing is written before the checks pass.
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| refused(path, format!("damaged database ({e})")))?;
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
    let tables: Vec<String> = {
        let mut st = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .map_err(damaged)?;
        let rows = st.query_map([], |r| r.get(0)).map_err(damaged)?;
        rows.collect::<std::result::Result<_, _>>()
            .map_err(damaged)?
    };
    if app == OLD_APPLICATION_ID {
        return Ok(Some(version));
    }
    if app != 0
        || (!tables.is_empty() && !MURANO_TABLES.iter().any(|t| tables.iter().any(|n| n == t)))
    {
        return Err(refused(path, "a database of another application"));
    }
    if version > SCHEMA_VERSION {
        return Err(refused(
            path,
            format!("schema version {version} is newer than this murano's ({SCHEMA_VERSION})"),
        ));
    }
    Ok(None)
}
