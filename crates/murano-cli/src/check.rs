//! `murano check`: lint packages as murano-pkg-check does, and more.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use murano_packages::check::{check_package, CheckOptions, ClassIndex, Diagnostic, Severity};
use murano_packages::source::PackageSource;

use crate::files::{find_packages, read_package, LoadedPackage};

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
/// its checks and M codes for the others (see docs/diagnostics.md). The exit
/// status is 0 when nothing was found, 1 when something was (errors, or
/// warnings with --deny warnings), 2 on a usage or I/O error.
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
    /// Treat warnings as findings for the exit status.
    #[arg(long, value_name = "warnings")]
    deny: Option<Deny>,
    /// Report only murano-pkg-check's codes.
    #[arg(long)]
    pkgcheck_only: bool,
    /// Packages (folders searched recursively, or .zip files) whose classes
    /// the checked packages may use, e.g. Murano's core library. With at
    /// least one, classes used but defined nowhere (M403) and classes from
    /// packages not required (M404) are checked; the packages checked are
    /// part of the catalog too.
    #[arg(long, value_name = "DIR")]
    catalog: Vec<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
    Sarif,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Deny {
    Warnings,
}

struct Checked {
    package: LoadedPackage,
    diagnostics: Vec<Diagnostic>,
}

pub(crate) fn run(args: &CheckArgs) -> ExitCode {
    let mut paths = Vec::new();
    for path in &args.paths {
        if args.recursive {
            paths.extend(find_packages(path));
        } else {
            paths.push(path.clone());
        }
    }
    let mut packages = Vec::new();
    for path in &paths {
        match read_package(path) {
            Ok(p) => packages.push(p),
            Err(e) => {
                eprintln!("murano: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let mut options = CheckOptions::default().with_pkgcheck_only(args.pkgcheck_only);
    if !args.catalog.is_empty() {
        let mut index = ClassIndex::new();
        for dir in &args.catalog {
            for path in find_packages(dir) {
                match read_package(&path) {
                    Ok(p) => {
                        index.add_package(&p.files);
                    }
                    Err(e) => eprintln!("murano: catalog: {e}"),
                }
            }
        }
        for p in &packages {
            index.add_package(&p.files);
        }
        options = options.with_catalog(index);
    }
    let checked = check_all(packages, &options);

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let rendered = match args.format {
        Format::Text => render_text(&checked),
        Format::Json => render_json(&checked),
        Format::Sarif => render_sarif(&checked),
    };
    let _ = out.write_all(rendered.as_bytes());
    let (errors, warnings) =
        checked
            .iter()
            .flat_map(|c| &c.diagnostics)
            .fold((0, 0), |(e, w), d| match d.severity {
                Severity::Error => (e + 1, w),
                Severity::Warning => (e, w + 1),
            });
    eprintln!(
        "checked {} package{}: {errors} error{}, {warnings} warning{}",
        checked.len(),
        if checked.len() == 1 { "" } else { "s" },
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" },
    );
    if errors > 0 || (warnings > 0 && args.deny == Some(Deny::Warnings)) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Checks packages on every core; a progress line on a terminal when the
/// work is long.
fn check_all(packages: Vec<LoadedPackage>, options: &CheckOptions) -> Vec<Checked> {
    let total = packages.len();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(total.max(1));
    let show_progress = total > 20 && std::io::stderr().is_terminal();
    let queue = std::sync::Mutex::new(packages.into_iter().enumerate().collect::<Vec<_>>());
    let done = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<(usize, Checked)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let next = queue.lock().map(|mut q| q.pop()).unwrap_or(None);
                        let Some((i, package)) = next else { break };
                        let diagnostics = check_package(&package.files, options);
                        mine.push((
                            i,
                            Checked {
                                package,
                                diagnostics,
                            },
                        ));
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
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, c)| c).collect()
}

/// Diagnostics as rustc shows them: code, message, location, the source
/// line and a caret (the one renderer of the workspace,
/// `murano_diagnostics::Snippet`), a blank line after each.
fn render_text(checked: &[Checked]) -> String {
    let mut out = String::new();
    for c in checked {
        let path = c.package.path.display().to_string();
        for d in &c.diagnostics {
            let shown = match &d.file {
                Some(file) => format!("{path}/{file}"),
                None => path.clone(),
            };
            let source = d
                .file
                .as_deref()
                .and_then(|file| c.package.files.read(file))
                .map(String::from_utf8_lossy);
            out.push_str(&d.snippet(Some(&shown), source.as_deref()).render());
            out.push_str("\n\n");
        }
    }
    out
}

fn render_json(checked: &[Checked]) -> String {
    let items: Vec<serde_json::Value> = checked
        .iter()
        .flat_map(|c| {
            c.diagnostics.iter().map(move |d| {
                serde_json::json!({
                    "package": c.package.path.display().to_string(),
                    "file": d.file,
                    "line": d.start.map_or(0, |p| p.line),
                    "column": d.start.map_or(0, |p| p.column),
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
        .flat_map(|c| c.diagnostics.iter().map(|d| d.code))
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
            c.diagnostics.iter().map(move |d| {
                let uri = match &d.file {
                    Some(f) => format!("{}/{f}", c.package.path.display()),
                    None => c.package.path.display().to_string(),
                };
                let mut location =
                    serde_json::json!({"physicalLocation": {"artifactLocation": {"uri": uri}}});
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
    let sarif = serde_json::json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {
                "name": "murano",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&sarif).unwrap_or_default();
    text.push('\n');
    text
}
