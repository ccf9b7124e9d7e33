//! Writing a package as a zip archive Murano imports (feature `zip`).
//!
//! The archive holds the package's files (no directory entries, as
//! muranoclient's `package-create` writes them), at the paths they have in
//! the package. It is byte-reproducible: entries in sorted path order, every
//! timestamp the zip epoch (1980-01-01 00:00), every mode `0644`, the same
//! compression each time; so the same files always give the same bytes and
//! hash, whatever the clock, umask or file system order.

use std::io::Write;

use crate::source::FileMap;

/// Why an archive could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PackError {
    /// The package has no files.
    #[error("the package has no files")]
    Empty,
    /// The zip writer failed (an entry too large for the format).
    #[error("cannot write the archive: {0}")]
    Zip(String),
}

/// The package's files as a reproducible zip archive, in memory.
///
/// ```
/// use murano_packages::{pack::write_zip, source::FileMap};
///
/// let mut files = FileMap::new();
/// files.insert("manifest.yaml", b"FullName: a.b\n".to_vec())?;
/// files.insert("Classes/A.yaml", b"Name: A\n".to_vec())?;
/// let first = write_zip(&files)?;
/// assert_eq!(first, write_zip(&files)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_zip(files: &FileMap) -> Result<Vec<u8>, PackError> {
    write_zip_as(files, zip::CompressionMethod::Deflated, Some(6))
}

/// [`write_zip`] with the files stored, not compressed: as reproducible,
/// larger, and nothing to deflate or inflate. For archives a store writes
/// on every import and reads before every run (`murano catalog import`),
/// not for packages to publish.
///
/// ```
/// use murano_packages::{pack::write_zip_stored, source::{FileMap, PackageSource}};
///
/// let mut files = FileMap::new();
/// files.insert("manifest.yaml", b"FullName: a.b\n".to_vec())?;
/// let zip = write_zip_stored(&files)?;
/// assert_eq!(zip, write_zip_stored(&files)?);
/// let back = FileMap::from_zip(&zip, &Default::default())?;
/// assert_eq!(back.read("manifest.yaml"), Some(&b"FullName: a.b\n"[..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_zip_stored(files: &FileMap) -> Result<Vec<u8>, PackError> {
    write_zip_as(files, zip::CompressionMethod::Stored, None)
}

fn write_zip_as(
    files: &FileMap,
    method: zip::CompressionMethod,
    level: Option<i64>,
) -> Result<Vec<u8>, PackError> {
    use crate::source::PackageSource;
    if files.is_empty() {
        return Err(PackError::Empty);
    }
    let zip_error = |e: &dyn std::fmt::Display| PackError::Zip(e.to_string());
    let mut bytes = Vec::new();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
    // The zip epoch: the earliest time the format stores, and no clock.
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(method)
        .compression_level(level)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644)
        .large_file(false);
    // FileMap keeps its paths sorted: the entry order is fixed.
    for path in files.paths() {
        let data = files.read(path).unwrap_or_default();
        let options = if data.len() >= u32::MAX as usize {
            options.large_file(true)
        } else {
            options
        };
        zip.start_file(path, options).map_err(|e| zip_error(&e))?;
        zip.write_all(data).map_err(|e| zip_error(&e))?;
    }
    zip.finish().map_err(|e| zip_error(&e))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::ArchiveLimits;

    fn sample(order: &[(&str, &str)]) -> FileMap {
        let mut files = FileMap::new();
        for (path, text) in order {
            files.insert(path, text.as_bytes().to_vec()).unwrap();
        }
        files
    }

    #[test]
    fn insertion_order_does_not_change_the_bytes() {
        let a = sample(&[("manifest.yaml", "x: 1\n"), ("Classes/A.yaml", "Name: A\n")]);
        let b = sample(&[("Classes/A.yaml", "Name: A\n"), ("manifest.yaml", "x: 1\n")]);
        assert_eq!(write_zip(&a).unwrap(), write_zip(&b).unwrap());
    }

    #[test]
    fn the_archive_reads_back_sorted_with_fixed_times_and_modes() {
        let files = sample(&[("manifest.yaml", "x: 1\n"), ("Classes/A.yaml", "Name: A\n")]);
        let bytes = write_zip(&files).unwrap();
        let back = FileMap::from_zip(&bytes, &ArchiveLimits::default()).unwrap();
        assert_eq!(back, files);
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&bytes)).unwrap();
        let names: Vec<String> = archive.file_names().map(str::to_owned).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names.len(), 2);
        for (i, name) in sorted.iter().enumerate() {
            let entry = archive.by_index(i).unwrap();
            assert_eq!(entry.name(), name);
            assert_eq!(entry.unix_mode(), Some(0o100644));
            let time = entry.last_modified().unwrap();
            assert_eq!((time.year(), time.month(), time.day()), (1980, 1, 1));
        }
    }

    #[test]
    fn an_empty_package_is_refused() {
        assert_eq!(write_zip(&FileMap::new()), Err(PackError::Empty));
    }
}
