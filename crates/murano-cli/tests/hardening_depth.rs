//! Issue 38, items 1 and 15, as `murano run`, `test` and `deploy
//! --dry-run` see them: recursion through property defaults and
//! contracts ends with the call-depth error (exit 1), not a stack
//! overflow; an exception in `.destroy` is reported as a warning while
//! the run keeps its result, as Murano logs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The core library of the shared data, `None` (skip) when absent.
fn core() -> Option<PathBuf> {
    let shared = std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
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

/// A scratch package removed at the end of the test.
struct Scratch(PathBuf);

impl Scratch {
    fn package(name: &str, classes: &[&str], yaml: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("murano-depth-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("Classes")).unwrap();
        let mut manifest = format!(
            "Format: MuranoPL/1.4\nType: Application\nFullName: {name}\nName: {name}\nClasses:\n"
        );
        for class in classes {
            manifest.push_str(&format!("  {class}: classes.yaml\n"));
        }
        std::fs::write(dir.join("manifest.yaml"), manifest).unwrap();
        std::fs::write(dir.join("Classes/classes.yaml"), yaml).unwrap();
        Scratch(dir)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

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

/// Item 1: recursion through a property's class() or template() contract
/// and default is the call-depth error in run, test and deploy.
#[test]
fn recursion_through_contract_defaults_is_a_depth_error() {
    let Some(core) = core() else { return };
    let pkg = Scratch::package(
        "demo.loops",
        &[
            "demo.Loop",
            "demo.Cases",
            "demo.Templated",
            "demo.LoopTests",
        ],
        LOOPS,
    );
    let out = murano(&["run", pkg.path(), "demo.Loop.deploy"], &core);
    assert_depth_error(&out, "run class()");
    let out = murano(&["run", pkg.path(), "demo.Cases.viaTemplate"], &core);
    assert_depth_error(&out, "run template()");
    // The call-depth error points into the package: file and line.
    assert!(
        text(&out.stderr).contains("classes.yaml"),
        "{}",
        text(&out.stderr)
    );

    let out = murano(
        &["test", pkg.path(), "--filter", "demo.LoopTests.testLoop"],
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
    let out = murano(
        &[
            "deploy",
            "--dry-run",
            model.to_str().unwrap(),
            "--catalog",
            pkg.path(),
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
    let Some(core) = core() else { return };
    let pkg = Scratch::package(
        "demo.destroy",
        &["demo.Thrower", "demo.Main", "demo.MainTests"],
        DESTROY,
    );
    let out = murano(&["run", pkg.path(), "demo.Main.go"], &core);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(text(&out.stdout).contains("done"));
    assert!(
        err.contains("warning: Muted exception during execution of .destroy on demo.Thrower"),
        "{err}"
    );
    assert!(err.contains("cannot destroy"), "{err}");
    let out = murano(
        &["test", pkg.path(), "--filter", "demo.MainTests.testGo"],
        &core,
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("demo.MainTests.testGo: Muted exception during execution of .destroy"),
        "{err}"
    );
}
