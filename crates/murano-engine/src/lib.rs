//! The MuranoPL execution engine.
//!
//! `murano-dsl` parses and analyses MuranoPL; this crate runs it: objects
//! loaded from object models, method calls with Murano's rules, the block
//! instructions of method bodies, MuranoPL exceptions, the engine's YAQL
//! functions, and limits for untrusted packages. It does no I/O: the host
//! gives it parsed classes and object models and registers its own
//! functions. Murano's Python executor (`murano/dsl/*.py`) is the
//! reference.
//!
//! # Design
//!
//! The crate is layered; each layer is a folder with one job and imports
//! only from the layers before it:
//!
//! 1. `base/`: leaf types (errors, Python's set order, frozen and mutable
//!    values);
//! 2. `classes/`: the class set and its builder, `.init` order;
//! 3. `threads/`: green threads (scheduler, `GreenPool`);
//! 4. `runtime/`: the interpreter (state, frames, object-model loading,
//!    properties, invocation, destruction, serialisation, the [`Engine`]
//!    handle and its [`CallOptions`], the built-ins' `RuntimeHandle`),
//!    the one layer whose files import each other in a circle
//!    (`runtime/engine/` split along its own sections);
//! 5. `builtins/`: Murano's YAQL functions, reflection, the GC and
//!    principal natives, `format`, `patch`;
//! 6. `api/`: [`EngineBuilder`], [`PackageFiles`] (the
//!    one package type, read by murano-packages; [`class_set_with`] loads
//!    packages as deploy or as the test runner does), JSON conversion,
//!    [`stack_trace`];
//! 7. clients of the API: [`host`] (one file per system class under
//!    `host/system/`), [`testing`], [`deploy`].
//!
//! Built-ins reach the runtime only through its narrow handle
//! (`runtime/handle.rs`, `RuntimeHandle`, as rhai's
//! `NativeCallContext`): no file outside `runtime/` names its `Core`.
//! The lower layers know nothing of the built-ins: they expose
//! registration points, which the API layer fills when it assembles an
//! engine (`api/assemble.rs`, the public [`Engine::new`],
//! [`Engine::with_natives`] and [`ClassSetBuilder::add_system_classes`],
//! as rhai's `Engine::new` registers its standard packages through the
//! path a host's take): the class set takes the principal natives'
//! declarations as a function for its system package and fills its YAQL
//! libraries through a `LibrarySetup`; the runtime takes the built-in
//! natives, the libraries and the reflection hook `$type.name` reads as
//! one `Builtins` value (`runtime/hooks.rs`). Likewise the API layer
//! knows no host: [`class_set_with`] merges whatever declarations its
//! [`ClassSetOptions::merge`] gives, and the offline host's are the
//! default from the host layer (`host/packages.rs`:
//! `ClassSetOptions::default`, [`EngineBuilder::from_packages`]).
//! `tests/layers.rs` reads the sources and fails on any path into a
//! later layer (test code aside).
//!
//! The system classes are declared once (`host/system/`, one file per
//! class, as data) and [`host::HostProfile`] says how the offline host
//! or the no-cloud host ([`host::NoCloudHost`], the test runner's)
//! declares them, and which of its methods the no-cloud host answers
//! with `CloudUnavailable` or with nothing. Both hosts are [`host::Host`]
//! implementations under the one set of bodies ([`host::SystemClasses`],
//! which records the host calls when asked: the test runner does not).
//!
//! **Interceptors.** The method calls made from YAQL go through the
//! [`MethodInterceptor`] an engine was built with
//! ([`EngineBuilder::interceptor`]), which may answer an
//! [`InterceptedCall`] or let it run. The runtime knows no interceptor
//! by name: the test runner's mocks (`inject`, `withOriginal`, the table
//! [`MethodMocks`]) are one, in `testing/mock.rs`, as Murano's
//! `MockContextManager` is one hook in its YAQL method dispatch.
//!
//! | module | job | Murano counterpart |
//! |---|---|---|
//! | [`classes`] | classes at run time: packages in lookup order, the class registry of `murano-dsl` (MRO, members, meta, extension imports), the file of each class | `murano_package.py`, `murano_type.py` |
//! | `object` | objects (id, class, owner, property store, destroyed flag) and class values, both YAQL host objects | `murano_object.py`, `dsl_types.py` |
//! | `engine` | the object store, property reads and writes with their usage rules and contracts, method resolution over the MRO, argument binding (`Standard`, `VarArgs`, `KwArgs`) through argument contracts, object-model loading (`.init` parents first) | `executor.py`, `object_store.py`, `murano_method.py`, `helpers.py` |
//! | `exec` | the instruction executor: expressions, assignments (variables, properties, deep keys and indexes), `Return`, `If`, `While`, `For`, `Repeat`, `Break`, `Continue`, `Match`, `Switch`, `Do`, `Try`/`Catch`/`Else`/`Finally`, `Throw`, `Rethrow` | `macros.py`, `expressions.py`, `lhs_expression.py`, `dsl_exception.py` |
//! | `functions` | the engine's YAQL functions as host functions, and the dispatch of method calls made from YAQL | `yaql_functions.py`, `engine/system/yaql_functions.py` |
//! | `gc` | garbage collection (roots: the model root, and for `GC.collect()` also static properties and the running frames' `this` and local variables), destruction order and subscriptions, the native `io.murano.system.GC` class | `object_store.py`, `executor.py`, `principal_objects/garbage_collector.py` |
//! | `serialize` | objects back to an object model (`Objects`, `ObjectsCopy`, `_actions`) | `serializer.py` |
//! | [`error`] | typed errors: MuranoPL exceptions, Murano's engine exceptions by Python class, host exceptions, limits, "not supported yet" | `exceptions.py` |
//! | `trace` | the frames an error records: the whole call chain down to its root (a native method that called back into MuranoPL starts a new chain) | `stack_trace.py` |
//! | `greenpool` | how `Parallel`/`pselect` start their green threads: eventlet's `GreenPool.imap` (mapper thread, queue, slots, stop thread) as a state machine over the scheduler's run queue (`sched`, `parallel`) | `helpers.parallel_select`, eventlet `greenpool.py` |
//! | `init_order` | the order of `.init` calls: parents first in `Extends` order, a class reached along several paths once per path | `MuranoObject.initialize` |
//! | `ids` | one id sequence with the host (`Engine::set_id_source`), and the ids Murano draws that the engine has no object for (first-pass temporary objects, meta objects) | `helpers.generate_id` |
//! | `mutable` | frozen expression results (lists as tuples) and mutable values for natives and callers | `helpers.evaluate(freeze=True)`, `dsl.to_mutable` |
//! | `unreached` | model definitions no `class()` contract reached are dropped after a load | `InitializationObjectStore` |
//! | `intercept` | the hook the YAQL method dispatch goes through ([`MethodInterceptor`]) | the `mock_context_manager` hook of `dsl/helpers.py` |
//! | `testing/mock.rs` | method mocks (`inject`, `withOriginal`), the test runner's interceptor | `engine/mock_context_manager.py` |
//! | [`testing`] | the test runner: discovery, Murano's filters, a fresh engine per test, `setUp`/`tearDown`, the `TestFixture` natives, a host without a cloud | `cmd/test_runner.py`, `engine/system/test_fixture.py` |
//!
//! **Values.** Runtime values are `murano_yaql::eval::Value`s; objects and
//! classes are `Value::Object` host objects owned by the engine's store,
//! which maps them back to their records. `$obj.prop` goes through the
//! host object's property hook (Murano's `obj_attribution`), so reads obey
//! the usage rules of the caller's frame.
//!
//! **Method calls from YAQL.** For every method name any class declares,
//! the engine registers a YAQL function in the innermost library layer: on
//! a MuranoPL object (method syntax), a class, or inside a method whose
//! class has that method (function syntax) it runs the MuranoPL method;
//! otherwise it declines and YAQL's own functions of that name are tried.
//!
//! **Errors inside YAQL.** An engine error raised under a YAQL evaluation
//! travels through YAQL (and through contracts) as the cause of a
//! `murano_yaql::eval::Error::host` value; it comes back whole (kind,
//! message, frames) with `downcast_ref` when the evaluation returns. Host
//! functions raise host exceptions with [`host_exception`], an
//! `Error::host` of a `murano_dsl::functions::PythonException`, as
//! Murano's YAQL functions do. A failed property read (`$obj.name`) is
//! one too: the host object's property hook
//! (`murano_yaql::eval::HostObject::property`) returns the error, so
//! nothing is parked in the engine.
//!
//! **Engine classes.** [`ClassSetBuilder::add_system_classes`] adds the
//! classes Murano implements in Python (`io.murano.system.GC`) to a
//! package, usually `io.murano`; hosts implement other native methods
//! through [`NativeMethod`]. The engine's own natives and the host's sit
//! in one table by class and method; a native gets the engine in
//! [`NativeCall::engine`].
//!
//! **Stack.** Each method call pushes a frame (class, method, object,
//! position and text of the current instruction); an error records the
//! whole MuranoPL stack where it is thrown or a host error is wrapped
//! (file, line, column, method, class, instruction), innermost first (down to the root of a chain a native method
//! started), and [`EngineError::formatted`] renders it as Murano's
//! traceback text.
//!
//! **Formats.** As Murano, the YAQL of a class runs with yaql's legacy
//! library and iterable dicts (`ENGINE_10`) unless its package has format
//! 1.2 or later ([`ClassSetBuilder::set_package_format`]): then yaql's
//! standard library without iterable dicts (`ENGINE_12`).
//!
//! **Limits.** [`Limits`]: fuel (one unit per instruction, loop iteration
//! and method call), call depth, object count, green threads and the bytes
//! a run holds ([`Limits::max_memory`]), each with a safe
//! default and its own [`error::LimitKind`]. Limit errors and "not
//! supported yet" errors are never caught by MuranoPL `Catch`, so
//! `While: true` always ends. YAQL evaluation has its own fuel and depth
//! limits (`murano_yaql::eval::Options`).
//!
//! **Green threads.** `Parallel` branches and `pselect` items run as
//! Murano's eventlet green threads do: one at a time, switching only at
//! `sleep()`, a host's `yield()` ([`Engine::yield_point`]), a method lock
//! another thread holds, or the end of their branches, in eventlet's
//! order (a run queue by virtual wake-up time, then arrival). Each green
//! thread has an OS thread for its stack, but a single baton passes
//! between them, so runs are deterministic and race-free; time is
//! virtual (`sleep(60)` returns at once). Method calls take Murano's
//! per-(object, method) locks, configured by
//! `io.murano.metadata.engine.Synchronize`. A wait that can never end
//! (a branch calling a method its parent holds the lock of) is a
//! [`error::LimitKind::Deadlock`] error where Murano would hang.
//!
//! **Host environment.** `config()` reads what [`Engine::set_config`]
//! gives (only io.murano's classes see it, as in Murano);
//! `randomName()` is deterministic (letters `a`..`z` in turn, a fixed
//! clock, Murano's counter), so a run can be replayed; a host registers
//! its own `randomName` function for random ones. `decryptData` answers
//! as Murano does without a key manager.
//!
//! # Embedding
//!
//! Load packages from folders or zips, build an engine over them with the
//! offline host, load an object model from JSON, call a method (any
//! scope), and print a MuranoPL stack trace with source lines on failure:
//!
//! ```
//! use murano_engine::{host::OfflineHost, CallOptions, EngineBuilder, PackageFiles, Receiver};
//!
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/embedding");
//! let packages = PackageFiles::read_all([format!("{dir}/counter"), format!("{dir}/core-stub")])?;
//! let engine = EngineBuilder::from_packages(&packages)?.host(OfflineHost::default()).build();
//! let model = r#"{"Objects": {"?": {"id": "c1", "type": "com.example.Counter"}, "start": 10}}"#;
//! let counter = Receiver::Object(engine.load_json_text(model)?.expect("a root object"));
//! for (method, n) in [("count", 4), ("check", 40)] {
//!     match engine.call_with(&counter, method, vec![n.into()], vec![], &CallOptions::any_scope()) {
//!         Ok(v) => println!("{method}({n}) = {}", murano_engine::to_json(&v)),
//!         Err(e) => eprintln!("{}", murano_engine::stack_trace(&e, &packages)),
//!     }
//! }
//! # let out = engine.call(&counter, "count", vec![4.into()], vec![])?;
//! # assert_eq!(murano_engine::to_json(&out), serde_json::json!(14));
//! # let e = engine.call_with(&counter, "check", vec![40.into()], vec![], &CallOptions::any_scope()).unwrap_err();
//! # let trace = murano_engine::stack_trace(&e, &packages);
//! # assert!(trace.contains("counter/Classes/Counter.yaml:"), "{trace}");
//! # assert!(trace.contains("Throw: TooBig"), "{trace}");
//! # assert!(engine.call(&counter, "check", vec![1.into()], vec![]).is_err(), "private");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Not done yet:** objects as one part per class of their MRO (cast
//! views and per-class stores of undeclared properties cover what the
//! tests reach).
//!
//! ```
//! use std::sync::Arc;
//! use murano_dsl::version::Version;
//! use murano_engine::{ClassSetBuilder, Engine, Limits, Receiver};
//! use murano_yaql::eval::{Dict, Value};
//!
//! let mut b = ClassSetBuilder::new();
//! let pkg = b.add_package("demo", Version::new(0, 0, 0))?;
//! let io = b.add_package("io.murano", Version::new(0, 0, 0))?;
//! for class in ClassSetBuilder::parse_file(b"Name: io.murano.Object", "Object.yaml")? {
//!     b.add_class(io, "Object.yaml", class)?;
//! }
//! let text = b"
//! Name: Counter
//! Properties:
//!   start: {Contract: $.int().notNull()}
//! Methods:
//!   count:
//!     Scope: Public
//!     Arguments: [{n: {Contract: $.int()}}]
//!     Body:
//!       - $total: $.start
//!       - For: i
//!         In: range(0, $n)  # format 1.0: range(n) counts from n forever
//!         Do:
//!           - $total: $total + $i
//!       - Return: $total
//! ";
//! for class in ClassSetBuilder::parse_file(text, "Counter.yaml")? {
//!     b.add_class(pkg, "Counter.yaml", class)?;
//! }
//! let engine = Engine::new(Arc::new(b.build()), Limits::default(), Vec::new());
//! let mut header = Dict::default();
//! header.insert(Value::str("type"), Value::str("Counter"));
//! header.insert(Value::str("id"), Value::str("c1"));
//! let mut obj = Dict::default();
//! obj.insert(Value::str("?"), Value::Dict(Arc::new(header)));
//! obj.insert(Value::str("start"), Value::Int(10));
//! let mut model = Dict::default();
//! model.insert(Value::str("Objects"), Value::Dict(Arc::new(obj)));
//! let root = engine.load_model(&Value::Dict(Arc::new(model)))?.unwrap();
//! let out = engine.call(&Receiver::Object(root), "count", vec![Value::Int(4)], vec![])?;
//! assert_eq!(out, Value::Int(16));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

// The README's examples run as doctests too.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

mod api;
mod base;
mod builtins;
pub mod classes;
pub mod deploy;
pub mod host;
mod runtime;
pub mod task;
pub mod testing;
mod threads;

// The layers' modules by their short names, so that paths inside the
// crate (`crate::sched`, `crate::engine`) read the same in every layer.
pub use base::error;
pub(crate) use base::{mutable, pyset};
pub(crate) use builtins::{format, functions, patch};
pub(crate) use classes::init_order;
pub(crate) use runtime::{
    engine, exec, gc, ids, locks, memory, object, serialize, store, trace, unreached,
};
pub(crate) use threads::{greenpool, sched};

#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod reentry_tests;
#[cfg(test)]
mod tests;

pub use api::builder::EngineBuilder;
pub use api::json::{from_json, to_json};
pub use api::package::{
    class_set_with, ClassSetOptions, FrameFiles, LoadError, PackageError, PackageFiles,
};
pub use api::trace::{render_trace, stack_trace};
pub use classes::{ClassSet, ClassSetBuilder};
pub use engine::{host_exception, Engine, LoggerObserver, Receiver, WeakEngine};
pub use error::{EngineError, ErrorKind, LimitKind, StackFrame};
pub use ids::IdSource;
pub use runtime::call::CallOptions;
pub use runtime::intercept::{CallSite, InterceptedCall, MethodInterceptor, OriginalCall};
pub use testing::mock::MethodMocks;

/// yaql's standard library and all of the engine's functions (`format`
/// and `'{0}'.format(…)`, `base64encode`, ..., and also `substr` and
/// `firstOrDefault`, which Murano gives only to format 1.0 and 1.1), for
/// evaluating expressions outside a class (`murano yaql --grammar
/// murano`). The functions that need a running engine or an object model
/// (`id`, `new`, `config`, `randomName`, ...) are there but match no
/// arguments without one.
///
/// ```
/// use std::sync::Arc;
/// use murano_yaql::eval::{Context, Engine};
///
/// let query = Engine::murano(true).compile("'{0}-{1}'.format(1, 2)")?;
/// let value = query.evaluate(&Context::new(Arc::new(murano_engine::yaql_library())))?;
/// assert_eq!(value.py_str(), "1-2");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn yaql_library() -> murano_yaql::eval::Library {
    let mut library = murano_yaql::eval::Library::standard(false);
    library.push_layer();
    functions::register(&mut library, (1, 1));
    library
}
pub use object::ObjectView;

/// The body of a native method.
pub type NativeBody =
    dyn Fn(&NativeCall<'_>) -> Result<murano_yaql::eval::Value, EngineError> + Send + Sync;

/// A MuranoPL method implemented by the host: the class declares it (its
/// arguments, contracts and usage), the host gives its body.
#[derive(Clone)]
pub struct NativeMethod {
    /// The full name of the declaring class.
    pub class: String,
    /// The method name.
    pub method: String,
    /// The body.
    pub body: std::sync::Arc<NativeBody>,
}

impl std::fmt::Debug for NativeMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NativeMethod({}::{})", self.class, self.method)
    }
}

/// What a native method receives.
#[derive(Debug)]
pub struct NativeCall<'a> {
    /// The engine running the method (a native calls back into it, or
    /// reads its objects, through this handle).
    pub engine: &'a Engine,
    /// The object it was called on: `this`, or for a static method the
    /// object it was called through (`None` when called on the class).
    pub receiver: Option<&'a murano_yaql::eval::Value>,
    /// The declaring class.
    pub class: &'a str,
    /// The method's name.
    pub method: &'a str,
    /// The arguments by name, after their contracts.
    pub args: &'a [(String, murano_yaql::eval::Value)],
}

impl NativeCall<'_> {
    /// An argument by name.
    pub fn arg(&self, name: &str) -> Option<&murano_yaql::eval::Value> {
        self.args.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// A message logged through an `io.murano.system.Logger` object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRecord {
    /// The logger's name (`logger(name)`).
    pub logger: String,
    /// `trace`, `debug`, `info`, `warning`, `error`, `critical` or
    /// `exception`.
    pub level: String,
    /// The message, formatted with its arguments.
    pub message: String,
}

/// The fuel of [`Limits::default`].
pub const DEFAULT_FUEL: u64 = 1_000_000;
/// The call depth of [`Limits::default`]: a MuranoPL call nests the
/// executor and the YAQL evaluator, so each level takes stack (up to
/// about 50 KiB in debug builds); 32 levels fit the 2 MiB of a spawned
/// Rust thread (a test thread's stack, and the least any caller of the
/// engine should give it; `murano` runs it on its 8 MiB main thread).
/// Re-entries without a frame (property defaults and contracts, objects
/// contracts load, argument binding) count as levels too. A level that
/// nests a deep expression takes more: [`Limits::max_stack`] bounds the
/// native stack as well.
pub const DEFAULT_MAX_CALL_DEPTH: usize = 32;
/// The stack budget of [`Limits::default`]: 6 MiB, which leaves room on
/// the 8 MiB main thread of Linux programs; a caller on a smaller stack
/// (a spawned thread has 2 MiB) sets less.
pub const DEFAULT_MAX_STACK: usize = 6 << 20;
/// The green-thread count of [`Limits::default`] (each is an OS thread
/// that waits for its turn).
pub const DEFAULT_MAX_THREADS: usize = 256;
/// The object count of [`Limits::default`].
pub const DEFAULT_MAX_OBJECTS: usize = 100_000;
/// The memory budget of [`Limits::default`]: 256 MiB of strings and
/// collections held (four times the longest string YAQL builds; a model
/// of a thousand applications holds a few MiB).
pub const DEFAULT_MAX_MEMORY: u64 = 256 << 20;

/// Limits on what MuranoPL code may do: untrusted packages run here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Units of fuel for one engine (one per instruction, loop iteration
    /// and method call); `None` is unlimited.
    pub fuel: Option<u64>,
    /// Deepest nesting of MuranoPL method calls, counting with them every
    /// re-entry of the engine that pushes no frame (an object's property
    /// defaults and contracts, an object a contract loads, a method's
    /// argument binding).
    pub max_call_depth: usize,
    /// Most objects alive in the store.
    pub max_objects: usize,
    /// Most green threads (`Parallel` branches, `pselect` items) alive at
    /// once, nested ones included; more wait for a free one, as beyond a
    /// `Limit`, and a nested `Parallel`/`pselect` with none free is a
    /// [`error::LimitKind::Threads`] error.
    pub max_threads: usize,
    /// Most bytes of strings and collections a run holds (variables,
    /// properties, and what running expressions built), charged where
    /// values are built and recounted from the roots when the estimate
    /// passes it; beyond, a [`error::LimitKind::Memory`] error (see
    /// `murano_yaql::eval::MemoryBudget`).
    pub max_memory: u64,
    /// Most bytes of native stack a call into the engine may use on the
    /// calling thread (a `Parallel` branch: less, to fit its own stack);
    /// deeper, a [`error::LimitKind::CallDepth`] error, however few
    /// levels [`Limits::max_call_depth`] counted (see
    /// `murano_yaql::stack`). Keep it below the stack of the threads
    /// that call the engine.
    pub max_stack: usize,
}

impl Default for Limits {
    /// [`DEFAULT_FUEL`], [`DEFAULT_MAX_CALL_DEPTH`], [`DEFAULT_MAX_OBJECTS`],
    /// [`DEFAULT_MAX_THREADS`], [`DEFAULT_MAX_MEMORY`], [`DEFAULT_MAX_STACK`].
    fn default() -> Limits {
        Limits {
            fuel: Some(DEFAULT_FUEL),
            max_call_depth: DEFAULT_MAX_CALL_DEPTH,
            max_objects: DEFAULT_MAX_OBJECTS,
            max_threads: DEFAULT_MAX_THREADS,
            max_memory: DEFAULT_MAX_MEMORY,
            max_stack: DEFAULT_MAX_STACK,
        }
    }
}
