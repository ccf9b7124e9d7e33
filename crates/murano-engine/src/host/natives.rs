//! The native system classes: their MuranoPL declarations, their bodies
//! over a [`Host`], and the session state and records behind them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use murano_dsl::model::ClassDefinition;
use murano_yaql::eval::{Dict, FunctionDef, Value};
use serde_json::{json, Map, Value as Json};

use super::agent::{build_plan, text_of, PlanEnv};
use super::record::{encode, Recording, MAX_RECORDS};
use super::{HeatOp, Host, HostError, NetworkQuery, StackData};
use crate::error::{EngineError, ErrorKind};
use crate::object::lock;
use crate::{Engine, NativeCall, NativeMethod};

/// The default of optional native arguments: tells "not given" from a
/// given null (host calls record only what the caller passed).
const UNSET: &str = "\u{0}murano-host:unset";

/// The MuranoPL declarations of the native classes' methods (Murano
/// declares them in Python), merged into the core library's class stubs
/// of the same name by [`merge_system_class`]. Optional arguments default
/// to an internal "not given" marker.
pub const SYSTEM_DECLARATIONS: &[(&str, &str)] = &[
    (
        "io.murano.system.HeatStack",
        "Methods:
  .init:
    Arguments:
      - name: {Contract: $}
      - description: {Contract: $, Default: \"\\0murano-host:unset\"}
      - regionName: {Contract: $, Default: \"\\0murano-host:unset\"}
  current: {Scope: Public}
  parameters: {Scope: Public}
  reload: {Scope: Public}
  setTemplate: {Scope: Public, Arguments: [{template: {Contract: $}}]}
  setParameters: {Scope: Public, Arguments: [{parameters: {Contract: $}}]}
  setFiles: {Scope: Public, Arguments: [{files: {Contract: $}}]}
  setHotEnvironment: {Scope: Public, Arguments: [{hotEnvironment: {Contract: $}}]}
  updateTemplate: {Scope: Public, Arguments: [{template: {Contract: $}}]}
  push: {Scope: Public, Arguments: [{isAsync: {Contract: $, Default: \"\\0murano-host:unset\"}}, {\"**\": {Usage: KwArgs}}]}
  output: {Scope: Public}
  delete: {Scope: Public}
",
    ),
    (
        "io.murano.system.Agent",
        "Methods:
  .init:
    Arguments: [{host: {Contract: $}}]
  call:
    Scope: Public
    Arguments:
      - template: {Contract: $}
      - resources: {Contract: $}
      - timeout: {Contract: $, Default: \"\\0murano-host:unset\"}
  send:
    Scope: Public
    Arguments: [{template: {Contract: $}}, {resources: {Contract: $}}]
  callRaw:
    Scope: Public
    Arguments:
      - plan: {Contract: $}
      - timeout: {Contract: $, Default: \"\\0murano-host:unset\"}
  sendRaw: {Scope: Public, Arguments: [{plan: {Contract: $}}]}
  isReady: {Scope: Public, Arguments: [{timeout: {Contract: $, Default: \"\\0murano-host:unset\"}}]}
  waitReady: {Scope: Public, Arguments: [{timeout: {Contract: $, Default: \"\\0murano-host:unset\"}}]}
  queueName: {Scope: Public}
  signingKey: {Scope: Public, Arguments: [{linePrefix: {Contract: $, Default: \"\\0murano-host:unset\"}}]}
",
    ),
    (
        "io.murano.system.AgentListener",
        "Methods:
  .init:
    Arguments: [{name: {Contract: $}}]
  queueName: {Scope: Public}
  start: {Scope: Public}
  stop: {Scope: Public}
  subscribe: {Scope: Public, Arguments: [{messageId: {Contract: $}}, {event: {Contract: $}}]}
  unsubscribe: {Scope: Public, Arguments: [{messageId: {Contract: $}}]}
",
    ),
    (
        "io.murano.system.Resources",
        "Methods:
  .init: {}
  string:
    Usage: Static
    Scope: Public
    Arguments:
      - name: {Contract: $}
      - owner: {Contract: $, Default: \"\\0murano-host:unset\"}
      - binary: {Contract: $, Default: \"\\0murano-host:unset\"}
  json:
    Usage: Static
    Scope: Public
    Arguments:
      - name: {Contract: $}
      - owner: {Contract: $, Default: \"\\0murano-host:unset\"}
  yaml:
    Usage: Static
    Scope: Public
    Arguments:
      - name: {Contract: $}
      - owner: {Contract: $, Default: \"\\0murano-host:unset\"}
",
    ),
    (
        "io.murano.system.InstanceNotifier",
        "Methods:
  .init:
    Arguments: [{environment: {Contract: $}}]
  trackApplication:
    Scope: Public
    Arguments:
      - instance: {Contract: $}
      - title: {Contract: $, Default: \"\\0murano-host:unset\"}
      - unitCount: {Contract: $, Default: \"\\0murano-host:unset\"}
  untrackApplication: {Scope: Public, Arguments: [{instance: {Contract: $}}]}
  trackCloudInstance: {Scope: Public, Arguments: [{instance: {Contract: $}}]}
  untrackCloudInstance: {Scope: Public, Arguments: [{instance: {Contract: $}}]}
",
    ),
    (
        "io.murano.system.StatusReporter",
        "Methods:
  .init:
    Arguments: [{environment: {Contract: $}}]
  report: {Scope: Public, Arguments: [{instance: {Contract: $}}, {msg: {Contract: $}}]}
  report_error: {Scope: Public, Arguments: [{instance: {Contract: $}}, {msg: {Contract: $}}]}
  reportError: {Scope: Public, Arguments: [{instance: {Contract: $}}, {msg: {Contract: $}}]}
",
    ),
    (
        "io.murano.system.NetworkExplorer",
        "Methods:
  .init:
    Arguments: [{regionName: {Contract: $, Default: \"\\0murano-host:unset\"}}]
  getDefaultRouter: {Scope: Public}
  getAvailableCidr:
    Scope: Public
    Arguments:
      - routerId: {Contract: $}
      - netId: {Contract: $}
      - ipVersion: {Contract: $, Default: \"\\0murano-host:unset\"}
  getDefaultDns: {Scope: Public, Arguments: [{ipVersion: {Contract: $, Default: \"\\0murano-host:unset\"}}]}
  getExternalNetworkIdForRouter: {Scope: Public, Arguments: [{routerId: {Contract: $}}]}
  getExternalNetworkIdForNetwork: {Scope: Public, Arguments: [{networkId: {Contract: $}}]}
  listNetworks: {Scope: Public}
  listSubnetworks: {Scope: Public}
  listPorts: {Scope: Public}
  listNeutronExtensions: {Scope: Public}
",
    ),
    (
        "io.murano.system.MistralClient",
        "Methods:
  .init:
    Arguments: [{regionName: {Contract: $, Default: \"\\0murano-host:unset\"}}]
  upload: {Scope: Public, Arguments: [{definition: {Contract: $}}]}
  run:
    Scope: Public
    Arguments:
      - name: {Contract: $}
      - timeout: {Contract: $, Default: \"\\0murano-host:unset\"}
      - inputs: {Contract: $, Default: \"\\0murano-host:unset\"}
      - params: {Contract: $, Default: \"\\0murano-host:unset\"}
",
    ),
    (
        "io.murano.system.MetadefBrowser",
        "Methods:
  .init: {}
  getNamespaces: {Scope: Public, Arguments: [{resourceType: {Contract: $}}]}
  getObjects: {Scope: Public, Arguments: [{namespace: {Contract: $}}]}
",
    ),
    (
        "io.murano.User",
        "Methods:
  getCurrent: {Usage: Static, Scope: Public}
  getEnvironmentOwner: {Usage: Static, Scope: Public}
",
    ),
    (
        "io.murano.Project",
        "Methods:
  getCurrent: {Usage: Static, Scope: Public}
  getEnvironmentOwner: {Usage: Static, Scope: Public}
",
    ),
];

/// Adds the native methods of [`SYSTEM_DECLARATIONS`] to `def` when it is
/// one of those classes (the core library's stub or MuranoPL part);
/// methods the class already declares stay as they are.
pub fn merge_system_class(def: &mut ClassDefinition) -> Result<(), EngineError> {
    let Some(name) = def.full_name.clone() else {
        return Ok(());
    };
    for (class, yaml) in SYSTEM_DECLARATIONS {
        if *class != name {
            continue;
        }
        let text = format!("Name: {class}\n{yaml}");
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
    engine: Mutex<Option<Engine>>,
    rec: Mutex<Recording>,
    objects: Mutex<HashMap<String, NativeState>>,
    resources: HashMap<String, HashMap<String, Arc<Vec<u8>>>>,
    environment: Mutex<String>,
}

/// The native system classes of one session (see the module
/// documentation of [`crate::host`]): build the engine with
/// [`SystemClasses::natives`] and [`SystemClasses::functions`], then
/// [`SystemClasses::attach`] it.
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
        SystemClasses {
            inner: Arc::new(Inner {
                host,
                engine: Mutex::new(None),
                rec: Mutex::new(Recording::default()),
                objects: Mutex::new(HashMap::new()),
                resources,
                environment: Mutex::new(String::new()),
            }),
        }
    }

    /// Gives the session its engine (built with [`SystemClasses::natives`]
    /// and [`SystemClasses::functions`]).
    pub fn attach(&self, engine: &Engine) {
        *lock(&self.inner.engine) = Some(engine.clone());
        // One id sequence for the engine's objects and the host's ids, as
        // Murano's uuid4 (see `crate::ids`).
        let host = self.inner.host.clone();
        engine.set_id_source(Arc::new(move || host.generate_id()));
        if let Value::Dict(config) = self.inner.host.config() {
            engine.set_config((*config).clone());
        }
        self.observe_loggers(engine);
    }

    /// Records the calls of the engine's `Logger` objects as host calls.
    fn observe_loggers(&self, engine: &Engine) {
        let me = self.clone();
        engine.observe_logger_calls(Arc::new(move |method, id, args, kwargs| {
            let Some(engine) = lock(&me.inner.engine).clone() else {
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

    /// Lets go of the engine (it and the natives refer to each other).
    pub fn detach(&self) {
        lock(&self.inner.engine).take();
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
        let mut rec = lock(&self.inner.rec);
        if rec.reports.len() < MAX_RECORDS {
            rec.reports.push(body);
        }
    }

    /// The YAQL functions of the session: `randomName()` from the host
    /// (the host's configuration reaches `config()` through
    /// [`SystemClasses::attach`], which sets it on the engine).
    pub fn functions(&self) -> Vec<FunctionDef> {
        let host = self.inner.host.clone();
        let random = FunctionDef::native("randomName", "", move |_call| {
            Ok(Value::str(&host.random_name()))
        });
        vec![random]
    }

    /// The native method bodies of every class of [`SYSTEM_DECLARATIONS`].
    pub fn natives(&self) -> Vec<NativeMethod> {
        SPECS
            .iter()
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

    fn engine(&self) -> Result<Engine, EngineError> {
        lock(&self.inner.engine).clone().ok_or_else(|| {
            EngineError::dsl(
                "DslInvalidOperationError",
                "the system classes are not attached to an engine",
            )
        })
    }

    /// Records the start of a host call; its index.
    fn push_call(&self, record: Json) -> Option<usize> {
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

    /// Runs a native, recording it as a host call.
    fn run(&self, spec: &Spec, call: &NativeCall<'_>) -> Result<Value, EngineError> {
        let engine = self.engine()?;
        let receiver = call
            .receiver
            .and_then(|r| engine.object_view(r))
            .map_or(Json::Null, |v| Json::String(v.id));
        let init = spec.method == ".init";
        let mut args = Vec::new();
        let mut kwargs = Map::new();
        // Keywords a Python method does not declare (gathered by a `**`
        // catch-all): recorded as given, then refused as yaql refuses
        // them (`push(async => true)`: Python 3.7 renamed the parameter
        // `is_async`).
        let mut undeclared = false;
        for (name, value) in call.args {
            if value.as_str() == Some(UNSET) {
                continue;
            }
            if name == "**" {
                if let Value::Dict(d) = value {
                    for (k, v) in d.iter() {
                        undeclared = true;
                        kwargs.insert(k.py_str(), encode(&engine, v));
                    }
                }
                continue;
            }
            let encoded = encode(&engine, value);
            if init || spec.kwargs.contains(&name.as_str()) {
                kwargs.insert(name.clone(), encoded);
            } else {
                args.push(encoded);
            }
        }
        let index = {
            let mut rec = lock(&self.inner.rec);
            if rec.host_calls.len() < MAX_RECORDS {
                rec.host_calls.push(json!({
                    "class": spec.class,
                    "method": if init { "__init__" } else { spec.method },
                    "receiver": receiver,
                    "args": args,
                    "kwargs": kwargs,
                }));
                Some(rec.host_calls.len() - 1)
            } else {
                None
            }
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
            (spec.body)(self, &engine, call)
        };
        if let Some(i) = index {
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
            let mut rec = lock(&self.inner.rec);
            if let Some(Json::Object(m)) = rec.host_calls.get_mut(i) {
                m.insert(outcome.0.to_owned(), outcome.1);
            }
        }
        out
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

    fn stack(
        &self,
        engine: &Engine,
        call: &NativeCall<'_>,
    ) -> Result<(String, Stack), EngineError> {
        let id = Self::this_id(engine, call)?;
        match self.state(&id) {
            Some(NativeState::Stack(st)) => Ok((id, *st)),
            _ => Err(EngineError::dsl(
                "DslInvalidOperationError",
                "the HeatStack object was not initialised",
            )),
        }
    }

    fn save_stack(&self, id: &str, st: Stack) {
        self.set_state(id, NativeState::Stack(Box::new(st)));
    }

    /// A `HeatStack` setter: the receiver's stack with `edit` applied,
    /// marked as not yet pushed (Murano's `_applied = False`).
    fn edit_stack(
        &self,
        engine: &Engine,
        call: &NativeCall<'_>,
        edit: impl FnOnce(&mut Stack),
    ) -> Result<Value, EngineError> {
        let (id, mut st) = self.stack(engine, call)?;
        edit(&mut st);
        st.applied = false;
        self.save_stack(&id, st);
        Ok(Value::Null)
    }

    /// Murano's `HeatStack.current()`.
    fn stack_current(&self, st: &mut Stack) -> Result<Value, EngineError> {
        if let Some(t) = &st.template {
            return Ok(t.clone());
        }
        match self
            .inner
            .host
            .heat_stack(&st.region, &st.name)
            .map_err(host_error)?
        {
            Some(data) => {
                st.template = Some(data.template.clone());
                let mut params = dict_of(&st.parameters);
                for (k, v) in dict_of(&data.parameters) {
                    if !k.py_str().starts_with("OS::") {
                        params.insert(k, v);
                    }
                }
                st.parameters = Value::Dict(Arc::new(params));
                st.applied = true;
                Ok(data.template)
            }
            None => {
                st.applied = true;
                st.template = Some(empty_dict());
                st.parameters = empty_dict();
                Ok(empty_dict())
            }
        }
    }

    fn heat_record(&self, op: HeatOp, st: &Stack, data: Option<&StackData>) {
        let engine = lock(&self.inner.engine).clone();
        let enc = |v: &Value| engine.as_ref().map_or(Json::Null, |e| encode(e, v));
        let mut rec = lock(&self.inner.rec);
        let call_index = rec.last_call();
        let mut m = Map::new();
        m.insert("op".into(), json!(op.as_str()));
        m.insert("stack".into(), json!(st.name));
        m.insert("region".into(), json!(st.region));
        if let Some(d) = data {
            m.insert("template".into(), enc(&d.template));
            m.insert("parameters".into(), enc(&d.parameters));
            m.insert("files".into(), enc(&d.files));
            m.insert("environment".into(), enc(&d.environment));
            m.insert("tags".into(), json!("murano"));
        }
        m.insert("call_index".into(), json!(call_index));
        if rec.heat.len() < MAX_RECORDS {
            rec.heat.push(Json::Object(m));
        }
    }

    /// Murano's `HeatStack.delete()`.
    fn stack_delete(&self, st: &mut Stack) -> Result<(), EngineError> {
        let current = self.stack_current(st)?;
        if !current.truthy() {
            return Ok(());
        }
        let exists = self
            .inner
            .host
            .heat_stack(&st.region, &st.name)
            .map_err(host_error)?
            .is_some();
        if exists {
            self.inner
                .host
                .heat_apply(HeatOp::Delete, &st.region, &st.name, None)
                .map_err(host_error)?;
            self.heat_record(HeatOp::Delete, st, None);
        }
        st.template = Some(empty_dict());
        st.applied = true;
        Ok(())
    }

    /// Murano's `HeatStack.push()` (always synchronous here).
    fn stack_push(&self, st: &mut Stack) -> Result<(), EngineError> {
        if st.applied || st.template.is_none() {
            return Ok(());
        }
        let mut t = dict_of(st.template.as_ref().unwrap_or(&Value::Null));
        if !t.contains_key(&s("heat_template_version")) {
            t.insert(s("heat_template_version"), s("2013-05-23"));
        }
        if !t.contains_key(&s("description")) && st.description.truthy() {
            t.insert(s("description"), st.description.clone());
        }
        let template = Value::Dict(Arc::new(t.clone()));
        st.template = Some(template.clone());
        let resources = match t.get(&s("Resources")) {
            Some(v) if v.truthy() => Some(v.clone()),
            _ => t.get(&s("resources")).cloned(),
        };
        let exists = self
            .inner
            .host
            .heat_stack(&st.region, &st.name)
            .map_err(host_error)?
            .is_some();
        let data = StackData {
            template: template.clone(),
            parameters: st.parameters.clone(),
            files: st.files.clone(),
            environment: st.environment.clone(),
        };
        let has_resources = resources.is_some_and(|r| !r.is_null());
        if has_resources {
            let op = if exists {
                HeatOp::Update
            } else {
                HeatOp::Create
            };
            self.inner
                .host
                .heat_apply(op, &st.region, &st.name, Some(&data))
                .map_err(host_error)?;
            self.heat_record(op, st, Some(&data));
        } else if exists {
            self.stack_delete(st)?;
        }
        st.applied = st.template.as_ref() == Some(&template);
        Ok(())
    }

    fn find_environment(&self, engine: &Engine, host: &Value) -> String {
        if let Some(obj) = engine.core().obj_of(host) {
            let env_class = engine.core().classes.find("io.murano.Environment");
            let mut cur = engine.core().owner_of(&obj);
            let mut steps = 0;
            while let Some(o) = cur {
                if env_class.is_some_and(|c| engine.core().classes.is_subclass(o.class, c)) {
                    return o.id.clone();
                }
                steps += 1;
                if steps > 10_000 {
                    break;
                }
                cur = engine.core().owner_of(&o);
            }
        }
        lock(&self.inner.environment).clone()
    }

    /// The package of the class running the frame `depth` below the top
    /// (0: the native itself).
    fn caller_package(engine: &Engine, depth: usize) -> Option<String> {
        let core = engine.core();
        let st = lock(&core.state);
        let frame = st
            .stack
            .len()
            .checked_sub(1 + depth)
            .and_then(|i| st.stack.get(i))?;
        let registry = core.classes.registry();
        let p = registry.package_of(frame.class)?;
        registry.package(p).map(|p| p.name.clone())
    }

    fn package_of_value(engine: &Engine, v: &Value) -> Option<String> {
        let core = engine.core();
        let class = if let Some(t) = core.type_of_value(v) {
            t.class
        } else if let Some(o) = core.obj_of(v) {
            o.class
        } else if let Value::Str(name) = v {
            core.classes.find(name)?
        } else {
            return None;
        };
        let registry = core.classes.registry();
        let p = registry.package_of(class)?;
        registry.package(p).map(|p| p.name.clone())
    }

    fn read_resource(&self, package: &str, path: &str) -> Result<Vec<u8>, EngineError> {
        let key = format!("Resources/{path}");
        if let Some(bytes) = self.inner.resources.get(package).and_then(|p| p.get(&key)) {
            return Ok(bytes.to_vec());
        }
        self.inner.host.resource(package, path).map_err(host_error)
    }

    /// The package a `Resources` call reads from.
    fn resources_package(
        &self,
        engine: &Engine,
        call: &NativeCall<'_>,
    ) -> Result<String, EngineError> {
        if let Some(owner) = given(call, "owner").filter(|v| !v.is_null()) {
            if let Some(p) = Self::package_of_value(engine, owner) {
                return Ok(p);
            }
        }
        if let Some(r) = call.receiver {
            if let Some(view) = engine.object_view(r) {
                if let Some(NativeState::Resources { package }) = self.state(&view.id) {
                    return Ok(package);
                }
            }
        }
        Self::caller_package(engine, 1).ok_or_else(|| {
            EngineError::dsl("DslInvalidOperationError", "Resources: no calling package")
        })
    }

    fn send_plan(
        &self,
        engine: &Engine,
        call: &NativeCall<'_>,
        plan: Value,
        wait_results: bool,
        timeout: i64,
    ) -> Result<Value, EngineError> {
        let id = Self::this_id(engine, call)?;
        let Some(NativeState::Agent { queue, host, .. }) = self.state(&id) else {
            return Err(EngineError::dsl(
                "DslInvalidOperationError",
                "the Agent object was not initialised",
            ));
        };
        let has_id = matches!(&plan, Value::Dict(d) if d.contains_key(&s("ID")));
        if !has_id {
            // Murano's message id (uuid4) for plans without one.
            let _ = self.inner.host.generate_id();
        }
        {
            let encoded = encode(engine, &plan);
            let mut rec = lock(&self.inner.rec);
            let call_index = rec.last_call();
            if rec.agent_plans.len() < MAX_RECORDS {
                rec.agent_plans.push(json!({
                    "queue": queue,
                    "host": host,
                    "wait_results": wait_results,
                    "timeout": timeout,
                    "plan": encoded,
                    "call_index": call_index,
                }));
            }
        }
        let result = self
            .inner
            .host
            .agent_send(&queue, &host, &plan, wait_results, timeout)
            .map_err(host_error)?;
        if !wait_results || !result.truthy() {
            return Ok(Value::Null);
        }
        process_result(&result).map_err(host_error)
    }

    fn build(&self, engine: &Engine, call: &NativeCall<'_>) -> Result<Value, EngineError> {
        let id = Self::this_id(engine, call)?;
        let template = call.arg("template").cloned().unwrap_or_default();
        let resources = call.arg("resources").cloned().unwrap_or_default();
        let resources_id = engine.object_view(&resources).map(|v| v.id);
        let package = resources_id
            .as_ref()
            .and_then(|id| match self.state(id) {
                Some(NativeState::Resources { package }) => Some(package),
                _ => None,
            })
            .ok_or_else(|| {
                // Murano's `MuranoObjectParameter('io.murano.system.Resources')`
                // refuses anything but such an object (a class too).
                EngineError::new(
                    ErrorKind::Yaql(murano_yaql::eval::ErrorKind::NoMatchingMethod),
                    format!(
                        "No method \"{}\" matches supplied arguments",
                        if call.arg("timeout").is_some() {
                            "call"
                        } else {
                            "send"
                        }
                    ),
                )
            })?;
        let stamp = match self.state(&id) {
            Some(NativeState::Agent { queue, host, stamp }) => {
                self.set_state(
                    &id,
                    NativeState::Agent {
                        queue,
                        host,
                        stamp: stamp + 1,
                    },
                );
                stamp + 1
            }
            _ => {
                return Err(EngineError::dsl(
                    "DslInvalidOperationError",
                    "the Agent object was not initialised",
                ))
            }
        };
        struct Env<'a> {
            sys: &'a SystemClasses,
            package: String,
            receiver: Json,
        }
        impl PlanEnv for Env<'_> {
            fn read(&mut self, path: &str, binary: bool) -> Result<Vec<u8>, HostError> {
                // Murano reads through the Resources object: a host call.
                let kwargs = if binary {
                    json!({"binary": true})
                } else {
                    json!({})
                };
                let index = self.sys.push_call(json!({
                    "class": "io.murano.system.Resources",
                    "method": "string",
                    "receiver": self.receiver,
                    "args": [path],
                    "kwargs": kwargs,
                }));
                let r = self.sys.read_resource(&self.package, path).map_err(|e| {
                    HostError::new(e.python_type(), e.python_module(), e.message.clone())
                });
                let outcome = match &r {
                    Ok(_) => ("result", json!({"$omitted": "str"})),
                    Err(e) => ("raised", json!({"type": e.type_name, "message": e.message})),
                };
                self.sys.finish_call(index, outcome);
                r
            }
            fn new_id(&mut self) -> String {
                self.sys.inner.host.generate_id()
            }
        }
        let receiver = resources_id.map_or(Json::Null, Json::String);
        let mut env = Env {
            sys: self,
            package,
            receiver,
        };
        build_plan(&template, stamp, &mut env).map_err(host_error)
    }

    fn new_identity(
        &self,
        engine: &Engine,
        class: &str,
        fields: Value,
    ) -> Result<Value, EngineError> {
        let core = engine.core();
        let mut header = Dict::default();
        header.insert(s("type"), s(class));
        header.insert(s("id"), s(&core.generate_id()));
        let mut model = dict_of(&fields);
        for f in ["links", "parent_id", "enabled"] {
            model.shift_remove(&s(f));
        }
        model.insert(s("?"), Value::Dict(Arc::new(header)));
        let obj = core.load_object_tree(&Value::Dict(Arc::new(model)), None, false)?;
        // The host class's constructor, a host call of its own.
        let id = engine.object_view(&obj).map(|v| v.id).unwrap_or_default();
        let mut rec = lock(&self.inner.rec);
        if rec.host_calls.len() < MAX_RECORDS {
            rec.host_calls.push(json!({
                "class": class,
                "method": "__init__",
                "receiver": id,
                "args": [],
                "kwargs": {},
                "result": null,
            }));
        }
        Ok(obj)
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

static SPECS: &[Spec] = &[
    // ----- HeatStack
    Spec {
        class: "io.murano.system.HeatStack",
        method: ".init",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            let region = match given(call, "regionName") {
                Some(Value::Null) | None => String::new(),
                Some(v) => v.py_str(),
            };
            sys.save_stack(
                &id,
                Stack {
                    name: call.arg("name").map(Value::py_str).unwrap_or_default(),
                    description: given(call, "description").cloned().unwrap_or_default(),
                    region,
                    template: None,
                    parameters: empty_dict(),
                    files: empty_dict(),
                    environment: empty_dict(),
                    applied: true,
                },
            );
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "current",
        kwargs: &[],
        body: |sys, engine, call| {
            let (id, mut st) = sys.stack(engine, call)?;
            let out = sys.stack_current(&mut st);
            sys.save_stack(&id, st);
            out
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "parameters",
        kwargs: &[],
        body: |sys, engine, call| {
            let (id, mut st) = sys.stack(engine, call)?;
            let out = sys.stack_current(&mut st).map(|_| st.parameters.clone());
            sys.save_stack(&id, st);
            out
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "reload",
        kwargs: &[],
        body: |sys, engine, call| {
            let (id, mut st) = sys.stack(engine, call)?;
            st.template = None;
            st.parameters = empty_dict();
            let out = sys.stack_current(&mut st);
            sys.save_stack(&id, st);
            out
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "setTemplate",
        kwargs: &[],
        body: |sys, engine, call| {
            sys.edit_stack(engine, call, |st| {
                st.template = Some(call.arg("template").cloned().unwrap_or_default());
                st.parameters = empty_dict();
            })
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "setParameters",
        kwargs: &[],
        body: |sys, engine, call| {
            sys.edit_stack(engine, call, |st| {
                st.parameters = call.arg("parameters").cloned().unwrap_or_default();
            })
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "setFiles",
        kwargs: &[],
        body: |sys, engine, call| {
            sys.edit_stack(engine, call, |st| {
                st.files = call.arg("files").cloned().unwrap_or_default();
            })
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "setHotEnvironment",
        kwargs: &[],
        body: |sys, engine, call| {
            sys.edit_stack(engine, call, |st| {
                st.environment = call.arg("hotEnvironment").cloned().unwrap_or_default();
            })
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "updateTemplate",
        kwargs: &[],
        body: |sys, engine, call| {
            let (id, mut st) = sys.stack(engine, call)?;
            let template = call.arg("template").cloned().unwrap_or_default();
            let Value::Dict(t) = &template else {
                return Err(host_error(HostError::new(
                    "AttributeError",
                    "builtins",
                    format!("'{}' object has no attribute 'get'", template.type_name()),
                )));
            };
            if let Some(v) = t.get(&s("heat_template_version")) {
                if v.as_str() != Some("2013-05-23") {
                    return Err(host_error(HostError::new(
                        "HeatStackError",
                        "murano.engine.system.heat_stack",
                        "Currently only heat_template_version 2013-05-23 is supported.",
                    )));
                }
            }
            let current = sys.stack_current(&mut st)?;
            let merged = merge_dicts(&dict_of(&current), t, 0).map_err(host_error)?;
            let merged = Value::Dict(Arc::new(merged));
            st.applied = merged == current && st.applied;
            st.template = Some(merged);
            sys.save_stack(&id, st);
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "push",
        kwargs: &[],
        body: |sys, engine, call| {
            let (id, mut st) = sys.stack(engine, call)?;
            let out = sys.stack_push(&mut st);
            sys.save_stack(&id, st);
            out.map(|()| Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "output",
        kwargs: &[],
        body: |sys, engine, call| {
            let (_, st) = sys.stack(engine, call)?;
            sys.inner
                .host
                .heat_outputs(&st.region, &st.name)
                .map_err(host_error)
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "delete",
        kwargs: &[],
        body: |sys, engine, call| {
            let (id, mut st) = sys.stack(engine, call)?;
            let out = sys.stack_delete(&mut st);
            sys.save_stack(&id, st);
            out.map(|()| Value::Null)
        },
    },
    // ----- Agent
    Spec {
        class: "io.murano.system.Agent",
        method: ".init",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            let host = call.arg("host").cloned().unwrap_or_default();
            let host_id = engine.object_view(&host).map(|v| v.id).unwrap_or_default();
            let env = sys.find_environment(engine, &host);
            let queue = format!("e{env}-h{host_id}").to_lowercase();
            sys.set_state(
                &id,
                NativeState::Agent {
                    queue,
                    host: host_id,
                    stamp: 0,
                },
            );
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "call",
        kwargs: &[],
        body: |sys, engine, call| {
            let timeout = timeout_of(sys, given(call, "timeout"));
            let plan = sys.build(engine, call)?;
            sys.send_plan(engine, call, plan, true, timeout)
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "send",
        kwargs: &[],
        body: |sys, engine, call| {
            let plan = sys.build(engine, call)?;
            sys.send_plan(engine, call, plan, false, 0)
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "callRaw",
        kwargs: &[],
        body: |sys, engine, call| {
            let timeout = timeout_of(sys, given(call, "timeout"));
            let plan = call.arg("plan").cloned().unwrap_or_default();
            sys.send_plan(engine, call, plan, true, timeout)
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "sendRaw",
        kwargs: &[],
        body: |sys, engine, call| {
            let plan = call.arg("plan").cloned().unwrap_or_default();
            sys.send_plan(engine, call, plan, false, 0)
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "isReady",
        kwargs: &[],
        body: |sys, engine, call| {
            let timeout = given(call, "timeout")
                .and_then(Value::as_int)
                .unwrap_or(100);
            sys.send_plan(engine, call, ready_plan(), true, timeout)?;
            Ok(Value::Bool(true))
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "waitReady",
        kwargs: &[],
        body: |sys, engine, call| {
            let timeout = given(call, "timeout")
                .and_then(Value::as_int)
                .unwrap_or(100);
            sys.send_plan(engine, call, ready_plan(), true, timeout)?;
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "queueName",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            match sys.state(&id) {
                Some(NativeState::Agent { queue, .. }) => Ok(s(&queue)),
                _ => Ok(Value::Null),
            }
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "signingKey",
        kwargs: &[],
        body: |_, _, _| Ok(s("")),
    },
    // ----- AgentListener
    Spec {
        class: "io.murano.system.AgentListener",
        method: ".init",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            let name = call.arg("name").map(Value::py_str).unwrap_or_default();
            sys.set_state(
                &id,
                NativeState::Listener {
                    queue: format!("-execution-results-{}", name.to_lowercase()),
                },
            );
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.AgentListener",
        method: "queueName",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            match sys.state(&id) {
                Some(NativeState::Listener { queue }) => Ok(s(&queue)),
                _ => Ok(Value::Null),
            }
        },
    },
    Spec {
        class: "io.murano.system.AgentListener",
        method: "start",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.system.AgentListener",
        method: "stop",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.system.AgentListener",
        method: "subscribe",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.system.AgentListener",
        method: "unsubscribe",
        kwargs: &[],
        body: unit,
    },
    // ----- Resources
    Spec {
        class: "io.murano.system.Resources",
        method: ".init",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            let package = SystemClasses::caller_package(engine, 1).unwrap_or_default();
            sys.set_state(&id, NativeState::Resources { package });
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.Resources",
        method: "string",
        kwargs: &["owner", "binary"],
        body: |sys, engine, call| {
            let bytes = resources_string(sys, engine, call)?;
            if given(call, "binary").is_some_and(Value::truthy) {
                // Python bytes: kept as Latin-1 text.
                return Ok(s(&bytes.iter().map(|&b| b as char).collect::<String>()));
            }
            Ok(s(&text_result(&bytes)?))
        },
    },
    Spec {
        class: "io.murano.system.Resources",
        method: "json",
        kwargs: &["owner"],
        body: |sys, engine, call| {
            let bytes = resources_string(sys, engine, call)?;
            let text = text_result(&bytes)?;
            let json: Json = serde_json::from_str(&text).map_err(|e| {
                host_error(HostError::new(
                    "JSONDecodeError",
                    "json.decoder",
                    e.to_string(),
                ))
            })?;
            Ok(super::record::decode(&json))
        },
    },
    Spec {
        class: "io.murano.system.Resources",
        method: "yaml",
        kwargs: &["owner"],
        body: |sys, engine, call| {
            let bytes = resources_string(sys, engine, call)?;
            let text = text_result(&bytes)?;
            let options = murano_dsl::yaml::LoadOptions::default();
            let node = murano_dsl::yaml::load_single(
                text.as_bytes(),
                murano_dsl::yaml::Flavor::Plain,
                &options,
            )
            .map_err(|e| {
                host_error(HostError::new(
                    e.class().python_name(),
                    "yaml",
                    e.to_string(),
                ))
            })?;
            match node {
                None => Ok(Value::Null),
                Some(n) => murano_dsl::yaml::convert::to_yaql(
                    &n,
                    &murano_dsl::yaml::convert::ToYaql::data(),
                )
                .map_err(|e| host_error(HostError::new("ValueError", "builtins", e.to_string()))),
            }
        },
    },
    // ----- InstanceNotifier
    Spec {
        class: "io.murano.system.InstanceNotifier",
        method: ".init",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            let environment = env_id(engine, call.arg("environment"));
            sys.set_state(&id, NativeState::Reporter { environment });
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.InstanceNotifier",
        method: "trackApplication",
        kwargs: &[],
        body: |sys, engine, call| track(sys, engine, call, "murano.track_instance", 100, false),
    },
    Spec {
        class: "io.murano.system.InstanceNotifier",
        method: "untrackApplication",
        kwargs: &[],
        body: |sys, engine, call| track(sys, engine, call, "murano.untrack_instance", 100, false),
    },
    Spec {
        class: "io.murano.system.InstanceNotifier",
        method: "trackCloudInstance",
        kwargs: &[],
        body: |sys, engine, call| track(sys, engine, call, "murano.track_instance", 200, true),
    },
    Spec {
        class: "io.murano.system.InstanceNotifier",
        method: "untrackCloudInstance",
        kwargs: &[],
        body: |sys, engine, call| track(sys, engine, call, "murano.untrack_instance", 200, true),
    },
    // ----- StatusReporter
    Spec {
        class: "io.murano.system.StatusReporter",
        method: ".init",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            let environment = env_id(engine, call.arg("environment"));
            sys.set_state(&id, NativeState::Reporter { environment });
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.StatusReporter",
        method: "report",
        kwargs: &[],
        body: |sys, engine, call| status(sys, engine, call, "info"),
    },
    Spec {
        class: "io.murano.system.StatusReporter",
        method: "report_error",
        kwargs: &[],
        body: |sys, engine, call| status(sys, engine, call, "error"),
    },
    Spec {
        class: "io.murano.system.StatusReporter",
        method: "reportError",
        kwargs: &[],
        body: |sys, engine, call| status(sys, engine, call, "error"),
    },
    // ----- NetworkExplorer
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: ".init",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "getDefaultRouter",
        kwargs: &[],
        body: |sys, _, _| network(sys, NetworkQuery::DefaultRouter),
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "getAvailableCidr",
        kwargs: &[],
        body: |sys, _, call| {
            let four = Value::Int(4);
            network(
                sys,
                NetworkQuery::AvailableCidr {
                    router: arg_or_null(call, "routerId"),
                    network: arg_or_null(call, "netId"),
                    ip_version: given(call, "ipVersion").unwrap_or(&four),
                },
            )
        },
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "getDefaultDns",
        kwargs: &[],
        body: |sys, _, call| {
            let four = Value::Int(4);
            network(
                sys,
                NetworkQuery::DefaultDns {
                    ip_version: given(call, "ipVersion").unwrap_or(&four),
                },
            )
        },
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "getExternalNetworkIdForRouter",
        kwargs: &[],
        body: |sys, _, call| {
            network(
                sys,
                NetworkQuery::ExternalNetworkForRouter(arg_or_null(call, "routerId")),
            )
        },
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "getExternalNetworkIdForNetwork",
        kwargs: &[],
        body: |sys, _, call| {
            network(
                sys,
                NetworkQuery::ExternalNetworkForNetwork(arg_or_null(call, "networkId")),
            )
        },
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "listNetworks",
        kwargs: &[],
        body: |sys, _, _| network(sys, NetworkQuery::Networks),
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "listSubnetworks",
        kwargs: &[],
        body: |sys, _, _| network(sys, NetworkQuery::Subnetworks),
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "listPorts",
        kwargs: &[],
        body: |sys, _, _| network(sys, NetworkQuery::Ports),
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "listNeutronExtensions",
        kwargs: &[],
        body: |sys, _, _| network(sys, NetworkQuery::NeutronExtensions),
    },
    // ----- MistralClient
    Spec {
        class: "io.murano.system.MistralClient",
        method: ".init",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.system.MistralClient",
        method: "upload",
        kwargs: &[],
        body: |sys, _, call| {
            sys.inner
                .host
                .mistral_upload(arg_or_null(call, "definition"))
                .map_err(host_error)
        },
    },
    Spec {
        class: "io.murano.system.MistralClient",
        method: "run",
        kwargs: &[],
        body: |sys, _, call| {
            let default_timeout = Value::Int(600);
            sys.inner
                .host
                .mistral_run(
                    arg_or_null(call, "name"),
                    given(call, "timeout").unwrap_or(&default_timeout),
                    arg_or_null(call, "inputs"),
                    arg_or_null(call, "params"),
                )
                .map_err(host_error)
        },
    },
    // ----- MetadefBrowser
    Spec {
        class: "io.murano.system.MetadefBrowser",
        method: ".init",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.system.MetadefBrowser",
        method: "getNamespaces",
        kwargs: &[],
        body: |sys, _, call| {
            sys.inner
                .host
                .metadef("namespaces", arg_or_null(call, "resourceType"))
                .map_err(host_error)
        },
    },
    Spec {
        class: "io.murano.system.MetadefBrowser",
        method: "getObjects",
        kwargs: &[],
        body: |sys, _, call| {
            sys.inner
                .host
                .metadef("objects", arg_or_null(call, "namespace"))
                .map_err(host_error)
        },
    },
    // ----- User, Project
    Spec {
        class: "io.murano.User",
        method: "getCurrent",
        kwargs: &[],
        body: |sys, engine, _| {
            let fields = sys.inner.host.current_user().map_err(host_error)?;
            sys.new_identity(engine, "io.murano.User", fields)
        },
    },
    Spec {
        class: "io.murano.User",
        method: "getEnvironmentOwner",
        kwargs: &[],
        body: |sys, engine, _| {
            let fields = sys.inner.host.current_user().map_err(host_error)?;
            sys.new_identity(engine, "io.murano.User", fields)
        },
    },
    Spec {
        class: "io.murano.Project",
        method: "getCurrent",
        kwargs: &[],
        body: |sys, engine, _| {
            let fields = sys.inner.host.current_project().map_err(host_error)?;
            sys.new_identity(engine, "io.murano.Project", fields)
        },
    },
    Spec {
        class: "io.murano.Project",
        method: "getEnvironmentOwner",
        kwargs: &[],
        body: |sys, engine, _| {
            let fields = sys.inner.host.current_project().map_err(host_error)?;
            sys.new_identity(engine, "io.murano.Project", fields)
        },
    },
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

    #[test]
    fn merge_dicts_refuses_values_of_different_types() {
        let e = merge_dicts(&d(r#"{"a": {"x": 1}}"#), &d(r#"{"a": [1]}"#), 0).unwrap_err();
        assert_eq!(e.type_name, "TypeError");
    }
}
