//! `murano test` and `murano run` on the bundled examples and on scratch
//! packages, with Murano's core library from the shared data (skipped
//! when it is absent). Outputs are compared with golden files in
//! tests/golden/ (UPDATE_GOLDEN=1 rewrites them; review the diff).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn greetings() -> PathBuf {
    workspace().join("examples/packages/greetings")
}

/// The core library of the shared data, `None` (skip) when absent.
fn core() -> Option<PathBuf> {
    let shared = std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared"));
    let core = shared.join("conformance/engine/meta/io.murano");
    if core.is_dir() {
        Some(core)
    } else {
        eprintln!("shared core library absent: skipping");
        None
    }
}

fn murano(args: &[&str], core: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_murano"))
        .args(args)
        .arg("--catalog")
        .arg(core)
        .env_remove("MURANO_CATALOG")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Replaces a path prefix so golden files do not depend on the machine.
fn scrub(s: &str, path: &Path) -> String {
    s.replace(&path.display().to_string(), "<dir>")
}

fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(actual, expected, "output differs from tests/golden/{name}");
}

/// A scratch package removed at the end of the test.
struct Scratch(PathBuf);

impl Scratch {
    fn package(name: &str, classes: &[(&str, &str)], yaml: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("murano-engine-cmd-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("Classes")).unwrap();
        let mut manifest = format!(
            "Format: MuranoPL/1.4\nType: Application\nFullName: {name}\nName: {name}\nClasses:\n"
        );
        for (class, file) in classes {
            manifest.push_str(&format!("  {class}: {file}\n"));
        }
        std::fs::write(dir.join("manifest.yaml"), manifest).unwrap();
        std::fs::write(dir.join("Classes/classes.yaml"), yaml).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn test_runs_the_bundled_examples_tests() {
    let Some(core) = core() else { return };
    let g = greetings();
    let out = murano(&["test", g.to_str().unwrap()], &core);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    golden("test-greetings.txt", &text(&out.stdout));
    let out = murano(&["test", g.to_str().unwrap(), "--format", "junit"], &core);
    assert_eq!(out.status.code(), Some(0));
    golden("test-greetings.junit.xml", &text(&out.stdout));
    // Murano's filters.
    let out = murano(
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
    let out = murano(
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
    let Some(core) = core() else { return };
    let pkg = Scratch::package(
        "demo.failing",
        &[
            ("demo.Tests", "classes.yaml"),
            ("demo.BrokenSetUp", "classes.yaml"),
        ],
        FAILING,
    );
    let out = murano(&["test", pkg.0.to_str().unwrap()], &core);
    assert_eq!(out.status.code(), Some(1));
    golden("test-failing.txt", &scrub(&text(&out.stdout), &pkg.0));
    let out = murano(
        &["test", pkg.0.to_str().unwrap(), "--format", "junit"],
        &core,
    );
    golden("test-failing.junit.xml", &text(&out.stdout));
    let out = murano(
        &["test", pkg.0.to_str().unwrap(), "--format", "json"],
        &core,
    );
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
    let Some(core) = core() else { return };
    let g = greetings();
    let out = murano(
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
    let pkg = Scratch::package("demo.run", &[("demo.Tests", "classes.yaml")], FAILING);
    // Logger output to stderr; the uncaught exception's trace too.
    let out = murano(
        &[
            "run",
            pkg.0.to_str().unwrap(),
            "demo.Tests.check",
            "--arg",
            "n=5",
        ],
        &core,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    golden("run-error.txt", &text(&out.stderr));
    // A model: the method runs on the model's object.
    let model = pkg.0.join("model.json");
    std::fs::write(
        &model,
        r#"{"Objects": {"?": {"type": "demo.Tests", "id": "t1"}}}"#,
    )
    .unwrap();
    let out = murano(
        &[
            "run",
            pkg.0.to_str().unwrap(),
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
    let out = murano(&["run", pkg.0.to_str().unwrap(), "nodot"], &core);
    assert_eq!(out.status.code(), Some(2));
    let out = murano(&["run", pkg.0.to_str().unwrap(), "demo.Nope.m"], &core);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_filter_that_selects_no_test_exits_1_with_a_message() {
    let Some(core) = core() else { return };
    let g = greetings();
    // A method name no test class has, and a class that is not a test
    // class: both select nothing.
    for filter in ["testNoSuchMethod", "com.example.NoSuchClass"] {
        let out = murano(&["test", g.to_str().unwrap(), "--filter", filter], &core);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{filter}: {stdout}{stderr}");
        assert!(!stdout.contains("running 0 tests"), "{filter}: {stdout}");
        assert!(stderr.contains("no tests found"), "{filter}: {stderr}");
        assert!(stderr.contains(filter), "{filter}: {stderr}");
    }
}
