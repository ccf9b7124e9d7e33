//! Packages from zip archives held in memory (feature `zip`).
//!
//! An uploaded archive is hostile until proven otherwise: entries that
//! would land outside the package root (`..`, absolute paths, drive
//! letters, backslashes), symbolic links, duplicate names, too many
//! entries, and entries or totals larger than the limits are refused.
//! Sizes are measured while inflating, never taken from the archive's own
//! headers, so a compression bomb stops at the limit.

use std::io::Read;

use crate::source::FileMap;

/// Limits for reading an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArchiveLimits {
    /// Most entries (files and directories). Default 10,000.
    pub max_entries: usize,
    /// Largest file once inflated, in bytes. Default 64 MiB.
    pub max_file_size: u64,
    /// Largest total once inflated, in bytes. Default 256 MiB.
    pub max_total_size: u64,
}

impl Default for ArchiveLimits {
    fn default() -> Self {
        ArchiveLimits {
            max_entries: 10_000,
            max_file_size: 64 << 20,
            max_total_size: 256 << 20,
        }
    }
}

/// Why an archive was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArchiveError {
    /// Not a readable zip archive (Murano: "is not a zip archive").
    #[error("not a zip archive: {0}")]
    NotZip(String),
    /// An entry name that leaves the package root or is absolute.
    #[error("entry {0:?} would be outside the package")]
    UnsafePath(String),
    /// A symbolic link.
    #[error("entry {0:?} is a symbolic link")]
    Symlink(String),
    /// Two entries with the same path.
    #[error("entry {0:?} appears twice")]
    Duplicate(String),
    /// More entries than allowed.
    #[error("more than {0} entries")]
    TooManyEntries(usize),
    /// A file larger than allowed once inflated.
    #[error("entry {name:?} inflates beyond {limit} bytes")]
    FileTooLarge {
        /// The entry.
        name: String,
        /// The limit.
        limit: u64,
    },
    /// The archive inflates beyond the total allowed.
    #[error("archive inflates beyond {0} bytes")]
    TotalTooLarge(u64),
    /// An entry could not be inflated.
    #[error("entry {name:?} is damaged: {reason}")]
    Damaged {
        /// The entry.
        name: String,
        /// Why.
        reason: String,
    },
}

fn safe_name(raw: &str) -> Result<String, ArchiveError> {
    let unsafe_path = || ArchiveError::UnsafePath(raw.to_owned());
    if raw.is_empty() || raw.starts_with('/') || raw.contains('\\') || raw.contains('\0') {
        return Err(unsafe_path());
    }
    if raw.len() >= 2 && raw.as_bytes()[1] == b':' {
        return Err(unsafe_path());
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop().ok_or_else(unsafe_path)?;
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(unsafe_path());
    }
    Ok(parts.join("/"))
}

impl FileMap {
    /// Reads a package from the bytes of a zip archive.
    ///
    /// ```
    /// use std::io::Write;
    /// use murano_packages::archive::ArchiveLimits;
    /// use murano_packages::source::{FileMap, PackageSource};
    ///
    /// let mut bytes = Vec::new();
    /// {
    ///     let mut zip = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
    ///     zip.start_file("manifest.yaml", zip::write::SimpleFileOptions::default())?;
    ///     zip.write_all(b"FullName: a.b\n")?;
    ///     zip.finish()?;
    /// }
    /// let files = FileMap::from_zip(&bytes, &ArchiveLimits::default())?;
    /// assert_eq!(files.read("manifest.yaml"), Some(&b"FullName: a.b\n"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_zip(bytes: &[u8], limits: &ArchiveLimits) -> Result<FileMap, ArchiveError> {
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
            .map_err(|e| ArchiveError::NotZip(e.to_string()))?;
        if archive.len() > limits.max_entries {
            return Err(ArchiveError::TooManyEntries(limits.max_entries));
        }
        let mut files = FileMap::new();
        let mut total: u64 = 0;
        for index in 0..archive.len() {
            let mut entry = archive.by_index(index).map_err(|e| ArchiveError::Damaged {
                name: format!("#{index}"),
                reason: e.to_string(),
            })?;
            let raw = entry.name().to_owned();
            if entry
                .unix_mode()
                .is_some_and(|mode| mode & 0o170000 == 0o120000)
            {
                return Err(ArchiveError::Symlink(raw));
            }
            let name = safe_name(raw.trim_end_matches('/'))?;
            if entry.is_dir() {
                files
                    .insert_dir(&name)
                    .map_err(|_| ArchiveError::UnsafePath(raw.clone()))?;
                continue;
            }
            if crate::source::PackageSource::read(&files, &name).is_some() {
                return Err(ArchiveError::Duplicate(raw));
            }
            let mut content = Vec::new();
            let read = (&mut entry)
                .take(limits.max_file_size + 1)
                .read_to_end(&mut content)
                .map_err(|e| ArchiveError::Damaged {
                    name: raw.clone(),
                    reason: e.to_string(),
                })? as u64;
            if read > limits.max_file_size {
                return Err(ArchiveError::FileTooLarge {
                    name: raw,
                    limit: limits.max_file_size,
                });
            }
            total += read;
            if total > limits.max_total_size {
                return Err(ArchiveError::TotalTooLarge(limits.max_total_size));
            }
            files
                .insert(&name, content)
                .map_err(|_| ArchiveError::UnsafePath(raw.clone()))?;
        }
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::source::PackageSource;
    use zip::write::SimpleFileOptions;

    fn archive(entries: &[(&str, &[u8])], options: SimpleFileOptions) -> Vec<u8> {
        let mut bytes = Vec::new();
        {
            let mut zip = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
            for (name, data) in entries {
                zip.start_file(*name, options).unwrap();
                zip.write_all(data).unwrap();
            }
            zip.finish().unwrap();
        }
        bytes
    }

    #[test]
    fn reads_files_and_directories() {
        let bytes = archive(
            &[("manifest.yaml", b"a"), ("Classes/A.yaml", b"b")],
            SimpleFileOptions::default(),
        );
        let files = FileMap::from_zip(&bytes, &ArchiveLimits::default()).unwrap();
        assert_eq!(files.read("Classes/A.yaml"), Some(&b"b"[..]));
        assert!(files.is_dir("Classes"));
    }

    #[test]
    fn refuses_escaping_and_absolute_paths() {
        for bad in ["../evil", "a/../../evil", "/etc/passwd", "C:/x", "a\\..\\b"] {
            let bytes = archive(&[(bad, b"x")], SimpleFileOptions::default());
            let err = FileMap::from_zip(&bytes, &ArchiveLimits::default()).unwrap_err();
            assert!(matches!(err, ArchiveError::UnsafePath(_)), "{bad}: {err}");
        }
    }

    #[test]
    fn refuses_symlinks() {
        let mut bytes = Vec::new();
        {
            let mut zip = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
            zip.add_symlink("link", "/etc/passwd", SimpleFileOptions::default())
                .unwrap();
            zip.finish().unwrap();
        }
        let err = FileMap::from_zip(&bytes, &ArchiveLimits::default()).unwrap_err();
        assert!(matches!(err, ArchiveError::Symlink(_)), "{err}");
    }

    #[test]
    fn refuses_duplicates_and_too_many_entries() {
        let bytes = archive(&[("a", b"1"), ("./a", b"2")], SimpleFileOptions::default());
        assert!(matches!(
            FileMap::from_zip(&bytes, &ArchiveLimits::default()),
            Err(ArchiveError::Duplicate(_))
        ));
        let bytes = archive(
            &[("a", b"1"), ("b", b"2"), ("c", b"3")],
            SimpleFileOptions::default(),
        );
        let limits = ArchiveLimits {
            max_entries: 2,
            ..ArchiveLimits::default()
        };
        assert_eq!(
            FileMap::from_zip(&bytes, &limits),
            Err(ArchiveError::TooManyEntries(2))
        );
    }

    #[test]
    fn huge_declared_sizes_are_not_trusted() {
        // Sizes in the headers are the archive's word only: a stored entry
        // claiming almost 4 GiB is read as what it holds, never allocated at
        // its declared size.
        let mut bytes = archive(&[("a", b"hello")], SimpleFileOptions::default());
        let patch = |bytes: &mut Vec<u8>, signature: &[u8], size_at: usize| {
            let at = bytes
                .windows(4)
                .position(|w| w == signature)
                .expect("header present");
            for offset in [size_at, size_at - 4] {
                bytes[at + offset..at + offset + 4].copy_from_slice(&0xffff_fffe_u32.to_le_bytes());
            }
        };
        // Local header: compressed size at 18, uncompressed at 22; central
        // directory header: at 20 and 24.
        patch(&mut bytes, b"PK\x03\x04", 22);
        patch(&mut bytes, b"PK\x01\x02", 24);
        let files = FileMap::from_zip(&bytes, &ArchiveLimits::default()).unwrap();
        assert_eq!(files.read("a"), Some(&b"hello"[..]));
    }

    #[test]
    fn stops_compression_bombs_while_inflating() {
        let zeros = vec![0u8; 4 << 20];
        let options =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        let bytes = archive(&[("bomb", &zeros)], options);
        assert!(bytes.len() < 64 << 10, "deflated to {} bytes", bytes.len());
        let limits = ArchiveLimits {
            max_file_size: 1 << 20,
            ..ArchiveLimits::default()
        };
        assert!(matches!(
            FileMap::from_zip(&bytes, &limits),
            Err(ArchiveError::FileTooLarge { .. })
        ));
        let bytes = archive(
            &[("a", &zeros[..3 << 20]), ("b", &zeros[..3 << 20])],
            options,
        );
        let limits = ArchiveLimits {
            max_total_size: 5 << 20,
            ..ArchiveLimits::default()
        };
        assert_eq!(
            FileMap::from_zip(&bytes, &limits),
            Err(ArchiveError::TotalTooLarge(5 << 20))
        );
    }

    #[test]
    fn garbage_is_not_a_zip() {
        assert!(matches!(
            FileMap::from_zip(b"not a zip", &ArchiveLimits::default()),
            Err(ArchiveError::NotZip(_))
        ));
    }
}
