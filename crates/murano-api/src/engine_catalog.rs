//! The packages the engine resolves a tenant's classes from, as Murano's
//! engine loads them through the API's catalog: the tenant's own packages,
//! then the public ones (the stored archives of the `package` table), then
//! the system packages given at start (Murano's core library `io.murano`)
//! for names the catalog does not hold. Archives are read once and kept
//! while their package is unchanged.

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

/// The system packages and the cache of catalog archives.
#[derive(Debug, Default)]
pub struct EngineCatalog {
    system: Vec<Arc<LoadedPackage>>,
    // Package id → (its `updated`, what it read to).
    cache: Mutex<HashMap<String, Cached>>,
}

impl EngineCatalog {
    /// A catalog whose system packages (the core library) are `system`.
    pub fn new(system: Vec<LoadedPackage>) -> EngineCatalog {
        EngineCatalog {
            system: system.into_iter().map(Arc::new).collect(),
            cache: Mutex::new(HashMap::new()),
        }
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
