//! Conformance of the YAML loaders with Murano's (suite `muranopl-load`):
//! every `*.expected.json` of `corpus/class`, `corpus/ui`,
//! `corpus/manifest` and `corpus/quirks` — the loaded documents in the
//! oracle's notation (YAQL with its parse tree and positions), or the same
//! error class at the same line and column.

use std::path::Path;

use murano_dsl::yaml::{
    load_class_file, load_manifest, load_ui_file, LoadOptions, Node, Value, YamlError,
};
use murano_testkit::{conclude, files_ending, read_json, Suite};
use serde_json::{json, Value as Json};

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures.txt")
    else {
        return;
    };
    let mut suite = Suite::new("muranopl-load", &known);
    let corpus = root.join("corpus");
    for (dir, loader) in [
        ("class", Loader::Class),
        ("ui", Loader::Ui),
        ("manifest", Loader::Manifest),
        ("quirks/class", Loader::Class),
        ("quirks/ui", Loader::Ui),
    ] {
        for expected_path in files_ending(&corpus.join(dir), ".expected.json") {
            let name = expected_path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("?");
            let stem = name.trim_end_matches(".expected.json");
            let id = format!("{dir}/{stem}");
            let input = corpus.join(dir).join(format!("{stem}.yaml"));
            let result =
                read_json(&expected_path).and_then(|expected| check(loader, &input, &expected));
            suite.record(&id, result);
        }
    }
    conclude(vec![suite.finish()]);
}

#[derive(Clone, Copy)]
enum Loader {
    Class,
    Ui,
    Manifest,
}

fn check(loader: Loader, input: &Path, expected: &Json) -> Result<(), String> {
    let bytes = std::fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let options = LoadOptions::default();
    let loaded: Result<(Vec<Json>, Option<usize>), YamlError> = match loader {
        Loader::Class => load_class_file(&bytes, &options)
            .map(|f| (f.documents.iter().map(encode).collect(), Some(f.dropped))),
        Loader::Ui => load_ui_file(&bytes, &options).map(|d| (vec![encode_opt(d.as_ref())], None)),
        Loader::Manifest => match std::str::from_utf8(&bytes) {
            Ok(text) => load_manifest(text, &options).map(|d| (vec![encode_opt(d.as_ref())], None)),
            Err(e) => return Err(format!("manifest is not UTF-8: {e}")),
        },
    };
    if let Some(want_class) = expected.get("error").and_then(Json::as_str) {
        return match loaded {
            Ok(_) => Err(format!("loaded, want {want_class}")),
            Err(e) => {
                let got_class = e.class().python_name();
                let want_at = (
                    expected.get("line").and_then(Json::as_u64),
                    expected.get("column").and_then(Json::as_u64),
                );
                let got_at = e.mark().map(|m| (m.line as u64 + 1, m.column as u64 + 1));
                if got_class != want_class {
                    Err(format!("{got_class} ({e}), want {want_class}"))
                } else if let (Some(l), Some(c)) = want_at {
                    if got_at == Some((l, c)) {
                        Ok(())
                    } else {
                        Err(format!("{got_class} at {got_at:?}, want {l}:{c} ({e})"))
                    }
                } else {
                    Ok(())
                }
            }
        };
    }
    let (documents, dropped) = loaded.map_err(|e| format!("{}: {e}", e.class().python_name()))?;
    let want_docs = expected.get("documents").cloned().unwrap_or(Json::Null);
    let got_docs = Json::Array(documents);
    if let Some(path) = first_difference(&got_docs, &want_docs, String::from("documents")) {
        return Err(path);
    }
    if let (Some(got), Some(want)) = (
        dropped,
        expected.get("documents_dropped").and_then(Json::as_u64),
    ) {
        if got as u64 != want {
            return Err(format!("dropped {got} documents, want {want}"));
        }
    }
    Ok(())
}

fn encode_opt(node: Option<&Node>) -> Json {
    node.map(encode).unwrap_or(Json::Null)
}

/// A loaded node in the oracle's notation.
fn encode(node: &Node) -> Json {
    match &node.value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => serde_json::from_str(&i.to_string()).unwrap_or(Json::Null),
        Value::Float(x) if x.is_nan() => json!({"$float": "nan"}),
        Value::Float(x) if x.is_infinite() => {
            json!({"$float": if *x > 0.0 { "inf" } else { "-inf" }})
        }
        Value::Float(x) => serde_json::Number::from_f64(*x)
            .map(Json::Number)
            .unwrap_or(Json::Null),
        Value::Str(s) => Json::String(s.clone()),
        Value::Date(d) => json!({"$date": d.to_string()}),
        Value::Timestamp(t) => json!({"$timestamp": t.to_string()}),
        Value::Binary(bytes) => json!({"$binary": base64(bytes)}),
        Value::Seq(items) => Json::Array(items.iter().map(encode).collect()),
        Value::Map(pairs) => {
            json!({"$map": pairs.iter().map(|(k, v)| json!([encode(k), encode(v)])).collect::<Vec<_>>()})
        }
        Value::Set(items) => {
            let mut encoded: Vec<Json> = items.iter().map(encode).collect();
            encoded.sort_by_key(|v| v.to_string());
            json!({"$set": encoded})
        }
        Value::Pairs(pairs) => Json::Array(
            pairs
                .iter()
                .map(|(k, v)| json!({"$tuple": [encode(k), encode(v)]}))
                .collect(),
        ),
        Value::Yaql(y) => json!({
            "$yaql": y.text(),
            "parse": y.expression.to_string(),
            "line": node.start.line + 1,
            "column": node.start.column + 1,
            "end_line": node.end.line + 1,
            "end_column": node.end.column + 1,
        }),
        Value::Recursive => json!({"$recursive": true}),
        _ => Json::String("<unknown value>".into()),
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Where two values first differ (sets compared as multisets), as a path.
fn first_difference(got: &Json, want: &Json, path: String) -> Option<String> {
    match (got, want) {
        (Json::Array(a), Json::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!("{path}: {} items, want {}", a.len(), b.len()));
            }
            a.iter()
                .zip(b)
                .enumerate()
                .find_map(|(i, (x, y))| first_difference(x, y, format!("{path}[{i}]")))
        }
        (Json::Object(a), Json::Object(b)) => {
            if let (Some(Json::Array(x)), Some(Json::Array(y))) = (a.get("$set"), b.get("$set")) {
                let mut x: Vec<String> = x.iter().map(Json::to_string).collect();
                let mut y: Vec<String> = y.iter().map(Json::to_string).collect();
                x.sort();
                y.sort();
                return (x != y).then(|| format!("{path}: set {x:?}, want {y:?}"));
            }
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) => first_difference(x, y, format!("{path}.{k}")),
                (x, y) => Some(format!("{path}.{k}: {x:?}, want {y:?}")),
            })
        }
        (Json::Number(x), Json::Number(y)) => {
            let same = match (x.as_i64(), y.as_i64()) {
                (Some(a), Some(b)) => a == b,
                _ => x.as_f64() == y.as_f64() && x.is_f64() == y.is_f64(),
            };
            (!same).then(|| format!("{path}: {x}, want {y}"))
        }
        _ => (got != want).then(|| format!("{path}: {got}, want {want}")),
    }
}
