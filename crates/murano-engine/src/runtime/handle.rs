//! What the built-ins see of the runtime: a narrow handle (as rhai's
//! `NativeCallContext`) with exactly the operations Murano's YAQL
//! functions and reflection need, so that `builtins/` never names the
//! interpreter's state type.

use std::any::Any;
use std::sync::{Arc, Weak};

use murano_dsl::registry::ClassId;
use murano_dsl::yaml::Node;
use murano_yaql::eval::{Call, Context, Error as YaqlError, Library, Value};

use crate::classes::ClassSet;
use crate::engine::{Core, Frame, LoggerObserver, MAX_LOG_RECORDS};
use crate::error::EngineError;
use crate::object::{lock, Obj, TypeObj};
use crate::serialize::DumpMode;

/// The running engine as a built-in function or reflection value sees it.
#[derive(Clone)]
pub(crate) struct RuntimeHandle(Arc<Core>);

/// A [`RuntimeHandle`] that does not keep the engine alive (held by the
/// reflection values the engine's own store keeps).
#[derive(Clone)]
pub(crate) struct WeakRuntimeHandle(Weak<Core>);

impl WeakRuntimeHandle {
    /// The engine, while it lives.
    pub(crate) fn upgrade(&self) -> Option<RuntimeHandle> {
        self.0.upgrade().map(RuntimeHandle)
    }
}

impl RuntimeHandle {
    pub(crate) fn new(core: Arc<Core>) -> Self {
        Self(core)
    }

    /// The engine a YAQL function runs in (from its context).
    pub(crate) fn of(call: &Call<'_>) -> Result<Self, YaqlError> {
        crate::engine::core_of(call).map(Self)
    }

    pub(crate) fn downgrade(&self) -> WeakRuntimeHandle {
        WeakRuntimeHandle(Arc::downgrade(&self.0))
    }

    pub(crate) fn classes(&self) -> &Arc<ClassSet> {
        &self.0.classes
    }

    /// The YAQL libraries of the engine's classes (see
    /// `ClassSet::libraries`).
    pub(crate) fn libraries(&self) -> &(Library, Library) {
        self.0.classes.libraries(&self.0.builtins.libraries)
    }

    pub(crate) fn logger_observer(&self) -> Option<&Arc<LoggerObserver>> {
        self.0.logger_observer.get()
    }

    /// The YAQL library the running method's class sees.
    pub(crate) fn library_in_use(&self) -> Option<&Arc<Library>> {
        match self.0.library12.get() {
            Some(l12) if self.0.current_is_format_12() => Some(l12),
            _ => self.0.library.get(),
        }
    }

    /// Names the `io.murano.system.Logger` object `id` (its log records'
    /// logger).
    pub(crate) fn set_logger_name(&self, id: &str, name: String) {
        lock(&self.0.state).logger_names.insert(id.to_owned(), name);
    }

    /// Keeps a log record of the logger object `id` (the oldest goes past
    /// the engine's cap).
    pub(crate) fn push_log(&self, id: &str, level: &str, message: String) {
        let mut st = lock(&self.0.state);
        let logger = st.logger_names.get(id).cloned().unwrap_or_default();
        if st.log.len() >= MAX_LOG_RECORDS {
            st.log.remove(0);
        }
        st.log.push(crate::LogRecord {
            logger,
            level: level.to_owned(),
            message,
        });
    }

    /// Initializes `obj` from `model` in a load of its own (Murano's
    /// `InitializationObjectStore` without `keep_ids`): model ids in the
    /// properties name objects of this load, not of the store.
    pub(crate) fn initialize_in_own_load(
        &self,
        obj: &Arc<Obj>,
        model: &Value,
        caller: Option<ClassId>,
    ) -> Result<(), EngineError> {
        lock(&self.0.state).aliases.push(Default::default());
        let r = self.0.initialize_by(obj, model, caller);
        lock(&self.0.state).aliases.pop();
        r
    }

    /// Keeps the reflection value at `addr` so that it can be found again.
    pub(crate) fn remember_refl<T: Any + Send + Sync>(&self, addr: usize, r: Arc<T>) {
        lock(&self.0.state).refl.insert(addr, r);
    }

    /// The reflection value of type `T` at `addr`.
    pub(crate) fn refl_at<T: Any + Send + Sync>(&self, addr: usize) -> Option<Arc<T>> {
        let r = lock(&self.0.state).refl.get(&addr).cloned()?;
        r.downcast::<T>().ok()
    }

    pub(crate) fn park(&self, e: EngineError) -> YaqlError {
        self.0.park(e)
    }

    pub(crate) fn unpark_yaql(&self, e: &YaqlError) -> EngineError {
        self.0.unpark_yaql(e)
    }

    pub(crate) fn current_frame(&self) -> Option<Frame> {
        self.0.current_frame()
    }

    pub(crate) fn type_value(&self, class: ClassId, reference: bool) -> Value {
        self.0.type_value(class, reference)
    }

    pub(crate) fn type_of_value(&self, v: &Value) -> Option<Arc<TypeObj>> {
        self.0.type_of_value(v)
    }

    pub(crate) fn obj_of(&self, v: &Value) -> Option<Arc<Obj>> {
        self.0.obj_of(v)
    }

    pub(crate) fn owner_of(&self, obj: &Obj) -> Option<Arc<Obj>> {
        self.0.owner_of(obj)
    }

    pub(crate) fn part_of(&self, v: &Value) -> Option<(Arc<Obj>, ClassId)> {
        self.0.part_of(v)
    }

    pub(crate) fn cast_of(&self, v: &Value) -> Option<(Arc<Obj>, ClassId)> {
        self.0.cast_of(v)
    }

    pub(crate) fn cast_value(&self, obj: &Arc<Obj>, class: ClassId) -> Value {
        self.0.cast_value(obj, class)
    }

    pub(crate) fn has_method(&self, class: ClassId, name: &str) -> bool {
        self.0.has_method(class, name)
    }

    pub(crate) fn invoke(
        &self,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        external: bool,
    ) -> Result<Value, EngineError> {
        self.0.invoke(this, class, name, args, kwargs, external)
    }

    pub(crate) fn run_method(
        &self,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        index: usize,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, EngineError> {
        self.0.run_method(this, class, index, args, kwargs)
    }

    pub(crate) fn method_context(&self, class: ClassId, this: Option<&Arc<Obj>>) -> Context {
        self.0.method_context(class, this)
    }

    pub(crate) fn create_object(
        &self,
        class: ClassId,
        id: Option<String>,
        owner: Option<String>,
        name: Value,
        metadata: Value,
    ) -> Result<Arc<Obj>, EngineError> {
        self.0.create_object(class, id, owner, name, metadata)
    }

    pub(crate) fn initialize(&self, obj: &Arc<Obj>, model: &Value) -> Result<(), EngineError> {
        self.0.initialize(obj, model)
    }

    pub(crate) fn load_object_tree_by(
        &self,
        model: &Value,
        owner: Option<&Arc<Obj>>,
        default_class: Option<ClassId>,
        keep_ids: bool,
        caller: Option<ClassId>,
    ) -> Result<Value, EngineError> {
        self.0
            .load_object_tree_by(model, owner, default_class, keep_ids, caller)
    }

    pub(crate) fn mark_loaded<'a>(&self, objects: impl Iterator<Item = &'a Arc<Obj>>) {
        self.0.mark_loaded(objects)
    }

    pub(crate) fn read_property(&self, obj: &Obj, name: &str) -> Result<Value, EngineError> {
        self.0.read_property(obj, name)
    }

    pub(crate) fn write_property(
        &self,
        obj: &Arc<Obj>,
        name: &str,
        value: Value,
    ) -> Result<(), EngineError> {
        self.0.write_property(obj, name, value)
    }

    pub(crate) fn read_static_property(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<Value, EngineError> {
        self.0.read_static_property(class, name)
    }

    pub(crate) fn write_static_property(
        &self,
        class: ClassId,
        name: &str,
        value: Value,
    ) -> Result<(), EngineError> {
        self.0.write_static_property(class, name, value)
    }

    pub(crate) fn config_visible(&self) -> Result<(), YaqlError> {
        self.0.config_visible()
    }

    pub(crate) fn config_value(
        &self,
        group: Option<&str>,
        setting: &str,
    ) -> Result<Value, YaqlError> {
        self.0.config_value(group, setting)
    }

    pub(crate) fn random_name(&self) -> String {
        self.0.random_name()
    }

    pub(crate) fn yield_point(&self, delay: u64) {
        self.0.yield_point(delay)
    }

    pub(crate) fn run_branches<T: Send>(
        &self,
        n: usize,
        limit: usize,
        branch: &(dyn Fn(usize) -> Result<T, EngineError> + Sync + '_),
    ) -> Result<Vec<T>, EngineError> {
        self.0.run_branches(n, limit, branch)
    }

    /// Calls method `name` of `class` on `this` from YAQL, through the
    /// interceptor the engine was built with, if any.
    pub(crate) fn invoke_from_yaql(
        &self,
        caller: &Context,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, EngineError> {
        match self.0.interceptor.get() {
            Some(i) => i
                .hook
                .intercept(crate::runtime::intercept::InterceptedCall::new(
                    &self.0, caller, this, class, name, args, kwargs,
                )),
            None => self.0.invoke(this, class, name, args, kwargs, false),
        }
    }

    pub(crate) fn accepts_receiver(
        &self,
        class: ClassId,
        index: usize,
        value: &Value,
    ) -> Result<bool, EngineError> {
        self.0.accepts_receiver(class, index, value)
    }

    /// Murano's `helpers.evaluate` of a YAML value in `ctx`.
    pub(crate) fn eval_node(&self, node: &Node, ctx: &Context) -> Result<Value, EngineError> {
        crate::exec::eval_node(&self.0, node, ctx)
    }

    /// The object model of `root` seen as its part `part`.
    pub(crate) fn dump_part(&self, root: &Arc<Obj>, part: ClassId, mode: DumpMode) -> Value {
        crate::serialize::dump_part(&self.0, root, part, mode)
    }
}
