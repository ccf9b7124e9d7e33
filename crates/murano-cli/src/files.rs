//! Reading packages from disk: a directory or a `.zip` archive becomes an
//! in-memory [`FileMap`]. This is the only place that reads package files.

use std::path::{Path, PathBuf};

use murano_packages::archive::ArchiveLimits;
use murano_packages::source::FileMap;

/// Most files and bytes read from one package directory (as for archives).
const MAX_FILES: usize = 10_000;
const MAX_BYTES: u64 = 256 << 20;

/// A package read from disk, with the path it came from.
pub(crate) struct LoadedPackage {
    pub(crate) path: PathBuf,
    pub(crate) files: FileMap,
}

/// Reads a package directory (symbolic links are skipped) or a zip file.
pub(crate) fn read_package(path: &Path) -> Result<LoadedPackage, String> {
    let files = if path.is_dir() {
        read_dir(path)?
    } else {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        FileMap::from_zip(&bytes, &ArchiveLimits::default())
            .map_err(|e| format!("{}: {e}", path.display()))?
    };
    Ok(LoadedPackage {
        path: path.to_owned(),
        files,
    })
}

fn read_dir(root: &Path) -> Result<FileMap, String> {
    let mut files = FileMap::new();
    let mut stack = vec![root.to_owned()];
    let (mut count, mut total) = (0usize, 0u64);
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .map_err(|e| e.to_string())?
                .to_string_lossy()
                .replace('\\', "/");
            if kind.is_dir() {
                files.insert_dir(&rel).map_err(|e| e.to_string())?;
                stack.push(path);
            } else if kind.is_file() {
                count += 1;
                total += entry.metadata().map(|m| m.len()).unwrap_or(0);
                if count > MAX_FILES || total > MAX_BYTES {
                    return Err(format!("{}: too many or too large files", root.display()));
                }
                let bytes = std::fs::read(&path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                files.insert(&rel, bytes).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(files)
}

/// Every package under `path`: directories holding a `manifest.yaml`
/// (not looking inside a package once found) and `.zip` files; `path`
/// itself when it is a `.zip` file.
pub(crate) fn find_packages(path: &Path) -> Vec<PathBuf> {
    if path.is_file() && path.extension().is_some_and(|e| e == "zip") {
        return vec![path.to_owned()];
    }
    let mut found = Vec::new();
    let mut stack = vec![path.to_owned()];
    while let Some(dir) = stack.pop() {
        if dir.join("manifest.yaml").is_file() {
            found.push(dir);
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(p);
            } else if kind.is_file() && p.extension().is_some_and(|e| e == "zip") {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}
