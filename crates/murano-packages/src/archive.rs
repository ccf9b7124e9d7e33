//! Packages from zip archives held in memory (feature `zip`).
//!
//! An uploaded archive is hostile until proven otherwise: entries that
//! would land outside the package root (`..`, absolute paths, drive
//! letters, backslashes), symbolic links, too many entries, and entries or
//! totals larger than the limits are refused. Sizes are measured while
//! inflating, never taken from the archive's own headers, so a compression
//! bomb stops at the limit.
//!
//! Two entries naming the same file are read the way Murano reads them
//! (Python's `zipfile.extractall` writes every entry in archive order, so
//! the last one wins) and reported in an [`ArchiveReport`].

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

/// What reading an archive noticed without refusing it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArchiveReport {
    /// Files that more than one entry names (the path within the package,
    /// once `.` parts are dropped), in archive order, each once; the last
    /// entry of each was kept.
    pub duplicates: Vec<String>,
}

/// The raw names of the central directory's entries, in order, at most
/// `limit + 1` of them (enough to tell that there are too many). The zip
/// reader keeps one entry per name, so entries that repeat a name exactly
/// are only visible here.
fn central_names(bytes: &[u8], start: u64, limit: usize) -> Vec<&[u8]> {
    const SIGNATURE: &[u8] = b"PK\x01\x02";
    const FIXED: usize = 46;
    let field =
        |header: &[u8], at: usize| usize::from(u16::from_le_bytes([header[at], header[at + 1]]));
    let mut names = Vec::new();
    let Ok(mut pos) = usize::try_from(start) else {
        return names;
    };
    while names.len() <= limit {
        let Some(header) = pos.checked_add(FIXED).and_then(|end| bytes.get(pos..end)) else {
            break;
        };
        if &header[..4] != SIGNATURE {
            break;
        }
        let (name_len, extra_len, comment_len) =
            (field(header, 28), field(header, 30), field(header, 32));
        let name_start = pos + FIXED;
        let Some(name) = bytes.get(name_start..name_start + name_len) else {
            break;
        };
        names.push(name);
        pos = name_start + name_len + extra_len + comment_len;
    }
    names
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
        FileMap::from_zip_with_report(bytes, limits).map(|(files, _)| files)
    }

    /// [`FileMap::from_zip`], with what was noticed on the way: files that
    /// several entries name (the last entry in the archive wins, as when
    /// Murano extracts the archive with Python's `zipfile`).
    ///
    /// ```
    /// use std::io::Write;
    /// use murano_packages::archive::ArchiveLimits;
    /// use murano_packages::source::{FileMap, PackageSource};
    ///
    /// let mut bytes = Vec::new();
    /// {
    ///     let mut zip = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
    ///     let options = zip::write::SimpleFileOptions::default();
    ///     zip.start_file("manifest.yaml", options)?;
    ///     zip.write_all(b"FullName: a.b\n")?;
    ///     zip.start_file("./manifest.yaml", options)?;
    ///     zip.write_all(b"FullName: c.d\n")?;
    ///     zip.finish()?;
    /// }
    /// let (files, report) = FileMap::from_zip_with_report(&bytes, &ArchiveLimits::default())?;
    /// assert_eq!(files.read("manifest.yaml"), Some(&b"FullName: c.d\n"[..]));
    /// assert_eq!(report.duplicates, ["manifest.yaml"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_zip_with_report(
        bytes: &[u8],
        limits: &ArchiveLimits,
    ) -> Result<(FileMap, ArchiveReport), ArchiveError> {
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
            .map_err(|e| ArchiveError::NotZip(e.to_string()))?;
        let raw_names = central_names(bytes, archive.central_directory_start(), limits.max_entries);
        if archive.len() > limits.max_entries || raw_names.len() > limits.max_entries {
            return Err(ArchiveError::TooManyEntries(limits.max_entries));
        }
        let mut name_counts: std::collections::HashMap<&[u8], usize> =
            std::collections::HashMap::new();
        for name in &raw_names {
            *name_counts.entry(name).or_default() += 1;
        }
        // The reader keeps, for a name given more than once, the last
        // entry; visiting the entries in the order of the central directory
        // makes the last entry win for names that only match once
        // normalized (`a`, `./a`) too.
        let mut order = Vec::with_capacity(archive.len());
        for index in 0..archive.len() {
            let entry = archive
                .by_index_raw(index)
                .map_err(|e| ArchiveError::Damaged {
                    name: format!("#{index}"),
                    reason: e.to_string(),
                })?;
            order.push((entry.central_header_start(), index));
        }
        order.sort_unstable();
        let mut files = FileMap::new();
        let mut report = ArchiveReport::default();
        let mut total: u64 = 0;
        for (_, index) in order {
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
            let repeated = name_counts.get(entry.name_raw()).is_some_and(|&n| n > 1)
                || crate::source::PackageSource::read(&files, &name).is_some();
            if repeated && !report.duplicates.contains(&name) {
                report.duplicates.push(name.clone());
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
        Ok((files, report))
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

    /// An archive whose entries all repeat names exactly: written under
    /// distinct names of the same length, then renamed in the bytes (the
    /// zip writer refuses a name twice).
    fn archive_renamed(entries: &[(&str, &[u8])], renames: &[(&str, &str)]) -> Vec<u8> {
        let mut bytes = archive(entries, SimpleFileOptions::default());
        for (from, to) in renames {
            assert_eq!(from.len(), to.len());
            let mut at = 0;
            while let Some(found) = bytes[at..]
                .windows(from.len())
                .position(|w| w == from.as_bytes())
            {
                let start = at + found;
                bytes[start..start + to.len()].copy_from_slice(to.as_bytes());
                at = start + to.len();
            }
        }
        bytes
    }

    #[test]
    fn duplicate_names_are_read_last_wins_and_reported() {
        // Exactly the same name (the zip reader itself keeps one entry).
        let bytes = archive_renamed(
            &[("m.yaml", b"first"), ("k", b"other"), ("n.yaml", b"second")],
            &[("n.yaml", "m.yaml")],
        );
        let (files, report) =
            FileMap::from_zip_with_report(&bytes, &ArchiveLimits::default()).unwrap();
        assert_eq!(files.read("m.yaml"), Some(&b"second"[..]));
        assert_eq!(files.read("k"), Some(&b"other"[..]));
        assert_eq!(report.duplicates, ["m.yaml"]);
        // The same file once normalized; the last in the archive wins.
        let bytes = archive(&[("a", b"1"), ("./a", b"2")], SimpleFileOptions::default());
        let (files, report) =
            FileMap::from_zip_with_report(&bytes, &ArchiveLimits::default()).unwrap();
        assert_eq!(files.read("a"), Some(&b"2"[..]));
        assert_eq!(report.duplicates, ["a"]);
        // Both at once: `a`, `./a`, `a` again; the third one wins.
        let bytes = archive_renamed(&[("a", b"1"), ("./a", b"2"), ("b", b"3")], &[("b", "a")]);
        let (files, report) =
            FileMap::from_zip_with_report(&bytes, &ArchiveLimits::default()).unwrap();
        assert_eq!(files.read("a"), Some(&b"3"[..]));
        assert_eq!(report.duplicates, ["a"]);
        // No duplicates, nothing reported.
        let bytes = archive(&[("a", b"1"), ("b", b"2")], SimpleFileOptions::default());
        let (_, report) = FileMap::from_zip_with_report(&bytes, &ArchiveLimits::default()).unwrap();
        assert_eq!(report, ArchiveReport::default());
    }

    #[test]
    fn refuses_too_many_entries_counting_repeated_names() {
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
        // Three entries, one name: still three entries.
        let bytes = archive_renamed(
            &[("a", b"1"), ("b", b"2"), ("c", b"3")],
            &[("b", "a"), ("c", "a")],
        );
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
