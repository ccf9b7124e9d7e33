//! Reading packages from disk: a directory or a `.zip` archive becomes an
//! in-memory [`FileMap`]. This is the only place that reads package files.
//!
//! Every read is bounded: symbolic links are skipped (and said so), a
//! file is read at most to the file size limit (so `/dev/zero` or a file
//! growing while it is read stops there), a walk stops at a number of
//! files, and a package at a total size.

use std::io::Read;
use std::path::{Path, PathBuf};

use murano_packages::archive::ArchiveLimits;
use murano_packages::check::Diagnostic;
use murano_packages::source::FileMap;

/// Default largest file read from a package folder (as for archives).
pub(crate) const DEFAULT_MAX_FILE_SIZE: u64 = 64 << 20;
/// Default largest package (the folder's files together, or the archive
/// file and its inflated entries).
pub(crate) const DEFAULT_MAX_PACKAGE_SIZE: u64 = 256 << 20;
/// Most files read from one folder walk.
const MAX_FILES: usize = 10_000;

/// How much may be read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadLimits {
    pub(crate) max_file_size: u64,
    pub(crate) max_package_size: u64,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            max_package_size: DEFAULT_MAX_PACKAGE_SIZE,
        }
    }
}

/// A package read from disk, and what the reader has to say about it
/// (files skipped or too large, files named twice in an archive: codes
/// M002, M004, M005).
pub(crate) struct LoadedPackage {
    pub(crate) files: FileMap,
    pub(crate) notes: Vec<Diagnostic>,
}

/// Reads at most `limit` bytes of `path`; `Ok(None)` when it holds more.
pub(crate) fn read_capped(path: &Path, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// Why a package could not be read at all.
pub(crate) enum ReadError {
    /// The path does not exist or cannot be opened: a usage or I/O error.
    Io(String),
    /// The package is unreadable (a damaged or refused archive, a folder
    /// walk that fails): a finding about that package (M001, M002).
    Package(Box<Diagnostic>),
}

/// [`read_package`] with the default limits, any failure as a message.
pub(crate) fn read_package_or_message(path: &Path) -> Result<LoadedPackage, String> {
    read_package(path, &ReadLimits::default()).map_err(|e| match e {
        ReadError::Io(message) => message,
        ReadError::Package(d) => format!("{}: {}", path.display(), d.message),
    })
}

/// Reads a package directory (symbolic links are skipped) or a zip file.
pub(crate) fn read_package(path: &Path, limits: &ReadLimits) -> Result<LoadedPackage, ReadError> {
    let meta = std::fs::metadata(path)
        .map_err(|e| ReadError::Io(format!("cannot read {}: {e}", path.display())))?;
    let mut notes = Vec::new();
    let files = if meta.is_dir() {
        read_dir(path, limits, &mut notes).map_err(ReadError::Package)?
    } else {
        let bytes = read_capped(path, limits.max_package_size)
            .map_err(|e| ReadError::Io(format!("cannot read {}: {e}", path.display())))?
            .ok_or_else(|| {
                ReadError::Package(Box::new(Diagnostic::new(
                    "M002",
                    format!(
                        "the archive is larger than {} bytes (--max-package-size)",
                        limits.max_package_size
                    ),
                )))
            })?;
        let mut archive_limits = ArchiveLimits::default();
        archive_limits.max_file_size = limits.max_file_size;
        archive_limits.max_total_size = limits.max_package_size;
        let (files, report) = FileMap::from_zip_with_report(&bytes, &archive_limits).map_err(|e| {
            let yaml = path
                .extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("yaml") || x.eq_ignore_ascii_case("yml"));
            let message = if yaml {
                format!(
                    "expected a package folder or .zip, not a YAML file (did you mean the folder {}?)",
                    path.parent()
                        .filter(|p| !p.as_os_str().is_empty())
                        .unwrap_or(Path::new("."))
                        .display()
                )
            } else {
                format!("expected a package folder or .zip: {e}")
            };
            ReadError::Package(Box::new(Diagnostic::new("M001", message)))
        })?;
        for name in report.duplicates {
            notes.push(
                Diagnostic::new(
                    "M005",
                    "several archive entries name this file; the last one is used (as Murano does)",
                )
                .with_file(name.as_str()),
            );
        }
        files
    };
    Ok(LoadedPackage { files, notes })
}

/// One file found by [`walk`].
pub(crate) struct Found {
    /// The path on disk.
    pub(crate) path: PathBuf,
    /// The path relative to the root, with `/`.
    pub(crate) rel: String,
    /// A directory (else a regular file).
    pub(crate) is_dir: bool,
}

/// The regular files and directories under `root`, without following
/// symbolic links (each one skipped is passed to `skipped`), at most
/// [`MAX_FILES`] entries; special files (devices, sockets) are skipped
/// too.
pub(crate) fn walk(root: &Path, mut skipped: impl FnMut(&str)) -> Result<Vec<Found>, String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let rel = path
                .strip_prefix(root)
                .map_err(|e| e.to_string())?
                .to_string_lossy()
                .replace('\\', "/");
            if kind.is_symlink() {
                skipped(&rel);
                continue;
            }
            if !kind.is_dir() && !kind.is_file() {
                continue;
            }
            if found.len() >= MAX_FILES {
                return Err(format!(
                    "{}: more than {MAX_FILES} files and folders",
                    root.display()
                ));
            }
            if kind.is_dir() {
                stack.push(path.clone());
            }
            found.push(Found {
                path,
                rel,
                is_dir: kind.is_dir(),
            });
        }
    }
    Ok(found)
}

fn read_dir(
    root: &Path,
    limits: &ReadLimits,
    notes: &mut Vec<Diagnostic>,
) -> Result<FileMap, Box<Diagnostic>> {
    let unreadable = |message: String| Box::new(Diagnostic::new("M001", message));
    let mut links = Vec::new();
    let found = walk(root, |rel| links.push(rel.to_owned())).map_err(unreadable)?;
    for rel in links {
        notes.push(
            Diagnostic::new("M004", "symbolic link skipped (links are never followed)")
                .with_file(rel.as_str()),
        );
    }
    let mut files = FileMap::new();
    let mut total = 0u64;
    for f in found {
        if f.is_dir {
            files
                .insert_dir(&f.rel)
                .map_err(|e| unreadable(e.to_string()))?;
            continue;
        }
        let left = limits.max_package_size.saturating_sub(total);
        let cap = limits.max_file_size.min(left);
        let bytes = read_capped(&f.path, cap)
            .map_err(|e| unreadable(format!("cannot read {}: {e}", f.path.display())))?;
        let Some(bytes) = bytes else {
            let (what, limit, option) = if cap < limits.max_file_size {
                ("the package", limits.max_package_size, "--max-package-size")
            } else {
                ("the file", limits.max_file_size, "--max-file-size")
            };
            notes.push(
                Diagnostic::new(
                    "M002",
                    format!(
                        "{what} is larger than {limit} bytes ({option}); the file was not read"
                    ),
                )
                .with_file(f.rel.as_str()),
            );
            continue;
        };
        total += bytes.len() as u64;
        files
            .insert(&f.rel, bytes)
            .map_err(|e| unreadable(e.to_string()))?;
    }
    Ok(files)
}

/// Every package under `path`: directories holding a `manifest.yaml`
/// (not looking inside a package once found) and `.zip` files; `path`
/// itself when it is a file. Symbolic links are not followed.
pub(crate) fn find_packages(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
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
