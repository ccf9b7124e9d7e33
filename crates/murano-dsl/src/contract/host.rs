//! The host side of contracts: objects, classes and ownership, which live
//! in the host's object store, and a small in-memory store for tests.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use murano_yaql::eval::{Dict, HostObject, Value};

use super::error::{ContractError, ContractErrorKind};

/// What a host knows about one of its objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectInfo {
    /// The object id.
    pub id: String,
    /// The full name of the object's class.
    pub class: String,
}

/// What `class()`, `template()`, `owned()`, `notOwned()` and `string()`
/// ask of the object store. Objects are [`Value::Object`]s the host made.
/// Only the first four methods are required.
///
/// ```
/// use murano_dsl::contract::{ContractError, ObjectHost, ObjectInfo};
/// use murano_yaql::eval::Value;
///
/// /// A store without objects whose only class is `io.murano.Object`.
/// struct NoObjects;
///
/// impl ObjectHost for NoObjects {
///     fn object_info(&self, _: &Value) -> Option<ObjectInfo> { None }
///     fn find_object(&self, _: &str) -> Option<Value> { None }
///     fn resolve_class(&self, name: &str) -> Result<String, ContractError> {
///         Ok(name.to_owned())
///     }
///     fn is_subclass(&self, class: &str, ancestor: &str) -> bool { class == ancestor }
/// }
/// assert!(!NoObjects.is_instance_of(&Value::Null, "io.murano.Object", None));
/// ```
pub trait ObjectHost: Send + Sync {
    /// The id and class of `value` when it is one of the host's objects.
    fn object_info(&self, value: &Value) -> Option<ObjectInfo>;

    /// The object with this id (`object_store.get`).
    fn find_object(&self, id: &str) -> Option<Value>;

    /// The full name of the class a contract names (`Foo`, `ns:Foo`,
    /// `io.murano.Object`), resolved in the contract's names scope;
    /// `NoClassFound` when there is no such class.
    fn resolve_class(&self, name: &str) -> Result<String, ContractError>;

    /// Whether class `class` is `ancestor` or inherits from it.
    fn is_subclass(&self, class: &str, ancestor: &str) -> bool;

    /// Whether `value` is an object of class `class` (or a subclass), with
    /// the class version allowed by `version` when given.
    fn is_instance_of(&self, value: &Value, class: &str, version: Option<&str>) -> bool {
        let _ = version;
        self.object_info(value)
            .is_some_and(|info| self.is_subclass(&info.class, class))
    }

    /// Builds an object from its model (a dictionary with a `?` section),
    /// as `object_store.load` does; `dry_run` for templates (nothing is
    /// kept). The default refuses.
    fn load_object(
        &self,
        model: &Value,
        owner: Option<&Value>,
        default_class: &str,
        dry_run: bool,
    ) -> Result<Value, ContractError> {
        let _ = (model, owner, dry_run);
        Err(ContractError::violation(format!(
            "cannot create objects of class {default_class} here"
        )))
    }

    /// The owner of an object, if it has one.
    fn owner_of(&self, object: &Value) -> Option<Value> {
        let _ = object;
        None
    }

    /// Whether `owner` owns `object`, directly or through its owners.
    fn is_owned_by(&self, object: &Value, owner: &Value) -> bool {
        let mut current = self.owner_of(object);
        let mut steps = 0;
        while let Some(o) = current {
            if &o == owner {
                return true;
            }
            steps += 1;
            if steps > 10_000 {
                return false;
            }
            current = self.owner_of(&o);
        }
        false
    }

    /// The object model of an object (what `template()` returns).
    fn serialize(&self, object: &Value) -> Option<Value> {
        let _ = object;
        None
    }
}

/// An object of a [`MemoryHost`].
#[derive(Debug)]
pub struct MemoryObject {
    /// Its id.
    pub id: String,
    /// Its class (full name).
    pub class: String,
    /// Its properties.
    pub properties: Dict,
}

impl HostObject for MemoryObject {
    fn type_name(&self) -> &str {
        &self.class
    }
    fn property(&self, name: &str) -> Result<Option<Value>, murano_yaql::eval::Error> {
        Ok(self.properties.get(&Value::str(name)).cloned())
    }
}

#[derive(Debug, Default)]
struct Objects {
    items: Vec<(Arc<MemoryObject>, Option<String>)>,
}

/// A simple in-memory [`ObjectHost`]: classes with their parents, short
/// names, objects with owners.
///
/// ```
/// use std::sync::Arc;
/// use murano_dsl::contract::{Contract, MemoryHost, Runtime, Scope};
/// use murano_yaql::eval::Value;
///
/// let mut host = MemoryHost::new();
/// host.add_class("io.murano.Object", &[]);
/// host.add_class("com.example.Server", &["io.murano.Object"]);
/// host.add_alias("Server", "com.example.Server");
/// let server = host.add_object("s1", "com.example.Server", None);
/// let scope = Scope::new(Arc::new(Runtime::new(1, 4)), Arc::new(host));
///
/// let contract = Contract::parse_yaml("$.class(Server).notNull()")?;
/// let out = contract.transform(&scope, Some(&Value::str("s1")), None)?;
/// assert_eq!(out.value, server);
/// let err = contract.transform(&scope, Some(&Value::str("nope")), None).unwrap_err();
/// assert_eq!(err.python_type(), "NoObjectFoundError");
/// # Ok::<(), murano_dsl::contract::ContractError>(())
/// ```
#[derive(Debug, Default)]
pub struct MemoryHost {
    parents: HashMap<String, Vec<String>>,
    aliases: HashMap<String, String>,
    objects: Mutex<Objects>,
}

impl MemoryHost {
    /// An empty host.
    pub fn new() -> MemoryHost {
        MemoryHost::default()
    }

    /// Declares a class and its direct parents.
    pub fn add_class(&mut self, name: &str, parents: &[&str]) {
        self.parents.insert(
            name.to_owned(),
            parents.iter().map(|p| (*p).to_owned()).collect(),
        );
    }

    /// Makes `alias` (a short name or `ns:Name`) name the class `full`.
    pub fn add_alias(&mut self, alias: &str, full: &str) {
        self.aliases.insert(alias.to_owned(), full.to_owned());
    }

    /// Adds an object, owned by the object with id `owner` if given, and
    /// returns it.
    pub fn add_object(&self, id: &str, class: &str, owner: Option<&str>) -> Value {
        self.add_object_with(id, class, owner, Dict::default())
    }

    /// Adds an object with properties.
    pub fn add_object_with(
        &self,
        id: &str,
        class: &str,
        owner: Option<&str>,
        properties: Dict,
    ) -> Value {
        let object = Arc::new(MemoryObject {
            id: id.to_owned(),
            class: class.to_owned(),
            properties,
        });
        self.lock()
            .items
            .push((object.clone(), owner.map(str::to_owned)));
        Value::Object(object)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Objects> {
        match self.objects.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    fn entry(&self, value: &Value) -> Option<(Arc<MemoryObject>, Option<String>)> {
        let Value::Object(o) = value else {
            return None;
        };
        let target = Arc::as_ptr(o) as *const u8;
        self.lock()
            .items
            .iter()
            .find(|(m, _)| Arc::as_ptr(m) as *const u8 == target)
            .cloned()
    }
}

impl ObjectHost for MemoryHost {
    fn object_info(&self, value: &Value) -> Option<ObjectInfo> {
        self.entry(value).map(|(o, _)| ObjectInfo {
            id: o.id.clone(),
            class: o.class.clone(),
        })
    }

    fn find_object(&self, id: &str) -> Option<Value> {
        self.lock()
            .items
            .iter()
            .rev()
            .find(|(o, _)| o.id == id)
            .map(|(o, _)| Value::Object(o.clone()))
    }

    fn resolve_class(&self, name: &str) -> Result<String, ContractError> {
        if self.parents.contains_key(name) {
            return Ok(name.to_owned());
        }
        self.aliases.get(name).cloned().ok_or_else(|| {
            ContractError::new(
                ContractErrorKind::NoClassFound,
                format!("Class \"{name}\" is not found"),
            )
        })
    }

    fn is_subclass(&self, class: &str, ancestor: &str) -> bool {
        let mut stack = vec![class.to_owned()];
        let mut seen = std::collections::HashSet::new();
        while let Some(c) = stack.pop() {
            if c == ancestor {
                return true;
            }
            if seen.insert(c.clone()) {
                if let Some(ps) = self.parents.get(&c) {
                    stack.extend(ps.iter().cloned());
                }
            }
        }
        false
    }

    fn load_object(
        &self,
        model: &Value,
        owner: Option<&Value>,
        default_class: &str,
        dry_run: bool,
    ) -> Result<Value, ContractError> {
        let Value::Dict(d) = model else {
            return Err(ContractError::violation(
                "an object model must be a dictionary",
            ));
        };
        let system = d.get(&Value::str("?"));
        let field = |name: &str| match system {
            Some(Value::Dict(s)) => s
                .get(&Value::str(name))
                .and_then(|v| v.as_str().map(str::to_owned)),
            _ => None,
        };
        let class = match field("type") {
            Some(t) => self.resolve_class(&t)?,
            None => default_class.to_owned(),
        };
        let id = field("id").unwrap_or_else(|| format!("{:032x}", self.lock().items.len() + 1));
        let properties: Dict = d
            .iter()
            .filter(|(k, _)| k.as_str() != Some("?"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let owner_id = owner.and_then(|o| self.object_info(o)).map(|i| i.id);
        let object = Arc::new(MemoryObject {
            id,
            class,
            properties,
        });
        // Dry-run objects (templates) are kept too, so that they can be
        // serialised; nothing else refers to them.
        let _ = dry_run;
        self.lock().items.push((object.clone(), owner_id));
        Ok(Value::Object(object))
    }

    fn owner_of(&self, object: &Value) -> Option<Value> {
        let (_, owner) = self.entry(object)?;
        self.find_object(&owner?)
    }

    fn serialize(&self, object: &Value) -> Option<Value> {
        let (o, _) = self.entry(object)?;
        let mut system = Dict::default();
        system.insert(Value::str("id"), Value::str(&o.id));
        system.insert(Value::str("type"), Value::str(&o.class));
        let mut out = Dict::default();
        out.insert(Value::str("?"), Value::Dict(Arc::new(system)));
        for (k, v) in o.properties.iter() {
            out.insert(k.clone(), v.clone());
        }
        Some(Value::Dict(Arc::new(out)))
    }
}
