//! Where the commands that need Murano's core library (`io.murano`) find
//! it: the `--catalog` paths, then the `MURANO_CATALOG` path list, then
//! Debian's and Ubuntu's `murano-common` package. The core library is
//! Murano's own code, which this project does not ship.

use std::path::{Path, PathBuf};

/// The core library's package name.
pub(crate) const CORE_PACKAGE: &str = "io.murano";

/// Where Debian's `murano-common` package installs `io.murano.zip`.
pub(crate) const SYSTEM_CATALOG: &str = "/usr/share/murano-common";

/// The environment variable holding more catalog paths (`:`-separated).
pub(crate) const CATALOG_VAR: &str = "MURANO_CATALOG";

/// The catalog paths to search, in order: `explicit` (`--catalog`), then
/// the entries of `MURANO_CATALOG`.
pub(crate) fn catalog_paths(explicit: &[PathBuf]) -> Vec<PathBuf> {
    let mut paths = explicit.to_vec();
    if let Some(list) = std::env::var_os(CATALOG_VAR) {
        paths.extend(std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()));
    }
    paths
}

/// The last place to look when no catalog path held the core library.
pub(crate) fn system_catalog() -> Option<PathBuf> {
    let path = Path::new(SYSTEM_CATALOG);
    path.is_dir().then(|| path.to_owned())
}

/// One line saying what is missing and how to get it.
pub(crate) fn missing_hint() -> String {
    format!(
        "Murano's core library ({CORE_PACKAGE}) was not found: pass it with --catalog \
         (a folder of packages or io.murano.zip), list it in {CATALOG_VAR}, or install \
         Debian's murano-common package (it provides {SYSTEM_CATALOG}/io.murano.zip)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_names_every_place_looked_at() {
        let hint = missing_hint();
        for part in ["--catalog", CATALOG_VAR, SYSTEM_CATALOG, "murano-common"] {
            assert!(hint.contains(part), "{part}");
        }
        assert!(!hint.contains('\n'));
    }
}
