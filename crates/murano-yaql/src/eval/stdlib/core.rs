//! system, common, boolean and branching modules.

use std::cmp::Ordering;
use std::sync::Arc;

use super::{lazy, seq};
use crate::eval::context::{normalize_var, Context, Library};
use crate::eval::error::{Error, ErrorKind};
use crate::eval::func::{Arg, Call, FunctionDef, LazyExpr};
use crate::eval::interp::raw_iter;
use crate::eval::value::Value;

/// Registers the outermost fallback layer: `obj.name` through a
/// `#property#name` function (yaql's `get_property`).
///
/// The evaluator performs `.` itself (the same resolution); the
/// `#operator_.` overloads registered here and in [`register`] make the
/// operator callable by name with yaql's signatures.
pub(crate) fn register_fallbacks(lib: &mut Library) {
    lib.register(FunctionDef::native("#operator_.", "obj, name", |c| {
        let name = c.string(1)?;
        c.call_function(&format!("#property#{name}"), vec![c.value(0)?.clone()])
    }));
}

/// `receiver.expr` with `expr` an unevaluated method call or keyword, or a
/// callable value applied to the receiver.
fn dot_expr(c: &Call<'_>, receiver: Value, expr: usize) -> Result<Value, Error> {
    match c.arg(expr) {
        Some(Arg::Lazy(LazyExpr(node))) => c.interp().dot(receiver, node, c.context()),
        Some(Arg::Value(Value::Lambda(f))) => f.call(&[receiver]),
        _ => Err(Error::mismatch()),
    }
}

/// yaql's system internals and the overloads of `.`/`?.`.
fn register_system_internals(lib: &mut Library) {
    // `$name`: the value bound to `name` (null when unbound).
    lib.register(FunctionDef::native("#get_context_data", "name", |c| {
        Ok(c.context().get(c.string(0)?).cloned().unwrap_or_default())
    }));
    // Output conversion of a result.
    lib.register(FunctionDef::native("#finalize", "obj", |c| {
        crate::eval::convert_output(c.interp(), c.opt(0)?.unwrap_or(&Value::Null))
    }));
    // Iteration under `yaql.limitIterators`.
    lib.register(FunctionDef::native("#iter", "iterator", |c| {
        let it = c.iterable(0)?;
        Ok(lazy(it))
    }));
    // `dict.key`: the value under `key`.
    lib.register(FunctionDef::native("#operator_.", "dict, key", |c| {
        let (d @ Value::Dict(_), Value::Str(k)) = (c.value(0)?, c.value(1)?) else {
            return Err(Error::mismatch());
        };
        c.interp().property(d.clone(), k, c.context())
    }));
    // `collection.attribute`: the attribute of every item.
    lib.register(FunctionDef::native(
        "#operator_.",
        "collection, attribute",
        |c| {
            let (v, Value::Str(k)) = (c.value(0)?, c.value(1)?) else {
                return Err(Error::mismatch());
            };
            if matches!(v, Value::Dict(_)) || !c.interp().is_iterable(v) {
                return Err(Error::mismatch());
            }
            c.interp().property(v.clone(), k, c.context())
        },
    ));
    // `obj.attr` on a host object.
    lib.register(FunctionDef::native("#operator_.", "obj, attr", |c| {
        let (v @ Value::Object(_), Value::Str(k)) = (c.value(0)?, c.value(1)?) else {
            return Err(Error::mismatch());
        };
        c.interp().property(v.clone(), k, c.context())
    }));
    // `receiver.method(...)` on a host object.
    lib.register(FunctionDef::native("#operator_.", "receiver, ~expr", |c| {
        let v @ Value::Object(_) = c.value(0)? else {
            return Err(Error::mismatch());
        };
        dot_expr(c, v.clone(), 1)
    }));
    // `receiver.expr`: the expression evaluated on the receiver.
    lib.register(FunctionDef::native("#operator_.", "receiver, ~expr", |c| {
        dot_expr(c, c.opt(0)?.cloned().unwrap_or_default(), 1)
    }));
    // `receiver?.expr`: null for a null receiver.
    lib.register(FunctionDef::native(
        "#operator_?.",
        "receiver, ~expr",
        |c| match c.opt(0)? {
            None | Some(Value::Null) => Ok(Value::Null),
            Some(v) => dot_expr(c, v.clone(), 1),
        },
    ));
}

fn ctx_arg<'a>(call: &Call<'a>, i: usize) -> Result<&'a Context, Error> {
    match call.value(i)? {
        Value::Context(c) => Ok(c),
        _ => Err(Error::mismatch()),
    }
}

/// How an ordering operator treats two operands; `None` = no overload.
pub(crate) fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_))
        | (Value::Str(_), Value::Str(_))
        | (Value::DateTime(_), Value::DateTime(_))
        | (Value::TimeSpan(_), Value::TimeSpan(_)) => crate::eval::value::py_cmp(a, b).ok(),
        _ => None,
    }
}

fn ordering_op(name: &'static str) -> FunctionDef {
    FunctionDef::native(name, "left, right", move |c| {
        let (a, b) = (
            c.opt(0)?.unwrap_or(&Value::Null),
            c.opt(1)?.unwrap_or(&Value::Null),
        );
        // common: null orders before everything.
        let r = match (a.is_null(), b.is_null()) {
            (true, true) => matches!(name, "#operator_<=" | "#operator_>="),
            (true, false) => matches!(name, "#operator_<" | "#operator_<="),
            (false, true) => matches!(name, "#operator_>" | "#operator_>="),
            (false, false) => {
                if let (Value::Set(x), Value::Set(y)) = (a, b) {
                    let sub = x.iter().all(|k| y.contains(k));
                    let sup = y.iter().all(|k| x.contains(k));
                    return Ok(Value::Bool(match name {
                        "#operator_<" => sub && x.len() < y.len(),
                        "#operator_<=" => sub,
                        "#operator_>" => sup && x.len() > y.len(),
                        _ => sup,
                    }));
                }
                let Some(o) = compare(a, b) else {
                    return Err(Error::mismatch());
                };
                match name {
                    "#operator_<" => o == Ordering::Less,
                    "#operator_<=" => o != Ordering::Greater,
                    "#operator_>" => o == Ordering::Greater,
                    _ => o != Ordering::Less,
                }
            }
        };
        Ok(Value::Bool(r))
    })
}

fn lambdas(call: &Call<'_>, from: usize) -> Vec<Arg> {
    call.rest(from).to_vec()
}

fn force(call: &Call<'_>, a: &Arg) -> Result<Value, Error> {
    call.force(a)
}

/// Registers system, common, boolean and branching functions.
pub(crate) fn register(lib: &mut Library, delegates: bool) {
    register_system_internals(lib);
    // ---- system
    // `left -> right`: evaluates right in the context left returned.
    lib.register(FunctionDef::native("#operator_->", "left, ~right", |c| {
        let ctx = ctx_arg(c, 0)?;
        let Some(Arg::Lazy(LazyExpr(node))) = c.arg(1) else {
            return Err(Error::mismatch());
        };
        c.interp().eval(node, ctx, None)
    }));
    // `let(args…, name => value…)`: a context with `$1…` and `$name` set.
    lib.register(FunctionDef::native("let", "*args, **kwargs", |c| {
        let mut vars: Vec<(Arc<str>, Value)> = Vec::new();
        for (i, a) in c.rest(0).iter().enumerate() {
            vars.push((format!("${}", i + 1).into(), force(c, a)?));
        }
        for (k, a) in c.kwargs() {
            vars.push((normalize_var(k), force(c, a)?));
        }
        Ok(Value::Context(c.context().child_with(vars)))
    }));
    // `with(args…)`: a context with `$1…` set.
    lib.register(FunctionDef::native("with", "*args", |c| {
        let mut vars: Vec<(Arc<str>, Value)> = Vec::new();
        for (i, a) in c.rest(0).iter().enumerate() {
            vars.push((format!("${}", i + 1).into(), force(c, a)?));
        }
        Ok(Value::Context(c.context().child_with(vars)))
    }));
    // `sequence.unpack(names…)`: a context with the items bound.
    lib.register(
        FunctionDef::native("unpack", "sequence, *args", |c| {
            let names: Vec<&str> = c
                .rest(1)
                .iter()
                .map(|a| match a {
                    Arg::Value(Value::Str(s)) => Ok(&**s),
                    _ => Err(Error::mismatch()),
                })
                .collect::<Result<_, _>>()?;
            let it = c.iterable(0)?;
            let items: Vec<Value> = if names.is_empty() {
                it.collect::<Result<_, _>>()?
            } else {
                it.take(names.len() + 1).collect::<Result<_, _>>()?
            };
            if !names.is_empty() && names.len() != items.len() {
                return Err(Error::new(
                    ErrorKind::ValueError,
                    format!(
                        "Cannot unpack {} elements into {}",
                        items.len(),
                        names.len()
                    ),
                ));
            }
            let vars = items
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    let name = match names.get(i) {
                        Some(n) => normalize_var(n),
                        None => format!("${}", i + 1).into(),
                    };
                    (name, v)
                })
                .collect();
            Ok(Value::Context(c.context().child_with(vars)))
        })
        .method(),
    );
    // `def(name, body)`: a context where `name(...)` evaluates body.
    lib.register(FunctionDef::native("def", "name, ~func", |c| {
        let name = c.string(0)?.to_owned();
        let Some(Arg::Lazy(LazyExpr(node))) = c.arg(1) else {
            return Err(Error::mismatch());
        };
        let node = node.clone();
        let ctx = c.context().child_with_def(move |weak| {
            FunctionDef::native(&name, "*args, **kwargs", move |inner| {
                let home = weak.upgrade().unwrap_or_else(|| inner.context().clone());
                let lambda = inner.interp().lambda(node.clone(), &home);
                let args: Vec<Value> = inner
                    .rest(0)
                    .iter()
                    .map(|a| inner.force(a))
                    .collect::<Result<_, _>>()?;
                let kwargs: Vec<(Arc<str>, Value)> = inner
                    .kwargs()
                    .iter()
                    .map(|(k, a)| Ok((k.clone(), inner.force(a)?)))
                    .collect::<Result<_, Error>>()?;
                lambda.call_kw(&args, &kwargs)
            })
        });
        Ok(Value::Context(ctx))
    }));
    // `obj.assert(condition, message)`.
    lib.register(
        FunctionDef::native("assert", "obj, ~condition, message=", |c| {
            let mut obj = c.value(0)?.clone();
            let cond = c.need_lambda(1)?;
            let message = match c.opt(2)? {
                None => "Assertion failed",
                Some(Value::Str(s)) => s,
                Some(_) => return Err(Error::mismatch()),
            };
            if let Value::Iter(_) = obj {
                obj = super::queries::memorize(c.interp(), &obj)?;
            }
            if !cond.call1(obj.clone())?.truthy() {
                return Err(Error::new(ErrorKind::AssertionError, message));
            }
            Ok(obj)
        })
        .method(),
    );
    // `call(name, args, kwargs, receiver)`.
    lib.register(FunctionDef::native(
        "call",
        "name, args, kwargs, receiver=",
        |c| {
            let name = c.string(0)?;
            let args = match c.value(1)? {
                v if v.is_sequence() => v.as_slice().unwrap_or(&[]).to_vec(),
                _ => return Err(Error::mismatch()),
            };
            let kwargs: Vec<(Arc<str>, Value)> = match c.value(2)? {
                Value::Dict(d) => d
                    .iter()
                    .map(|(k, v)| match k {
                        Value::Str(s) => Ok((s.clone(), v.clone())),
                        _ => Err(Error::mismatch()),
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err(Error::mismatch()),
            };
            match c.arg(3) {
                None | Some(Arg::Missing) => {
                    c.interp()
                        .call_values(name, c.context(), args, kwargs, false)
                }
                Some(_) => {
                    let recv = c.value(3)?.clone();
                    let mut all = vec![recv];
                    all.extend(args);
                    c.interp().call_values(name, c.context(), all, kwargs, true)
                }
            }
        },
    ));
    if delegates {
        // `callable(args…)` with delegates on.
        lib.register(FunctionDef::native(
            "#call",
            "callable_, *args, **kwargs",
            |c| {
                let Value::Lambda(f) = c.value(0)? else {
                    return Err(Error::mismatch());
                };
                let args: Vec<Value> = c
                    .rest(1)
                    .iter()
                    .map(|a| c.force(a))
                    .collect::<Result<_, _>>()?;
                let kwargs: Vec<(Arc<str>, Value)> = c
                    .kwargs()
                    .iter()
                    .map(|(k, a)| Ok((k.clone(), c.force(a)?)))
                    .collect::<Result<_, Error>>()?;
                f.call_kw(&args, &kwargs)
            },
        ));
        // `lambda(expr)`: an anonymous function value.
        lib.register(FunctionDef::native("lambda", "~func", |c| {
            Ok(Value::Lambda(Arc::new(c.need_lambda(0)?)))
        }));
    }

    // ---- common
    lib.register(FunctionDef::native("*equal", "left, right", |c| {
        Ok(Value::Bool(
            c.opt(0)?.unwrap_or(&Value::Null) == c.opt(1)?.unwrap_or(&Value::Null),
        ))
    }));
    lib.register(FunctionDef::native("*not_equal", "left, right", |c| {
        Ok(Value::Bool(
            c.opt(0)?.unwrap_or(&Value::Null) != c.opt(1)?.unwrap_or(&Value::Null),
        ))
    }));
    for name in ["#operator_<", "#operator_<=", "#operator_>", "#operator_>="] {
        lib.register(ordering_op(name));
    }

    // ---- boolean
    lib.register(FunctionDef::native("#operator_and", "~left, ~right", |c| {
        let l = c.force(c.arg(0).ok_or_else(Error::mismatch)?)?;
        if !l.truthy() {
            return Ok(l);
        }
        c.force(c.arg(1).ok_or_else(Error::mismatch)?)
    }));
    lib.register(FunctionDef::native("#operator_or", "~left, ~right", |c| {
        let l = c.force(c.arg(0).ok_or_else(Error::mismatch)?)?;
        if l.truthy() {
            return Ok(l);
        }
        c.force(c.arg(1).ok_or_else(Error::mismatch)?)
    }));
    lib.register(FunctionDef::native("#unary_operator_not", "arg", |c| {
        Ok(Value::Bool(!c.opt(0)?.unwrap_or(&Value::Null).truthy()))
    }));
    lib.register(FunctionDef::native("bool", "value", |c| {
        Ok(Value::Bool(c.opt(0)?.unwrap_or(&Value::Null).truthy()))
    }));
    lib.register(FunctionDef::native("isBoolean", "value", |c| {
        Ok(Value::Bool(matches!(c.value(0)?, Value::Bool(_))))
    }));

    // ---- branching
    lib.register(
        FunctionDef::native("switch", "~*args", |c| {
            for a in c.rest(0) {
                let Arg::Mapping(LazyExpr(src), LazyExpr(dst)) = a else {
                    return Err(Error::mismatch());
                };
                if c.interp().eval(src, c.context(), None)?.truthy() {
                    return c.interp().eval(dst, c.context(), None);
                }
            }
            Ok(Value::Null)
        })
        .no_kwargs(),
    );
    lib.register(FunctionDef::native("selectCase", "~*args", |c| {
        let args = lambdas(c, 0);
        for (i, a) in args.iter().enumerate() {
            if c.force(a)?.truthy() {
                return Ok(Value::Int(i as i64));
            }
        }
        Ok(Value::Int(args.len() as i64))
    }));
    lib.register(FunctionDef::native("selectAllCases", "~*args", |c| {
        let mut out = Vec::new();
        for (i, a) in lambdas(c, 0).iter().enumerate() {
            if c.force(a)?.truthy() {
                out.push(Ok(Value::Int(i as i64)));
            }
        }
        Ok(lazy(out.into_iter()))
    }));
    lib.register(FunctionDef::native("examine", "~*args", |c| {
        let mut out = Vec::new();
        for a in lambdas(c, 0).iter() {
            out.push(Ok(Value::Bool(c.force(a)?.truthy())));
        }
        Ok(lazy(out.into_iter()))
    }));
    lib.register(
        FunctionDef::native("switchCase", "case, ~*args", |c| {
            let case = c.int(0)?;
            let args = c.rest(1);
            if case >= 0 && (case as usize) < args.len() {
                return c.force(&args[case as usize]);
            }
            match args.last() {
                None => Ok(Value::Null),
                Some(a) => c.force(a),
            }
        })
        .method(),
    );
    lib.register(FunctionDef::native("coalesce", "~*args", |c| {
        for a in c.rest(0) {
            let v = c.force(a)?;
            if !v.is_null() {
                return Ok(v);
            }
        }
        Ok(Value::Null)
    }));
    let _ = seq;
    let _ = raw_iter;
}
