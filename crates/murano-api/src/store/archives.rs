//! The package archives engine tasks load classes from, read without the
//! other (large) columns of the `package` table.

use super::{Db, StoreError};

/// What the engine needs to know of a catalog package before reading its
/// archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageHead {
    /// The package's id.
    pub id: String,
    /// Its `FullName`.
    pub fully_qualified_name: String,
    /// When it last changed (the archive cache's key with `id`).
    pub updated: String,
    /// Whether it belongs to the tenant asking (else it is public).
    pub owned: bool,
}

impl Db {
    /// The packages tenant `tenant` may use (Murano's API catalog: its
    /// own, then the public ones of other tenants), oldest first within
    /// each group.
    pub fn catalog_heads(&self, tenant: Option<&str>) -> Result<Vec<PackageHead>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, fully_qualified_name, COALESCE(updated, ''), \
                    COALESCE(owner_id = ?1, 0) AS owned \
             FROM package WHERE owner_id = ?1 OR is_public = 1 \
             ORDER BY owned DESC, created, rowid",
        )?;
        let rows = stmt.query_map([tenant], |r| {
            Ok(PackageHead {
                id: r.get(0)?,
                fully_qualified_name: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                updated: r.get(2)?,
                owned: r.get::<_, i64>(3)? != 0,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The archive of package `id`, if it has one.
    pub fn package_archive(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn
            .query_row("SELECT archive FROM package WHERE id = ?1", [id], |r| {
                r.get::<_, Option<Vec<u8>>>(0)
            })
            .optional()?
            .flatten())
    }
}
