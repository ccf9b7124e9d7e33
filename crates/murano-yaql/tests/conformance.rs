//! Conformance of the parser with Python yaql 3.2, on the shared data:
//!
//! * `yaql-parse`: every row of `conformance/yaql/parse.jsonl` (the
//!   expressions of yaql's own test suite, in each grammar).
//! * `corpus-parse`: every YAQL expression Murano found in the class files
//!   (engine grammar) and the dashboard found in the UI files (standard
//!   grammar) of `corpus/`, and in the synthetic `corpus/quirks/` files
//!   (each loaded both ways).

use std::path::Path;

use murano_testkit::{conclude, files_ending, read_json, read_jsonl, KnownFailures, Suite};
use murano_yaql::{Grammar, OperatorKind, OperatorRecord, OperatorTable};
use serde_json::Value;

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures.txt")
    else {
        return;
    };
    conclude(vec![
        yaql_parse(&root, &known).finish(),
        corpus_parse(&root, &known).finish(),
    ]);
}

fn yaql_parse(root: &Path, known: &KnownFailures) -> Suite {
    let dir = root.join("conformance/yaql");
    let rows = read_jsonl(&dir.join("parse.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let cases = read_jsonl(&dir.join("cases.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let mut suite = Suite::new("yaql-parse", known);
    for row in &rows {
        let id = row["id"].as_str().unwrap_or("?");
        let result = grammar_for(&row["grammar"], &cases).and_then(|g| check_row(&g, row));
        suite.record(id, result);
    }
    suite
}

/// The grammar a `parse.jsonl` row names.
fn grammar_for(name: &Value, cases: &[Value]) -> Result<Grammar, String> {
    match name.as_str().unwrap_or_default() {
        "standard" => Ok(Grammar::standard_with_delegates()),
        "standard_nodelegates" => Ok(Grammar::standard()),
        "legacy" => Ok(Grammar::legacy()),
        custom => {
            let engine = cases
                .iter()
                .find(|c| c["grammar"].as_str() == Some(custom))
                .map(|c| &c["engine"])
                .ok_or_else(|| format!("no case defines grammar {custom}"))?;
            custom_grammar(engine)
        }
    }
}

/// A grammar from a case's `engine.operator_table`: a list whose items are
/// `[symbol, type]`, `[symbol, type, alias]` or `[]` (group break).
fn custom_grammar(engine: &Value) -> Result<Grammar, String> {
    let items = engine["operator_table"]
        .as_array()
        .ok_or("engine has no operator_table list")?;
    let mut table = OperatorTable::empty();
    for item in items {
        let parts = item.as_array().ok_or("operator table item is not a list")?;
        if parts.is_empty() {
            table.push_group_break();
            continue;
        }
        let symbol = parts[0].as_str().ok_or("operator symbol is not a string")?;
        let kind = match parts.get(1).and_then(Value::as_str) {
            Some("PREFIX_UNARY") => OperatorKind::PrefixUnary,
            Some("SUFFIX_UNARY") => OperatorKind::SuffixUnary,
            Some("BINARY_LEFT_ASSOCIATIVE") => OperatorKind::BinaryLeft,
            Some("BINARY_RIGHT_ASSOCIATIVE") => OperatorKind::BinaryRight,
            Some("NAME_VALUE_PAIR") => OperatorKind::NameValuePair,
            other => return Err(format!("unknown operator type {other:?}")),
        };
        let record = match parts.get(2).and_then(Value::as_str) {
            Some(alias) => OperatorRecord::with_alias(symbol, kind, alias),
            None => OperatorRecord::new(symbol, kind),
        };
        table.push(record);
    }
    let delegates = engine["allow_delegates"].as_bool().unwrap_or(false);
    Grammar::new(&table, delegates).map_err(|e| e.to_string())
}

fn check_row(grammar: &Grammar, row: &Value) -> Result<(), String> {
    let expr = row["expr"].as_str().ok_or("row has no expr")?;
    let parsed = grammar.parse(expr);
    if row["ok"].as_bool() == Some(true) {
        let want = row["canonical"].as_str().ok_or("row has no canonical")?;
        match parsed {
            Ok(tree) if tree.to_string() == want => Ok(()),
            Ok(tree) => Err(format!("{expr:?}: got {tree}, want {want}")),
            Err(e) => Err(format!("{expr:?}: {e}, want {want}")),
        }
    } else {
        let want = row["error"]["type"].as_str().unwrap_or("?");
        match parsed {
            Err(e) if e.class().python_name() == want => Ok(()),
            Err(e) => Err(format!(
                "{expr:?}: {} ({e}), want {want}",
                e.class().python_name()
            )),
            Ok(tree) => Err(format!("{expr:?}: parsed as {tree}, want {want}")),
        }
    }
}

fn corpus_parse(root: &Path, known: &KnownFailures) -> Suite {
    let mut suite = Suite::new("corpus-parse", known);
    let kinds = [
        ("class", Grammar::murano()),
        ("ui", Grammar::standard()),
        ("quirks/class", Grammar::murano()),
        ("quirks/ui", Grammar::standard()),
    ];
    for (kind, grammar) in &kinds {
        let dir = root.join("corpus").join(kind);
        for file in files_ending(&dir, ".expected.json") {
            let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?");
            let stem = name.trim_end_matches(".expected.json");
            let doc = match read_json(&file) {
                Ok(doc) => doc,
                Err(e) => {
                    suite.record(&format!("{kind}/{stem}"), Err(e));
                    continue;
                }
            };
            let mut expressions = Vec::new();
            collect_yaql(&doc, &mut expressions);
            for (n, (text, want)) in expressions.into_iter().enumerate() {
                let id = format!("{kind}/{stem}#{}", n + 1);
                let result = match grammar.parse(text) {
                    Ok(tree) if tree.to_string() == want => Ok(()),
                    Ok(tree) => Err(format!("{text:?}: got {tree}, want {want}")),
                    Err(e) => Err(format!("{text:?}: {e}, want {want}")),
                };
                suite.record(&id, result);
            }
        }
    }
    suite
}

/// Every `{"$yaql": text, "parse": tree, …}` in document order.
fn collect_yaql<'v>(value: &'v Value, out: &mut Vec<(&'v str, &'v str)>) {
    match value {
        Value::Object(map) => {
            if let (Some(Value::String(text)), Some(Value::String(tree))) =
                (map.get("$yaql"), map.get("parse"))
            {
                out.push((text, tree));
                return;
            }
            for v in map.values() {
                collect_yaql(v, out);
            }
        }
        Value::Array(items) => {
            for v in items {
                collect_yaql(v, out);
            }
        }
        _ => {}
    }
}
