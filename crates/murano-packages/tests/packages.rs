//! Conformance of package loading with Murano's package code, on
//! `corpus/packages-oracle/`:
//!
//! * `manifests`: every `manifest/` case — the load result, every package
//!   property, every class lookup and the engine package's requirements.
//! * `hot`: every `hot/` case — the same, plus the generated class and UI
//!   (compared as YAML trees: our text is loaded back and compared with the
//!   oracle's canonical JSON).
//!
//! Murano's own messages are compared word for word (except the embedded
//! PyYAML text of "Unable to load due to" errors); Python's and libraries'
//! messages by class only.

use std::path::Path;

use murano_packages::{Package, PackageError, PluginRegistry};
use murano_testkit::{conclude, read_json, Suite};
use murano_yaml::{load_all, Flavor, LoadOptions, Node, Value};
use serde_json::{json, Value as Json};
use sha2::{Digest, Sha256};

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures.txt")
    else {
        return;
    };
    let oracle = root.join("corpus/packages-oracle");
    let mut outcomes = Vec::new();
    for (suite_name, dir) in [("manifests", "manifest"), ("hot", "hot")] {
        let mut suite = Suite::new(suite_name, &known);
        let mut cases: Vec<_> = std::fs::read_dir(oracle.join(dir))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        cases.sort();
        for case_dir in cases {
            let Ok(case) = read_json(&case_dir.join("case.json")) else {
                continue;
            };
            let id = case["id"].as_str().unwrap_or("?").to_owned();
            let result = read_json(&case_dir.join("expected.json"))
                .and_then(|expected| run_case(&case_dir, &case, &expected));
            suite.record(&id, result);
        }
        outcomes.push(suite.finish());
    }
    conclude(outcomes);
}

fn run_case(case_dir: &Path, case: &Json, expected: &Json) -> Result<(), String> {
    let files = murano_testkit::oracle_case_files(case_dir, case)?;
    let loaded = PluginRegistry::with_builtins().load(files);
    let package = match (&expected["load"], loaded) {
        (want, Err(e)) => return compare_result("load", &Err(e), want),
        (want, Ok(p)) => {
            let handler = match p.format_name() {
                "Heat.HOT" => "murano.packages.hot_package.HotPackage",
                _ => "murano.packages.mpl_package.MuranoPlPackage",
            };
            compare_result("load", &Ok(json!({ "handler": handler })), want)?;
            p
        }
    };
    let props = &expected["package"];
    let p = &*package;
    let check =
        |name: &str, got: Result<Json, PackageError>| compare_result(name, &got, &props[name]);
    check("format_name", Ok(json!(p.format_name())))?;
    check(
        "runtime_version",
        Ok(json!(p.runtime_version().to_string())),
    )?;
    check("full_name", Ok(json!(p.full_name())))?;
    check("version", Ok(json!(p.version().to_string())))?;
    check("package_type", Ok(json!(p.package_type().as_str())))?;
    check("display_name", Ok(encode(&p.display_name())))?;
    check("description", Ok(encode(&p.description())))?;
    check("author", Ok(encode(&p.author())))?;
    check("supplier", Ok(encode(&p.supplier())))?;
    check(
        "tags",
        p.tags()
            .map(|t| Json::Array(t.iter().map(encode).collect())),
    )?;
    check("classes", p.classes().map(|c| json!(c)))?;
    check("requirements", Ok(encode(&p.requirements())))?;
    check("meta", Ok(encode(&p.meta())))?;
    check(
        "logo",
        p.logo().map(|b| b.map(|b| bytes(&b)).unwrap_or(Json::Null)),
    )?;
    check(
        "supplier_logo",
        p.supplier_logo()
            .map(|b| b.map(|b| bytes(&b)).unwrap_or(Json::Null)),
    )?;
    if let Some(want) = props.get("ui") {
        compare_result(
            "ui",
            &p.ui().map(|b| b.map(|b| bytes(&b)).unwrap_or(Json::Null)),
            want,
        )?;
    }
    if let Some(class_files) = expected["class_files"].as_array() {
        for entry in class_files {
            let name = entry[0].as_str().unwrap_or_default();
            let got = p
                .get_class(name)
                .map(|c| json!({"file": c.file, "length": c.bytes.len()}));
            compare_result(&format!("get_class({name})"), &got, &entry[1])?;
        }
    }
    if let Some(want) = expected.get("class") {
        let got = p
            .get_class(p.full_name())
            .and_then(|c| generated(&c.bytes).map(|j| json!({"file_id": c.file, "json": j})));
        compare_generated("class", got, want)?;
    }
    if let Some(want) = expected.get("ui") {
        let got = p
            .ui()
            .and_then(|b| generated(&b.unwrap_or_default()).map(|j| json!({"json": j})));
        compare_generated("ui", got, want)?;
    }
    if let Some(want) = expected.get("class_lookup_miss") {
        let got = p
            .get_class(&format!("{}.NoSuchClass", p.full_name()))
            .map(|_| Json::Null);
        compare_result("class_lookup_miss", &got, want)?;
    }
    if let Some(want) = expected.get("dsl_package") {
        compare_result("dsl_package", &dsl_package(p), want)?;
    }
    Ok(())
}

/// The engine's MuranoPackage: name, version, runtime version and
/// requirements (built from the package the way the engine builds them).
fn dsl_package(p: &dyn Package) -> Result<Json, PackageError> {
    let require_node = p.requirements();
    let require: &[(Node, Node)] = match &require_node.value {
        Value::Map(pairs) => pairs,
        other => {
            return Err(murano_packages::PackageError::Python {
                class: "AttributeError",
                message: format!(
                    "'{}' object has no attribute 'items'",
                    match other {
                        Value::Seq(_) => "list",
                        Value::Str(_) => "str",
                        _ => "object",
                    }
                ),
            })
        }
    };
    let mut reqs: Vec<(String, String)> = vec![(
        p.full_name().to_owned(),
        format!("=={}", p.version().major()),
    )];
    if p.full_name() != "io.murano" {
        reqs.push(("io.murano".into(), "==0".into()));
    }
    for (name, spec) in require {
        let spec = murano_dsl::version::parse_version_spec(&(&spec.value).into())?;
        let name = name.value.python_str();
        let text = spec.normalized();
        match reqs.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => entry.1 = text,
            None => reqs.push((name, text)),
        }
    }
    let mut map = serde_json::Map::new();
    for (name, spec) in reqs {
        map.insert(name, Json::String(spec));
    }
    Ok(json!({
        "name": p.full_name(),
        "version": p.version().to_string(),
        "runtime_version": p.runtime_version().to_string(),
        "requirements": map,
    }))
}

/// Loads generated YAML back with the engine's loader into canonical JSON.
///
/// Murano can generate a contract that is not valid YAQL (an
/// `allowed_pattern` given as a YAML list prints as `['a-z']` inside the
/// quotes). Its class text holds it all the same, and so does ours; only
/// reloading with a loader that parses `!yaql` fails. Then the `!yaql`
/// scalars are read as their text, marked `{"$yaql": text}` as the oracle
/// writes them.
fn generated(bytes: &[u8]) -> Result<Json, PackageError> {
    match load_all(bytes, Flavor::Engine, &LoadOptions::default()) {
        Ok(docs) => Ok(docs.first().map(encode).unwrap_or(Json::Null)),
        Err(e) if matches!(e.class(), murano_yaml::YamlErrorClass::Yaql(_)) => {
            // U+E000 is printable for PyYAML and never generated.
            let text = String::from_utf8_lossy(bytes).replace("!yaql \"", "!!str \"\u{E000}");
            let docs = load_all(text.as_bytes(), Flavor::Plain, &LoadOptions::default())?;
            Ok(docs
                .first()
                .map(|d| unmark(encode(d)))
                .unwrap_or(Json::Null))
        }
        Err(e) => Err(e.into()),
    }
}

/// Turns the marked strings of [`generated`]'s fallback back into YAQL.
fn unmark(value: Json) -> Json {
    match value {
        Json::String(s) if s.starts_with('\u{E000}') => {
            json!({"$yaql": &s['\u{E000}'.len_utf8()..]})
        }
        Json::Array(items) => Json::Array(items.into_iter().map(unmark).collect()),
        Json::Object(map) if map.keys().any(|k| k.starts_with('\u{E000}')) => json!({
            "$map": map
                .into_iter()
                .map(|(k, v)| json!([unmark(Json::String(k)), unmark(v)]))
                .collect::<Vec<_>>()
        }),
        Json::Object(map) => Json::Object(map.into_iter().map(|(k, v)| (k, unmark(v))).collect()),
        other => other,
    }
}

fn compare_generated(
    what: &str,
    got: Result<Json, PackageError>,
    want: &Json,
) -> Result<(), String> {
    match (got, want.get("value")) {
        (Ok(got), Some(want_value)) => {
            if got["json"] == want_value["json"] {
                if let (Some(g), Some(w)) = (got.get("file_id"), want_value.get("file_id")) {
                    if g != w {
                        return Err(format!("{what}: file id {g}, want {w}"));
                    }
                }
                Ok(())
            } else {
                Err(format!(
                    "{what}: got {}, want {}",
                    got["json"], want_value["json"]
                ))
            }
        }
        (got, _) => compare_result(what, &got.map(|_| Json::Null), want),
    }
}

fn compare_result(what: &str, got: &Result<Json, PackageError>, want: &Json) -> Result<(), String> {
    match (got, want.get("value"), want.get("error")) {
        (Ok(g), Some(w), _) => {
            if g == w {
                Ok(())
            } else {
                Err(format!("{what}: got {g}, want {w}"))
            }
        }
        (Err(e), _, Some(w)) => {
            let want_class = w["class"].as_str().unwrap_or_default();
            let want_message = w["message"].as_str().unwrap_or_default();
            if e.python_class() != want_class {
                return Err(format!(
                    "{what}: {} ({e}), want {want_class} ({want_message})",
                    e.python_class()
                ));
            }
            let message = e.to_string();
            let same = if !e.is_murano_error() {
                true
            } else if let Some(prefix) = want_message
                .split_once("Unable to load due to '")
                .map(|(a, _)| a)
            {
                message.starts_with(&format!("{prefix}Unable to load due to '"))
            } else {
                message == want_message
            };
            if same {
                Ok(())
            } else {
                Err(format!(
                    "{what}: message {message:?}, want {want_message:?}"
                ))
            }
        }
        (Ok(g), None, _) => Err(format!("{what}: got {g}, want {want}")),
        (Err(e), _, None) => Err(format!("{what}: {} ({e}), want {want}", e.python_class())),
    }
}

fn bytes(b: &[u8]) -> Json {
    let digest = Sha256::digest(b);
    let hex: String = digest.iter().map(|x| format!("{x:02x}")).collect();
    json!({"$bytes": {"length": b.len(), "sha256": hex}})
}

fn encode_pairs(pairs: &[(Node, Node)]) -> Json {
    if pairs.iter().all(|(k, _)| matches!(k.value, Value::Str(_))) {
        let mut map = serde_json::Map::new();
        for (k, v) in pairs {
            map.insert(k.value.python_str(), encode(v));
        }
        Json::Object(map)
    } else {
        json!({"$map": pairs.iter().map(|(k, v)| json!([encode(k), encode(v)])).collect::<Vec<_>>()})
    }
}

/// The oracle's canonical JSON of a YAML value.
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
        Value::Timestamp(t) => json!({"$datetime": t.to_string()}),
        Value::Yaql(y) => json!({"$yaql": y.text()}),
        Value::Seq(items) | Value::Set(items) => Json::Array(items.iter().map(encode).collect()),
        Value::Map(pairs) | Value::Pairs(pairs) => encode_pairs(pairs),
        _ => json!({"$repr": node.value.python_repr()}),
    }
}
