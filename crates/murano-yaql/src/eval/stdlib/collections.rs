//! collections module: lists (tuples), dicts and sets.

use std::sync::Arc;

use super::{collect, lazy, pylist, seq};
use crate::eval::context::Library;
use crate::eval::error::{Error, ErrorKind};
use crate::eval::func::{Arg, Call, FunctionDef, LazyExpr};
use crate::eval::value::{Dict, Set, Value};

fn flatten_iters(c: &Call<'_>, args: &[Arg], out: &mut Vec<Value>) -> Result<(), Error> {
    for a in args {
        let v = c.force(a)?;
        push_flat(c, v, out)?;
    }
    Ok(())
}

fn push_flat(c: &Call<'_>, v: Value, out: &mut Vec<Value>) -> Result<(), Error> {
    if let Value::Iter(_) = v {
        for item in c.interp().limited_iter(&v)? {
            push_flat(c, item?, out)?;
        }
    } else {
        out.push(v);
    }
    Ok(())
}

fn dict_arg<'a>(c: &Call<'a>, i: usize) -> Result<&'a Arc<Dict>, Error> {
    match c.value(i)? {
        Value::Dict(d) => Ok(d),
        _ => Err(Error::mismatch()),
    }
}

fn set_arg<'a>(c: &Call<'a>, i: usize) -> Result<&'a Arc<Set>, Error> {
    match c.value(i)? {
        Value::Set(s) => Ok(s),
        _ => Err(Error::mismatch()),
    }
}

fn key_error(k: &Value) -> Error {
    Error::new(ErrorKind::KeyError, k.repr())
}

fn mapping_pairs(c: &Call<'_>, args: &[Arg]) -> Result<Vec<(Value, Value)>, Error> {
    args.iter()
        .map(|a| match a {
            Arg::Mapping(LazyExpr(s), LazyExpr(d)) => Ok((
                c.interp().eval(s, c.context(), None)?,
                c.interp().eval(d, c.context(), None)?,
            )),
            _ => Err(Error::mismatch()),
        })
        .collect()
}

/// Registers the collection functions.
pub(crate) fn register(lib: &mut Library) {
    lib.register(FunctionDef::native("list", "*args", |c| {
        let mut out = Vec::new();
        flatten_iters(c, c.rest(0), &mut out)?;
        Ok(seq(out))
    }));
    lib.register(
        FunctionDef::native("flatten", "collection", |c| {
            fn rec(c: &Call<'_>, v: &Value, out: &mut Vec<Value>) -> Result<(), Error> {
                for item in c.interp().limited_iter(v)? {
                    let item = item?;
                    if item.is_iterable() {
                        rec(c, &item, out)?;
                    } else {
                        out.push(item);
                    }
                }
                Ok(())
            }
            let v = c.check_iterable(0)?;
            let mut out = Vec::new();
            rec(c, v, &mut out)?;
            Ok(lazy(out.into_iter().map(Ok)))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("toList", "collection", |c| {
            if let Value::Tuple(_) = c.value(0)? {
                c.check_iterable(0)?;
                return Ok(c.value(0)?.clone());
            }
            Ok(seq(collect(c.iterable(0)?)?))
        })
        .method(),
    );
    lib.register(FunctionDef::native("#list", "*args", |c| {
        Ok(seq(c
            .rest(0)
            .iter()
            .map(|a| c.force(a))
            .collect::<Result<_, _>>()?))
    }));
    for name in ["dict", "#map"] {
        lib.register(
            FunctionDef::native(name, "*args", |c| {
                Ok(Value::dict(mapping_pairs(c, c.rest(0))?))
            })
            .no_kwargs(),
        );
    }
    lib.register(
        FunctionDef::native("dict", "items", |c| {
            let mut d = Dict::default();
            for t in c.iterable(0)? {
                let t = t?;
                let mut it = crate::eval::interp::raw_iter(&t)?;
                let k = it
                    .next()
                    .ok_or_else(|| Error::new(ErrorKind::StopIteration, ""))??;
                let v = it
                    .next()
                    .ok_or_else(|| Error::new(ErrorKind::StopIteration, ""))??;
                d.insert(k, v);
            }
            Ok(Value::Dict(Arc::new(d)))
        })
        .no_kwargs(),
    );
    lib.register(
        FunctionDef::native("toDict", "collection, ~keySelector, ~valueSelector=", |c| {
            let ks = c.need_lambda(1)?;
            let vs = c.lambda(2)?;
            let mut d = Dict::default();
            for t in c.iterable(0)? {
                let t = t?;
                let k = ks.call1(t.clone())?;
                let v = match &vs {
                    Some(f) => f.call1(t)?,
                    None => t,
                };
                d.insert(k, v);
            }
            Ok(Value::Dict(Arc::new(d)))
        })
        .method(),
    );
    lib.register(FunctionDef::native("#indexer", "dict, key", |c| {
        let d = dict_arg(c, 0)?;
        let k = c.opt(1)?.ok_or_else(Error::mismatch)?;
        d.get(k).cloned().ok_or_else(|| key_error(k))
    }));
    lib.register(FunctionDef::native("#indexer", "dict, key, default", |c| {
        let d = dict_arg(c, 0)?;
        let k = c.value(1)?;
        Ok(d.get(k)
            .cloned()
            .unwrap_or_else(|| c.opt(2).ok().flatten().cloned().unwrap_or_default()))
    }));
    lib.register(FunctionDef::native("#indexer", "list, index", |c| {
        let items = c.value(0)?.as_slice().ok_or_else(Error::mismatch)?;
        let i = match c.value(1)? {
            Value::Int(n) => *n,
            Value::Bool(b) => i64::from(*b),
            _ => return Err(Error::mismatch()),
        };
        let n = items.len() as i64;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(Error::new(
                ErrorKind::IndexError,
                "tuple index out of range",
            ));
        }
        Ok(items[j as usize].clone())
    }));
    lib.register(
        FunctionDef::native("get", "dict, key, default=", |c| {
            let d = dict_arg(c, 0)?;
            let k = c.value(1)?;
            Ok(d.get(k)
                .cloned()
                .unwrap_or_else(|| c.opt(2).ok().flatten().cloned().unwrap_or_default()))
        })
        .method(),
    );
    // `set`: yaql's three dictionary overloads (`dict_set`,
    // `dict_set_many`, `dict_set_many_inline`).
    lib.register(
        FunctionDef::native("set", "dict, key, value", |c| {
            let d = dict_arg(c, 0)?;
            let (Some(Arg::Value(k)), Some(Arg::Value(v))) = (c.arg(1), c.arg(2)) else {
                return Err(Error::mismatch());
            };
            let mut out: Dict = (**d).clone();
            out.insert(k.clone(), v.clone());
            Ok(Value::Dict(Arc::new(out)))
        })
        .method()
        .no_kwargs(),
    );
    lib.register(
        FunctionDef::native("set", "dict, replacements", |c| {
            let d = dict_arg(c, 0)?;
            let Some(Arg::Value(Value::Dict(r))) = c.arg(1) else {
                return Err(Error::mismatch());
            };
            let mut out: Dict = (**d).clone();
            for (k, v) in r.iter() {
                out.insert(k.clone(), v.clone());
            }
            Ok(Value::Dict(Arc::new(out)))
        })
        .method()
        .no_kwargs(),
    );
    lib.register(
        FunctionDef::native("set", "dict, *args", |c| {
            let d = dict_arg(c, 0)?;
            let rest = c.rest(1);
            if !rest.iter().all(|a| matches!(a, Arg::Mapping(..))) {
                return Err(Error::mismatch());
            }
            let mut out: Dict = (**d).clone();
            for (k, v) in mapping_pairs(c, rest)? {
                out.insert(k, v);
            }
            Ok(Value::Dict(Arc::new(out)))
        })
        .method()
        .no_kwargs(),
    );
    lib.register(
        FunctionDef::native("keys", "dict", |c| {
            Ok(seq(dict_arg(c, 0)?.keys().cloned().collect()))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("values", "dict", |c| {
            Ok(seq(dict_arg(c, 0)?.values().cloned().collect()))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("items", "dict", |c| {
            Ok(seq(dict_arg(c, 0)?
                .iter()
                .map(|(k, v)| seq(vec![k.clone(), v.clone()]))
                .collect()))
        })
        .method(),
    );
    lib.register(FunctionDef::native(
        "#operator_in",
        "value, collection",
        |c| {
            let v = c.opt(0)?.unwrap_or(&Value::Null);
            contains(c, 1, v)
        },
    ));
    lib.register(
        FunctionDef::native("contains", "collection, value", |c| {
            let v = c.opt(1)?.unwrap_or(&Value::Null);
            contains(c, 0, v)
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("containsKey", "dict, key", |c| {
            Ok(Value::Bool(
                dict_arg(c, 0)?.contains_key(c.opt(1)?.unwrap_or(&Value::Null)),
            ))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("containsValue", "dict, value", |c| {
            let v = c.opt(1)?.unwrap_or(&Value::Null);
            Ok(Value::Bool(dict_arg(c, 0)?.values().any(|x| x == v)))
        })
        .method(),
    );
    lib.register(FunctionDef::native("#operator_+", "left, right", |c| {
        let (l, r) = (c.check_iterable(0)?, c.check_iterable(1)?);
        match (l, r) {
            (Value::Tuple(a), Value::Tuple(b)) => {
                let mut v = (**a).clone();
                v.extend(b.iter().cloned());
                Ok(seq(v))
            }
            (Value::Set(a), Value::Set(b)) => {
                let mut s = (**a).clone();
                s.extend(b.iter().cloned());
                Ok(Value::Set(Arc::new(s)))
            }
            _ => {
                let a = c.interp().limited_iter(l)?;
                let b = c.interp().limited_iter(r)?;
                Ok(lazy(a.chain(b)))
            }
        }
    }));
    lib.register(FunctionDef::native("#operator_*", "left, right", |c| {
        let (items, n) = match (c.value(0)?, c.value(1)?) {
            (l, Value::Int(n)) if l.is_sequence() => (l, *n),
            (Value::Int(n), r) if r.is_sequence() => (r, *n),
            _ => return Err(Error::mismatch()),
        };
        let s = items.as_slice().unwrap_or(&[]);
        let n = n.max(0) as usize;
        if s.len().saturating_mul(n) > 16 * 1024 * 1024 {
            return Err(Error::new(
                ErrorKind::MemoryQuotaExceeded,
                "Expression consumed too much memory",
            ));
        }
        let out: Vec<Value> = s.iter().cloned().cycle().take(s.len() * n).collect();
        Ok(match items {
            Value::List(_) => pylist(out),
            _ => seq(out),
        })
    }));
    lib.register(FunctionDef::native("#operator_+", "left, right", |c| {
        let (a, b) = (dict_arg(c, 0)?, dict_arg(c, 1)?);
        let mut d = (**a).clone();
        for (k, v) in b.iter() {
            d.insert(k.clone(), v.clone());
        }
        Ok(Value::Dict(Arc::new(d)))
    }));
    lib.register(FunctionDef::native("isList", "arg", |c| {
        Ok(Value::Bool(c.opt(0)?.is_some_and(Value::is_sequence)))
    }));
    lib.register(FunctionDef::native("isDict", "arg", |c| {
        Ok(Value::Bool(matches!(c.opt(0)?, Some(Value::Dict(_)))))
    }));
    lib.register(FunctionDef::native("isSet", "arg", |c| {
        Ok(Value::Bool(matches!(c.opt(0)?, Some(Value::Set(_)))))
    }));
    // `len`: yaql's overloads for dicts, sequences, sets and iterators.
    lib.register(
        FunctionDef::native("len", "dict", |c| match c.value(0)? {
            Value::Dict(d) => Ok(Value::Int(d.len() as i64)),
            _ => Err(Error::mismatch()),
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("len", "sequence", |c| match c.value(0)? {
            Value::List(v) | Value::Tuple(v) => Ok(Value::Int(v.len() as i64)),
            _ => Err(Error::mismatch()),
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("len", "set", |c| match c.value(0)? {
            Value::Set(s) => Ok(Value::Int(s.len() as i64)),
            _ => Err(Error::mismatch()),
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("len", "collection", |c| match c.value(0)? {
            Value::Iter(_) => Ok(Value::Int(
                c.iterable(0)?.try_fold(0usize, |n, x| x.map(|_| n + 1))? as i64,
            )),
            _ => Err(Error::mismatch()),
        })
        .extension(),
    );
    // `obj[key]` on a host object that has items.
    lib.register(FunctionDef::native("#indexer", "obj, key", |c| {
        let Value::Object(o) = c.value(0)? else {
            return Err(Error::mismatch());
        };
        o.item(c.opt(1)?.unwrap_or(&Value::Null))
            .ok_or_else(Error::mismatch)
    }));
    lib.register(
        FunctionDef::native("delete", "collection, position, count=", |c| {
            let it = c.iterable(0)?;
            let (pos, count) = (c.int(1)?, c.int_or(2, 1)?);
            let mut out = Vec::new();
            for (i, t) in it.enumerate() {
                let t = t?;
                let i = i as i64;
                let keep = if count >= 0 {
                    !(pos <= i && i < pos.saturating_add(count))
                } else {
                    i < pos
                };
                if keep {
                    out.push(t);
                }
            }
            Ok(lazy(out.into_iter().map(Ok)))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("replace", "collection, position, value, count=", |c| {
            let it = c.iterable(0)?;
            let (pos, count) = (c.int(1)?, c.int_or(3, 1)?);
            let value = c.opt(2)?.cloned().unwrap_or_default();
            let mut out = Vec::new();
            let mut yielded = false;
            for (i, t) in it.enumerate() {
                let t = t?;
                let i = i as i64;
                let hit = if count >= 0 {
                    pos <= i && i < pos.saturating_add(count)
                } else {
                    i >= pos
                };
                if hit {
                    if !yielded {
                        yielded = true;
                        out.push(value.clone());
                    }
                } else {
                    out.push(t);
                }
            }
            Ok(lazy(out.into_iter().map(Ok)))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("replaceMany", "collection, position, values, count=", |c| {
            let it = c.iterable(0)?;
            let (pos, count) = (c.int(1)?, c.int_or(3, 1)?);
            let values = collect(c.iterable(2)?)?;
            let mut out = Vec::new();
            let mut yielded = false;
            for (i, t) in it.enumerate() {
                let t = t?;
                let i = i as i64;
                let hit = if count >= 0 {
                    pos <= i && i < pos.saturating_add(count)
                } else {
                    i >= pos
                };
                if hit {
                    if !yielded {
                        yielded = true;
                        out.extend(values.iter().cloned());
                    }
                } else {
                    out.push(t);
                }
            }
            Ok(lazy(out.into_iter().map(Ok)))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("delete", "dict, *keys", |c| {
            let d = dict_arg(c, 0)?;
            let mut out = (**d).clone();
            for k in c.rest(1) {
                out.shift_remove(&c.force(k)?);
            }
            Ok(Value::Dict(Arc::new(out)))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("deleteAll", "dict, keys", |c| {
            let d = dict_arg(c, 0)?;
            let mut out = (**d).clone();
            for k in c.iterable(1)? {
                out.shift_remove(&k?);
            }
            Ok(Value::Dict(Arc::new(out)))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("insert", "collection, position, value", |c| {
            let coll = c.value(0)?;
            if matches!(coll, Value::Set(_)) {
                return Err(Error::mismatch());
            }
            let pos = c.int(1)?;
            let value = c.opt(2)?.cloned().unwrap_or_default();
            if let Some(items) = coll.as_slice() {
                // list_insert: Python list.insert semantics.
                let mut copy = items.to_vec();
                let n = copy.len() as i64;
                let at = if pos < 0 {
                    (pos + n).max(0)
                } else {
                    pos.min(n)
                };
                copy.insert(at as usize, value);
                return Ok(pylist(copy));
            }
            let it = c.iterable(0)?;
            let mut out = Vec::new();
            let mut last = -1i64;
            for (i, t) in it.enumerate() {
                let t = t?;
                if i as i64 == pos {
                    out.push(value.clone());
                }
                out.push(t);
                last = i as i64;
            }
            if pos > last {
                out.push(value);
            }
            Ok(lazy(out.into_iter().map(Ok)))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("insertMany", "collection, position, values", |c| {
            let it = c.iterable(0)?;
            let pos = c.int(1)?;
            let values = collect(c.iterable(2)?)?;
            let mut out = Vec::new();
            if pos < 0 {
                out.extend(values.iter().cloned());
            }
            let mut last = -1i64;
            for (i, t) in it.enumerate() {
                let t = t?;
                if i as i64 == pos {
                    out.extend(values.iter().cloned());
                }
                out.push(t);
                last = i as i64;
            }
            if pos > last {
                out.extend(values);
            }
            Ok(lazy(out.into_iter().map(Ok)))
        })
        .method(),
    );
    lib.register(FunctionDef::native("set", "*args", |c| {
        let mut out = Vec::new();
        flatten_iters(c, c.rest(0), &mut out)?;
        Ok(Value::Set(Arc::new(out.into_iter().collect())))
    }));
    lib.register(
        FunctionDef::native("toSet", "collection", |c| {
            Ok(Value::Set(Arc::new(
                c.iterable(0)?.collect::<Result<Set, _>>()?,
            )))
        })
        .method(),
    );
    type SetOp = fn(&Set, &Set) -> Set;
    let ops: [(&str, SetOp); 4] = [
        ("union", |a, b| a.union(b).cloned().collect()),
        ("intersect", |a, b| a.intersection(b).cloned().collect()),
        ("difference", |a, b| a.difference(b).cloned().collect()),
        ("symmetricDifference", |a, b| {
            a.symmetric_difference(b).cloned().collect()
        }),
    ];
    for (name, op) in ops {
        lib.register(
            FunctionDef::native(name, "left, right", move |c| {
                Ok(Value::Set(Arc::new(op(set_arg(c, 0)?, set_arg(c, 1)?))))
            })
            .method(),
        );
    }
    lib.register(FunctionDef::native("#operator_-", "left, right", |c| {
        Ok(Value::Set(Arc::new(
            set_arg(c, 0)?.difference(set_arg(c, 1)?).cloned().collect(),
        )))
    }));
    lib.register(
        FunctionDef::native("add", "set, *values", |c| {
            let mut s = (**set_arg(c, 0)?).clone();
            for v in c.rest(1) {
                s.insert(c.force(v)?);
            }
            Ok(Value::Set(Arc::new(s)))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("remove", "set, *values", |c| {
            let mut s = (**set_arg(c, 0)?).clone();
            for v in c.rest(1) {
                s.shift_remove(&c.force(v)?);
            }
            Ok(Value::Set(Arc::new(s)))
        })
        .method(),
    );
}

fn contains(c: &Call<'_>, i: usize, v: &Value) -> Result<Value, Error> {
    let coll = c.check_iterable(i)?;
    Ok(Value::Bool(match coll {
        Value::Set(s) => s.contains(v),
        Value::Dict(d) => d.contains_key(v),
        Value::List(x) | Value::Tuple(x) => x.contains(v),
        _ => {
            let mut found = false;
            for item in c.iterable(i)? {
                if item? == *v {
                    found = true;
                    break;
                }
            }
            found
        }
    }))
}
