//! `murano test` and `murano run` on the bundled examples and on scratch
//! packages, with Murano's core library from the shared data (skipped
//! when it is absent). Outputs are compared with golden files in
//! tests/golden/ (UPDATE_GOLDEN=1 rewrites them; review the diff).

use std::path::PathBuf;

mod common;
use common::{core_library, golden, s, scrub, text, with_core, workspace, Scratch};

fn greetings() -> PathBuf {
    workspace().join("examples/packages/greetings")
}

#[test]
fn test_runs_the_bundled_examples_tests() {
    let Some(core) = core_library() else { return };
    let g = greetings();
    let out = with_core(&["test", g.to_str().unwrap()], &core);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    golden("test-greetings.txt", &text(&out.stdout));
    let out = with_core(&["test", g.to_str().unwrap(), "--format", "junit"], &core);
    assert_eq!(out.status.code(), Some(0));
    golden("test-greetings.junit.xml", &text(&out.stdout));
    // Murano's filters.
    let out = with_core(
        &[
            "test",
            g.to_str().unwrap(),
            "--filter",
            "testGreeting",
            "--format",
            "json",
        ],
        &core,
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["passed"], 1);
    assert_eq!(
        doc["packages"][0]["tests"][0]["name"],
        "com.example.GreeterTests.testGreeting"
    );
    let out = with_core(
        &[
            "test",
            g.to_str().unwrap(),
            "--filter",
            "com.example.Nope.testX",
        ],
        &core,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no tests found"),
        "{}",
        text(&out.stderr)
    );
}

const FAILING: &str = r#"
Namespaces: {=: demo, tst: io.murano.test}
Name: Tests
Extends: tst:TestFixture
Methods:
  check:
    Arguments: [{n: {Contract: $.int()}}]
    Body:
      - $log: logger(demo)
      - $log.info('checking {0}', $n)
      - $.assertEqual(2, $n)
  testPasses:
    Body:
      - $.check(2)
  testFails:
    Body:
      - $.check(3)
---
Namespaces: {=: demo, tst: io.murano.test}
Name: BrokenSetUp
Extends: tst:TestFixture
Methods:
  setUp:
    Body:
      - Throw: SetUpFailed
        Message: no database
  testNeverRuns:
    Body:
"#;

#[test]
fn failures_print_traces_and_the_run_goes_on_after_a_set_up_error() {
    let Some(core) = core_library() else { return };
    let dir = Scratch::new("demo.failing");
    let pkg = dir.package("demo.failing", &["demo.Tests", "demo.BrokenSetUp"], FAILING);
    let out = with_core(&["test", s(&pkg)], &core);
    assert_eq!(out.status.code(), Some(1));
    golden("test-failing.txt", &scrub(&text(&out.stdout), &pkg));
    let out = with_core(&["test", s(&pkg), "--format", "junit"], &core);
    golden("test-failing.junit.xml", &text(&out.stdout));
    let out = with_core(&["test", s(&pkg), "--format", "json"], &core);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tests = doc["packages"][0]["tests"].as_array().unwrap();
    let failing = tests.iter().find(|t| t["method"] == "testFails").unwrap();
    let frames = failing["failure"]["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[0]["method"], "testFails");
    assert_eq!(frames[1]["method"], "check");
    assert_eq!(frames[1]["line"], 11);
}

#[test]
fn run_prints_the_result_as_json_and_traces_on_stderr() {
    let Some(core) = core_library() else { return };
    let g = greetings();
    let out = with_core(
        &[
            "run",
            g.to_str().unwrap(),
            "com.example.Greeter.farewell",
            "--arg",
            "name=Ann",
            "--arg",
            "times=2",
        ],
        &core,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    golden("run-farewell.json", &text(&out.stdout));
    let dir = Scratch::new("demo.run");
    let pkg = dir.package("demo.run", &["demo.Tests"], FAILING);
    // Logger output to stderr; the uncaught exception's trace too.
    let out = with_core(&["run", s(&pkg), "demo.Tests.check", "--arg", "n=5"], &core);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    golden("run-error.txt", &text(&out.stderr));
    // A model: the method runs on the model's object.
    let model = pkg.join("model.json");
    std::fs::write(
        &model,
        r#"{"Objects": {"?": {"type": "demo.Tests", "id": "t1"}}}"#,
    )
    .unwrap();
    let out = with_core(
        &[
            "run",
            s(&pkg),
            "demo.Tests.check",
            "--model",
            model.to_str().unwrap(),
            "--arg",
            "n=2",
        ],
        &core,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "null\n");
    assert_eq!(text(&out.stderr), "info demo: checking 2\n");
    // Usage errors.
    let out = with_core(&["run", s(&pkg), "nodot"], &core);
    assert_eq!(out.status.code(), Some(2));
    let out = with_core(&["run", s(&pkg), "demo.Nope.m"], &core);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_filter_that_selects_no_test_exits_1_with_a_message() {
    let Some(core) = core_library() else { return };
    let g = greetings();
    // A method name no test class has, and a class that is not a test
    // class: both select nothing.
    for filter in ["testNoSuchMethod", "com.example.NoSuchClass"] {
        let out = with_core(&["test", g.to_str().unwrap(), "--filter", filter], &core);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{filter}: {stdout}{stderr}");
        assert!(!stdout.contains("running 0 tests"), "{filter}: {stdout}");
        assert!(stderr.contains("no tests found"), "{filter}: {stderr}");
        assert!(stderr.contains(filter), "{filter}: {stderr}");
    }
}
