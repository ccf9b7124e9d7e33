//! Byte-exact conformance of the HOT package's generated text: for every
//! `corpus/packages-oracle/hot/` case whose generated class or UI is a
//! value, our `get_class(full_name)` / `ui()` bytes must equal the text
//! Murano printed with PyYAML (`class.value.text`, `ui.value.text`).

use murano_packages::PluginRegistry;
use murano_testkit::{data_root, read_json};
use serde_json::Value as Json;

/// How many differing cases are shown in detail.
const SHOWN: usize = 5;
/// How many differing lines are shown per case.
const SHOWN_LINES: usize = 6;

/// A short line diff: the first lines that differ, with their numbers.
fn line_diff(got: &str, want: &str) -> String {
    let got_lines: Vec<&str> = got.split_inclusive('\n').collect();
    let want_lines: Vec<&str> = want.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut shown = 0;
    for i in 0..got_lines.len().max(want_lines.len()) {
        let (g, w) = (got_lines.get(i), want_lines.get(i));
        if g == w {
            continue;
        }
        out.push_str(&format!(
            "      line {}:\n        got:  {:?}\n        want: {:?}\n",
            i + 1,
            g.copied().unwrap_or("<none>"),
            w.copied().unwrap_or("<none>")
        ));
        shown += 1;
        if shown == SHOWN_LINES {
            break;
        }
    }
    out
}

/// Compares one generated document with the oracle's text; `None` when the
/// oracle has no text for it (an error, or no such entry).
fn check(
    what: &str,
    want: &Json,
    got: impl FnOnce() -> Result<Vec<u8>, String>,
) -> Option<Result<(), String>> {
    let want = want.get("value")?.get("text")?.as_str()?;
    Some(match got() {
        Ok(bytes) if bytes == want.as_bytes() => Ok(()),
        Ok(bytes) => Err(format!(
            "    {what}: text differs\n{}",
            line_diff(&String::from_utf8_lossy(&bytes), want)
        )),
        Err(e) => Err(format!("    {what}: got error {e}")),
    })
}

fn main() {
    let Some(root) = data_root(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")) else {
        return;
    };
    let hot_dir = root.join("corpus/packages-oracle/hot");
    let mut cases: Vec<_> = std::fs::read_dir(&hot_dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    cases.sort();
    let (mut passed, mut total) = (0usize, 0usize);
    let mut failures = Vec::new();
    for case_dir in cases {
        let (Ok(case), Ok(expected)) = (
            read_json(&case_dir.join("case.json")),
            read_json(&case_dir.join("expected.json")),
        ) else {
            continue;
        };
        let id = case["id"].as_str().unwrap_or("?").to_owned();
        let package = murano_testkit::oracle_case_files(&case_dir, &case).and_then(|files| {
            PluginRegistry::with_builtins()
                .load(files)
                .map_err(|e| e.to_string())
        });
        let results = [
            check("class", &expected["class"], || {
                let p = package.as_ref().map_err(Clone::clone)?;
                p.get_class(p.full_name())
                    .map(|c| c.bytes)
                    .map_err(|e| e.to_string())
            }),
            check("ui", &expected["ui"], || {
                let p = package.as_ref().map_err(Clone::clone)?;
                p.ui()
                    .map(Option::unwrap_or_default)
                    .map_err(|e| e.to_string())
            }),
        ];
        for result in results.into_iter().flatten() {
            total += 1;
            match result {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("  {id}\n{e}")),
            }
        }
    }
    println!("conformance hot-text: {passed}/{total} passed");
    for failure in failures.iter().take(SHOWN) {
        println!("{failure}");
    }
    if failures.len() > SHOWN {
        println!("  ... and {} more", failures.len() - SHOWN);
    }
    if !failures.is_empty() {
        println!("conformance: {} generated texts differ", failures.len());
        std::process::exit(1);
    }
}
