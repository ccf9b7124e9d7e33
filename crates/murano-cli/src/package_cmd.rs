//! `murano package`: a package folder as the zip Murano imports, checked
//! first and byte-reproducible.
//!
//! The folder is read strictly (unlike `murano check`, which reports and
//! goes on): a symbolic link leaving the package, a link to a folder, a
//! special file, a file name that is no portable path part (`..`, a
//! backslash, not UTF-8), a file over the size limit or a package over
//! the total limit stop the run with a message naming the file.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use murano_packages::check::{check_package, is_parity_only, CheckOptions, Severity};
use murano_packages::source::{FileMap, PackageSource};

use crate::files;

/// Build a package zip from a package folder, or from class files.
///
/// Examples:
///
///   murano package path/to/package -o com.example.App.zip
///
///   murano package path/to/package --force
///
///   murano package --classes-dir Classes/ --ui ui.yaml --resources-dir Resources/ -o app.zip
///
/// With --classes-dir (muranoclient's package-create), the package is
/// made of the class files, the UI definition (required for an
/// application), the resources and the logo; the manifest lists the
/// classes, and the type, full name and name default to those of a class
/// extending io.murano.Application.
///
/// The zip is what Murano imports (as muranoclient's package-create writes
/// it), for MuranoPL and Heat.HOT packages alike. The package is checked
/// first as `murano check` checks it; errors refuse the build unless
/// --force. The archive is byte-reproducible: entries sorted, timestamps
/// fixed to 1980-01-01, modes 0644, so the same folder always gives the
/// same file and SHA-256 (printed).
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct PackageArgs {
    /// The package folder (holding manifest.yaml).
    #[arg(
        required_unless_present = "classes_dir",
        conflicts_with = "classes_dir"
    )]
    dir: Option<PathBuf>,
    #[command(flatten)]
    parts: PartsArgs,
    /// The zip to write (default: <FullName>.zip in the current folder).
    #[arg(short, long, value_name = "FILE.zip")]
    output: Option<PathBuf>,
    /// Build even when the check finds errors.
    #[arg(long)]
    force: bool,
    /// Largest file in the package, in bytes; a larger one is refused.
    #[arg(long, value_name = "BYTES", default_value_t = files::DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,
    /// Largest package (its files together), in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = files::DEFAULT_MAX_PACKAGE_SIZE)]
    max_package_size: u64,
}

/// The parts of a package made from class files (`--classes-dir`).
#[derive(Args)]
struct PartsArgs {
    /// A folder of MuranoPL class files (they become Classes/).
    #[arg(long, value_name = "DIR")]
    classes_dir: Option<PathBuf>,
    /// The Dynamic UI definition (becomes UI/ui.yaml).
    #[arg(long, value_name = "FILE", requires = "classes_dir")]
    ui: Option<PathBuf>,
    /// A folder of resources (becomes Resources/).
    #[arg(long, value_name = "DIR", requires = "classes_dir")]
    resources_dir: Option<PathBuf>,
    /// The logo, a PNG (default: a small placeholder).
    #[arg(long, value_name = "FILE", requires = "classes_dir")]
    logo: Option<PathBuf>,
    /// FullName (default: the class extending io.murano.Application).
    #[arg(long, value_name = "NAME", requires = "classes_dir")]
    full_name: Option<String>,
    /// Name, shown in the catalog (default: FullName's last part).
    #[arg(long, value_name = "TEXT", requires = "classes_dir")]
    name: Option<String>,
    /// Application or Library (default: Application when a class extends
    /// io.murano.Application).
    #[arg(long = "type", value_name = "TYPE", requires = "classes_dir")]
    package_type: Option<String>,
    /// Author.
    #[arg(long, value_name = "TEXT", requires = "classes_dir")]
    author: Option<String>,
    /// Description.
    #[arg(long, value_name = "TEXT", requires = "classes_dir")]
    description: Option<String>,
    /// The MuranoPL format version of the manifest (default 1.0, as
    /// muranoclient writes it).
    #[arg(long, value_name = "VERSION", requires = "classes_dir")]
    format_version: Option<String>,
    /// Tags (repeatable, or comma-separated).
    #[arg(
        long,
        value_name = "TAG",
        value_delimiter = ',',
        requires = "classes_dir"
    )]
    tags: Vec<String>,
}

/// Reads a file of at most `limit` bytes, or says which option to raise.
fn read_part(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    files::read_capped(path, limit)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .ok_or_else(|| {
            format!(
                "{}: larger than {limit} bytes (--max-file-size)",
                path.display()
            )
        })
}

/// The package made of `parts` (see [`PartsArgs`]).
fn compose(parts: &PartsArgs, classes_dir: &Path, limits: &PackLimits) -> Result<FileMap, String> {
    use murano_packages::scaffold::{compose_manifest, ComposeOptions, DEFAULT_LOGO};
    let classes = read_strict(classes_dir, limits)?;
    let class_files: Vec<(String, Vec<u8>)> = classes
        .paths()
        .map(|p| (p.to_owned(), classes.read(p).unwrap_or_default().to_vec()))
        .collect();
    let options = ComposeOptions {
        full_name: parts.full_name.clone(),
        name: parts.name.clone(),
        package_type: parts.package_type.clone(),
        author: parts.author.clone(),
        description: parts.description.clone(),
        tags: parts.tags.clone(),
        ui: parts.ui.is_some(),
        format_version: parts.format_version.clone(),
    };
    let manifest = compose_manifest(&class_files, &options).map_err(|e| e.to_string())?;
    if manifest.contains("\nType: Application\n") && parts.ui.is_none() {
        return Err("an application needs its UI definition (--ui FILE)".into());
    }
    let mut files = FileMap::new();
    let insert = |files: &mut FileMap, path: &str, bytes: Vec<u8>| {
        files
            .insert(path, bytes)
            .map_err(|e| format!("{path}: {e}"))
    };
    insert(&mut files, "manifest.yaml", manifest.into_bytes())?;
    for (path, bytes) in class_files {
        insert(&mut files, &format!("Classes/{path}"), bytes)?;
    }
    if let Some(dir) = &parts.resources_dir {
        if !dir.is_dir() {
            return Err(format!("--resources-dir {}: not a folder", dir.display()));
        }
        let resources = read_strict(dir, limits)?;
        for path in resources.paths() {
            let bytes = resources.read(path).unwrap_or_default().to_vec();
            insert(&mut files, &format!("Resources/{path}"), bytes)?;
        }
    }
    if let Some(ui) = &parts.ui {
        insert(
            &mut files,
            "UI/ui.yaml",
            read_part(ui, limits.max_file_size)?,
        )?;
    }
    let logo = match &parts.logo {
        Some(logo) => read_part(logo, limits.max_file_size)?,
        None => DEFAULT_LOGO.to_vec(),
    };
    insert(&mut files, "logo.png", logo)?;
    let total: u64 = files
        .paths()
        .map(|p| files.read(p).map_or(0, |b| b.len() as u64))
        .sum();
    if total > limits.max_package_size {
        return Err(format!(
            "the package is larger than {} bytes (--max-package-size)",
            limits.max_package_size
        ));
    }
    Ok(files)
}

/// Most files and folders in a package folder.
const MAX_ENTRIES: usize = 10_000;

/// How much a package folder may hold.
#[derive(Clone, Copy)]
pub(crate) struct PackLimits {
    pub(crate) max_file_size: u64,
    pub(crate) max_package_size: u64,
}

impl Default for PackLimits {
    fn default() -> Self {
        PackLimits {
            max_file_size: files::DEFAULT_MAX_FILE_SIZE,
            max_package_size: files::DEFAULT_MAX_PACKAGE_SIZE,
        }
    }
}

/// A name that is safe as a zip entry part on every system.
fn check_name(name: &std::ffi::OsStr, rel: &str, path: &Path) -> Result<String, String> {
    let Some(text) = name.to_str() else {
        return Err(format!(
            "{}: the file name is not UTF-8; refused",
            path.display()
        ));
    };
    // A backslash is a separator to Windows' unzip: `..\x` climbs out.
    if text == "." || text == ".." || text.contains(['\\', '\0']) {
        return Err(format!(
            "{}: the name {text:?} could leave the package when unpacked (`..` or `\\`); refused",
            if rel.is_empty() {
                path.display().to_string()
            } else {
                rel.to_owned()
            }
        ));
    }
    Ok(text.to_owned())
}

/// Reads a package folder strictly (see the module comment).
pub(crate) fn read_strict(root: &Path, limits: &PackLimits) -> Result<FileMap, String> {
    let real_root =
        std::fs::canonicalize(root).map_err(|e| format!("cannot read {}: {e}", root.display()))?;
    if !real_root.is_dir() {
        return Err(format!("{}: not a folder", root.display()));
    }
    let mut files = FileMap::new();
    let mut total = 0u64;
    let mut entries = 0usize;
    let mut stack = vec![(root.to_owned(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let listing =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in listing {
            let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
            entries += 1;
            if entries > MAX_ENTRIES {
                return Err(format!(
                    "{}: more than {MAX_ENTRIES} files and folders",
                    root.display()
                ));
            }
            let path = entry.path();
            let name = check_name(&entry.file_name(), &prefix, &path)?;
            let rel = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            let kind = entry
                .file_type()
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let mut source = path.clone();
            if kind.is_symlink() {
                let target = std::fs::canonicalize(&path).map_err(|e| {
                    format!("{rel}: a symbolic link that cannot be followed ({e}); refused")
                })?;
                if !target.starts_with(&real_root) {
                    return Err(format!(
                        "{rel}: a symbolic link out of the package (to {}); refused",
                        target.display()
                    ));
                }
                if !target.is_file() {
                    return Err(format!(
                        "{rel}: a symbolic link to a folder or special file; refused"
                    ));
                }
                source = target;
            } else if kind.is_dir() {
                stack.push((path, rel));
                continue;
            } else if !kind.is_file() {
                return Err(format!(
                    "{rel}: not a regular file (a device, socket or pipe); refused"
                ));
            }
            let left = limits.max_package_size.saturating_sub(total);
            let cap = limits.max_file_size.min(left);
            let mut bytes = Vec::new();
            std::fs::File::open(&source)
                .and_then(|f| f.take(cap.saturating_add(1)).read_to_end(&mut bytes))
                .map_err(|e| format!("cannot read {}: {e}", source.display()))?;
            if bytes.len() as u64 > cap {
                return Err(if cap < limits.max_file_size {
                    format!(
                        "{rel}: the package grows beyond {} bytes (--max-package-size); refused",
                        limits.max_package_size
                    )
                } else {
                    format!(
                        "{rel}: larger than {} bytes (--max-file-size); refused",
                        limits.max_file_size
                    )
                });
            }
            total += bytes.len() as u64;
            files
                .insert(&rel, bytes)
                .map_err(|e| format!("{rel}: {e}"))?;
        }
    }
    Ok(files)
}

/// The check's errors that fail a build (murano-pkg-check's parity-only
/// errors do not), rendered one a line.
pub(crate) fn blocking_errors(files: &FileMap) -> Vec<String> {
    check_package(files, &CheckOptions::default())
        .into_iter()
        .filter(|d| d.severity == Severity::Error && !is_parity_only(d))
        .map(|d| {
            let place = match (&d.file, d.start) {
                (Some(file), Some(at)) => format!("{file}:{}: ", at.line),
                (Some(file), None) => format!("{file}: "),
                _ => String::new(),
            };
            format!("{place}{} {}", d.code, d.message)
        })
        .collect()
}

/// The `FullName` of a package's manifest, when it has a usable one.
pub(crate) fn full_name(files: &FileMap) -> Option<String> {
    let manifest = murano_packages::read_manifest(files).ok()?;
    let name = manifest.value.get("FullName")?.value.python_str();
    let safe = !name.is_empty()
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '.' || c == '_');
    safe.then_some(name)
}

/// The lowercase hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Writes `bytes` to `path` through a temporary file beside it, so that a
/// failed run never leaves half a file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("cannot write {}: {e}", path.display())
        })
}

/// Reads, checks and zips a package folder: the files and the archive.
pub(crate) fn build(
    dir: &Path,
    limits: &PackLimits,
    force: bool,
) -> Result<(FileMap, Vec<u8>), String> {
    let files = read_strict(dir, limits)?;
    if files.read("manifest.yaml").is_none() {
        return Err(format!(
            "{}: no manifest.yaml: this is not a package",
            dir.display()
        ));
    }
    zip_checked(files, dir, force)
}

/// Checks and zips a package's files (`label` names it in messages).
fn zip_checked(files: FileMap, label: &Path, force: bool) -> Result<(FileMap, Vec<u8>), String> {
    let dir = label;
    let errors = blocking_errors(&files);
    if !errors.is_empty() && !force {
        return Err(format!(
            "{}: the check found {} error{} (build anyway with --force):\n  {}",
            dir.display(),
            errors.len(),
            if errors.len() == 1 { "" } else { "s" },
            errors.join("\n  ")
        ));
    }
    let bytes = murano_packages::pack::write_zip(&files).map_err(|e| e.to_string())?;
    Ok((files, bytes))
}

pub(crate) fn run(args: &PackageArgs) -> ExitCode {
    let limits = PackLimits {
        max_file_size: args.max_file_size,
        max_package_size: args.max_package_size,
    };
    let source = match (&args.dir, &args.parts.classes_dir) {
        (Some(dir), _) => dir.clone(),
        (None, Some(classes)) => classes.clone(),
        (None, None) => {
            eprintln!("murano: give a package folder or --classes-dir");
            return ExitCode::from(2);
        }
    };
    for path in std::iter::once(&source)
        .chain(&args.parts.ui)
        .chain(&args.parts.resources_dir)
        .chain(&args.parts.logo)
    {
        if !path.exists() {
            eprintln!("murano: {}: no such file or folder", path.display());
            return ExitCode::from(2);
        }
    }
    if !source.is_dir() {
        eprintln!("murano: {}: not a folder", source.display());
        return ExitCode::from(2);
    }
    if let Some(output) = &args.output {
        // A zip written inside the folder would be packed by the next run.
        let parent = output
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if let (Ok(parent), Ok(dir)) = (
            std::fs::canonicalize(parent),
            std::fs::canonicalize(&source),
        ) {
            if parent.starts_with(&dir) {
                eprintln!(
                    "murano: {}: the output is inside the package folder; write it elsewhere",
                    output.display()
                );
                return ExitCode::from(2);
            }
        }
    }
    let built = match &args.dir {
        Some(dir) => build(dir, &limits, args.force),
        None => compose(&args.parts, &source, &limits)
            .and_then(|files| zip_checked(files, &source, args.force)),
    };
    let (files, bytes) = match built {
        Ok(built) => built,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(1);
        }
    };
    let output = match &args.output {
        Some(o) => o.clone(),
        None => match full_name(&files) {
            Some(name) => PathBuf::from(format!("{name}.zip")),
            None => {
                eprintln!("murano: the manifest has no usable FullName: name the zip with -o");
                return ExitCode::from(1);
            }
        },
    };
    if let Err(e) = write_atomic(&output, &bytes) {
        eprintln!("murano: {e}");
        return ExitCode::from(2);
    }
    outln!(
        "{}: {} files, {} bytes, sha256 {}",
        output.display(),
        files.len(),
        bytes.len(),
        sha256_hex(&bytes)
    );
    ExitCode::SUCCESS
}
