//! Finding and reading packages: bounded walks that never follow
//! symbolic links (so a link loop is no loop), skip files over the size
//! limit and stop at the entry and package limits.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use murano_packages::archive::ArchiveLimits;
use murano_packages::source::{FileMap, PackageSource};

use crate::options::ServerOptions;

/// Where a package's files come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A folder on disk: its files have paths and may be edited.
    Folder(PathBuf),
    /// A `.zip` (a catalog entry): read-only, not navigable on disk.
    Archive(PathBuf),
}

/// A package's text files (relative path → bytes) as read from disk.
#[derive(Debug, Clone)]
pub(crate) struct RawPackage {
    pub(crate) origin: Origin,
    pub(crate) files: BTreeMap<String, Vec<u8>>,
}

/// Reads at most `limit` bytes of `path`; `None` when it holds more or
/// cannot be read.
pub(crate) fn read_capped(path: &Path, limit: u64) -> Option<Vec<u8>> {
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= limit).then_some(bytes)
}

/// The packages under `root`: folders holding `manifest.yaml` (not
/// searched further) and `.zip` files, breadth first, within the
/// options' depth and entry limits; `found` stops at `max_packages`.
pub(crate) fn find_packages(root: &Path, options: &ServerOptions, found: &mut Vec<PathBuf>) {
    let Ok(meta) = std::fs::symlink_metadata(root) else {
        return;
    };
    if meta.is_file() {
        if is_zip(root) {
            found.push(root.to_owned());
        }
        return;
    }
    let mut queue = std::collections::VecDeque::from([(root.to_owned(), 0usize)]);
    let mut seen = 0usize;
    while let Some((dir, depth)) = queue.pop_front() {
        if found.len() >= options.max_packages {
            return;
        }
        if dir.join("manifest.yaml").is_file() {
            found.push(dir);
            continue;
        }
        if depth >= options.max_walk_depth {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut children: Vec<_> = entries.flatten().collect();
        children.sort_by_key(|e| e.file_name());
        for entry in children {
            seen += 1;
            if seen > options.max_walk_entries {
                return;
            }
            // file_type() does not follow links: a link is neither.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            if kind.is_dir() && !hidden && entry.file_name() != "target" {
                queue.push_back((path, depth + 1));
            } else if kind.is_file() && is_zip(&path) && depth > 0 {
                found.push(path);
            }
        }
    }
}

fn is_zip(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("zip"))
}

/// Reads a package folder (links skipped, at most the options' files,
/// each at most `max_file_size`) or archive.
pub(crate) fn read_package(path: &Path, options: &ServerOptions) -> Option<RawPackage> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if meta.is_file() {
        let bytes = read_capped(path, options.max_file_size.saturating_mul(16))?;
        let mut limits = ArchiveLimits::default();
        limits.max_file_size = options.max_file_size;
        let (map, _) = FileMap::from_zip_with_report(&bytes, &limits).ok()?;
        let files = map
            .paths()
            .filter_map(|p| Some((p.to_owned(), map.read(p)?.to_vec())))
            .collect();
        return Some(RawPackage {
            origin: Origin::Archive(path.to_owned()),
            files,
        });
    }
    let mut files = BTreeMap::new();
    let mut stack = vec![(path.to_owned(), String::new(), 0usize)];
    let mut count = 0usize;
    while let Some((dir, rel, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            count += 1;
            if count > options.max_files_per_package {
                return Some(RawPackage {
                    origin: Origin::Folder(path.to_owned()),
                    files,
                });
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name().to_string_lossy().into_owned();
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if kind.is_dir() && depth < options.max_walk_depth {
                stack.push((entry.path(), child, depth + 1));
            } else if kind.is_file() {
                // As `murano check` reads a folder: every file, a file
                // over the limit left out.
                let Some(bytes) = read_capped(&entry.path(), options.max_file_size) else {
                    continue;
                };
                files.insert(child, bytes);
            }
        }
    }
    Some(RawPackage {
        origin: Origin::Folder(path.to_owned()),
        files,
    })
}
