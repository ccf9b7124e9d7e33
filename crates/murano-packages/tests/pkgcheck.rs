//! `pkgcheck-parity`: every diagnostic murano-pkg-check reports on a
//! package tree of the corpus (`corpus/pkgcheck/…/diagnostics.json`) is
//! reported by `murano_packages::check` too, with the same code (our code
//! for each of its checks is its own code), in the same file and on the
//! same line. Where murano-pkg-check gives no location (`file: null`,
//! line 0) only the code has to match. Differences that
//! `docs/diagnostics.md` lists as intentional (lines
//! `` - `parity-exception <package> <code> <file>:<line>` `` followed by the
//! reason) are accepted.
//!
//! The checker gets a class index of every package of the corpus, so the
//! report also counts the diagnostics we give beyond murano-pkg-check.

use std::collections::BTreeMap;
use std::path::Path;

use murano_packages::check::{check_package, CheckOptions, ClassIndex, Diagnostic};
use murano_packages::source::FileMap;
use murano_testkit::{conclude, read_json, read_jsonl, KnownFailures, Suite};
use serde_json::Value as Json;

fn main() {
    let workspace = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let Some((root, known)) = murano_testkit::conformance_setup(
        env!("CARGO_MANIFEST_DIR"),
        "known-failures-pkgcheck.txt",
    ) else {
        return;
    };
    let exceptions = parity_exceptions(&Path::new(workspace).join("docs/diagnostics.md"));
    let rows = read_jsonl(&root.join("corpus/packages/index.jsonl")).unwrap_or_default();
    let mut trees = Vec::new();
    for row in &rows {
        if row.get("note").is_some() {
            continue; // not a package: no manifest, no murano-pkg-check result
        }
        let package = row["package"].as_str().unwrap_or_default().to_owned();
        match murano_testkit::read_listed_files(&root.join("corpus").join(&package), row) {
            Ok(files) => trees.push((package, Ok(files))),
            Err(e) => trees.push((package, Err(e))),
        }
    }
    let mut index = ClassIndex::new();
    for (_, files) in &trees {
        if let Ok(files) = files {
            index.add_package(files);
        }
    }
    let options = CheckOptions::default().with_catalog(index);
    let mut suite = Suite::new("pkgcheck-parity", &known);
    let mut extra: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut matched_total = 0usize;
    // PKGCHECK_VERBOSE=1 lists every diagnostic beyond murano-pkg-check.
    let verbose = std::env::var_os("PKGCHECK_VERBOSE").is_some();
    for (package, files) in &trees {
        let relative = package.trim_start_matches("packages/");
        let oracle = read_json(
            &root
                .join("corpus/pkgcheck")
                .join(relative)
                .join("diagnostics.json"),
        );
        let result = match (files, oracle) {
            (Err(e), _) => Err(e.clone()),
            (_, Err(_)) => continue, // no murano-pkg-check result for this tree
            (Ok(files), Ok(oracle)) => {
                let ours = check_package(files, &options);
                let (result, unmatched, matched) = compare(package, &oracle, &ours, &exceptions);
                matched_total += matched;
                for d in unmatched {
                    if verbose {
                        println!("  extra {package}: {d}");
                    }
                    *extra.entry(d.code).or_default() += 1;
                }
                result
            }
        };
        suite.record(package, result);
    }
    let outcome = suite.finish();
    let robust = robustness(&root);
    let mut report = outcome;
    report.report.push_str(&format!(
        "  murano-pkg-check diagnostics matched: {matched_total}\n  diagnostics beyond murano-pkg-check, per code:"
    ));
    if extra.is_empty() {
        report.report.push_str(" none");
    }
    for (code, n) in &extra {
        report.report.push_str(&format!("\n    {code}: {n}"));
    }
    report.report.push('\n');
    conclude(vec![report, robust.finish()]);
}

/// `(package, code, file, line)` that docs/diagnostics.md accepts as
/// intentional differences.
type Exception = (String, String, String, u64);

fn parity_exceptions(docs: &Path) -> Vec<Exception> {
    let text = std::fs::read_to_string(docs).unwrap_or_default();
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("- `parity-exception ") else {
            continue;
        };
        let Some((spec, _reason)) = rest.split_once('`') else {
            continue;
        };
        let parts: Vec<&str> = spec.split_whitespace().collect();
        if let [package, code, at] = parts[..] {
            let (file, line) = at.rsplit_once(':').unwrap_or((at, "0"));
            out.push((
                package.to_owned(),
                code.to_owned(),
                file.to_owned(),
                line.parse().unwrap_or(0),
            ));
        }
    }
    out
}

/// Matches murano-pkg-check's diagnostics against ours: the result, our
/// diagnostics left over, and how many matched.
fn compare<'a>(
    package: &str,
    oracle: &Json,
    ours: &'a [Diagnostic],
    exceptions: &[Exception],
) -> (Result<(), String>, Vec<&'a Diagnostic>, usize) {
    let mut used = vec![false; ours.len()];
    let mut missing = Vec::new();
    let mut matched = 0;
    let theirs = oracle["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // Located ones first, so that an unlocated one cannot take their match.
    let mut order: Vec<&Json> = theirs.iter().collect();
    order.sort_by_key(|d| d["file"].is_null());
    for d in order {
        let code = d["code"].as_str().unwrap_or_default();
        let file = d["file"].as_str();
        let line = d["line"].as_u64().unwrap_or(0);
        let found = ours.iter().enumerate().position(|(i, o)| {
            !used[i]
                && o.code == code
                && match file {
                    None => true,
                    Some(f) => {
                        o.file.as_deref() == Some(f)
                            && o.start.map_or(0, |p| u64::from(p.line)) == line
                    }
                }
        });
        match found {
            Some(i) => {
                used[i] = true;
                matched += 1;
            }
            None => {
                let excused = exceptions.iter().any(|(p, c, f, l)| {
                    p == package && c == code && file.unwrap_or("-") == f && *l == line
                });
                if !excused {
                    missing.push(format!(
                        "{code} {}:{line} {:?}",
                        file.unwrap_or("-"),
                        d["message"].as_str().unwrap_or_default()
                    ));
                }
            }
        }
    }
    let unmatched = ours
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(d, _)| d)
        .collect();
    let result = if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("not reported: {}", missing.join("; ")))
    };
    (result, unmatched, matched)
}

/// `pkgcheck-robustness`: every class and UI file of the corpus (quirks
/// included), dropped into a package, is checked without a panic.
fn robustness(root: &Path) -> Suite {
    let mut suite = Suite::new("pkgcheck-robustness", &KnownFailures::default());
    for (dir, target) in [
        ("corpus/class", "Classes/X.yaml"),
        ("corpus/quirks/class", "Classes/X.yaml"),
        ("corpus/ui", "UI/ui.yaml"),
        ("corpus/quirks/ui", "UI/ui.yaml"),
    ] {
        let paths = murano_testkit::files_ending(&root.join(dir), ".yaml");
        let mut checked = 0usize;
        let mut failures = Vec::new();
        for path in paths {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let mut files = FileMap::new();
            let manifest = b"FullName: x.y\nType: Library\nDescription: d\n".to_vec();
            if files.insert("manifest.yaml", manifest).is_err()
                || files.insert(target, bytes).is_err()
            {
                continue;
            }
            let run = std::panic::catch_unwind(|| check_package(&files, &CheckOptions::default()));
            checked += 1;
            if run.is_err() {
                failures.push(path.display().to_string());
            }
        }
        let result = if failures.is_empty() {
            Ok(())
        } else {
            Err(format!("panics on {}", failures.join(", ")))
        };
        suite.record(&format!("{dir} ({checked} files)"), result);
    }
    suite
}
