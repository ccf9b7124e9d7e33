//! Packages for the engine commands (`murano test`, `murano run`): the
//! packages named on the command line, then the catalog (`--catalog`,
//! `MURANO_CATALOG`, `/usr/share/murano-common`), read into the engine's
//! [`PackageFiles`], the engine's package type, as Murano's test runner
//! reads them ([`PackageFiles::from_source`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use murano_engine::{PackageFiles, StackFrame};

use crate::core_library;
use crate::files::read_package_or_message;

/// A package read for the engine, from a folder or a zip.
pub(crate) fn read_test_package(path: &Path) -> Result<PackageFiles, String> {
    let loaded = read_package_or_message(path)?;
    PackageFiles::from_source(loaded.files).map_err(|e| format!("{}: {e}", path.display()))
}

/// The packages of a run: those given (in order), then every package of
/// the catalog paths, then the system catalog when the core library is
/// still missing. A package name seen before is skipped. `Err` with a
/// one-line message when a given package does not load or the core
/// library is missing.
pub(crate) fn load_packages(
    given: &[PathBuf],
    catalog: &[PathBuf],
) -> Result<Vec<PackageFiles>, String> {
    load_catalog(given, catalog, read_test_package, |p| &p.name)
}

/// The catalog loader of the engine commands (`test`, `run`, `deploy`,
/// `env`): the packages `given` (in order; one that does not load is an
/// error), then the catalog's ([`core_library::read_catalog`]: one that
/// does not load is reported and skipped). A package name seen before is
/// skipped; a missing core library is an error.
/// `read` reads one package, `name` is its full name.
pub(crate) fn load_catalog<T>(
    given: &[PathBuf],
    catalog: &[PathBuf],
    read: impl Fn(&Path) -> Result<T, String>,
    name: impl Fn(&T) -> &str,
) -> Result<Vec<T>, String> {
    let mut out: Vec<T> = Vec::new();
    for path in given {
        let p = read(path)?;
        if !out.iter().any(|o| name(o) == name(&p)) {
            out.push(p);
        }
    }
    let mut skip = |e: String| eprintln!("murano: catalog: {e}");
    if !core_library::read_catalog(&mut out, catalog, read, name, &mut skip) {
        return Err(core_library::missing_hint());
    }
    Ok(out)
}

/// Class file texts by (package, file), for stack traces.
pub(crate) struct Sources(HashMap<(String, String), String>);

impl Sources {
    pub(crate) fn new(packages: &[PackageFiles]) -> Sources {
        let mut map = HashMap::new();
        for p in packages {
            for (file, bytes) in p.class_files() {
                map.insert(
                    (p.name.clone(), file),
                    String::from_utf8_lossy(&bytes).into_owned(),
                );
            }
        }
        Sources(map)
    }

    pub(crate) fn get(&self, package: &str, file: &str) -> Option<String> {
        self.0.get(&(package.to_owned(), file.to_owned())).cloned()
    }
}

/// A frame as JSON.
pub(crate) fn frame_json(f: &StackFrame, package: Option<String>) -> serde_json::Value {
    if f.is_unknown() {
        return serde_json::json!({"native": true});
    }
    serde_json::json!({
        "package": package,
        "file": f.file,
        "line": f.line,
        "column": f.column,
        "method": f.method,
        "class": f.class,
    })
}
