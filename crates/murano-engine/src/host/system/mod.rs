//! The native system classes: their MuranoPL declarations, their bodies
//! over a [`Host`], and the session state and records behind them.

mod agent;
mod agent_listener;
pub(crate) mod config;
mod declare;
mod heat_stack;
mod identity;
mod instance_notifier;
mod metadef_browser;
mod mistral_client;
mod network_explorer;
pub(crate) mod resources;
mod status_reporter;
mod test_fixture;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use murano_dsl::model::ClassDefinition;
use murano_yaql::eval::{Dict, FunctionDef, Value};
use serde_json::{json, Map, Value as Json};

use super::agent::{build_plan, text_of, PlanEnv};
use super::record::{encode, Recording, MAX_RECORDS};
use super::{HeatOp, Host, HostError, NetworkQuery, PackageResources, StackData};
use crate::base::sync::lock;
use crate::error::{EngineError, ErrorKind};
use crate::{Engine, EngineBuilder, NativeCall, NativeMethod, WeakEngine};

/// The default of optional native arguments: tells "not given" from a
/// given null (host calls record only what the caller passed).
const UNSET: &str = "\u{0}murano-host:unset";

pub use declare::HostProfile;
pub(crate) use declare::NoCloudBody;

/// The native system classes, one set for every host (each class's file
/// declares its methods once; [`HostProfile`] says how a host declares
/// them).
const SYSTEM_CLASSES: [&declare::SystemClass; 12] = [
    &heat_stack::CLASS,
    &agent::CLASS,
    &agent_listener::CLASS,
    &resources::CLASS,
    &instance_notifier::CLASS,
    &status_reporter::CLASS,
    &network_explorer::CLASS,
    &mistral_client::CLASS,
    &metadef_browser::CLASS,
    &identity::CLASSES[0],
    &identity::CLASSES[1],
    &test_fixture::CLASS,
];

/// The MuranoPL declarations of the native classes' methods (Murano
/// declares them in Python) as `profile`'s host declares them: each
/// class's full name and its `Methods:` section. [`merge_system_class`]
/// merges them into the core library's class stubs of the same name.
pub fn system_declarations(profile: HostProfile) -> Vec<(&'static str, String)> {
    SYSTEM_CLASSES
        .iter()
        .filter(|c| c.in_profile(profile))
        .map(|c| (c.name, c.render(profile)))
        .collect()
}

/// What the no-cloud host does for the method `method` of the system
/// class `class`, as the declarations give it, with the cloud service
/// the class needs (`None`: the no-cloud host does not declare it).
pub(crate) fn no_cloud_body(class: &str, method: &str) -> Option<(NoCloudBody, &'static str)> {
    let c = SYSTEM_CLASSES
        .iter()
        .find(|c| c.name == class && c.in_profile(HostProfile::NoCloud))?;
    let m = c
        .methods
        .iter()
        .find(|m| m.name == method && m.only.is_none_or(|p| p == HostProfile::NoCloud))?;
    Some((m.no_cloud, c.service))
}

/// Whether `profile`'s host declares the method `method` of the system
/// class `class`.
fn declared(profile: HostProfile, class: &str, method: &str) -> bool {
    SYSTEM_CLASSES
        .iter()
        .filter(|c| c.name == class && c.in_profile(profile))
        .flat_map(|c| c.methods.iter())
        .any(|m| m.name == method && m.only.is_none_or(|p| p == profile))
}

/// Adds the native methods of the offline host's
/// [`system_declarations`] to `def` when it is one of those classes (the
/// core library's stub or MuranoPL part); methods the class already
/// declares stay as they are. Optional arguments default to an internal
/// "not given" marker.
pub fn merge_system_class(def: &mut ClassDefinition) -> Result<(), EngineError> {
    merge_system_class_as(def, HostProfile::Offline)
}

/// [`merge_system_class`] with the declarations of `profile`'s host.
pub fn merge_system_class_as(
    def: &mut ClassDefinition,
    profile: HostProfile,
) -> Result<(), EngineError> {
    let Some(name) = def.full_name.clone() else {
        return Ok(());
    };
    for class in SYSTEM_CLASSES {
        if class.name != name || !class.in_profile(profile) {
            continue;
        }
        let text = format!("Name: {}\n{}", class.name, class.render(profile));
        for extra in crate::ClassSetBuilder::parse_file(text.as_bytes(), "<system>")? {
            for m in extra.methods {
                if def.method(&m.name).is_none() {
                    def.methods.push(m);
                }
            }
        }
    }
    Ok(())
}

/// The state of one Heat stack object (Murano's `HeatStack`).
#[derive(Debug, Clone)]
struct Stack {
    name: String,
    description: Value,
    region: String,
    template: Option<Value>,
    parameters: Value,
    files: Value,
    environment: Value,
    applied: bool,
}

#[derive(Debug, Clone)]
enum NativeState {
    Stack(Box<Stack>),
    Agent {
        queue: String,
        host: String,
        stamp: i64,
    },
    Listener {
        queue: String,
    },
    Resources {
        package: String,
    },
    Reporter {
        environment: String,
    },
}

struct Inner {
    host: Arc<dyn Host>,
    /// How the classes are declared (which natives there are).
    profile: HostProfile,
    /// Whether host calls, Heat operations, agent plans and reports are
    /// recorded.
    record: AtomicBool,
    /// The session's engine, set when it is built (weak: the engine holds
    /// the natives, which hold this).
    engine: Mutex<WeakEngine>,
    rec: Mutex<Recording>,
    objects: Mutex<HashMap<String, NativeState>>,
    resources: Arc<PackageResources>,
    environment: Mutex<String>,
}

/// The native system classes of one session (see the module
/// documentation of [`crate::host`]): build the engine with
/// [`SystemClasses::install`] (or [`crate::EngineBuilder::host`]).

#[derive(Clone)]
pub struct SystemClasses {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for SystemClasses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SystemClasses")
    }
}

fn s(text: &str) -> Value {
    Value::str(text)
}

fn given<'a>(call: &'a NativeCall<'_>, name: &str) -> Option<&'a Value> {
    call.arg(name).filter(|v| v.as_str() != Some(UNSET))
}

fn host_error(e: HostError) -> EngineError {
    EngineError::new(
        ErrorKind::Host {
            type_name: e.type_name,
            module: e.module,
        },
        e.message,
    )
}

fn dict_of(v: &Value) -> Dict {
    match v {
        Value::Dict(d) => (**d).clone(),
        _ => Dict::default(),
    }
}

fn empty_dict() -> Value {
    Value::Dict(Arc::new(Dict::default()))
}

/// Python's `type(a) != type(b)` over YAQL values (lists and tuples are
/// both Python lists here).
fn same_type(a: &Value, b: &Value) -> bool {
    fn kind(v: &Value) -> &str {
        match v {
            Value::List(_) | Value::Tuple(_) => "list",
            other => other.type_name(),
        }
    }
    std::mem::discriminant(a) == std::mem::discriminant(b) || kind(a) == kind(b)
}

/// Murano's `helpers.merge_lists`: the items of both, duplicates dropped.
fn merge_lists(a: &[Value], b: &[Value]) -> Value {
    let mut out: Vec<Value> = Vec::new();
    for item in a.iter().chain(b) {
        if !out.contains(item) {
            out.push(item.clone());
        }
    }
    Value::List(Arc::new(out))
}

/// Murano's `helpers.merge_dicts` (recursive; values of different types
/// are a `TypeError` unless both are strings or null, when the first
/// wins).
fn merge_dicts(a: &Dict, b: &Dict, depth: usize) -> Result<Dict, HostError> {
    if depth > 200 {
        return Err(HostError::new(
            "RecursionError",
            "builtins",
            "maximum recursion depth exceeded",
        ));
    }
    let mut out = Dict::default();
    for (k, v1) in a.iter() {
        out.insert(k.clone(), v1.clone());
        if let Some(v2) = b.get(k) {
            if !same_type(v1, v2) {
                let stringish = |v: &Value| matches!(v, Value::Str(_) | Value::Null);
                if stringish(v1) && stringish(v2) {
                    continue;
                }
                return Err(HostError::new("TypeError", "builtins", ""));
            }
            let merged = match (v1, v2) {
                (Value::Dict(d1), Value::Dict(d2)) => {
                    Value::Dict(Arc::new(merge_dicts(d1, d2, depth + 1)?))
                }
                (l1, l2) if l2.is_sequence() && l1.is_sequence() => {
                    merge_lists(l1.as_slice().unwrap_or(&[]), l2.as_slice().unwrap_or(&[]))
                }
                _ => v2.clone(),
            };
            out.insert(k.clone(), merged);
        }
    }
    for (k, v) in b.iter() {
        if !out.contains_key(k) {
            out.insert(k.clone(), v.clone());
        }
    }
    Ok(out)
}

type Body = fn(&SystemClasses, &Engine, &NativeCall<'_>) -> Result<Value, EngineError>;

/// How a native records its arguments: `(name, keyword)` in order.
struct Spec {
    class: &'static str,
    method: &'static str,
    kwargs: &'static [&'static str],
    body: Body,
}

impl SystemClasses {
    /// The system classes of a session over `host`; `resources` holds the
    /// packages' files (package name → path inside the package →
    /// bytes), which `Resources` and the Agent read before asking the
    /// host.
    pub fn new(
        host: Arc<dyn Host>,
        resources: HashMap<String, HashMap<String, Arc<Vec<u8>>>>,
    ) -> SystemClasses {
        SystemClasses::with_profile(host, Arc::new(resources), HostProfile::Offline)
    }

    /// [`SystemClasses::new`] for classes declared as `profile` says
    /// ([`merge_system_class_as`]): the natives are those `profile`'s
    /// host declares.
    pub fn with_profile(
        host: Arc<dyn Host>,
        resources: Arc<PackageResources>,
        profile: HostProfile,
    ) -> SystemClasses {
        SystemClasses {
            inner: Arc::new(Inner {
                host,
                profile,
                record: AtomicBool::new(true),
                engine: Mutex::new(WeakEngine::default()),
                rec: Mutex::new(Recording::default()),
                objects: Mutex::new(HashMap::new()),
                resources,
                environment: Mutex::new(String::new()),
            }),
        }
    }

    /// Adds the session to an engine being built: the native method
    /// bodies ([`SystemClasses::natives`]), the YAQL functions
    /// ([`SystemClasses::functions`]), the host's ids as the engine's id
    /// source, the host's configuration, and the recording of the
    /// engine's `Logger` calls.
    pub fn install(&self, builder: EngineBuilder) -> EngineBuilder {
        // One id sequence for the engine's objects and the host's ids, as
        // Murano's uuid4 (see `crate::ids`), unless the host leaves the
        // engine its own.
        let host = self.inner.host.clone();
        let mut builder = builder.natives(self.natives());
        if host.shares_ids() {
            builder = builder
                .functions(self.functions())
                .id_source(Arc::new(move || host.generate_id()));
        }
        if let Value::Dict(config) = self.inner.host.config() {
            builder = builder.config((*config).clone());
        }
        let me = self.clone();
        builder.on_build(move |engine| me.attach_weak(engine))
    }

    /// Keeps a weak handle on the engine and records its loggers' calls
    /// (when recording: see [`SystemClasses::set_recording`]).
    fn attach_weak(&self, engine: &Engine) {
        *lock(&self.inner.engine) = engine.downgrade();
        if self.recording_on() {
            self.observe_loggers(engine);
        }
    }

    /// Records host calls, Heat operations, agent plans and reports
    /// ([`SystemClasses::recording`]) or not (`on == false`; the test
    /// runner keeps none). On by default; set it before
    /// [`SystemClasses::install`] (loggers are observed from there).
    pub fn set_recording(&self, on: bool) {
        self.inner.record.store(on, Ordering::Relaxed);
    }

    /// Whether the session records.
    fn recording_on(&self) -> bool {
        self.inner.record.load(Ordering::Relaxed)
    }

    /// Records the calls of the engine's `Logger` objects as host calls.
    fn observe_loggers(&self, engine: &Engine) {
        let me = self.clone();
        engine.observe_logger_calls(Arc::new(move |method, id, args, kwargs| {
            let Some(engine) = lock(&me.inner.engine).upgrade() else {
                return;
            };
            let args: Vec<Json> = args.iter().map(|v| encode(&engine, v)).collect();
            let kwargs: Map<String, Json> = kwargs
                .iter()
                .map(|(k, v)| (k.clone(), encode(&engine, v)))
                .collect();
            let i = me.push_call(json!({
                "class": "io.murano.system.Logger",
                "method": method,
                "receiver": id,
                "args": args,
                "kwargs": kwargs,
            }));
            me.finish_call(i, ("result", Json::Null));
        }));
    }

    /// Sets the id of the environment being deployed (agents' queues, the
    /// task's own reports).
    pub fn set_environment(&self, id: &str) {
        *lock(&self.inner.environment) = id.to_owned();
    }

    /// The host.
    pub fn host(&self) -> &Arc<dyn Host> {
        &self.inner.host
    }

    /// What was recorded so far.
    pub fn recording(&self) -> Recording {
        lock(&self.inner.rec).clone()
    }

    /// What was recorded, taken out (the recording is empty after): for
    /// the end of a task, without copying every host call.
    pub fn take_recording(&self) -> Recording {
        std::mem::take(&mut *lock(&self.inner.rec))
    }

    /// Records a status report (the task's own reporter uses it for
    /// `report_error(root, message)`).
    pub fn report(&self, object_id: Option<&str>, text: &str, level: &str) {
        let env = lock(&self.inner.environment).clone();
        let body = json!({
            "kind": "status",
            "id": object_id.unwrap_or(&env),
            "text": text,
            "details": null,
            "level": level,
            "environment_id": env,
        });
        self.push_report(body);
    }

    fn push_report(&self, body: Json) {
        let value = super::record::decode(&body);
        let _ = self.inner.host.notify(&value);
        if !self.recording_on() {
            return;
        }
        let mut rec = lock(&self.inner.rec);
        if rec.reports.len() < MAX_RECORDS {
            rec.reports.push(body);
        }
    }

    /// The YAQL functions of the session: `randomName()` from the host
    /// (the host's configuration reaches `config()` through
    /// [`SystemClasses::install`], which sets it on the engine).
    pub fn functions(&self) -> Vec<FunctionDef> {
        let host = self.inner.host.clone();
        let random =
            murano_dsl::functions::random_name_function(move |_call| Ok(host.random_name()));
        vec![random]
    }

    /// The native method bodies of every class of [`system_declarations`]
    /// (those of the session's [`HostProfile`]).
    pub fn natives(&self) -> Vec<NativeMethod> {
        let profile = self.inner.profile;
        SPECS
            .iter()
            .flat_map(|table| table.iter())
            .filter(|spec| declared(profile, spec.class, spec.method))
            .map(|spec| {
                let me = self.clone();
                let spec_ref: &'static Spec = spec;
                NativeMethod {
                    class: spec.class.to_owned(),
                    method: spec.method.to_owned(),
                    body: Arc::new(move |call: &NativeCall<'_>| me.run(spec_ref, call)),
                }
            })
            .collect()
    }

    /// Records the start of a host call; its index.
    fn push_call(&self, record: Json) -> Option<usize> {
        if !self.recording_on() {
            return None;
        }
        let mut rec = lock(&self.inner.rec);
        if rec.host_calls.len() < MAX_RECORDS {
            rec.host_calls.push(record);
            Some(rec.host_calls.len() - 1)
        } else {
            None
        }
    }

    /// Records the end of a host call (`result` or `raised`).
    fn finish_call(&self, index: Option<usize>, outcome: (&str, Json)) {
        if let Some(i) = index {
            let mut rec = lock(&self.inner.rec);
            if let Some(Json::Object(m)) = rec.host_calls.get_mut(i) {
                m.insert(outcome.0.to_owned(), outcome.1);
            }
        }
    }

    /// Runs a native (or the host's answer for it, [`Host::intercept`]),
    /// recording it as a host call when the session records.
    fn run(&self, spec: &Spec, call: &NativeCall<'_>) -> Result<Value, EngineError> {
        let engine = call.engine.clone();
        let init = spec.method == ".init";
        // Keywords a Python method does not declare (gathered by a `**`
        // catch-all): recorded as given, then refused as yaql refuses
        // them (`push(async => true)`: Python 3.7 renamed the parameter
        // `is_async`).
        let undeclared = call
            .args
            .iter()
            .any(|(name, value)| name == "**" && matches!(value, Value::Dict(d) if !d.is_empty()));
        let index = if self.recording_on() {
            self.push_call(self.call_record(spec, call, &engine))
        } else {
            None
        };
        let out = if undeclared {
            Err(EngineError::new(
                crate::ErrorKind::Engine {
                    type_name: "ArgumentException".into(),
                    module: "yaql.language.exceptions".into(),
                },
                "Invalid argument **",
            ))
        } else {
            match self.inner.host.intercept(spec.class, spec.method) {
                Some(answer) => answer.map_err(host_error),
                None => (spec.body)(self, &engine, call),
            }
        };
        if index.is_some() {
            let outcome = match &out {
                Ok(v) if spec.class == "io.murano.system.Resources" && !init => {
                    ("result", json!({"$omitted": v.type_name()}))
                }
                Ok(v) => ("result", encode(&engine, v)),
                Err(e) => (
                    "raised",
                    json!({"type": e.python_type(), "message": e.message}),
                ),
            };
            self.finish_call(index, outcome);
        }
        out
    }

    /// The record of a call of `spec`: its class, method, receiver and
    /// the arguments the caller gave (positional or keyword, as the
    /// Python method takes them).
    fn call_record(&self, spec: &Spec, call: &NativeCall<'_>, engine: &Engine) -> Json {
        let receiver = call
            .receiver
            .and_then(|r| engine.object_view(r))
            .map_or(Json::Null, |v| Json::String(v.id));
        let init = spec.method == ".init";
        let mut args = Vec::new();
        let mut kwargs = Map::new();
        for (name, value) in call.args {
            if value.as_str() == Some(UNSET) {
                continue;
            }
            if name == "**" {
                if let Value::Dict(d) = value {
                    for (k, v) in d.iter() {
                        kwargs.insert(k.py_str(), encode(engine, v));
                    }
                }
                continue;
            }
            let encoded = encode(engine, value);
            if init || spec.kwargs.contains(&name.as_str()) {
                kwargs.insert(name.clone(), encoded);
            } else {
                args.push(encoded);
            }
        }
        json!({
            "class": spec.class,
            "method": if init { "__init__" } else { spec.method },
            "receiver": receiver,
            "args": args,
            "kwargs": kwargs,
        })
    }

    fn this_id(engine: &Engine, call: &NativeCall<'_>) -> Result<String, EngineError> {
        call.receiver
            .and_then(|r| engine.object_view(r))
            .map(|v| v.id)
            .ok_or_else(|| EngineError::dsl("DslInvalidOperationError", "no receiver object"))
    }

    fn state(&self, id: &str) -> Option<NativeState> {
        lock(&self.inner.objects).get(id).cloned()
    }

    fn set_state(&self, id: &str, state: NativeState) {
        lock(&self.inner.objects).insert(id.to_owned(), state);
    }
}

/// Murano's `_process_v1_result` / `_process_v2_result`.
fn process_result(result: &Value) -> Result<Value, HostError> {
    let d = dict_of(result);
    let get = |k: &str| d.get(&s(k)).cloned().unwrap_or(Value::Null);
    let agent_error = |m: String| HostError::new("AgentException", "murano.engine.system.agent", m);
    let version = match get("FormatVersion") {
        Value::Null => "1.0.0".to_owned(),
        v => v.py_str(),
    };
    if version.starts_with("1.") {
        if get("IsException").truthy() {
            return Err(agent_error(get("Result").py_str()));
        }
        let results = get("Result");
        let Some(last) = results.as_slice().and_then(|r| r.last()).cloned() else {
            return Ok(Value::Null);
        };
        let last = dict_of(&last);
        if last.get(&s("IsException")).is_some_and(Value::truthy) {
            return Err(agent_error(
                last.get(&s("Result"))
                    .map(Value::py_str)
                    .unwrap_or_default(),
            ));
        }
        return Ok(last.get(&s("Result")).cloned().unwrap_or(Value::Null));
    }
    if !get("ErrorCode").truthy() {
        return Ok(get("Body"));
    }
    Err(agent_error(get("Body").py_str()))
}

fn unit(_: &SystemClasses, _: &Engine, _: &NativeCall<'_>) -> Result<Value, EngineError> {
    Ok(Value::Null)
}

fn env_id(engine: &Engine, v: Option<&Value>) -> String {
    match v {
        Some(Value::Str(s)) => s.to_string(),
        Some(v) => engine.object_view(v).map(|o| o.id).unwrap_or_default(),
        None => String::new(),
    }
}

fn object_id(engine: &Engine, v: Option<&Value>) -> Json {
    v.and_then(|v| engine.object_view(v))
        .map_or(Json::Null, |o| Json::String(o.id))
}

fn timeout_of(sys: &SystemClasses, v: Option<&Value>) -> i64 {
    match v.and_then(Value::as_int) {
        Some(t) => t,
        None => {
            let conf = sys.inner.host.config();
            let engine = match &conf {
                Value::Dict(d) => d.get(&s("engine")).cloned(),
                _ => None,
            };
            match engine {
                Some(Value::Dict(e)) => e
                    .get(&s("agent_timeout"))
                    .and_then(Value::as_int)
                    .unwrap_or(3600),
                _ => 3600,
            }
        }
    }
}

fn track(
    sys: &SystemClasses,
    engine: &Engine,
    call: &NativeCall<'_>,
    event: &str,
    kind: i64,
    cloud: bool,
) -> Result<Value, EngineError> {
    let id = SystemClasses::this_id(engine, call)?;
    let environment = match sys.state(&id) {
        Some(NativeState::Reporter { environment }) => environment,
        _ => String::new(),
    };
    let instance = call.arg("instance");
    let mut payload = Map::new();
    payload.insert("instance".into(), object_id(engine, instance));
    payload.insert("environment".into(), json!(environment));
    payload.insert("instance_type".into(), json!(kind));
    if event == "murano.track_instance" {
        let class = instance
            .and_then(|v| engine.object_view(v))
            .map_or(Json::Null, |o| Json::String(o.class));
        payload.insert("type_name".into(), class);
        if cloud {
            payload.insert("type_title".into(), Json::Null);
            payload.insert("unit_count".into(), json!(1));
        } else {
            let enc = |n: &str| given(call, n).map_or(Json::Null, |v| encode(engine, v));
            payload.insert("type_title".into(), enc("title"));
            payload.insert("unit_count".into(), enc("unitCount"));
        }
    }
    sys.push_report(json!({"kind": "instance", "event": event, "payload": payload}));
    Ok(Value::Null)
}

fn status(
    sys: &SystemClasses,
    engine: &Engine,
    call: &NativeCall<'_>,
    level: &str,
) -> Result<Value, EngineError> {
    let id = SystemClasses::this_id(engine, call)?;
    let environment = match sys.state(&id) {
        Some(NativeState::Reporter { environment }) => environment,
        _ => String::new(),
    };
    let instance = call.arg("instance").filter(|v| !v.is_null());
    let object = match instance {
        Some(v) => object_id(engine, Some(v)),
        None => json!(environment),
    };
    let text = call.arg("msg").map_or(Json::Null, |m| encode(engine, m));
    sys.push_report(json!({
        "kind": "status",
        "id": object,
        "text": text,
        "details": null,
        "level": level,
        "environment_id": environment,
    }));
    Ok(Value::Null)
}

fn network(sys: &SystemClasses, query: NetworkQuery<'_>) -> Result<Value, EngineError> {
    sys.inner.host.network(query).map_err(host_error)
}

fn arg_or_null<'a>(call: &'a NativeCall<'_>, name: &str) -> &'a Value {
    static NULL: Value = Value::Null;
    given(call, name).unwrap_or(&NULL)
}

fn resources_string(
    sys: &SystemClasses,
    engine: &Engine,
    call: &NativeCall<'_>,
) -> Result<Vec<u8>, EngineError> {
    let package = sys.resources_package(engine, call)?;
    let name = call.arg("name").map(Value::py_str).unwrap_or_default();
    sys.read_resource(&package, &name)
}

fn text_result(bytes: &[u8]) -> Result<String, EngineError> {
    text_of(bytes).map_err(host_error)
}

/// The native methods of every system class, class by class.
static SPECS: &[&[Spec]] = &[
    heat_stack::SPECS,
    agent::SPECS,
    agent_listener::SPECS,
    resources::SPECS,
    instance_notifier::SPECS,
    status_reporter::SPECS,
    network_explorer::SPECS,
    mistral_client::SPECS,
    metadef_browser::SPECS,
    identity::SPECS,
    test_fixture::SPECS,
];

fn ready_plan() -> Value {
    let mut d = Dict::default();
    d.insert(s("Body"), s("return"));
    d.insert(s("FormatVersion"), s("2.0.0"));
    d.insert(s("Scripts"), empty_dict());
    Value::Dict(Arc::new(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(json: &str) -> Dict {
        dict_of(&super::super::record::decode(
            &serde_json::from_str(json).unwrap(),
        ))
    }

    #[test]
    fn merge_dicts_merges_recursively_and_concatenates_lists() {
        let out = merge_dicts(
            &d(r#"{"a": {"x": 1}, "l": [1, 2], "s": "one"}"#),
            &d(r#"{"a": {"y": 2}, "l": [2, 3], "s": null, "n": 5}"#),
            0,
        )
        .unwrap();
        let expected = d(r#"{"a": {"x": 1, "y": 2}, "l": [1, 2, 3], "s": "one", "n": 5}"#);
        assert_eq!(Value::Dict(Arc::new(out)), Value::Dict(Arc::new(expected)));
    }

    /// The method names of `profile`'s declarations, sorted.
    fn declared_methods(profile: HostProfile) -> Vec<(String, String)> {
        let mut declared = Vec::new();
        for (class, text) in system_declarations(profile) {
            let full = format!("Name: {class}\n{text}");
            for def in crate::ClassSetBuilder::parse_file(full.as_bytes(), "<system>").unwrap() {
                for m in def.methods {
                    declared.push((class.to_owned(), m.name));
                }
            }
        }
        declared.sort();
        declared
    }

    #[test]
    fn every_declared_method_has_one_body_in_every_profile() {
        for profile in [HostProfile::Offline, HostProfile::NoCloud] {
            let host: Arc<dyn Host> = Arc::new(crate::host::NoCloudHost::new());
            let system = SystemClasses::with_profile(host, Arc::default(), profile);
            let mut bodies: Vec<(String, String)> = system
                .natives()
                .into_iter()
                .map(|n| (n.class, n.method))
                .collect();
            bodies.sort();
            let n = bodies.len();
            bodies.dedup();
            assert_eq!(bodies.len(), n, "a method with two bodies");
            assert_eq!(declared_methods(profile), bodies, "{profile:?}");
        }
    }

    #[test]
    fn merge_dicts_refuses_values_of_different_types() {
        let e = merge_dicts(&d(r#"{"a": {"x": 1}}"#), &d(r#"{"a": [1]}"#), 0).unwrap_err();
        assert_eq!(e.type_name, "TypeError");
    }
}
