//! `murano repo build` and `murano repo bundle`: static package
//! repositories in the layout muranoclient reads, and bundle files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use murano_packages::repository::{check_closures, ClosureProblem, PackageSummary};

use crate::files;
use crate::package_cmd::{sha256_hex, write_atomic, PackLimits};
use crate::pkg_source::{self, SourcePackage};

/// Build package repositories and bundles.
#[derive(Args)]
pub(crate) struct RepoArgs {
    #[command(subcommand)]
    command: RepoCommand,
}

#[derive(Subcommand)]
enum RepoCommand {
    Build(BuildArgs),
    Bundle(BundleArgs),
}

/// Build a static package repository.
///
/// Examples:
///
///   murano repo build packages/ -o repo/
///
///   murano repo build app/ lib.zip base.bundle --images images/ -o repo/
///
/// SRC are package folders (checked and zipped as `murano package` does),
/// package zips, folders holding packages, and .bundle files. The output
/// is what muranoclient's --murano-repo-url reads: apps/<FullName>.zip
/// (the newest version), apps/<FullName>.<Version>.zip (each version as
/// its manifest writes it, and each version a Require entry names),
/// bundles/<name>.bundle, images/ (files from --images), and index.json
/// (packages, versions, classes, tags, categories, requirements, SHA-256
/// hashes). Every package's Require closure must be served by the
/// repository: a missing package, versions no single package satisfies,
/// or a cycle stop the build (--allow-cycles lets cycles through, as
/// Murano itself does).
#[derive(Args)]
#[command(verbatim_doc_comment)]
struct BuildArgs {
    /// Packages, folders of packages, and .bundle files.
    #[arg(required = true, value_name = "SRC")]
    sources: Vec<PathBuf>,
    /// The repository folder to write.
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    /// A folder of image files to publish under images/.
    #[arg(long, value_name = "DIR")]
    images: Option<PathBuf>,
    /// Take packages whose check finds errors.
    #[arg(long)]
    force: bool,
    /// Accept packages that require each other (Murano loads them).
    #[arg(long)]
    allow_cycles: bool,
    /// Largest file in a package or image, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = files::DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,
    /// Largest package, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = files::DEFAULT_MAX_PACKAGE_SIZE)]
    max_package_size: u64,
}

/// Write a bundle file (a list of packages muranoclient imports together).
///
/// Example: murano repo bundle app/ lib.zip org.acme.Extra=1.0.0 -o web.bundle
///
/// Each PACKAGE is a package folder or zip (its FullName and Version are
/// read), or a FullName with an optional =Version.
#[derive(Args)]
#[command(verbatim_doc_comment)]
struct BundleArgs {
    /// Packages: folders, zips, or FullName[=Version].
    #[arg(required = true, value_name = "PACKAGE")]
    packages: Vec<String>,
    /// The bundle file to write.
    #[arg(short, long, value_name = "FILE.bundle")]
    output: PathBuf,
}

pub(crate) fn run(args: &RepoArgs) -> ExitCode {
    // Usage errors first (exit 2): sources and folders that do not exist.
    let missing = match &args.command {
        RepoCommand::Build(a) => a
            .sources
            .iter()
            .chain(&a.images)
            .find(|p| !p.exists())
            .map(|p| p.display().to_string()),
        RepoCommand::Bundle(_) => None,
    };
    if let Some(path) = missing {
        eprintln!("murano: {path}: no such file or folder");
        return ExitCode::from(2);
    }
    let result = match &args.command {
        RepoCommand::Build(a) => build(a),
        RepoCommand::Bundle(a) => bundle(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Refused(e)) => {
            eprintln!("murano: {e}");
            ExitCode::from(1)
        }
        Err(Failure::Io(e)) => {
            eprintln!("murano: {e}");
            ExitCode::from(2)
        }
    }
}

/// Why a command stopped: what it was given (exit 1), or writing its
/// output (exit 2).
enum Failure {
    Refused(String),
    Io(String),
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Refused(message)
    }
}

/// `write_atomic`, its error an I/O failure.
fn write_out(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    write_atomic(path, bytes).map_err(Failure::Io)
}

/// A name that is safe as one path part.
fn safe_part(text: &str) -> bool {
    !text.is_empty()
        && text != "."
        && text != ".."
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+'))
}

/// A bundle: its `Packages` entries (name, version).
type BundleSpec = Vec<(String, Option<String>)>;

/// Reads a bundle file as muranoclient does (JSON, else YAML; a mapping
/// with `Packages`, entries without `Name` skipped).
fn read_bundle(path: &Path) -> Result<BundleSpec, String> {
    let bytes = files::read_capped(path, 1 << 20)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .ok_or_else(|| format!("{}: a bundle larger than 1 MiB", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let doc = murano_yaml::load_manifest(&text, &murano_yaml::LoadOptions::default())
        .map_err(|e| format!("{}: not a bundle: {e}", path.display()))?;
    let packages = doc
        .as_ref()
        .and_then(|d| d.value.get("Packages"))
        .ok_or_else(|| format!("{}: not a bundle (no Packages)", path.display()))?;
    let murano_yaml::Value::Seq(items) = &packages.value else {
        return Err(format!("{}: Packages is not a list", path.display()));
    };
    Ok(items
        .iter()
        .filter_map(|item| {
            let name = item.value.get("Name")?.value.python_str();
            let version = item
                .value
                .get("Version")
                .filter(|v| v.value.is_truthy())
                .map(|v| v.value.python_str());
            Some((name, version))
        })
        .collect())
}

fn bundle_json(packages: &BundleSpec) -> String {
    let list: Vec<serde_json::Value> = packages
        .iter()
        .map(|(name, version)| match version {
            Some(v) => serde_json::json!({"Name": name, "Version": v}),
            None => serde_json::json!({"Name": name}),
        })
        .collect();
    let mut text =
        serde_json::to_string_pretty(&serde_json::json!({ "Packages": list })).unwrap_or_default();
    text.push('\n');
    text
}

fn bundle(args: &BundleArgs) -> Result<(), Failure> {
    let mut spec = BundleSpec::new();
    for item in &args.packages {
        let path = Path::new(item);
        if path.exists() {
            let loaded = pkg_source::load(path, &PackLimits::default(), true)?;
            let version = loaded
                .summary
                .written_version
                .clone()
                .unwrap_or_else(|| loaded.summary.version.to_string());
            spec.push((loaded.summary.name, Some(version)));
        } else {
            let (name, version) = match item.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (item.as_str(), None),
            };
            if !murano_packages::scaffold::valid_full_name(name)
                || version.as_deref().is_some_and(|v| !safe_part(v))
            {
                return Err(
                    format!("{item}: neither a package path nor FullName[=Version]").into(),
                );
            }
            spec.push((name.to_owned(), version));
        }
    }
    write_out(&args.output, bundle_json(&spec).as_bytes())?;
    outln!(
        "{}: {} package{}",
        args.output.display(),
        spec.len(),
        if spec.len() == 1 { "" } else { "s" }
    );
    Ok(())
}

/// The problems that stop a build.
fn closure_errors(summaries: &[PackageSummary], allow_cycles: bool) -> Vec<String> {
    check_closures(summaries)
        .into_iter()
        .filter(|p| !(allow_cycles && matches!(p, ClosureProblem::Cycle { .. })))
        .map(|p| p.to_string())
        .collect()
}

fn build(args: &BuildArgs) -> Result<(), Failure> {
    let limits = PackLimits {
        max_file_size: args.max_file_size,
        max_package_size: args.max_package_size,
    };
    let mut packages: Vec<SourcePackage> = Vec::new();
    let mut bundles: BTreeMap<String, (PathBuf, BundleSpec)> = BTreeMap::new();
    for source in &args.sources {
        if source.is_file() && source.extension().is_some_and(|e| e == "bundle") {
            let name = source
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !safe_part(&name) {
                return Err(format!(
                    "{}: a bundle name must be a plain file name",
                    source.display()
                )
                .into());
            }
            let spec = read_bundle(source)?;
            bundles.insert(name, (source.clone(), spec));
            continue;
        }
        for path in pkg_source::expand(source)? {
            packages.push(pkg_source::load(&path, &limits, args.force)?);
        }
    }
    // One package per name and version.
    let mut seen: BTreeMap<(String, String), &Path> = BTreeMap::new();
    for p in &packages {
        let key = (p.summary.name.clone(), p.summary.version.to_string());
        if let Some(first) = seen.insert(key.clone(), &p.path) {
            return Err(format!(
                "{} {} comes from both {} and {}",
                key.0,
                key.1,
                first.display(),
                p.path.display()
            )
            .into());
        }
    }
    let summaries: Vec<PackageSummary> = packages.iter().map(|p| p.summary.clone()).collect();
    let problems = closure_errors(&summaries, args.allow_cycles);
    if !problems.is_empty() {
        return Err(format!(
            "the repository cannot serve every package's requirements:\n  {}",
            problems.join("\n  ")
        )
        .into());
    }
    for p in &packages {
        for name in &p.summary.unquoted_requires {
            eprintln!(
                "murano: warning: {}: Require {name} is a number; muranoclient fetches \
                 requirements only when the version is a string (quote it)",
                p.summary.name
            );
        }
    }
    for (name, (path, spec)) in &bundles {
        for (package, version) in spec {
            let found = packages.iter().any(|p| {
                p.summary.name == *package
                    && version.as_ref().is_none_or(|v| {
                        p.summary.written_version.as_deref() == Some(v.as_str())
                            || p.summary.version.to_string() == *v
                    })
            });
            if !found {
                return Err(format!(
                    "{}: bundle {name} names {package}{}, which is not in the repository",
                    path.display(),
                    version
                        .as_ref()
                        .map(|v| format!(" {v}"))
                        .unwrap_or_default()
                )
                .into());
            }
        }
    }

    // The files each package is published as.
    let mut newest: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, p) in packages.iter().enumerate() {
        let entry = newest.entry(&p.summary.name).or_insert(i);
        if packages[*entry].summary.version < p.summary.version {
            *entry = i;
        }
    }
    let mut published: BTreeMap<String, usize> = BTreeMap::new();
    for (i, p) in packages.iter().enumerate() {
        let s = &p.summary;
        if newest.get(s.name.as_str()) == Some(&i) {
            published.insert(format!("{}.zip", s.name), i);
        }
        for version in [s.written_version.clone(), Some(s.version.to_string())]
            .into_iter()
            .flatten()
        {
            if safe_part(&version) {
                published.insert(format!("{}.{version}.zip", s.name), i);
            }
        }
    }
    // muranoclient asks for apps/<name>.<Require value>.zip: serve each
    // such value with the newest version it accepts.
    for p in &packages {
        for (name, written) in &p.summary.requires {
            if written.is_empty() || !safe_part(written) {
                continue;
            }
            let file = format!("{name}.{written}.zip");
            if published.contains_key(&file) {
                continue;
            }
            let spec = murano_dsl::version::parse_version_spec(&written.as_str().into()).ok();
            let best = packages
                .iter()
                .enumerate()
                .filter(|(_, c)| c.summary.name == *name)
                .filter(|(_, c)| spec.as_ref().is_some_and(|s| s.matches(&c.summary.version)))
                .max_by(|a, b| a.1.summary.version.cmp(&b.1.summary.version));
            if let Some((i, _)) = best {
                published.insert(file, i);
            }
        }
    }

    let out = &args.output;
    for dir in ["apps", "bundles", "images"] {
        std::fs::create_dir_all(out.join(dir))
            .map_err(|e| Failure::Io(format!("cannot create {}: {e}", out.join(dir).display())))?;
    }
    for (file, &i) in &published {
        write_out(&out.join("apps").join(file), &packages[i].zip)?;
    }
    for (name, (_, spec)) in &bundles {
        write_out(
            &out.join("bundles").join(format!("{name}.bundle")),
            bundle_json(spec).as_bytes(),
        )?;
    }
    let mut images = BTreeMap::new();
    if let Some(dir) = &args.images {
        let listing =
            std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let mut entries: Vec<_> = listing.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            // Links and folders are not published (a link could leave the folder).
            if !entry.file_type().is_ok_and(|t| t.is_file()) || !safe_part(&name) {
                eprintln!("murano: images: {name}: not a plain file; skipped");
                continue;
            }
            let bytes = files::read_capped(&entry.path(), args.max_file_size)
                .map_err(|e| format!("cannot read {}: {e}", entry.path().display()))?
                .ok_or_else(|| {
                    format!(
                        "images/{name}: larger than {} bytes (--max-file-size)",
                        args.max_file_size
                    )
                })?;
            write_out(&out.join("images").join(&name), &bytes)?;
            images.insert(name, sha256_hex(&bytes));
        }
    }
    let wanted: BTreeSet<&str> = packages
        .iter()
        .flat_map(|p| p.summary.images.iter().map(String::as_str))
        .collect();
    for image in wanted {
        if !images.contains_key(image) {
            eprintln!("murano: warning: image {image} (named in an images.lst) is not in images/");
        }
    }

    let mut order: Vec<usize> = (0..packages.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&packages[a].summary, &packages[b].summary);
        (&a.name, &a.version).cmp(&(&b.name, &b.version))
    });
    let entries: Vec<serde_json::Value> = order
        .iter()
        .map(|&i| {
            let p = &packages[i];
            let s = &p.summary;
            let files: Vec<String> = published
                .iter()
                .filter(|(_, &j)| j == i)
                .map(|(f, _)| format!("apps/{f}"))
                .collect();
            serde_json::json!({
                "name": s.name,
                "version": s.version.to_string(),
                "type": s.package_type,
                "format": s.format,
                "display_name": s.display_name,
                "description": s.description,
                "author": s.author,
                "tags": s.tags,
                "categories": s.categories,
                "classes": s.classes,
                "requires": s.requires.iter().map(|(n, v)| (n.clone(), serde_json::Value::from(v.clone()))).collect::<serde_json::Map<_, _>>(),
                "images": s.images,
                "files": files,
                "size": p.zip.len(),
                "sha256": sha256_hex(&p.zip),
            })
        })
        .collect();
    let index = serde_json::json!({
        "packages": entries,
        "bundles": bundles.iter().map(|(name, (_, spec))| serde_json::json!({
            "name": name,
            "file": format!("bundles/{name}.bundle"),
            "packages": spec.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "images": images.iter().map(|(name, hash)| serde_json::json!({
            "name": name, "file": format!("images/{name}"), "sha256": hash,
        })).collect::<Vec<_>>(),
    });
    let mut text = serde_json::to_string_pretty(&index).unwrap_or_default();
    text.push('\n');
    write_out(&out.join("index.json"), text.as_bytes())?;
    let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    outln!(
        "{}: {} ({}), {}, {}",
        out.display(),
        count(packages.len(), "package"),
        count(published.len(), "file"),
        count(bundles.len(), "bundle"),
        count(images.len(), "image")
    );
    Ok(())
}
