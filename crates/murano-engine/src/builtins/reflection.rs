//! Reflection (`murano/dsl/reflection.py`): what `typeinfo()` returns and
//! the method, property, argument and package objects reachable from it.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use murano_dsl::model::ClassUsage;
use murano_dsl::registry::{ClassId, MetaInstance, PackageId};
use murano_dsl::yaml::Node;
use murano_yaql::eval::{Error as YaqlError, FunctionDef, HostObject, Library, Value};

use crate::error::EngineError;
use crate::object::addr_of;
use crate::runtime::handle::{RuntimeHandle, WeakRuntimeHandle};

/// A reflection object.
pub(crate) enum Refl {
    /// A method: declaring class and index among its methods.
    Method(ClassId, usize),
    /// A property: declaring class and index among its properties.
    Property(ClassId, usize),
    /// An argument: declaring class, method index, argument index.
    Argument(ClassId, usize, usize),
    /// A package.
    Package(PackageId),
    /// A version (`str()` of it is its text).
    Version(String, [u64; 3]),
}

pub(crate) struct ReflObj {
    pub(crate) what: Refl,
    label: String,
    core: WeakRuntimeHandle,
}

impl fmt::Debug for ReflObj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

impl HostObject for ReflObj {
    fn type_name(&self) -> &str {
        &self.label
    }

    fn property(&self, name: &str) -> Result<Option<Value>, YaqlError> {
        let Some(core) = self.core.upgrade() else {
            return Ok(None);
        };
        let mut failed = None;
        let v = refl_property(&core, &self.what, name, &mut failed);
        match failed {
            Some(e) => Err(YaqlError::host(e)),
            None => Ok(v),
        }
    }

    /// `str()` of a version is its text (semantic_version's `__str__`).
    fn py_str(&self) -> Option<String> {
        match &self.what {
            Refl::Version(text, _) => Some(text.clone()),
            _ => None,
        }
    }
}

/// Makes a reflection value.
pub(crate) fn value(core: &RuntimeHandle, what: Refl) -> Value {
    let label = match &what {
        Refl::Version(text, _) => text.clone(),
        Refl::Method(..) => "MuranoMethod".into(),
        Refl::Property(..) => "MuranoProperty".into(),
        Refl::Argument(..) => "MuranoMethodArgument".into(),
        Refl::Package(..) => "MuranoPackage".into(),
    };
    let r = Arc::new(ReflObj {
        what,
        label,
        core: core.downgrade(),
    });
    let v: Value = Value::Object(r.clone());
    if let Some(a) = addr_of(&v) {
        core.remember_refl(a, r);
    }
    v
}

fn refl_of(core: &RuntimeHandle, v: &Value) -> Option<Arc<ReflObj>> {
    let a = addr_of(v)?;
    core.refl_at(a)
}

fn tuple(items: Vec<Value>) -> Value {
    Value::tuple(items)
}

/// The reflection properties of a class (`typeinfo()`): `Ok(None)` for
/// a name it does not have, the error of a meta object that could not be
/// made.
pub(crate) fn type_property(
    core: &RuntimeHandle,
    class: ClassId,
    name: &str,
) -> Result<Option<Value>, EngineError> {
    let mut failed = None;
    let v = class_property(core, class, name, &mut failed);
    match failed {
        Some(e) => Err(e),
        None => Ok(v),
    }
}

/// [`type_property`], the error of a meta object left in `failed`.
fn class_property(
    core: &RuntimeHandle,
    class: ClassId,
    name: &str,
    failed: &mut Option<EngineError>,
) -> Option<Value> {
    let classes = &core.classes();
    let registry = classes.registry();
    Some(match name {
        "name" => Value::str(classes.name(class)),
        "usage" => Value::str(match classes.definition(class)?.usage {
            ClassUsage::Meta => "Meta",
            _ => "Class",
        }),
        "type" => core.type_value(class, true),
        "ancestors" => tuple(
            registry
                .ancestors(class)
                .ok()?
                .into_iter()
                .map(|c| core.type_value(c, false))
                .collect(),
        ),
        "methods" => {
            let mut out = Vec::new();
            for n in registry.all_method_names(class).ok()? {
                if n.starts_with("__") || n.starts_with('.') {
                    continue;
                }
                for m in registry.find_method(class, n).ok()? {
                    out.push(value(core, Refl::Method(m.class, m.index)));
                }
            }
            tuple(out)
        }
        "properties" => {
            let mut out = Vec::new();
            let mut seen = HashSet::new();
            for n in registry.all_property_names(class).ok()? {
                if n.starts_with("__") || n.starts_with('.') || !seen.insert(n.to_owned()) {
                    continue;
                }
                for p in registry.find_property(class, n).ok()? {
                    out.push(value(core, Refl::Property(p.class, p.index)));
                }
            }
            tuple(out)
        }
        "package" => value(core, Refl::Package(registry.package_of(class)?)),
        "meta" => {
            let list: Vec<(ClassId, ClassId, Option<Node>)> = registry
                .class_meta(class)
                .ok()?
                .into_iter()
                .map(|m| {
                    (
                        m.attachment.meta_class,
                        m.declared_by,
                        m.attachment.properties.clone(),
                    )
                })
                .collect();
            meta_objects(core, list, failed)?
        }
        "inherited" => Value::Bool(
            classes
                .registry()
                .meta_class_info(class)
                .is_some_and(|m| m.inherited),
        ),
        "cardinality" => Value::str(
            classes
                .registry()
                .meta_class_info(class)
                .map_or("One", |m| m.cardinality.as_str()),
        ),
        "version" => {
            let v = registry.class_version(class)?;
            let text = v.to_string();
            let parts: Vec<u64> = text
                .split(['.', '-', '+'])
                .take(3)
                .map(|p| p.parse().unwrap_or(0))
                .collect();
            let get = |i: usize| parts.get(i).copied().unwrap_or(0);
            value(core, Refl::Version(text, [get(0), get(1), get(2)]))
        }
        _ => return None,
    })
}

fn collect(list: Vec<MetaInstance<'_>>) -> Vec<(ClassId, ClassId, Option<Node>)> {
    list.into_iter()
        .map(|m| {
            (
                m.attachment.meta_class,
                m.declared_by,
                m.attachment.properties.clone(),
            )
        })
        .collect()
}

/// Meta objects: one object of each meta class, its properties from the
/// attachment (evaluated in the declaring class) through their contracts.
/// `None` with the error in `failed` when one fails (so that the property
/// read fails with it: a limit must not read as null).
fn meta_objects(
    core: &RuntimeHandle,
    list: Vec<(ClassId, ClassId, Option<Node>)>,
    failed: &mut Option<EngineError>,
) -> Option<Value> {
    let mut out = Vec::new();
    for (meta_class, declared_by, props) in list {
        let ctx = core.method_context(declared_by, None);
        let props = match props {
            Some(node) => match core.eval_node(&node, &ctx) {
                Ok(v) => v,
                Err(e) => {
                    *failed = Some(e);
                    return None;
                }
            },
            None => Value::Null,
        };
        let props = match props {
            Value::Dict(_) => props,
            _ => Value::Dict(Arc::new(murano_yaql::eval::Dict::default())),
        };
        let made = core
            .create_object(meta_class, None, None, Value::Null, Value::Null)
            .and_then(|o| core.initialize(&o, &props).map(|()| o));
        match made {
            Ok(o) => out.push(Value::Object(o)),
            Err(e) => {
                *failed = Some(e);
                return None;
            }
        }
    }
    Some(tuple(out))
}

/// A reflection object's property, the error of a meta object left in
/// `failed`.
fn refl_property(
    core: &RuntimeHandle,
    what: &Refl,
    name: &str,
    failed: &mut Option<EngineError>,
) -> Option<Value> {
    let classes = &core.classes();
    Some(match what {
        Refl::Method(class, index) => {
            let m = classes.definition(*class)?.methods.get(*index)?;
            match name {
                "name" => Value::str(&m.name),
                "declaringType" => core.type_value(*class, false),
                "arguments" => tuple(
                    (0..m.arguments.len())
                        .map(|i| value(core, Refl::Argument(*class, *index, i)))
                        .collect(),
                ),
                "usage" => Value::str(m.usage.as_str()),
                "meta" => {
                    let list = collect(classes.registry().method_meta(*class, &m.name).ok()?);
                    meta_objects(core, list, failed)?
                }
                _ => return None,
            }
        }
        Refl::Property(class, index) => {
            let p = classes.definition(*class)?.properties.get(*index)?;
            match name {
                "name" => Value::str(&p.name),
                "hasDefault" => Value::Bool(p.default.is_some()),
                "usage" => Value::str(p.usage.as_str()),
                "declaringType" => core.type_value(*class, false),
                "meta" => {
                    let list = collect(classes.registry().property_meta(*class, &p.name).ok()?);
                    meta_objects(core, list, failed)?
                }
                _ => return None,
            }
        }
        Refl::Argument(class, m, i) => {
            let method = classes.definition(*class)?.methods.get(*m)?;
            let a = method.arguments.get(*i)?;
            match name {
                "name" => Value::str(&a.name),
                "hasDefault" => Value::Bool(a.default.is_some()),
                "usage" => Value::str(a.usage.as_str()),
                "declaringMethod" => value(core, Refl::Method(*class, *m)),
                "meta" => {
                    let list = collect(
                        classes
                            .registry()
                            .argument_meta(*class, &method.name, &a.name)
                            .ok()?,
                    );
                    meta_objects(core, list, failed)?
                }
                _ => return None,
            }
        }
        Refl::Package(p) => {
            let info = classes.registry().package(*p)?;
            match name {
                "name" => Value::str(&info.name),
                "version" => Value::str(&info.version.to_string()),
                "meta" => {
                    let list = classes
                        .registry()
                        .package_meta(*p)
                        .iter()
                        .map(|a| (a.meta_class, a.meta_class, a.properties.clone()))
                        .collect();
                    meta_objects(core, list, failed)?
                }
                _ => return None,
            }
        }
        Refl::Version(_, [major, minor, patch]) => {
            let n = match name {
                "major" => major,
                "minor" => minor,
                "patch" => patch,
                _ => return None,
            };
            Value::Int(i64::try_from(*n).unwrap_or(i64::MAX))
        }
    })
}

/// Registers `getValue`, `setValue`, `invoke` and `str()` of versions.
pub(crate) fn register(lib: &mut Library) {
    lib.register(
        FunctionDef::native("getValue", "property, object", move |call| {
            let core = RuntimeHandle::of(call)?;
            let Some(r) = refl_of(&core, call.value(0)?) else {
                return Err(YaqlError::mismatch());
            };
            let Refl::Property(class, index) = r.what else {
                return Err(YaqlError::mismatch());
            };
            let name = property_name(&core, class, index)?;
            let target = call.value(1)?.clone();
            let r = match core.obj_of(&target) {
                Some(o) => core.read_property(&o, &name),
                None if target.is_null() => core.read_static_property(class, &name),
                None => return Err(YaqlError::mismatch()),
            };
            r.map_err(|e| core.park(e))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("setValue", "property, object, value", move |call| {
            let core = RuntimeHandle::of(call)?;
            let Some(r) = refl_of(&core, call.value(0)?) else {
                return Err(YaqlError::mismatch());
            };
            let Refl::Property(class, index) = r.what else {
                return Err(YaqlError::mismatch());
            };
            let name = property_name(&core, class, index)?;
            let target = call.value(1)?.clone();
            let value = call.value(2)?.clone();
            let is_static = core
                .classes()
                .definition(class)
                .and_then(|d| d.properties.get(index))
                .is_some_and(|p| p.usage == murano_dsl::model::PropertyUsage::Static);
            let r = match core.obj_of(&target) {
                Some(_) | None if is_static || target.is_null() => {
                    core.write_static_property(class, &name, value)
                }
                Some(o) => core.write_property(&o, &name, value),
                None => return Err(YaqlError::mismatch()),
            };
            r.map(|()| Value::Null).map_err(|e| core.park(e))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("invoke", "method, object, *args, **kwargs", move |call| {
            let core = RuntimeHandle::of(call)?;
            let Some(r) = refl_of(&core, call.value(0)?) else {
                return Err(YaqlError::mismatch());
            };
            let Refl::Method(class, index) = r.what else {
                return Err(YaqlError::mismatch());
            };
            let target = call.value(1)?.clone();
            let mut args = Vec::new();
            for i in 2..call.len() {
                args.push(call.value(i)?.clone());
            }
            let mut kwargs = Vec::new();
            for (k, a) in call.kwargs() {
                kwargs.push((k.trim_start_matches('$').to_owned(), call.force(a)?));
            }
            let obj = core.obj_of(&target);
            core.run_method(obj.as_ref(), class, index, args, kwargs)
                .map_err(|e| core.park(e))
        })
        .method(),
    );
}

fn property_name(core: &RuntimeHandle, class: ClassId, index: usize) -> Result<String, YaqlError> {
    core.classes()
        .definition(class)
        .and_then(|d| d.properties.get(index))
        .map(|p| p.name.clone())
        .ok_or_else(YaqlError::mismatch)
}
