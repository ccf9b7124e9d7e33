//! HOT conformance: every recorded outcome of `conformance/hot/cases.jsonl`
//! (Heat 27's own answers) is computed again and compared as the data's
//! README says: `ok`, then the error class, then for
//! `StackValidationFailed` the path; messages exactly, except the parts
//! Python itself writes (PyYAML and JSON decoder text, float conversion
//! text, reprs of types, sets and dicts, set-ordered lists, `re.error`
//! text), which are compared up to the end of Heat's own wording.
//!
//! One outcome per step: `load`, `version`, `validate.template`,
//! `validate.stack_generic`, `validate.stack_generic_valid_params`,
//! `schemas` (the whole schema map), each value set, `resolve` (the whole
//! resolution report). `validate.stack_plugins` is not counted: it depends
//! on Heat's resource plugin registry (the README calls it informative).

use std::path::Path;

use murano_hot::error::ErrorClass;
use murano_hot::params::{default_text, ConstraintKind, ParamSchema};
use murano_hot::resolve::{resolve_template, Resolved};
use murano_hot::{HeatError, Limits, Template, Value};
use murano_testkit::{conclude, read_jsonl, KnownFailures, Suite};
use serde_json::{json, Value as Json};

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures.txt")
    else {
        return;
    };
    conclude(vec![run(&root.join("conformance/hot"), &known).finish()]);
}

/// Where Python's own text starts in a message: compare up to the end of
/// the marker.
const PYTHON_TEXT_AFTER: &[&str] = &[
    "Error parsing template [root stack] ",
    "Value must be valid JSON: ",
    "could not convert string to float: ",
    "invalid literal for int() with base 10: ",
    "Found a [",
    "Duplicate names ",
    "Ambiguous versions (",
    "Circular Dependency Found: ",
    "Bad expression ",
    "Invalid keyword(s) inside a resource definition: ",
    "Algorithm must be one of ",
];

fn message_matches(class: &str, expected: &str, actual: &str) -> bool {
    if expected == actual {
        return true;
    }
    if class == "re.error" {
        // Entirely Python's `re` text.
        return true;
    }
    let cut = PYTHON_TEXT_AFTER
        .iter()
        .filter_map(|m| expected.find(m).map(|i| i + m.len()))
        .min();
    match cut {
        Some(end) => actual.starts_with(&expected[..end]),
        None => false,
    }
}

fn compare_error(expected: &Json, actual: &HeatError) -> Result<(), String> {
    let class = expected["class"].as_str().unwrap_or("");
    if class != actual.class.python_name() {
        return Err(format!(
            "class {} ({}), want {class} ({})",
            actual.class.python_name(),
            actual.message(),
            expected["message"]
        ));
    }
    if actual.class == ErrorClass::StackValidationFailed {
        let want: Vec<&str> = expected["path"]
            .as_array()
            .map(|a| a.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default();
        if want != actual.path {
            return Err(format!("path {:?}, want {want:?}", actual.path));
        }
    }
    let want = expected["message"].as_str().unwrap_or("");
    let got = actual.message();
    if !message_matches(class, want, &got) {
        return Err(format!("message {got:?}, want {want:?}"));
    }
    Ok(())
}

/// Compares an OUTCOME with our result (`None` value: OUTCOME0).
fn compare(expected: &Json, actual: Result<Option<Json>, HeatError>) -> Result<(), String> {
    let want_ok = expected["ok"].as_bool().unwrap_or(false);
    match (want_ok, actual) {
        (true, Ok(v)) => match (expected.get("value"), v) {
            (Some(want), Some(got)) if *want != got => Err(format!("value {got}, want {want}")),
            _ => Ok(()),
        },
        (true, Err(e)) => Err(format!(
            "error {}: {}, want ok",
            e.class.python_name(),
            e.message()
        )),
        (false, Ok(v)) => Err(format!(
            "ok {}, want error {}",
            v.map(|v| v.to_string()).unwrap_or_default(),
            expected["error"]
        )),
        (false, Err(e)) => compare_error(&expected["error"], &e),
    }
}

fn opt(v: &Option<Value>) -> Json {
    v.as_ref().map_or(Json::Null, Value::to_json)
}

fn schema_json(s: &ParamSchema) -> Json {
    let constraints: Vec<Json> = s
        .constraints
        .iter()
        .map(|c| {
            let mut m = serde_json::Map::new();
            let description = c.description.as_ref().map_or(Json::Null, Value::to_json);
            m.insert("description".into(), description);
            m.insert("default_text".into(), Json::String(default_text(c)));
            match &c.kind {
                ConstraintKind::Range { min, max } | ConstraintKind::Length { min, max } => {
                    let kind = if matches!(c.kind, ConstraintKind::Range { .. }) {
                        "range"
                    } else {
                        "length"
                    };
                    m.insert("kind".into(), json!(kind));
                    m.insert("min".into(), opt(min));
                    m.insert("max".into(), opt(max));
                }
                ConstraintKind::Modulo { step, offset } => {
                    m.insert("kind".into(), json!("modulo"));
                    m.insert("step".into(), step.to_json());
                    m.insert("offset".into(), offset.to_json());
                }
                ConstraintKind::AllowedValues(v) => {
                    m.insert("kind".into(), json!("allowed_values"));
                    m.insert(
                        "values".into(),
                        Json::Array(v.iter().map(Value::to_json).collect()),
                    );
                }
                ConstraintKind::AllowedPattern { pattern, .. } => {
                    m.insert("kind".into(), json!("allowed_pattern"));
                    m.insert("pattern".into(), json!(pattern));
                }
                ConstraintKind::Custom(name) => {
                    m.insert("kind".into(), json!("custom_constraint"));
                    m.insert("name".into(), name.to_json());
                }
            }
            Json::Object(m)
        })
        .collect();
    let check = match s.check() {
        Ok(()) => json!({"ok": true}),
        Err(e) => json!({"ok": false, "error": e.message(), "class": e.class.python_name()}),
    };
    json!({
        "type": s.param_type.name(),
        "description": opt(&s.description),
        "default": opt(&s.default),
        "required": s.required(),
        "hidden": s.hidden.to_json(),
        "label": opt(&s.label),
        "immutable": s.immutable.to_json(),
        "tags": opt(&s.tags),
        "constraints": constraints,
        "check": check,
        "api": {"ok": true, "value": s.api().to_json()},
    })
}

/// Compares a SCHEMA map: everything but `check` by value, `check` as an
/// outcome.
fn compare_schemas(expected: &Json, got: &[ParamSchema]) -> Result<(), String> {
    let want = expected.as_object().ok_or("schemas not an object")?;
    if want.len() != got.len() {
        return Err(format!("{} parameters, want {}", got.len(), want.len()));
    }
    for s in got {
        let w = want
            .get(&s.name)
            .ok_or_else(|| format!("unexpected parameter {}", s.name))?;
        let mut mine = schema_json(s);
        let mut theirs = w.clone();
        let their_check = theirs["check"].take();
        mine["check"].take();
        if mine != theirs {
            return Err(format!("parameter {}: {mine}, want {theirs}", s.name));
        }
        let check = s.check().map(|()| None);
        compare(&their_check, check).map_err(|e| format!("parameter {} check: {e}", s.name))?;
    }
    Ok(())
}

fn params_of(v: &Json) -> Vec<(String, Value)> {
    v.as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), Value::from_json(v)))
                .collect()
        })
        .unwrap_or_default()
}

fn values_json(values: &[(String, Value)]) -> Json {
    Json::Object(
        values
            .iter()
            .map(|(k, v)| (k.clone(), v.to_json()))
            .collect(),
    )
}

fn compare_resolved(section: &str, want: &Json, got: &[(String, Resolved)]) -> Result<(), String> {
    let empty = serde_json::Map::new();
    let want = want.as_object().unwrap_or(&empty);
    if want.len() != got.len() {
        return Err(format!(
            "{section}: {} entries, want {}",
            got.len(),
            want.len()
        ));
    }
    for (name, r) in got {
        let w = want
            .get(name)
            .ok_or_else(|| format!("{section}: unexpected {name}"))?;
        let res = match (w.get("skipped").and_then(Json::as_str), r) {
            (Some("needs_resources"), Resolved::NeedsResources(f)) => {
                let mut wf: Vec<&str> = w["functions"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Json::as_str).collect())
                    .unwrap_or_default();
                wf.sort_unstable();
                let mut gf: Vec<&str> = f.iter().map(String::as_str).collect();
                gf.sort_unstable();
                gf.dedup();
                wf.dedup();
                if wf == gf {
                    Ok(())
                } else {
                    Err(format!("functions {gf:?}, want {wf:?}"))
                }
            }
            (Some("condition_false"), Resolved::ConditionFalse) => Ok(()),
            (None, Resolved::Value(v)) => compare(w, Ok(Some(v.to_json()))),
            (None, Resolved::Error(e)) => compare(w, Err(e.clone())),
            (_, other) => Err(format!("{other:?}, want {w}")),
        };
        res.map_err(|e| format!("{section}.{name}: {e}"))?;
    }
    Ok(())
}

fn compare_resolve(
    expected: &Json,
    t: &Template,
    params: &[(String, Value)],
) -> Result<(), String> {
    let got = resolve_template(t, params);
    let want_ok = expected["ok"].as_bool().unwrap_or(false);
    let got = match (want_ok, got) {
        (true, Ok(g)) => g,
        (_, Err(e)) if !want_ok => return compare_error(&expected["error"], &e),
        (_, Err(e)) => return Err(format!("error {}", e.message())),
        (false, Ok(_)) => return Err("ok, want error".into()),
    };
    let w = &expected["value"];
    compare_resolved("outputs", &w["outputs"], &got.outputs)?;
    compare_resolved(
        "resource_properties",
        &w["resource_properties"],
        &got.resource_properties,
    )?;
    let wc = w["conditions"].as_object().cloned().unwrap_or_default();
    if wc.len() != got.conditions.len() {
        return Err(format!(
            "conditions: {} entries, want {}",
            got.conditions.len(),
            wc.len()
        ));
    }
    for (name, r) in &got.conditions {
        let wv = wc
            .get(name)
            .ok_or_else(|| format!("unexpected condition {name}"))?;
        compare(wv, r.clone().map(|b| Some(Json::Bool(b))))
            .map_err(|e| format!("conditions.{name}: {e}"))?;
    }
    for (key, got) in [
        ("outputs_error", &got.outputs_error),
        (
            "resource_definitions_error",
            &got.resource_definitions_error,
        ),
        ("conditions_error", &got.conditions_error),
    ] {
        match (w.get(key), got) {
            (None, None) => {}
            (Some(we), Some(ge)) => compare_error(we, ge).map_err(|e| format!("{key}: {e}"))?,
            (Some(we), None) => return Err(format!("{key}: none, want {we}")),
            (None, Some(ge)) => return Err(format!("{key}: {}, want none", ge.message())),
        }
    }
    Ok(())
}

fn run(dir: &Path, known: &KnownFailures) -> Suite {
    let mut suite = Suite::new("hot-validate", known);
    let cases = read_jsonl(&dir.join("cases.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let limits = Limits::default();
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?");
        let path = dir.join(case["template"].as_str().unwrap_or(""));
        let text = match std::fs::read(&path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                suite.record(
                    &format!("{id}#load"),
                    Err(format!("{}: {e}", path.display())),
                );
                continue;
            }
        };
        let loaded = murano_hot::load::parse(&text, &limits);
        suite.record(
            &format!("{id}#load"),
            compare(&case["load"], loaded.clone().map(|v| Some(v.to_json()))),
        );
        let Some(version) = case.get("version") else {
            continue;
        };
        let Ok(data) = loaded else {
            suite.record(&format!("{id}#version"), Err("load failed".into()));
            continue;
        };
        let detected = murano_hot::version::detect(&data);
        suite.record(
            &format!("{id}#version"),
            compare(
                version,
                detected.clone().map(|d| {
                    Some(json!({"key": d.key, "value": d.value, "class": d.version.class_name()}))
                }),
            ),
        );
        let Ok(detected) = detected else { continue };
        let t = Template {
            data,
            version: detected.version,
            limits: limits.clone(),
        };
        let valid_native = case["values"]
            .as_array()
            .and_then(|v| v.iter().find(|s| s["label"] == "valid_native"))
            .map(|s| params_of(&s["params"]))
            .unwrap_or_default();
        if let Some(v) = case.get("validate") {
            if let Some(e) = v.get("template") {
                suite.record(
                    &format!("{id}#validate.template"),
                    compare(e, t.validate_sections().map(|()| None)),
                );
            }
            if let Some(e) = v.get("stack_generic") {
                suite.record(
                    &format!("{id}#validate.stack_generic"),
                    compare(e, t.validate(&[]).map(|()| None)),
                );
            }
            if let Some(e) = v.get("stack_generic_valid_params") {
                suite.record(
                    &format!("{id}#validate.stack_generic_valid_params"),
                    compare(e, t.validate(&valid_native).map(|()| None)),
                );
            }
        }
        if let Some(e) = case.get("schemas") {
            let got = t.schemas();
            let r = match (e["ok"].as_bool() == Some(true), &got) {
                (true, Ok(s)) => compare_schemas(&e["value"], s),
                _ => compare(e, got.clone().map(|_| None)),
            };
            suite.record(&format!("{id}#schemas"), r);
        }
        for (i, set) in case["values"].as_array().into_iter().flatten().enumerate() {
            let params = params_of(&set["params"]);
            let got = t.parameter_values(&params).map(|v| Some(values_json(&v)));
            suite.record(&format!("{id}#values[{i}]"), compare(&set["result"], got));
        }
        if let Some(r) = case.get("resolve") {
            if let Some(result) = r.get("result") {
                suite.record(
                    &format!("{id}#resolve"),
                    compare_resolve(result, &t, &valid_native),
                );
            }
        }
    }
    suite
}
