//! Conformance of the executor (suite `engine`): Murano's own DSL unit
//! tests, recorded step by step (`conformance/engine/`, see its README).
//! Each test replays its steps (runners built from object models, calls,
//! serialised models, finalisation) on fresh engines; a test passes when
//! every step's outcome and traces match. Values are compared as the
//! README encodes them, generated ids modulo a consistent renaming,
//! exceptions by type (and MuranoPL names).

use std::collections::BTreeMap;
use std::sync::Arc;

use murano_testkit::engine_replay::{load_classes, run_test};
use murano_testkit::{conclude, read_jsonl, Suite};
use serde_json::Value as Json;

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures.txt")
    else {
        return;
    };
    let dir = root.join("conformance/engine");
    let tests = read_jsonl(&dir.join("tests.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let cases = read_jsonl(&dir.join("cases.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let classes = Arc::new(load_classes(&dir.join("meta")).unwrap_or_else(|e| panic!("{e}")));
    let mut steps: BTreeMap<String, Vec<Json>> = BTreeMap::new();
    for c in cases {
        let id = c["test"].as_str().unwrap_or("?").to_owned();
        steps.entry(id).or_default().push(c);
    }
    let mut suite = Suite::new("engine", &known);
    let mut categories: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for t in &tests {
        let id = t["test"].as_str().unwrap_or("?");
        let mut test_steps = steps.remove(id).unwrap_or_default();
        test_steps.sort_by_key(|s| s["step"].as_u64().unwrap_or(0));
        let result = run_test(&classes, t, &test_steps);
        let key = format!(
            "{}/{}",
            t["category"].as_str().unwrap_or("?"),
            t["module"].as_str().unwrap_or("?")
        );
        let e = categories.entry(key).or_default();
        e.1 += 1;
        if result.is_ok() {
            e.0 += 1;
        }
        suite.record(id, result);
    }
    let outcome = suite.finish();
    let mut report = outcome.report.clone();
    report.push_str("  by category/module:");
    for (k, (p, t)) in &categories {
        report.push_str(&format!(" {k} {p}/{t};"));
    }
    report.push('\n');
    conclude(vec![murano_testkit::Outcome {
        report,
        ok: outcome.ok,
    }]);
}
