//! queries module: LINQ-like functions, lazy where yaql is lazy.

use std::cmp::Ordering;
use std::collections::VecDeque;
use std::sync::Arc;

use super::core::compare;
use super::{collect, lazy, pylist, seq};
use crate::eval::context::Library;
use crate::eval::error::{Error, ErrorKind};
use crate::eval::func::{Call, FunctionDef};
use crate::eval::interp::{Interp, Lambda};
use crate::eval::value::{Dict, Set, Value, ValueIter};

fn stop() -> Error {
    Error::new(ErrorKind::StopIteration, "")
}

/// `memorize()`: a re-iterable copy of an iterator (materialised, within
/// `yaql.limitIterators`).
pub(crate) fn memorize(interp: &Interp, v: &Value) -> Result<Value, Error> {
    match v {
        Value::Iter(_) => Ok(seq(collect(interp.limited_iter(v)?)?)),
        other => Ok(other.clone()),
    }
}

/// Ordering used by `orderBy` (null first, then yaql's operators).
fn order(c: &Call<'_>, a: &Value, b: &Value) -> Result<Ordering, Error> {
    match (a.is_null(), b.is_null()) {
        (true, true) => return Ok(Ordering::Equal),
        (true, false) => return Ok(Ordering::Less),
        (false, true) => return Ok(Ordering::Greater),
        _ => {}
    }
    if let Some(o) = compare(a, b) {
        return Ok(o);
    }
    if c.call_function("#operator_<", vec![a.clone(), b.clone()])?
        .truthy()
    {
        Ok(Ordering::Less)
    } else if c
        .call_function("#operator_>", vec![a.clone(), b.clone()])?
        .truthy()
    {
        Ok(Ordering::Greater)
    } else {
        Ok(Ordering::Equal)
    }
}

/// An ordered collection: the items and the sort fields so far
/// (`orderBy` … `thenBy`). Sorted on each use, stable, like Python.
#[derive(Debug)]
struct Ordered {
    items: Vec<Value>,
    fields: Vec<(Arc<Lambda>, bool)>,
}

impl crate::eval::value::HostObject for Ordered {
    fn type_name(&self) -> &str {
        "OrderingIterable"
    }
}

fn sort(c: &Call<'_>, o: &Ordered) -> Result<Vec<Value>, Error> {
    let mut keyed: Vec<(Vec<Value>, Value)> = Vec::with_capacity(o.items.len());
    for it in &o.items {
        let keys = o
            .fields
            .iter()
            .map(|(f, _)| f.call1(it.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        keyed.push((keys, it.clone()));
    }
    let mut err = None;
    keyed.sort_by(|a, b| {
        for (i, (_, asc)) in o.fields.iter().enumerate() {
            match order(c, &a.0[i], &b.0[i]) {
                Ok(Ordering::Equal) => continue,
                Ok(ord) => return if *asc { ord } else { ord.reverse() },
                Err(e) => {
                    err.get_or_insert(e);
                    return Ordering::Equal;
                }
            }
        }
        Ordering::Equal
    });
    match err {
        Some(e) => Err(e),
        None => Ok(keyed.into_iter().map(|(_, v)| v).collect()),
    }
}

/// A sorted result and the sort fields that produced it.
type OrderedEntry = (std::sync::Weak<Vec<Value>>, Arc<Ordered>);

thread_local! {
    static ORDERED: std::cell::RefCell<Vec<OrderedEntry>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn make_ordered(c: &Call<'_>, o: Ordered) -> Result<Value, Error> {
    let sorted = sort(c, &o)?;
    let o = Arc::new(o);
    let _ = &o;
    // Ordered results are sequences of the sorted items; thenBy needs the
    // fields, which are kept in a side table keyed by the result identity.
    let value = Arc::new(sorted);
    ORDERED.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() > 64 {
            m.remove(0);
        }
        m.retain(|(w, _)| w.strong_count() > 0);
        m.push((Arc::downgrade(&value), o));
    });
    Ok(Value::Tuple(value))
}

fn ordered_of(v: &Value) -> Option<Arc<Ordered>> {
    let Value::Tuple(t) = v else { return None };
    ORDERED.with(|m| {
        m.borrow()
            .iter()
            .find(|(w, _)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(t)))
            .map(|(_, o)| o.clone())
    })
}

/// How deeply collections nest in `v` (0 for a scalar), knowing the depth
/// of `known` (the previous accumulator, which `v` may hold) and of the
/// collections already met in this walk; [`ErrorKind::RecursionLimit`]
/// past [`crate::eval::MAX_PRINT_DEPTH`]. Each collection met costs
/// `visits` one.
fn nesting(
    v: &Value,
    known: &Option<(Value, usize)>,
    memo: &mut std::collections::HashMap<usize, usize>,
    visits: &mut u64,
    level: usize,
) -> Result<usize, Error> {
    if let Value::Iter(_) = v {
        // A lazy accumulator cannot be looked into: count it as wrapping
        // the previous one, as chained generators do in Python (where
        // their recursion limit stops them too).
        let depth = known.as_ref().map_or(0, |(_, d)| *d) + 1;
        if depth > crate::eval::MAX_PRINT_DEPTH {
            return Err(crate::eval::value::too_deep());
        }
        return Ok(depth);
    }
    let Some(address) = v.collection_address() else {
        return Ok(0);
    };
    if let Some((k, depth)) = known {
        if k.collection_address() == Some(address) {
            return Ok(*depth);
        }
    }
    if let Some(depth) = memo.get(&address) {
        return Ok(*depth);
    }
    if level >= crate::eval::MAX_PRINT_DEPTH {
        return Err(crate::eval::value::too_deep());
    }
    *visits += 1;
    let mut deepest = 0;
    let mut visit = |x: &Value| -> Result<(), Error> {
        deepest = deepest.max(nesting(x, known, memo, visits, level + 1)?);
        Ok(())
    };
    match v {
        Value::List(items) | Value::Tuple(items) => items.iter().try_for_each(&mut visit)?,
        Value::Set(items) => items.iter().try_for_each(&mut visit)?,
        Value::Dict(d) => d.iter().try_for_each(|(k, x)| {
            visit(k)?;
            visit(x)
        })?,
        _ => {}
    }
    if deepest + 1 > crate::eval::MAX_PRINT_DEPTH {
        return Err(crate::eval::value::too_deep());
    }
    memo.insert(address, deepest + 1);
    Ok(deepest + 1)
}

/// Python's `functools.reduce`. Folding is the one way to nest values
/// without recursion (which the call depth limit bounds): the
/// accumulator's nesting is tracked as it grows, and stops at
/// [`crate::eval::MAX_PRINT_DEPTH`] levels, past which Python could not
/// print or convert it either, and dropping it would overflow the stack.
fn aggregate(
    interp: &Interp,
    it: ValueIter,
    seed: Option<Value>,
    mut f: impl FnMut(Value, Value) -> Result<Value, Error>,
) -> Result<Value, Error> {
    let mut it = it;
    let mut acc = match seed {
        Some(s) => s,
        None => match it.next() {
            Some(v) => v?,
            None => {
                return Err(Error::new(
                    ErrorKind::TypeError,
                    "reduce() of empty iterable with no initial value",
                ))
            }
        },
    };
    let mut known = None;
    for x in it {
        acc = f(acc, x?)?;
        let mut visits = 0;
        let mut memo = std::collections::HashMap::new();
        let depth = nesting(&acc, &known, &mut memo, &mut visits, 0)?;
        interp.charge(visits / 16)?;
        known = Some((acc.clone(), depth));
    }
    Ok(acc)
}

/// Registers the query functions.
pub(crate) fn register(lib: &mut Library) {
    lib.register(
        FunctionDef::native("where", "collection, ~predicate", |c| {
            let f = c.need_lambda(1)?;
            let it = c.iterable(0)?;
            Ok(lazy(it.filter_map(move |x| match x {
                Ok(v) => match f.call1(v.clone()) {
                    Ok(b) if b.truthy() => Some(Ok(v)),
                    Ok(_) => None,
                    Err(e) => Some(Err(e)),
                },
                Err(e) => Some(Err(e)),
            })))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("select", "collection, ~selector", |c| {
            let f = c.need_lambda(1)?;
            let it = c.iterable(0)?;
            Ok(lazy(it.map(move |x| f.call1(x?))))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("skip", "collection, count", |c| {
            let n = c.int(1)?.max(0) as usize;
            Ok(lazy(c.iterable(0)?.skip(n)))
        })
        .method(),
    );
    for name in ["limit", "take"] {
        lib.register(
            FunctionDef::native(name, "collection, count", |c| {
                let n = c.int(1)?.max(0) as usize;
                Ok(lazy(c.iterable(0)?.take(n)))
            })
            .method(),
        );
    }
    lib.register(
        FunctionDef::native("append", "collection, *args", |c| {
            let it = c.iterable(0)?;
            let extra: Vec<Value> = c
                .rest(1)
                .iter()
                .map(|a| c.force(a))
                .collect::<Result<_, _>>()?;
            Ok(lazy(it.chain(extra.into_iter().map(Ok))))
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("distinct", "collection, ~keySelector=", |c| {
            let ks = c.lambda(1)?;
            let it = c.iterable(0)?;
            let mut seen = Set::default();
            Ok(lazy(it.filter_map(move |x| {
                let v = match x {
                    Ok(v) => v,
                    Err(e) => return Some(Err(e)),
                };
                let key = match &ks {
                    Some(f) => match f.call1(v.clone()) {
                        Ok(k) => k,
                        Err(e) => return Some(Err(e)),
                    },
                    None => v.clone(),
                };
                if seen.insert(key) {
                    Some(Ok(v))
                } else {
                    None
                }
            })))
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("enumerate", "collection, start=", |c| {
            let start = c.int_or(1, 0)?;
            let it = c.iterable(0)?;
            Ok(lazy(it.enumerate().map(move |(i, x)| {
                Ok(pylist(vec![Value::Int(start + i as i64), x?]))
            })))
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("any", "collection, ~predicate=", |c| {
            let f = c.lambda(1)?;
            for x in c.iterable(0)? {
                let x = x?;
                match &f {
                    None => return Ok(Value::Bool(true)),
                    Some(f) => {
                        if f.call1(x)?.truthy() {
                            return Ok(Value::Bool(true));
                        }
                    }
                }
            }
            Ok(Value::Bool(false))
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("all", "collection, ~predicate=", |c| {
            let f = c.lambda(1)?;
            for x in c.iterable(0)? {
                let x = x?;
                let ok = match &f {
                    None => x.truthy(),
                    Some(f) => f.call1(x)?.truthy(),
                };
                if !ok {
                    return Ok(Value::Bool(false));
                }
            }
            Ok(Value::Bool(true))
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("concat", "*collections", |c| {
            let mut its = Vec::new();
            for i in 0..c.len() {
                its.push(c.iterable(i)?);
            }
            Ok(lazy(its.into_iter().flatten()))
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("count", "collection", |c| {
            Ok(Value::Int(
                c.iterable(0)?.try_fold(0i64, |n, x| x.map(|_| n + 1))?,
            ))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("memorize", "collection", |c| {
            c.check_iterable(0)?;
            memorize(c.interp(), c.value(0)?)
        })
        .method(),
    );
    for (name, delegate) in [("sum", "#operator_+"), ("max", "max"), ("min", "min")] {
        lib.register(
            FunctionDef::native(name, "collection, initial=", move |c| {
                let it = c.iterable(0)?;
                let seed = c.opt(1)?.cloned();
                aggregate(c.interp(), it, seed, |a, b| {
                    c.call_function(delegate, vec![a, b])
                })
            })
            .method(),
        );
    }
    lib.register(
        FunctionDef::native("first", "collection, default=", |c| {
            let default = c.opt(1)?.cloned();
            match c.iterable(0)?.next() {
                Some(v) => v,
                None => default.ok_or_else(stop),
            }
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("single", "collection", |c| {
            let mut it = c.iterable(0)?;
            let first = it.next().ok_or_else(stop)??;
            match it.next() {
                None => Ok(first),
                Some(_) => Err(Error::new(
                    ErrorKind::StopIteration,
                    "Collection contains more than one item",
                )),
            }
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("last", "collection, default=", |c| {
            let default = c.opt(1)?.cloned();
            let mut last = None;
            for x in c.iterable(0)? {
                last = Some(x?);
            }
            last.or(default).ok_or_else(stop)
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("selectMany", "collection, ~selector", |c| {
            let f = c.need_lambda(1)?;
            let it = c.iterable(0)?;
            let interp = c.interp().clone();
            Ok(lazy(it.flat_map(move |x| -> ValueIter {
                let inner = match x.and_then(|v| f.call1(v)) {
                    Ok(v) => v,
                    Err(e) => return Box::new(std::iter::once(Err(e))),
                };
                if inner.is_iterable() {
                    match interp.limited_iter(&inner) {
                        Ok(it) => it,
                        Err(e) => Box::new(std::iter::once(Err(e))),
                    }
                } else {
                    Box::new(std::iter::once(Ok(inner)))
                }
            })))
        })
        .method(),
    );
    lib.register(FunctionDef::native("range", "stop", |c| {
        let stop = c.int(0)?;
        Ok(lazy((0..stop.max(0)).map(|i| Ok(Value::Int(i)))))
    }));
    lib.register(FunctionDef::native("range", "start, stop, step=", |c| {
        let (start, stop, step) = (c.int(0)?, c.int(1)?, c.int_or(2, 1)?);
        if step == 0 {
            return Err(Error::new(
                ErrorKind::ValueError,
                "range() arg 3 must not be zero",
            ));
        }
        let mut i = start;
        Ok(lazy(std::iter::from_fn(move || {
            if (step > 0 && i < stop) || (step < 0 && i > stop) {
                let v = i;
                i = i.saturating_add(step);
                Some(Ok(Value::Int(v)))
            } else {
                None
            }
        })))
    }));
    lib.register(FunctionDef::native("sequence", "start=, step=", |c| {
        let (start, step) = (c.int_or(0, 0)?, c.int_or(1, 1)?);
        let mut i = start;
        Ok(lazy(std::iter::from_fn(move || {
            let v = i;
            i = i.saturating_add(step);
            Some(Ok(Value::Int(v)))
        })))
    }));
    for (name, asc) in [("orderBy", true), ("orderByDescending", false)] {
        lib.register(
            FunctionDef::native(name, "collection, ~selector", move |c| {
                let f = c.need_lambda(1)?;
                let items = collect(c.iterable(0)?)?;
                make_ordered(
                    c,
                    Ordered {
                        items,
                        fields: vec![(Arc::new(f), asc)],
                    },
                )
            })
            .method(),
        );
    }
    for (name, asc) in [("thenBy", true), ("thenByDescending", false)] {
        lib.register(
            FunctionDef::native(name, "collection, ~selector", move |c| {
                let Some(o) = ordered_of(c.value(0)?) else {
                    return Err(Error::mismatch());
                };
                let f = c.need_lambda(1)?;
                let mut fields = o.fields.clone();
                fields.push((Arc::new(f), asc));
                make_ordered(
                    c,
                    Ordered {
                        items: o.items.clone(),
                        fields,
                    },
                )
            })
            .method(),
        );
    }
    lib.register(
        FunctionDef::native(
            "groupBy",
            "collection, ~keySelector, ~valueSelector=, ~aggregator=",
            |c| {
                let ks = c.need_lambda(1)?;
                let vs = c.lambda(2)?;
                let agg = c.lambda(3)?;
                let mut groups: indexmap::IndexMap<
                    Value,
                    Vec<Value>,
                    crate::eval::value::KeyBuild,
                > = indexmap::IndexMap::default();
                for t in c.iterable(0)? {
                    let t = t?;
                    let v = match &vs {
                        Some(f) => f.call1(t.clone())?,
                        None => t.clone(),
                    };
                    groups.entry(ks.call1(t)?).or_default().push(v);
                }
                let mut out = Vec::new();
                let mut fallback_ok = true;
                for (k, vals) in groups {
                    let group = seq(vals);
                    let item = match &agg {
                        None => seq(vec![k, group]),
                        Some(f) => match f.call1(group.clone()) {
                            Ok(r) => {
                                let two = group.as_slice().is_some_and(|g| g.len() == 2)
                                    && r.as_slice().is_some_and(|s| {
                                        s.len() == 2
                                            && group.as_slice().is_some_and(|g| g[0] == s[0])
                                    });
                                if !two {
                                    fallback_ok = false;
                                }
                                seq(vec![k, r])
                            }
                            Err(e)
                                if fallback_ok
                                    && matches!(
                                        e.kind(),
                                        ErrorKind::NoMatchingMethod
                                            | ErrorKind::NoMatchingFunction
                                            | ErrorKind::IndexError
                                    ) =>
                            {
                                match f.call1(seq(vec![k, group])) {
                                    Ok(r) if r.as_slice().is_some_and(|s| s.len() == 2) => r,
                                    _ => return Err(e),
                                }
                            }
                            Err(e) => return Err(e),
                        },
                    };
                    out.push(Ok(item));
                }
                Ok(lazy(out.into_iter()))
            },
        )
        .method(),
    );
    lib.register(
        FunctionDef::native("zip", "*collections", |c| {
            let mut its = Vec::new();
            for i in 0..c.len() {
                its.push(c.iterable(i)?);
            }
            Ok(lazy(std::iter::from_fn(move || {
                let mut row = Vec::with_capacity(its.len());
                for it in its.iter_mut() {
                    match it.next()? {
                        Ok(v) => row.push(v),
                        Err(e) => return Some(Err(e)),
                    }
                }
                if row.is_empty() {
                    None
                } else {
                    Some(Ok(seq(row)))
                }
            })))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("zipLongest", "*collections, **kwargs", |c| {
            let mut its = Vec::new();
            for i in 0..c.len() {
                its.push(c.iterable(i)?);
            }
            let mut default = Value::Null;
            for (k, a) in c.kwargs() {
                if &**k == "default" {
                    default = c.force(a)?;
                } else {
                    return Err(Error::mismatch());
                }
            }
            let mut done = vec![false; its.len()];
            Ok(lazy(std::iter::from_fn(move || {
                let mut row = Vec::with_capacity(its.len());
                for (i, it) in its.iter_mut().enumerate() {
                    if done[i] {
                        row.push(default.clone());
                        continue;
                    }
                    match it.next() {
                        Some(Ok(v)) => row.push(v),
                        Some(Err(e)) => return Some(Err(e)),
                        None => {
                            done[i] = true;
                            row.push(default.clone());
                        }
                    }
                }
                if done.iter().all(|d| *d) {
                    None
                } else {
                    Some(Ok(seq(row)))
                }
            })))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native(
            "join",
            "collection1, collection2, ~predicate, ~selector",
            |c| {
                let left = collect(c.iterable(0)?)?;
                let right = collect(c.iterable(1)?)?;
                let (p, s) = (c.need_lambda(2)?, c.need_lambda(3)?);
                let mut out = Vec::new();
                for a in &left {
                    for b in &right {
                        if p.call(&[a.clone(), b.clone()])?.truthy() {
                            out.push(Ok(s.call(&[a.clone(), b.clone()])?));
                        }
                    }
                }
                Ok(lazy(out.into_iter()))
            },
        )
        .method(),
    );
    lib.register(
        FunctionDef::native("repeat", "value, times=", |c| {
            let v = c.opt(0)?.cloned().unwrap_or_default();
            let times = c.int_or(1, -1)?;
            if times < 0 {
                Ok(lazy(std::iter::repeat(v).map(Ok)))
            } else {
                Ok(lazy(std::iter::repeat_n(v, times as usize).map(Ok)))
            }
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("cycle", "collection", |c| {
            let items = collect(c.iterable(0)?)?;
            if items.is_empty() {
                return Ok(lazy(std::iter::empty()));
            }
            Ok(lazy(items.into_iter().cycle().map(Ok)))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("takeWhile", "collection, ~predicate", |c| {
            let f = c.need_lambda(1)?;
            let mut it = c.iterable(0)?;
            let mut done = false;
            Ok(lazy(std::iter::from_fn(move || {
                if done {
                    return None;
                }
                let v = match it.next()? {
                    Ok(v) => v,
                    Err(e) => return Some(Err(e)),
                };
                match f.call1(v.clone()) {
                    Ok(b) if b.truthy() => Some(Ok(v)),
                    Ok(_) => {
                        done = true;
                        None
                    }
                    Err(e) => Some(Err(e)),
                }
            })))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("skipWhile", "collection, ~predicate", |c| {
            let f = c.need_lambda(1)?;
            let it = c.iterable(0)?;
            let mut skipping = true;
            Ok(lazy(it.filter_map(move |x| {
                let v = match x {
                    Ok(v) => v,
                    Err(e) => return Some(Err(e)),
                };
                if skipping {
                    match f.call1(v.clone()) {
                        Ok(b) if b.truthy() => return None,
                        Ok(_) => skipping = false,
                        Err(e) => return Some(Err(e)),
                    }
                }
                Some(Ok(v))
            })))
        })
        .method(),
    );
    for (name, last) in [("indexOf", false), ("lastIndexOf", true)] {
        lib.register(
            FunctionDef::native(name, "collection, item", move |c| {
                let item = c.opt(1)?.cloned().unwrap_or_default();
                let mut idx = -1;
                for (i, t) in c.iterable(0)?.enumerate() {
                    if t? == item {
                        idx = i as i64;
                        if !last {
                            break;
                        }
                    }
                }
                Ok(Value::Int(idx))
            })
            .method(),
        );
    }
    for (name, last) in [("indexWhere", false), ("lastIndexWhere", true)] {
        lib.register(
            FunctionDef::native(name, "collection, ~predicate", move |c| {
                let f = c.need_lambda(1)?;
                let mut idx = -1;
                for (i, t) in c.iterable(0)?.enumerate() {
                    if f.call1(t?)?.truthy() {
                        idx = i as i64;
                        if !last {
                            break;
                        }
                    }
                }
                Ok(Value::Int(idx))
            })
            .method(),
        );
    }
    lib.register(
        FunctionDef::native("slice", "collection, length", |c| {
            let n = c.int(1)?;
            let items = collect(c.iterable(0)?)?;
            if n <= 0 {
                return Ok(lazy(std::iter::empty()));
            }
            let chunks: Vec<Result<Value, Error>> = items
                .chunks(n as usize)
                .map(|ch| Ok(seq(ch.to_vec())))
                .collect();
            Ok(lazy(chunks.into_iter()))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("splitWhere", "collection, ~predicate", |c| {
            let f = c.need_lambda(1)?;
            let lst = collect(c.iterable(0)?)?;
            let mut out = Vec::new();
            let (mut start, mut end) = (0, 0);
            while end < lst.len() {
                if f.call1(lst[end].clone())?.truthy() {
                    out.push(Ok(seq(lst[start..end].to_vec())));
                    start = end + 1;
                }
                end += 1;
            }
            if start != end {
                out.push(Ok(seq(lst[start..end].to_vec())));
            }
            Ok(lazy(out.into_iter()))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("sliceWhere", "collection, ~predicate", |c| {
            let f = c.need_lambda(1)?;
            let lst = collect(c.iterable(0)?)?;
            let mut out = Vec::new();
            let (mut start, mut end) = (0, 0);
            let mut p1: Option<Value> = None;
            while end < lst.len() {
                let p2 = f.call1(lst[end].clone())?;
                if let Some(p) = &p1 {
                    if *p != p2 {
                        out.push(Ok(seq(lst[start..end].to_vec())));
                        start = end;
                    }
                }
                end += 1;
                p1 = Some(p2);
            }
            if start != end {
                out.push(Ok(seq(lst[start..end].to_vec())));
            }
            Ok(lazy(out.into_iter()))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("splitAt", "collection, index", |c| {
            let idx = c.int(1)?;
            let lst = collect(c.iterable(0)?)?;
            let (a, _) = super::strings::py_slice(lst.len(), idx, idx);
            Ok(pylist(vec![seq(lst[..a].to_vec()), seq(lst[a..].to_vec())]))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("aggregate", "collection, ~selector, seed=", |c| {
            let f = c.need_lambda(1)?;
            let seed = c.opt(2)?.cloned();
            aggregate(c.interp(), c.iterable(0)?, seed, |a, b| f.call(&[a, b]))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("reverse", "collection", |c| {
            let mut lst = collect(c.iterable(0)?)?;
            lst.reverse();
            Ok(lazy(lst.into_iter().map(Ok)))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native(
            "mergeWith",
            "dict, another, ~listMerger=, ~itemMerger=, maxLevels=",
            |c| {
                let (Value::Dict(a), Value::Dict(b)) = (c.value(0)?, c.value(1)?) else {
                    return Err(Error::mismatch());
                };
                let lm = c.lambda(2)?;
                let im = c.lambda(3)?;
                let max_levels = c.int_or(4, 0)?;
                merge(c, a, b, &lm, &im, max_levels)
            },
        )
        .method(),
    );
    lib.register(FunctionDef::native("isIterable", "value", |c| {
        Ok(Value::Bool(c.opt(0)?.is_some_and(Value::is_iterable)))
    }));
    lib.register(
        FunctionDef::native("accumulate", "collection, ~selector, seed=", |c| {
            let f = c.need_lambda(1)?;
            let mut it = c.iterable(0)?;
            let seed = match c.opt(2)? {
                Some(s) => s.clone(),
                None => match it.next() {
                    Some(v) => v?,
                    None => {
                        return Err(Error::new(
                            ErrorKind::TypeError,
                            "accumulate() of empty sequence with no initial value",
                        ))
                    }
                },
            };
            let mut out = vec![Ok(seed.clone())];
            let mut total = seed;
            for x in it {
                total = f.call(&[total, x?])?;
                out.push(Ok(total.clone()));
            }
            Ok(lazy(out.into_iter()))
        })
        .method(),
    );
    lib.register(FunctionDef::native(
        "generate",
        "initial, ~predicate, ~producer, ~selector=, decycle=",
        |c| {
            let mut initial = c.opt(0)?.cloned().unwrap_or_default();
            let (p, prod) = (c.need_lambda(1)?, c.need_lambda(2)?);
            let sel = c.lambda(3)?;
            let decycle = c.opt(4)?.is_some_and(Value::truthy);
            let mut past = Set::default();
            let limit = c.interp().options().limit_iterators;
            let mut out = Vec::new();
            while p.call1(initial.clone())?.truthy() {
                c.interp().step()?;
                if decycle && !past.insert(initial.clone()) {
                    break;
                }
                out.push(match &sel {
                    Some(s) => s.call1(initial.clone())?,
                    None => initial.clone(),
                });
                if limit.is_some_and(|l| out.len() > l) {
                    return Err(Error::new(
                        ErrorKind::CollectionTooLarge,
                        "Collection length exceeds limit",
                    ));
                }
                initial = prod.call1(initial)?;
            }
            Ok(lazy(out.into_iter().map(Ok)))
        },
    ));
    lib.register(FunctionDef::native(
        "generateMany",
        "initial, ~producer, ~selector=, decycle=, depthFirst=",
        |c| {
            let initial = c.opt(0)?.cloned().unwrap_or_default();
            let prod = c.need_lambda(1)?;
            let sel = c.lambda(2)?;
            let decycle = c.opt(3)?.is_some_and(Value::truthy);
            let depth_first = c.opt(4)?.is_some_and(Value::truthy);
            let limit = c.interp().options().limit_iterators;
            let mut past = Set::default();
            let mut queue = VecDeque::from([initial]);
            let mut out = Vec::new();
            while let Some(item) = queue.pop_front() {
                c.interp().step()?;
                if decycle && !past.insert(item.clone()) {
                    continue;
                }
                out.push(match &sel {
                    Some(s) => s.call1(item.clone())?,
                    None => item.clone(),
                });
                if limit.is_some_and(|l| out.len() > l) {
                    return Err(Error::new(
                        ErrorKind::CollectionTooLarge,
                        "Collection length exceeds limit",
                    ));
                }
                let produced = prod.call1(item)?;
                let produced = collect(c.interp().limited_iter(&produced)?)?;
                if depth_first {
                    for v in produced.into_iter().rev() {
                        queue.push_front(v);
                    }
                } else {
                    queue.extend(produced);
                }
            }
            Ok(lazy(out.into_iter().map(Ok)))
        },
    ));
    lib.register(
        FunctionDef::native("defaultIfEmpty", "collection, default", |c| {
            let coll = c.check_iterable(0)?;
            c.check_iterable(1)?;
            let default = c.value(1)?.clone();
            match coll {
                Value::Iter(_) => {
                    let items = collect(c.iterable(0)?)?;
                    Ok(if items.is_empty() {
                        default
                    } else {
                        lazy(items.into_iter().map(Ok))
                    })
                }
                Value::List(x) | Value::Tuple(x) => {
                    Ok(if x.is_empty() { default } else { coll.clone() })
                }
                Value::Set(s) => Ok(if s.is_empty() { default } else { coll.clone() }),
                Value::Dict(d) => Ok(if d.is_empty() { default } else { coll.clone() }),
                _ => Err(Error::mismatch()),
            }
        })
        .method(),
    );
}

fn merge(
    _c: &Call<'_>,
    a: &Dict,
    b: &Dict,
    lm: &Option<Lambda>,
    im: &Option<Lambda>,
    max_levels: i64,
) -> Result<Value, Error> {
    let mut out = Dict::default();
    for (k, v1) in a.iter() {
        let mut r = v1.clone();
        if let Some(v2) = b.get(k) {
            if max_levels != 1 && matches!(v2, Value::Dict(_)) {
                let (Value::Dict(d1), Value::Dict(d2)) = (v1, v2) else {
                    return Err(Error::new(ErrorKind::TypeError, "Cannot merge"));
                };
                r = merge(
                    _c,
                    d1,
                    d2,
                    lm,
                    im,
                    if max_levels == 0 { 0 } else { max_levels - 1 },
                )?;
            } else if max_levels != 1 && v2.is_sequence() {
                if !v1.is_sequence() {
                    return Err(Error::new(ErrorKind::TypeError, "Cannot merge"));
                }
                r = match lm {
                    Some(f) => f.call(&[v1.clone(), v2.clone()])?,
                    None => {
                        let mut all: Vec<Value> = v1.as_slice().unwrap_or(&[]).to_vec();
                        all.extend(v2.as_slice().unwrap_or(&[]).iter().cloned());
                        let mut seen = Set::default();
                        seq(all.into_iter().filter(|x| seen.insert(x.clone())).collect())
                    }
                };
            } else {
                r = match im {
                    Some(f) => f.call(&[v1.clone(), v2.clone()])?,
                    None => v2.clone(),
                };
            }
        }
        out.insert(k.clone(), r);
    }
    for (k, v) in b.iter() {
        if !out.contains_key(k) {
            out.insert(k.clone(), v.clone());
        }
    }
    Ok(Value::Dict(Arc::new(out)))
}
