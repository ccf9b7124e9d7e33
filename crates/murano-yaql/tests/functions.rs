//! `conformance yaql-functions`: every overload that yaql 3.2.0's standard
//! and legacy contexts register (`conformance/yaql/functions.jsonl`) exists
//! in [`Library::standard`] / [`Library::legacy`] with the same calling
//! forms (method and/or function), the same keyword names in the same
//! positions, no more required arguments, lazy (expression) parameters
//! where yaql takes a `Lambda`, and free keyword arguments where yaql takes
//! `**kwargs`.
//!
//! The inventory does not mark `*args` parameters: a trailing positional
//! parameter of the reference is also covered by our extra positional
//! arguments.

use murano_testkit::{conclude, read_jsonl, Suite};
use murano_yaql::eval::{FunctionDef, Library};
use serde_json::Value as Json;

/// yaql's hidden parameter types: injected, never passed by a caller.
const HIDDEN: &[&str] = &[
    "Context",
    "Engine",
    "Delegate",
    "Super",
    "Receiver",
    "FunctionDefinition",
    "YaqlInterface",
];

/// yaql's lazy parameter types: the argument is passed unevaluated.
const LAZY: &[&str] = &["Lambda", "YaqlExpression", "MappingRule"];

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures.txt")
    else {
        return;
    };
    let rows = read_jsonl(&root.join("conformance/yaql/functions.jsonl"))
        .unwrap_or_else(|e| panic!("{e}"));
    let standard = Library::standard(false);
    let legacy = Library::legacy();
    let mut suite = Suite::new("yaql-functions", &known);
    let mut seen = std::collections::HashMap::<String, usize>::new();
    for row in &rows {
        let name = row["name"].as_str().unwrap_or("?");
        let library = row["library"].as_str().unwrap_or("?");
        let n = seen.entry(format!("{library}:{name}")).or_default();
        *n += 1;
        let id = format!("{library}:{name}#{n}");
        let lib = if library == "standard" {
            &standard
        } else {
            &legacy
        };
        let result = if lib.overloads_of(name).any(|d| covers(d, row).is_ok()) {
            Ok(())
        } else {
            let why: Vec<String> = lib
                .overloads_of(name)
                .map(|d| covers(d, row).unwrap_err())
                .collect();
            Err(if why.is_empty() {
                "not registered".to_owned()
            } else {
                why.join("; ")
            })
        };
        suite.record(&id, result);
    }
    conclude(vec![suite.finish()]);
}

/// Whether `def` offers the calling forms of the reference overload `row`.
fn covers(def: &FunctionDef, row: &Json) -> Result<(), String> {
    let sig = signature(def);
    if def.is_method() != row["method"].as_bool().unwrap_or(false)
        || def.is_function() != row["function"].as_bool().unwrap_or(false)
    {
        return Err(format!("{sig}: forms differ"));
    }
    let params: Vec<&Json> = row["params"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let visible = |p: &&&Json| !HIDDEN.contains(&p["type"].as_str().unwrap_or(""));
    let mut positional: Vec<&Json> = params
        .iter()
        .filter(visible)
        .filter(|p| !p["position"].is_null())
        .copied()
        .collect();
    positional.sort_by_key(|p| p["position"].as_u64());
    let ours: Vec<&str> = def.param_names().collect();
    for (i, p) in positional.iter().enumerate() {
        let alias = p["alias"].as_str().unwrap_or("?");
        match ours.get(i) {
            Some(name) if *name == alias => {}
            Some(name) => return Err(format!("{sig}: parameter {i} is `{name}`, not `{alias}`")),
            None if def.has_varargs() && i + 1 == positional.len() => {}
            None => return Err(format!("{sig}: no parameter `{alias}`")),
        }
        let lazy = LAZY.contains(&p["type"].as_str().unwrap_or(""));
        if lazy && !def.is_lazy_param(i) {
            return Err(format!("{sig}: `{alias}` is not lazy"));
        }
    }
    if ours.len() > positional.len() {
        return Err(format!("{sig}: more parameters than the reference"));
    }
    let required = positional
        .iter()
        .filter(|p| p["has_default"].as_bool() != Some(true))
        .count();
    if def.required_params() > required {
        return Err(format!("{sig}: requires more arguments"));
    }
    let kwargs = params
        .iter()
        .filter(visible)
        .any(|p| p["position"].is_null());
    if kwargs && !def.has_any_kwargs() {
        return Err(format!("{sig}: no free keyword arguments"));
    }
    Ok(())
}

fn signature(def: &FunctionDef) -> String {
    let mut parts: Vec<String> = def
        .param_names()
        .enumerate()
        .map(|(i, p)| {
            let lazy = if def.is_lazy_param(i) { "~" } else { "" };
            let opt = if i >= def.required_params() { "=" } else { "" };
            format!("{lazy}{p}{opt}")
        })
        .collect();
    if def.has_varargs() {
        parts.push("*args".into());
    }
    if def.has_any_kwargs() {
        parts.push("**kwargs".into());
    }
    let form = match (def.is_method(), def.is_function()) {
        (true, true) => "ext ",
        (true, false) => "method ",
        _ => "",
    };
    format!("{form}{}({})", def.name(), parts.join(", "))
}
