//! What hosts and natives may ask the engine about the running program:
//! objects' owners and classes, the packages of the frames, loading an
//! object a host makes. Public, so that hosts, the test runner and deploy
//! stay clients of the [`Engine`] handle.

use super::*;

impl Engine {
    /// The id of an object of this engine.
    pub fn object_id(&self, value: &Value) -> Option<String> {
        self.core.obj_of(value).map(|o| o.id.clone())
    }

    /// The object that owns `object` (its parent in the object model).
    pub fn owner(&self, object: &Value) -> Option<Value> {
        let obj = self.core.obj_of(object)?;
        self.core.owner_of(&obj).map(|o| Value::Object(o))
    }

    /// Whether `object` is an object of class `class` (by full name) or a
    /// class inheriting from it.
    pub fn is_instance_of(&self, object: &Value, class: &str) -> bool {
        match (self.core.obj_of(object), self.core.classes.find(class)) {
            (Some(o), Some(c)) => self.core.classes.is_subclass(o.class, c),
            _ => false,
        }
    }

    /// The class a value stands for: a class value's class, or an
    /// object's class.
    pub fn class_of(&self, value: &Value) -> Option<ClassId> {
        if let Some(t) = self.core.type_of_value(value) {
            return Some(t.class);
        }
        self.core.obj_of(value).map(|o| o.class)
    }

    /// The attribute-store entry `(object id, class name, key)` (see
    /// [`Engine::add_attribute`]).
    pub fn attribute(&self, object: &str, class: &str, key: &str) -> Option<Value> {
        self.core.attribute(object, class, key)
    }

    /// The class of a class value (`type('x.Y')`, a class reference).
    pub fn type_class(&self, value: &Value) -> Option<ClassId> {
        self.core.type_of_value(value).map(|t| t.class)
    }

    /// Murano's `ObjectStore.prepare_finalize`, what a deployment does
    /// before serialising its model: every object the model does not hold
    /// is destroyed (`.destroy` methods and handlers included). Returns
    /// how many were destroyed.
    pub fn prepare_finalize(&self) -> Result<usize, EngineError> {
        crate::gc::prepare_finalize(&self.core)
    }

    /// Takes the objects a collection finds unreachable in the order they
    /// were created (when their initialisation began) instead of the
    /// order they joined the object store. Murano keeps them in a Python
    /// set, whose order varies from run to run; the lifecycle oracle fixed
    /// it to creation order (its README §3.9), which whole tasks follow.
    pub fn collect_in_creation_order(&self, on: bool) {
        lock(&self.core.state).creation_order_gc = on;
    }

    /// The class running the MuranoPL frame `depth` below the top of the
    /// stack (0: the innermost, a native's own frame).
    pub fn frame_class(&self, depth: usize) -> Option<ClassId> {
        let st = lock(&self.core.state);
        let i = st.stack.len().checked_sub(1 + depth)?;
        st.stack.get(i).map(|f| f.class)
    }

    /// A class name resolved as the code of the innermost frame resolves
    /// it (its namespaces, its package's requirements).
    pub fn resolve_class(&self, name: &str) -> Result<ClassId, EngineError> {
        let from = self.core.current_frame().map(|f| f.class);
        self.core.classes.resolve(from, name)
    }

    /// The name of the package of a class.
    pub fn package_of(&self, class: ClassId) -> Option<String> {
        let registry = self.core.classes.registry();
        let p = registry.package_of(class)?;
        registry.package(p).map(|p| p.name.clone())
    }

    /// Loads one object from its model (a dict with a `?` header) into the
    /// store, owned by nothing, as a host's constructor makes an object;
    /// as with `new()`, the object gets a fresh id.
    pub fn load_object(&self, model: &Value) -> Result<Value, EngineError> {
        self.core.load_object_tree(model, None, false)
    }
}
