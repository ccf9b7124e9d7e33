//! MuranoPL objects and class values as YAQL host objects.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use indexmap::IndexMap;
use murano_dsl::registry::ClassId;
use murano_yaql::eval::{Error as YaqlError, HostObject, Value};

use crate::engine::Core;

/// The lock helper, a leaf of the crate (`crate::base::sync`), by its
/// old path.
pub(crate) use crate::base::sync::lock;

/// A MuranoPL object: an id, a class, an owner and a property store.
pub(crate) struct Obj {
    pub(crate) id: String,
    pub(crate) class: ClassId,
    pub(crate) class_name: String,
    pub(crate) owner: Mutex<Option<String>>,
    pub(crate) props: Mutex<IndexMap<String, Value>>,
    /// Undeclared properties, by the class part that wrote them.
    pub(crate) private: Mutex<IndexMap<(usize, String), Value>>,
    pub(crate) destroyed: AtomicBool,
    pub(crate) initialized: AtomicBool,
    /// When the object began its initialisation (1, 2, …; 0 before):
    /// where Murano constructs its `MuranoObject` (a model's object when
    /// a `class()` contract reaches its definition, others at `new()`),
    /// so the order garbage is destroyed in (README §3.9 of the lifecycle
    /// oracle: creation order, not this engine's load order).
    pub(crate) birth: AtomicU64,
    /// Destruction subscriptions (`GC.subscribeDestruction`).
    pub(crate) dependencies: Mutex<Vec<crate::gc::Dependency>>,
    pub(crate) name: Value,
    pub(crate) metadata: Value,
    pub(crate) core: Weak<Core>,
}

impl fmt::Debug for Obj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{} {}>", self.class_name, self.id)
    }
}

impl Obj {
    /// Whether the object was destroyed.
    pub(crate) fn is_destroyed(&self) -> bool {
        self.destroyed.load(Ordering::Relaxed)
    }

    pub(crate) fn owner_id(&self) -> Option<String> {
        lock(&self.owner).clone()
    }
}

impl HostObject for Obj {
    fn type_name(&self) -> &str {
        &self.class_name
    }

    fn property(&self, name: &str) -> Result<Option<Value>, YaqlError> {
        let Some(core) = self.core.upgrade() else {
            return Ok(None);
        };
        core.read_property_as(self, self.class, name)
            .map(Some)
            .map_err(YaqlError::host)
    }

    fn host_eq(&self, other: &dyn HostObject) -> bool {
        std::ptr::eq(
            self as *const Self as *const u8,
            other as *const dyn HostObject as *const u8,
        )
    }
}

/// A class as a value (`$type` in the conformance encoding) or a type
/// reference (`:Name`, the result of `type()`).
pub(crate) struct TypeObj {
    pub(crate) class: ClassId,
    pub(crate) name: String,
    pub(crate) reference: bool,
    pub(crate) core: Weak<Core>,
}

impl fmt::Debug for TypeObj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<type {}>", self.name)
    }
}

impl HostObject for TypeObj {
    fn type_name(&self) -> &str {
        &self.name
    }

    fn property(&self, name: &str) -> Result<Option<Value>, YaqlError> {
        let Some(core) = self.core.upgrade() else {
            return Ok(None);
        };
        if !self.reference {
            // Making the meta objects can fail: the read fails with that
            // error, not as a missing static property.
            if let Some(v) = (core.builtins.type_property)(
                &crate::runtime::handle::RuntimeHandle::new(core.clone()),
                self.class,
                name,
            )
            .map_err(YaqlError::host)?
            {
                return Ok(Some(v));
            }
        }
        core.read_static_property(self.class, name)
            .map(Some)
            .map_err(YaqlError::host)
    }

    /// Types are singletons: two values of one class (and kind) are equal.
    fn host_eq(&self, other: &dyn HostObject) -> bool {
        let Some(core) = self.core.upgrade() else {
            return false;
        };
        let addr = other as *const dyn HostObject as *const u8 as usize;
        core.type_at(addr)
            .is_some_and(|t| t.class == self.class && t.reference == self.reference)
    }

    fn host_hash(&self) -> u64 {
        (self.class.index() as u64) << 1 | u64::from(self.reference)
    }
}

/// The address that identifies a host object inside a [`Value`].
pub(crate) fn addr_of(v: &Value) -> Option<usize> {
    match v {
        Value::Object(o) => Some(Arc::as_ptr(o) as *const u8 as usize),
        _ => None,
    }
}

/// What the host sees of an object (see [`crate::Engine::object_view`]).
#[derive(Debug, Clone)]
pub struct ObjectView {
    /// The object id.
    pub id: String,
    /// The full class name.
    pub class: String,
    /// The property store, sorted by name (static properties excluded).
    pub props: Vec<(String, Value)>,
    /// Whether the object was destroyed.
    pub destroyed: bool,
    /// The object's `name` from its model header, when not null.
    pub name: Option<Value>,
}

/// An object seen as one of its classes (`cast()`, `super()`): Murano's
/// part of the object for that class. Calls on it resolve methods from
/// that class; property reads and writes through it see what that class
/// sees (see `Core::read_property_as`); `type()`, `typeinfo()` and `is`
/// answer that class. The property store is the object's.
pub(crate) struct CastObj {
    pub(crate) obj: Arc<Obj>,
    pub(crate) class: ClassId,
}

impl fmt::Debug for CastObj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{:?} as class {}>", self.obj, self.class.index())
    }
}

impl HostObject for CastObj {
    fn type_name(&self) -> &str {
        &self.obj.class_name
    }

    fn property(&self, name: &str) -> Result<Option<Value>, YaqlError> {
        let Some(core) = self.obj.core.upgrade() else {
            return Ok(None);
        };
        core.read_property_as(&self.obj, self.class, name)
            .map(Some)
            .map_err(YaqlError::host)
    }
}
