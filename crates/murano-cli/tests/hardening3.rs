//! The printers of the third hardening round (issue 38, items 7, 11, 12
//! and 13): values that share one big string or list are written as they
//! are walked and stop at `--max-output`, in bounded memory (proven under
//! `prlimit --as`); JUnit XML holds only characters XML 1.0 allows; package
//! text cannot steer the terminal or forge lines; long messages are cut
//! with a note. The engine cases need Murano's core library from the
//! shared data (skipped when it is absent).

use std::process::{Command, Output};

mod common;
use common::{core_library, murano_limited, s, text, Scratch};

/// `murano args…`, under an address-space limit of `limit` bytes when
/// given (and prlimit is there).
fn murano(args: &[&str], limit: Option<u64>) -> Output {
    limit
        .and_then(murano_limited)
        .unwrap_or_else(common::murano)
        .args(args)
        .env_remove("MURANO_CATALOG")
        .output()
        .unwrap()
}

const GIB: u64 = 1 << 30;

/// `$s`: a string of 1 MiB, built by doubling.
const MIB_STRING: &str = r#"
      - $s: 'xxxxxxxxxxxxxxxx'
      - For: i
        In: range(16)
        Do:
          - $s: $s + $s
"#;

/// Item 7: `murano yaql` on a value whose JSON is 549 MB writes 64 MiB
/// (the default `--max-output`), says so, and stays small.
#[test]
fn yaql_output_stops_at_the_limit_in_bounded_memory() {
    let out = murano(&["yaql", "range(22).aggregate([$1, $1], 1)"], Some(GIB));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("output cut at 67108864 bytes"), "{err}");
    assert!(out.stdout.len() <= (64 << 20) + 1, "{}", out.stdout.len());
    // The limit is an option; what fits is printed whole.
    let out = murano(&["yaql", "range(100)", "--max-output", "50"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.len() <= 51);
    assert!(text(&out.stderr).contains("output cut at 50 bytes"));
    let out = murano(
        &[
            "yaql",
            "range(3).aggregate([$1, $1], 1)",
            "--max-output",
            "1000",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v, serde_json::json!([[[1, 1], [1, 1]], [[1, 1], [1, 1]]]));
    // Non-finite floats and keys print as before.
    let out = murano(&["yaql", "{1 => float('inf'), null => [2.5]}"], None);
    assert_eq!(
        text(&out.stdout),
        "{\n  \"1\": \"inf\",\n  \"null\": [\n    2.5\n  ]\n}\n"
    );
}

const WIDE: &str = r#"
Namespaces: {=: demo}
Name: Wide
Methods:
  wide:
    Body:
__MIB__
      - Return: range(1000).select($s)
  small:
    Body:
      - Return: {a: [1, 2.5, null, true], b: 'x'}
"#;

/// Item 7: `murano run`'s result, 1000 references to one 1 MiB string
/// (1 GB as JSON), is written as it is walked and cut at the limit,
/// under a 1 GiB address space.
#[test]
fn run_results_are_bounded_in_size_and_memory() {
    let Some(core) = core_library() else { return };
    let dir = Scratch::new("run");
    let pkg = dir.package(
        "demo.wide",
        &["demo.Wide"],
        &WIDE.replace("__MIB__", MIB_STRING.trim_matches('\n')),
    );
    let out = murano(
        &["run", s(&pkg), "demo.Wide.wide", "--catalog", s(&core)],
        Some(GIB),
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("output cut at 67108864 bytes"), "{err}");
    assert!(out.stdout.len() <= (64 << 20) + 1);
    let out = murano(
        &["run", s(&pkg), "demo.Wide.small", "--catalog", s(&core)],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "{\n  \"a\": [\n    1,\n    2.5,\n    null,\n    true\n  ],\n  \"b\": \"x\"\n}\n"
    );
    let out = murano(
        &[
            "run",
            s(&pkg),
            "demo.Wide.small",
            "--catalog",
            s(&core),
            "--max-output",
            "10",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.len() <= 11);
}

const DEPLOYED: &str = r#"
Namespaces: {=: demo, std: io.murano}
Name: App
Extends: std:Application
Properties:
  data:
    Contract: $
    Usage: InOut
Methods:
  deploy:
    Body:
__MIB__
      - $this.data: range(1000).select($s)
      - $.find(std:Environment).reporter.report($this, "a\x1b]0;title\x07b\nforged line")
"#;

/// Item 7 (and 12): `deploy --dry-run`'s final model that shares one big
/// string (1 GB as text) ends the deployment at `<finalize>` instead of
/// being expanded, in both formats, under a 2 GiB address space; the
/// report's ESC and BEL are shown escaped.
#[test]
fn deploy_final_models_are_bounded_and_reports_escaped() {
    let Some(core) = core_library() else { return };
    let dir = Scratch::new("deploy");
    dir.package(
        "demo.app",
        &["demo.App"],
        &DEPLOYED.replace("__MIB__", MIB_STRING.trim_matches('\n')),
    );
    let model = dir.write("model.json", r#"{"?": {"type": "demo.App", "id": "app1"}}"#);
    for format in ["human", "json"] {
        let out = murano(
            &[
                "deploy",
                "--dry-run",
                s(&model),
                "--catalog",
                s(&dir.0),
                "--catalog",
                s(&core),
                "--format",
                format,
            ],
            Some(2 * GIB),
        );
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(stdout.contains("<finalize>"), "{stdout}");
        assert!(
            stdout.contains("passes the limit of 16777216 bytes"),
            "{stdout}"
        );
        assert!(out.stdout.len() < 1 << 20);
        if format == "human" {
            assert!(
                stdout.contains("  info  app1: a\\u{1b}]0;title\\u{7}b\\nforged line\n"),
                "{stdout}"
            );
            assert!(!stdout.contains(['\u{1b}', '\u{7}']));
        }
    }
}

/// Item 7: a Heat `yaql` output that shares one list is measured before
/// it is expanded: larger than the result limit, it is an error.
#[test]
fn hot_yaql_outputs_are_measured_before_they_are_expanded() {
    let dir = Scratch::new("hot");
    let template = dir.write(
        "t.yaml",
        "heat_template_version: 2016-10-14\noutputs:\n  big:\n    value:\n      yaql:\n        expression: range(26).aggregate([$1, $1], 1)\n        data: {}\n  small:\n    value:\n      yaql:\n        expression: range(2).aggregate([$1, $1], 1)\n        data: {}\n",
    );
    let params = dir.write("p.json", "{}");
    let out = murano(
        &["hot", "validate", s(&template), "--params", s(&params)],
        Some(GIB),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "output big: error[murano_hot.Limit]: yaql result larger than 1000000 characters"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("output small = [[1, 1], [1, 1]]"),
        "{stdout}"
    );
    let out = murano(
        &[
            "hot",
            "validate",
            s(&template),
            "--params",
            s(&params),
            "--format",
            "json",
        ],
        Some(GIB),
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["outputs"]["big"]["error"]["class"], "murano_hot.Limit");
    assert_eq!(
        doc["outputs"]["small"]["value"],
        serde_json::json!([[1, 1], [1, 1]])
    );
    // The report itself stops at --max-output.
    let out = murano(
        &[
            "hot",
            "validate",
            s(&template),
            "--params",
            s(&params),
            "--format",
            "json",
            "--max-output",
            "20",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.len() <= 21);
    assert!(text(&out.stderr).contains("output cut at 20 bytes"));
}

const HOSTILE_TESTS: &str = r#"
Namespaces: {=: demo, tst: io.murano.test}
Name: Hostile
Extends: tst:TestFixture
Methods:
  testNoncharacters:
    Body:
      - $log: logger(demo)
      - $log.info("log \uFFFE \uFFFF \x01 \x1b[2J \x85 \uFDD0 end")
      - Throw: Bad
        Message: "msg \uFFFE \uFFFF \x00 \x08 \x1b[31m \x7f \U0010FFFF end"
  testEscapes:
    Body:
      - $log: logger(demo)
      - $log.info("a\x1b]0;title\x07b\x00c\ntest demo.Hostile.testForged ... ok")
      - Throw: Bad
        Message: "x\x1b[2J\ntest demo.Hostile.testForged ... ok"
  testHuge:
    Body:
__MIB__
      - Throw: Huge
        Message: $s
"#;

/// Whether `c` matches XML 1.0's `Char` production and is not one of the
/// characters it discourages (controls, noncharacters).
fn xml_allows(c: char) -> bool {
    let n = c as u32;
    let char_production =
        matches!(n, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF);
    let discouraged =
        matches!(n, 0x7F..=0x84 | 0x86..=0x9F | 0xFDD0..=0xFDEF) || n & 0xFFFE == 0xFFFE;
    char_production && !discouraged && c != '\u{85}'
}

/// Items 11, 12 and 13 for `murano test`: the JUnit report holds only
/// characters XML allows, the text report shows ESC, BEL, NUL and line
/// breaks of package text escaped (no forged `test … ok` line), and a
/// 1 MiB message is cut with a note, in every format.
#[test]
fn test_reports_are_well_formed_escaped_and_bounded() {
    let Some(core) = core_library() else { return };
    let dir = Scratch::new("tests");
    let pkg = dir.package(
        "demo.hostile",
        &["demo.Hostile"],
        &HOSTILE_TESTS.replace("__MIB__", MIB_STRING.trim_matches('\n')),
    );
    let run = |format: &str| {
        murano(
            &["test", s(&pkg), "--catalog", s(&core), "--format", format],
            None,
        )
    };
    let junit = run("junit");
    assert_eq!(junit.status.code(), Some(1));
    let xml = text(&junit.stdout);
    let bad: Vec<String> = xml
        .chars()
        .filter(|c| !xml_allows(*c))
        .map(|c| format!("U+{:04X}", c as u32))
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
    assert!(xml.contains("msg \\ufffe \\uffff \\u0000 \\u0008"), "{xml}");
    assert!(xml.len() < 64 << 10, "{}", xml.len());
    assert!(xml.contains("more bytes cut]"));

    let plain = run("text");
    let out = text(&plain.stdout);
    assert_eq!(plain.status.code(), Some(1));
    assert!(!out.contains(['\u{1b}', '\u{7}', '\0']), "{out}");
    assert!(
        !out.lines()
            .any(|l| l.starts_with("test demo.Hostile.testForged")),
        "{out}"
    );
    assert!(
        out.contains(
            "log info demo: a\\u{1b}]0;title\\u{7}b\\u{0}c\\ntest demo.Hostile.testForged ... ok"
        ),
        "{out}"
    );
    assert!(
        out.contains("Bad: x\\u{1b}[2J\\ntest demo.Hostile.testForged ... ok"),
        "{out}"
    );
    assert!(out.len() < 64 << 10, "{}", out.len());
    assert!(
        out.contains(&format!("… [{} more bytes cut]", (1 << 20) - 4096)),
        "{out}"
    );

    let json = run("json");
    assert!(json.stdout.len() < 64 << 10);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let tests = doc["packages"][0]["tests"].as_array().unwrap();
    let huge = tests.iter().find(|t| t["method"] == "testHuge").unwrap();
    assert!(huge["failure"]["message"]
        .as_str()
        .unwrap()
        .ends_with("more bytes cut]"));
    // The bound is an option.
    let wide = murano(
        &[
            "test",
            s(&pkg),
            "--catalog",
            s(&core),
            "--filter",
            "testHuge",
            "--max-message",
            "100000",
        ],
        None,
    );
    let out = text(&wide.stdout);
    assert!(out.contains(&format!("… [{} more bytes cut]", (1 << 20) - 100_000)));
}

const HOSTILE_RUN: &str = r#"
Namespaces: {=: demo}
Name: Loud
Methods:
  escapes:
    Body:
      - $log: logger(demo)
      - $log.info("a\x1b]0;title\x07b\x00c\nmurano\x3a uncaught exception Forged\x3a yes")
      - Throw: Bad
        Message: "x\x1b[2J\n  at forged/Classes/x.yaml:1:1 in method m of class C"
  longLine:
    Body:
      - $.escapes() + '__LONG__'
  huge:
    Body:
__MIB__
      - $log: logger(demo)
      - $log.info($s)
      - Throw: Huge
        Message: $s
"#;

/// Items 12 and 13 for `murano run`: logger lines and the uncaught
/// exception show control characters and line breaks escaped (no forged
/// line on stderr), and a 1 MiB message, or a 100 kB source line of the
/// trace, is cut with a note.
#[test]
fn run_messages_are_escaped_and_bounded() {
    let Some(core) = core_library() else { return };
    let dir = Scratch::new("runmsg");
    let pkg = dir.package(
        "demo.loud",
        &["demo.Loud"],
        &HOSTILE_RUN
            .replace("__MIB__", MIB_STRING.trim_matches('\n'))
            .replace("__LONG__", &"y".repeat(100_000)),
    );
    let out = murano(
        &["run", s(&pkg), "demo.Loud.escapes", "--catalog", s(&core)],
        None,
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains(['\u{1b}', '\u{7}', '\0']), "{err}");
    assert!(
        err.starts_with(
            "info demo: a\\u{1b}]0;title\\u{7}b\\u{0}c\\nmurano: uncaught exception Forged: yes\n"
        ),
        "{err}"
    );
    assert_eq!(
        err.lines()
            .filter(|l| l.starts_with("murano: uncaught"))
            .count(),
        1,
        "{err}"
    );
    assert!(!err.lines().any(|l| l.starts_with("  at forged/")), "{err}");
    let out = murano(
        &["run", s(&pkg), "demo.Loud.longLine", "--catalog", s(&core)],
        None,
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.len() < 16 << 10, "{}", err.len());
    assert!(
        err.contains("in method longLine of class demo.Loud"),
        "{err}"
    );
    assert!(err.contains("more bytes cut]\n"), "{err}");
    let out = murano(
        &["run", s(&pkg), "demo.Loud.huge", "--catalog", s(&core)],
        None,
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(err.len() < 16 << 10, "{}", err.len());
    assert_eq!(
        err.matches(&format!("… [{} more bytes cut]", (1 << 20) - 4096))
            .count(),
        2,
        "{err}"
    );
}

/// Item 7 at the prompt: an answer longer than `--max-output` is cut with
/// an error for that answer, and the session goes on with a fresh budget.
#[test]
fn the_prompt_cuts_one_answer_and_goes_on() {
    use std::io::Write;
    let dir = Scratch::new("repl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_murano"))
        .args(["yaql", "--max-output", "20"])
        .env("MURANO_HISTORY", dir.0.join("history"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"range(100)\n40 + 2\nexit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("output cut at 20 bytes"), "{stderr}");
    assert!(stdout.ends_with("\n42\n"), "{stdout:?}");
}
