//! Conformance of data contracts (suite `contracts`): every contract of
//! the engine oracle (`corpus/engine-oracle/contract_cases.jsonl`) applied
//! to every input under runtimes 1.0 and 1.4 gives Murano's outcome for
//! `transform` (value and Python type), `validate` and `check_type` (the
//! same result, or an error of the same class). Messages and paths are
//! compared too and reported, but do not decide.

use std::sync::Arc;

use murano_dsl::contract::{Contract, ContractError, MemoryHost, ObjectHost, Runtime, Scope};
use murano_dsl::yaml::{load_single, Flavor, LoadOptions, Node};
use murano_testkit::{conclude, read_jsonl, Suite};
use murano_yaql::eval::{Dict, HostObject, Value};
use serde_json::{json, Value as Json};

/// The static context of the oracle's host class: `$this` and `$` are the
/// class itself, which has no properties or methods.
#[derive(Debug)]
struct HostClass;

impl HostObject for HostClass {
    fn type_name(&self) -> &str {
        "*MuranoClass(org.oracle.contracthost.ContractHost/0.0.0)"
    }
}

fn main() {
    let Some((root, known)) = murano_testkit::conformance_setup(
        env!("CARGO_MANIFEST_DIR"),
        "known-failures-contracts.txt",
    ) else {
        return;
    };
    let cases = read_jsonl(&root.join("corpus/engine-oracle/contract_cases.jsonl"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut host = MemoryHost::new();
    host.add_class("io.murano.Object", &[]);
    host.add_class(
        "org.oracle.contracthost.ContractHost",
        &["io.murano.Object"],
    );
    let host: Arc<dyn ObjectHost> = Arc::new(host);
    let class: Value = Value::Object(Arc::new(HostClass));
    let runtimes: Vec<(&str, Scope)> = [("1.0", (1, 0)), ("1.4", (1, 4))]
        .into_iter()
        .map(|(name, (major, minor))| {
            let runtime = Arc::new(Runtime::new(major, minor));
            let ctx = runtime
                .root_context()
                .with("$this", class.clone())
                .with("$", class.clone());
            (name, Scope::new(runtime, host.clone()).with_context(ctx))
        })
        .collect();

    let mut suite = Suite::new("contracts", &known);
    let (mut inputs, mut message_diffs, mut path_diffs) = (0, 0, 0);
    let mut examples = Vec::new();
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?").to_owned();
        let mut stats = Stats::default();
        let result = run_case(case, &runtimes, &mut stats);
        inputs += stats.inputs;
        message_diffs += stats.message_diffs;
        path_diffs += stats.path_diffs;
        if let Some(example) = stats.first_diff {
            if examples.len() < 5 {
                examples.push(format!("{id}: {example}"));
            }
        }
        suite.record(&id, result);
    }
    println!(
        "contracts: {inputs} inputs x 2 runtimes x 3 operations; {message_diffs} error messages and {path_diffs} paths differ from Murano's"
    );
    for e in examples {
        println!("  message differs: {e}");
    }
    conclude(vec![suite.finish()]);
}

#[derive(Default)]
struct Stats {
    inputs: usize,
    message_diffs: usize,
    path_diffs: usize,
    first_diff: Option<String>,
}

fn load_under(key: &str, yaml: &str) -> Result<Node, String> {
    let mut text = format!("{key}:\n");
    for line in yaml.lines() {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    let doc = load_single(text.as_bytes(), Flavor::Engine, &LoadOptions::default())
        .map_err(|e| format!("YAML: {e}"))?
        .ok_or("empty YAML")?;
    doc.value
        .get(key)
        .cloned()
        .ok_or_else(|| format!("no {key} key"))
}

fn run_case(case: &Json, runtimes: &[(&str, Scope)], stats: &mut Stats) -> Result<(), String> {
    let contract_yaml = case["contract_yaml"].as_str().ok_or("no contract_yaml")?;
    let contract = Contract::from_node(&load_under("Contract", contract_yaml)?)
        .map_err(|e| format!("contract: {e}"))?;
    let default = if case["has_default"].as_bool() == Some(true) {
        let text = case["default_yaml"].as_str().ok_or("no default_yaml")?;
        Some(load_under("Default", text)?)
    } else {
        None
    };
    let inputs = case["inputs"].as_array().ok_or("no inputs")?;
    let mut failures = Vec::new();
    for (rt, scope) in runtimes {
        let expected = case["results"][*rt].as_array().ok_or("no results")?;
        for (i, (input, outcome)) in inputs.iter().zip(expected).enumerate() {
            stats.inputs += usize::from(*rt == "1.0");
            let data = decode_input(input)?;
            let data = data.as_ref();
            let got_transform = contract
                .transform(scope, data, default.as_ref())
                .map(|t| (encode(&t.value), t.python_type().to_owned()));
            let got_validate = contract.validate(scope, data, default.as_ref());
            let got_check = contract.check_type(scope, data, default.as_ref());
            let mut diffs = Vec::new();
            compare(
                "transform",
                &outcome["transform"],
                got_transform.map(|(v, k)| Some((v, k))),
                stats,
                &mut diffs,
            );
            compare(
                "validate",
                &outcome["validate"],
                got_validate.map(|()| None),
                stats,
                &mut diffs,
            );
            compare(
                "check_type",
                &outcome["check_type"],
                got_check.map(|b| Some((json!(b), String::new()))),
                stats,
                &mut diffs,
            );
            if !diffs.is_empty() {
                failures.push(format!("rt {rt} input #{i} {input}: {}", diffs.join("; ")));
            }
        }
    }
    match failures.len() {
        0 => Ok(()),
        n => Err(format!(
            "{n} outcomes differ; first: {}",
            failures.first().map(String::as_str).unwrap_or("")
        )),
    }
}

type Got = Result<Option<(Json, String)>, ContractError>;

fn compare(op: &str, expected: &Json, got: Got, stats: &mut Stats, diffs: &mut Vec<String>) {
    let ok = expected["ok"].as_bool() == Some(true);
    match (ok, got) {
        (true, Ok(value)) => {
            if let Some((v, kind)) = value {
                let want = &expected["result"];
                if op == "check_type" {
                    if want != &v {
                        diffs.push(format!("{op}: want {want}, got {v}"));
                    }
                } else {
                    let want_kind = expected["kind"].as_str().unwrap_or("");
                    if want != &v || want_kind != kind {
                        diffs.push(format!("{op}: want {want} ({want_kind}), got {v} ({kind})"));
                    }
                }
            }
        }
        (true, Err(e)) => diffs.push(format!(
            "{op}: want ok {}, got {}: {e}",
            expected["result"],
            e.python_type()
        )),
        (false, Ok(v)) => diffs.push(format!(
            "{op}: want {} ({}), got ok {:?}",
            expected["error"]["type"],
            expected["error"]["message"],
            v.map(|x| x.0.to_string())
        )),
        (false, Err(e)) => {
            let err = &expected["error"];
            let (want_type, want_module) = (
                err["type"].as_str().unwrap_or(""),
                err["module"].as_str().unwrap_or(""),
            );
            if want_type != e.python_type() || want_module != e.python_module() {
                diffs.push(format!(
                    "{op}: want {want_module}.{want_type}, got {}.{}: {e}",
                    e.python_module(),
                    e.python_type()
                ));
                return;
            }
            let want_message = err["message"].as_str().unwrap_or("");
            if want_message != e.message {
                if std::env::var_os("CONTRACTS_VERBOSE").is_some() {
                    println!("MSG {want_type}: {want_message:?} vs {:?}", e.message);
                }
                stats.message_diffs += 1;
                if stats.first_diff.is_none() {
                    stats.first_diff = Some(format!("{want_message:?} vs {:?}", e.message));
                }
            }
            let want_path = err["path"].as_str().unwrap_or("");
            if want_path != e.path {
                stats.path_diffs += 1;
                if stats.first_diff.is_none() {
                    stats.first_diff = Some(format!("path {want_path:?} vs {:?}", e.path));
                }
            }
        }
    }
}

/// An input value: `None` for NO_VALUE.
fn decode_input(j: &Json) -> Result<Option<Value>, String> {
    if j.get("$novalue").is_some() && j.as_object().is_some_and(|o| o.len() == 1) {
        return Ok(None);
    }
    decode(j).map(Some)
}

fn decode(j: &Json) -> Result<Value, String> {
    Ok(match j {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().ok_or("number")?),
        },
        Json::String(s) => Value::str(s),
        Json::Array(items) => Value::List(Arc::new(
            items.iter().map(decode).collect::<Result<_, _>>()?,
        )),
        Json::Object(map) => {
            if let (1, Some(Json::Array(pairs))) = (map.len(), map.get("$map")) {
                let mut d = Dict::default();
                for p in pairs {
                    d.insert(decode(&p[0])?, decode(&p[1])?);
                }
                return Ok(Value::Dict(Arc::new(d)));
            }
            if map.len() == 1 && (map.contains_key("$novalue") || map.contains_key("$yaql")) {
                return Err(format!("unsupported nested tag {j}"));
            }
            let mut d = Dict::default();
            for (k, v) in map {
                d.insert(Value::str(k), decode(v)?);
            }
            Value::Dict(Arc::new(d))
        }
    })
}

fn encode(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => json!(b),
        Value::Int(n) => json!(n),
        Value::Float(f) => json!(f),
        Value::Str(s) => json!(&**s),
        Value::List(items) | Value::Tuple(items) => Json::Array(items.iter().map(encode).collect()),
        Value::Dict(d) => {
            if d.keys().all(|k| matches!(k, Value::Str(_))) {
                Json::Object(
                    d.iter()
                        .map(|(k, v)| (k.as_str().unwrap_or("").to_owned(), encode(v)))
                        .collect(),
                )
            } else {
                json!({"$map": d.iter().map(|(k, v)| json!([encode(k), encode(v)])).collect::<Vec<_>>()})
            }
        }
        other => json!({"$repr": other.repr()}),
    }
}
