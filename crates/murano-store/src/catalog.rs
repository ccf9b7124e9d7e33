//! The catalog: Murano's `package` table. `murano catalog import` stores
//! a package as the API's upload does (its zip archive, classes, tags),
//! public, and records its source; the files of a package are read back
//! from its archive.

use murano_api::handlers::packages::{insert_package, remove_package, NewPackage};
use murano_api::store::{key, Db, Row};
use murano_api::upload::{LoadedPackage, PackageLoader, ZipLoader};
use murano_packages::archive::ArchiveLimits;
use murano_packages::source::{FileMap, PackageSource};
use rusqlite::OptionalExtension;
use serde_json::{json, Value as Json};

use crate::{engine_package, CatalogPackage, Files, Result, Store, StoreError};

/// The project owning the packages `murano catalog import` stores (they
/// are public: every project's environments deploy from them): the
/// offline cloud's default project, which `murano env`'s environments
/// belong to.
pub fn catalog_owner() -> String {
    murano_engine::host::OfflineOptions::default().project_id
}

/// The files of a stored archive.
fn archive_files(name: &str, archive: &[u8]) -> Result<Files> {
    let map = FileMap::from_zip(archive, &ArchiveLimits::default())
        .map_err(|e| StoreError::Damaged(format!("the archive of {name}: {e}")))?;
    let mut files = Files::new();
    for path in map.paths() {
        if let Some(bytes) = map.read(path) {
            files.insert(path.to_owned(), std::sync::Arc::new(bytes.to_vec()));
        }
    }
    Ok(files)
}

fn text(row: &Row, col: &str) -> String {
    row.get(col)
        .and_then(Json::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// A stored archive's bytes (none unless a blob), read as they are
/// stored: not through a row's hex form.
fn blob(v: rusqlite::types::ValueRef<'_>) -> Vec<u8> {
    match v {
        rusqlite::types::ValueRef::Blob(b) => b.to_vec(),
        _ => Vec::new(),
    }
}

fn archive_of(db: &Db, id: &str) -> Result<Vec<u8>> {
    db.connection()
        .prepare_cached("SELECT archive FROM package WHERE id = ?1")?
        .query_row([id], |r| Ok(blob(r.get_ref(0)?)))
        .optional()?
        .ok_or_else(|| StoreError::NotFound(format!("no package {id}")))
}

impl Store {
    /// Imports a package (replacing the catalog's own package of the same
    /// name); `files` are its files by path inside the package.
    pub fn import_package(&mut self, source: &str, files: &Files) -> Result<CatalogPackage> {
        let p = engine_package(source, files.clone())
            .map_err(|e| StoreError::Conflict(e.to_string()))?;
        let mut map = FileMap::default();
        for (path, bytes) in files {
            map.insert(path, bytes.to_vec())
                .map_err(|e| StoreError::Conflict(format!("{path}: {e}")))?;
        }
        // Stored, not deflated: each import writes it and each run of
        // the catalog's packages reads it back.
        let archive = murano_packages::pack::write_zip_stored(&map)
            .map_err(|e| StoreError::Conflict(e.to_string()))?;
        // What the API's upload reads; a package its loader refuses but
        // the engine runs (a bare manifest) is listed by name and classes.
        let loaded = ZipLoader.load(&archive).unwrap_or_else(|_| LoadedPackage {
            full_name: p.name.clone(),
            name: p.name.clone(),
            package_type: "Application".to_owned(),
            classes: p.classes.iter().map(|(c, _)| c.clone()).collect(),
            ..LoadedPackage::default()
        });
        let owner = catalog_owner();
        let display = if loaded.name.is_empty() {
            loaded.full_name.clone()
        } else {
            loaded.name.clone()
        };
        let version = p.version.to_string();
        self.db.immediate(|db| {
            let mut k = key("fully_qualified_name", loaded.full_name.as_str());
            k.insert("owner_id".into(), json!(owner));
            for old in db.select_columns("package", &k, &["id"], "")? {
                remove_package(db, &text(&old, "id"))?;
            }
            let id = insert_package(
                db,
                &NewPackage {
                    archive: &archive,
                    loaded: &loaded,
                    name: &display,
                    owner: &owner,
                    is_public: json!(true),
                    enabled: json!(true),
                    tags: &loaded.tags,
                    categories: &[],
                },
            )?;
            db.connection().execute(
                "INSERT INTO package_source (package_id, source, version, files) \
                 VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![id, source, version, files.len() as i64],
            )?;
            Ok::<_, StoreError>(())
        })?;
        self.package(&p.name)
    }

    /// The packages of the catalog (every project's), by name.
    pub fn packages(&self) -> Result<Vec<CatalogPackage>> {
        let rows = self.db.select_columns(
            "package",
            &Row::new(),
            &["id", "fully_qualified_name"],
            "fully_qualified_name, rowid",
        )?;
        rows.iter().map(|r| self.describe(r)).collect()
    }

    fn describe(&self, row: &Row) -> Result<CatalogPackage> {
        let id = text(row, "id");
        let name = text(row, "fully_qualified_name");
        let classes = self
            .db
            .select("class_definition", &key("package_id", id.as_str()), "rowid")?
            .iter()
            .map(|c| text(c, "name"))
            .collect();
        let recorded: Option<(String, String, i64)> = self
            .db
            .connection()
            .query_row(
                "SELECT source, version, files FROM package_source WHERE package_id = ?1",
                [&id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let (source, version, files) = match recorded {
            Some((source, version, files)) => (source, version, files as usize),
            None => {
                // Uploaded through the API: read its manifest.
                let files = archive_files(&name, &archive_of(&self.db, &id)?)?;
                let count = files.len();
                let version = engine_package(&name, files)
                    .map(|p| p.version.to_string())
                    .unwrap_or_else(|_| "0.0.0".to_owned());
                ("uploaded through the API".to_owned(), version, count)
            }
        };
        Ok(CatalogPackage {
            name,
            version,
            source,
            classes,
            files,
        })
    }

    /// The first package of the catalog named `name`, as its row.
    fn package_row(&self, name: &str) -> Result<Option<Row>> {
        Ok(self
            .db
            .select_columns(
                "package",
                &key("fully_qualified_name", name),
                &["id", "fully_qualified_name"],
                "rowid",
            )?
            .into_iter()
            .next())
    }

    /// One package by name.
    pub fn package(&self, name: &str) -> Result<CatalogPackage> {
        match self.package_row(name)? {
            Some(row) => self.describe(&row),
            None => Err(StoreError::NotFound(format!(
                "no package {name} in the catalog"
            ))),
        }
    }

    /// Removes the packages named `name` (every project's).
    pub fn remove_package(&mut self, name: &str) -> Result<()> {
        let n = self.db.immediate(|db| {
            let rows =
                db.select_columns("package", &key("fully_qualified_name", name), &["id"], "")?;
            for r in &rows {
                remove_package(db, &text(r, "id"))?;
            }
            Ok::<_, StoreError>(rows.len())
        })?;
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
        match self.package_row(name)? {
            Some(row) => Ok(Some(archive_files(
                name,
                &archive_of(&self.db, &text(&row, "id"))?,
            )?)),
            None => Ok(None),
        }
    }

    /// Every package's files (name, files), by name; of several packages
    /// of one name (of different projects), the first stored.
    pub fn package_files(&self) -> Result<Vec<(String, Files)>> {
        let conn = self.db.connection();
        let mut st = conn.prepare_cached(
            "SELECT fully_qualified_name, archive FROM package \
             ORDER BY fully_qualified_name, rowid",
        )?;
        let mut rows = st.query([])?;
        let mut out: Vec<(String, Files)> = Vec::new();
        while let Some(r) = rows.next()? {
            let name = match r.get_ref(0)? {
                rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                _ => String::new(),
            };
            if out.last().is_some_and(|(n, _)| *n == name) {
                continue;
            }
            let archive = blob(r.get_ref(1)?);
            out.push((name.clone(), archive_files(&name, &archive)?));
        }
        Ok(out)
    }
}
