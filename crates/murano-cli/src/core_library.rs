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

/// The one catalog walk of every command that reads a catalog (the
/// engine commands', `schema`'s and `forms`', `api serve`'s): every
/// package of the [`catalog_paths`], then of the [`system_catalog`] when
/// the core library is still missing, read by `read` and added to `out`
/// after what it already holds. A package whose `name` is already in
/// `out` is read but not added (the first of a name wins); one that does
/// not load goes to `skip` and the walk goes on. Whether the core library
/// is in `out` at the end.
pub(crate) fn read_catalog<T>(
    out: &mut Vec<T>,
    catalog: &[PathBuf],
    mut read: impl FnMut(&Path) -> Result<T, String>,
    name: impl Fn(&T) -> &str,
    skip: &mut dyn FnMut(String),
) -> bool {
    let mut add_all = |root: &Path, out: &mut Vec<T>| {
        for path in crate::files::find_packages(root) {
            match read(&path) {
                Ok(p) if !out.iter().any(|o| name(o) == name(&p)) => out.push(p),
                Ok(_) => {}
                Err(e) => skip(e),
            }
        }
    };
    for root in catalog_paths(catalog) {
        add_all(&root, out);
    }
    let has_core = |out: &[T]| out.iter().any(|p| name(p) == CORE_PACKAGE);
    if !has_core(out) {
        if let Some(root) = system_catalog() {
            add_all(&root, out);
        }
    }
    has_core(out)
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

    #[test]
    fn the_catalog_walk_keeps_the_first_of_a_name_and_goes_past_broken_packages() {
        let root = std::env::temp_dir().join(format!("murano-read-catalog-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        for file in ["a.zip", "b.zip", "bad.zip", "io.murano.zip"] {
            std::fs::write(root.join(file), b"").unwrap();
        }
        // A package's name is its file's stem here; `bad` does not load.
        let read = |path: &Path| {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            match stem.as_str() {
                "bad" => Err(format!("{stem}: broken")),
                _ => Ok(stem),
            }
        };
        let mut out = vec!["b".to_owned()];
        let mut skipped = Vec::new();
        let found = read_catalog(
            &mut out,
            std::slice::from_ref(&root),
            read,
            String::as_str,
            &mut |e| skipped.push(e),
        );
        std::fs::remove_dir_all(&root).unwrap();
        assert!(found);
        // MURANO_CATALOG, when set, only adds after these.
        assert_eq!(out[..3], ["b", "a", "io.murano"]);
        assert_eq!(skipped[0], "bad: broken");
    }
}
