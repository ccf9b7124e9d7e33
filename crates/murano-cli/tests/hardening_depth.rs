//! Issue 38, items 1 and 15, as `murano run`, `test` and `deploy
//! --dry-run` see them: recursion through property defaults and
//! contracts ends with the call-depth error (exit 1), not a stack
//! overflow; an exception in `.destroy` is reported as a warning while
//! the run keeps its result, as Murano logs it.

use std::process::Output;

mod common;
use common::{core_library, s, text, with_core, Scratch};

const LOOPS: &str = r#"
Namespaces:
  =: demo
  std: io.murano
Name: Loop
Extends: std:Application
Properties:
  p:
    Contract: $.class(Loop)
    Default: {}
Methods:
  deploy:
    Body:
      - Return: 1
---
Namespaces:
  =: demo
  std: io.murano
Name: Cases
Extends: std:Application
Methods:
  viaTemplate:
    Body:
      - Return: new(Templated)
---
Namespaces:
  =: demo
  tst: io.murano.test
Name: LoopTests
Extends: tst:TestFixture
Methods:
  testLoop:
    Body:
      - $x: new(Loop)
---
Namespaces:
  =: demo
Name: Templated
Properties:
  p:
    Contract: $.template(Templated)
    Default: {}
"#;

fn assert_depth_error(out: &Output, what: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {err}");
    assert!(err.contains("call depth exceeds"), "{what}: {err}");
    assert!(!err.contains("overflow"), "{what}: {err}");
}

/// Item 1: a level of recursion that nests a 190-deep expression takes
/// far more stack than the call depth counts (32 such levels overflowed
/// the 8 MiB main thread of a debug build): the stack budget ends it
/// with an error, exit 1, no overflow.
#[test]
fn recursion_through_deep_expressions_ends_within_the_stack() {
    let Some(core) = core_library() else { return };
    let dir = Scratch::new("demo.deep");
    let deep = format!("{}$.recurseDeep(){}", "abs(".repeat(190), ")".repeat(190));
    let classes = format!(
        "Namespaces:\n  =: demo\nName: Deep\nMethods:\n  recurseDeep:\n    Scope: Public\n    Body:\n      - Return: {deep}\n"
    );
    let pkg = dir.package("demo.deep", &["demo.Deep"], &classes);
    let out = with_core(&["run", s(&pkg), "demo.Deep.recurseDeep"], &core);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("call depth exceeds") || err.contains("Recursion"),
        "{err}"
    );
    assert!(!err.contains("overflow"), "{err}");
}

/// Item 1: recursion through a property's class() or template() contract
/// and default is the call-depth error in run, test and deploy.
#[test]
fn recursion_through_contract_defaults_is_a_depth_error() {
    let Some(core) = core_library() else { return };
    let dir = Scratch::new("demo.loops");
    let pkg = dir.package(
        "demo.loops",
        &[
            "demo.Loop",
            "demo.Cases",
            "demo.Templated",
            "demo.LoopTests",
        ],
        LOOPS,
    );
    let out = with_core(&["run", s(&pkg), "demo.Loop.deploy"], &core);
    assert_depth_error(&out, "run class()");
    let out = with_core(&["run", s(&pkg), "demo.Cases.viaTemplate"], &core);
    assert_depth_error(&out, "run template()");
    // The call-depth error points into the package: file and line.
    assert!(
        text(&out.stderr).contains("classes.yaml"),
        "{}",
        text(&out.stderr)
    );

    let out = with_core(
        &["test", s(&pkg), "--filter", "demo.LoopTests.testLoop"],
        &core,
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("call depth exceeds"), "{stdout}");

    let model =
        std::env::temp_dir().join(format!("murano-depth-model-{}.json", std::process::id()));
    std::fs::write(
        &model,
        r#"{"Objects": {"?": {"type": "io.murano.Environment", "id": "env"}, "name": "e",
            "applications": [{"?": {"type": "demo.Loop", "id": "app"}}]}}"#,
    )
    .unwrap();
    let out = with_core(
        &[
            "deploy",
            "--dry-run",
            model.to_str().unwrap(),
            "--catalog",
            s(&pkg),
        ],
        &core,
    );
    let _ = std::fs::remove_file(&model);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("call depth exceeds"), "{all}");
}

const DESTROY: &str = r#"
Namespaces:
  =: demo
  std: io.murano
  sys: io.murano.system
Name: Thrower
Methods:
  .destroy:
    Body:
      - Throw: demo.Broken
        Message: cannot destroy
---
Namespaces:
  =: demo
  std: io.murano
  sys: io.murano.system
Name: Main
Methods:
  go:
    Body:
      - $o: new(Thrower)
      - $o: null
      - sys:GC.collect()
      - Return: done
---
Namespaces:
  =: demo
  tst: io.murano.test
Name: MainTests
Extends: tst:TestFixture
Methods:
  testGo:
    Body:
      - new(Main).go()
"#;

/// Item 15: Murano mutes an exception of `.destroy` and logs a warning
/// with its traceback; the run keeps its result (exit 0) and prints it.
#[test]
fn an_exception_in_destroy_is_a_warning() {
    let Some(core) = core_library() else { return };
    let dir = Scratch::new("demo.destroy");
    let pkg = dir.package(
        "demo.destroy",
        &["demo.Thrower", "demo.Main", "demo.MainTests"],
        DESTROY,
    );
    let out = with_core(&["run", s(&pkg), "demo.Main.go"], &core);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(text(&out.stdout).contains("done"));
    assert!(
        err.contains("warning: Muted exception during execution of .destroy on demo.Thrower"),
        "{err}"
    );
    assert!(err.contains("cannot destroy"), "{err}");
    let out = with_core(
        &["test", s(&pkg), "--filter", "demo.MainTests.testGo"],
        &core,
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("demo.MainTests.testGo: Muted exception during execution of .destroy"),
        "{err}"
    );
}
