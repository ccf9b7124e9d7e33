//! The packages of a case of the deploy oracle (`conformance/deploy/`),
//! shared by the conformance suite and the CLI's tests of
//! `murano deploy --dry-run`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use murano_engine::deploy::PackageFiles;
use serde_json::Value as Json;

/// The package folders a case loads, each with the name its files go by
/// in frames: the case's `packages` (`packages/…` under
/// `corpus/packages`, anything else under `conformance/deploy`), then
/// Murano's core library and `io.murano.applications`, as the README's
/// section 1 lists them.
pub fn case_packages(root: &Path, case: &Json) -> Vec<(PathBuf, String)> {
    let dir = root.join("conformance/deploy");
    let mut out: Vec<(PathBuf, String)> = case["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let d = p["dir"].as_str().unwrap_or("");
            match d.strip_prefix("packages/") {
                Some(rest) => (root.join("corpus/packages").join(rest), rest.to_owned()),
                None => (dir.join(d), d.to_owned()),
            }
        })
        .collect();
    out.push((
        root.join("conformance/engine/meta/io.murano"),
        "io.murano".to_owned(),
    ));
    out.push((
        root.join("corpus/packages/murano/meta/io.murano.applications"),
        "io.murano.applications".to_owned(),
    ));
    out
}

/// Reads a package folder into the engine's [`PackageFiles`] named `name`.
pub fn read_package(path: &Path, name: &str) -> Result<PackageFiles, String> {
    let mut files = BTreeMap::new();
    for (rel, full) in crate::files_below(path) {
        let bytes = std::fs::read(&full).map_err(|e| format!("{}: {e}", full.display()))?;
        files.insert(rel, Arc::new(bytes));
    }
    PackageFiles::from_files(name, files).map_err(|e| e.to_string())
}
