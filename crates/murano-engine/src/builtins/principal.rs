//! The native methods of Murano's principal classes
//! (`murano/dsl/principal_objects`): Murano registers Python classes into
//! the package `io.murano`, whose public methods become methods of the
//! MuranoPL classes of the same name (listed by `typeinfo()`, resolved
//! and overridden like any method):
//!
//! * `io.murano.Object` (`SysObject`): `setAttr(name, value, owner)` and
//!   `getAttr(name, default, owner)`, the attribute store keyed by object,
//!   owner class (by default the calling method's class) and name;
//! * `io.murano.Exception` (`DslException`): `toString()`, which in Murano
//!   always fails (`AttributeError`: the Python method reads a property of
//!   its own Python instance instead of the object's).
//!
//! [`crate::ClassSetBuilder::add_system_classes`] marks a package as the
//! system package; the classes of these names added to it get the
//! declarations below (replacing MuranoPL methods of the same names), and
//! the engine runs the bodies here.

use murano_dsl::model::ClassDefinition;
use murano_yaql::eval::Value;

use crate::error::{EngineError, ErrorKind};
use crate::Engine;

/// The declarations of the native methods, by class (Murano's defaults
/// for imported methods: `Usage: Runtime`, `Scope: Session`).
const DECLARATIONS: &[(&str, &str)] = &[
    (
        "io.murano.Object",
        "Name: X
Methods:
  setAttr:
    Arguments:
      - name: {Contract: $}
      - value: {Contract: $}
      - owner: {Contract: $, Default: null}
  getAttr:
    Arguments:
      - name: {Contract: $}
      - default: {Contract: $, Default: null}
      - owner: {Contract: $, Default: null}
",
    ),
    (
        "io.murano.Exception",
        "Name: X
Methods:
  toString:
",
    ),
];

/// Adds the native methods of `def`'s class (when it is one of the
/// principal classes) to its definition, replacing methods of the same
/// names; returns their names.
pub(crate) fn merge_into(def: &mut ClassDefinition) -> Result<Vec<String>, EngineError> {
    let Some(name) = def.full_name.as_deref() else {
        return Ok(Vec::new());
    };
    let Some((_, yaml)) = DECLARATIONS.iter().find(|(class, _)| *class == name) else {
        return Ok(Vec::new());
    };
    let mut added = Vec::new();
    for extra in crate::ClassSetBuilder::parse_file(yaml.as_bytes(), "principal")? {
        for m in extra.methods {
            def.methods.retain(|x| x.name != m.name);
            added.push(m.name.clone());
            def.methods.push(m);
        }
    }
    Ok(added)
}

/// The body of every principal native: [`call`] with the object it runs
/// on and the class of the method that called it.
pub(crate) fn native(call: &crate::NativeCall<'_>) -> Result<Value, EngineError> {
    let engine = call.engine;
    let this = call.receiver.and_then(|r| engine.object_id(r));
    self::call(
        engine,
        call.class,
        call.method,
        this.as_deref(),
        engine.frame_class(1),
        call.args,
    )
}

/// Runs a native method of a principal class on `this` (arguments by
/// name, after their contracts); `caller` is the class of the method that
/// called it.
pub(crate) fn call(
    engine: &Engine,
    class: &str,
    method: &str,
    this: Option<&str>,
    caller: Option<murano_dsl::registry::ClassId>,
    args: &[(String, Value)],
) -> Result<Value, EngineError> {
    let arg = |n: &str| {
        args.iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let this = this.ok_or_else(|| {
        EngineError::dsl(
            "DslInvalidOperationError",
            format!("Method \"{method}\" is not static"),
        )
    })?;
    match (class, method) {
        ("io.murano.Object", "setAttr") => {
            let owner = attribute_owner(engine, method, &arg("owner"), caller)?;
            let value = arg("value");
            // An object is stored by its id.
            let value = match engine.object_id(&value) {
                Some(id) => Value::str(&id),
                None => value,
            };
            engine.add_attribute(this, &owner, &attribute_name(&arg("name")), value);
            Ok(Value::Null)
        }
        ("io.murano.Object", "getAttr") => {
            let owner = attribute_owner(engine, method, &arg("owner"), caller)?;
            let found = engine.attribute(this, &owner, &attribute_name(&arg("name")));
            // `default if result is None else result`.
            Ok(match found {
                Some(v) if !v.is_null() => v,
                _ => arg("default"),
            })
        }
        // Murano's `DslException.to_string` reads a property of its own
        // Python instance, which has none: it always fails.
        ("io.murano.Exception", "toString") => Err(EngineError::new(
            ErrorKind::Host {
                type_name: "AttributeError".into(),
                module: "builtins".into(),
            },
            "'DslException' object has no attribute 'get_property'",
        )),
        _ => Err(EngineError::dsl(
            "NoMethodFound",
            format!("Method \"{method}\" is not found"),
        )),
    }
}

/// The attribute key: Murano keys the store by the name as given (a
/// string in practice).
fn attribute_name(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        other => other.py_str(),
    }
}

/// The owner class of an attribute (`MuranoTypeParameter(nullable=True)`):
/// a class, a type reference or a class name (resolved from the calling
/// class), by default the calling method's class.
fn attribute_owner(
    engine: &Engine,
    method: &str,
    owner: &Value,
    caller: Option<murano_dsl::registry::ClassId>,
) -> Result<String, EngineError> {
    if owner.is_null() {
        return caller
            .map(|c| engine.classes().name(c).to_owned())
            .ok_or_else(|| {
                EngineError::dsl(
                    "DslInvalidOperationError",
                    "an attribute needs an owner class",
                )
            });
    }
    if let Some(class) = engine.type_class(owner) {
        return Ok(engine.classes().name(class).to_owned());
    }
    if let Value::Str(s) = owner {
        let c = engine.classes().resolve(caller, s)?;
        return Ok(engine.classes().name(c).to_owned());
    }
    Err(EngineError::new(
        ErrorKind::Yaql(murano_yaql::eval::ErrorKind::NoMatchingMethod),
        format!("No method \"{method}\" matches supplied arguments"),
    ))
}
