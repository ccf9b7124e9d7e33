//! Hostile and everyday inputs from the second hardening round (issue 21):
//! each ends with the exit code of the convention (0 clean, 1 findings or
//! a failed evaluation, 2 usage or I/O error), a typed message, no panic
//! or abort, and nothing written outside the output path.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn murano() -> Command {
    Command::new(env!("CARGO_BIN_EXE_murano"))
}

/// A scratch folder removed at the end of the test.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("murano-hard-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    fn write(&self, rel: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `murano args…`, returning (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out: Output = murano().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Item 1: integers past Python's 4300 digits are a ValueError at once,
/// in data files and in expressions, instead of a quadratic conversion.
#[test]
fn huge_integer_literals_end_at_once() {
    let dir = Scratch::new("bigint");
    let yaml = dir.write("data.yaml", format!("n: {}\n", "7".repeat(1_000_000)));
    let (code, _, err) = run(&["yaql", "$.n", "--data", s(&yaml)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Exceeds the limit (4300 digits)"), "{err}");
    let json = dir.write("data.json", format!("[{}]", "7".repeat(1_000_000)));
    let (code, _, err) = run(&["yaql", "$", "--data", s(&json)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Exceeds the limit (4300 digits)"), "{err}");
    let (code, _, err) = run(&["yaql", &format!("1 + {}", "7".repeat(5000))]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("Exceeds the limit (4300 digits)"), "{err}");
    let (code, out, _) = run(&["yaql", "$.n", "--data", s(&dir.write("ok.yaml", "n: 12\n"))]);
    assert_eq!((code, out.trim()), (0, "12"));
}

/// Item 2: values that share structure are small in memory and
/// exponential as text: printing them ends with a typed error.
#[test]
fn shared_structure_values_do_not_abort() {
    for expr in [
        "range(40).aggregate([$1, $1], 1)",
        "str(range(40).aggregate([$1, $1], 1))",
        "range(40).aggregate([$1, $1], 1).join('')",
        "range(1000000).select('x' * 1000).join('')",
    ] {
        let (code, out, err) = run(&["yaql", expr]);
        assert_eq!(code, 1, "{expr}: {err}");
        assert!(out.is_empty());
        assert!(err.contains("MemoryQuotaExceeded"), "{expr}: {err}");
    }
    // Values nested by folding stop at Python's recursion limit instead
    // of overflowing the stack when printed or dropped.
    for expr in [
        "range(1000000).aggregate([$1], 1).len()",
        "range(100000).aggregate($1.concat([$2]), [])",
        "range(100000).aggregate({a => $1}, 1).len()",
    ] {
        let (code, _, err) = run(&["yaql", expr]);
        assert_eq!(code, 1, "{expr}: {err}");
        assert!(err.contains("RecursionError"), "{expr}: {err}");
    }
}

/// Item 3: a depth option cannot exceed what the stack holds.
#[test]
fn depth_options_are_capped_and_fit_the_stack() {
    let (code, _, err) = run(&["parse", "--max-depth", "4000000000", "1"]);
    assert_eq!(code, 2, "{err}");
    let dir = Scratch::new("deep");
    let deep = dir.write(
        "deep.txt",
        format!("{}1{}\n", "[".repeat(40_000), "]".repeat(40_000)),
    );
    let (code, out, err) = run(&["parse", "--max-depth", "50000", "-f", s(&deep)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.len() > 80_000, "{}", out.len());
    let too_deep = dir.write(
        "too-deep.txt",
        format!("{}1{}\n", "(".repeat(60_000), ")".repeat(60_000)),
    );
    let (code, _, err) = run(&["parse", "--max-depth", "50000", "-f", s(&too_deep)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("nested deeper than the limit of 50000"),
        "{err}"
    );
    let (code, _, err) = run(&["yaql", "--max-depth", "1000000", "1"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&[
        "yaql",
        "--max-depth",
        "10000",
        "--fuel",
        "100000000",
        "def(g, [g($ + 1)]) -> g(0)",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("RecursionError"), "{err}");
}
