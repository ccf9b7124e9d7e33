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
    /// The packages tenant `tenant` may use (Murano's API catalog as its
    /// engine searches it: its own, then the public ones of other
    /// tenants, enabled ones only), oldest first within each group.
    pub fn catalog_heads(&self, tenant: Option<&str>) -> Result<Vec<PackageHead>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, fully_qualified_name, COALESCE(updated, ''), \
                    COALESCE(owner_id = ?1, 0) AS owned \
             FROM package WHERE (owner_id = ?1 OR is_public = 1) \
             AND COALESCE(enabled, 1) = 1 \
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_engine_sees_own_then_public_enabled_packages() {
        let db = Db::in_memory().unwrap();
        let t = "2020-01-01T00:00:00.000000";
        for (id, owner, public, enabled) in [
            ("pub", "q", true, true),
            ("mine", "p", false, true),
            ("theirs", "q", false, true),
            ("off", "p", false, false),
        ] {
            let row = json!({"id": id, "fully_qualified_name": format!("x.{id}"),
                "owner_id": owner, "is_public": public, "enabled": enabled,
                "archive": {"$hex": "00"}, "created": t, "updated": t});
            db.insert("package", row.as_object().unwrap()).unwrap();
        }
        let ids: Vec<(String, bool)> = db
            .catalog_heads(Some("p"))
            .unwrap()
            .into_iter()
            .map(|h| (h.id, h.owned))
            .collect();
        assert_eq!(ids, [("mine".to_owned(), true), ("pub".to_owned(), false)]);
        let anonymous: Vec<String> = db
            .catalog_heads(None)
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect();
        assert_eq!(anonymous, ["pub"]);
        assert_eq!(db.package_archive("mine").unwrap(), Some(vec![0]));
        assert_eq!(db.package_archive("nope").unwrap(), None);
    }
}
