//! The engine: object store, property access, method invocation with
//! argument contracts, object-model loading and serialisation.

mod contexts;
mod destruction;
mod frames;
mod host_view;
mod init;
mod methods;
mod objects;
mod properties;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use indexmap::IndexMap;
use murano_dsl::contract::{Contract, ContractError, ObjectHost, ObjectInfo, Runtime, Scope};
use murano_dsl::functions::PythonException;
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
use crate::runtime::hooks::Builtins;
use crate::Limits;

/// A YAQL error for a host function to return: a host exception of Python
/// class `type_name` from `module` (`builtins` for Python's own), which
/// the engine wraps as Murano wraps Python exceptions. It is an
/// [`YaqlError::host`] of a [`PythonException`], as murano-dsl's functions
/// raise them.
pub fn host_exception(type_name: &str, module: &str, message: &str) -> YaqlError {
    YaqlError::host(PythonException {
        module: module.to_owned(),
        type_name: type_name.to_owned(),
        message: message.to_owned(),
    })
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
    /// Objects created by the running load whose model header has
    /// `dependencies`, loaded again once the whole tree exists (a
    /// subscriber may come later in the tree than its publisher).
    pub(crate) deferred_dependencies: Vec<(Arc<Obj>, Value)>,
    /// Ids of model definitions a load did not make objects of (no
    /// `class()` contract reached them): the same definition in
    /// `ObjectsCopy` is not made an object either.
    pub(crate) unreached_ids: std::collections::HashSet<String>,
    /// While `ObjectsCopy` loads: the ids of the objects already loaded
    /// from `Objects` whose properties were checked again (see
    /// `Core::initialize_properties`).
    pub(crate) rechecked: Option<std::collections::HashSet<String>>,
    pub(crate) objects: crate::store::ObjectStore,
    /// Objects that began their initialisation so far: the next one's
    /// `Obj::birth` stamp.
    pub(crate) births: u64,
    /// Whether collections take garbage in creation order (see
    /// `Engine::collect_in_creation_order`).
    pub(crate) creation_order_gc: bool,
    pub(crate) by_addr: HashMap<usize, Arc<Obj>>,
    pub(crate) types: HashMap<usize, Arc<TypeObj>>,
    pub(crate) casts: HashMap<usize, Arc<CastObj>>,
    /// The built-ins' reflection values by address (their type is the
    /// built-ins', which the runtime does not know).
    pub(crate) refl: HashMap<usize, Arc<dyn std::any::Any + Send + Sync>>,
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

/// A native method as the engine runs it.
pub(crate) struct NativeEntry {
    pub(crate) body: Arc<crate::NativeBody>,
    /// The arguments are given as mutable values (Murano's native stubs
    /// call `to_mutable`); the engine's own natives take them as they are.
    pub(crate) thaw_args: bool,
    /// Its frame counts as a host frame in a stack trace.
    pub(crate) host_frame: bool,
}

/// The native methods of an engine over `classes`: the host's `natives`
/// (for every class of their class's name), then the engine's own,
/// which take precedence.
fn native_table(
    classes: &ClassSet,
    natives: Vec<crate::NativeMethod>,
    builtins: &Builtins,
) -> HashMap<(ClassId, String), NativeEntry> {
    let mut by_name: HashMap<String, Vec<(String, Arc<crate::NativeBody>)>> = HashMap::new();
    for n in natives {
        by_name.entry(n.class).or_default().push((n.method, n.body));
    }
    let mut table = HashMap::new();
    for class in classes.registry().classes() {
        if let Some(methods) = by_name.get(classes.name(class)) {
            for (method, body) in methods {
                let entry = NativeEntry {
                    body: body.clone(),
                    thaw_args: true,
                    host_frame: true,
                };
                table.insert((class, method.clone()), entry);
            }
        }
    }
    for (class, method, body, host_frame) in (builtins.natives)(classes) {
        let host_frame = host_frame
            || by_name
                .get(classes.name(class))
                .is_some_and(|m| m.iter().any(|(n, _)| *n == method));
        let entry = NativeEntry {
            body,
            thaw_args: false,
            host_frame,
        };
        table.insert((class, method), entry);
    }
    table
}

/// The shared core behind an [`Engine`].
pub(crate) struct Core {
    /// The native methods by class and name: the host's and the engine's
    /// own (`io.murano.system.GC`, the principal classes' methods), one
    /// table (see [`NativeEntry`]).
    pub(crate) natives: HashMap<(ClassId, String), NativeEntry>,
    pub(crate) classes: Arc<ClassSet>,
    /// What the engine was assembled with (the YAQL functions, the
    /// built-in natives, reflection).
    pub(crate) builtins: Builtins,
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
    /// The interceptor of method calls made from YAQL the engine was
    /// built with (see `runtime/intercept.rs`).
    pub(crate) interceptor: OnceLock<crate::runtime::intercept::Installed>,
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

/// An engine that this handle does not keep alive ([`Engine::downgrade`]).
#[derive(Clone, Default)]
pub struct WeakEngine(Weak<Core>);

impl std::fmt::Debug for WeakEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WeakEngine")
    }
}

impl WeakEngine {
    /// The engine, while it is alive.
    pub fn upgrade(&self) -> Option<Engine> {
        self.0.upgrade().map(Engine::from_core)
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
    /// An engine over `classes` with these limits, host functions and
    /// native methods, and the `builtins` the layer that assembles it
    /// registers (the public constructors, `Engine::new` and
    /// `Engine::with_natives`, give the engine's own).
    pub(crate) fn assemble(
        classes: Arc<ClassSet>,
        limits: Limits,
        host_functions: Vec<FunctionDef>,
        natives: Vec<crate::NativeMethod>,
        builtins: Builtins,
    ) -> Engine {
        let natives = native_table(&classes, natives, &builtins);
        let max_memory = limits.max_memory;
        let core = Arc::new_cyclic(|weak| Core {
            natives,
            classes,
            builtins,
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
            interceptor: OnceLock::new(),
        });
        let (base, dispatch) = if core.classes.has_format_12() {
            // Classes of format 1.2 and later need the standard library too.
            let (b12, d12) = core.classes.libraries12(&builtins.libraries);
            let mut library = b12.clone();
            if !host_functions.is_empty() {
                library.push_layer();
                for f in &host_functions {
                    library.register(f.duplicate());
                }
            }
            library.push_library(d12);
            let _ = core.library12.set(Arc::new(library));
            core.classes.libraries(&builtins.libraries)
        } else {
            core.classes.libraries(&builtins.libraries)
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
        let _budgets = core.run_budgets();
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
                lock(&core.state).rechecked = Some(Default::default());
                let loaded = core.load_object_tree(copy, None, true);
                lock(&core.state).rechecked = None;
                loaded?;
                core.collect_garbage()?;
            }
        }
        Ok(root)
    }

    /// Calls a public method from outside (the runner's
    /// `on(obj).method(...)`): [`Engine::call_with`] with the default
    /// [`crate::CallOptions`].
    pub fn call(
        &self,
        receiver: &Receiver,
        method: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, EngineError> {
        self.call_with(
            receiver,
            method,
            args,
            kwargs,
            &crate::CallOptions::default(),
        )
    }

    /// Calls a method from outside as `options` say (with
    /// [`crate::CallOptions::any_scope`], private methods too, as Murano's
    /// test runner calls tests). The result is a mutable value (lists,
    /// not tuples), as Murano's object interface gives it.
    pub fn call_with(
        &self,
        receiver: &Receiver,
        method: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        options: &crate::CallOptions,
    ) -> Result<Value, EngineError> {
        let external = !options.ignore_scope;
        let core = &self.core;
        let _budgets = core.run_budgets();
        {
            let mut st = lock(&core.state);
            st.stack.clear();
        }
        // Callers from outside get mutable values (lists), as Murano's
        // object interface gives them (`to_mutable`).
        let result = match receiver {
            Receiver::Object(v) => {
                let obj = core.obj_of(v).ok_or_else(|| {
                    EngineError::dsl("NoObjectFoundError", "receiver is not an object")
                })?;
                core.invoke(Some(&obj), obj.class, method, args, kwargs, external)
            }
            Receiver::Class(name) => {
                let class = core.classes.resolve(None, name)?;
                core.invoke(None, class, method, args, kwargs, external)
            }
        };
        if options.frozen_result {
            return result;
        }
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

    /// A handle that does not keep the engine alive (for what the engine
    /// itself holds, such as a host's logger observer).
    pub fn downgrade(&self) -> WeakEngine {
        WeakEngine(Arc::downgrade(&self.core))
    }

    /// Whether `value` is an object of this engine.
    pub fn is_object(&self, value: &Value) -> bool {
        self.core.obj_of(value).is_some()
    }

    /// The classes the engine runs.
    pub fn classes(&self) -> &Arc<ClassSet> {
        &self.core.classes
    }

    /// Whether the class of object `receiver` has a method `name` (its
    /// own or inherited, whatever its scope).
    pub fn has_method(&self, receiver: &Value, name: &str) -> bool {
        self.core
            .obj_of(receiver)
            .is_some_and(|o| self.core.has_method(o.class, name))
    }

    /// A fresh object id from the engine's id source (see
    /// [`Engine::set_id_source`]).
    pub fn generate_id(&self) -> String {
        self.core.generate_id()
    }

    /// Destroys the objects not reachable from the model root (their
    /// `.destroy` methods run), as Murano does after loading a model.
    pub fn collect_garbage(&self) -> Result<(), EngineError> {
        let _budgets = self.core.run_budgets();
        self.core.collect_garbage()
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
        let _budgets = core.run_budgets();
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

/// A `.init` call to make: the class part and its arguments.
pub(crate) type InitCall = (ClassId, Vec<(String, Value)>);

/// An object and the `.init` calls it waits for.
pub(crate) type PendingInit = (Arc<Obj>, Vec<InitCall>);

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
}
