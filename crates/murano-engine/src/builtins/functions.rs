//! The engine's YAQL functions (Murano's `murano/dsl/yaql_functions.py`
//! and `murano/engine/system/yaql_functions.py`) and the dispatch of
//! MuranoPL method calls from YAQL (`$obj.method(...)`, `method(...)`).

use std::collections::BTreeSet;
use std::sync::Arc;

use murano_yaql::eval::{Call, Dict, Error as YaqlError, FunctionDef, Library, Value};

use crate::error::{EngineError, ErrorKind};
use crate::runtime::handle::RuntimeHandle;

/// Functions of Murano's library that this engine does not run yet: they
/// are registered, and calling one is a typed "not supported yet" error
/// rather than a YAQL "no such function".
/// Murano's `parallel_select` pool size, which `pselect` uses.
const PSELECT_LIMIT: usize = 1000;

fn args_from(call: &Call<'_>, start: usize) -> Result<Vec<Value>, YaqlError> {
    let mut out = Vec::new();
    for i in start..call.len() {
        out.push(call.value(i)?.clone());
    }
    Ok(out)
}

fn kwargs_from(call: &Call<'_>) -> Result<Vec<(String, Value)>, YaqlError> {
    let mut out = Vec::new();
    for (k, a) in call.kwargs() {
        out.push((k.trim_start_matches('$').to_owned(), call.force(a)?));
    }
    Ok(out)
}

/// The class a `type` argument names: a type object, or a class name
/// resolved from the running method's class.
fn class_of_type_arg(
    core: &RuntimeHandle,
    target: &Value,
) -> Result<murano_dsl::registry::ClassId, YaqlError> {
    if let Some(t) = core.type_of_value(target) {
        return Ok(t.class);
    }
    match target {
        Value::Str(s) => {
            let from = core.current_frame().map(|f| f.class);
            core.classes().resolve(from, s).map_err(|e| core.park(e))
        }
        _ => Err(YaqlError::mismatch()),
    }
}

/// Registers the engine functions for package format `version`:
/// Murano's own (`murano_dsl::functions`, gated by format as Murano
/// gates them), then those that need the engine.
pub(crate) fn register(lib: &mut Library, version: (u32, u32)) {
    murano_dsl::functions::register(lib, version, Arc::new(EngineServices));
    // config(group, setting, readAsFile = false) and config(setting):
    // Murano's configuration, which only io.murano's classes see.
    lib.register(FunctionDef::native(
        "config",
        "group, setting, read_as_file=",
        move |call| {
            let core = RuntimeHandle::of(call)?;
            core.config_visible()?;
            let group = call.string(0)?;
            let setting = call.string(1)?;
            let read_as_file = call.opt(2)?.is_some_and(Value::truthy);
            let value = core.config_value(Some(group), setting)?;
            if read_as_file {
                // The library reads no files: as Murano with no such file.
                return Err(crate::engine::host_exception(
                    "FileNotFoundError",
                    "builtins",
                    &format!("[Errno 2] No such file or directory: '{}'", value.py_str()),
                ));
            }
            Ok(value)
        },
    ));
    lib.register(FunctionDef::native("config", "setting", move |call| {
        let core = RuntimeHandle::of(call)?;
        core.config_visible()?;
        core.config_value(None, call.string(0)?)
    }));

    // id(object)
    lib.register(
        FunctionDef::native("id", "object", move |call| {
            let core = RuntimeHandle::of(call)?;
            match core.obj_of(call.value(0)?) {
                Some(o) => Ok(Value::str(&o.id)),
                None => Err(YaqlError::mismatch()),
            }
        })
        .extension(),
    );

    // type(object): the class name (format 1.0 to 1.3: `type_legacy`);
    // type(name or class): a type reference.
    lib.register(
        FunctionDef::native("type", "object", move |call| {
            let core = RuntimeHandle::of(call)?;
            let v = call.value(0)?;
            if v.is_null() {
                return Ok(Value::Null);
            }
            // (a `cast()` value: the class of that part)
            if let Some((_, part)) = core.part_of(v) {
                return Ok(Value::str(core.classes().name(part)));
            }
            class_of_type_arg(&core, v).map(|c| core.type_value(c, true))
        })
        .extension(),
    );

    // metadata(object), isObject(value)
    lib.register(
        FunctionDef::native("metadata", "object", move |call| {
            let core = RuntimeHandle::of(call)?;
            match core.obj_of(call.value(0)?) {
                Some(o) => Ok(o.metadata.clone()),
                None => Err(YaqlError::mismatch()),
            }
        })
        .extension(),
    );
    lib.register(FunctionDef::native("isObject", "value", move |call| {
        let core = RuntimeHandle::of(call)?;
        Ok(Value::Bool(core.obj_of(call.value(0)?).is_some()))
    }));

    // name(object)
    lib.register(
        FunctionDef::native("name", "object", move |call| {
            let core = RuntimeHandle::of(call)?;
            let v = call.value(0)?;
            if v.is_null() {
                return Ok(Value::Null);
            }
            match core.obj_of(v) {
                Some(o) => Ok(o.name.clone()),
                None => Err(YaqlError::mismatch()),
            }
        })
        .extension(),
    );

    // typeinfo(object) / typeinfo(type): the class itself.
    lib.register(
        FunctionDef::native("typeinfo", "object", move |call| {
            let core = RuntimeHandle::of(call)?;
            let v = call.value(0)?;
            if v.is_null() {
                return Ok(Value::Null);
            }
            if let Some((_, part)) = core.part_of(v) {
                return Ok(core.type_value(part, false));
            }
            class_of_type_arg(&core, v).map(|c| core.type_value(c, false))
        })
        .extension(),
    );

    // `:Name` and `ns:Name`: type references resolved with the namespaces
    // of the running method's class.
    lib.register(FunctionDef::native(
        "#unary_operator_:",
        "name",
        move |call| {
            let core = RuntimeHandle::of(call)?;
            let name = call.string(0)?.to_owned();
            let from = core.current_frame().map(|f| f.class);
            let resolved = if from.is_some() {
                format!(":{name}")
            } else {
                name
            };
            match core.classes().resolve(from, &resolved) {
                Ok(c) => Ok(core.type_value(c, true)),
                Err(e) => Err(core.park(e)),
            }
        },
    ));
    lib.register(FunctionDef::native(
        "#operator_:",
        "ns, name",
        move |call| {
            let core = RuntimeHandle::of(call)?;
            let full = format!("{}:{}", call.string(0)?, call.string(1)?);
            let from = core.current_frame().map(|f| f.class);
            match core.classes().resolve(from, &full) {
                Ok(c) => Ok(core.type_value(c, true)),
                Err(e) => Err(core.park(e)),
            }
        },
    ));

    // call(name, args, kwargs, receiver)
    lib.register(FunctionDef::native(
        "call",
        "name, args, kwargs, receiver=",
        move |call| {
            let core = RuntimeHandle::of(call)?;
            let name = call.string(0)?.to_owned();
            let args: Vec<Value> = match call.value(1)? {
                Value::List(v) | Value::Tuple(v) => v.to_vec(),
                _ => return Err(YaqlError::mismatch()),
            };
            let kwargs: Vec<(String, Value)> = match call.value(2)? {
                Value::Dict(d) => d.iter().map(|(k, v)| (k.py_str(), v.clone())).collect(),
                _ => return Err(YaqlError::mismatch()),
            };
            let receiver = call.opt(3)?.cloned();
            call_method(&core, &name, receiver, args, kwargs).map_err(|e| core.park(e))
        },
    ));

    // yaql 2.0's `format` (string method and function), without the
    // attribute and index lookups of Python's format fields.
    lib.register(
        FunctionDef::native("format", "format, *args, **kwargs", |call| {
            let fmt = call.string(0)?.to_owned();
            let args = args_from(call, 1)?;
            let kwargs = kwargs_from(call)?;
            let limit = call.interp().options().max_string_len;
            crate::format::format(&fmt, &args, &kwargs, limit)
        })
        .extension(),
    );

    // cast(object, type): the object seen as one of its classes, looked
    // up from the part the value is (a part cannot be cast down again).
    lib.register(
        FunctionDef::native("cast", "object, type, versionSpec=", move |call| {
            let core = RuntimeHandle::of(call)?;
            let (obj, part) = core
                .part_of(call.value(0)?)
                .ok_or_else(YaqlError::mismatch)?;
            let target = call.value(1)?.clone();
            let class = class_of_type_arg(&core, &target)?;
            let name = core.classes().name(class).to_owned();
            let found = core
                .classes()
                .mro(part)
                .into_iter()
                .find(|c| core.classes().name(*c) == name);
            match found {
                Some(c) => Ok(core.cast_value(&obj, c)),
                None => Err(core.park(EngineError::dsl(
                    "NoClassFound",
                    format!("Class \"{name}\" is not found in "),
                ))),
            }
        })
        .extension(),
    );

    // super(object, func) / psuper(object, func): the object seen as each
    // parent of the running method's class (psuper runs in order: a
    // valid interleaving of Murano's parallel map).
    for name in ["super", "psuper"] {
        lib.register(
            FunctionDef::native(name, "object, ~func=", move |call| {
                let core = RuntimeHandle::of(call)?;
                let obj = core
                    .obj_of(call.value(0)?)
                    .ok_or_else(YaqlError::mismatch)?;
                let frame = core.current_frame().ok_or_else(YaqlError::mismatch)?;
                let parents: Vec<_> = core.classes().registry().parents(frame.class).to_vec();
                let views: Vec<Value> = parents.iter().map(|p| core.cast_value(&obj, *p)).collect();
                match call.lambda(1)? {
                    None => Ok(Value::List(Arc::new(views))),
                    Some(f) => {
                        let mut out = Vec::new();
                        for v in views {
                            out.push(f.call1(v)?);
                        }
                        Ok(Value::List(Arc::new(out)))
                    }
                }
            })
            .extension(),
        );
    }

    // `obj is :Type`: whether the object is an instance of the class.
    lib.register(FunctionDef::native(
        "#operator_is",
        "object, type",
        move |call| {
            let core = RuntimeHandle::of(call)?;
            let v = call.value(0)?.clone();
            let t = call.value(1)?.clone();
            let class = class_of_type_arg(&core, &t)?;
            if v.is_null() {
                return Ok(Value::Bool(false));
            }
            match core.part_of(&v) {
                Some((_, part)) => Ok(Value::Bool(core.classes().is_subclass(part, class))),
                None => Err(YaqlError::mismatch()),
            }
        },
    ));

    // dump(object, serializationType = Serializable, ignoreUpcasts = true)
    lib.register(FunctionDef::native(
        "dump",
        "object, serializationType=, ignoreUpcasts=",
        move |call| {
            let core = RuntimeHandle::of(call)?;
            let obj = core
                .obj_of(call.value(0)?)
                .ok_or_else(YaqlError::mismatch)?;
            let mode = match call
                .opt(1)?
                .and_then(Value::as_str)
                .unwrap_or("Serializable")
            {
                "Serializable" => crate::serialize::DumpMode::Serializable,
                "Inline" => crate::serialize::DumpMode::Inline,
                "Mixed" => crate::serialize::DumpMode::Mixed,
                _ => {
                    return Err(crate::engine::host_exception(
                        "ValueError",
                        "builtins",
                        "Invalid Serialization Type",
                    ))
                }
            };
            // Unless `ignoreUpcasts` is false, a cast object dumps whole.
            // (a Python `bool` parameter: anything else matches no overload).
            let ignore_upcasts = match call.opt(2)? {
                None => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(YaqlError::mismatch()),
            };
            let part = match core.cast_of(call.value(0)?) {
                Some((_, class)) if !ignore_upcasts => class,
                _ => obj.class,
            };
            Ok(core.dump_part(&obj, part, mode))
        },
    ));

    // logger(name): a new io.murano.system.Logger.
    lib.register(FunctionDef::native("logger", "name", move |call| {
        let core = RuntimeHandle::of(call)?;
        let name = call.value(0)?.py_str();
        let class = core
            .classes()
            .resolve(None, "io.murano.system.Logger")
            .map_err(|e| core.park(e))?;
        let obj = core
            .create_object(class, None, None, Value::Null, Value::Null)
            .and_then(|o| {
                core.initialize(&o, &Value::Dict(Arc::new(Dict::default())))
                    .map(|()| o)
            })
            .map_err(|e| core.park(e))?;
        if let Some(observe) = core.logger_observer() {
            observe(
                "__init__",
                &obj.id,
                &[],
                &[("loggerName".to_owned(), Value::str(&name))],
            );
        }
        core.set_logger_name(&obj.id, name);
        Ok(Value::Object(obj))
    }));

    // sleep(seconds): a thread switch; time is virtual, nothing waits.
    lib.register(FunctionDef::native("sleep", "seconds", move |call| {
        let core = RuntimeHandle::of(call)?;
        let seconds = match call.value(0)? {
            Value::Int(n) => *n as f64,
            Value::Float(f) => *f,
            _ => return Err(YaqlError::mismatch()),
        };
        core.yield_point(crate::sched::delay_of(seconds));
        Ok(Value::Null)
    }));

    // decryptData(value): this engine has no key manager, which Murano
    // reports as castellan's AuthTypeInvalidError.
    lib.register(
        FunctionDef::native("decryptData", "value", |call| {
            call.string(0)?;
            Err(crate::engine::host_exception(
                "AuthTypeInvalidError",
                "castellan.common.exception",
                "Invalid auth_type was specified, auth_type: None",
            ))
        })
        .extension(),
    );

    // patch(object, patch): RFC 6902 JSON patches.
    lib.register(
        FunctionDef::native("patch", "object, patch", |call| {
            crate::patch::apply(call.value(0)?, call.value(1)?)
        })
        .extension(),
    );

    // require(value): the value, or a ValueError when it is null.
    lib.register(
        FunctionDef::native("require", "value", |call| {
            let v = call.value(0)?;
            if v.is_null() {
                return Err(crate::engine::host_exception(
                    "ValueError",
                    "builtins",
                    "Required value is missing",
                ));
            }
            Ok(v.clone())
        })
        .extension(),
    );

    // find(object, type): the nearest owner that is an instance of type.
    lib.register(
        FunctionDef::native("find", "object, type", move |call| {
            let core = RuntimeHandle::of(call)?;
            let obj = core
                .obj_of(call.value(0)?)
                .ok_or_else(YaqlError::mismatch)?;
            let target = call.value(1)?.clone();
            let class = class_of_type_arg(&core, &target)?;
            let mut current = core.owner_of(&obj);
            let mut steps = 0;
            while let Some(o) = current {
                if core.classes().is_subclass(o.class, class) {
                    return Ok(Value::Object(o));
                }
                steps += 1;
                if steps > 100_000 {
                    break;
                }
                current = core.owner_of(&o);
            }
            Ok(Value::Null)
        })
        .extension(),
    );

    // new(type, owner => , name => , ...properties)
    lib.register(FunctionDef::native(
        "new",
        "type, *args, **kwargs",
        move |call| {
            let core = RuntimeHandle::of(call)?;
            new_object(&core, call).map_err(|e| core.park(e))
        },
    ));
}

/// `call(name, args, kwargs, receiver)`: a method of the receiver (an
/// object or a class), or of the running method's object.
fn call_method(
    core: &RuntimeHandle,
    name: &str,
    receiver: Option<Value>,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value, EngineError> {
    match receiver {
        Some(r) if !r.is_null() => {
            if let Some(o) = core.obj_of(&r) {
                return core.invoke(Some(&o), o.class, name, args, kwargs, false);
            }
            if let Some(t) = core.type_of_value(&r) {
                return core.invoke(None, t.class, name, args, kwargs, false);
            }
            Err(EngineError::dsl(
                "DslInvalidOperationError",
                "call(): the receiver is not an object or a class",
            ))
        }
        _ => {
            let frame = core.current_frame().ok_or_else(|| {
                EngineError::dsl("DslInvalidOperationError", "call() outside of a method")
            })?;
            let class = frame.this.as_ref().map_or(frame.class, |o| o.class);
            core.invoke(frame.this.as_ref(), class, name, args, kwargs, false)
        }
    }
}

/// `new()` in its three forms (Murano's `new`, `new_from_dict`,
/// `new_from_model`): `new(type, owner, name, extra, prop => value...)`,
/// `new(type, {properties}, owner, name, extra)` and `new(model, owner)`.
fn new_object(core: &RuntimeHandle, call: &mut Call<'_>) -> Result<Value, EngineError> {
    let from = core.current_frame().map(|f| f.class);
    let args = args_from(call, 0).map_err(|e| core.unpark_yaql(&e))?;
    let kwargs = kwargs_from(call).map_err(|e| core.unpark_yaql(&e))?;
    let target = args.first().cloned().unwrap_or_default();
    let kw = |name: &str| {
        kwargs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    if let Value::Dict(_) = &target {
        // new(model, owner)
        let owner_value = args.get(1).cloned().or_else(|| kw("owner"));
        let owner = owner_value.as_ref().and_then(|o| core.obj_of(o));
        return core.load_object_tree_by(&target, owner.as_ref(), None, false, from);
    }
    let class = if let Some(t) = core.type_of_value(&target) {
        t.class
    } else if let Value::Str(s) = &target {
        core.classes().resolve(from, s)?
    } else {
        return Err(EngineError::new(
            ErrorKind::Yaql(murano_yaql::eval::ErrorKind::NoMatchingFunction),
            "No function \"new\" matches supplied arguments",
        ));
    };
    let (props, owner, name) = match args.get(1) {
        Some(Value::Dict(d)) => {
            // new(type, parameters, owner, objectName, extra)
            let owner = args.get(2).cloned().or_else(|| kw("owner"));
            let name = args.get(3).cloned().or_else(|| kw("objectName"));
            ((**d).clone(), owner, name)
        }
        _ => {
            let mut props = Dict::default();
            for (k, v) in &kwargs {
                props.insert(Value::str(k), v.clone());
            }
            (props, args.get(1).cloned(), args.get(2).cloned())
        }
    };
    let owner = owner.as_ref().and_then(|o| core.obj_of(o));
    let obj = core.create_object(
        class,
        None,
        owner.as_ref().map(|o| o.id.clone()),
        name.unwrap_or_default(),
        Value::Null,
    )?;
    // A load of its own (Murano's `InitializationObjectStore` without
    // `keep_ids`): model ids in the properties name objects of this load,
    // not of the store.
    core.initialize_in_own_load(&obj, &Value::Dict(Arc::new(props)), from)?;
    core.mark_loaded(std::iter::once(&obj));
    Ok(Value::Object(obj))
}

/// Registers one dispatcher per method name declared by any class: a call
/// `$obj.m(...)` on a MuranoPL object, `:Class.m(...)` on a class, or
/// `m(...)` inside a method of a class that has `m`, runs the MuranoPL
/// method; anything else falls through to the YAQL functions of that
/// name.
pub(crate) fn register_method_dispatch(lib: &mut Library, classes: &crate::classes::ClassSet) {
    let registry = classes.registry();
    let mut names = BTreeSet::new();
    for class in registry.classes() {
        if let Some(def) = registry.definition(class) {
            for m in &def.methods {
                if !m.name.starts_with('.') {
                    names.insert(m.name.clone());
                }
            }
        }
    }
    for name in LOGGER_METHODS {
        names.insert((*name).to_owned());
    }
    for name in names {
        let method = name.clone();
        lib.register(
            FunctionDef::native(&name, "*args, **kwargs", move |call| {
                let core = RuntimeHandle::of(call)?;
                dispatch(&core, &method, call)
            })
            .extension(),
        );
    }
}

fn dispatch(core: &RuntimeHandle, name: &str, call: &mut Call<'_>) -> Result<Value, YaqlError> {
    if call.is_method_call() {
        let recv = call.value(0)?.clone();
        if let Some((obj, class)) = core.cast_of(&recv) {
            if !core.has_method(class, name) {
                // (as for the object itself: extension methods, or no
                // such method)
                return extension(core, name, recv, call);
            }
            let args = args_from(call, 1)?;
            let kwargs = kwargs_from(call)?;
            return core
                .invoke_from_yaql(call.context(), Some(&obj), class, name, args, kwargs)
                .map_err(|e| core.park(e));
        }
        if let Some(obj) = core.obj_of(&recv) {
            if LOGGER_METHODS.contains(&name) && is_logger(core, &obj) {
                return log(core, &obj, name, call);
            }
            if !core.has_method(obj.class, name) {
                return extension(core, name, recv, call);
            }
            let args = args_from(call, 1)?;
            let kwargs = kwargs_from(call)?;
            return core
                .invoke_from_yaql(call.context(), Some(&obj), obj.class, name, args, kwargs)
                .map_err(|e| core.park(e));
        }
        if let Some(t) = core.type_of_value(&recv) {
            if !core.has_method(t.class, name) {
                return extension(core, name, recv, call);
            }
            let args = args_from(call, 1)?;
            let kwargs = kwargs_from(call)?;
            return core
                .invoke_from_yaql(call.context(), None, t.class, name, args, kwargs)
                .map_err(|e| core.park(e));
        }
        return extension(core, name, recv, call);
    }
    let Some(frame) = core.current_frame() else {
        return Err(YaqlError::mismatch());
    };
    let class = frame.this.as_ref().map_or(frame.class, |o| o.class);
    if !core.has_method(class, name) {
        return Err(unknown(core, name, false));
    }
    let args = args_from(call, 0)?;
    let kwargs = kwargs_from(call)?;
    core.invoke_from_yaql(
        call.context(),
        frame.this.as_ref(),
        class,
        name,
        args,
        kwargs,
    )
    .map_err(|e| core.park(e))
}

/// The methods of `io.murano.system.Logger`'s native part.
const LOGGER_METHODS: &[&str] = &[
    "trace",
    "debug",
    "info",
    "warning",
    "error",
    "critical",
    "exception",
];

fn is_logger(core: &RuntimeHandle, obj: &crate::object::Obj) -> bool {
    core.classes()
        .find("io.murano.system.Logger")
        .is_some_and(|c| core.classes().is_subclass(obj.class, c))
}

/// `$log.level(message, args..., kwargs...)`: the message formatted as
/// Python's `str.format` does (left as written when that fails) and kept
/// in the engine's log (see [`crate::Engine::take_log`]); returns null.
fn log(
    core: &RuntimeHandle,
    obj: &crate::object::Obj,
    level: &str,
    call: &mut Call<'_>,
) -> Result<Value, YaqlError> {
    let message = call.value(1)?.py_str();
    let args = args_from(call, 2)?;
    let kwargs = kwargs_from(call)?;
    if let Some(observe) = core.logger_observer() {
        let mut all = vec![Value::str(&message)];
        all.extend(args.iter().cloned());
        observe(level, &obj.id, &all, &kwargs);
    }
    let limit = call.interp().options().max_string_len;
    let text = match crate::format::format(&message, &args, &kwargs, limit) {
        Ok(Value::Str(s)) => s.to_string(),
        _ => message,
    };
    core.push_log(&obj.id, level, text);
    Ok(Value::Null)
}

/// `value.name(args)` through an extension method (`Usage: Extension`)
/// of the running method's class or of a class it imports: the first
/// whose receiver contract accepts the value.
fn extension(
    core: &RuntimeHandle,
    name: &str,
    receiver: Value,
    call: &mut Call<'_>,
) -> Result<Value, YaqlError> {
    let Some(frame) = core.current_frame() else {
        return Err(YaqlError::mismatch());
    };
    let registry = core.classes().registry();
    let candidates: Vec<(murano_dsl::registry::ClassId, usize)> = registry
        .find_extension_method(frame.class, name)
        .map_err(|_| YaqlError::mismatch())?
        .iter()
        .filter(|c| c.receiver().is_some())
        .map(|c| (c.method.class, c.method.index))
        .collect();
    for (class, index) in candidates {
        let accepts = core
            .accepts_receiver(class, index, &receiver)
            .map_err(|e| core.park(e))?;
        if !accepts {
            continue;
        }
        let mut args = vec![receiver];
        args.extend(args_from(call, 1)?);
        let kwargs = kwargs_from(call)?;
        return core
            .run_method(None, class, index, args, kwargs)
            .map_err(|e| core.park(e));
    }
    Err(unknown(core, name, true))
}

/// A call by the name of a MuranoPL method that nothing in reach
/// declares: in Murano only the contexts of the receiver's class and of
/// the running method's class register methods, so the name is unknown
/// (`NoMethodRegisteredException` / `NoFunctionRegisteredException`)
/// unless a YAQL function of that name exists (then the other overloads
/// are tried: no match is `NoMatchingMethodException`).
fn unknown(core: &RuntimeHandle, name: &str, method: bool) -> YaqlError {
    // The engine's library (YAQL, Murano's and the host's functions, then
    // these dispatchers): another overload of the name is a YAQL function.
    let kind = |f: &murano_yaql::eval::FunctionDef| {
        if method {
            f.is_method()
        } else {
            f.is_function()
        }
    };
    let library = core.library_in_use();
    let all = library.map_or(0, |l| l.overloads_of(name).filter(|f| kind(f)).count());
    let dispatchers = core
        .libraries()
        .1
        .overloads_of(name)
        .filter(|f| kind(f))
        .count();
    // Murano's type context of the running method's class registers its
    // (and its ancestors') methods too: a name declared there is known.
    let in_caller = core
        .current_frame()
        .is_some_and(|f| core.has_method(f.class, name));
    if all > dispatchers || in_caller {
        return YaqlError::mismatch();
    }
    if method {
        YaqlError::new(
            murano_yaql::eval::ErrorKind::NoMethodRegistered,
            format!("Unknown method \"{name}\""),
        )
    } else {
        YaqlError::new(
            murano_yaql::eval::ErrorKind::NoFunctionRegistered,
            format!("Unknown function \"{name}\""),
        )
    }
}

/// What Murano's functions take from the engine: `randomName()`'s names
/// (`RuntimeHandle::random_name`), `pselect`'s branches as green threads (Murano's
/// `parallel_select`, at most 1000 at a time) and host exceptions.
struct EngineServices;

impl murano_dsl::functions::Services for EngineServices {
    fn random_name(&self, call: &Call<'_>) -> Result<String, YaqlError> {
        Ok(RuntimeHandle::of(call)?.random_name())
    }

    fn parallel_select(
        &self,
        call: &Call<'_>,
        items: Vec<Value>,
        composer: murano_yaql::eval::Lambda,
    ) -> Result<Vec<Value>, YaqlError> {
        let core = RuntimeHandle::of(call)?;
        core.run_branches(items.len(), PSELECT_LIMIT, &|i| {
            // Each item runs on its own thread's stack.
            composer
                .on_new_stack()
                .call1(items[i].clone())
                .map_err(|e| core.unpark_yaql(&e))
        })
        .map_err(|e| core.park(e))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use murano_dsl::version::Version;
    use murano_yaql::eval::Value;

    use crate::{ClassSetBuilder, Engine, EngineError, Limits, Receiver};

    /// Calls the static `t.Cut.run` (body `expression`) of a package of
    /// format `major.minor`.
    fn run(format: (u32, u32), expression: &str) -> Result<Value, EngineError> {
        let class = format!(
            "Name: t.Cut\nMethods:\n  run:\n    Scope: Public\n    Usage: Static\n    \
             Body:\n      - Return: {expression}\n"
        );
        let mut b = ClassSetBuilder::new();
        let pkg = b.add_package("t", Version::new(0, 0, 0)).unwrap();
        b.set_package_format(pkg, format.0, format.1);
        let core = b.add_package("io.murano", Version::new(0, 0, 0)).unwrap();
        for def in ClassSetBuilder::parse_file(b"Name: io.murano.Object\n", "Object.yaml").unwrap()
        {
            b.add_class(core, "Object.yaml", def).unwrap();
        }
        for def in ClassSetBuilder::parse_file(class.as_bytes(), "Cut.yaml").unwrap() {
            b.add_class(pkg, "Cut.yaml", def).unwrap();
        }
        let engine = Engine::new(Arc::new(b.build()), Limits::default(), Vec::new());
        engine.call(
            &Receiver::Class("t.Cut".into()),
            "run",
            Vec::new(),
            Vec::new(),
        )
    }

    /// Murano gives `substr`, `firstOrDefault` and the string functions as
    /// methods to format 1.0 and 1.1 only (`get_context(runtime_version)`).
    #[test]
    fn format_1_1_functions_are_gated_by_format() {
        let v = run((1, 1), "substr('abcdef', 2, 3)").unwrap();
        assert_eq!(v.py_str(), "cde");
        let v = run((1, 0), "toUpper('c') + 'ab'.toUpper()").unwrap();
        assert_eq!(v.py_str(), "CAB");
        let e = run((1, 4), "substr('abcdef', 2, 3)").unwrap_err();
        assert!(e.message.contains("substr"), "{e:?}");
        let v = run((1, 4), "base64decode(base64encode('é'))").unwrap();
        assert_eq!(v.py_str(), "é");
    }

    /// `base64decode` raises Python's exceptions, as Murano's does.
    #[test]
    fn base64decode_errors_are_python_exceptions() {
        let e = run((1, 4), "base64decode('abc')").unwrap_err();
        assert_eq!(e.python_type(), "Error", "{e:?}");
    }
}
