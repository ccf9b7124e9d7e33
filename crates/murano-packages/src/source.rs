//! Package files without I/O: a map from paths to bytes that the host
//! fills, and Murano's `secure_join` rule for paths inside it.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::PackageError;

/// Where a package's files come from. Paths are relative to the package
/// root, with `/` separators.
pub trait PackageSource {
    /// The bytes of a file, if it exists.
    fn read(&self, path: &str) -> Option<&[u8]>;
    /// Whether a directory exists (explicitly, or because files are in it).
    fn is_dir(&self, path: &str) -> bool;
    /// Every file below `dir` (recursively), as paths relative to the
    /// package root, sorted.
    fn files_under(&self, dir: &str) -> Vec<String>;
    /// What messages call the package root (Murano shows its directory).
    fn root_label(&self) -> &str {
        "<package-dir>"
    }
}

/// An in-memory package: the host puts files in; nothing touches a disk.
///
/// ```
/// use murano_packages::source::{FileMap, PackageSource};
///
/// let mut files = FileMap::new();
/// files.insert("manifest.yaml", b"FullName: a.b\nType: Library\n".to_vec())?;
/// assert!(files.read("manifest.yaml").is_some());
/// assert!(files.insert("../escape", vec![]).is_err());
/// # Ok::<(), murano_packages::PackageError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileMap {
    files: BTreeMap<String, Vec<u8>>,
    dirs: BTreeSet<String>,
    label: Option<String>,
}

impl FileMap {
    /// An empty package.
    pub fn new() -> FileMap {
        FileMap::default()
    }

    /// Names the root in messages (default `<package-dir>`).
    pub fn with_root_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Adds a file. Paths that are absolute, empty, or leave the package
    /// root are refused.
    pub fn insert(&mut self, path: &str, bytes: Vec<u8>) -> Result<(), PackageError> {
        let normal = normalize_inside(path)
            .ok_or_else(|| PackageError::Load(format!("path {path:?} leaves the package")))?;
        let mut parent = normal.as_str();
        while let Some((dir, _)) = parent.rsplit_once('/') {
            self.dirs.insert(dir.to_owned());
            parent = dir;
        }
        self.files.insert(normal, bytes);
        Ok(())
    }

    /// Adds an (empty) directory.
    pub fn insert_dir(&mut self, path: &str) -> Result<(), PackageError> {
        let normal = normalize_inside(path)
            .ok_or_else(|| PackageError::Load(format!("path {path:?} leaves the package")))?;
        self.dirs.insert(normal);
        Ok(())
    }

    /// The number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there are no files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Every file path, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }
}

impl PackageSource for FileMap {
    fn read(&self, path: &str) -> Option<&[u8]> {
        self.files.get(&normalize_inside(path)?).map(Vec::as_slice)
    }

    fn is_dir(&self, path: &str) -> bool {
        normalize_inside(path).is_some_and(|p| self.dirs.contains(&p))
    }

    fn files_under(&self, dir: &str) -> Vec<String> {
        let Some(dir) = normalize_inside(dir) else {
            return Vec::new();
        };
        let prefix = format!("{dir}/");
        self.files
            .keys()
            .filter(|p| p.starts_with(&prefix))
            .cloned()
            .collect()
    }

    fn root_label(&self) -> &str {
        self.label.as_deref().unwrap_or("<package-dir>")
    }
}

/// A path inside the package, normalised (`a/./b/../c` → `a/c`); `None`
/// when it is absolute, empty or climbs out of the root.
fn normalize_inside(path: &str) -> Option<String> {
    if path.starts_with('/')
        || path.starts_with('\\')
        || path.contains(':') && path.len() > 1 && path.as_bytes()[1] == b':'
    {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Python's `os.path.normpath` on a `/`-separated path.
fn normpath(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

/// Python's `os.path.join` of two parts.
fn join(a: &str, b: &str) -> String {
    if b.starts_with('/') || a.is_empty() {
        b.to_owned()
    } else if a.ends_with('/') {
        format!("{a}{b}")
    } else {
        format!("{a}/{b}")
    }
}

/// Murano's `secure_join(root, *parts)`: each part must lead strictly
/// below the previous path. Returns the path relative to the package root,
/// or Murano's `ValueError`.
pub(crate) fn secure_join(label: &str, parts: &[&str]) -> Result<String, PackageError> {
    // The root stands for an absolute directory.
    let root = format!("/{}", label.trim_start_matches('/'));
    let mut prev = String::new();
    let mut new;
    let all: Vec<&str> = std::iter::once(root.as_str())
        .chain(parts.iter().copied())
        .collect();
    for part in &all {
        new = normpath(&join(&prev, part));
        if new.len() <= prev.len() || (!prev.is_empty() && !new.starts_with(&format!("{prev}/"))) {
            let mut raw = String::new();
            for p in &all {
                raw = join(&raw, p);
            }
            let shown: Vec<String> = std::iter::once(label.to_owned())
                .chain(parts.iter().map(|p| (*p).to_owned()))
                .collect();
            let tuple = shown
                .iter()
                .map(|p| murano_yaml::py_text::repr(p))
                .collect::<Vec<_>>()
                .join(", ");
            let tuple = if shown.len() == 1 {
                format!("({tuple},)")
            } else {
                format!("({tuple})")
            };
            let raw = raw.replacen(&root, label, 1);
            return Err(PackageError::python(
                "ValueError",
                format!("path {raw} is not allowed {tuple}"),
            ));
        }
        prev = new;
    }
    Ok(prev[root.len()..].trim_start_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secure_join_follows_murano() {
        assert_eq!(
            secure_join("<package-dir>", &["Classes", "a.yaml"]).unwrap(),
            "Classes/a.yaml"
        );
        assert_eq!(
            secure_join("<package-dir>", &["Classes", "x/../a.yaml"]).unwrap(),
            "Classes/a.yaml"
        );
        let err = secure_join("<package-dir>", &["Classes", "../B.yaml"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "path <package-dir>/Classes/../B.yaml is not allowed ('<package-dir>', 'Classes', '../B.yaml')"
        );
        assert!(secure_join("<package-dir>", &["/etc/passwd"]).is_err());
        assert!(secure_join("<package-dir>", &[""]).is_err());
    }

    #[test]
    fn file_map_refuses_escapes() {
        let mut files = FileMap::new();
        assert!(files.insert("/abs", vec![]).is_err());
        assert!(files.insert("a/../../b", vec![]).is_err());
        files.insert("a/./b/../c.txt", vec![1]).unwrap();
        assert_eq!(files.read("a/c.txt"), Some(&[1u8][..]));
        assert!(files.is_dir("a"));
        assert_eq!(files.files_under("a"), ["a/c.txt"]);
    }
}
