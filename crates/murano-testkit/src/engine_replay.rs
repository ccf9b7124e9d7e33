//! Replays the engine conformance suite (`conformance/engine/`, see its
//! README): the test packages and Murano's core library loaded from the
//! suite's `meta/`, the Python test classes and callbacks its tests
//! register, and each test's steps (runners built from object models,
//! calls, serialised models, finalisation) on fresh engines, compared with
//! the recorded outcomes and traces. The `engine` conformance test and the
//! engine benchmarks share it.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use murano_dsl::model::MethodScope;
use murano_dsl::version::Version;
use murano_engine::{
    host_exception, ClassSet, ClassSetBuilder, Engine, EngineBuilder, EngineError, ErrorKind,
    NativeCall, NativeMethod, Receiver,
};
use murano_yaql::eval::{Dict, FunctionDef, Value};
use serde_json::{json, Map, Value as Json};

/// Packages `tests` then `io.murano`, every class file below each
/// (manifests excepted), the engine's system classes in `io.murano`, with the test loader's quirk: methods named
/// `test*` are Public.
pub fn load_classes(meta: &Path) -> Result<ClassSet, String> {
    let mut b = ClassSetBuilder::new();
    for (package, sub) in [("tests", "tests"), ("io.murano", "io.murano/Classes")] {
        let pkg = b
            .add_package(package, Version::new(0, 0, 0))
            .map_err(|e| e.to_string())?;
        if package == "io.murano" {
            // Murano registers its Python classes (`io.murano.system.GC`)
            // into `io.murano` for every test.
            b.add_system_classes(pkg).map_err(|e| e.to_string())?;
        }
        let base = meta.join(sub);
        for (rel, path) in crate::files_below(&base) {
            if !rel.ends_with(".yaml") || rel.ends_with("manifest.yaml") {
                continue;
            }
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let shown = format!("meta/{sub}/{rel}");
            let defs = ClassSetBuilder::parse_file(&bytes, &shown).map_err(|e| e.to_string())?;
            for mut def in defs {
                for m in &mut def.methods {
                    if m.name.starts_with("test") {
                        m.scope = MethodScope::Public;
                    }
                }
                merge_python_class(&mut def)?;
                if def.full_name.is_none() {
                    continue;
                }
                b.add_class(pkg, &shown, def).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(b.build())
}

/// The Python classes two test modules register (README §1.2), declared
/// here in MuranoPL and merged into the classes of the same name; their
/// bodies are [`python_natives`].
const PYTHON_CLASSES: &[(&str, &str)] = &[
    (
        "test.TestStatics",
        "Name: X
Methods:
  staticPythonMethod:
    Usage: Static
    Arguments: [{arg: {Contract: $.int()}}]
  classmethodPythonMethod:
    Usage: Static
    Arguments: [{arg: {Contract: $}}]
",
    ),
    (
        "extcls.Extender",
        "Name: X
Methods:
  pythonExtension:
    Usage: Extension
    Arguments: [{arg: {Contract: $.int()}}]
  pythonExtension2:
    Usage: Extension
    Arguments: [{arg: {Contract: $.int()}}]
",
    ),
];

fn merge_python_class(def: &mut murano_dsl::model::ClassDefinition) -> Result<(), String> {
    for (name, yaml) in PYTHON_CLASSES {
        if def.full_name.as_deref() == Some(name) {
            let extra = ClassSetBuilder::parse_file(yaml.as_bytes(), "python")
                .map_err(|e| e.to_string())?;
            for class in extra {
                def.methods.extend(class.methods);
            }
        }
    }
    Ok(())
}

fn native(
    class: &str,
    method: &str,
    body: impl Fn(&NativeCall<'_>) -> Result<Value, EngineError> + Send + Sync + 'static,
) -> NativeMethod {
    NativeMethod {
        class: class.to_owned(),
        method: method.to_owned(),
        body: Arc::new(body),
    }
}

fn int_arg(call: &NativeCall<'_>) -> i64 {
    call.arg("arg").and_then(Value::as_int).unwrap_or(0)
}

/// The bodies of the Python test classes' methods.
fn python_natives() -> Vec<NativeMethod> {
    vec![
        native("test.TestStatics", "staticPythonMethod", |c| {
            let k = if c.receiver.is_some() { 3 } else { 7 };
            Ok(Value::Int(k * int_arg(c)))
        }),
        native("test.TestStatics", "classmethodPythonMethod", |c| {
            let prefix = if c.receiver.is_some() {
                "PYTHONCLASS"
            } else {
                "PythonClass"
            };
            let arg = c.arg("arg").map(Value::py_str).unwrap_or_default();
            Ok(Value::str(&format!("{prefix}{arg}")))
        }),
        native("extcls.Extender", "pythonExtension", |c| {
            let a = int_arg(c);
            Ok(Value::Int(a * a))
        }),
        native("extcls.Extender", "pythonExtension2", |c| {
            Ok(Value::Int(2 * int_arg(c)))
        }),
    ]
}

type Traces = Arc<Mutex<Vec<Value>>>;

/// The engine a runner's host functions belong to (set once it exists).
type EngineCell = Arc<std::sync::OnceLock<murano_engine::WeakEngine>>;

fn host_functions(traces: &Traces, names: &[String], cell: &EngineCell) -> Vec<FunctionDef> {
    let mut out = Vec::new();
    let t = traces.clone();
    out.push(FunctionDef::native("trace", "data", move |call| {
        let v = call.value(0)?.clone();
        t.lock()
            .map_err(|_| host_exception("RuntimeError", "builtins", "poisoned"))?
            .push(v);
        Ok(Value::Null)
    }));
    for name in names {
        match name.as_str() {
            "raisePythonException" => {
                out.push(FunctionDef::native("raisePythonException", "", |_| {
                    Err(host_exception(
                        "LookupError",
                        "builtins",
                        "just random Python exception",
                    ))
                }))
            }
            "raiseException" => out.push(FunctionDef::native("raiseException", "", |_| {
                Err(host_exception(
                    "CustomException",
                    "murano.tests.unit.dsl.test_execution",
                    "",
                ))
            })),
            "yield" => {
                let t = traces.clone();
                let cell = cell.clone();
                out.push(FunctionDef::native("yield", "", move |_| {
                    t.lock()
                        .map_err(|_| host_exception("RuntimeError", "builtins", "poisoned"))?
                        .push(Value::str("yield"));
                    if let Some(engine) = cell.get().and_then(|w| w.upgrade()) {
                        engine.yield_point()?;
                    }
                    Ok(Value::Null)
                }));
            }
            _ => {}
        }
    }
    out
}

/// Replays one test's steps (sorted by `step`) without comparing them:
/// what a benchmark times. `Err` only when the steps themselves are
/// malformed.
pub fn replay_test(classes: &Arc<ClassSet>, test: &Json, steps: &[Json]) -> Result<(), String> {
    run(classes, test, steps, false)
}

/// Replays one test's steps (sorted by `step`); `Ok` when every step's
/// outcome and traces match the recording (README §5 for the
/// nondeterministic tests).
pub fn run_test(classes: &Arc<ClassSet>, test: &Json, steps: &[Json]) -> Result<(), String> {
    run(classes, test, steps, true)
}

fn run(classes: &Arc<ClassSet>, test: &Json, steps: &[Json], compare: bool) -> Result<(), String> {
    if steps.is_empty() {
        return Err("no steps".into());
    }
    let mut runners: Vec<(Engine, Traces)> = Vec::new();
    let nondeterministic = test["nondeterministic"]
        .as_array()
        .is_some_and(|r| !r.is_empty());
    let gc_order_free = nondeterministic && test["module"] == "test_gc";
    let isolation_order_free = nondeterministic && test["module"] == "test_concurrency";
    let random_names = nondeterministic
        && test["test"]
            .as_str()
            .is_some_and(|t| t.ends_with(".test_random_name"));
    // README §5: the metadata lists of the nondeterministic `test_meta`
    // tests, and the keys of the dict `test_keys` builds from a set,
    // compare as multisets.
    let keys_from_set = test["module"] == "test_engine_yaql_functions"
        && test["test"]
            .as_str()
            .is_some_and(|t| t.ends_with(".test_keys"));
    let mut ids = Ids {
        unordered: nondeterministic && (test["module"] == "test_meta" || keys_from_set),
        ..Ids::default()
    };
    for step in steps {
        let n = step["step"].as_u64().unwrap_or(0);
        let kind = step["kind"].as_str().unwrap_or("");
        let runner = step["runner"].as_u64().unwrap_or(0) as usize;
        let (outcome, traces) = match kind {
            "new_runner" => {
                let traces: Traces = Arc::new(Mutex::new(Vec::new()));
                let names: Vec<String> = step["functions"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
                let cell: EngineCell = Arc::new(std::sync::OnceLock::new());
                let engine = EngineBuilder::new(classes.clone())
                    .functions(host_functions(&traces, &names, &cell))
                    .natives(python_natives())
                    .build();
                let _ = cell.set(engine.downgrade());
                if let Some(cfg) = step["class_configs"].as_object() {
                    for (class, props) in cfg {
                        if let Value::Dict(d) = to_value(&engine, props) {
                            engine.set_class_config(class, (*d).clone());
                        }
                    }
                }
                let mut model = step["model"].clone();
                if !model.as_object().is_some_and(|m| m.contains_key("Objects")) {
                    model = json!({ "Objects": model });
                }
                if let Some(attrs) = model["Attributes"].as_array() {
                    for a in attrs {
                        if let Some([o, c, k, v]) = a.as_array().map(Vec::as_slice) {
                            engine.add_attribute(
                                o.as_str().unwrap_or(""),
                                c.as_str().unwrap_or(""),
                                k.as_str().unwrap_or(""),
                                to_value(&engine, v),
                            );
                        }
                    }
                }
                let model_value = to_value(&engine, &model);
                let result = engine.load_model(&model_value);
                let outcome = match result {
                    Ok(root) => {
                        json!({"root": root.map_or(Json::Null, |r| encode(&engine, &r))})
                    }
                    Err(e) => json!({"raised": raised(&e, false)}),
                };
                if runners.len() != runner {
                    return Err(format!("step {n}: runner {runner} out of order"));
                }
                runners.push((engine, traces.clone()));
                (outcome, take(&runners[runner].0, &traces))
            }
            "call" | "serialized_model" | "finalize" => {
                let Some((engine, traces)) = runners.get(runner) else {
                    return Err(format!("step {n}: no runner {runner}"));
                };
                let outcome = match kind {
                    "call" => {
                        let receiver = if let Some(id) = step["receiver"]["object"].as_str() {
                            match engine.object(id) {
                                Some(v) => Receiver::Object(v),
                                None => return Err(format!("step {n}: no object {id}")),
                            }
                        } else {
                            Receiver::Class(
                                step["receiver"]["class"].as_str().unwrap_or("").to_owned(),
                            )
                        };
                        let args: Vec<Value> = step["args"]
                            .as_array()
                            .map(|a| a.iter().map(|x| to_value(engine, x)).collect())
                            .unwrap_or_default();
                        let kwargs: Vec<(String, Value)> = step["kwargs"]
                            .as_object()
                            .map(|m| {
                                m.iter()
                                    .map(|(k, x)| (k.clone(), to_value(engine, x)))
                                    .collect()
                            })
                            .unwrap_or_default();
                        let method = step["method"].as_str().unwrap_or("");
                        match engine.call(&receiver, method, args, kwargs) {
                            Ok(v) => json!({"returned": encode(engine, &v)}),
                            Err(e) => json!({"raised": raised(
                                &e,
                                step["preserve_exception"].as_bool().unwrap_or(false)
                            )}),
                        }
                    }
                    "serialized_model" => {
                        json!({"returned": encode(engine, &engine.serialized_model())})
                    }
                    _ => match engine.finalize() {
                        Ok(v) => json!({"returned": encode(engine, &v)}),
                        Err(e) => json!({"raised": raised(&e, false)}),
                    },
                };
                (outcome, take(engine, traces))
            }
            other => return Err(format!("step {n}: unknown kind {other}")),
        };
        if !compare {
            continue;
        }
        // README §3 writes a dict with a non-string key as `$map` sorted
        // by key: its insertion order, which orders what the method
        // builds from it (`values()`, `keys()`), is lost, so that call's
        // lists compare as multisets.
        let order_lost =
            kind == "call" && (has_ordered_map(&step["args"]) || has_ordered_map(&step["kwargs"]));
        let unordered = ids.unordered;
        ids.unordered |= order_lost;
        let outcome_match = if random_names && kind == "call" {
            random_name_shape(&step["outcome"], &outcome)
        } else {
            compare_outcome(&step["outcome"], &outcome, &mut ids)
        };
        ids.unordered = unordered;
        outcome_match.map_err(|e| format!("step {n} ({kind}) outcome: {e}"))?;
        let traces_match = if gc_order_free {
            // README §5: nodes are destroyed in either order, the root last.
            let (e, a) = (&step["traces"], &traces);
            let last_same =
                e.as_array().and_then(|x| x.last()) == a.as_array().and_then(|x| x.last());
            ids.unordered = true;
            let r = ids.matches(e, a);
            ids.unordered = false;
            r.and_then(|()| {
                if last_same {
                    Ok(())
                } else {
                    Err("the last destroyed object differs".to_owned())
                }
            })
        } else if isolation_order_free {
            isolated_calls_match(&step["traces"], &traces)
        } else {
            ids.matches(&step["traces"], &traces)
        };
        traces_match.map_err(|e| format!("step {n} ({kind}) traces: {e}"))?;
    }
    Ok(())
}

/// Whether an encoded value holds a `$map` of two or more entries (a dict
/// whose insertion order the encoding replaced by key order).
fn has_ordered_map(v: &Json) -> bool {
    match v {
        Json::Object(m) => {
            m.get("$map")
                .and_then(Json::as_array)
                .is_some_and(|entries| entries.len() >= 2)
                || m.values().any(has_ordered_map)
        }
        Json::Array(a) => a.iter().any(has_ordered_map),
        _ => false,
    }
}

/// README §5 for `test_random_name`: random output, so only its shape:
/// five lowercase letters, eight base-36 digits of the clock, and the
/// counter (which starts at 1 in both).
fn random_name_shape(expected: &Json, actual: &Json) -> Result<(), String> {
    let (Some(e), Some(a)) = (expected["returned"].as_str(), actual["returned"].as_str()) else {
        return Err(format!("not a string: {actual}"));
    };
    let shape = |s: &str| {
        s.len() > 13
            && s[..5].bytes().all(|b| b.is_ascii_lowercase())
            && s[5..]
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    };
    if shape(a) && shape(e) && a[13..] == e[13..] {
        Ok(())
    } else {
        Err(format!("{a:?} does not have the shape of {e:?}"))
    }
}

/// README §5 for the isolated `test_concurrency` tests: the calls run in
/// any order, but each call's `before`/`yield`/`after` stay together and
/// the traces are the same multiset.
fn isolated_calls_match(expected: &Json, actual: &Json) -> Result<(), String> {
    let strings = |j: &Json| -> Vec<String> {
        j.as_array()
            .map(|a| a.iter().map(|x| x.to_string()).collect())
            .unwrap_or_default()
    };
    let (mut e, a) = (strings(expected), strings(actual));
    let mut sorted = a.clone();
    sorted.sort();
    e.sort();
    if sorted != e {
        return Err(format!("not the same traces: {actual}"));
    }
    for chunk in a.chunks(3) {
        let call = |s: &str, end: &str| s.trim_matches('"').strip_suffix(end).map(str::to_owned);
        match chunk {
            [b, y, f]
                if y == "\"yield\""
                    && call(b, "-before").is_some()
                    && call(b, "-before") == call(f, "-after") => {}
            _ => return Err(format!("a call's traces are not contiguous: {actual}")),
        }
    }
    Ok(())
}

fn take(engine: &Engine, traces: &Traces) -> Json {
    let items: Vec<Value> = match traces.lock() {
        Ok(mut t) => std::mem::take(&mut *t),
        Err(_) => Vec::new(),
    };
    Json::Array(items.iter().map(|v| encode(engine, v)).collect())
}

/// An exception as the README encodes it (the fields this harness
/// compares).
fn raised(e: &EngineError, preserve: bool) -> Json {
    let thrown = matches!(e.kind, ErrorKind::Thrown { .. });
    if thrown || preserve {
        json!({
            "type": "MuranoPlException",
            "murano_names": e.murano_names(),
            "message": e.message,
            "formatted": e.formatted(),
        })
    } else {
        json!({"type": e.python_type(), "module": e.python_module(), "message": e.message})
    }
}

fn compare_outcome(expected: &Json, actual: &Json, ids: &mut Ids) -> Result<(), String> {
    if let (Some(exp), Some(act)) = (expected.get("raised"), actual.get("raised")) {
        if exp["type"] != act["type"] {
            return Err(format!(
                "raised {} ({}), expected {} ({})",
                act["type"], act["message"], exp["type"], exp["message"]
            ));
        }
        if exp["type"] == "MuranoPlException" && exp["murano_names"] != act["murano_names"] {
            return Err(format!(
                "raised names {}, expected {}",
                act["murano_names"], exp["murano_names"]
            ));
        }
        if let Some(text) = exp.get("formatted") {
            if text != &act["formatted"] {
                return Err(format!(
                    "formatted trace:\n{}\nexpected:\n{}",
                    act["formatted"].as_str().unwrap_or(""),
                    text.as_str().unwrap_or("")
                ));
            }
        }
        return Ok(());
    }
    ids.matches(expected, actual)
}

// ----- values --------------------------------------------------------------

fn to_value(engine: &Engine, j: &Json) -> Value {
    match j {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => Value::str(s),
        Json::Array(a) => Value::List(Arc::new(a.iter().map(|x| to_value(engine, x)).collect())),
        Json::Object(m) => {
            if let Some(obj) = m.get("$object") {
                if let Some(v) = obj["id"].as_str().and_then(|id| engine.object(id)) {
                    return v;
                }
            }
            if let (1, Some(Json::Array(pairs))) = (m.len(), m.get("$map")) {
                let mut d = Dict::default();
                for p in pairs {
                    if let Some([k, v]) = p.as_array().map(Vec::as_slice) {
                        d.insert(to_value(engine, k), to_value(engine, v));
                    }
                }
                return Value::Dict(Arc::new(d));
            }
            if let (1, Some(Json::Array(items))) = (m.len(), m.get("$set")) {
                return Value::Set(Arc::new(
                    items.iter().map(|x| to_value(engine, x)).collect(),
                ));
            }
            if let (1, Some(Json::String(f))) = (m.len(), m.get("$float")) {
                return Value::Float(match f.as_str() {
                    "inf" => f64::INFINITY,
                    "-inf" => f64::NEG_INFINITY,
                    _ => f64::NAN,
                });
            }
            let mut d = Dict::default();
            for (k, v) in m {
                d.insert(Value::str(k), to_value(engine, v));
            }
            Value::Dict(Arc::new(d))
        }
    }
}

fn encode(engine: &Engine, v: &Value) -> Json {
    let mut seen = Vec::new();
    encode_in(engine, v, &mut seen, 0)
}

fn float(f: f64) -> Json {
    if f.is_nan() {
        json!({"$float": "nan"})
    } else if f.is_infinite() {
        json!({"$float": if f > 0.0 { "inf" } else { "-inf" }})
    } else {
        serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number)
    }
}

fn sorted_by_text(mut items: Vec<Json>) -> Vec<Json> {
    items.sort_by_key(|x| x.to_string());
    items
}

fn encode_in(engine: &Engine, v: &Value, seen: &mut Vec<String>, depth: usize) -> Json {
    if depth > 200 {
        return json!("<too deep>");
    }
    if let Some(view) = engine.object_view(v) {
        if seen.contains(&view.id) {
            return json!({"$ref": view.id});
        }
        seen.push(view.id.clone());
        let mut props = Map::new();
        for (k, x) in &view.props {
            props.insert(k.clone(), encode_in(engine, x, seen, depth + 1));
        }
        let mut o = Map::new();
        o.insert("id".into(), json!(view.id));
        o.insert("type".into(), json!(view.class));
        o.insert("props".into(), Json::Object(props));
        if view.destroyed {
            o.insert("destroyed".into(), json!(true));
        }
        if let Some(n) = &view.name {
            o.insert("name".into(), encode_in(engine, n, seen, depth + 1));
        }
        return json!({ "$object": o });
    }
    if let Some((name, reference)) = engine.type_view(v) {
        return if reference {
            json!({ "$typeref": name })
        } else {
            json!({ "$type": name })
        };
    }
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => json!(b),
        Value::Int(i) => json!(i),
        Value::Float(f) => float(*f),
        Value::Str(s) => json!(&**s),
        Value::List(items) | Value::Tuple(items) => Json::Array(
            items
                .iter()
                .map(|x| encode_in(engine, x, seen, depth + 1))
                .collect(),
        ),
        Value::Set(items) => json!({"$set": sorted_by_text(
            items.iter().map(|x| encode_in(engine, x, seen, depth + 1)).collect()
        )}),
        Value::Dict(d) => {
            let plain = d
                .keys()
                .all(|k| matches!(k, Value::Str(s) if !s.starts_with('$')));
            if plain {
                let mut m = Map::new();
                for (k, x) in d.iter() {
                    m.insert(
                        k.as_str().unwrap_or("").to_owned(),
                        encode_in(engine, x, seen, depth + 1),
                    );
                }
                Json::Object(m)
            } else {
                let mut pairs: Vec<(String, Json)> = d
                    .iter()
                    .map(|(k, x)| {
                        let kj = encode_in(engine, k, seen, depth + 1);
                        (
                            kj.to_string(),
                            json!([kj, encode_in(engine, x, seen, depth + 1)]),
                        )
                    })
                    .collect();
                pairs.sort_by(|a, b| a.0.cmp(&b.0));
                json!({"$map": pairs.into_iter().map(|p| p.1).collect::<Vec<_>>()})
            }
        }
        other => json!(format!("<{}>", other.type_name())),
    }
}

// ----- ids modulo renaming -------------------------------------------------

/// Bindings of the expected placeholders (`@N`) to engine ids.
#[derive(Default)]
struct Ids {
    forward: HashMap<String, String>,
    backward: HashMap<String, String>,
    /// Lists compare as multisets (the README's rule for the metadata
    /// lists of the nondeterministic `test_meta` tests).
    unordered: bool,
}

impl Ids {
    fn matches(&mut self, expected: &Json, actual: &Json) -> Result<(), String> {
        match (expected, actual) {
            (Json::String(e), Json::String(a)) => {
                if self.strings(e, a) {
                    Ok(())
                } else {
                    Err(format!("{a:?} != expected {e:?}"))
                }
            }
            (Json::Number(e), Json::Number(a)) => {
                let same = if e.is_f64() || a.is_f64() {
                    e.is_f64() == a.is_f64() && e.as_f64() == a.as_f64()
                } else {
                    e == a
                };
                if same {
                    Ok(())
                } else {
                    Err(format!("{a} != expected {e}"))
                }
            }
            (Json::Array(e), Json::Array(a)) if self.unordered => {
                if e.len() != a.len() {
                    return Err(format!("{} items, expected {}", a.len(), e.len()));
                }
                let mut used = vec![false; a.len()];
                for (i, x) in e.iter().enumerate() {
                    let found = (0..a.len()).find(|&j| {
                        if used[j] {
                            return false;
                        }
                        let (f, b) = (self.forward.clone(), self.backward.clone());
                        if self.matches(x, &a[j]).is_ok() {
                            true
                        } else {
                            self.forward = f;
                            self.backward = b;
                            false
                        }
                    });
                    match found {
                        Some(j) => used[j] = true,
                        None => return Err(format!("[{i}]: no match for {}", short(x))),
                    }
                }
                Ok(())
            }
            (Json::Array(e), Json::Array(a)) => {
                if e.len() != a.len() {
                    return Err(format!(
                        "{} items, expected {}: {} vs {}",
                        a.len(),
                        e.len(),
                        short(actual),
                        short(expected)
                    ));
                }
                for (i, (x, y)) in e.iter().zip(a).enumerate() {
                    self.matches(x, y).map_err(|m| format!("[{i}]: {m}"))?;
                }
                Ok(())
            }
            (Json::Object(e), Json::Object(a)) => {
                if e.len() != a.len() {
                    let ek: Vec<&String> = e.keys().collect();
                    let ak: Vec<&String> = a.keys().collect();
                    return Err(format!("keys {ak:?}, expected {ek:?}"));
                }
                for (k, x) in e {
                    let found = match a.get(k) {
                        Some(y) if !k.contains('@') => Some((k.clone(), y)),
                        _ => a
                            .iter()
                            .find(|(ak, _)| self.strings(k, ak))
                            .map(|(ak, y)| (ak.clone(), y)),
                    };
                    let Some((_, y)) = found else {
                        let ak: Vec<&String> = a.keys().collect();
                        return Err(format!(
                            "missing key {k:?} (have {ak:?}: {})",
                            short(actual)
                        ));
                    };
                    self.matches(x, y).map_err(|m| format!(".{k}: {m}"))?;
                }
                Ok(())
            }
            _ if expected == actual => Ok(()),
            _ => Err(format!("{} != expected {}", short(actual), short(expected))),
        }
    }

    /// Matches a string with `@N` placeholders against an actual string,
    /// binding placeholders to ids (32 hex digits or `@N` literals).
    fn strings(&mut self, expected: &str, actual: &str) -> bool {
        if !expected.contains('@') {
            return expected == actual;
        }
        let mut fwd = self.forward.clone();
        let mut bwd = self.backward.clone();
        if match_from(expected, actual, &mut fwd, &mut bwd) {
            self.forward = fwd;
            self.backward = bwd;
            true
        } else {
            false
        }
    }
}

fn match_from(
    e: &str,
    a: &str,
    fwd: &mut HashMap<String, String>,
    bwd: &mut HashMap<String, String>,
) -> bool {
    let Some(at) = e.find('@') else {
        return e == a;
    };
    let (lit, rest) = e.split_at(at);
    let Some(a_rest) = a.strip_prefix(lit) else {
        return false;
    };
    let digits = rest[1..].chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || rest[1..].starts_with("addr") {
        // `@addr` or a lone `@`: literal.
        let lit_len = if rest.starts_with("@addr") { 5 } else { 1 };
        let Some(a_next) = a_rest.strip_prefix(&rest[..lit_len]) else {
            return false;
        };
        return match_from(&rest[lit_len..], a_next, fwd, bwd);
    }
    let placeholder = &rest[..=digits];
    let e_next = &rest[1 + digits..];
    if let Some(bound) = fwd.get(placeholder).cloned() {
        return match a_rest.strip_prefix(bound.as_str()) {
            Some(a_next) => match_from(e_next, a_next, fwd, bwd),
            None => false,
        };
    }
    let candidates: Vec<usize> = {
        let hex = a_rest.chars().take_while(char::is_ascii_hexdigit).count();
        let mut c = Vec::new();
        if hex >= 32 {
            c.push(32);
        }
        if let Some(r) = a_rest.strip_prefix('@') {
            let d = r.chars().take_while(char::is_ascii_digit).count();
            if d > 0 {
                c.push(1 + d);
            }
        }
        c
    };
    for len in candidates {
        let id = &a_rest[..len];
        if bwd.get(id).is_some_and(|p| p != placeholder) {
            continue;
        }
        let (mut f2, mut b2) = (fwd.clone(), bwd.clone());
        f2.insert(placeholder.to_owned(), id.to_owned());
        b2.insert(id.to_owned(), placeholder.to_owned());
        if match_from(e_next, &a_rest[len..], &mut f2, &mut b2) {
            *fwd = f2;
            *bwd = b2;
            return true;
        }
    }
    false
}

fn short(j: &Json) -> String {
    let s = j.to_string();
    if s.len() > 300 {
        format!(
            "{}…",
            &s[..s.char_indices().nth(300).map_or(s.len(), |c| c.0)]
        )
    } else {
        s
    }
}
