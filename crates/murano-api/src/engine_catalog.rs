//! The packages the engine resolves a tenant's classes from, as Murano's
//! engine loads them through the API's catalog: the tenant's own packages,
//! then the public ones (the stored archives of the `package` table), then
//! the system packages given at start (Murano's core library `io.murano`)
//! for names the catalog does not hold. Archives are read once and kept
//! while their package is unchanged; so is the schema catalog built over
//! a set of packages, for schema requests and the dashboard's forms.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use murano_engine::deploy::PackageFiles;
use murano_packages::archive::ArchiveLimits;
use murano_packages::source::FileMap;
use murano_packages::PluginRegistry;
use murano_schema::{Catalog, CatalogBuilder};

use crate::app::App;

/// One package read for the engine and for schemas.
#[derive(Debug, Clone)]
pub struct LoadedPackage {
    /// Its `FullName`.
    pub name: String,
    /// What the engine runs.
    pub files: PackageFiles,
    /// Its files, for the schema catalog.
    pub source: FileMap,
}

impl LoadedPackage {
    /// Read a package from its files (`label` names it in errors).
    pub fn from_source(label: &str, source: FileMap) -> Result<LoadedPackage, String> {
        let mut files = PackageFiles::from_file_map(label, &source).map_err(|e| e.to_string())?;
        files
            .add_generated_classes(source.clone())
            .map_err(|e| e.to_string())?;
        // Frames name packages by their names, as the CLI's commands do.
        files.root = files.name.clone();
        Ok(LoadedPackage {
            name: files.name.clone(),
            files,
            source,
        })
    }

    /// Read a package from a zip archive.
    pub fn from_zip(label: &str, archive: &[u8]) -> Result<LoadedPackage, String> {
        let source =
            FileMap::from_zip(archive, &ArchiveLimits::default()).map_err(|e| e.to_string())?;
        LoadedPackage::from_source(label, source)
    }
}

/// The packages of one tenant's request, in resolution order.
#[derive(Debug, Clone, Default)]
pub struct TenantPackages(pub Vec<Arc<LoadedPackage>>);

impl TenantPackages {
    /// The packages as the engine takes them.
    pub fn engine_packages(&self) -> Vec<PackageFiles> {
        self.0.iter().map(|p| p.files.clone()).collect()
    }

    /// The schema catalog over the same packages (a package the schema
    /// generator cannot read is left out: its classes are not found).
    pub fn schema_catalog(&self) -> Catalog {
        let mut builder = CatalogBuilder::new();
        let registry = PluginRegistry::with_builtins();
        for p in &self.0 {
            if let Ok(pkg) = registry.load(p.source.clone()) {
                let _ = builder.add_package(pkg.as_ref());
            }
        }
        builder.build()
    }
}

/// A read archive: the package's `updated` when read, and the package
/// (`None`: it did not load).
type Cached = (String, Option<Arc<LoadedPackage>>);

/// How many schema catalogs [`EngineCatalog::schema_catalog`] keeps (one
/// per set of packages: tenants with private packages have their own).
pub const SCHEMA_CATALOGS_KEPT: usize = 8;

/// A schema catalog and the very packages it was built over.
type BuiltSchemas = (Vec<Arc<LoadedPackage>>, Arc<Catalog>);

/// The system packages and the cache of catalog archives.
#[derive(Debug, Default)]
pub struct EngineCatalog {
    system: Vec<Arc<LoadedPackage>>,
    // Package id → (its `updated`, what it read to).
    cache: Mutex<HashMap<String, Cached>>,
    // The latest schema catalogs built, newest last.
    schemas: Mutex<Vec<BuiltSchemas>>,
}

impl EngineCatalog {
    /// A catalog whose system packages (the core library) are `system`.
    pub fn new(system: Vec<LoadedPackage>) -> EngineCatalog {
        EngineCatalog {
            system: system.into_iter().map(Arc::new).collect(),
            cache: Mutex::new(HashMap::new()),
            schemas: Mutex::new(Vec::new()),
        }
    }

    /// The schema catalog over `packages`
    /// ([`TenantPackages::schema_catalog`]), built once per set of
    /// packages: a package read again (changed, or gone from the archive
    /// cache) is a new value, so a catalog is reused only over the very
    /// packages it was built from. Keeps the [`SCHEMA_CATALOGS_KEPT`] last.
    pub fn schema_catalog(&self, packages: &TenantPackages) -> Arc<Catalog> {
        let same = |kept: &[Arc<LoadedPackage>]| {
            kept.len() == packages.0.len()
                && kept.iter().zip(&packages.0).all(|(a, b)| Arc::ptr_eq(a, b))
        };
        let lock = || self.schemas.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, catalog)) = lock().iter().find(|(kept, _)| same(kept)) {
            return catalog.clone();
        }
        // Built without the lock held: another request may build the same
        // one meanwhile, which only costs the time.
        let catalog = Arc::new(packages.schema_catalog());
        let mut kept = lock();
        if kept.len() >= SCHEMA_CATALOGS_KEPT {
            kept.remove(0);
        }
        kept.push((packages.0.clone(), catalog.clone()));
        catalog
    }

    /// The system packages.
    pub fn system(&self) -> &[Arc<LoadedPackage>] {
        &self.system
    }

    /// The packages tenant `tenant` resolves classes from. A catalog
    /// package whose archive does not load is skipped (its classes are
    /// then not found, as in Murano when a package fails to load). The
    /// store is locked only to read rows, never while archives are read.
    pub fn for_tenant(&self, app: &App, tenant: Option<&str>) -> Result<TenantPackages, String> {
        let heads = app.db().catalog_heads(tenant).map_err(|e| e.to_string())?;
        let lock = || self.cache.lock().unwrap_or_else(|e| e.into_inner());
        lock().retain(|id, _| heads.iter().any(|h| &h.id == id));
        let mut out: Vec<Arc<LoadedPackage>> = Vec::new();
        for h in &heads {
            let cached = lock()
                .get(&h.id)
                .filter(|(u, _)| *u == h.updated)
                .map(|(_, l)| l.clone());
            let loaded = match cached {
                Some(l) => l,
                None => {
                    let archive = app.db().package_archive(&h.id).map_err(|e| e.to_string())?;
                    let l = archive
                        .and_then(|a| LoadedPackage::from_zip(&h.fully_qualified_name, &a).ok())
                        .map(Arc::new);
                    lock().insert(h.id.clone(), (h.updated.clone(), l.clone()));
                    l
                }
            };
            if let Some(l) = loaded {
                if !out.iter().any(|o| o.name == l.name) {
                    out.push(l);
                }
            }
        }
        for s in &self.system {
            if !out.iter().any(|o| o.name == s.name) {
                out.push(s.clone());
            }
        }
        Ok(TenantPackages(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(name: &str) -> Arc<LoadedPackage> {
        let mut files = FileMap::new();
        files
            .insert(
                "manifest.yaml",
                format!(
                    "Format: 1.0\nType: Application\nFullName: {name}\nName: {name}\n\
                     Classes:\n  {name}: A.yaml\n"
                )
                .into_bytes(),
            )
            .unwrap();
        files
            .insert(
                "Classes/A.yaml",
                format!("Name: {name}\nProperties:\n  size:\n    Contract: $.int()\n").into_bytes(),
            )
            .unwrap();
        Arc::new(LoadedPackage::from_source(name, files).unwrap())
    }

    #[test]
    fn a_schema_catalog_is_built_once_per_set_of_packages() {
        let catalog = EngineCatalog::default();
        let (a, b) = (package("com.example.A"), package("com.example.B"));
        let first = catalog.schema_catalog(&TenantPackages(vec![a.clone(), b.clone()]));
        let again = catalog.schema_catalog(&TenantPackages(vec![a.clone(), b.clone()]));
        assert!(Arc::ptr_eq(&first, &again));
        assert!(first.registry().class_count() >= 2);
        // Another set, or the same name read again (a changed package), is
        // another catalog.
        let fewer = catalog.schema_catalog(&TenantPackages(vec![a.clone()]));
        assert!(!Arc::ptr_eq(&first, &fewer));
        let reread =
            catalog.schema_catalog(&TenantPackages(vec![a.clone(), package("com.example.B")]));
        assert!(!Arc::ptr_eq(&first, &reread));
        // Bounded: the oldest go first.
        for i in 0..SCHEMA_CATALOGS_KEPT {
            catalog.schema_catalog(&TenantPackages(vec![package(&format!("com.example.P{i}"))]));
        }
        assert_eq!(catalog.schemas.lock().unwrap().len(), SCHEMA_CATALOGS_KEPT);
        let rebuilt = catalog.schema_catalog(&TenantPackages(vec![a, b]));
        assert!(!Arc::ptr_eq(&first, &rebuilt));
    }
}
