//! The public constructors of the lower layers' types, which put the
//! built-ins into those layers' registration points (as rhai's
//! `Engine::new` registers its standard packages through the path a
//! host's take): the principal natives' declarations into a class set,
//! Murano's YAQL functions, reflection and the engine's own natives into
//! an engine.

use std::sync::Arc;

use murano_dsl::registry::PackageId;
use murano_yaql::eval::FunctionDef;

use crate::builtins::{builtins, principal};
use crate::{ClassSet, ClassSetBuilder, Engine, EngineError, Limits, NativeMethod};

impl ClassSetBuilder {
    /// Adds to a package the classes the engine itself implements, as
    /// Murano registers its Python classes into `io.murano`:
    /// `io.murano.system.GC` (static `collect()`, `isDestroyed(object)`,
    /// `isDoomed(object)`, `subscribeDestruction(publisher, subscriber,
    /// handler)`, `unsubscribeDestruction(...)`). The package becomes the
    /// system package: the principal classes added to it afterwards get
    /// their native methods (see [`ClassSetBuilder::add_class`]).
    pub fn add_system_classes(&mut self, package: PackageId) -> Result<(), EngineError> {
        self.add_system_classes_with(package, principal::merge_into)
    }
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
        natives: Vec<NativeMethod>,
    ) -> Engine {
        Engine::assemble(classes, limits, host_functions, natives, builtins())
    }
}
