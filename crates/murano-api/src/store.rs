//! The API's store: Murano's tables (`schema`) in SQLite, read and written
//! as rows of JSON values (a row is a column-name → value map, JSON columns
//! decoded, times as `YYYY-MM-DDTHH:MM:SS.ffffff` strings, binary columns as
//! `{"$hex": "…"}`).

use std::path::Path;

use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{params_from_iter, Connection};
use serde_json::{Map, Value};

use crate::schema::{self, Column, Kind, Table};

mod archives;
mod artifacts;
mod migrate;
mod package_list;
pub use archives::PackageHead;
pub use artifacts::TaskArtifacts;
pub use migrate::CURRENT as SCHEMA_VERSION;
pub use package_list::{PackageFilter, PackageLinks, PackagePage, PackageScope};

/// One row.
pub type Row = Map<String, Value>;

/// A store failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A unique constraint (or primary key) was violated.
    #[error("duplicate entry")]
    Duplicate,
    /// Any other database failure.
    #[error("database: {0}")]
    Sql(String),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        if let rusqlite::Error::SqliteFailure(f, _) = &e {
            if f.code == rusqlite::ErrorCode::ConstraintViolation {
                return StoreError::Duplicate;
            }
        }
        StoreError::Sql(e.to_string())
    }
}

/// The database of one server.
#[derive(Debug)]
pub struct Db {
    conn: Connection,
}

fn table(name: &str) -> Result<&'static Table, StoreError> {
    schema::table(name).ok_or_else(|| StoreError::Sql(format!("no table {name}")))
}

fn to_sql(kind: Kind, v: &Value) -> SqlValue {
    match (kind, v) {
        (_, Value::Null) if kind != Kind::Json => SqlValue::Null,
        (Kind::Json, v) => SqlValue::Text(v.to_string()),
        (Kind::Bool, Value::Bool(b)) => SqlValue::Integer(i64::from(*b)),
        (Kind::Int, Value::Number(n)) => SqlValue::Integer(n.as_i64().unwrap_or(0)),
        (Kind::Float, Value::Number(n)) => SqlValue::Real(n.as_f64().unwrap_or(0.0)),
        (Kind::Bytes, Value::Object(o)) => SqlValue::Blob(
            o.get("$hex")
                .and_then(Value::as_str)
                .map(unhex)
                .unwrap_or_default(),
        ),
        (_, Value::String(s)) => SqlValue::Text(s.clone()),
        (_, v) => SqlValue::Text(v.to_string()),
    }
}

fn from_sql(kind: Kind, v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) if kind == Kind::Bool => Value::Bool(i != 0),
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => Value::from(f),
        ValueRef::Text(t) => {
            let s = String::from_utf8_lossy(t);
            if kind == Kind::Json {
                serde_json::from_str(&s).unwrap_or(Value::Null)
            } else {
                Value::String(s.into_owned())
            }
        }
        ValueRef::Blob(b) => serde_json::json!({ "$hex": hex(b) }),
    }
}

/// Lower-case hex of `b`.
pub fn hex(b: &[u8]) -> String {
    // A table, not a format! per byte: package listings convert every
    // archive they read.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(b.len() * 2);
    for x in b {
        out.push(char::from(DIGITS[usize::from(x >> 4)]));
        out.push(char::from(DIGITS[usize::from(x & 0xf)]));
    }
    out
}

/// The bytes of a hex string (invalid pairs are dropped).
pub fn unhex(s: &str) -> Vec<u8> {
    // Byte by byte, not a parse per pair (every stored archive goes
    // through here); a pair `u8::from_str_radix` would read (an
    // optional `+` before one digit) reads the same.
    let digit = |b: u8| {
        char::from(b)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    s.as_bytes()
        .chunks(2)
        .filter_map(|c| match *c {
            [hi, lo] => match (digit(hi), digit(lo)) {
                (Some(h), Some(l)) => Some((h << 4) | l),
                _ if hi == b'+' => digit(lo),
                _ => None,
            },
            [one] => digit(one),
            _ => None,
        })
        .collect()
}

fn quoted(name: &str) -> String {
    format!("\"{name}\"")
}

impl Db {
    /// An empty database in memory.
    pub fn in_memory() -> Result<Db, StoreError> {
        Self::init(Connection::open_in_memory()?)
    }

    /// The database in the file at `path` (created when missing).
    pub fn open(path: &Path) -> Result<Db, StoreError> {
        let conn = Connection::open(path)?;
        // A server's journal: readers do not wait for the writer, and a
        // commit is one append (synced at checkpoints), not several syncs.
        conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")?;
        // `murano env` and `murano serve` share the file: a writer waits
        // for the other process's commit instead of failing at once.
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        Self::init(conn)
    }

    /// Another connection to the file of `self`, read-only (`None` for a
    /// database in memory, which has no second connection): in WAL mode it
    /// reads the last commit without waiting for the writer or other
    /// readers. Writes through it fail.
    pub fn reader(&self) -> Result<Option<Db>, StoreError> {
        // SQLite's own name of the file ("" in memory; none when the
        // name is not UTF-8, and then no readers either).
        let Some(path) = self.conn.path().filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        let conn = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        // A reader waits (briefly) only while the writer recovers or
        // truncates the journal.
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.set_prepared_statement_cache_capacity(64);
        Ok(Some(Db { conn }))
    }

    /// Another read-write connection to the file of `self` (`None` for a
    /// database in memory), set up as [`Db::open`] sets one up but without
    /// creating or migrating tables (`self` did): for a thread writing
    /// beside the owner of `self`, such as a task's live status reports.
    pub fn writer(&self) -> Result<Option<Db>, StoreError> {
        let Some(path) = self.conn.path().filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        let conn = Connection::open(path)?;
        conn.execute_batch("PRAGMA synchronous=NORMAL;")?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        conn.set_prepared_statement_cache_capacity(64);
        Ok(Some(Db { conn }))
    }

    fn init(conn: Connection) -> Result<Db, StoreError> {
        migrate::run(&conn)?;
        conn.execute_batch(&format!("BEGIN; {} COMMIT;", package_list::sort_indexes()))
            .inspect_err(|_| {
                let _ = conn.execute_batch("ROLLBACK");
            })?;
        // Reads are a few statement shapes run many times (a catalog
        // listing reads each package's links): parse each once.
        conn.set_prepared_statement_cache_capacity(64);
        Ok(Db { conn })
    }

    /// Insert `row` (columns it lacks are NULL).
    pub fn insert(&self, table_name: &str, row: &Row) -> Result<(), StoreError> {
        self.insert_with_blobs(table_name, row, &[])
    }

    /// [`Db::insert`] with the binary columns `blobs` given as bytes (an
    /// archive not turned into hex and back), before the columns of `row`.
    pub fn insert_with_blobs(
        &self,
        table_name: &str,
        row: &Row,
        blobs: &[(&str, &[u8])],
    ) -> Result<(), StoreError> {
        let t = table(table_name)?;
        let blob_cols: Vec<_> = t
            .columns
            .iter()
            .filter(|c| blobs.iter().any(|(n, _)| *n == c.name))
            .collect();
        let cols: Vec<_> = blob_cols
            .iter()
            .copied()
            .chain(t.columns.iter().filter(|c| {
                row.contains_key(c.name) && !blob_cols.iter().any(|b| b.name == c.name)
            }))
            .collect();
        let sql = format!(
            "INSERT INTO {} ({}) VALUES ({})",
            quoted(t.name),
            cols.iter()
                .map(|c| quoted(c.name))
                .collect::<Vec<_>>()
                .join(", "),
            vec!["?"; cols.len()].join(", ")
        );
        let vals: Vec<SqlValue> = cols
            .iter()
            .map(|c| match blobs.iter().find(|(n, _)| *n == c.name) {
                Some((_, b)) => SqlValue::Blob(b.to_vec()),
                None => to_sql(c.kind, &row[c.name]),
            })
            .collect();
        self.conn
            .prepare_cached(&sql)?
            .execute(params_from_iter(vals))?;
        Ok(())
    }

    fn where_clause(t: &Table, key: &Row) -> (String, Vec<SqlValue>) {
        let mut parts = Vec::new();
        let mut vals = Vec::new();
        for c in t.columns.iter().filter(|c| key.contains_key(c.name)) {
            let v = &key[c.name];
            if v.is_null() {
                parts.push(format!("{} IS NULL", quoted(c.name)));
            } else {
                parts.push(format!("{} = ?", quoted(c.name)));
                vals.push(to_sql(c.kind, v));
            }
        }
        if parts.is_empty() {
            ("1".to_owned(), vals)
        } else {
            (parts.join(" AND "), vals)
        }
    }

    /// Set the columns of `set` in the rows matching `key`.
    pub fn update(&self, table_name: &str, key: &Row, set: &Row) -> Result<usize, StoreError> {
        let t = table(table_name)?;
        let cols: Vec<_> = t
            .columns
            .iter()
            .filter(|c| set.contains_key(c.name))
            .collect();
        if cols.is_empty() {
            return Ok(0);
        }
        let (w, wv) = Self::where_clause(t, key);
        let sql = format!(
            "UPDATE {} SET {} WHERE {w}",
            quoted(t.name),
            cols.iter()
                .map(|c| format!("{} = ?", quoted(c.name)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut vals: Vec<SqlValue> = cols.iter().map(|c| to_sql(c.kind, &set[c.name])).collect();
        vals.extend(wv);
        Ok(self.conn.execute(&sql, params_from_iter(vals))?)
    }

    /// Delete the rows matching `key`.
    pub fn delete(&self, table_name: &str, key: &Row) -> Result<usize, StoreError> {
        let t = table(table_name)?;
        let (w, wv) = Self::where_clause(t, key);
        let sql = format!("DELETE FROM {} WHERE {w}", quoted(t.name));
        Ok(self.conn.execute(&sql, params_from_iter(wv))?)
    }

    /// The rows matching `key` (column = value, all of them), ordered by
    /// `order` (an SQL ORDER BY list written by this crate, never by input).
    pub fn select(&self, table_name: &str, key: &Row, order: &str) -> Result<Vec<Row>, StoreError> {
        let t = table(table_name)?;
        let (w, wv) = Self::where_clause(t, key);
        let order = if order.is_empty() {
            "rowid".to_owned()
        } else {
            order.to_owned()
        };
        let sql = format!(
            "SELECT * FROM {} WHERE {w} ORDER BY {order}",
            quoted(t.name)
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(wv))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mut row = Row::new();
            for (i, c) in t.columns.iter().enumerate() {
                row.insert(c.name.to_owned(), from_sql(c.kind, r.get_ref(i)?));
            }
            out.push(row);
        }
        Ok(out)
    }

    /// [`Db::select`] reading only the columns `cols` (unknown names are
    /// skipped): listings that need no archive or logo do not decode them.
    pub fn select_columns(
        &self,
        table_name: &str,
        key: &Row,
        cols: &[&str],
        order: &str,
    ) -> Result<Vec<Row>, StoreError> {
        let t = table(table_name)?;
        let skip: Vec<&str> = t
            .columns
            .iter()
            .map(|c| c.name)
            .filter(|name| !cols.contains(name))
            .collect();
        if skip.len() == t.columns.len() {
            return Ok(Vec::new());
        }
        self.select_except(table_name, key, order, &skip)
    }

    /// The rows matching `key` as `select` gives them, without the
    /// columns `skip` (absent from the rows: listings need not read
    /// archives).
    pub fn select_except(
        &self,
        table_name: &str,
        key: &Row,
        order: &str,
        skip: &[&str],
    ) -> Result<Vec<Row>, StoreError> {
        let t = table(table_name)?;
        let (w, wv) = Self::where_clause(t, key);
        let order = if order.is_empty() { "rowid" } else { order };
        let cols: Vec<&Column> = t
            .columns
            .iter()
            .filter(|c| !skip.contains(&c.name))
            .collect();
        let list: Vec<String> = cols.iter().map(|c| quoted(c.name)).collect();
        let sql = format!(
            "SELECT {} FROM {} WHERE {w} ORDER BY {order}",
            list.join(", "),
            quoted(t.name)
        );
        self.query_rows(&sql, wv, &cols)
    }

    /// The rows `sql` selects with the values `vals` bound, its `i`-th
    /// result column read as `cols[i]`.
    fn query_rows(
        &self,
        sql: &str,
        vals: Vec<SqlValue>,
        cols: &[&Column],
    ) -> Result<Vec<Row>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let mut rows = stmt.query(params_from_iter(vals))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mut row = Row::new();
            for (i, c) in cols.iter().enumerate() {
                row.insert(c.name.to_owned(), from_sql(c.kind, r.get_ref(i)?));
            }
            out.push(row);
        }
        Ok(out)
    }

    /// The row whose `id` is `id`.
    pub fn get(&self, table_name: &str, id: &str) -> Result<Option<Row>, StoreError> {
        Ok(self
            .select(table_name, &key("id", id), "")?
            .into_iter()
            .next())
    }

    /// Run `f` in one transaction: all its writes or none. Transactions
    /// nest (a savepoint inside an outer one).
    pub fn transaction<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Db) -> Result<T, E>,
    ) -> Result<T, E> {
        self.conn
            .execute_batch("SAVEPOINT murano_tx")
            .map_err(StoreError::from)?;
        match f(self) {
            Ok(v) => {
                self.conn
                    .execute_batch("RELEASE murano_tx")
                    .map_err(StoreError::from)?;
                Ok(v)
            }
            Err(e) => {
                let _ = self
                    .conn
                    .execute_batch("ROLLBACK TO murano_tx; RELEASE murano_tx");
                Err(e)
            }
        }
    }

    /// Run `f` in a transaction that takes the write lock first (`BEGIN
    /// IMMEDIATE`): what it reads no other process changes before it
    /// commits (one deployment of an environment at a time across
    /// processes sharing the file).
    pub fn immediate<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Db) -> Result<T, E>,
    ) -> Result<T, E> {
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(StoreError::from)?;
        match f(self) {
            Ok(v) => {
                self.conn
                    .execute_batch("COMMIT")
                    .map_err(StoreError::from)?;
                Ok(v)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// The connection, for the tables outside Murano's (`murano env`'s
    /// records of the tasks it runs).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

/// A one-column key.
pub fn key(col: &str, v: impl Into<Value>) -> Row {
    let mut m = Row::new();
    m.insert(col.to_owned(), v.into());
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hex_round_trips_and_listings_skip_columns() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(unhex(&hex(&bytes)), bytes);
        assert_eq!(hex(&[0x0f, 0xa0]), "0fa0");
        // Pairs that are not two hex digits read as `u8::from_str_radix`
        // reads them (dropped, or a `+` sign before one digit).
        for odd in ["0FzZ+a1", "é9", "+", "abc", "-1++0g"] {
            let expected: Vec<u8> = odd
                .as_bytes()
                .chunks(2)
                .filter_map(|c| {
                    std::str::from_utf8(c)
                        .ok()
                        .and_then(|c| u8::from_str_radix(c, 16).ok())
                })
                .collect();
            assert_eq!(unhex(odd), expected, "{odd}");
        }
        let db = Db::in_memory().unwrap();
        let row = json!({"id": "p", "name": "n", "archive": {"$hex": "504b"}});
        db.insert("package", row.as_object().unwrap()).unwrap();
        let all = db.select("package", &Row::new(), "").unwrap();
        assert_eq!(all[0]["archive"], json!({"$hex": "504b"}));
        let some = db
            .select_except("package", &Row::new(), "", &["archive"])
            .unwrap();
        assert!(!some[0].contains_key("archive"));
        assert_eq!(some[0]["name"], json!("n"));
        assert_eq!(some[0].len() + 1, all[0].len());
    }

    #[test]
    fn round_trip_and_unique() {
        let db = Db::in_memory().unwrap();
        let row = json!({"id": "1", "name": "e", "tenant_id": "t", "version": 0,
            "description": {"Objects": null}, "description_text": "",
            "created": "2020-01-01T00:00:00.000000", "updated": "2020-01-01T00:00:00.000000"});
        db.insert("environment", row.as_object().unwrap()).unwrap();
        let got = db.get("environment", "1").unwrap().unwrap();
        assert_eq!(Value::Object(got), row);
        let mut dup = row.as_object().unwrap().clone();
        dup.insert("id".into(), json!("2"));
        assert!(matches!(
            db.insert("environment", &dup),
            Err(StoreError::Duplicate)
        ));
    }
}
