//! Resolving the intrinsic functions that need only parameters, as each
//! HOT version has them, and the resolution report of a whole template
//! (outputs, resource properties, conditions).

use crate::engine::{invalid_reference, Call, Env, Snip, NULL};
use crate::error::{ErrorClass, HeatError, Result};
use crate::value::Value;
use crate::version::{Function, TemplateVersion};
use crate::Template;

fn type_err(m: impl Into<String>) -> HeatError {
    HeatError::new(ErrorClass::TypeError, m)
}
fn value_err(m: impl Into<String>) -> HeatError {
    HeatError::new(ErrorClass::ValueError, m)
}

fn repr200(v: &Value) -> String {
    v.py_repr().chars().take(200).collect()
}

/// Python `json.dumps(v, sort_keys=True)`.
fn dumps_sorted(v: &Value) -> Option<String> {
    fn sort(v: &Value) -> Value {
        match v {
            Value::Map(m) => {
                let mut m: Vec<(Value, Value)> =
                    m.iter().map(|(k, v)| (k.clone(), sort(v))).collect();
                m.sort_by_key(|a| a.0.py_str());
                Value::Map(m)
            }
            Value::List(l) => Value::List(l.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(v).json_dumps()
}

fn check_size(env: &Env<'_>, n: usize) -> Result<()> {
    if n > env.limits.max_result_size {
        return Err(HeatError::new(
            ErrorClass::Limit,
            format!("function result larger than {}", env.limits.max_result_size),
        ));
    }
    Ok(())
}

/// The result of one function call.
pub(crate) fn call(env: &Env<'_>, c: &Call, depth: usize) -> Result<Value> {
    use Function::*;
    let name = c.name;
    match c.f {
        GetParam | CfnRef => get_param(env, c, depth),
        ListJoin => list_join(env, c, depth),
        CfnJoin => {
            let args = env.resolve(&c.args, depth)?;
            let (delim, items) = match &args {
                Value::List(l) if l.len() == 2 => (&l[0], &l[1]),
                _ => return Err(type_err(format!("Incorrect arguments to \"{name}\""))),
            };
            let Value::Str(d) = delim else {
                return Err(type_err(format!("\"{name}\" delimiter must be a string")));
            };
            let Value::List(items) = items else {
                return Err(type_err(format!("\"{name}\" must operate on a list")));
            };
            let mut parts = Vec::new();
            for i in items {
                match i {
                    Value::Null => parts.push(String::new()),
                    Value::Str(s) => parts.push(s.clone()),
                    other => {
                        return Err(type_err(format!(
                            "Items to join must be strings not {}",
                            repr200(other)
                        )))
                    }
                }
            }
            Ok(Value::Str(parts.join(d)))
        }
        StrReplace | StrReplaceStrict | StrReplaceVstrict => str_replace(env, c, depth),
        Repeat => repeat(env, c, depth),
        Digest => digest(env, c, depth),
        StrSplit => str_split(env, c, depth),
        MapMerge => {
            let args = env.resolve(&c.args, depth)?;
            let Value::List(items) = args else {
                return Err(type_err(format!(
                    "Incorrect arguments to \"{name}\" should be: \"{name}\" : [ {{ \"key1\": \"val1\" }}, {{ \"key2\": \"val2\" }} ]"
                )));
            };
            let mut out: Vec<(Value, Value)> = Vec::new();
            for m in items {
                match m {
                    Value::Null => {}
                    Value::Map(m) => {
                        for (k, v) in m {
                            if let Some(e) = out.iter_mut().find(|(ok, _)| ok.py_eq(&k)) {
                                e.1 = v;
                            } else {
                                out.push((k, v));
                            }
                        }
                    }
                    other => {
                        return Err(type_err(format!(
                            "Incorrect arguments: Items to merge must be maps. {} is type <class '{}'> instead of a dict",
                            repr200(&other),
                            other.type_name()
                        )))
                    }
                }
            }
            Ok(Value::Map(out))
        }
        MapReplace => map_replace(env, c, depth),
        Equals => {
            let Snip::List(l) = &c.args else {
                return Err(value_err("bad equals"));
            };
            let a = env.resolve(&l[0], depth)?;
            let b = env.resolve(&l[1], depth)?;
            Ok(Value::Bool(a.py_eq(&b)))
        }
        Not => {
            let cd = env.resolve(&c.args, depth)?;
            Ok(Value::Bool(!env.condition_enabled(&cd)?))
        }
        And | Or => {
            let args = env.resolve(&c.args, depth)?;
            let items = match args {
                Value::List(l) => l,
                Value::Str(s) => s.chars().map(|c| Value::Str(c.to_string())).collect(),
                _ => Vec::new(),
            };
            let want_all = c.f == And;
            for cd in &items {
                let b = env.condition_enabled(cd)?;
                if want_all && !b {
                    return Ok(Value::Bool(false));
                }
                if !want_all && b {
                    return Ok(Value::Bool(true));
                }
            }
            Ok(Value::Bool(want_all))
        }
        Filter => {
            let Snip::List(l) = &c.args else {
                return Err(type_err("bad filter"));
            };
            let sequence = env.resolve(&l[1], depth)?;
            if !sequence.truthy() {
                return Ok(sequence);
            }
            let Value::List(seq) = sequence else {
                return Err(type_err(format!("\"{name}\" only works with lists")));
            };
            let values = env.resolve(&l[0], depth)?;
            if !values.truthy() {
                return Ok(Value::List(seq));
            }
            let Value::List(values) = values else {
                return Err(type_err(format!("\"{name}\" filters a list of values")));
            };
            Ok(Value::List(
                seq.into_iter()
                    .filter(|i| !values.iter().any(|v| v.py_eq(i)))
                    .collect(),
            ))
        }
        ListConcat | ListConcatUnique => {
            let args = env.resolve(&c.args, depth)?;
            let Value::List(items) = &args else {
                return Err(type_err(format!(
                    "Incorrect arguments to \"{name}\" should be: \"{name}\" : [ [ <value 1>, <value 2> ], [ <value 3>, <value 4> ] ]"
                )));
            };
            let mut out: Vec<Value> = Vec::new();
            for m in items {
                match m {
                    Value::Null => {}
                    Value::List(l) => out.extend(l.iter().cloned()),
                    other => {
                        return Err(type_err(format!(
                            "Incorrect arguments: Items to concat must be lists. {} contains an item that is not a list: {}",
                            args.json_dumps().unwrap_or_default(),
                            other.json_dumps().unwrap_or_default()
                        )))
                    }
                }
                check_size(env, out.len())?;
            }
            if c.f == ListConcatUnique {
                let mut unique: Vec<Value> = Vec::new();
                for i in out {
                    if !unique.iter().any(|u| u.py_eq(&i)) {
                        unique.push(i);
                    }
                }
                out = unique;
            }
            Ok(Value::List(out))
        }
        Contains => {
            let Snip::List(l) = &c.args else {
                return Err(type_err("bad contains"));
            };
            let v = env.resolve(&l[0], depth)?;
            let seq = env.resolve(&l[1], depth)?;
            match seq {
                Value::List(items) => Ok(Value::Bool(items.iter().any(|i| i.py_eq(&v)))),
                Value::Str(s) => match v {
                    Value::Str(x) => Ok(Value::Bool(s.contains(&x))),
                    other => Err(type_err(format!(
                        "'in <string>' requires string as left operand, not {}",
                        other.type_name()
                    ))),
                },
                _ => Err(type_err(format!(
                    "Second argument to \"{name}\" should be a sequence."
                ))),
            }
        }
        CfnSelect => {
            let args = env.resolve(&c.args, depth)?;
            let Value::List(l) = &args else {
                return Err(type_err(format!("Arguments to \"{name}\" must be a list")));
            };
            if l.len() != 2 {
                return Err(value_err(format!(
                    "Arguments to \"{name}\" must be of the form [index, collection]"
                )));
            }
            let (index, coll) = (&l[0], &l[1]);
            match coll {
                Value::Null => Ok(Value::Str(String::new())),
                Value::List(items) => {
                    let i = match index {
                        Value::Int(n) => *n,
                        Value::Str(s) => murano_yaql::pyint::parse(s).map_err(|_| {
                            value_err(format!("Index to \"{name}\" must be an integer"))
                        })?,
                        _ => {
                            return Err(type_err(format!("Index to \"{name}\" must be an integer")))
                        }
                    };
                    Ok(usize::try_from(i)
                        .ok()
                        .and_then(|i| items.get(i).cloned())
                        .unwrap_or(Value::Str(String::new())))
                }
                Value::Map(m) => {
                    let Value::Str(_) = index else {
                        return Err(type_err(format!("Index to \"{name}\" must be a string")));
                    };
                    Ok(m.iter()
                        .find(|(k, _)| k.py_eq(index))
                        .map(|(_, v)| v.clone())
                        .unwrap_or(Value::Str(String::new())))
                }
                _ => Err(type_err(format!(
                    "Arguments to \"{name}\" not fully resolved"
                ))),
            }
        }
        CfnBase64 => {
            let v = env.resolve(&c.args, depth)?;
            match v {
                Value::Str(_) => Ok(v),
                _ => Err(type_err(format!("\"{name}\" argument must be a string"))),
            }
        }
        CfnSplit => {
            let args = env.resolve(&c.args, depth)?;
            match &args {
                Value::List(l) if l.len() == 2 => match (&l[0], &l[1]) {
                    (Value::Str(d), Value::Str(s)) => Ok(Value::List(
                        s.split(d.as_str())
                            .map(|p| Value::Str(p.to_owned()))
                            .collect(),
                    )),
                    _ => Err(type_err(format!("Incorrect arguments to \"{name}\""))),
                },
                _ => Err(type_err(format!("Incorrect arguments to \"{name}\""))),
            }
        }
        CfnReplace => {
            let args = env.resolve(&c.args, depth)?;
            let (mapping, string) = match &args {
                Value::List(l) if l.len() == 2 => (&l[0], &l[1]),
                _ => return Err(type_err(format!("Incorrect arguments to \"{name}\""))),
            };
            let (Value::Map(m), Value::Str(s)) = (mapping, string) else {
                return Err(type_err(format!("Incorrect arguments to \"{name}\"")));
            };
            let mut out = s.clone();
            for (k, v) in m {
                let (Value::Str(k), v) = (k, v) else { continue };
                let v = match v {
                    Value::Null => String::new(),
                    Value::Str(s) => s.clone(),
                    Value::Int(_) | Value::Float(_) | Value::Bool(_) => v.py_str(),
                    _ => {
                        return Err(type_err(format!(
                            "\"{name}\" parameters must be strings or numbers"
                        )))
                    }
                };
                out = out.replace(k.as_str(), &v);
                check_size(env, out.len())?;
            }
            Ok(Value::Str(out))
        }
        CfnMemberListToMap => Err(value_err(format!("\"{name}\" is not resolved here"))),
        If => Err(value_err("if is resolved while parsing")),
        MakeUrl => make_url(env, c, depth),
        Yaql => yaql(env, c, depth),
        GetResource | GetAttr | GetFile | ResourceFacade | CfnGetAZs | CfnResourceFacade => Err(
            HeatError::new(ErrorClass::Limit, format!("\"{name}\" needs resources")),
        ),
        Removed => Ok(Value::Map(vec![(
            Value::Str(name.to_owned()),
            env.resolve(&c.args, depth)?,
        )])),
    }
}

fn to_yaql(v: &Value) -> murano_yaql::eval::Value {
    use murano_yaql::eval::Value as Y;
    use std::sync::Arc;
    match v {
        Value::Null => Y::Null,
        Value::Bool(b) => Y::Bool(*b),
        Value::Int(n) => Y::Int(*n),
        Value::BigInt(s) => Y::Float(s.parse().unwrap_or(f64::INFINITY)),
        Value::Float(x) => Y::Float(*x),
        Value::Str(s) => Y::str(s),
        Value::Bytes(b) => Y::str(&String::from_utf8_lossy(b)),
        Value::List(l) => Y::List(Arc::new(l.iter().map(to_yaql).collect())),
        Value::Map(m) => Y::dict(m.iter().map(|(k, v)| (to_yaql(k), to_yaql(v)))),
    }
}

fn from_yaql(v: &murano_yaql::eval::Value, depth: usize) -> Result<Value> {
    use murano_yaql::eval::Value as Y;
    if depth > 256 {
        return Err(HeatError::new(
            ErrorClass::Limit,
            "yaql result nested too deeply",
        ));
    }
    Ok(match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(*b),
        Y::Int(n) => Value::Int(*n),
        Y::Float(x) => Value::Float(*x),
        Y::Str(s) => Value::Str(s.to_string()),
        Y::List(l) | Y::Tuple(l) => Value::List(
            l.iter()
                .map(|x| from_yaql(x, depth + 1))
                .collect::<Result<_>>()?,
        ),
        Y::Set(set) => Value::List(
            set.iter()
                .map(|x| from_yaql(x, depth + 1))
                .collect::<Result<_>>()?,
        ),
        Y::Dict(d) => Value::Map(
            d.iter()
                .map(|(k, v)| Ok((from_yaql(k, depth + 1)?, from_yaql(v, depth + 1)?)))
                .collect::<Result<_>>()?,
        ),
        other => Value::Str(format!("{other:?}")),
    })
}

/// Heat's `yaql` function: yaql's standard grammar and library, Heat's
/// limits (`limit_iterators` 200, `memory_quota` 10000), `$` =
/// `{"data": <data>}`.
fn yaql(env: &Env<'_>, c: &Call, depth: usize) -> Result<Value> {
    use murano_yaql::eval::{convert_input, Context, Engine, Library, Options};
    use std::sync::{Arc, OnceLock};
    static LIBRARY: OnceLock<Arc<Library>> = OnceLock::new();
    let name = c.name;
    let expr = env.resolve(
        c.args
            .map_get_pub("expression")
            .unwrap_or(&Snip::Data(&NULL)),
        depth,
    )?;
    let Value::Str(expr) = expr else {
        return Err(type_err(format!(
            "The \"expression\" argument to {name} must contain a string."
        )));
    };
    let engine = Engine::new(
        murano_yaql::Grammar::standard(),
        Options {
            limit_iterators: Some(200),
            memory_quota: Some(10_000),
            ..Options::default()
        },
    );
    let query = engine
        .compile(&expr)
        .map_err(|e| value_err(format!("Bad expression {e}.")))?;
    let data = match c.args.map_get_pub("data") {
        Some(d) => env.resolve(d, depth)?,
        None => Value::Map(Vec::new()),
    };
    let library = LIBRARY.get_or_init(|| Arc::new(Library::standard(false)));
    let mut ctx = Context::new(library.clone());
    let root = Value::Map(vec![(Value::Str("data".into()), data)]);
    ctx.set("$", convert_input(to_yaql(&root)));
    let result = query.evaluate(&ctx).map_err(|e| {
        let class = match e.python_name() {
            "ValueError" => ErrorClass::ValueError,
            "TypeError" => ErrorClass::TypeError,
            "KeyError" => ErrorClass::KeyError,
            _ => ErrorClass::ValueError,
        };
        HeatError::new(class, e.message().to_owned())
    })?;
    // A result that shares one big list or string is small in memory and
    // can be exponentially long expanded: its text, measured first (each
    // shared part once), must fit the result limit.
    if result
        .check_printed_len(env.limits.max_result_size)
        .is_err()
    {
        return Err(HeatError::new(
            ErrorClass::Limit,
            format!(
                "yaql result larger than {} characters",
                env.limits.max_result_size
            ),
        ));
    }
    from_yaql(&result, 0)
}

fn get_param(env: &Env<'_>, c: &Call, depth: usize) -> Result<Value> {
    let name = c.name;
    let args = env.resolve(&c.args, depth)?;
    if !args.truthy() {
        return Err(value_err(format!(
            "Function \"{name}\" must have arguments"
        )));
    }
    let (param, path): (Value, Vec<Value>) = match &args {
        Value::Str(s) => (Value::Str(s.clone()), Vec::new()),
        Value::List(l) => (l[0].clone(), l[1..].to_vec()),
        _ => {
            return Err(type_err(format!(
                "Argument to \"{name}\" must be string or list"
            )))
        }
    };
    let Value::Str(param) = param else {
        return Err(type_err(format!(
            "Parameter name in \"{name}\" must be string"
        )));
    };
    let mut cur = env.param(&param)?;
    for key in &path {
        let next = match (&cur, key) {
            (Value::Map(m), Value::Str(_) | Value::Int(_) | Value::Bool(_)) => {
                m.iter().find(|(k, _)| k.py_eq(key)).map(|(_, v)| v.clone())
            }
            (Value::List(_) | Value::Str(_), Value::Str(_) | Value::Int(_) | Value::Bool(_)) => {
                let idx = match key {
                    Value::Int(n) => Some(*n),
                    Value::Bool(b) => Some(i64::from(*b)),
                    Value::Str(s) => murano_yaql::pyint::parse(s).ok(),
                    _ => None,
                };
                idx.and_then(|i| match &cur {
                    Value::List(l) => {
                        let n = l.len() as i64;
                        let i = if i < 0 { i + n } else { i };
                        usize::try_from(i).ok().and_then(|i| l.get(i).cloned())
                    }
                    Value::Str(s) => {
                        let chars: Vec<char> = s.chars().collect();
                        let n = chars.len() as i64;
                        let i = if i < 0 { i + n } else { i };
                        usize::try_from(i)
                            .ok()
                            .and_then(|i| chars.get(i))
                            .map(|c| Value::Str(c.to_string()))
                    }
                    _ => None,
                })
            }
            _ => None,
        };
        match next {
            Some(v) => cur = v,
            None => return Ok(Value::Str(String::new())),
        }
    }
    Ok(cur)
}

fn list_join(env: &Env<'_>, c: &Call, depth: usize) -> Result<Value> {
    let name = c.name;
    let Snip::List(l) = &c.args else {
        return Err(type_err("bad list_join"));
    };
    let multiple = env.version >= TemplateVersion::Hot20151015;
    let mut strings: Vec<Value> = Vec::new();
    if multiple {
        for jl in &l[1..] {
            let jl = env.resolve(jl, depth)?;
            if jl.truthy() {
                match jl {
                    Value::List(items) => strings.extend(items),
                    _ => return Err(type_err(format!("\"{name}\" must operate on a list"))),
                }
            }
        }
    } else {
        let s = env.resolve(&l[1], depth)?;
        match s {
            Value::Null => {}
            Value::List(items) => strings = items,
            _ => return Err(type_err(format!("\"{name}\" must operate on a list"))),
        }
    }
    let delim = env.resolve(&l[0], depth)?;
    let Value::Str(delim) = delim else {
        return Err(type_err(format!("\"{name}\" delimiter must be a string")));
    };
    let mut parts = Vec::with_capacity(strings.len());
    let mut total = 0usize;
    for s in &strings {
        let p = match s {
            Value::Null => String::new(),
            Value::Str(s) => s.clone(),
            Value::Map(_) | Value::List(_) if multiple => dumps_sorted(s).ok_or_else(|| {
                type_err(format!(
                    "Items to join must be string, map or list. {} failed json serialization",
                    repr200(s)
                ))
            })?,
            other => {
                return Err(type_err(if multiple {
                    format!(
                        "Items to join must be string, map or list not {}",
                        repr200(other)
                    )
                } else {
                    format!("Items to join must be strings not {}", repr200(other))
                }))
            }
        };
        total += p.len() + delim.len();
        check_size(env, total)?;
        parts.push(p);
    }
    Ok(Value::Str(parts.join(&delim)))
}

fn str_replace(env: &Env<'_>, c: &Call, depth: usize) -> Result<Value> {
    let name = c.name;
    let json = env.version >= TemplateVersion::Hot20151015;
    let strict = matches!(
        c.f,
        Function::StrReplaceStrict | Function::StrReplaceVstrict
    );
    let allow_empty = c.f != Function::StrReplaceVstrict;
    let template = env.resolve(
        c.args.map_get_pub("template").unwrap_or(&Snip::Data(&NULL)),
        depth,
    )?;
    let mapping = env.resolve(
        c.args.map_get_pub("params").unwrap_or(&Snip::Data(&NULL)),
        depth,
    )?;
    let Value::Str(template) = template else {
        return Err(type_err(format!("\"{name}\" template must be a string")));
    };
    let Value::Map(mapping) = mapping else {
        return Err(type_err(format!("\"{name}\" params must be a map")));
    };
    let empty_err = |param: &str| {
        value_err(format!(
            "{name} has an undefined or empty value for param {param}, must be a defined non-empty value"
        ))
    };
    // Keys sorted by length descending, then lexicographically.
    let mut keys: Vec<&(Value, Value)> = mapping.iter().collect();
    for (k, _) in &keys {
        if !matches!(k, Value::Str(_)) {
            return Err(type_err(format!(
                "\"{name}\" param placeholders must be strings"
            )));
        }
    }
    keys.sort_by(|a, b| {
        let (a, b) = (a.0.as_str().unwrap_or(""), b.0.as_str().unwrap_or(""));
        b.chars().count().cmp(&a.chars().count()).then(a.cmp(b))
    });
    let mut replacements = Vec::with_capacity(keys.len());
    for (k, v) in &keys {
        let key = k.as_str().unwrap_or("");
        let val = match v {
            Value::Null => {
                if allow_empty {
                    String::new()
                } else {
                    return Err(empty_err(key));
                }
            }
            Value::Str(_) | Value::Int(_) | Value::BigInt(_) | Value::Float(_) | Value::Bool(_) => {
                v.py_str()
            }
            Value::Map(_) | Value::List(_) | Value::Bytes(_) if json => {
                if !allow_empty && !v.truthy() {
                    return Err(empty_err(key));
                }
                dumps_sorted(v).ok_or_else(|| {
                    type_err(format!(
                        "\"{name}\" params must be strings, numbers, list or map. Failed to json serialize {}",
                        v.py_str()
                    ))
                })?
            }
            _ if json => {
                return Err(type_err(format!(
                    "\"{name}\" params must be strings, numbers, list or map."
                )))
            }
            _ => {
                return Err(type_err(format!(
                    "\"{name}\" params must be strings or numbers, param {key} is not valid"
                )))
            }
        };
        if !allow_empty && val.is_empty() {
            return Err(empty_err(key));
        }
        replacements.push((key.to_owned(), val));
    }
    let mut unreplaced: Vec<String> = if strict {
        replacements.iter().map(|(k, _)| k.clone()).collect()
    } else {
        Vec::new()
    };
    let out = replace_rec(env, &template, &replacements, &mut unreplaced)?;
    if strict && !unreplaced.is_empty() {
        let mut u = unreplaced;
        u.sort();
        u.sort_by_key(|a| std::cmp::Reverse(a.chars().count()));
        return Err(value_err(format!(
            "The following params were not found in the template: {}",
            u.join(",")
        )));
    }
    Ok(Value::Str(out))
}

fn replace_rec(
    env: &Env<'_>,
    s: &str,
    keys: &[(String, String)],
    unreplaced: &mut Vec<String>,
) -> Result<String> {
    let Some(((key, value), rest)) = keys.split_first() else {
        return Ok(s.to_owned());
    };
    let parts: Vec<&str> = if key.is_empty() {
        // Python's str.split('') raises ValueError: empty separator.
        return Err(value_err("empty separator"));
    } else {
        s.split(key.as_str()).collect()
    };
    if parts.len() > 1 {
        unreplaced.retain(|k| k != key);
    }
    let mut out = Vec::with_capacity(parts.len());
    for p in parts {
        out.push(replace_rec(env, p, rest, unreplaced)?);
    }
    let joined = out.join(value);
    check_size(env, joined.len())?;
    Ok(joined)
}

fn repeat(env: &Env<'_>, c: &Call, depth: usize) -> Result<Value> {
    let name = c.name;
    let for_each = env.resolve(
        c.args.map_get_pub("for_each").unwrap_or(&Snip::Data(&NULL)),
        depth,
    )?;
    let with_map = env.version >= TemplateVersion::Hot20161014;
    let nested = match c.args.map_get_pub("permutations") {
        Some(Snip::Data(Value::Bool(b))) if env.version >= TemplateVersion::Hot20170901 => *b,
        _ => true,
    };
    let Value::Map(fe) = for_each else {
        return Err(HeatError::new(
            ErrorClass::AttributeError_,
            format!("'{}' object has no attribute 'items'", for_each.type_name()),
        ));
    };
    if fe.is_empty() {
        return Err(value_err("not enough values to unpack (expected 2, got 0)"));
    }
    let mut keys = Vec::new();
    let mut values: Vec<Vec<Value>> = Vec::new();
    let mut lens = Vec::new();
    for (k, v) in &fe {
        keys.push(k.clone());
        match v {
            Value::Null => values.push(Vec::new()),
            Value::List(l) => {
                lens.push(l.len());
                values.push(l.clone());
            }
            Value::Map(m) if with_map && nested => {
                lens.push(m.len());
                values.push(m.iter().map(|(k, _)| k.clone()).collect());
            }
            _ => {
                return Err(type_err(if with_map && nested {
                    format!("The values of the \"for_each\" argument to \"{name}\" must be lists or maps")
                } else {
                    format!("The values of the \"for_each\" argument to \"{name}\" must be lists")
                }))
            }
        }
    }
    if !nested && !lens.is_empty() && lens.iter().any(|l| *l != lens[0]) {
        return Err(value_err(format!(
            "For {name}, the length of for_each values should be equal if no nested loop."
        )));
    }
    let template = env.resolve(
        c.args.map_get_pub("template").unwrap_or(&Snip::Data(&NULL)),
        depth,
    )?;
    let combos: Vec<Vec<Value>> = if nested {
        let mut total: usize = 1;
        for v in &values {
            total = total.saturating_mul(v.len());
        }
        check_size(env, total)?;
        let mut combos = vec![Vec::new()];
        for v in &values {
            let mut next = Vec::with_capacity(combos.len() * v.len());
            for c in &combos {
                for x in v {
                    let mut c = c.clone();
                    c.push(x.clone());
                    next.push(c);
                }
            }
            combos = next;
        }
        combos
    } else {
        let n = values.iter().map(Vec::len).min().unwrap_or(0);
        (0..n)
            .map(|i| values.iter().map(|v| v[i].clone()).collect())
            .collect()
    };
    let mut out = Vec::with_capacity(combos.len());
    for combo in combos {
        out.push(do_replacement(&keys, &combo, &template)?);
    }
    Ok(Value::List(out))
}

fn do_replacement(keys: &[Value], values: &[Value], t: &Value) -> Result<Value> {
    Ok(match t {
        Value::Str(s) => {
            let mut s = s.clone();
            for (k, v) in keys.iter().zip(values) {
                let Value::Str(k) = k else {
                    return Err(type_err(format!(
                        "replace() argument 1 must be str, not {}",
                        k.type_name()
                    )));
                };
                let Value::Str(v) = v else {
                    return Err(type_err(format!(
                        "replace() argument 2 must be str, not {}",
                        v.type_name()
                    )));
                };
                if k.is_empty() {
                    continue;
                }
                s = s.replace(k.as_str(), v);
            }
            Value::Str(s)
        }
        Value::List(l) => Value::List(
            l.iter()
                .map(|e| do_replacement(keys, values, e))
                .collect::<Result<_>>()?,
        ),
        Value::Map(m) => {
            let mut out: Vec<(Value, Value)> = Vec::with_capacity(m.len());
            for (k, v) in m {
                let k = do_replacement(keys, values, k)?;
                let v = do_replacement(keys, values, v)?;
                if let Some(e) = out.iter_mut().find(|(ok, _)| ok.py_eq(&k)) {
                    e.1 = v;
                } else {
                    out.push((k, v));
                }
            }
            Value::Map(out)
        }
        other => other.clone(),
    })
}

fn digest(env: &Env<'_>, c: &Call, depth: usize) -> Result<Value> {
    use sha2::Digest as _;
    let name = c.name;
    let args = env.resolve(&c.args, depth)?;
    let list = match &args {
        Value::List(l) if l.iter().all(|a| matches!(a, Value::Str(_))) => l,
        _ => {
            return Err(type_err(format!(
                "Argument to function \"{name}\" must be a list of strings"
            )))
        }
    };
    if list.len() != 2 {
        return Err(value_err(format!(
            "Function \"{name}\" usage: [\"<algorithm>\", \"<value>\"]"
        )));
    }
    let alg = list[0].as_str().unwrap_or("").to_lowercase();
    let text = list[1].as_str().unwrap_or("");
    // Python encodes the value as latin-1.
    let mut bytes = Vec::with_capacity(text.len());
    for ch in text.chars() {
        let Ok(b) = u8::try_from(u32::from(ch)) else {
            return Err(HeatError::new(
                ErrorClass::ValueError,
                format!("'latin-1' codec can't encode character '{ch}'"),
            ));
        };
        bytes.push(b);
    }
    let hex = |d: &[u8]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    Ok(Value::Str(match alg.as_str() {
        "sha224" => hex(&sha2::Sha224::digest(&bytes)),
        "sha256" => hex(&sha2::Sha256::digest(&bytes)),
        "sha384" => hex(&sha2::Sha384::digest(&bytes)),
        "sha512" => hex(&sha2::Sha512::digest(&bytes)),
        _ => {
            return Err(value_err(format!(
                "Algorithm must be one of {{...}} (murano-hot computes sha224, sha256, sha384 and sha512; not {alg})"
            )))
        }
    }))
}

fn str_split(env: &Env<'_>, c: &Call, depth: usize) -> Result<Value> {
    let name = c.name;
    let example = format!(
        "Incorrect arguments to \"{name}\" should be: \"{name}\" : [ \",\", \"apples,pears\", <index>]"
    );
    let args = env.resolve(&c.args, depth)?;
    let Value::List(l) = args else {
        return Err(value_err(example));
    };
    if l.len() < 2 {
        return Err(value_err(example));
    }
    let (delim, s) = (&l[0], &l[1]);
    if *s == Value::Null {
        return Ok(Value::Null);
    }
    let (Value::Str(s), Value::Str(d)) = (s, delim) else {
        return Err(type_err("must be str or None"));
    };
    if d.is_empty() {
        return Err(value_err("empty separator"));
    }
    let parts: Vec<Value> = s
        .split(d.as_str())
        .map(|p| Value::Str(p.to_owned()))
        .collect();
    if let Some(index) = l.get(2) {
        let i = match index {
            Value::Int(n) => *n,
            Value::Bool(b) => i64::from(*b),
            Value::Float(x) => *x as i64,
            Value::Str(t) => murano_yaql::pyint::parse(t).map_err(|_| {
                value_err(format!(
                    "Incorrect index to \"{name}\" should be: \"{name}\" : [ \",\", \"apples,pears\", <index>]"
                ))
            })?,
            other => {
                return Err(type_err(format!(
                    "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                    other.type_name()
                )))
            }
        };
        let n = parts.len() as i64;
        let j = if i < 0 { i + n } else { i };
        return usize::try_from(j)
            .ok()
            .and_then(|j| parts.get(j).cloned())
            .ok_or_else(|| {
                value_err(format!(
                    "Incorrect index to \"{name}\" should be between 0 and {}",
                    n - 1
                ))
            });
    }
    Ok(Value::List(parts))
}

fn map_replace(env: &Env<'_>, c: &Call, depth: usize) -> Result<Value> {
    let name = c.name;
    let example = format!(
        "Incorrect arguments to \"{name}\" should be: \"{name}\" : [ {{ \"key1\": \"val1\" }}, {{\"keys\": {{\"key1\": \"key2\"}}, \"values\": {{\"val1\": \"val2\"}}}}]"
    );
    let not_maps = format!(
        "Incorrect arguments: to \"{name}\", arguments must be a list of maps. Example:  \"{name}\" : [ {{ \"key1\": \"val1\" }}, {{\"keys\": {{\"key1\": \"key2\"}}, \"values\": {{\"val1\": \"val2\"}}}}]"
    );
    let ensure_map = |v: &Value| -> Result<Vec<(Value, Value)>> {
        match v {
            Value::Null => Ok(Vec::new()),
            Value::Map(m) => Ok(m.clone()),
            _ => Err(type_err(not_maps.clone())),
        }
    };
    let args = env.resolve(&c.args, depth)?;
    let Value::List(l) = args else {
        return Err(type_err(example));
    };
    if l.len() != 2 {
        if l.is_empty() {
            return Err(type_err(example));
        }
        ensure_map(&l[0])?;
        if l.len() > 1 {
            ensure_map(&l[1])?;
        }
        return Err(type_err(example));
    }
    let in_map = ensure_map(&l[0])?;
    let repl = ensure_map(&l[1])?;
    for (k, _) in &repl {
        if !matches!(k.as_str(), Some("keys") | Some("values")) {
            return Err(value_err(example));
        }
    }
    let get = |k: &str| {
        repl.iter()
            .find(|(key, _)| key.as_str() == Some(k))
            .map(|(_, v)| v.clone())
            .unwrap_or(Value::Map(Vec::new()))
    };
    let keys = ensure_map(&get("keys"))?;
    let values = ensure_map(&get("values"))?;
    let mut out: Vec<(Value, Value)> = Vec::new();
    for (k, v) in &in_map {
        let key = keys
            .iter()
            .find(|(kk, _)| kk.py_eq(k))
            .map(|(_, v)| v.clone());
        let key = match key {
            None | Some(Value::Null) => k.clone(),
            Some(key) => {
                if in_map.iter().any(|(ik, _)| ik.py_eq(&key)) && !key.py_eq(k) {
                    return Err(value_err(format!(
                        "key replacement {} collides with a key in the input map",
                        key.py_str()
                    )));
                }
                if out.iter().any(|(ok, _)| ok.py_eq(&key)) {
                    return Err(value_err(format!(
                        "key replacement {} collides with a key in the output map",
                        key.py_str()
                    )));
                }
                key
            }
        };
        let value = values
            .iter()
            .find(|(vk, _)| vk.py_eq(v) && !matches!(v, Value::List(_) | Value::Map(_)))
            .map(|(_, nv)| nv.clone())
            .unwrap_or_else(|| v.clone());
        if let Some(e) = out.iter_mut().find(|(ok, _)| ok.py_eq(&key)) {
            e.1 = value;
        } else {
            out.push((key, value));
        }
    }
    Ok(Value::Map(out))
}

fn url_quote(s: &str, safe: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        let c = b as char;
        if c.is_ascii_alphanumeric() || "_.-~".contains(c) || safe.contains(c) {
            out.push(c);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn make_url(env: &Env<'_>, c: &Call, depth: usize) -> Result<Value> {
    let args = env.resolve(&c.args, depth)?;
    let Value::Map(m) = &args else {
        return Err(type_err(format!(
            "The arguments to \"{}\" must be a map",
            c.name
        )));
    };
    let snips: Vec<(&Value, Snip<'_>)> = m.iter().map(|(k, v)| (k, Snip::Data(v))).collect();
    crate::engine::check_make_url_args(c.name, &snips)?;
    let get = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let scheme = get("scheme");
    if scheme.contains(':') {
        return Err(value_err("URL \"scheme\" should not contain ':'"));
    }
    let mut netloc = String::new();
    let (user, pass) = (
        url_quote(&get("username"), ""),
        url_quote(&get("password"), ""),
    );
    if !user.is_empty() || !pass.is_empty() {
        netloc.push_str(&user);
        if !pass.is_empty() {
            netloc.push(':');
            netloc.push_str(&pass);
        }
        netloc.push('@');
    }
    let mut host = get("host");
    if host.starts_with('[') && host.ends_with(']') && host.len() >= 2 {
        host = host[1..host.len() - 1].to_owned();
    }
    let mut host = url_quote(&host, ":");
    if host.contains(':') {
        host = format!("[{host}]");
    }
    netloc.push_str(&host);
    if let Some(port) = args.get("port").filter(|p| p.truthy()) {
        netloc.push(':');
        netloc.push_str(&port.py_str());
    }
    let path = url_quote(&get("path"), "/");
    let query = match args.get("query") {
        Some(Value::Map(q)) => q
            .iter()
            .map(|(k, v)| {
                format!(
                    "{}={}",
                    url_quote_plus(&k.py_str()),
                    url_quote_plus(&v.py_str())
                )
            })
            .collect::<Vec<_>>()
            .join("&")
            .replace("%2F", "/"),
        _ => String::new(),
    };
    let fragment = url_quote(&get("fragment"), "/");
    let mut url = String::new();
    if !scheme.is_empty() {
        url.push_str(&scheme);
        url.push(':');
    }
    if !netloc.is_empty() || scheme.is_empty() && path.starts_with("//") {
        url.push_str("//");
        url.push_str(&netloc);
        if !path.is_empty() && !path.starts_with('/') {
            url.push('/');
        }
    }
    url.push_str(&path);
    if !query.is_empty() {
        url.push('?');
        url.push_str(&query);
    }
    if !fragment.is_empty() {
        url.push('#');
        url.push_str(&fragment);
    }
    let _ = depth;
    Ok(Value::Str(url))
}

fn url_quote_plus(s: &str) -> String {
    url_quote(s, " ").replace(' ', "+")
}

/// How one output or one resource's properties resolved.
#[derive(Debug, Clone)]
pub enum Resolved {
    /// The value.
    Value(Value),
    /// The error Heat raises.
    Error(HeatError),
    /// Not resolved: the tree calls these functions, which need resources.
    NeedsResources(Vec<String>),
    /// Not resolved: the condition is false.
    ConditionFalse,
}

/// The resolution report of a template with given parameter values.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// Each output.
    pub outputs: Vec<(String, Resolved)>,
    /// Each resource with properties.
    pub resource_properties: Vec<(String, Resolved)>,
    /// Each condition (2016-10-14 and later).
    pub conditions: Vec<(String, Result<bool>)>,
    /// Failure to read the outputs section.
    pub outputs_error: Option<HeatError>,
    /// Failure to read the resource definitions.
    pub resource_definitions_error: Option<HeatError>,
    /// Failure to read the conditions.
    pub conditions_error: Option<HeatError>,
}

/// Functions that need real resources (or files, or the parent stack) in
/// the raw template (both branches of an `if` count).
fn raw_needs_resources(
    version: TemplateVersion,
    v: &Value,
    params: &dyn Fn(&str) -> bool,
    out: &mut Vec<String>,
    depth: usize,
) {
    if depth > 512 {
        return;
    }
    match v {
        Value::Map(m) => {
            if m.len() == 1 {
                if let Some(name) = m[0].0.as_str() {
                    if let Some(f) = version.function(name) {
                        let needs = match f {
                            Function::GetAttr
                            | Function::GetResource
                            | Function::ResourceFacade
                            | Function::GetFile
                            | Function::CfnGetAZs
                            | Function::CfnResourceFacade => true,
                            Function::CfnRef => !matches!(&m[0].1, Value::Str(n) if params(n)),
                            _ => false,
                        };
                        if needs && !out.iter().any(|o| o == name) {
                            out.push(name.to_owned());
                        }
                    }
                }
            }
            m.iter()
                .for_each(|(_, x)| raw_needs_resources(version, x, params, out, depth + 1));
        }
        Value::List(l) => l
            .iter()
            .for_each(|x| raw_needs_resources(version, x, params, out, depth + 1)),
        _ => {}
    }
}

/// Functions that need real resources (or files, or the parent stack).
fn needs_resources(s: &Snip, params: &dyn Fn(&str) -> bool, out: &mut Vec<String>) {
    match s {
        Snip::Call(c) => {
            let needs = match c.f {
                Function::GetAttr
                | Function::GetResource
                | Function::ResourceFacade
                | Function::GetFile
                | Function::CfnGetAZs
                | Function::CfnResourceFacade => true,
                Function::CfnRef => !matches!(&c.args, Snip::Data(Value::Str(n)) if params(n)),
                _ => false,
            };
            if needs && !out.iter().any(|o| o == c.name) {
                out.push(c.name.to_owned());
            }
            needs_resources(&c.args, params, out);
        }
        Snip::List(l) => l.iter().for_each(|x| needs_resources(x, params, out)),
        Snip::Map(m) => m.iter().for_each(|(_, x)| needs_resources(x, params, out)),
        _ => {}
    }
}

/// Resolves every `get_param` whose parameter is not declared: building
/// the stack's resources fails on them.
fn check_params(env: &Env<'_>, s: &Snip, is_param: &dyn Fn(&str) -> bool) -> Result<()> {
    match s {
        Snip::Call(c) => {
            if c.f == Function::GetParam {
                let mut fns = Vec::new();
                needs_resources(&c.args, is_param, &mut fns);
                if fns.is_empty() {
                    if let Err(e) = env.resolve(s, 0) {
                        if e.class == ErrorClass::UserParameterMissing {
                            return Err(e);
                        }
                    }
                }
            }
            check_params(env, &c.args, is_param)
        }
        Snip::List(l) => l.iter().try_for_each(|x| check_params(env, x, is_param)),
        Snip::Map(m) => m
            .iter()
            .try_for_each(|(_, x)| check_params(env, x, is_param)),
        _ => Ok(()),
    }
}

impl<'v> Snip<'v> {
    pub(crate) fn map_get_pub(&self, key: &str) -> Option<&Snip<'v>> {
        match self {
            Snip::Map(m) => m
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

/// The pseudo parameters of the resolution step.
pub const STACK_NAME: &str = "oracle_stack";
/// `OS::stack_id` during resolution.
pub const STACK_ID: &str = "11111111-2222-3333-4444-555555555555";
/// `OS::project_id` during resolution.
pub const PROJECT_ID: &str = "oracle_project";

/// Resolves outputs, resource properties and conditions with `params`.
pub fn resolve_template(t: &Template, params: &[(String, Value)]) -> Result<Resolution> {
    let schemas = t.schemas()?;
    let pseudo = [
        ("OS::stack_id", Value::Str(STACK_ID.into())),
        ("OS::project_id", Value::Str(PROJECT_ID.into())),
        ("OS::stack_name", Value::Str(STACK_NAME.into())),
    ];
    let env = Env::new(t.version, &t.limits, &t.data, &schemas, params, pseudo);
    let mut out = Resolution::default();
    let is_param = |n: &str| {
        schemas.iter().any(|s| s.name == n)
            || ["OS::stack_id", "OS::project_id", "OS::stack_name"].contains(&n)
    };
    match t.data.get("conditions") {
        Some(Value::Map(m)) if !t.version.has_conditions() => {
            // Older versions have no conditions: every name is unknown.
            out.conditions = m
                .iter()
                .map(|(k, _)| {
                    let name = k.py_str();
                    let e = value_err(format!("Invalid condition \"{name}\""));
                    (name, Err(e))
                })
                .collect();
        }
        Some(_) if t.version.has_conditions() => match env.all_conditions() {
            Ok(c) => out.conditions = c,
            Err(e) => out.conditions_error = Some(e),
        },
        _ => {}
    }
    // Resources.
    match crate::validate::resource_definitions(t, &env) {
        Err(e) => out.resource_definitions_error = Some(e),
        Ok(defs) => {
            // References to missing resources fail when the stack's
            // resources are built.
            let mut missing = None;
            for d in &defs {
                for snip in [&d.properties, &d.metadata].into_iter().flatten() {
                    if let Err(e) = check_params(&env, snip, &is_param) {
                        missing.get_or_insert(e);
                    }
                }
                for snip in [&d.properties, &d.metadata].into_iter().flatten() {
                    let mut deps = Vec::new();
                    if let Err(e) =
                        env.dependencies(snip, &crate::engine::DotPath::Root(""), &mut deps, 0)
                    {
                        missing.get_or_insert(e);
                    }
                    for (name, _) in deps {
                        if !env.is_resource(&name) {
                            missing.get_or_insert(invalid_reference(&name, "unknown"));
                        }
                    }
                }
            }
            if let Some(e) = missing {
                out.resource_definitions_error = Some(e);
            } else {
                for d in defs {
                    let Some(props) = &d.properties else { continue };
                    if !d.enabled {
                        out.resource_properties
                            .push((d.name.into_owned(), Resolved::ConditionFalse));
                        continue;
                    }
                    let mut fns = Vec::new();
                    let raw = t
                        .data
                        .get("resources")
                        .and_then(|r| r.as_map())
                        .and_then(|m| m.iter().find(|(k, _)| k.py_str() == d.name))
                        .and_then(|(_, r)| r.get("properties"));
                    if let Some(raw) = raw {
                        raw_needs_resources(t.version, raw, &is_param, &mut fns, 0);
                    }
                    let r = if !fns.is_empty() {
                        fns.sort();
                        Resolved::NeedsResources(fns)
                    } else {
                        match env.resolve(props, 0) {
                            Ok(v) => Resolved::Value(v),
                            Err(e) => Resolved::Error(e),
                        }
                    };
                    out.resource_properties.push((d.name.into_owned(), r));
                }
            }
        }
    }
    // Outputs.
    match crate::validate::output_definitions(t, &env) {
        Err(e) => out.outputs_error = Some(e),
        Ok(defs) => {
            let raw_outputs = t.data.get("outputs");
            for (name, enabled, v) in defs {
                let mut fns = Vec::new();
                if let Some(raw) = raw_outputs
                    .and_then(|o| o.as_map())
                    .and_then(|m| m.iter().find(|(k, _)| k.py_str() == name))
                    .and_then(|(_, d)| d.get("value"))
                {
                    raw_needs_resources(t.version, raw, &is_param, &mut fns, 0);
                }
                let r = if !fns.is_empty() {
                    fns.sort();
                    Resolved::NeedsResources(fns)
                } else if !enabled {
                    // A disabled output's value is None.
                    Resolved::Value(Value::Null)
                } else {
                    match env.resolve(&v, 0) {
                        Ok(v) => Resolved::Value(v),
                        Err(e) => Resolved::Error(e),
                    }
                };
                out.outputs.push((name.into_owned(), r));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{resolve_template, Resolved};
    use crate::{Limits, Template, Value};

    fn load(text: &str) -> Template {
        Template::load(text, &Limits::default()).unwrap()
    }

    /// Heat parses every condition before it reads the outputs or the
    /// resource definitions: a bad condition is their error too.
    #[test]
    fn condition_errors_come_before_outputs_and_resources() {
        let t = load(
            "heat_template_version: 2016-10-14\n\
             conditions:\n  a: {and: x}\n  b: {equals: [1, 1]}\n\
             resources:\n  r: {type: OS::Heat::None}\n\
             outputs:\n  o: {value: {if: [b, 1, 2]}}\n",
        );
        let r = resolve_template(&t, &[]).unwrap();
        for e in [&r.outputs_error, &r.resource_definitions_error] {
            let e = e.as_ref().expect("an error");
            assert_eq!(e.path, vec!["conditions.a.and".to_owned()]);
            assert_eq!(
                e.message(),
                "conditions.a.and: Arguments to \"and\" must be a list of conditions"
            );
        }
    }

    /// `make_url` checks its resolved arguments again: a query mapping
    /// stays a mapping.
    #[test]
    fn make_url_accepts_a_resolved_query_map() {
        let t = load(
            "heat_template_version: 2017-09-01\n\
             outputs:\n  u: {value: {make_url: {scheme: http, host: example.com, path: /a b, query: {x: \"1 2\"}}}}\n",
        );
        let r = resolve_template(&t, &[]).unwrap();
        match &r.outputs[0].1 {
            Resolved::Value(v) => {
                assert_eq!(*v, Value::Str("http://example.com/a%20b?x=1+2".into()))
            }
            other => panic!("{other:?}"),
        }
    }

    /// A resources section that is a list fails as Heat's `.items()` call.
    #[test]
    fn a_resources_list_is_an_attribute_error() {
        let t = load("heat_template_version: 2013-05-23\nresources: [a]\n");
        let r = resolve_template(&t, &[]).unwrap();
        let e = r.resource_definitions_error.expect("an error");
        assert_eq!(e.class.python_name(), "AttributeError");
        assert_eq!(e.message(), "'list' object has no attribute 'items'");
    }

    /// A condition written as plain data (here a function the version
    /// lacks) is shown as Python prints the dict.
    #[test]
    fn a_data_condition_is_shown_as_a_python_dict() {
        let t = load(
            "heat_template_version: 2016-10-14\n\
             conditions:\n  c: {contains: [a, [a, b]]}\n\
             resources:\n  r: {type: OS::Heat::None}\n",
        );
        let e = t.validate(&[]).unwrap_err();
        assert_eq!(
            e.message(),
            "Condition validation error: The definition of condition \"c\" is invalid: {'contains': ['a', ['a', 'b']]}"
        );
    }
}
