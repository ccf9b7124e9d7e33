//! `murano check`: lint packages as murano-pkg-check does, and more.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use murano_packages::check::{
    check_package, is_parity_only, CheckOptions, ClassIndex, Diagnostic, Severity,
};
use murano_packages::source::PackageSource;

use crate::files::{self, find_packages, read_package, ReadError, ReadLimits};

/// Check Murano packages: YAML, manifest, classes, UI definitions, files.
///
/// Examples:
///
///   murano check path/to/package
///
///   murano check --recursive apps/ --format json
///
///   murano check package.zip --deny warnings
///
/// Diagnostics carry murano-pkg-check's codes (E000-E204, W010-W202) for
/// its checks and M codes for the others (see docs/diagnostics.md). Some of
/// murano-pkg-check's errors are on code Murano loads and runs (a `Do:`
/// block, a `!yaql` tag): they keep their code for parity, their message
/// says that Murano accepts this, and they fail the run only with --deny
/// parity. The exit status is 0 when nothing was found, 1 when something
/// was (errors, warnings with --deny warnings, parity-only errors with
/// --deny parity), 2 on a usage or I/O error.
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct CheckArgs {
    /// Package directories or .zip archives (with --recursive: folders to
    /// search for packages).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Check every package found under the given folders.
    #[arg(short, long)]
    recursive: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Also fail on these (repeatable, or comma-separated): `warnings`;
    /// `parity`, murano-pkg-check's errors on what Murano accepts.
    #[arg(long, value_name = "WHAT", value_delimiter = ',')]
    deny: Vec<Deny>,
    /// Report only murano-pkg-check's codes.
    #[arg(long)]
    pkgcheck_only: bool,
    /// Packages (folders searched recursively, or .zip files) whose classes
    /// the checked packages may use, e.g. Murano's core library. With at
    /// least one, classes used but defined nowhere (M403) and classes from
    /// packages not required (M404) are checked (errors in Extends and
    /// Import, where Murano cannot load the class), and a Require entry
    /// the catalog lacks is one finding (M420); the packages checked are
    /// part of the catalog too.
    #[arg(long, value_name = "DIR")]
    catalog: Vec<PathBuf>,
    /// Largest file read from a package folder or archive, in bytes; a
    /// larger file is reported (M002) and not read.
    #[arg(long, value_name = "BYTES", default_value_t = files::DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,
    /// Largest package (archive, or a folder's files together), in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = files::DEFAULT_MAX_PACKAGE_SIZE)]
    max_package_size: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
    Sarif,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Deny {
    /// Warnings fail the run.
    Warnings,
    /// murano-pkg-check's errors on what Murano accepts fail the run.
    Parity,
}

/// One diagnostic with the source line it points at (a bounded window).
struct Finding {
    diagnostic: Diagnostic,
    source: Option<String>,
}

/// What is kept of a package once checked: its files are dropped, so that
/// packages are held in memory one at a time (per worker).
struct Checked {
    path: PathBuf,
    findings: Vec<Finding>,
}

pub(crate) fn run(args: &CheckArgs) -> ExitCode {
    let limits = ReadLimits {
        max_file_size: args.max_file_size,
        max_package_size: args.max_package_size,
    };
    let mut paths = Vec::new();
    for path in &args.paths {
        if !path.exists() {
            eprintln!("murano: {}: no such file or folder", path.display());
            return ExitCode::from(2);
        }
        if args.recursive {
            let found = find_packages(path);
            if found.is_empty() {
                eprintln!(
                    "murano: {}: no package (a folder with manifest.yaml, or a .zip) found",
                    path.display()
                );
                return ExitCode::from(1);
            }
            paths.extend(found);
        } else {
            paths.push(path.clone());
        }
    }
    let mut options = CheckOptions::default().with_pkgcheck_only(args.pkgcheck_only);
    if !args.catalog.is_empty() {
        let mut index = ClassIndex::new();
        for dir in &args.catalog {
            if !dir.exists() {
                eprintln!(
                    "murano: --catalog {}: no such file or folder",
                    dir.display()
                );
                return ExitCode::from(2);
            }
            for path in find_packages(dir).iter().chain(&paths) {
                match read_package(path, &limits) {
                    Ok(p) => {
                        index.add_package(&p.files);
                    }
                    Err(ReadError::Io(e)) => eprintln!("murano: catalog: {e}"),
                    Err(ReadError::Package(d)) => {
                        eprintln!("murano: catalog: {}: {}", path.display(), d.message)
                    }
                }
            }
        }
        options = options.with_catalog(index);
    }
    let checked = match check_all(&paths, &options, &limits) {
        Ok(checked) => checked,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(2);
        }
    };

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let rendered = match args.format {
        Format::Text => render_text(&checked),
        Format::Json => render_json(&checked),
        Format::Sarif => render_sarif(&checked),
    };
    let _ = out.write_all(rendered.as_bytes());
    let (errors, warnings, parity) =
        checked
            .iter()
            .flat_map(|c| &c.findings)
            .fold((0, 0, 0), |(e, w, p), f| match f.diagnostic.severity {
                Severity::Error if is_parity_only(&f.diagnostic) => (e + 1, w, p + 1),
                Severity::Error => (e + 1, w, p),
                Severity::Warning => (e, w + 1, p),
            });
    let parity_note = if parity > 0 {
        format!(
            " ({parity} of them for murano-pkg-check parity only: Murano accepts {}; --deny parity fails on them)",
            if parity == 1 { "it" } else { "them" }
        )
    } else {
        String::new()
    };
    eprintln!(
        "checked {} package{}: {errors} error{}{parity_note}, {warnings} warning{}",
        checked.len(),
        if checked.len() == 1 { "" } else { "s" },
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" },
    );
    let deny = |what: Deny| args.deny.contains(&what);
    if errors > parity
        || (parity > 0 && deny(Deny::Parity))
        || (warnings > 0 && deny(Deny::Warnings))
    {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Reads and checks one package: a package that cannot be read is a
/// finding of that package (M001, M002), not the end of the run; a folder
/// or archive without a manifest is M003.
fn check_one(path: &Path, options: &CheckOptions, limits: &ReadLimits) -> Result<Checked, String> {
    let package = match read_package(path, limits) {
        Ok(p) => p,
        Err(ReadError::Io(e)) => return Err(e),
        Err(ReadError::Package(d)) => {
            return Ok(Checked {
                path: path.to_owned(),
                findings: vec![Finding {
                    diagnostic: *d,
                    source: None,
                }],
            })
        }
    };
    let mut diagnostics = package.notes;
    if package.files.read("manifest.yaml").is_none() {
        let mut message = "no manifest.yaml: this is not a package".to_owned();
        let inside = if path.is_dir() {
            find_packages(path).len()
        } else {
            0
        };
        if inside > 0 {
            message.push_str(&format!(
                " (it holds {inside} package{}: did you mean --recursive?)",
                if inside == 1 { "" } else { "s" }
            ));
        } else if package.files.paths().any(|p| p.ends_with(".zip")) {
            message.push_str(" (it holds a .zip: a package zipped inside a zip?)");
        }
        diagnostics.push(Diagnostic::new("M003", message));
    } else {
        diagnostics.extend(check_package(&package.files, options));
    }
    let findings = diagnostics
        .into_iter()
        .map(|d| {
            let source = match &d.file {
                Some(file) => d
                    .start
                    .and_then(|at| source_line(&package.files, file, at.line as usize)),
                _ => None,
            };
            Finding {
                diagnostic: d,
                source,
            }
        })
        .collect();
    Ok(Checked {
        path: path.to_owned(),
        findings,
    })
}

/// Reads and checks packages on every core, one package per worker at a
/// time; a progress line on a terminal when the work is long.
fn check_all(
    paths: &[PathBuf],
    options: &CheckOptions,
    limits: &ReadLimits,
) -> Result<Vec<Checked>, String> {
    let total = paths.len();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(total.max(1));
    let show_progress = total > 20 && std::io::stderr().is_terminal();
    let queue = std::sync::Mutex::new(paths.iter().enumerate().collect::<Vec<_>>());
    let done = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<(usize, Result<Checked, String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let next = queue.lock().map(|mut q| q.pop()).unwrap_or(None);
                        let Some((i, path)) = next else { break };
                        mine.push((i, check_one(path, options, limits)));
                        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                        if show_progress {
                            eprint!("\rchecking {n}/{total}");
                        }
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    if show_progress {
        eprintln!();
    }
    let mut results = results;
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, c)| c).collect()
}

/// The part of a file's text a diagnostic needs: its line, at its place
/// (the lines before it empty), so that the package's files need not be
/// kept once it is checked.
fn source_line(
    files: &murano_packages::source::FileMap,
    file: &str,
    line: usize,
) -> Option<String> {
    let bytes = files.read(file)?;
    let raw = bytes.split(|&b| b == b'\n').nth(line.checked_sub(1)?)?;
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let mut text = "\n".repeat(line - 1);
    text.push_str(&String::from_utf8_lossy(raw));
    Some(text)
}

/// Diagnostics as rustc shows them: code, message, location, the source
/// line (a window around the column when it is long) and a caret (the
/// one renderer of the workspace, `murano_diagnostics::Snippet`), a blank
/// line after each.
fn render_text(checked: &[Checked]) -> String {
    let mut out = String::new();
    for c in checked {
        let path = c.path.display().to_string();
        for f in &c.findings {
            let d = &f.diagnostic;
            let shown = match &d.file {
                Some(file) => format!("{path}/{file}"),
                None => path.clone(),
            };
            out.push_str(&d.snippet(Some(&shown), f.source.as_deref()).render());
            out.push_str("\n\n");
        }
    }
    out
}

fn render_json(checked: &[Checked]) -> String {
    let items: Vec<serde_json::Value> = checked
        .iter()
        .flat_map(|c| {
            c.findings.iter().map(|f| &f.diagnostic).map(move |d| {
                serde_json::json!({
                    "package": c.path.display().to_string(),
                    "file": d.file,
                    // null, not 0, where the finding has no position.
                    "line": d.start.map(|p| p.line),
                    "column": d.start.map(|p| p.column),
                    "code": d.code,
                    "severity": d.severity.as_str(),
                    "message": d.message,
                })
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&items).unwrap_or_else(|_| "[]".into());
    text.push('\n');
    text
}

/// SARIF 2.1.0, for code-scanning tools.
fn render_sarif(checked: &[Checked]) -> String {
    let mut rule_ids: Vec<&str> = checked
        .iter()
        .flat_map(|c| c.findings.iter().map(|f| f.diagnostic.code))
        .collect();
    rule_ids.sort_unstable();
    rule_ids.dedup();
    let rules: Vec<serde_json::Value> = rule_ids
        .iter()
        .map(|id| {
            let summary = murano_packages::check::code_info(id)
                .map(|i| i.summary)
                .unwrap_or("");
            serde_json::json!({"id": id, "shortDescription": {"text": summary}})
        })
        .collect();
    let results: Vec<serde_json::Value> = checked
        .iter()
        .flat_map(|c| {
            c.findings.iter().map(|f| &f.diagnostic).map(move |d| {
                let location = artifact_location(&c.path, d.file.as_deref());
                let mut location =
                    serde_json::json!({"physicalLocation": {"artifactLocation": location}});
                if let Some(at) = d.start {
                    location["physicalLocation"]["region"] =
                        serde_json::json!({"startLine": at.line, "startColumn": at.column.max(1)});
                }
                serde_json::json!({
                    "ruleId": d.code,
                    "level": d.severity.as_str(),
                    "message": {"text": d.message},
                    "locations": [location],
                })
            })
        })
        .collect();
    let mut run = serde_json::json!({
        "tool": {"driver": {
            "name": "murano",
            "version": env!("CARGO_PKG_VERSION"),
            "rules": rules,
        }},
        "results": results,
    });
    if let Some(root) = std::env::current_dir().ok().and_then(|d| file_uri(&d)) {
        run["originalUriBaseIds"] = serde_json::json!({ROOT: {"uri": format!("{root}/")}});
    }
    let sarif = serde_json::json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [run],
    });
    let mut text = serde_json::to_string_pretty(&sarif).unwrap_or_default();
    text.push('\n');
    text
}

/// The SARIF base id of the folder `murano check` ran in.
const ROOT: &str = "CHECKED_ROOT";

/// `s` percent-encoded for a URI path: everything but unreserved
/// characters and `/` is written `%XX` (UTF-8 bytes).
fn percent_encode_path(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A `file://` URI for an absolute path (without a trailing `/`).
fn file_uri(path: &Path) -> Option<String> {
    let text = path.to_str()?.replace('\\', "/");
    let text = text.trim_end_matches('/');
    let text = if text.starts_with('/') {
        text.to_owned()
    } else {
        format!("/{text}")
    };
    Some(format!("file://{}", percent_encode_path(&text)))
}

/// SARIF `artifactLocation` of a file of the package at `package`: a
/// relative URI reference against [`ROOT`] when the package lies under
/// the current folder, else an absolute `file://` URI.
fn artifact_location(package: &Path, file: Option<&str>) -> serde_json::Value {
    let full = match file {
        Some(f) => package.join(f),
        None => package.to_owned(),
    };
    let cwd = std::env::current_dir().ok();
    let absolute = if full.is_absolute() {
        Some(full.clone())
    } else {
        cwd.as_ref().map(|c| c.join(&full))
    };
    let absolute = absolute.map(|a| normalize(&a));
    if let (Some(abs), Some(cwd)) = (&absolute, &cwd) {
        if let Ok(rel) = abs.strip_prefix(normalize(cwd)) {
            if let Some(rel) = rel.to_str() {
                let rel = rel.replace('\\', "/");
                return serde_json::json!({"uri": percent_encode_path(&rel), "uriBaseId": ROOT});
            }
        }
    }
    let uri = absolute
        .as_deref()
        .and_then(file_uri)
        .unwrap_or_else(|| percent_encode_path(&full.to_string_lossy().replace('\\', "/")));
    serde_json::json!({ "uri": uri })
}

/// `.` and `..` taken out of a path, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
