//! Plumbing for the conformance tests of the murano crates.
//!
//! The expected results live outside the repository, in the shared data
//! root (`$MURANO_SHARED`, by default `../shared` beside the workspace).
//! A conformance test binary (`harness = false`) loads cases from there,
//! runs them, and reports through a [`Suite`]: one line
//! `conformance <suite>: P/T passed`, then the failures. Failures that are
//! understood are listed in a checked-in known-failures file; any other
//! failure, and any listed case that now passes, makes the run fail.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub mod deploy_case;
pub mod engine_replay;
pub mod fuzz;
pub mod oracle;
pub mod plain_fast_path;

/// The seed of the property tests unless `PROPTEST_RNG_SEED` says
/// otherwise.
const PROPTEST_SEED: u64 = 0x6d75_7261_6e6f;

/// The configuration of the workspace's property tests: `cases` cases
/// from a fixed seed, so that `cargo test` (and CI) explores the same
/// inputs on every run; set `PROPTEST_RNG_SEED=<n>` to explore another
/// seed, or to any other value (`random`) for a random one.
/// No failure files are written: a failure prints its shrunk input.
pub fn proptest_config(cases: u32) -> proptest::test_runner::Config {
    use proptest::test_runner::{Config, RngSeed};
    let rng_seed = match std::env::var("PROPTEST_RNG_SEED") {
        Ok(seed) => seed.parse().map(RngSeed::Fixed).unwrap_or(RngSeed::Random),
        Err(_) => RngSeed::Fixed(PROPTEST_SEED),
    };
    Config {
        cases,
        rng_seed,
        failure_persistence: None,
        ..Config::default()
    }
}

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;

/// Each library crate's README examples, compiled and run as doctests.
#[cfg(doctest)]
pub mod crate_readmes {
    /// `murano-diagnostics/README.md`.
    #[doc = include_str!("../../murano-diagnostics/README.md")]
    pub struct Diagnostics;
    /// `murano-yaql/README.md`.
    #[doc = include_str!("../../murano-yaql/README.md")]
    pub struct Yaql;
    /// `murano-yaml/README.md`.
    #[doc = include_str!("../../murano-yaml/README.md")]
    pub struct Yaml;
    /// `murano-dsl/README.md`.
    #[doc = include_str!("../../murano-dsl/README.md")]
    pub struct Dsl;
    /// `murano-ui/README.md`.
    #[doc = include_str!("../../murano-ui/README.md")]
    pub struct Ui;
    /// `murano-packages/README.md`.
    #[doc = include_str!("../../murano-packages/README.md")]
    pub struct Packages;
    /// `murano-engine/README.md`.
    #[doc = include_str!("../../murano-engine/README.md")]
    pub struct Engine;
    /// `murano-hot/README.md`.
    #[doc = include_str!("../../murano-hot/README.md")]
    pub struct Hot;
    /// `murano-schema/README.md`.
    #[doc = include_str!("../../murano-schema/README.md")]
    pub struct Schema;
}

/// The start of every conformance test binary: the shared data root (see
/// [`data_root`]; `None` when it is absent) and the crate's known failures
/// from `<manifest_dir>/tests/<known_file>`. Pass
/// `env!("CARGO_MANIFEST_DIR")`; an unreadable known-failures file panics.
pub fn conformance_setup(manifest_dir: &str, known_file: &str) -> Option<(PathBuf, KnownFailures)> {
    let root = data_root(&format!("{manifest_dir}/../.."))?;
    let known = KnownFailures::load(&Path::new(manifest_dir).join("tests").join(known_file))
        .unwrap_or_else(|e| panic!("{e}"));
    Some((root, known))
}

/// The shared data root, or `None` (after saying so on stdout) when it is
/// absent. `workspace_dir` is the workspace root, usually
/// `concat!(env!("CARGO_MANIFEST_DIR"), "/../..")`.
pub fn data_root(workspace_dir: &str) -> Option<PathBuf> {
    let root = match std::env::var_os("MURANO_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(workspace_dir).join("..").join("shared"),
    };
    if root.is_dir() {
        Some(root)
    } else {
        println!(
            "conformance data not found at {} (set MURANO_SHARED); skipping",
            root.display()
        );
        None
    }
}

/// Reads a JSON Lines file, keeping object key order.
pub fn read_jsonl(path: &Path) -> Result<Vec<serde_json::Value>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// Reads one JSON file.
pub fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Every file and directory under `root`, relative to it, as a package.
pub fn read_package_dir(root: &Path) -> Result<murano_packages::source::FileMap, String> {
    let mut files = murano_packages::source::FileMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .map_err(|e| e.to_string())?
            .flatten()
        {
            let path = entry.path();
            let rel = path.strip_prefix(root).map_err(|e| e.to_string())?;
            let rel = rel.to_string_lossy().replace('\\', "/");
            if path.is_dir() {
                files.insert_dir(&rel).map_err(|e| e.to_string())?;
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
                files.insert(&rel, bytes).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(files)
}

/// The files a corpus index row lists (`row["files"][i]["path"]`), read
/// from `dir`, as a package.
pub fn read_listed_files(
    dir: &Path,
    row: &serde_json::Value,
) -> Result<murano_packages::source::FileMap, String> {
    let mut files = murano_packages::source::FileMap::new();
    for file in row["files"].as_array().into_iter().flatten() {
        let path = file["path"].as_str().unwrap_or_default();
        let bytes = std::fs::read(dir.join(path)).map_err(|e| format!("{path}: {e}"))?;
        files.insert(path, bytes).map_err(|e| e.to_string())?;
    }
    Ok(files)
}

/// A `packages-oracle` case's package: its `input/` folder plus the stub
/// files and empty directories its `case.json` lists.
pub fn oracle_case_files(
    case_dir: &Path,
    case: &serde_json::Value,
) -> Result<murano_packages::source::FileMap, String> {
    let mut files = read_package_dir(&case_dir.join("input"))?;
    for stub in case["stub_files"].as_array().into_iter().flatten() {
        if let Some(p) = stub.as_str() {
            files.insert(p, Vec::new()).map_err(|e| e.to_string())?;
        }
    }
    for dir in case["empty_dirs"].as_array().into_iter().flatten() {
        if let Some(p) = dir.as_str() {
            files.insert_dir(p).map_err(|e| e.to_string())?;
        }
    }
    Ok(files)
}

/// Every file below `dir`, with its path relative to `dir` (`/`
/// separators), sorted; unreadable folders are skipped.
pub fn files_below(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for path in rd.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(rel) = path.strip_prefix(dir) {
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, path));
            }
        }
    }
    out.sort();
    out
}

/// The files of `dir` whose names end with `suffix`, sorted.
pub fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.to_str().is_some_and(|s| s.ends_with(suffix)))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The known-failures file: lines `<suite> <case-id> <reason…>`; blank
/// lines and lines starting with `#` are ignored.
#[derive(Debug, Default)]
pub struct KnownFailures {
    by_suite: BTreeMap<String, BTreeMap<String, String>>,
}

impl KnownFailures {
    /// Loads the file; a missing file lists nothing.
    pub fn load(path: &Path) -> Result<KnownFailures, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let mut known = KnownFailures::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.splitn(3, char::is_whitespace);
            let (Some(suite), Some(id), Some(reason)) = (parts.next(), parts.next(), parts.next())
            else {
                return Err(format!(
                    "{}:{}: expected `<suite> <case-id> <reason>`",
                    path.display(),
                    n + 1
                ));
            };
            known
                .by_suite
                .entry(suite.to_owned())
                .or_default()
                .insert(id.to_owned(), reason.trim().to_owned());
        }
        Ok(known)
    }

    fn suite(&self, suite: &str) -> BTreeMap<String, String> {
        self.by_suite.get(suite).cloned().unwrap_or_default()
    }
}

/// Results of one suite.
#[derive(Debug)]
pub struct Suite {
    name: String,
    known: BTreeMap<String, String>,
    total: usize,
    passed: usize,
    failures: Vec<(String, String)>,
    seen: BTreeSet<String>,
}

/// How a finished suite went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The report to print: the `conformance` line, then details.
    pub report: String,
    /// False when an unlisted case failed or a listed case passed.
    pub ok: bool,
}

impl Suite {
    /// A suite whose known failures come from `known`.
    pub fn new(name: &str, known: &KnownFailures) -> Suite {
        Suite {
            name: name.to_owned(),
            known: known.suite(name),
            total: 0,
            passed: 0,
            failures: Vec::new(),
            seen: BTreeSet::new(),
        }
    }

    /// Records a case. `result` is `Err(reason)` for a failure.
    pub fn record(&mut self, id: &str, result: Result<(), String>) {
        self.total += 1;
        self.seen.insert(id.to_owned());
        match result {
            Ok(()) => self.passed += 1,
            Err(why) => self.failures.push((id.to_owned(), why)),
        }
    }

    /// Finishes the suite: the report and whether it meets the bar.
    pub fn finish(self) -> Outcome {
        let mut report = format!(
            "conformance {}: {}/{} passed\n",
            self.name, self.passed, self.total
        );
        let mut ok = true;
        let mut listed = 0;
        for (id, why) in &self.failures {
            if self.known.contains_key(id) {
                listed += 1;
                continue;
            }
            ok = false;
            let why = why.replace('\n', "\\n");
            let _ = writeln!(report, "  FAIL {id}: {why}");
        }
        if listed > 0 {
            let _ = writeln!(report, "  ({listed} listed as known failures)");
        }
        let failed: BTreeSet<&String> = self.failures.iter().map(|(id, _)| id).collect();
        for id in self.known.keys() {
            if self.seen.contains(id) && !failed.contains(id) {
                ok = false;
                let _ = writeln!(report, "  NOW PASSES (remove from known failures): {id}");
            }
        }
        Outcome { report, ok }
    }
}

/// Prints every outcome and exits non-zero if any missed its bar.
pub fn conclude(outcomes: Vec<Outcome>) {
    let mut ok = true;
    for outcome in outcomes {
        print!("{}", outcome.report);
        ok &= outcome.ok;
    }
    if !ok {
        println!("conformance: unlisted failures or stale known-failure entries (see above)");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_failures_pass_and_stale_entries_fail() {
        let mut known = KnownFailures::default();
        known
            .by_suite
            .entry("s".into())
            .or_default()
            .insert("a".into(), "why".into());
        let mut suite = Suite::new("s", &known);
        suite.record("a", Err("boom".into()));
        suite.record("b", Ok(()));
        let outcome = suite.finish();
        assert!(outcome.ok);
        assert!(outcome.report.starts_with("conformance s: 1/2 passed\n"));

        let mut suite = Suite::new("s", &known);
        suite.record("a", Ok(()));
        assert!(!suite.finish().ok);

        let mut suite = Suite::new("s", &known);
        suite.record("c", Err("new".into()));
        assert!(!suite.finish().ok);
    }
}
