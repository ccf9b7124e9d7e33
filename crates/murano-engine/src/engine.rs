//! The engine: object store, property access, method invocation with
//! argument contracts, object-model loading and serialisation.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use indexmap::IndexMap;
use murano_dsl::contract::{Contract, ContractError, ObjectHost, ObjectInfo, Runtime, Scope};
use murano_dsl::model::{ArgumentUsage, MethodScope, MethodUsage, PropertyUsage};
use murano_dsl::registry::ClassId;
use murano_dsl::yaml::Mark;
use murano_yaql::eval::{
    Context, Dict, Engine as YaqlEngine, Error as YaqlError, ErrorKind as YaqlErrorKind,
    FunctionDef, Library, Value,
};

use crate::classes::ClassSet;
use crate::error::{EngineError, ErrorKind, LimitKind, StackFrame};
use crate::object::{addr_of, lock, CastObj, Obj, ObjectView, TypeObj};
use crate::Limits;

/// The message of a YAQL error that stands for the engine error parked in
/// the core (see `Core::to_yaql`).
const PENDING: &str = "\u{0}murano-engine:pending";
/// Prefix of a YAQL error message carrying a host exception
/// (see [`host_exception`]).
const HOST_PREFIX: &str = "\u{0}murano-engine:host:";

/// A YAQL error for a host function to return: a host exception of Python
/// class `type_name` from `module` (`builtins` for Python's own), which
/// the engine wraps as Murano wraps Python exceptions.
pub fn host_exception(type_name: &str, module: &str, message: &str) -> YaqlError {
    YaqlError::new(
        YaqlErrorKind::Host,
        format!("{HOST_PREFIX}{module}\u{0}{type_name}\u{0}{message}"),
    )
}

/// The most log records an engine keeps (the oldest go first).
pub(crate) const MAX_LOG_RECORDS: usize = 10_000;

/// One MuranoPL frame on the engine's call stack.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    pub(crate) class: ClassId,
    pub(crate) method: String,
    pub(crate) this: Option<Arc<Obj>>,
    pub(crate) at: Mark,
    /// The expression evaluated last, Murano's current instruction (none:
    /// a block construct).
    pub(crate) instruction: Option<Arc<murano_yaql::Expression>>,
    /// Property writes are unrestricted (`.init`: Murano's
    /// `CTX_ALLOW_PROPERTY_WRITES`).
    pub(crate) allow_writes: bool,
    /// The contexts of the expressions this frame is evaluating (its
    /// local variables, kept alive while it runs: roots of `GC.collect`).
    pub(crate) locals: Vec<Context>,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) objects: crate::store::ObjectStore,
    pub(crate) by_addr: HashMap<usize, Arc<Obj>>,
    pub(crate) types: HashMap<usize, Arc<TypeObj>>,
    pub(crate) casts: HashMap<usize, Arc<CastObj>>,
    pub(crate) refl: HashMap<usize, Arc<crate::reflection::ReflObj>>,
    pub(crate) logger_names: HashMap<String, String>,
    /// The errors behind the exception objects `Catch: As:` made (for
    /// `Throw: Cause:`).
    pub(crate) exceptions: HashMap<String, EngineError>,
    /// Method locks held, and the `Synchronize` settings read so far.
    pub(crate) locks: crate::locks::MethodLocks,
    /// The object a static method was called on (for native methods,
    /// which may tell an instance call from a class call).
    pub(crate) static_receiver: Option<Arc<Obj>>,
    /// Loads in dry-run mode (`template()`): no `.init`, nothing kept.
    pub(crate) dry_run: u32,
    pub(crate) log: Vec<crate::LogRecord>,
    /// Model ids of the objects being loaded by `new()` or a contract
    /// (which get fresh ids), innermost load last.
    pub(crate) aliases: Vec<HashMap<String, Arc<Obj>>>,
    pub(crate) statics: HashMap<(usize, String), Value>,
    pub(crate) stack: Vec<Frame>,
    /// Re-entries of the engine under way that push no frame (see
    /// [`Core::enter`]): they count against the call depth with `stack`.
    pub(crate) nesting: usize,
    pub(crate) fuel_used: u64,
    pub(crate) next_id: u64,
    /// Where object ids come from instead of `next_id` (`Engine::set_id_source`).
    pub(crate) id_source: Option<crate::ids::IdSource>,
    pub(crate) pending: Option<EngineError>,
    pub(crate) root: Option<Arc<Obj>>,
    pub(crate) attributes: Vec<(String, String, String, Value)>,
    pub(crate) class_configs: HashMap<String, Dict>,
    /// Murano's configuration as `config()` reads it (`Engine::set_config`).
    pub(crate) config: Dict,
    /// How many names `randomName()` has drawn.
    pub(crate) random_names: u64,
    /// Objects sentenced by the collection under way (Murano's
    /// `_pending_destruction`, what `GC.isDoomed` asks about).
    pub(crate) doomed: HashSet<String>,
    /// Objects of dry-run loads (`template()`) by their fresh id → the id
    /// their model gave: templates keep their model's ids.
    pub(crate) dry_ids: HashMap<String, String>,
    /// Objects in the order the attribute store first saw them (read or
    /// written): the order it is serialised in.
    pub(crate) attribute_objects: Vec<String>,
    /// Loads and initialisations under way.
    pub(crate) loading: u32,
    /// `.init` calls of objects contracts loaded during them, in order.
    pub(crate) deferred_inits: Vec<PendingInit>,
    /// Method mocks (`inject`, see `crate::mock`).
    pub(crate) mocks: crate::mock::Mocks,
    /// Warnings Murano's executor logs (see [`Engine::take_warnings`]).
    pub(crate) warnings: Vec<String>,
}

/// The name of the context variable that leads engine functions to their
/// engine (not a YAQL identifier, so no expression can read it).
const ENGINE_VAR: &str = "$#murano-engine";

/// What [`ENGINE_VAR`] holds: the engine, so that one library of engine
/// functions serves every engine over the same classes.
#[derive(Debug)]
struct EngineHandle(Weak<Core>);

impl murano_yaql::eval::HostObject for EngineHandle {
    fn type_name(&self) -> &str {
        "murano-engine"
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// The engine a YAQL function runs in (from its context).
pub(crate) fn core_of(call: &murano_yaql::eval::Call<'_>) -> Result<Arc<Core>, YaqlError> {
    match call.context().get(ENGINE_VAR) {
        Some(Value::Object(o)) => o
            .as_any()
            .and_then(|a| a.downcast_ref::<EngineHandle>())
            .and_then(|h| h.0.upgrade())
            .ok_or_else(YaqlError::mismatch),
        _ => Err(YaqlError::mismatch()),
    }
}

/// The shared core behind an [`Engine`].
pub(crate) struct Core {
    pub(crate) natives: HashMap<(String, String), Arc<crate::NativeBody>>,
    pub(crate) classes: Arc<ClassSet>,
    pub(crate) limits: Limits,
    pub(crate) yaql: YaqlEngine,
    pub(crate) runtime: Arc<Runtime>,
    pub(crate) library: OnceLock<Arc<Library>>,
    /// Murano's 1.2 engine (no iterable dicts), for classes of packages
    /// of format 1.2 and later.
    pub(crate) yaql12: YaqlEngine,
    /// yaql's standard library with the engine's functions, for those
    /// classes.
    pub(crate) library12: OnceLock<Arc<Library>>,
    pub(crate) state: Mutex<State>,
    /// [`ENGINE_VAR`]'s value.
    handle: Value,
    /// The green threads of `Parallel` and `pselect`.
    pub(crate) sched: crate::sched::Scheduler,
    /// What the run's values may hold ([`Limits::max_memory`]).
    pub(crate) memory: crate::memory::RunMemory,
    pub(crate) self_ref: Weak<Core>,
    /// Told about calls of the engine's own `io.murano.system.Logger`
    /// natives (see [`Engine::observe_logger_calls`]).
    pub(crate) logger_observer: OnceLock<Arc<LoggerObserver>>,
}

/// One re-entry of the engine under way ([`Core::enter`]); dropping it
/// leaves. Entered and left on the same green thread, whose state is
/// installed at both times.
pub(crate) struct Nesting<'a>(&'a Core);

impl Drop for Nesting<'_> {
    fn drop(&mut self) {
        let mut st = lock(&self.0.state);
        st.nesting = st.nesting.saturating_sub(1);
    }
}

/// The parts of [`State`] that belong to one green thread, set aside
/// while another runs.
#[derive(Default)]
pub(crate) struct ThreadState {
    stack: Vec<Frame>,
    nesting: usize,
    pending: Option<EngineError>,
    static_receiver: Option<Arc<Obj>>,
    aliases: Vec<HashMap<String, Arc<Obj>>>,
    dry_run: u32,
}

impl ThreadState {
    /// The state a branch starts with: its parent's frames (a trace from
    /// inside a branch goes on through the frames that started it).
    pub(crate) fn branch_of(stack: Vec<Frame>) -> ThreadState {
        ThreadState {
            stack,
            ..ThreadState::default()
        }
    }
}
/// A callback told about `Logger` calls: method (`__init__`, `info`, ...),
/// the logger object's id, positional and keyword arguments.
pub type LoggerObserver = dyn Fn(&str, &str, &[Value], &[(String, Value)]) + Send + Sync;

/// A MuranoPL engine over a [`ClassSet`]: an object store, the objects
/// of one object model, and the calls made into them. Single-threaded:
/// one call runs at a time.
#[derive(Clone)]
pub struct Engine {
    core: Arc<Core>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Engine")
    }
}

/// Who receives an external call.
#[derive(Debug, Clone)]
pub enum Receiver {
    /// An object (a value returned by the engine).
    Object(Value),
    /// A class by full name (static methods only).
    Class(String),
}

impl Engine {
    /// An engine over `classes` with these limits and host functions
    /// (registered in the innermost layer of the YAQL library, so visible
    /// from every class).
    pub fn new(classes: Arc<ClassSet>, limits: Limits, host_functions: Vec<FunctionDef>) -> Engine {
        Engine::with_natives(classes, limits, host_functions, Vec::new())
    }

    /// [`Engine::new`] with native methods: MuranoPL methods (declared in
    /// a class, with their arguments and contracts) whose body the host
    /// implements, as Murano implements parts of classes in Python.
    pub fn with_natives(
        classes: Arc<ClassSet>,
        limits: Limits,
        host_functions: Vec<FunctionDef>,
        natives: Vec<crate::NativeMethod>,
    ) -> Engine {
        let natives = natives
            .into_iter()
            .map(|n| ((n.class, n.method), n.body))
            .collect();
        let max_memory = limits.max_memory;
        let core = Arc::new_cyclic(|weak| Core {
            natives,
            classes,
            limits,
            yaql: YaqlEngine::murano(false),
            runtime: Runtime::shared(1, 0),
            library: OnceLock::new(),
            yaql12: YaqlEngine::murano(true),
            library12: OnceLock::new(),
            state: Mutex::new(State::default()),
            handle: Value::Object(Arc::new(EngineHandle(weak.clone()))),
            sched: crate::sched::Scheduler::default(),
            memory: crate::memory::RunMemory::new(max_memory, weak.clone()),
            self_ref: weak.clone(),
            logger_observer: OnceLock::new(),
        });
        let (base, dispatch) = if core.classes.has_format_12() {
            // Classes of format 1.2 and later need the standard library too.
            let (b12, d12) = core.classes.libraries12();
            let mut library = b12.clone();
            if !host_functions.is_empty() {
                library.push_layer();
                for f in &host_functions {
                    library.register(f.duplicate());
                }
            }
            library.push_library(d12);
            let _ = core.library12.set(Arc::new(library));
            core.classes.libraries()
        } else {
            core.classes.libraries()
        };
        let mut library = base.clone();
        if !host_functions.is_empty() {
            library.push_layer();
            for f in host_functions {
                library.register(f);
            }
        }
        library.push_library(dispatch);
        let _ = core.library.set(Arc::new(library));
        Engine { core }
    }

    /// Tells `observer` about every call of the engine's
    /// `io.murano.system.Logger` natives (made by `logger(name)`:
    /// `__init__` with `loggerName`; `trace` ... `exception` with their
    /// arguments), e.g. to record them as host calls. Set once.
    pub fn observe_logger_calls(&self, observer: Arc<LoggerObserver>) {
        let _ = self.core.logger_observer.set(observer);
    }

    /// Sets the configuration of classes (`{class: {property: value}}`):
    /// `Usage: Config` properties take their value from it, others their
    /// default.
    pub fn set_class_config(&self, class: &str, config: Dict) {
        lock(&self.core.state)
            .class_configs
            .insert(class.to_owned(), config);
    }

    /// Adds an attribute-store entry `(object id, class name, key, value)`.
    pub fn add_attribute(&self, object: &str, class: &str, key: &str, value: Value) {
        self.core.set_attribute(object, class, key, value);
    }

    /// Loads an object model (`Objects`, then `ObjectsCopy` when present)
    /// and returns the root object (`None` for a null `Objects`).
    pub fn load_model(&self, model: &Value) -> Result<Option<Value>, EngineError> {
        let core = &self.core;
        let Value::Dict(d) = model else {
            return Err(EngineError::dsl(
                "DslInvalidOperationError",
                "an object model must be a mapping",
            ));
        };
        let objects = d.get(&Value::str("Objects")).cloned().unwrap_or_default();
        let root = if objects.is_null() {
            None
        } else {
            let root = core.load_object_tree(&objects, None, true)?;
            lock(&core.state).root = core.obj_of(&root);
            Some(root)
        };
        // `ObjectsCopy` (the previous deployment's model): its objects are
        // loaded the same way (objects also in `Objects` are the same
        // objects), then those not reachable from the root are destroyed.
        if let Some(copy) = d.get(&Value::str("ObjectsCopy")) {
            if !copy.is_null() {
                core.load_object_tree(copy, None, true)?;
                core.collect_garbage()?;
            }
        }
        Ok(root)
    }

    /// Calls a method from outside (the runner's `on(obj).method(...)`).
    pub fn call(
        &self,
        receiver: &Receiver,
        method: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, EngineError> {
        let core = &self.core;
        {
            let mut st = lock(&core.state);
            st.stack.clear();
            st.pending = None;
        }
        // Callers from outside get mutable values (lists), as Murano's
        // object interface gives them (`to_mutable`).
        let result = match receiver {
            Receiver::Object(v) => {
                let obj = core.obj_of(v).ok_or_else(|| {
                    EngineError::dsl("NoObjectFoundError", "receiver is not an object")
                })?;
                core.invoke(Some(&obj), obj.class, method, args, kwargs, true)
            }
            Receiver::Class(name) => {
                let class = core.classes.resolve(None, name)?;
                core.invoke(None, class, method, args, kwargs, true)
            }
        };
        result.map(|v| crate::mutable::to_mutable(&v))
    }

    /// A thread-switch point (a host's `yield()`, Murano's `sleep(0)`):
    /// the other green threads of `Parallel` branches and `pselect` items
    /// that are ready run first, in eventlet's order, then this call
    /// returns. For host functions (it reports errors as YAQL errors).
    pub fn yield_point(&self) -> Result<(), murano_yaql::eval::Error> {
        self.core.yield_point(0);
        Ok(())
    }

    /// The engine of a core (for the crate's own modules).
    pub(crate) fn from_core(core: Arc<Core>) -> Engine {
        Engine { core }
    }

    /// The shared core (for the crate's own modules).
    pub(crate) fn core(&self) -> &Arc<Core> {
        &self.core
    }

    /// Takes the warnings of the run so far: errors that Murano's executor
    /// mutes and logs as warnings (`Muted exception during execution of
    /// .destroy on ...`, and of a destruction handler), with their
    /// traceback. The run goes on as Murano's does; a host reports them.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut lock(&self.core.state).warnings)
    }

    /// Takes the messages logged through `io.murano.system.Logger`
    /// objects (at most the last 10 000).
    pub fn take_log(&self) -> Vec<crate::LogRecord> {
        std::mem::take(&mut lock(&self.core.state).log)
    }

    /// The object with this id.
    pub fn object(&self, id: &str) -> Option<Value> {
        let st = lock(&self.core.state);
        st.objects.get(id).map(|o| Value::Object(o.clone()))
    }

    /// What an object value holds, `None` when `value` is not an object
    /// of this engine.
    pub fn object_view(&self, value: &Value) -> Option<ObjectView> {
        let obj = self.core.obj_of(value)?;
        let mut props: Vec<(String, Value)> = lock(&obj.props)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // The undeclared properties of the object's own class part.
        for ((class, k), v) in lock(&obj.private).iter() {
            if *class == obj.class.index() && !props.iter().any(|(n, _)| n == k) {
                props.push((k.clone(), v.clone()));
            }
        }
        props.sort_by(|a, b| a.0.cmp(&b.0));
        Some(ObjectView {
            id: obj.id.clone(),
            class: obj.class_name.clone(),
            props,
            destroyed: obj.is_destroyed(),
            name: (!obj.name.is_null()).then(|| obj.name.clone()),
        })
    }

    /// The class name of a class value, with `true` for a type reference.
    pub fn type_view(&self, value: &Value) -> Option<(String, bool)> {
        let addr = addr_of(value)?;
        let st = lock(&self.core.state);
        st.types.get(&addr).map(|t| (t.name.clone(), t.reference))
    }

    /// The root serialised as a deployment object model: `Objects`,
    /// `ObjectsCopy`, `Attributes`.
    pub fn serialized_model(&self) -> Value {
        let root = lock(&self.core.state).root.clone();
        crate::serialize::model(&self.core, root.as_ref())
    }

    /// Ends the session: objects not reachable from the root are
    /// destroyed (their `.destroy` methods run), the root is serialised
    /// (null without a root), then every object is marked destroyed.
    pub fn finalize(&self) -> Result<Value, EngineError> {
        let core = &self.core;
        core.collect_garbage()?;
        let root = lock(&core.state).root.clone();
        let out = match root {
            None => Value::Null,
            Some(r) => crate::serialize::model(core, Some(&r)),
        };
        let st = lock(&core.state);
        for o in st.objects.values() {
            o.destroyed.store(true, Ordering::Relaxed);
        }
        Ok(out)
    }
}

/// `value` with the `?` header ids found in `ids` replaced (the model ids
/// of objects a dry-run load made).
fn restore_model_ids(value: Value, ids: &HashMap<String, String>, depth: usize) -> Value {
    if ids.is_empty() || depth > 256 {
        return value;
    }
    match value {
        Value::Dict(d) => {
            let mut out = Dict::default();
            for (k, v) in d.iter() {
                let v = if k.as_str() == Some("?") {
                    match v {
                        Value::Dict(h) => {
                            let mut h = (**h).clone();
                            let key = Value::str("id");
                            if let Some(Value::Str(id)) = h.get(&key) {
                                if let Some(orig) = ids.get(&**id) {
                                    h.insert(key, Value::str(orig));
                                }
                            }
                            Value::Dict(Arc::new(h))
                        }
                        other => other.clone(),
                    }
                } else {
                    restore_model_ids(v.clone(), ids, depth + 1)
                };
                out.insert(k.clone(), v);
            }
            Value::Dict(Arc::new(out))
        }
        Value::List(items) => Value::List(Arc::new(
            items
                .iter()
                .map(|v| restore_model_ids(v.clone(), ids, depth + 1))
                .collect(),
        )),
        Value::Tuple(items) => Value::tuple(
            items
                .iter()
                .map(|v| restore_model_ids(v.clone(), ids, depth + 1))
                .collect(),
        ),
        other => other,
    }
}

/// A `.init` call to make: the class part and its arguments.
pub(crate) type InitCall = (ClassId, Vec<(String, Value)>);

/// An object and the `.init` calls it waits for.
pub(crate) type PendingInit = (Arc<Obj>, Vec<InitCall>);

/// Objects listed owners first (a load's pre-order) rearranged so that
/// every object comes after the objects it owns, siblings keeping their
/// order.
fn post_order<T>(items: Vec<(Arc<Obj>, T)>) -> Vec<(Arc<Obj>, T)> {
    let mut out = Vec::with_capacity(items.len());
    let mut stack: Vec<(Arc<Obj>, T)> = Vec::new();
    for (o, t) in items {
        let owner = o.owner_id();
        while let Some(top) = stack.last() {
            let owns = owner.as_deref() == Some(top.0.id.as_str());
            if owns {
                break;
            }
            // Not the owner: done with the top, unless the new object is
            // owned by something deeper in the stack.
            if let Some(item) = stack.pop() {
                out.push(item);
            }
        }
        stack.push((o, t));
    }
    while let Some(item) = stack.pop() {
        out.push(item);
    }
    out
}

/// An object a model dict defines.
struct ObjDef {
    /// The header's `dependencies` (destruction subscriptions).
    dependencies: Value,
    class: ClassId,
    id: Option<String>,
    name: Value,
    metadata: Value,
    props: Value,
}

/// Binds call arguments to a method's declared arguments.
struct Bound {
    values: Vec<(String, Value)>,
}

impl Core {
    pub(crate) fn library(&self) -> Arc<Library> {
        self.library
            .get()
            .cloned()
            .unwrap_or_else(|| Arc::new(Library::legacy()))
    }

    /// Whether a class runs with Murano's 1.2 YAQL engine and library
    /// (its package's format is 1.2 or later).
    fn is_format_12(&self, class: Option<ClassId>) -> bool {
        class.is_some_and(|c| self.classes.runtime_version(c) >= (1, 2))
    }

    /// Whether the running method's class is of format 1.2 or later.
    pub(crate) fn current_is_format_12(&self) -> bool {
        let class = lock(&self.state).stack.last().map(|f| f.class);
        self.is_format_12(class)
    }

    /// The YAQL library of a class's package format.
    pub(crate) fn library_for(&self, class: Option<ClassId>) -> Arc<Library> {
        if self.is_format_12(class) {
            if let Some(l) = self.library12.get() {
                return l.clone();
            }
        }
        self.library()
    }

    /// The YAQL engine of the running method's package format.
    pub(crate) fn current_yaql(&self) -> &YaqlEngine {
        let class = lock(&self.state).stack.last().map(|f| f.class);
        if self.is_format_12(class) {
            &self.yaql12
        } else {
            &self.yaql
        }
    }

    /// The object behind a value, if it is one of ours.
    pub(crate) fn obj_of(&self, v: &Value) -> Option<Arc<Obj>> {
        let addr = addr_of(v)?;
        let st = lock(&self.state);
        match st.by_addr.get(&addr) {
            Some(o) => Some(o.clone()),
            None => st.casts.get(&addr).map(|c| c.obj.clone()),
        }
    }

    /// The object a model id names: the loads in progress first (their
    /// model ids), then the store.
    pub(crate) fn lookup_id(&self, id: &str) -> Option<Arc<Obj>> {
        let st = lock(&self.state);
        for scope in st.aliases.iter().rev() {
            if let Some(o) = scope.get(id) {
                return Some(o.clone());
            }
        }
        st.objects.get(id).cloned()
    }

    /// The object a model id names for the load under way: loads that
    /// make fresh ids (`new()`, contracts) see only the objects such loads
    /// made (Murano's `InitializationObjectStore.get` without `keep_ids`
    /// does not look into the main store), a model load the whole store.
    pub(crate) fn lookup_load_id(&self, id: &str) -> Option<Arc<Obj>> {
        let st = lock(&self.state);
        if st.aliases.is_empty() {
            return st.objects.get(id).cloned();
        }
        st.aliases
            .iter()
            .rev()
            .find_map(|scope| scope.get(id).cloned())
    }

    /// See [`Engine::yield_point`]: `delay` microseconds of virtual time.
    pub(crate) fn yield_point(&self, delay: u64) {
        let me = self.sched.current();
        self.switch_thread(|s| s.sleep(me, delay));
    }

    /// Sets this green thread's state aside around `f`, which hands the
    /// baton to others and returns when this thread has it again.
    pub(crate) fn switch_thread<R>(&self, f: impl FnOnce(&crate::sched::Scheduler) -> R) -> R {
        let saved = self.take_thread_state();
        let me = self.sched.current();
        self.memory.park(me, &saved.stack);
        let r = f(&self.sched);
        self.memory.unpark(me);
        self.put_thread_state(saved);
        r
    }

    /// Takes the running green thread's state out of [`State`].
    pub(crate) fn take_thread_state(&self) -> ThreadState {
        let mut st = lock(&self.state);
        ThreadState {
            stack: std::mem::take(&mut st.stack),
            nesting: std::mem::take(&mut st.nesting),
            pending: st.pending.take(),
            static_receiver: st.static_receiver.take(),
            aliases: std::mem::take(&mut st.aliases),
            dry_run: std::mem::take(&mut st.dry_run),
        }
    }

    /// Installs a green thread's state (it holds the baton).
    pub(crate) fn put_thread_state(&self, t: ThreadState) {
        let mut st = lock(&self.state);
        st.stack = t.stack;
        st.nesting = t.nesting;
        st.pending = t.pending;
        st.static_receiver = t.static_receiver;
        st.aliases = t.aliases;
        st.dry_run = t.dry_run;
    }

    /// Sets (null: removes) an attribute-store entry.
    pub(crate) fn set_attribute(&self, object: &str, class: &str, key: &str, value: Value) {
        // A generator is stored as the list it yields (the attribute
        // store is serialised with the model).
        let value = match value {
            Value::Iter(it) => Value::List(Arc::new(
                it.take()
                    .take(crate::DEFAULT_MAX_OBJECTS)
                    .map_while(Result::ok)
                    .collect(),
            )),
            other => other,
        };
        let mut st = lock(&self.state);
        if !st.attribute_objects.iter().any(|o| o == object) {
            st.attribute_objects.push(object.to_owned());
        }
        let pos = st
            .attributes
            .iter()
            .position(|(o, c, k, _)| o == object && c == class && k == key);
        match (pos, value.is_null()) {
            (Some(i), true) => {
                st.attributes.remove(i);
            }
            (Some(i), false) => st.attributes[i].3 = value,
            (None, true) => {}
            (None, false) => {
                st.attributes
                    .push((object.to_owned(), class.to_owned(), key.to_owned(), value))
            }
        }
    }

    /// An attribute-store entry.
    pub(crate) fn attribute(&self, object: &str, class: &str, key: &str) -> Option<Value> {
        let mut st = lock(&self.state);
        // Murano's store is a defaultdict: reading makes the object's entry.
        if !st.attribute_objects.iter().any(|o| o == object) {
            st.attribute_objects.push(object.to_owned());
        }
        st.attributes
            .iter()
            .find(|(o, c, k, _)| o == object && c == class && k == key)
            .map(|e| e.3.clone())
    }

    /// The owner of an object.
    pub(crate) fn owner_of(&self, obj: &Obj) -> Option<Arc<Obj>> {
        let id = obj.owner_id()?;
        lock(&self.state).objects.get(&id).cloned()
    }

    /// The object and class of a cast view.
    pub(crate) fn cast_of(&self, v: &Value) -> Option<(Arc<Obj>, ClassId)> {
        let addr = addr_of(v)?;
        lock(&self.state)
            .casts
            .get(&addr)
            .map(|c| (c.obj.clone(), c.class))
    }

    /// `obj` seen as `class` (one of its MRO).
    pub(crate) fn cast_value(&self, obj: &Arc<Obj>, class: ClassId) -> Value {
        let c = Arc::new(CastObj {
            obj: obj.clone(),
            class,
        });
        let v: Value = Value::Object(c.clone());
        if let Some(a) = addr_of(&v) {
            lock(&self.state).casts.insert(a, c);
        }
        v
    }

    /// The class value at an address.
    pub(crate) fn type_at(&self, addr: usize) -> Option<Arc<TypeObj>> {
        lock(&self.state).types.get(&addr).cloned()
    }

    pub(crate) fn type_of_value(&self, v: &Value) -> Option<Arc<TypeObj>> {
        let addr = addr_of(v)?;
        lock(&self.state).types.get(&addr).cloned()
    }

    /// The value of a class (`reference`: a type reference).
    pub(crate) fn type_value(&self, class: ClassId, reference: bool) -> Value {
        let t = Arc::new(TypeObj {
            class,
            name: self.classes.name(class).to_owned(),
            reference,
            core: self.self_ref.clone(),
        });
        let v: Value = Value::Object(t.clone());
        if let Some(a) = addr_of(&v) {
            lock(&self.state).types.insert(a, t);
        }
        v
    }

    // ----- fuel, frames, errors -------------------------------------------

    /// Spends one unit of fuel.
    pub(crate) fn spend(&self) -> Result<(), EngineError> {
        let mut st = lock(&self.state);
        st.fuel_used += 1;
        if let Some(limit) = self.limits.fuel {
            if st.fuel_used > limit {
                return Err(EngineError::limit(
                    LimitKind::Fuel,
                    format!("execution used more than {limit} units of fuel"),
                ));
            }
        }
        Ok(())
    }

    /// Enters the engine once more: a method call about to push its frame
    /// (while its arguments bind), an object's property defaults and
    /// contracts, an object a contract loads. Each counts against
    /// [`crate::Limits::max_call_depth`] with the frames of the running
    /// green thread, until the guard drops: every path by which
    /// MuranoPL recurses passes here, so recursion ends with the
    /// call-depth error before the native stack runs out.
    pub(crate) fn enter(&self) -> Result<Nesting<'_>, EngineError> {
        let mut st = lock(&self.state);
        if st.stack.len() + st.nesting >= self.limits.max_call_depth {
            return Err(EngineError::limit(
                LimitKind::CallDepth,
                format!("call depth exceeds {}", self.limits.max_call_depth),
            ));
        }
        st.nesting += 1;
        Ok(Nesting(self))
    }

    /// Records the current instruction of the running frame: a block
    /// construct (`None`) or the expression being evaluated, as Murano's
    /// `CTX_CURRENT_INSTRUCTION` (what stack traces show).
    pub(crate) fn set_position(
        &self,
        at: Mark,
        instruction: Option<&Arc<murano_yaql::Expression>>,
    ) {
        if let Some(f) = lock(&self.state).stack.last_mut() {
            f.at = at;
            f.instruction = instruction.cloned();
        }
    }

    pub(crate) fn current_frame(&self) -> Option<Frame> {
        lock(&self.state).stack.last().cloned()
    }

    /// A stack frame record for an error raised at the current position.
    pub(crate) fn frame_record(&self, f: &Frame) -> StackFrame {
        StackFrame {
            file: self.classes.file(f.class).map(str::to_owned),
            line: f.at.line + 1,
            column: f.at.column + 1,
            method: f.method.clone(),
            class: self.classes.name(f.class).to_owned(),
            instruction: f.instruction.as_ref().map(|e| e.source().to_owned()),
        }
    }

    /// Parks an engine error and returns the YAQL error that stands for it.
    pub(crate) fn park(&self, e: EngineError) -> YaqlError {
        lock(&self.state).pending = Some(e);
        YaqlError::new(YaqlErrorKind::Host, PENDING)
    }

    /// The engine error behind a YAQL error.
    pub(crate) fn unpark_yaql(&self, e: &YaqlError) -> EngineError {
        if e.kind() == YaqlErrorKind::Host || e.kind() == YaqlErrorKind::AttributeError {
            if let Some(p) = lock(&self.state).pending.take() {
                return p;
            }
        }
        if e.kind() == YaqlErrorKind::Host {
            if let Some(rest) = e.message().strip_prefix(HOST_PREFIX) {
                let mut parts = rest.splitn(3, '\u{0}');
                let module = parts.next().unwrap_or("builtins").to_owned();
                let type_name = parts.next().unwrap_or("Exception").to_owned();
                let message = parts.next().unwrap_or("");
                return EngineError::new(ErrorKind::Host { type_name, module }, message);
            }
        }
        EngineError::from_yaql(e)
    }

    pub(crate) fn unpark_contract(&self, e: ContractError) -> EngineError {
        // A limit an engine call inside the contract raised wins over
        // whatever the contract made of it (a missing attribute, ...).
        {
            let mut st = lock(&self.state);
            if st.pending.as_ref().is_some_and(|p| !p.catchable()) {
                if let Some(p) = st.pending.take() {
                    return p;
                }
            }
        }
        if e.message.contains(PENDING) || e.message.contains(HOST_PREFIX) {
            let y = YaqlError::new(YaqlErrorKind::Host, e.message.clone());
            let mut out = self.unpark_yaql(&y);
            if out.message.contains(PENDING) {
                out.message.clear();
            }
            return out;
        }
        EngineError::new(
            ErrorKind::Engine {
                type_name: e.python_type().to_owned(),
                module: e.python_module().to_owned(),
            },
            e.message.clone(),
        )
    }

    // ----- contexts ------------------------------------------------------

    /// The context of a method of `class` running on `this`.
    pub(crate) fn method_context(&self, class: ClassId, this: Option<&Arc<Obj>>) -> Context {
        let this_value = match this {
            Some(o) => Value::Object(o.clone()),
            None => self.type_value(class, true),
        };
        Context::new(self.library_for(Some(class)))
            .with(ENGINE_VAR, self.handle.clone())
            .with("$this", this_value.clone())
            .with("$", this_value)
    }

    fn scope(&self, ctx: &Context, this: Option<&Arc<Obj>>, class: ClassId) -> Scope {
        let host: Arc<dyn ObjectHost> = Arc::new(StoreHost {
            core: self.self_ref.clone(),
            class: Some(class),
        });
        let mut scope = Scope::new(self.runtime.clone(), host).with_context(ctx.clone());
        if let Some(o) = this {
            let v = Value::Object(o.clone());
            scope = scope.with_this(v.clone()).with_owner(v);
        }
        scope
    }

    // ----- objects -------------------------------------------------------

    /// A fresh object id (a 32-digit hex string, as Murano's uuid4 ids).
    pub(crate) fn generate_id(&self) -> String {
        let source = lock(&self.state).id_source.clone();
        if let Some(source) = source {
            return source();
        }
        let mut st = lock(&self.state);
        st.next_id += 1;
        let n = st.next_id;
        let mixed = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5851_F42D_4C95_7F2D;
        format!("{mixed:016x}{n:016x}")
    }

    /// Creates an (uninitialised) object in the store.
    pub(crate) fn create_object(
        &self,
        class: ClassId,
        id: Option<String>,
        owner: Option<String>,
        name: Value,
        metadata: Value,
    ) -> Result<Arc<Obj>, EngineError> {
        let id = match id {
            Some(id) => id,
            None => self.generate_id(),
        };
        let obj = Arc::new(Obj {
            id: id.clone(),
            class,
            class_name: self.classes.name(class).to_owned(),
            owner: Mutex::new(owner),
            props: Mutex::new(IndexMap::new()),
            private: Mutex::new(IndexMap::new()),
            destroyed: AtomicBool::new(false),
            initialized: AtomicBool::new(false),
            dependencies: Mutex::new(Vec::new()),
            name,
            metadata,
            core: self.self_ref.clone(),
        });
        let mut st = lock(&self.state);
        if st.objects.len() >= self.limits.max_objects && !st.objects.contains_key(&id) {
            return Err(EngineError::limit(
                LimitKind::Objects,
                format!("more than {} objects", self.limits.max_objects),
            ));
        }
        let v = Value::Object(obj.clone());
        if let Some(a) = addr_of(&v) {
            st.by_addr.insert(a, obj.clone());
        }
        st.objects.insert(id, obj.clone());
        Ok(obj)
    }

    /// Loads an object tree owned by `owner`: a model dict in `?`-header
    /// form, in inline form (`{Type: {properties}, id: ..}`, the type a
    /// class value) or, with `default_class`, a plain property dict.
    /// `keep_ids`: objects take the ids of the model (the runner's model
    /// load); otherwise they get fresh ids and the model ids only name
    /// them during the load (`new()`, contracts), as Murano's
    /// `InitializationObjectStore` does.
    pub(crate) fn load_object_tree(
        &self,
        model: &Value,
        owner: Option<&Arc<Obj>>,
        keep_ids: bool,
    ) -> Result<Value, EngineError> {
        self.load_object_tree_as(model, owner, None, keep_ids)
    }

    pub(crate) fn load_object_tree_as(
        &self,
        model: &Value,
        owner: Option<&Arc<Obj>>,
        default_class: Option<ClassId>,
        keep_ids: bool,
    ) -> Result<Value, EngineError> {
        self.load_object_tree_by(model, owner, default_class, keep_ids, None)
    }

    /// [`Core::load_object_tree_as`] on behalf of code of class `caller`
    /// (the class whose method calls `new()`, or that declares the
    /// property or argument whose contract loads the model): see
    /// [`Core::initialize_properties`].
    pub(crate) fn load_object_tree_by(
        &self,
        model: &Value,
        owner: Option<&Arc<Obj>>,
        default_class: Option<ClassId>,
        keep_ids: bool,
        caller: Option<ClassId>,
    ) -> Result<Value, EngineError> {
        if keep_ids {
            return self.load_object_tree_in(model, owner, default_class, true, caller);
        }
        lock(&self.state).aliases.push(HashMap::new());
        let r = self.load_object_tree_in(model, owner, default_class, false, caller);
        lock(&self.state).aliases.pop();
        r
    }

    fn load_object_tree_in(
        &self,
        model: &Value,
        owner: Option<&Arc<Obj>>,
        default_class: Option<ClassId>,
        keep_ids: bool,
        caller: Option<ClassId>,
    ) -> Result<Value, EngineError> {
        // Pass 1: create every object of the tree, so references resolve.
        let mut created = Vec::new();
        let root = self.precreate(
            true,
            model,
            owner.map(|o| o.id.clone()),
            default_class,
            keep_ids,
            &mut created,
        )?;
        // Pass 2: initialise from the root down.
        match root {
            Some((obj, params)) => {
                // Murano sets the properties of the whole tree first, then
                // runs the `.init`s, an object's after those of the
                // objects loaded with it that it owns (its initialiser is
                // queued after theirs).
                // A root set up before (the objects of `ObjectsCopy` that
                // are also in `Objects`) is not walked again here: the
                // other objects of its model are then set up on their own.
                let walked = !obj.initialized.load(Ordering::Relaxed);
                let (pending, deferred) = self.with_deferred_inits(|| {
                    let mut pending = vec![(
                        obj.clone(),
                        self.initialize_properties(&obj, &params, caller)?,
                    )];
                    if !walked {
                        for (o, m) in &created {
                            if !o.initialized.load(Ordering::Relaxed) {
                                pending.push((o.clone(), self.initialize_properties(o, m, None)?));
                            }
                        }
                    }
                    Ok(pending)
                })?;
                // Murano makes an object of a model only when a `class()`
                // contract reaches its definition: one that the walk from
                // the root did not reach (under a `template()` or a
                // plain-data contract) never exists, so it is neither
                // initialised nor kept.
                let created: Vec<(Arc<Obj>, Value)> = if walked {
                    let (reached, unreached): (Vec<_>, Vec<_>) = created
                        .into_iter()
                        .partition(|(o, _)| o.initialized.load(Ordering::Relaxed));
                    crate::unreached::forget(self, unreached.iter().map(|(o, _)| o));
                    reached
                } else {
                    created
                };
                // A load nested in another's property initialisation (a
                // contract loading an inline object model): Murano's
                // initialisation store queues its initialisers behind the
                // outer load's, so every property of the whole model is
                // set before any `.init` runs.
                {
                    let mut st = lock(&self.state);
                    if st.loading > 0 {
                        // A dry run (`template()`) runs no `.init`, now or
                        // later.
                        if st.dry_run == 0 {
                            st.deferred_inits.extend(deferred);
                            st.deferred_inits.extend(post_order(pending));
                        }
                        drop(st);
                        self.mark_loaded(created.iter().map(|(o, _)| o));
                        return Ok(Value::Object(obj));
                    }
                }
                // Objects a contract initialised queued their `.init`
                // (owned objects first) as they were reached: that order,
                // then the others, owners last (the root at the end).
                for (o, inits) in deferred {
                    self.run_inits(&o, inits)?;
                }
                for (o, inits) in post_order(pending) {
                    self.run_inits(&o, inits)?;
                }
                // Murano loads into a temporary store and copies the
                // objects into the main one when the load ends, so the
                // store lists objects by the end of their load (objects a
                // nested `new()` made come before the outer load's): the
                // order garbage is destroyed in.
                self.mark_loaded(created.iter().map(|(o, _)| o));
                Ok(Value::Object(obj))
            }
            None => Err(EngineError::dsl(
                "DslInvalidOperationError",
                "an object model must have a \"?\" header or a type key",
            )),
        }
    }

    pub(crate) fn header(model: &Value) -> Option<&Dict> {
        match model {
            Value::Dict(d) => match d.get(&Value::str("?")) {
                Some(Value::Dict(h)) => Some(h),
                _ => None,
            },
            _ => None,
        }
    }

    /// What a model dict defines: class, id, name, metadata and the
    /// property values (`parse_object_definition`).
    ///
    /// `top`: the value is certainly loaded as an object (the root of a
    /// load, a `class()` contract's value), so a header Murano cannot
    /// read is its error; the first pass's walk through property values
    /// (`top` false) leaves such a dict alone, as Murano never parses a
    /// value no contract loads.
    fn object_def(
        &self,
        model: &Value,
        default_class: Option<ClassId>,
        top: bool,
    ) -> Result<Option<ObjDef>, EngineError> {
        let Value::Dict(d) = model else {
            return Ok(None);
        };
        let get = |h: &Dict, k: &str| h.get(&Value::str(k)).cloned().unwrap_or_default();
        let id_of = |v: Value| match v {
            Value::Str(s) => Some(s.to_string()),
            _ => None,
        };
        let builtin = |type_name: &str, message: String| {
            EngineError::new(
                ErrorKind::Host {
                    type_name: type_name.into(),
                    module: "builtins".into(),
                },
                message,
            )
        };
        // A model's lists are Python lists, whatever our freezing made
        // of them.
        let py_type = |v: &Value| match v {
            Value::Tuple(_) => "list".to_owned(),
            other => other.type_name().to_owned(),
        };
        let type_key = d.iter().any(|(k, _)| self.type_of_value(k).is_some());
        match d.get(&Value::str("?")) {
            // `parse_object_definition`: `system_data.get('type')`.
            Some(other) if !matches!(other, Value::Dict(_)) && !type_key => {
                if !top {
                    return Ok(None);
                }
                return Err(builtin(
                    "AttributeError",
                    format!("'{}' object has no attribute 'get'", py_type(other)),
                ));
            }
            _ => {}
        }
        if let Some(Value::Dict(h)) = d.get(&Value::str("?")) {
            let type_value = h.get(&Value::str("type"));
            // A type reference (what a `Mixed` dump, as `template()` makes,
            // puts there) or a type name.
            let type_ref = type_value
                .and_then(|v| self.type_of_value(v))
                .map(|t| t.class);
            let truthy = type_value.is_some_and(Value::truthy);
            if type_ref.is_none() && truthy {
                match type_value {
                    Some(Value::Str(text)) => {
                        // `parse_type_string`, then `parse_version_spec`
                        // of the version part.
                        if let Some((_, rest)) = text.split_once('/') {
                            let version = rest.split('@').next().unwrap_or("");
                            let scalar = murano_dsl::version::YamlScalar::from(version.to_owned());
                            if let Err(e) = murano_dsl::version::parse_version_spec(&scalar) {
                                if !top {
                                    return Ok(None);
                                }
                                return Err(builtin(e.python_exception().name(), e.to_string()));
                            }
                        }
                    }
                    Some(other) => {
                        // `TYPE_RE.match(type)`.
                        if !top {
                            return Ok(None);
                        }
                        return Err(builtin(
                            "TypeError",
                            format!(
                                "expected string or bytes-like object, got '{}'",
                                py_type(other)
                            ),
                        ));
                    }
                    None => {}
                }
            }
            let type_name = match type_value {
                Some(Value::Str(s)) if truthy => s.split('/').next().unwrap_or("").to_owned(),
                _ => String::new(),
            };
            let class = match (type_ref, type_name.is_empty(), default_class) {
                (Some(c), _, _) => c,
                (None, true, Some(c)) => c,
                // No type: the contract's class types it when it loads the
                // value (`parsed['type'] or default_type`).
                (None, true, None) if !top => return Ok(None),
                (None, true, None) => {
                    return Err(builtin(
                        "ValueError",
                        "Invalid object representation: no type information was provided".into(),
                    ))
                }
                _ => self.classes.resolve(None, &type_name)?,
            };
            let mut props = (**d).clone();
            props.shift_remove(&Value::str("?"));
            return Ok(Some(ObjDef {
                dependencies: get(h, "dependencies"),
                class,
                id: id_of(get(h, "id")),
                name: get(h, "name"),
                metadata: get(h, "metadata"),
                props: Value::Dict(Arc::new(props)),
            }));
        }
        for (k, v) in d.iter() {
            if let Some(t) = self.type_of_value(k) {
                return Ok(Some(ObjDef {
                    dependencies: Value::Null,
                    class: t.class,
                    id: id_of(get(d, "id")),
                    name: get(d, "name"),
                    metadata: get(d, "metadata"),
                    props: match v {
                        Value::Null => Value::Dict(Arc::new(Dict::default())),
                        other => other.clone(),
                    },
                }));
            }
        }
        Ok(default_class.map(|class| ObjDef {
            dependencies: Value::Null,
            class,
            id: None,
            name: Value::Null,
            metadata: Value::Null,
            props: model.clone(),
        }))
    }

    /// `top`: the root of the load. A nested object without an id is not
    /// created here (nothing can name it): its property's contract loads
    /// it during initialisation, as Murano's first pass makes only a
    /// temporary object of it that never joins the store.
    fn precreate(
        &self,
        top: bool,
        model: &Value,
        owner: Option<String>,
        default_class: Option<ClassId>,
        keep_ids: bool,
        created: &mut Vec<(Arc<Obj>, Value)>,
    ) -> Result<Option<(Arc<Obj>, Value)>, EngineError> {
        match model {
            Value::Dict(d) => {
                let Some(def) = self.object_def(model, default_class, top)? else {
                    for (k, v) in d.iter() {
                        if k.as_str() == Some("?") {
                            continue;
                        }
                        self.precreate(false, v, owner.clone(), None, keep_ids, created)?;
                    }
                    return Ok(None);
                };
                if !top && def.id.is_none() {
                    if let Value::Dict(props) = &def.props {
                        for (_, v) in props.iter() {
                            self.precreate(false, v, owner.clone(), None, keep_ids, created)?;
                        }
                    }
                    return Ok(None);
                }
                let existing = def.id.as_ref().and_then(|id| self.lookup_load_id(id));
                let obj = match existing {
                    Some(o) => o,
                    None => {
                        let model_id = def.id.clone();
                        let model_id_for_dry_run = def.id.clone();
                        let id = if keep_ids { def.id } else { None };
                        let o = self.create_object(def.class, id, owner, def.name, def.metadata)?;
                        crate::gc::load_dependencies(self, &o, &def.dependencies)?;
                        if let (false, Some(mid)) = (keep_ids, model_id) {
                            if let Some(scope) = lock(&self.state).aliases.last_mut() {
                                scope.insert(mid, o.clone());
                            }
                        }
                        if let Some(mid) = model_id_for_dry_run {
                            let mut st = lock(&self.state);
                            if st.dry_run > 0 {
                                st.dry_ids.insert(o.id.clone(), mid);
                            }
                        }
                        created.push((o.clone(), def.props.clone()));
                        o
                    }
                };
                if let Value::Dict(props) = &def.props {
                    for (_, v) in props.iter() {
                        self.precreate(false, v, Some(obj.id.clone()), None, keep_ids, created)?;
                    }
                }
                Ok(Some((obj, def.props)))
            }
            Value::List(items) | Value::Tuple(items) => {
                for v in items.iter() {
                    self.precreate(false, v, owner.clone(), None, keep_ids, created)?;
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// Moves objects whose load just ended to the end of the store, in
    /// order: Murano loads into a temporary store and copies the objects
    /// into the main one when the load ends, so its store lists objects
    /// by the end of their load (objects a nested `new()` made come
    /// before the outer load's). Garbage is destroyed in that order.
    pub(crate) fn mark_loaded<'a>(&self, objects: impl Iterator<Item = &'a Arc<Obj>>) {
        let mut st = lock(&self.state);
        for o in objects {
            st.objects.move_to_end(&o.id);
        }
    }

    /// Murano's `MuranoObject.initialize`: `Config` properties from the
    /// class configuration, every other property from the model through
    /// its contract (a `Runtime` property only when it has a default;
    /// defaults that read properties not set yet are retried), `.init`
    /// arguments from the model, then `.init` of each class, parents
    /// first.
    pub(crate) fn initialize(&self, obj: &Arc<Obj>, model: &Value) -> Result<(), EngineError> {
        self.initialize_by(obj, model, None)
    }

    /// [`Core::initialize`] on behalf of code of class `caller` (see
    /// [`Core::initialize_properties`]).
    pub(crate) fn initialize_by(
        &self,
        obj: &Arc<Obj>,
        model: &Value,
        caller: Option<ClassId>,
    ) -> Result<(), EngineError> {
        let (inits, deferred) =
            self.with_deferred_inits(|| self.initialize_properties(obj, model, caller))?;
        // Objects its properties loaded first (their initialisers were
        // queued before its own), owned objects before their owners.
        for (o, i) in post_order(deferred) {
            self.run_inits(&o, i)?;
        }
        self.run_inits(obj, inits)
    }

    /// Runs `f` with `.init` calls of objects that contracts load (see
    /// [`Core::defer_or_run_inits`]) queued; returns them with `f`'s result.
    fn with_deferred_inits<T>(
        &self,
        f: impl FnOnce() -> Result<T, EngineError>,
    ) -> Result<(T, Vec<PendingInit>), EngineError> {
        let mark = {
            let mut st = lock(&self.state);
            st.loading += 1;
            st.deferred_inits.len()
        };
        let r = f();
        let mut st = lock(&self.state);
        st.loading -= 1;
        let at = mark.min(st.deferred_inits.len());
        let deferred = st.deferred_inits.split_off(at);
        drop(st);
        r.map(|v| (v, deferred))
    }

    /// Initialises an object a contract loads: inside a load its `.init`
    /// calls wait for the load's (Murano queues the initialisers of the
    /// whole model), otherwise they run now.
    pub(crate) fn defer_or_run_inits(
        &self,
        obj: &Arc<Obj>,
        model: &Value,
        caller: Option<ClassId>,
    ) -> Result<(), EngineError> {
        if lock(&self.state).loading == 0 {
            return self.initialize_by(obj, model, caller);
        }
        let (inits, deferred) =
            self.with_deferred_inits(|| self.initialize_properties(obj, model, caller))?;
        let mut st = lock(&self.state);
        st.deferred_inits.extend(deferred);
        st.deferred_inits.push((obj.clone(), inits));
        Ok(())
    }

    /// The property part of [`Core::initialize`]: returns the `.init`
    /// calls to make (class, arguments), in the order Murano makes them.
    ///
    /// `caller`: the class of the code the load runs for (`None`: the
    /// object's own class, as for a deployment model). Murano sets each
    /// property through the part of the class declaring it, as that
    /// caller: a caller compatible with the part (an ancestor of the
    /// declaring class) that does not itself see the property gets the
    /// model's value as an undeclared property of its own part, unchecked,
    /// and the object's property stays unset (`new(Child, ...)` from a
    /// method of `Child`'s parent).
    pub(crate) fn initialize_properties(
        &self,
        obj: &Arc<Obj>,
        model: &Value,
        caller: Option<ClassId>,
    ) -> Result<Vec<InitCall>, EngineError> {
        if obj.initialized.swap(true, Ordering::Relaxed) {
            return Ok(Vec::new());
        }
        // Defaults and contracts may create objects that do the same.
        let _nesting = self.enter()?;
        let classes = self.classes.clone();
        let params = match model {
            Value::Dict(d) => Some(d.clone()),
            _ => None,
        };
        let mro = classes.mro(obj.class);
        let mut used: HashSet<String> = HashSet::new();
        let mut init_args: Vec<(ClassId, Vec<(String, Value)>)> = Vec::new();
        for &class in &mro {
            let Some(def) = classes.definition(class) else {
                continue;
            };
            // Each part reads its own class's configuration (Murano's
            // `MuranoObject._config` is per part).
            let config = lock(&self.state)
                .class_configs
                .get(classes.name(class))
                .cloned();
            let ctx = self.method_context(class, Some(obj));
            let scope = self.scope(&ctx, Some(obj), class);
            // Config properties.
            for prop in def
                .properties
                .iter()
                .filter(|p| p.usage == PropertyUsage::Config)
            {
                if used.contains(&prop.name) {
                    continue;
                }
                let key = Value::str(&prop.name);
                let given = config.as_ref().and_then(|c| c.get(&key)).cloned();
                let v =
                    self.apply_property_contract(prop, &scope, given.as_ref(), &obj.class_name)?;
                lock(&obj.props).insert(prop.name.clone(), v);
            }
            let init = def.method(".init");
            let mut names: Vec<&str> = def.properties.iter().map(|p| p.name.as_str()).collect();
            let declared = names.len();
            if let Some(init) = init {
                for a in &init.arguments {
                    if !names.contains(&a.name.as_str()) {
                        names.push(&a.name);
                    }
                }
            }
            // Murano walks `set(properties) | init arguments`: a Python
            // set's order, which decides which nested objects load first.
            let names: Vec<&str> = crate::pyset::set_order(&names, declared)
                .into_iter()
                .map(|i| names[i])
                .collect();
            let mut own_args = Vec::new();
            let mut last_errors = names.len() + 1;
            loop {
                let mut errors = 0;
                for &name in &names {
                    if used.contains(name) {
                        continue;
                    }
                    let key = Value::str(name);
                    let given = params.as_ref().and_then(|d| d.get(&key)).cloned();
                    if let Some(arg) =
                        init.and_then(|m| m.arguments.iter().find(|a| a.name == name))
                    {
                        if let Some(v) = given {
                            own_args.push((arg.name.clone(), v));
                        }
                        used.insert(name.to_owned());
                        continue;
                    }
                    let Some(prop) = def.property(name) else {
                        continue;
                    };
                    match prop.usage {
                        PropertyUsage::Config | PropertyUsage::Static => {
                            used.insert(name.to_owned());
                            continue;
                        }
                        PropertyUsage::Runtime if prop.default.is_none() => {
                            used.insert(name.to_owned());
                            continue;
                        }
                        _ => {}
                    }
                    let given = if prop.usage == PropertyUsage::Runtime {
                        None
                    } else {
                        given
                    };
                    if let Some(c) = caller.filter(|&c| {
                        classes.is_subclass(class, c)
                            && classes
                                .registry()
                                .find_property(c, name)
                                .is_ok_and(|f| f.is_empty())
                    }) {
                        // (Without a value Murano stores its NO_VALUE
                        // marker, which reads back without an error: null
                        // here.)
                        lock(&obj.private)
                            .insert((c.index(), name.to_owned()), given.unwrap_or_default());
                        used.insert(name.to_owned());
                        continue;
                    }
                    let class_config = config.as_ref().and_then(|c| c.get(&key)).cloned();
                    let given = given.or(class_config);
                    match self.apply_declared_contracts(obj, prop, &scope, given.as_ref()) {
                        Ok(v) => {
                            lock(&obj.props).insert(prop.name.clone(), v);
                            used.insert(name.to_owned());
                        }
                        Err(e) if e.python_type() == "UninitializedPropertyAccessError" => {
                            errors += 1;
                        }
                        Err(e)
                            if prop.usage == PropertyUsage::Runtime
                                && e.python_type() == "ContractViolationException" => {}
                        Err(e) => return Err(e),
                    }
                }
                if errors == 0 {
                    break;
                }
                if errors >= last_errors {
                    return Err(EngineError::dsl(
                        "CircularExpressionDependenciesError",
                        "Circular dependencies between property defaults",
                    ));
                }
                last_errors = errors;
            }
            if init.is_some() {
                init_args.push((class, own_args));
            }
        }
        Ok(init_args)
    }

    /// Runs the `.init` calls [`Core::initialize_properties`] returned, in
    /// Murano's order (see `crate::init_order`: parents first, a class
    /// reached along several inheritance paths once per path, without
    /// arguments after the first); not for dry runs.
    pub(crate) fn run_inits(
        &self,
        obj: &Arc<Obj>,
        init_args: Vec<InitCall>,
    ) -> Result<(), EngineError> {
        let classes = self.classes.clone();
        if lock(&self.state).dry_run > 0 || init_args.is_empty() {
            return Ok(());
        }
        let has_init: HashSet<ClassId> = init_args.iter().map(|(c, _)| *c).collect();
        let mut args_of: HashMap<ClassId, Vec<(String, Value)>> = init_args.into_iter().collect();
        for (class, first) in crate::init_order::init_sequence(classes.registry(), obj.class)? {
            if !has_init.contains(&class) {
                continue;
            }
            let args = if first {
                args_of.remove(&class).unwrap_or_default()
            } else {
                Vec::new()
            };
            let Some(def) = classes.definition(class) else {
                continue;
            };
            if let Some(index) = def.methods.iter().position(|m| m.name == ".init") {
                self.run_method_with(Some(obj), class, index, Vec::new(), args, true)?;
            }
        }
        Ok(())
    }

    /// A property value through its contract (`given` `None` is "no
    /// value": the default applies).
    /// The value a property of `obj` takes at initialisation: its
    /// declaration's contract, or when several classes of the object's
    /// hierarchy declare the name, Murano's `set_property` chain (the
    /// declaration the object's class resolves to transforms, the others
    /// validate what they see at their turn, each with its own default).
    fn apply_declared_contracts(
        &self,
        obj: &Arc<Obj>,
        prop: &murano_dsl::model::Property,
        scope: &Scope,
        given: Option<&Value>,
    ) -> Result<Value, EngineError> {
        let specs = self
            .classes
            .registry()
            .find_properties(obj.class, |m| m.name == prop.name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        if specs.len() <= 1 {
            return self.apply_property_contract(prop, scope, given, &obj.class_name);
        }
        let ultimate = self.ultimate_property(obj.class, &prop.name)?;
        let mut value = given.cloned();
        for s in &specs {
            let ctx = self.method_context(s.class, Some(obj));
            let sc = self.scope(&ctx, Some(obj), s.class);
            if (s.class, s.index) == ultimate {
                value = Some(self.apply_property_contract_as(
                    s.member,
                    &sc,
                    value.as_ref(),
                    &obj.class_name,
                    false,
                )?);
            } else if let Some(node) = &s.member.contract {
                let contract = Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
                contract
                    .validate(&sc, value.as_ref(), s.member.default.as_ref())
                    .map_err(|e| self.unpark_contract(e))?;
            }
        }
        let value = value.unwrap_or_default();
        self.finalize_property(obj, ultimate, value)
    }

    /// The ultimate declaration's `finalize` of a value its unfinalized
    /// transform made (see `Contract::finalize`).
    fn finalize_property(
        &self,
        obj: &Arc<Obj>,
        (class, index): (ClassId, usize),
        value: Value,
    ) -> Result<Value, EngineError> {
        let classes = self.classes.clone();
        let Some(node) = classes
            .definition(class)
            .and_then(|d| d.properties.get(index))
            .and_then(|p| p.contract.as_ref())
        else {
            return Ok(value);
        };
        let ctx = self.method_context(class, Some(obj));
        let scope = self.scope(&ctx, Some(obj), class);
        let contract = Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
        contract
            .finalize(&scope, &value)
            .map_err(|e| self.unpark_contract(e))
    }

    fn apply_property_contract(
        &self,
        prop: &murano_dsl::model::Property,
        scope: &Scope,
        given: Option<&Value>,
        class_name: &str,
    ) -> Result<Value, EngineError> {
        self.apply_property_contract_as(prop, scope, given, class_name, true)
    }

    /// [`Core::apply_property_contract`], finalizing or not (see
    /// `Contract::transform_unfinalized`).
    fn apply_property_contract_as(
        &self,
        prop: &murano_dsl::model::Property,
        scope: &Scope,
        given: Option<&Value>,
        class_name: &str,
        finalize: bool,
    ) -> Result<Value, EngineError> {
        match &prop.contract {
            Some(node) => {
                let contract = Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
                let t = if finalize {
                    contract.transform(scope, given, prop.default.as_ref())
                } else {
                    contract.transform_unfinalized(scope, given, prop.default.as_ref())
                };
                t.map(|t| t.value).map_err(|e| {
                    // Murano's MuranoProperty.transform: every violation
                    // leaving the contract, a nested object's included
                    // (which then reads `[A.q] [B.p] ...`), gets the
                    // property and the path inside its value.
                    let path = e.path.clone();
                    let mut e = self.unpark_contract(e);
                    if e.python_type() == "ContractViolationException" {
                        e.message = format!("[{class_name}.{}{path}] {}", prop.name, e.message);
                    }
                    e
                })
            }
            None => match (given, &prop.default) {
                (Some(v), _) => Ok(v.clone()),
                (None, Some(d)) => crate::exec::eval_node(self, d, &scope.context),
                (None, None) => Ok(Value::Null),
            },
        }
    }

    /// Runs method `name` declared by `class` itself (no resolution).
    pub(crate) fn run_declared(
        &self,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        name: &str,
        args: Vec<Value>,
    ) -> Result<Value, EngineError> {
        let classes = self.classes.clone();
        let Some(def) = classes.definition(class) else {
            return Ok(Value::Null);
        };
        let Some(index) = def.methods.iter().position(|m| m.name == name) else {
            return Ok(Value::Null);
        };
        self.run_method(this, class, index, args, Vec::new())
    }

    // ----- properties ----------------------------------------------------

    fn caller_class(&self) -> Option<ClassId> {
        lock(&self.state).stack.last().map(|f| f.class)
    }

    /// `$obj.name` from YAQL: `None` (with the error parked) on failure.
    pub(crate) fn read_property_from_yaql(&self, obj: &Obj, name: &str) -> Option<Value> {
        self.read_part_from_yaql(obj, obj.class, name)
    }

    /// [`Core::read_property_from_yaql`] through the object's part `part`
    /// (a `cast()` value).
    pub(crate) fn read_part_from_yaql(
        &self,
        obj: &Obj,
        part: ClassId,
        name: &str,
    ) -> Option<Value> {
        match self.read_property_as(obj, part, name) {
            Ok(v) => Some(v),
            Err(e) => {
                lock(&self.state).pending = Some(e);
                None
            }
        }
    }

    /// The caller's class and whether the object is an instance of it
    /// (Murano's `caller_class.is_compatible(obj)`): then the lookup
    /// starts at the caller's class and undeclared names are the caller's
    /// own.
    /// `part` is the class of the part the access goes through (the
    /// object's own class, or the class a `cast()` selected): Murano asks
    /// whether the caller is compatible with that part.
    fn access(&self, part: ClassId) -> (Option<ClassId>, bool) {
        let caller = self.caller_class();
        let derived = caller.is_some_and(|c| self.classes.is_subclass(part, c));
        (caller, derived)
    }

    /// The object a value is and the part of it the value selects: the
    /// class a `cast()` chose, or the object's own class.
    pub(crate) fn part_of(&self, v: &Value) -> Option<(Arc<Obj>, ClassId)> {
        if let Some(c) = self.cast_of(v) {
            return Some(c);
        }
        self.obj_of(v).map(|o| {
            let class = o.class;
            (o, class)
        })
    }

    /// Reads a property with Murano's access rules
    /// (`MuranoObject.get_property`).
    pub(crate) fn read_property(&self, obj: &Obj, name: &str) -> Result<Value, EngineError> {
        self.read_property_as(obj, obj.class, name)
    }

    /// [`Core::read_property`] through the part `part` of the object (its
    /// own class or a `cast()` one): the lookup starts at the caller's
    /// class when the caller is compatible with the part, else at the
    /// part's class, so a property the part's class does not see cannot
    /// be read through it.
    pub(crate) fn read_property_as(
        &self,
        obj: &Obj,
        part: ClassId,
        name: &str,
    ) -> Result<Value, EngineError> {
        let (caller, derived) = self.access(part);
        let start = match caller {
            Some(c) if derived => c,
            _ => part,
        };
        let registry = self.classes.registry();
        let found = registry
            .find_property(start, name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        match found.first() {
            Some(p) if p.member.usage == PropertyUsage::Static => {
                return self.read_static(p.class, name)
            }
            Some(_) => {}
            None if derived => {
                // An undeclared property belongs to the caller's class part.
                let key = (start.index(), name.to_owned());
                return match lock(&obj.private).get(&key) {
                    Some(v) => Ok(v.clone()),
                    None => Err(EngineError::dsl(
                        "UninitializedPropertyAccessError",
                        format!(
                            "Access to uninitialized property \"{name}\" in class \"{}\" is forbidden",
                            self.classes.name(start)
                        ),
                    )),
                };
            }
            None => {
                return Err(EngineError::dsl(
                    "PropertyReadError",
                    format!(
                        "Property \"{name}\" in class \"{}\" cannot be read",
                        self.classes.name(start)
                    ),
                ))
            }
        }
        match lock(&obj.props).get(name) {
            Some(v) => Ok(v.clone()),
            None => Err(EngineError::dsl(
                "UninitializedPropertyAccessError",
                format!(
                    "Access to uninitialized property \"{name}\" in class \"{}\" is forbidden",
                    obj.class_name
                ),
            )),
        }
    }

    /// `:Class.name` / `$this.name` in a static method, from YAQL.
    pub(crate) fn read_static_from_yaql(&self, class: ClassId, name: &str) -> Option<Value> {
        match self.read_static_property(class, name) {
            Ok(v) => Some(v),
            Err(e) => {
                lock(&self.state).pending = Some(e);
                None
            }
        }
    }

    /// A static property of a class (or its ancestors).
    pub(crate) fn read_static_property(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<Value, EngineError> {
        let found = self
            .classes
            .registry()
            .find_property(class, name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        match found.first() {
            Some(p) if p.member.usage == PropertyUsage::Static => self.read_static(p.class, name),
            _ => Err(EngineError::dsl(
                "NoPropertyFound",
                format!(
                    "Property \"{name}\" is not found in class \"{}\"",
                    self.classes.name(class)
                ),
            )),
        }
    }

    /// Writes a static property through a class value.
    pub(crate) fn write_static_property(
        &self,
        class: ClassId,
        name: &str,
        value: Value,
    ) -> Result<(), EngineError> {
        let found = self
            .classes
            .registry()
            .find_property(class, name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        let Some(p) = found
            .first()
            .filter(|p| p.member.usage == PropertyUsage::Static)
        else {
            return Err(EngineError::dsl(
                "NoPropertyFound",
                format!(
                    "Property \"{name}\" is not found in class \"{}\"",
                    self.classes.name(class)
                ),
            ));
        };
        let value = match &p.member.contract {
            Some(node) => {
                let ctx = self.method_context(p.class, None);
                let contract = Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
                let scope = self.scope(&ctx, None, p.class);
                contract
                    .transform(&scope, Some(&value), None)
                    .map_err(|e| self.unpark_contract(e))?
                    .value
            }
            None => value,
        };
        lock(&self.state)
            .statics
            .insert((p.class.index(), name.to_owned()), value);
        Ok(())
    }

    fn read_static(&self, class: ClassId, name: &str) -> Result<Value, EngineError> {
        let key = (class.index(), name.to_owned());
        if let Some(v) = lock(&self.state).statics.get(&key) {
            return Ok(v.clone());
        }
        let def = self.classes.definition(class);
        let prop = def.and_then(|d| d.property(name));
        let ctx = self.method_context(class, None);
        let value = match prop.and_then(|p| p.default.as_ref()) {
            Some(d) => crate::exec::eval_node(self, d, &ctx)?,
            None => Value::Null,
        };
        lock(&self.state).statics.insert(key, value.clone());
        Ok(value)
    }

    /// Writes a property with Murano's access rules and its contract
    /// (`MuranoObject.set_property`).
    pub(crate) fn write_property(
        &self,
        obj: &Arc<Obj>,
        name: &str,
        value: Value,
    ) -> Result<(), EngineError> {
        self.write_property_as(obj, obj.class, name, value)
    }

    /// [`Core::write_property`] through the part `part` of the object:
    /// the lookup starts at the object's class (or the caller's when the
    /// caller is compatible with the part), and only a compatible caller
    /// may write, so a write legal as `$.name` is a `NoWriteAccessError`
    /// through a `cast()` to a parent class.
    pub(crate) fn write_property_as(
        &self,
        obj: &Arc<Obj>,
        part: ClassId,
        name: &str,
        value: Value,
    ) -> Result<(), EngineError> {
        let classes = self.classes.clone();
        let (caller, derived) = self.access(part);
        let start = match caller {
            Some(c) if derived => c,
            _ => obj.class,
        };
        let found = classes
            .registry()
            .find_property(start, name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        if found.is_empty() {
            if derived {
                lock(&obj.private).insert((start.index(), name.to_owned()), value);
                return Ok(());
            }
            return Err(EngineError::dsl(
                "PropertyWriteError",
                format!(
                    "Property \"{name}\" in class \"{}\" cannot be written",
                    classes.name(start)
                ),
            ));
        }
        // Every declaration of the name in the object's hierarchy (its
        // parts, breadth first) is checked: write access against each,
        // then the one the object's class resolves to transforms the
        // value and the others validate it (Murano's `set_property`).
        let specs = classes
            .registry()
            .find_properties(obj.class, |m| m.name == name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        let allowed = lock(&self.state)
            .stack
            .last()
            .is_some_and(|f| f.allow_writes);
        let writable = |usage: PropertyUsage| {
            matches!(
                usage,
                PropertyUsage::Out
                    | PropertyUsage::InOut
                    | PropertyUsage::Runtime
                    | PropertyUsage::Static
                    | PropertyUsage::Config
            )
        };
        if caller.is_some()
            && !allowed
            && (!derived || specs.iter().any(|s| !writable(s.member.usage)))
        {
            return Err(EngineError::dsl(
                "NoWriteAccessError",
                format!("Property \"{name}\" is immutable to the caller"),
            ));
        }
        let ultimate = self.ultimate_property(obj.class, name)?;
        let single = specs.len() == 1;
        let mut value = value;
        for s in &specs {
            let ctx = self.method_context(s.class, Some(obj));
            let scope = self.scope(&ctx, Some(obj), s.class);
            let Some(node) = &s.member.contract else {
                continue;
            };
            let contract = Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
            if (s.class, s.index) == ultimate {
                let t = if single {
                    contract.transform(&scope, Some(&value), None)
                } else {
                    contract.transform_unfinalized(&scope, Some(&value), None)
                };
                value = t.map_err(|e| self.unpark_contract(e))?.value;
            } else {
                contract
                    .validate(&scope, Some(&value), None)
                    .map_err(|e| self.unpark_contract(e))?;
            }
        }
        if !single {
            value = self.finalize_property(obj, ultimate, value)?;
        }
        let (class, index) = ultimate;
        let usage = classes
            .definition(class)
            .and_then(|d| d.properties.get(index))
            .map(|p| p.usage);
        if usage == Some(PropertyUsage::Static) {
            lock(&self.state)
                .statics
                .insert((class.index(), name.to_owned()), value);
        } else {
            lock(&obj.props).insert(name.to_owned(), value);
        }
        Ok(())
    }

    /// The declaration of property `name` the class resolves to (Murano's
    /// `find_single_property`): its class and index, or
    /// `AmbiguousPropertyNameError` when unrelated parents declare it.
    pub(crate) fn ultimate_property(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<(ClassId, usize), EngineError> {
        let found = self
            .classes
            .registry()
            .find_property(class, name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        match found.as_slice() {
            [p] => Ok((p.class, p.index)),
            [] => Err(EngineError::dsl(
                "NoPropertyFound",
                format!(
                    "Property \"{name}\" is not found in class \"{}\"",
                    self.classes.name(class)
                ),
            )),
            _ => Err(EngineError::dsl(
                "AmbiguousPropertyNameError",
                format!("Found more than one property \"{name}\""),
            )),
        }
    }

    // ----- methods -------------------------------------------------------

    /// Whether `class` has a method `name` (anywhere in its hierarchy).
    pub(crate) fn has_method(&self, class: ClassId, name: &str) -> bool {
        self.classes
            .registry()
            .find_method(class, name)
            .is_ok_and(|m| !m.is_empty())
    }

    /// Resolves and calls `name` on `this` (or statically on `class`).
    pub(crate) fn invoke(
        &self,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        external: bool,
    ) -> Result<Value, EngineError> {
        let classes = self.classes.clone();
        let found = classes
            .registry()
            .find_method(class, name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        let m = match found.as_slice() {
            [] => {
                return Err(EngineError::dsl(
                    "NoMethodFound",
                    format!("Method \"{name}\" is not found"),
                ))
            }
            [m] => *m,
            _ => {
                return Err(EngineError::dsl(
                    "AmbiguousMethodName",
                    format!("Found more that one method \"{name}\""),
                ))
            }
        };
        let method = m.member;
        if let Some(o) = this {
            if o.is_destroyed() {
                return Err(EngineError::dsl(
                    "ObjectDestroyedError",
                    format!("Object {} is destroyed", o.id),
                ));
            }
        }
        let is_static = matches!(method.usage, MethodUsage::Static | MethodUsage::Extension);
        if this.is_none() && !is_static {
            return Err(EngineError::dsl(
                "DslInvalidOperationError",
                format!("Method \"{name}\" is not static"),
            ));
        }
        if external && method.scope != MethodScope::Public && method.usage != MethodUsage::Action {
            return Err(EngineError::dsl(
                "MethodNotExposed",
                format!("Method \"{name}\" is not exposed"),
            ));
        }
        lock(&self.state).static_receiver = if is_static { this.cloned() } else { None };
        let this = if is_static { None } else { this };
        self.run_method(this, m.class, m.index, args, kwargs)
    }

    /// Whether the receiver (first) argument of an extension method
    /// accepts a value (its contract's `check_type`; no contract accepts
    /// anything).
    pub(crate) fn accepts_receiver(
        &self,
        class: ClassId,
        index: usize,
        value: &Value,
    ) -> Result<bool, EngineError> {
        let classes = self.classes.clone();
        let Some(arg) = classes
            .definition(class)
            .and_then(|d| d.methods.get(index))
            .and_then(|m| m.arguments.first())
        else {
            return Ok(false);
        };
        let Some(node) = &arg.contract else {
            return Ok(true);
        };
        let ctx = self.method_context(class, None);
        let scope = self.scope(&ctx, None, class);
        let contract = Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
        contract
            .check_type(&scope, Some(value), None)
            .map_err(|e| self.unpark_contract(e))
    }

    /// Binds arguments, applies their contracts and runs the body.
    pub(crate) fn run_method(
        &self,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        index: usize,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, EngineError> {
        self.run_method_with(this, class, index, args, kwargs, false)
    }

    /// [`Core::run_method`]; `lenient`: a missing argument is "no value"
    /// (its default or null through its contract), as for `.init`.
    pub(crate) fn run_method_with(
        &self,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        index: usize,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        lenient: bool,
    ) -> Result<Value, EngineError> {
        let classes = self.classes.clone();
        let Some(method) = classes.definition(class).and_then(|d| d.methods.get(index)) else {
            return Err(EngineError::dsl("NoMethodFound", "method vanished"));
        };
        let static_receiver = lock(&self.state).static_receiver.take();
        self.spend()?;
        // The frame to come counts while the arguments bind: their
        // defaults and contracts may call this method again.
        let binding = self.enter()?;
        let ctx = self.method_context(class, this);
        let bound = self.bind_arguments(method, &ctx, this, class, args, kwargs, lenient)?;
        let mut ctx = ctx;
        for (n, v) in bound.values {
            ctx.set(&n, v);
        }
        lock(&self.state).stack.push(Frame {
            class,
            method: method.name.clone(),
            this: this.cloned(),
            at: method.start,
            instruction: None,
            allow_writes: method.name == ".init",
            locals: Vec::new(),
        });
        drop(binding);
        let bound_args: Vec<(String, Value)> = method
            .arguments
            .iter()
            .filter_map(|a| ctx.get(&a.name).map(|v| (a.name.clone(), v.clone())))
            .collect();
        let held = match self.acquire_method_lock(this, class, index, &bound_args) {
            Ok(h) => h,
            Err(e) => {
                lock(&self.state).stack.pop();
                return Err(e);
            }
        };
        let native = self
            .natives
            .get(&(classes.name(class).to_owned(), method.name.clone()))
            .cloned();
        // The engine's own class (added by `add_system_classes`, whose
        // file is its name), not a host's class of the same name.
        let builtin = classes.name(class) == crate::gc::GC_CLASS_NAME
            && classes.file(class) == Some(crate::gc::GC_CLASS_NAME);
        let principal = classes.is_principal_native(class, &method.name);
        let result = match native {
            _ if principal => {
                let args: Vec<(String, Value)> = method
                    .arguments
                    .iter()
                    .filter_map(|a| ctx.get(&a.name).map(|v| (a.name.clone(), v.clone())))
                    .collect();
                let caller = {
                    let st = lock(&self.state);
                    st.stack.len().checked_sub(2).map(|i| st.stack[i].class)
                };
                crate::principal::call(
                    self,
                    classes.name(class),
                    &method.name,
                    this.map(|o| o.id.as_str()),
                    caller,
                    &args,
                )
            }
            _ if builtin => {
                let args: Vec<(String, Value)> = method
                    .arguments
                    .iter()
                    .filter_map(|a| ctx.get(&a.name).map(|v| (a.name.clone(), v.clone())))
                    .collect();
                crate::gc::call(self, &method.name, &args)
            }
            Some(body) => {
                let receiver = match this {
                    Some(o) => Some(Value::Object(o.clone())),
                    None => static_receiver.map(|o| Value::Object(o) as Value),
                };
                // Murano's native stubs pass `to_mutable` arguments.
                let args: Vec<(String, Value)> = method
                    .arguments
                    .iter()
                    .filter_map(|a| {
                        ctx.get(&a.name)
                            .map(|v| (a.name.clone(), crate::mutable::to_mutable(v)))
                    })
                    .collect();
                body(&crate::NativeCall {
                    receiver: receiver.as_ref(),
                    class: classes.name(class),
                    args: &args,
                })
            }
            None => crate::exec::run_body(self, &method.body, &mut ctx),
        };
        self.release_method_lock(held);
        lock(&self.state).stack.pop();
        result
    }

    /// An error of argument `name`'s contract or default that recorded no
    /// frames (raised by the contract or its expression, not by a method
    /// it called) records where it arose, as Murano's traceback shows the
    /// method whose arguments were bound: a frame of `method` at the
    /// argument's declaration, above the caller's frames.
    fn argument_frame(
        &self,
        mut e: EngineError,
        class: ClassId,
        method: &murano_dsl::model::Method,
        name: &str,
    ) -> EngineError {
        // A contract violation names them in its message already.
        let violation = matches!(&e.kind, ErrorKind::Engine { type_name, .. } if type_name == "ContractViolationException");
        if !e.frames.is_empty() || violation {
            return e;
        }
        let at = method
            .arguments
            .iter()
            .find(|a| a.name == name)
            .map_or(method.start, |a| a.start);
        let mut frames = vec![StackFrame {
            file: self.classes.file(class).map(str::to_owned),
            line: at.line + 1,
            column: at.column + 1,
            method: method.name.clone(),
            class: self.classes.name(class).to_owned(),
            instruction: Some(format!("Contract of argument {name}")),
        }];
        frames.extend(crate::trace::capture(self));
        e.frames = frames;
        e
    }

    #[allow(clippy::too_many_arguments)]
    fn bind_arguments(
        &self,
        method: &murano_dsl::model::Method,
        ctx: &Context,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        lenient: bool,
    ) -> Result<Bound, EngineError> {
        let mismatch = || {
            EngineError::new(
                ErrorKind::Yaql(YaqlErrorKind::NoMatchingMethod),
                format!("No method \"{}\" matches supplied arguments", method.name),
            )
        };
        let mut positional = args.into_iter();
        let mut kwargs: IndexMap<String, Value> = kwargs.into_iter().collect();
        let mut values = Vec::new();
        // Objects created from models by argument contracts are owned by
        // the object only for `.init` (Murano's CTX_ARGUMENT_OWNER).
        let mut scope = self.scope(ctx, this, class);
        if !lenient {
            scope.owner = None;
        }
        let mut rest_pos: Option<(String, Option<&murano_dsl::yaml::Node>)> = None;
        let mut rest_kw: Option<(String, Option<&murano_dsl::yaml::Node>)> = None;
        let apply = |name: &str,
                     contract: Option<&murano_dsl::yaml::Node>,
                     data: Option<&Value>,
                     default: Option<&murano_dsl::yaml::Node>|
         -> Result<Value, EngineError> {
            match contract {
                Some(node) => {
                    let contract =
                        Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
                    contract
                        .transform(&scope, data, default)
                        .map(|t| t.value)
                        .map_err(|e| {
                            // MuranoMethodArgument.transform: the method,
                            // the argument and the path inside its value.
                            let path = e.path.clone();
                            let mut e = self.unpark_contract(e);
                            if matches!(&e.kind, ErrorKind::Engine { type_name, .. } if type_name == "ContractViolationException")
                            {
                                e.message = format!(
                                    "[{}::{}({name}{path})] {}",
                                    self.classes.name(class),
                                    method.name,
                                    e.message
                                );
                            }
                            self.argument_frame(e, class, method, name)
                        })
                }
                None => match (data, default) {
                    (Some(v), _) => Ok(v.clone()),
                    (None, Some(d)) => crate::exec::eval_node(self, d, ctx)
                        .map_err(|e| self.argument_frame(e, class, method, name)),
                    (None, None) => Ok(Value::Null),
                },
            }
        };
        for a in &method.arguments {
            match a.usage {
                ArgumentUsage::Standard => {
                    // A missing argument is "no value": its default, or
                    // null, through its contract.
                    let given = match positional.next() {
                        Some(v) => {
                            if kwargs.contains_key(&a.name) {
                                return Err(mismatch());
                            }
                            Some(v)
                        }
                        None => kwargs.shift_remove(&a.name),
                    };
                    let v = apply(
                        &a.name,
                        a.contract.as_ref(),
                        given.as_ref(),
                        a.default.as_ref(),
                    )?;
                    values.push((a.name.clone(), v));
                }
                ArgumentUsage::VarArgs => rest_pos = Some((a.name.clone(), a.contract.as_ref())),
                ArgumentUsage::KwArgs => rest_kw = Some((a.name.clone(), a.contract.as_ref())),
            }
        }
        let extra: Vec<Value> = positional.collect();
        match rest_pos {
            Some((name, contract)) => {
                let mut items = Vec::new();
                for v in extra {
                    items.push(apply(&name, contract, Some(&v), None)?);
                }
                values.push((name, Value::tuple(items)));
            }
            None if !extra.is_empty() => return Err(mismatch()),
            None => {}
        }
        match rest_kw {
            Some((name, contract)) => {
                let mut d = Dict::default();
                for (k, v) in kwargs {
                    let v = apply(&name, contract, Some(&v), None)?;
                    d.insert(Value::str(&k), v);
                }
                values.push((name, Value::Dict(Arc::new(d))));
            }
            None if !kwargs.is_empty() => return Err(mismatch()),
            None => {}
        }
        Ok(Bound { values })
    }

    // ----- destruction ---------------------------------------------------

    /// Destroys the objects not reachable from the root (the model load's
    /// and the finalisation's collection; see [`crate::gc::collect`]).
    pub(crate) fn collect_garbage(&self) -> Result<(), EngineError> {
        crate::gc::collect(self, false).map(|_| ())
    }
}

/// The object store as contracts see it.
struct StoreHost {
    core: Weak<Core>,
    class: Option<ClassId>,
}

impl ObjectHost for StoreHost {
    /// (A `cast()` value is its part: the part's class, as Murano's
    /// contracts see the part's type.)
    fn object_info(&self, value: &Value) -> Option<ObjectInfo> {
        let core = self.core.upgrade()?;
        let (o, part) = core.part_of(value)?;
        Some(ObjectInfo {
            id: o.id.clone(),
            class: core.classes.name(part).to_owned(),
        })
    }

    fn find_object(&self, id: &str) -> Option<Value> {
        let core = self.core.upgrade()?;
        let o = core.lookup_id(id)?;
        Some(Value::Object(o))
    }

    fn resolve_class(&self, name: &str) -> Result<String, ContractError> {
        let core = self.core.upgrade().ok_or_else(|| {
            ContractError::new(murano_dsl::contract::ContractErrorKind::NoClassFound, name)
        })?;
        core.classes
            .resolve(self.class, name)
            .map(|c| core.classes.name(c).to_owned())
            .map_err(|e| {
                if e.python_type() == "NoPackageFound" {
                    return ContractError::new(
                        murano_dsl::contract::ContractErrorKind::Host {
                            type_name: e.python_type().to_owned(),
                            module: e.python_module().to_owned(),
                        },
                        e.message,
                    );
                }
                ContractError::new(
                    murano_dsl::contract::ContractErrorKind::NoClassFound,
                    format!("Class \"{name}\" is not found"),
                )
            })
    }

    fn is_subclass(&self, class: &str, ancestor: &str) -> bool {
        let Some(core) = self.core.upgrade() else {
            return false;
        };
        match (core.classes.find(class), core.classes.find(ancestor)) {
            (Some(c), Some(a)) => core.classes.is_subclass(c, a),
            _ => false,
        }
    }

    fn load_object(
        &self,
        model: &Value,
        owner: Option<&Value>,
        default_class: &str,
        dry_run: bool,
    ) -> Result<Value, ContractError> {
        let fail = |e: EngineError| {
            ContractError::new(
                murano_dsl::contract::ContractErrorKind::Host {
                    type_name: e.python_type().to_owned(),
                    module: e.python_module().to_owned(),
                },
                e.message,
            )
        };
        let core = self
            .core
            .upgrade()
            .ok_or_else(|| fail(EngineError::dsl("NoClassFound", default_class)))?;
        // A limit passes through the contract whole (parked, as YAQL's
        // host errors are), not as a contract's host error.
        let fail = |e: EngineError| {
            if e.catchable() {
                fail(e)
            } else {
                let parked = core.park(e);
                ContractError::new(
                    murano_dsl::contract::ContractErrorKind::Host {
                        type_name: "Exception".to_owned(),
                        module: "builtins".to_owned(),
                    },
                    parked.message(),
                )
            }
        };
        let _nesting = core.enter().map_err(fail)?;
        let owner = owner.and_then(|o| core.obj_of(o));
        if dry_run {
            // Load to validate, then forget the objects: the caller gets
            // the model back through `serialize`.
            let default = core.classes.find(default_class);
            let (before, pending) = {
                let mut st = lock(&core.state);
                st.dry_run += 1;
                // Objects of an outer load not initialised yet stay so: a
                // dry run (Murano's separate store) does not initialise them.
                let pending: Vec<Arc<Obj>> = st
                    .objects
                    .values()
                    .filter(|o| !o.initialized.load(Ordering::Relaxed))
                    .cloned()
                    .collect();
                (st.objects.end_mark(), pending)
            };
            // Inside a model load that keeps its ids (no `new()` scope
            // under way), Murano's dry run keeps them too: the template's
            // objects take their model ids and draw none (`crate::ids`).
            let keep_ids = {
                let st = lock(&core.state);
                st.aliases.is_empty() && st.loading > 0
            };
            let r = core.load_object_tree_by(model, owner.as_ref(), default, keep_ids, self.class);
            for o in pending {
                o.initialized.store(false, Ordering::Relaxed);
            }
            {
                let mut st = lock(&core.state);
                st.dry_run -= 1;
                st.objects.truncate(before);
            }
            return r.map_err(fail);
        }
        let default = core.classes.find(default_class);
        if let Some(h) = Core::header(model) {
            if let Some(Value::Str(id)) = h.get(&Value::str("id")) {
                let existing = core.lookup_load_id(id);
                if let Some(o) = existing {
                    let mut props = match model {
                        Value::Dict(d) => (**d).clone(),
                        _ => Dict::default(),
                    };
                    props.shift_remove(&Value::str("?"));
                    core.defer_or_run_inits(&o, &Value::Dict(Arc::new(props)), self.class)
                        .map_err(fail)?;
                    return Ok(Value::Object(o));
                }
            }
        }
        crate::ids::temporary_object_id(&core, model);
        let keep_ids = false;
        core.load_object_tree_by(model, owner.as_ref(), default, keep_ids, self.class)
            .map_err(fail)
    }

    fn owner_of(&self, object: &Value) -> Option<Value> {
        let core = self.core.upgrade()?;
        let o = core.obj_of(object)?;
        let owner = o.owner_id()?;
        let st = lock(&core.state);
        st.objects.get(&owner).map(|x| Value::Object(x.clone()))
    }

    fn serialize(&self, object: &Value) -> Option<Value> {
        let core = self.core.upgrade()?;
        let o = core.obj_of(object)?;
        let dumped = crate::serialize::dump(&core, &o, crate::serialize::DumpMode::Mixed);
        let ids = lock(&core.state).dry_ids.clone();
        Some(restore_model_ids(dumped, &ids, 0))
    }
}
