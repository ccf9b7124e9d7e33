//! Whole engine tasks as murano-engine runs them for murano-api: a
//! deployment, redeployment, action or deletion
//! ([`run_engine_task`], Murano's `TaskExecutor`) and a static action or
//! model builder ([`run_static_action`], Murano's
//! `StaticActionExecutor`), over packages given as their files and a
//! [`Host`].
//!
//! Differences from [`crate::deploy::dry_run_task`], which runs the
//! first deployment only: the model's `ObjectsCopy` is loaded too (its
//! objects missing from `Objects` are created, initialised and destroyed
//! before the action), the action gets keyword arguments, a task without
//! action is a deletion, the action's result is serialised after the
//! model was finalised (so an object result fails at `<result>`), and the
//! returned model is the whole task model as Murano returns it
//! (`SystemData`, `project_id`, `user_id` included).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Map, Value as Json};

use crate::deploy::{DeployOptions, DeployPlan, PackageFiles};
use crate::host::{decode, encode, Host, SystemClasses};
use crate::{Engine, EngineBuilder, EngineError, ErrorKind, Receiver};

/// What a package's class set is built from: its manifest data and the
/// contents of its class files.
type PackageKey = (String, Vec<Arc<Vec<u8>>>);

/// How many parsed class sets [`builder_for`] keeps.
const CLASS_SETS_KEPT: usize = 4;

/// Class sets parsed lately, most recent last: an environment runs
/// task after task over the same packages, and parsing their classes
/// each time was most of a task's cost.
static CLASS_SETS: OnceLock<Mutex<Vec<KeptClassSet>>> = OnceLock::new();

/// A parsed class set and what it was parsed from.
type KeptClassSet = (Vec<PackageKey>, Arc<crate::ClassSet>);

fn package_key(p: &PackageFiles) -> PackageKey {
    let meta = format!(
        "{}\n{:?}\n{}\n{:?}\n{:?}\n{:?}",
        p.name, p.version, p.root, p.format, p.requirements, p.classes
    );
    let files = p
        .classes
        .iter()
        .filter_map(|(_, f)| p.files.get(&format!("Classes/{f}")).cloned())
        .collect();
    (meta, files)
}

/// An engine builder over the classes of `packages`, parsed once for
/// packages whose manifests and class files are equal to those of a
/// recent task (compared whole, not by a hash).
fn builder_for(packages: &[PackageFiles]) -> Result<EngineBuilder, EngineError> {
    let key: Vec<PackageKey> = packages.iter().map(package_key).collect();
    let cache = CLASS_SETS.get_or_init(|| Mutex::new(Vec::new()));
    let hit = {
        let mut kept = cache.lock().unwrap_or_else(|e| e.into_inner());
        match kept.iter().position(|(k, _)| *k == key) {
            Some(i) => {
                let entry = kept.remove(i);
                let classes = entry.1.clone();
                kept.push(entry);
                Some(classes)
            }
            None => None,
        }
    };
    if let Some(classes) = hit {
        return Ok(EngineBuilder::new(classes));
    }
    let classes = Arc::new(crate::deploy::class_set(packages)?);
    let mut kept = cache.lock().unwrap_or_else(|e| e.into_inner());
    if kept.len() >= CLASS_SETS_KEPT {
        kept.remove(0);
    }
    kept.push((key, classes.clone()));
    Ok(EngineBuilder::new(classes))
}

/// The action of an engine task (`task.action` of murano-api).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskAction {
    /// The object the method runs on.
    pub object_id: String,
    /// The method.
    pub method: String,
    /// Keyword arguments (a JSON object; anything else is no argument).
    pub args: Json,
}

/// A static action (`POST /v1/actions`): `class_name.method(**args)`
/// with no receiver.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticAction {
    /// The class.
    pub class_name: String,
    /// The method (`Usage: Static`, `Scope: Public`).
    pub method: String,
    /// The package holding the class (`None`: the class's package).
    pub package: Option<String>,
    /// Keyword arguments (a JSON object).
    pub args: Json,
}

/// What a static action did.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticResult {
    /// `{"ok": true, "result": …}` or `{"raised": {stage: "<static>", …}}`.
    pub outcome: Json,
    /// Host calls and the rest.
    pub recording: crate::host::Recording,
    /// Logger lines.
    pub log: Vec<Json>,
}

fn resources_of(packages: &[PackageFiles]) -> HashMap<String, HashMap<String, Arc<Vec<u8>>>> {
    let mut resources: HashMap<String, HashMap<String, Arc<Vec<u8>>>> = HashMap::new();
    for p in packages {
        let entry = resources.entry(p.name.clone()).or_default();
        for (path, bytes) in &p.files {
            if path.starts_with("Resources/") {
                entry.insert(path.clone(), bytes.clone());
            }
        }
    }
    resources
}

/// Whether Murano reports the error as a `MuranoPlException` (it left a
/// MuranoPL method body) rather than as itself (raised before any
/// MuranoPL frame ran, e.g. an argument contract of the action).
fn wrapped(e: &EngineError) -> bool {
    matches!(e.kind, ErrorKind::Thrown { .. }) || (!e.frames.is_empty() && !entry_argument(e))
}

/// Whether the error comes from binding the arguments of the task's own
/// method (its only frame is the engine's argument-contract frame):
/// Murano's executor gets such an error before any MuranoPL frame runs.
fn entry_argument(e: &EngineError) -> bool {
    matches!(e.frames.as_slice(), [f] if f
        .instruction
        .as_deref()
        .is_some_and(|i| i.starts_with("Contract of argument ")))
}

/// The error as the executor sees it (no frames for an entry argument).
fn as_seen(mut e: EngineError) -> EngineError {
    if entry_argument(&e) && !matches!(e.kind, ErrorKind::Thrown { .. }) {
        e.frames.clear();
    }
    e
}

fn text(e: &EngineError, wrapped: bool) -> String {
    if wrapped {
        format!("[{}]: {}", e.murano_names().join(", "), e.message)
    } else {
        e.message.clone()
    }
}

fn frames(e: &EngineError) -> Json {
    Json::Array(
        e.frames
            .iter()
            .rev()
            .map(|f| {
                json!({"file": f.file, "line": f.line, "column": f.column,
                       "method": f.method, "class": f.class})
            })
            .collect(),
    )
}

/// The `raised` outcome of an error at `stage`.
fn raised(stage: &str, e: &EngineError, wrap: bool) -> Json {
    let mut m = Map::new();
    m.insert("stage".into(), json!(stage));
    if wrap {
        m.insert("type".into(), json!("MuranoPlException"));
        m.insert("murano_names".into(), json!(e.murano_names()));
        m.insert("murano_message".into(), json!(e.message));
        m.insert("message".into(), json!(text(e, true)));
    } else {
        m.insert("type".into(), json!(e.python_type()));
        m.insert("message".into(), json!(e.message));
    }
    if !e.frames.is_empty() {
        m.insert("frames".into(), frames(e));
    }
    json!({ "raised": m })
}

fn take_log(engine: &Engine) -> Vec<Json> {
    engine
        .take_log()
        .into_iter()
        .map(|r| {
            json!({"logger": format!("applications.{}", r.logger),
                   "level": r.level, "message": r.message})
        })
        .collect()
}

/// Whether an encoded value holds a MuranoPL object.
fn holds_object(v: &Json, depth: usize) -> bool {
    if depth > 512 {
        return false;
    }
    match v {
        Json::Object(m) => {
            m.contains_key("$object") || m.values().any(|x| holds_object(x, depth + 1))
        }
        Json::Array(a) => a.iter().any(|x| holds_object(x, depth + 1)),
        _ => false,
    }
}

/// The package fixations Murano stores in `SystemData`: each package's
/// versions.
fn system_data(packages: &[PackageFiles]) -> Json {
    let mut m = Map::new();
    for p in packages {
        m.entry(p.name.clone())
            .or_insert_with(|| json!([p.version.to_string()]));
    }
    json!({ "Packages": m })
}

/// `model` with `SystemData`, `project_id` and `user_id` set as Murano's
/// executor sets them on the returned model.
fn returned(mut model: Json, input: &Json, packages: &[PackageFiles]) -> Json {
    if let Json::Object(m) = &mut model {
        m.insert("SystemData".into(), system_data(packages));
        for key in ["project_id", "user_id"] {
            m.insert(key.into(), input.get(key).cloned().unwrap_or(Json::Null));
        }
    }
    model
}

/// Runs an engine task: `model` (`Objects`, `ObjectsCopy`, `Attributes`,
/// …) and `action` (`None`: a deletion) against `host`. `environment_id`
/// names the environment in reports and agent queues.
pub fn run_engine_task(
    packages: &[PackageFiles],
    host: Arc<dyn Host>,
    environment_id: &str,
    model: &Json,
    action: Option<&TaskAction>,
    options: &DeployOptions,
) -> DeployPlan {
    let system = SystemClasses::new(host, resources_of(packages));
    system.set_environment(environment_id);
    let builder = match builder_for(packages) {
        Ok(b) => b,
        Err(e) => {
            system.report(None, &text(&e, false), "error");
            return DeployPlan {
                outcome: raised("<load>", &e, false),
                recording: system.recording(),
                log: Vec::new(),
                warnings: Vec::new(),
                final_model: returned(model.clone(), model, packages),
            };
        }
    };
    let engine = system
        .install(builder.limits(options.limits.clone()))
        .build();
    engine.collect_in_creation_order(true);
    let (outcome, final_model) = run(&engine, &system, model, action, options);
    DeployPlan {
        outcome,
        recording: system.take_recording(),
        log: take_log(&engine),
        warnings: engine.take_warnings(),
        final_model: returned(final_model, model, packages),
    }
}

fn run(
    engine: &Engine,
    system: &SystemClasses,
    model: &Json,
    action: Option<&TaskAction>,
    options: &DeployOptions,
) -> (Json, Json) {
    let fail = |stage: &str, e: &EngineError, wrap: bool| {
        system.report(None, &text(e, wrap), "error");
        raised(stage, e, wrap)
    };
    if let Some(attrs) = model.get("Attributes").and_then(Json::as_array) {
        for a in attrs {
            if let Some(items) = a.as_array() {
                if let (Some(o), Some(c), Some(k)) = (
                    items.first().and_then(Json::as_str),
                    items.get(1).and_then(Json::as_str),
                    items.get(2).and_then(Json::as_str),
                ) {
                    let v = items.get(3).map(decode).unwrap_or_default();
                    engine.add_attribute(o, c, k, v);
                }
            }
        }
    }
    let objects = model.get("Objects").cloned().unwrap_or(Json::Null);
    let copy = model
        .get("ObjectsCopy")
        .filter(|c| c.as_object().is_some_and(|m| !m.is_empty()))
        .cloned();
    for tree in std::iter::once(&objects).chain(copy.as_ref()) {
        if let Err(e) = crate::deploy::check_class_versions(engine, tree, 0) {
            return (fail("<load>", &e, false), model.clone());
        }
    }
    let mut load = Map::new();
    load.insert("Objects".into(), objects);
    if let Some(c) = copy {
        load.insert("ObjectsCopy".into(), c);
    }
    let root = match engine.load_model(&decode(&Json::Object(load))) {
        Ok(r) => r,
        Err(e) => return (fail("<load>", &e, false), model.clone()),
    };
    if let Err(e) = engine.collect_garbage() {
        return (fail("<GC>", &e, false), model.clone());
    }
    let Some(action) = action else {
        // A deletion: everything was garbage; the executor closes (what
        // is still alive is destroyed) and the model keeps its
        // `Attributes` with no objects.
        let _ = engine.prepare_finalize();
        let _ = engine.finalize();
        let mut out = model.clone();
        if let Json::Object(m) = &mut out {
            m.insert("ObjectsCopy".into(), Json::Null);
        }
        return (json!({"ok": true, "result": null}), out);
    };
    let kwargs: Vec<(String, murano_yaql::eval::Value)> = action
        .args
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), decode(v))).collect())
        .unwrap_or_default();
    // Murano's `_invoke`: an id the store does not hold runs nothing.
    let called = match engine.object(&action.object_id) {
        None => Ok(murano_yaql::eval::Value::Null),
        Some(obj) => engine
            .call(&Receiver::Object(obj), &action.method, vec![], kwargs)
            .map_err(as_seen),
    };
    let failed = called
        .as_ref()
        .err()
        .map(|e| fail(&action.method, e, wrapped(e)));
    let _ = root;
    if let Err(e) = engine.prepare_finalize() {
        return (raised("<finalize>", &e, false), model.clone());
    }
    let final_model = match engine.finalize().and_then(|v| {
        v.check_printed_len(options.max_model_text)
            .map_err(|e| EngineError::from_yaql(&e))?;
        Ok(v)
    }) {
        Ok(v) => murano_dsl::yaml::convert::to_json(&v, &Default::default()),
        Err(e) => return (raised("<finalize>", &e, false), model.clone()),
    };
    let mut out = model.clone();
    if let (Json::Object(m), Json::Object(f)) = (&mut out, final_model) {
        for (k, v) in f {
            m.insert(k, v);
        }
    }
    if let Some(r) = failed {
        return (r, out);
    }
    let result = called.map(|v| encode(engine, &v)).unwrap_or(Json::Null);
    if holds_object(&result, 0) {
        // Serialised after finalisation: the object store is cleared, so
        // Murano's serializer meets no object there.
        let e = EngineError::new(
            ErrorKind::Host {
                type_name: "TypeError".into(),
                module: "builtins".into(),
            },
            "argument of type 'NoneType' is not iterable",
        );
        return (fail("<result>", &e, false), out);
    }
    (json!({"ok": true, "result": result}), out)
}

/// Runs a static action against `host` (no model, no reports of its
/// own).
pub fn run_static_action(
    packages: &[PackageFiles],
    host: Arc<dyn Host>,
    action: &StaticAction,
    options: &DeployOptions,
) -> StaticResult {
    let system = SystemClasses::new(host, resources_of(packages));
    let finish = |outcome: Json, log: Vec<Json>| StaticResult {
        outcome,
        recording: system.recording(),
        log,
    };
    if let Some(name) = &action.package {
        let Some(p) = packages.iter().find(|p| &p.name == name) else {
            let e = EngineError::dsl("NoPackageFound", format!("Package {name} is not found"));
            return finish(raised("<static>", &e, false), Vec::new());
        };
        if !p.classes.iter().any(|(c, _)| c == &action.class_name) {
            let e = EngineError::dsl(
                "NoClassFound",
                format!("Class \"{}\" is not found in {name}", action.class_name),
            );
            return finish(raised("<static>", &e, false), Vec::new());
        }
    }
    let builder = match builder_for(packages) {
        Ok(b) => b,
        Err(e) => return finish(raised("<static>", &e, false), Vec::new()),
    };
    let engine = system
        .install(builder.limits(options.limits.clone()))
        .build();
    let kwargs: Vec<(String, murano_yaql::eval::Value)> = action
        .args
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), decode(v))).collect())
        .unwrap_or_default();
    let outcome = match engine.call(
        &Receiver::Class(action.class_name.clone()),
        &action.method,
        vec![],
        kwargs,
    ) {
        Ok(v) => json!({"ok": true, "result": encode(&engine, &v)}),
        Err(e) => {
            let e = as_seen(e);
            raised("<static>", &e, wrapped(&e))
        }
    };
    let log = take_log(&engine);
    let _ = engine.finalize();
    finish(outcome, log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_results_are_detected_at_any_depth() {
        assert!(holds_object(&json!([{"a": {"$object": "x"}}]), 0));
        assert!(!holds_object(&json!([{"a": 1}]), 0));
    }

    #[test]
    fn contract_errors_before_the_body_are_not_wrapped() {
        let e = EngineError::dsl("ContractViolationException", "bad");
        assert!(!wrapped(&e));
        let r = raised("configure", &e, wrapped(&e));
        assert_eq!(r["raised"]["type"], "ContractViolationException");
    }
}
