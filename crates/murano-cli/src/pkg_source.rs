//! Packages named on the command line of `murano repo` and `murano
//! catalog`: folders (built into reproducible zips), zips (kept as they
//! are), and folders holding packages; each loaded and summarised.

use std::path::{Path, PathBuf};

use murano_packages::repository::PackageSummary;
use murano_packages::source::{FileMap, PackageSource};
use murano_packages::PluginRegistry;

use crate::files::{self, ReadLimits};
use crate::package_cmd::{self, PackLimits};

/// One package read from a source.
pub(crate) struct SourcePackage {
    /// Where it came from.
    pub(crate) path: PathBuf,
    /// Its files.
    pub(crate) files: FileMap,
    /// The zip: built for a folder, as read for an archive.
    pub(crate) zip: Vec<u8>,
    /// What an index says of it.
    pub(crate) summary: PackageSummary,
}

/// The package paths a source names: itself when it is a package (a
/// folder with `manifest.yaml`, or a file), else every package under it.
pub(crate) fn expand(source: &Path) -> Result<Vec<PathBuf>, String> {
    if !source.exists() {
        return Err(format!("{}: no such file or folder", source.display()));
    }
    if source.is_file() || source.join("manifest.yaml").is_file() {
        return Ok(vec![source.to_owned()]);
    }
    let found = files::find_packages(source);
    if found.is_empty() {
        return Err(format!(
            "{}: no package (a folder with manifest.yaml, or a .zip) found",
            source.display()
        ));
    }
    Ok(found)
}

/// Loads the package's summary from its files.
pub(crate) fn summarise(files: &FileMap, label: &str) -> Result<PackageSummary, String> {
    let manifest = murano_packages::read_manifest(files).map_err(|e| format!("{label}: {e}"))?;
    let images = files.read("images.lst").map(<[u8]>::to_vec);
    let package = PluginRegistry::with_builtins()
        .load(files.clone())
        .map_err(|e| format!("{label}: cannot load the package: {e}"))?;
    PackageSummary::from_package(package.as_ref(), &manifest, images.as_deref())
        .map_err(|e| format!("{label}: {e}"))
}

/// Reads one package: a folder is read strictly, checked (errors refuse
/// it unless `force`) and zipped; an archive is read within the limits.
pub(crate) fn load(path: &Path, limits: &PackLimits, force: bool) -> Result<SourcePackage, String> {
    let (files, zip) = if path.is_dir() {
        package_cmd::build(path, limits, force)?
    } else {
        let zip = files::read_capped(path, limits.max_package_size)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?
            .ok_or_else(|| {
                format!(
                    "{}: larger than {} bytes (--max-package-size)",
                    path.display(),
                    limits.max_package_size
                )
            })?;
        let read_limits = ReadLimits {
            max_file_size: limits.max_file_size,
            max_package_size: limits.max_package_size,
        };
        let loaded = files::read_package(path, &read_limits).map_err(|e| match e {
            files::ReadError::Io(m) => m,
            files::ReadError::Package(d) => format!("{}: {}", path.display(), d.message),
        })?;
        if !force {
            let errors = package_cmd::blocking_errors(&loaded.files);
            if !errors.is_empty() {
                return Err(format!(
                    "{}: the check found {} error{} (use it anyway with --force):\n  {}",
                    path.display(),
                    errors.len(),
                    if errors.len() == 1 { "" } else { "s" },
                    errors.join("\n  ")
                ));
            }
        }
        (loaded.files, zip)
    };
    let summary = summarise(&files, &path.display().to_string())?;
    Ok(SourcePackage {
        path: path.to_owned(),
        files,
        zip,
        summary,
    })
}
