//! Conformance of the test runner (suite `test-runner`): what Murano's
//! `murano-test-runner` did on every real package with MuranoPL tests
//! (`conformance/test-runner/`, see its README). One case per recorded
//! invocation (discovery, run set, each test's outcome, error and
//! MuranoPL frames, the about and summary lines, the exit code) and one
//! per test run alone (the per-method ground truth). Runs use Murano's
//! behaviour on `setUp` errors (the run stops there); the human-readable
//! text is not compared.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use murano_engine::testing::{select, Outcome, Phase, RunOptions, RunSet, Runner, TestResult};
use murano_engine::{PackageFiles, StackFrame};
use murano_testkit::{conclude, read_jsonl, Suite};
use serde_json::Value as Json;

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures.txt")
    else {
        return;
    };
    let dir = root.join("conformance/test-runner");
    let cases = read_jsonl(&dir.join("cases.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let mut suite = Suite::new("test-runner", &known);
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?").to_owned();
        let result = run_case(&dir, case);
        suite.record(&id, result.invocation);
        for (name, r) in result.isolated {
            suite.record(&format!("{id}::isolated::{name}"), r);
        }
    }
    conclude(vec![suite.finish()]);
}

struct CaseResult {
    invocation: Result<(), String>,
    isolated: Vec<(String, Result<(), String>)>,
}

/// Every package below the `-l` folders (a folder with a `manifest.yaml`;
/// nothing below a package is searched again), in order.
fn find_packages(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join("manifest.yaml").is_file() {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut subdirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    subdirs.sort();
    for d in subdirs {
        find_packages(&d, out);
    }
}

fn test_package(path: &Path) -> Result<PackageFiles, String> {
    let files = murano_testkit::read_package_dir(path)?;
    PackageFiles::from_source(files).map_err(|e| format!("{}: {e}", path.display()))
}

fn strings(v: &Json) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn run_set_of(v: &Json) -> RunSet {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|e| (e[0].as_str().unwrap_or("").to_owned(), strings(&e[1])))
                .collect()
        })
        .unwrap_or_default()
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

fn run_case(dir: &Path, case: &Json) -> CaseResult {
    let mut isolated = Vec::new();
    let invocation = (|| -> Result<(), String> {
        let mut paths = Vec::new();
        for l in strings(&case["load_packages_from"]) {
            find_packages(&dir.join(l), &mut paths);
        }
        let mut packages = Vec::new();
        for p in &paths {
            packages.push(test_package(p)?);
        }
        let name = case["package"].as_str().unwrap_or("");
        let Some(at) = packages.iter().position(|p| p.name == name) else {
            // Murano: "Specified package is not found", exit code 1.
            return check(case["exit_code"] == 1 && case["run_set"].is_null(), || {
                format!("package {name} not found, but Murano found it")
            });
        };
        let under_test = packages.remove(at);
        packages.insert(0, under_test);
        let options = RunOptions {
            stop_on_setup_error: true,
            ..RunOptions::default()
        };
        let runner = Runner::new(&packages, options).map_err(|e| e.to_string())?;
        // Discovery.
        let d = runner.discovery();
        let expected_fixtures = run_set_of(&case["discovery"]["fixture_classes"]);
        check(d.fixture_classes == expected_fixtures, || {
            format!(
                "fixture classes {:?}, expected {expected_fixtures:?}",
                d.fixture_classes
            )
        })?;
        let expected_others = strings(&case["discovery"]["non_fixture_classes"]);
        check(d.non_fixture_classes == expected_others, || {
            format!(
                "non-fixture classes {:?}, expected {expected_others:?}",
                d.non_fixture_classes
            )
        })?;
        // Per-test ground truth.
        if let Some(list) = case["isolated"].as_array() {
            for t in list {
                let test = &t["test"];
                let class = test["class"].as_str().unwrap_or("");
                let method = test["method"].as_str().unwrap_or("");
                let r = (|| {
                    let run_set =
                        select(d, &[format!("{class}.{method}")]).ok_or("nothing selected")?;
                    compare_run(&runner, &run_set, t, std::slice::from_ref(test), false)
                })();
                isolated.push((format!("{class}.{method}"), r));
            }
        }
        // The invocation.
        let filters = strings(&case["tests_args"]);
        let Some(run_set) = select(d, &filters) else {
            // "No tests found for execution", exit code 1.
            return check(
                run_set_of(&case["run_set"]).is_empty()
                    && case["about_line"].is_null()
                    && case["exit_code"] == 1,
                || format!("no tests selected, Murano selected {}", case["run_set"]),
            );
        };
        let expected = run_set_of(&case["run_set"]);
        let unordered = case["filter_form"].is_null()
            || matches!(
                case["filter_form"].as_str(),
                Some("method" | "two_methods" | "method_absent")
            );
        let mut ours = run_set.clone();
        let mut theirs = expected.clone();
        if unordered {
            ours.sort();
            theirs.sort();
        }
        check(ours == theirs, || {
            format!("run set {run_set:?}, expected {expected:?}")
        })?;
        let expected_tests: Vec<Json> = case["tests"].as_array().cloned().unwrap_or_default();
        if case["filter_form"].is_null() {
            // Unspecified class order: compare each test with its isolated
            // outcome, and the run stopping at the first crash.
            let truth: BTreeMap<String, &Json> = case["isolated"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| (t["name"].as_str().unwrap_or("").to_owned(), &t["test"]))
                .collect();
            let (results, stopped) = runner.run(&run_set, |_| {});
            let mut failed = false;
            for r in &results {
                let t = truth
                    .get(&r.name())
                    .ok_or_else(|| format!("{} not recorded", r.name()))?;
                compare_test(&runner, r, t, None)?;
                failed |= r.outcome == Outcome::Failed;
            }
            let crash = truth.values().any(|t| t["outcome"] == "CRASH");
            check(stopped == crash, || {
                format!("run stopped: {stopped}, Murano's had a crash: {crash}")
            })?;
            let exit = i64::from(failed);
            check(case["exit_code"] == exit, || {
                format!("exit code {exit}, expected {}", case["exit_code"])
            })?;
            let total: usize = run_set.iter().map(|(_, m)| m.len()).sum();
            check(
                case["about_line"] == format!("About to execute {total} tests(s)"),
                || format!("{total} tests, expected {}", case["about_line"]),
            )?;
            return Ok(());
        }
        compare_run(&runner, &run_set, case, &expected_tests, unordered)
    })();
    CaseResult {
        invocation,
        isolated,
    }
}

/// Murano's header: `class.method` then dots up to three past the
/// longest name of the run set.
fn header(run_set: &RunSet, name: &str) -> String {
    let width = 3 + run_set
        .iter()
        .flat_map(|(c, ms)| ms.iter().map(move |m| c.len() + 1 + m.len()))
        .max()
        .unwrap_or(0);
    format!("{name} {} ", ".".repeat(width.saturating_sub(name.len())))
}

/// Runs a run set and compares it with a recorded run (`expected` holds
/// `about_line`, `summary_line`, `exit_code`; `tests` the per-test records).
/// `by_name`: the class order is unspecified, so tests are matched by
/// name rather than by position.
fn compare_run(
    runner: &Runner,
    run_set: &RunSet,
    expected: &Json,
    tests: &[Json],
    by_name: bool,
) -> Result<(), String> {
    let total: usize = run_set.iter().map(|(_, m)| m.len()).sum();
    if let Some(about) = expected["about_line"].as_str() {
        check(
            about == format!("About to execute {total} tests(s)"),
            || format!("{total} tests, expected {about}"),
        )?;
    }
    let (results, stopped) = runner.run(run_set, |_| {});
    check(results.len() == tests.len(), || {
        format!("{} tests ran, expected {}", results.len(), tests.len())
    })?;
    for (i, r) in results.iter().enumerate() {
        let t = if by_name {
            tests
                .iter()
                .find(|t| t["name"] == r.name().as_str())
                .ok_or_else(|| format!("{} ran, Murano did not run it", r.name()))?
        } else {
            &tests[i]
        };
        compare_test(runner, r, t, Some(run_set))?;
    }
    let failed = results
        .iter()
        .filter(|r| r.outcome == Outcome::Failed)
        .count();
    let started = results.iter().filter(|r| r.started()).count();
    let summary = (!stopped).then(|| {
        format!(
            "Executed {started} tests in {{SECONDS}} seconds: {} passed, {failed} failed",
            started - failed
        )
    });
    check(
        expected["summary_line"].as_str().map(str::to_owned) == summary,
        || format!("summary {summary:?}, expected {}", expected["summary_line"]),
    )?;
    let exit = i64::from(failed > 0 || stopped);
    check(expected["exit_code"] == exit, || {
        format!("exit code {exit}, expected {}", expected["exit_code"])
    })?;
    if stopped {
        let first = expected["stderr"]
            .as_str()
            .unwrap_or("")
            .lines()
            .next()
            .unwrap_or("");
        let r = results.last().ok_or("stopped without a test")?;
        let (_, e) = r.failure.as_ref().ok_or("stopped without a failure")?;
        let ours = format!(
            "Command failed: [{}]: {}",
            e.murano_names().join(", "),
            e.message
        );
        check(first == ours, || {
            format!("stderr {ours:?}, expected {first:?}")
        })?;
    }
    Ok(())
}

fn compare_test(
    runner: &Runner,
    r: &TestResult,
    t: &Json,
    run_set: Option<&RunSet>,
) -> Result<(), String> {
    let name = r.name();
    check(t["name"] == name.as_str(), || {
        format!("ran {name}, expected {}", t["name"])
    })?;
    if let (Some(rs), Some(h)) = (run_set, t["header"].as_str()) {
        let ours = header(rs, &name);
        check(ours == h, || {
            format!("{name}: header {ours:?}, expected {h:?}")
        })?;
    }
    let outcome = match &r.failure {
        None => "OK",
        Some((Phase::Init | Phase::SetUp, _)) => "CRASH",
        Some(_) => "FAIL",
    };
    check(t["outcome"] == outcome, || {
        let why = r
            .failure
            .as_ref()
            .map(|(p, e)| format!(" ({} in {}: {:?})", e, p.as_str(), e.frames))
            .unwrap_or_default();
        format!("{name}: {outcome}{why}, expected {}", t["outcome"])
    })?;
    let calls = strings(&t["calls"]);
    check(r.calls == calls, || {
        format!("{name}: calls {:?}, expected {calls:?}", r.calls)
    })?;
    let Some((phase, e)) = &r.failure else {
        return Ok(());
    };
    let f = &t["failure"];
    check(f["phase"] == phase.as_str(), || {
        format!(
            "{name}: failed in {}, expected {}",
            phase.as_str(),
            f["phase"]
        )
    })?;
    if f["cloud_bound"] != true {
        let names = strings(&f["names"]);
        check(e.murano_names() == names, || {
            format!("{name}: names {:?}, expected {names:?}", e.murano_names())
        })?;
        check(f["message"] == e.message.as_str(), || {
            format!("{name}: message {:?}, expected {}", e.message, f["message"])
        })?;
    }
    let ours: Vec<Json> = e
        .frames
        .iter()
        .rev()
        .map(|fr| frame_json(runner, fr))
        .collect();
    let theirs: Vec<Json> = f["frames"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|fr| {
            let mut m = serde_json::Map::new();
            for k in ["package", "file", "line", "column", "method", "class"] {
                m.insert(k.to_owned(), fr[k].clone());
            }
            Json::Object(m)
        })
        .collect();
    check(ours == theirs, || {
        format!(
            "{name}: frames {}, expected {}",
            Json::Array(ours.clone()),
            Json::Array(theirs.clone())
        )
    })
}

fn frame_json(runner: &Runner, f: &StackFrame) -> Json {
    if f.is_unknown() {
        return serde_json::json!({"package": null, "file": null, "line": null, "column": null, "method": null, "class": null});
    }
    serde_json::json!({
        "package": runner.package_of(&f.class),
        "file": f.file,
        "line": f.line,
        "column": f.column,
        "method": f.method,
        "class": f.class,
    })
}
