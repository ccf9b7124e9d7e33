//! The yaql 0.2 compatibility layer (`yaql.legacy`): tuples built with
//! `=>`, `tuple()`, filtering indexer, open `range`, `switch(value, …)`,
//! and extension-method forms of common functions.

use super::{collect, lazy, pylist, seq};
use std::sync::Arc;

use crate::eval::context::{normalize_var, Library};
use crate::eval::error::{Error, ErrorKind};
use crate::eval::func::{Arg, Call, FunctionDef, LazyExpr};
use crate::eval::interp::Node;
use crate::eval::value::Value;

fn pair_parts(node: &Node) -> Option<(&Node, &Node)> {
    if let Node::Call { name, args, .. } = node {
        if &**name == "#operator_=>" {
            if let [crate::eval::interp::ArgNode::Pos(a), crate::eval::interp::ArgNode::Pos(b)] =
                &args[..]
            {
                return Some((a, b));
            }
        }
    }
    None
}

fn eval_with(c: &Call<'_>, node: &Node, data: &Value) -> Result<Value, Error> {
    let ctx = c.context().child_with(vec![("$1".into(), data.clone())]);
    c.interp().eval(node, &ctx, None)
}

/// Registers the legacy functions.
pub(crate) fn register(lib: &mut Library) {
    // `a => b`: a tuple; an unparenthesised `=>` on the left extends it.
    lib.register(FunctionDef::native("#operator_=>", "~left, right", |c| {
        let Some(Arg::Lazy(LazyExpr(left))) = c.arg(0) else {
            return Err(Error::mismatch());
        };
        let right = c.opt(1)?.cloned().unwrap_or_default();
        let l = c.interp().eval(left, c.context(), None)?;
        if pair_parts(left).is_some() {
            if let Value::Tuple(items) = &l {
                let mut v = (**items).clone();
                v.push(right);
                return Ok(seq(v));
            }
        }
        Ok(seq(vec![l, right]))
    }));
    lib.register(FunctionDef::native("tuple", "*args", |c| {
        Ok(seq(c
            .rest(0)
            .iter()
            .map(|a| c.force(a))
            .collect::<Result<_, _>>()?))
    }));
    lib.register(
        FunctionDef::native("toList", "collection", |c| {
            Ok(pylist(collect(c.iterable(0)?)?))
        })
        .method(),
    );
    lib.register(FunctionDef::native("list", "*args", |c| {
        let mut out = Vec::new();
        for a in c.rest(0) {
            let v = c.force(a)?;
            if let Value::Iter(_) = v {
                out.extend(collect(c.interp().limited_iter(&v)?)?);
            } else {
                out.push(v);
            }
        }
        Ok(pylist(out))
    }));
    for name in ["dict", "#map"] {
        lib.register(
            FunctionDef::native(name, "*args", |c| {
                let mut pairs = Vec::new();
                for a in c.rest(0) {
                    if let Arg::Mapping(LazyExpr(k), LazyExpr(v)) = a {
                        pairs.push((
                            c.interp().eval(k, c.context(), None)?,
                            c.interp().eval(v, c.context(), None)?,
                        ));
                        continue;
                    }
                    match c.force(a)? {
                        Value::Tuple(t) if t.len() == 2 => pairs.push((t[0].clone(), t[1].clone())),
                        _ => return Err(Error::mismatch()),
                    }
                }
                Ok(Value::dict(pairs))
            })
            .extension()
            .no_kwargs(),
        );
    }
    lib.unregister("#indexer");
    lib.register(FunctionDef::native(
        "#indexer",
        "collection, ~indexExpression",
        |c| {
            let coll = c.value(0)?.clone();
            let Some(Arg::Lazy(LazyExpr(node))) = c.arg(1) else {
                return Err(Error::mismatch());
            };
            let index = c.interp().eval(node, c.context(), None)?;
            match (&coll, &index) {
                (Value::Dict(d), k) => return Ok(d.get(k).cloned().unwrap_or_default()),
                (v, Value::Int(i)) if v.is_sequence() => {
                    let items = v.as_slice().unwrap_or(&[]);
                    let n = items.len() as i64;
                    let j = if *i < 0 { i + n } else { *i };
                    return items
                        .get(j as usize)
                        .cloned()
                        .filter(|_| j >= 0)
                        .ok_or_else(|| {
                            Error::new(
                                crate::eval::error::ErrorKind::IndexError,
                                "tuple index out of range",
                            )
                        });
                }
                _ => {}
            }
            let mut out = Vec::new();
            for item in c.iterable(0)? {
                let item = item?;
                if eval_with(c, node, &item)?.truthy() {
                    out.push(Ok(item));
                }
            }
            Ok(lazy(out.into_iter()))
        },
    ));
    lib.register(
        FunctionDef::native("range", "start, stop=", |c| {
            let start = c.int(0)?;
            match c.opt(1)? {
                None | Some(Value::Null) => {
                    let mut i = start;
                    Ok(lazy(std::iter::from_fn(move || {
                        let v = i;
                        i = i.saturating_add(1);
                        Some(Ok(Value::Int(v)))
                    })))
                }
                Some(Value::Int(stop)) => Ok(lazy((start..*stop).map(|i| Ok(Value::Int(i))))),
                Some(_) => Err(Error::mismatch()),
            }
        })
        .extension(),
    );
    lib.unregister("switch");
    lib.register(
        FunctionDef::native("switch", "value, ~*conditions", |c| {
            let value = c.value(0)?.clone();
            for a in c.rest(1) {
                let (cond, result) = match a {
                    Arg::Mapping(LazyExpr(s), LazyExpr(d)) => (&**s, &**d),
                    Arg::Lazy(LazyExpr(n)) => pair_parts(n).ok_or_else(Error::mismatch)?,
                    _ => return Err(Error::mismatch()),
                };
                if eval_with(c, cond, &value)?.truthy() {
                    return eval_with(c, result, &value);
                }
            }
            Ok(Value::Null)
        })
        .extension()
        .no_kwargs(),
    );
    // `context.expr`: the expression on the context's `$0`, inside it.
    lib.register(FunctionDef::native("#operator_.", "receiver, ~expr", |c| {
        let (ctx @ Value::Context(_), Some(Arg::Lazy(LazyExpr(node)))) = (c.value(0)?, c.arg(1))
        else {
            return Err(Error::mismatch());
        };
        c.interp().dot(ctx.clone(), node, c.context())
    }));
    // `dict.key`: null for a missing key.
    lib.register(FunctionDef::native("#operator_.", "dict, key", |c| {
        let (Value::Dict(d), k @ Value::Str(_)) = (c.value(0)?, c.value(1)?) else {
            return Err(Error::mismatch());
        };
        Ok(d.get(k).cloned().unwrap_or_default())
    }));
    // `receiver.as(f($) => name, …)`: a context holding each mapping's
    // value under its name and the receiver as `$0`; a `.` after it then
    // works on the receiver in that context (see `Interp::dot`).
    lib.register(
        FunctionDef::native("as", "receiver, ~*mappings", |c| {
            let receiver = c.value(0)?.clone();
            let mut vars: Vec<(Arc<str>, Value)> = Vec::new();
            for a in c.rest(1) {
                let (value, name) = match a {
                    Arg::Mapping(LazyExpr(source), LazyExpr(destination)) => (
                        eval_with(c, source, &receiver)?,
                        eval_with(c, destination, &receiver)?,
                    ),
                    Arg::Lazy(LazyExpr(node)) => match eval_with(c, node, &receiver)? {
                        Value::Tuple(items) | Value::List(items) if items.len() == 2 => {
                            (items[0].clone(), items[1].clone())
                        }
                        Value::Tuple(_) | Value::List(_) => {
                            return Err(Error::new(
                                ErrorKind::ValueError,
                                "as() tuples must be of size 2",
                            ))
                        }
                        _ => {
                            return Err(Error::new(
                                ErrorKind::ValueError,
                                "as() must have tuple parameters",
                            ))
                        }
                    },
                    _ => return Err(Error::mismatch()),
                };
                let Value::Str(name) = name else {
                    return Err(Error::new(
                        ErrorKind::TypeError,
                        "context keys must be strings",
                    ));
                };
                vars.push((normalize_var(&name), value));
            }
            vars.push(("$0".into(), receiver));
            Ok(Value::Context(c.context().child_with(vars)))
        })
        .method()
        .no_kwargs(),
    );
    for name in [
        "get",
        "list",
        "bool",
        "int",
        "float",
        "select",
        "where",
        "join",
        "sum",
        "takeWhile",
    ] {
        lib.make_extension(name);
    }
}
