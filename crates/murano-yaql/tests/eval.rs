//! Conformance of the evaluator with Python yaql 3.2 on the shared corpus
//! (`conformance/yaql/cases.jsonl`):
//!
//! * `yaql-eval`: every runnable case (not `unsupported`, not
//!   `custom_context`); `nondeterministic` cases must evaluate without error.
//! * `yaql-custom`: every `custom_context` case, with the functions yaql's
//!   own test registered defined here through the public API (a case whose
//!   test functions are not defined here fails and must be listed).

use std::sync::Arc;

use murano_testkit::{conclude, read_jsonl, Suite};
use murano_yaql::eval::{
    convert_input, Context, DateTime, Dict, Engine, Error, FunctionDef, Library, Options,
    ParamType, Value,
};
use murano_yaql::Grammar;
use serde_json::Value as Json;

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures-eval.txt")
    else {
        return;
    };
    let cases =
        read_jsonl(&root.join("conformance/yaql/cases.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let libs = Libs {
        standard: Arc::new(Library::standard(true)),
        standard_nodelegates: Arc::new(Library::standard(false)),
        legacy: Arc::new(Library::legacy()),
    };
    let mut eval = Suite::new("yaql-eval", &known);
    let mut custom = Suite::new("yaql-custom", &known);
    for case in &cases {
        if case.get("unsupported").is_some() {
            continue;
        }
        let id = case["id"].as_str().unwrap_or("?");
        if case["custom_context"].as_bool() == Some(true) {
            let test = case["test"].as_str().unwrap_or("");
            match custom_library(test) {
                Some(lib) => {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_case(case, &lib)
                    }));
                    custom.record(id, r.unwrap_or_else(|_| Err("panic".into())));
                }
                None => custom.record(id, Err(format!("test functions of {test} not registered"))),
            }
            continue;
        }
        let lib = libs.pick(case);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(case, &lib)));
        eval.record(id, r.unwrap_or_else(|_| Err("panic".into())));
    }
    conclude(vec![eval.finish(), custom.finish()]);
}

struct Libs {
    standard: Arc<Library>,
    standard_nodelegates: Arc<Library>,
    legacy: Arc<Library>,
}

impl Libs {
    fn pick(&self, case: &Json) -> Arc<Library> {
        let ctx = &case["context"];
        if ctx["library"].as_str() == Some("legacy") {
            self.legacy.clone()
        } else if ctx["delegates"].as_bool() == Some(true) {
            self.standard.clone()
        } else {
            self.standard_nodelegates.clone()
        }
    }
}

/// The functions yaql's own tests registered, for the tests reproduced.
fn custom_library(test: &str) -> Option<Arc<Library>> {
    let mut lib = Library::standard(true);
    lib.push_layer();
    let method = test.rsplit('.').next().unwrap_or("");
    match method {
        "test_skip_args" => {
            // def func(a=11, b=22, c=33): return [a, b, c]
            lib.register(FunctionDef::native("func", "a=, b=, c=", |c| {
                let get =
                    |i: usize, d: i64| Ok::<_, Error>(c.opt(i)?.cloned().unwrap_or(Value::Int(d)));
                Ok(Value::tuple(vec![get(0, 11)?, get(1, 22)?, get(2, 33)?]))
            }));
        }
        "test_layer_override" => {
            // An outer `f` returns its argument; the inner layer negates.
            lib.register(FunctionDef::native("f", "x", |c| Ok(c.value(0)?.clone())));
            lib.push_layer();
            lib.register(FunctionDef::native("f", "x", |c| {
                Ok(Value::Int(-c.int(0)?))
            }));
        }
        "test_properties" => {
            lib.register(FunctionDef::native(
                "#property#negValue",
                "x",
                |c| match c.value(0)? {
                    Value::Int(n) => Ok(Value::Int(-n)),
                    _ => Err(Error::mismatch()),
                },
            ));
        }
        "test_super" => {
            // len overridden to double the standard result.
            lib.register(
                FunctionDef::native("len", "value", |c| {
                    let base = Library::standard(true);
                    let ctx = Context::new(Arc::new(base));
                    let n = c.interp().call_values(
                        "len",
                        &ctx,
                        vec![c.value(0)?.clone()],
                        Vec::new(),
                        false,
                    )?;
                    Ok(Value::Int(n.as_int().unwrap_or(0) * 2))
                })
                .extension(),
            );
        }
        "test_resolve_parameter_count_single_layer" => {
            lib.register(FunctionDef::native("f", "a", |c| Ok(c.value(0)?.clone())));
            lib.register(FunctionDef::native("f", "a, b", |c| {
                Ok(Value::Int(c.int(0)? + c.int(1)?))
            }));
        }
        // test_engine: parameters that must be written as literals.
        "test_constant_function" => {
            lib.register(constant_identity(ParamType::Constant { nullable: true }));
        }
        "test_string_constant_function" => {
            lib.register(constant_identity(ParamType::StringConstant));
        }
        "test_keyword_constant_function" => {
            lib.register(constant_identity(ParamType::Keyword));
        }
        "test_numeric_constant_function" => {
            lib.register(constant_identity(ParamType::NumericConstant));
        }
        "test_boolean_constant_function" => {
            lib.register(constant_identity(ParamType::BooleanConstant));
        }
        "test_delegate_factory" => {
            // def call_func(__df__, name, *args, **kwargs):
            //     return __df__(name, *args, **kwargs)
            lib.register(FunctionDef::typed(
                "callFunc",
                "name, *args, **kwargs",
                vec![ParamType::String],
                |c| {
                    let name = c.string(0)?;
                    let args = c
                        .rest(1)
                        .iter()
                        .map(|a| c.force(a))
                        .collect::<Result<_, _>>()?;
                    let kwargs = c
                        .kwargs()
                        .iter()
                        .map(|(k, a)| Ok((k.clone(), c.force(a)?)))
                        .collect::<Result<_, Error>>()?;
                    c.interp()
                        .call_values(name, c.context(), args, kwargs, false)
                },
            ));
        }
        "test_mapping_translation_exception" => {
            // lambda *args, **kwargs: 1
            lib.register(FunctionDef::native("f", "*args, **kwargs", |_| {
                Ok(Value::Int(1))
            }));
        }
        // test_miscellaneous
        "test_bool_is_not_an_integer" => {
            lib.register(identity("foo", ParamType::Integer));
        }
        "test_nullable_collections" => {
            // Each returns `arg is None`.
            let is_none = |name: &str, t: ParamType| {
                FunctionDef::typed(name, "arg", vec![t], |c| {
                    Ok(Value::Bool(c.opt(0)?.is_none_or(Value::is_null)))
                })
            };
            let nullable = |t: ParamType| ParamType::Nullable(Box::new(t));
            lib.register(is_none("foo1", ParamType::Sequence));
            lib.register(is_none("foo2", nullable(ParamType::Sequence)));
            lib.register(is_none("bar1", ParamType::Iterable));
            lib.register(is_none("bar2", nullable(ParamType::Iterable)));
            lib.register(is_none("baz1", ParamType::Iterator));
            lib.register(is_none("baz2", nullable(ParamType::Iterator)));
        }
        // test_resolution: plain Python functions take any value.
        "test_resolve_parameter_count_multi_layer" => {
            lib.register(FunctionDef::native("f", "a", |c| Ok(c.value(0)?.clone())));
            lib.push_layer();
            lib.register(FunctionDef::native("f", "a, b", |c| {
                Ok(Value::Int(c.int(0)? + c.int(1)?))
            }));
        }
        "test_single_layer_ambiguity" => {
            lib.register(FunctionDef::typed("f", "a", vec![ParamType::Any], |c| {
                Ok(c.value(0)?.clone())
            }));
            lib.register(FunctionDef::typed("f", "a", vec![ParamType::Any], |c| {
                Ok(Value::Int(-c.int(0)?))
            }));
        }
        "test_single_layer_laziness_ambiguity" => {
            lib.register(FunctionDef::typed("f", "a", vec![ParamType::Lazy], |c| {
                c.need_lambda(0)?.call(&[])
            }));
            lib.register(FunctionDef::typed("f", "a", vec![ParamType::Any], |c| {
                Ok(Value::Int(-c.int(0)?))
            }));
            lib.register(FunctionDef::typed(
                "f",
                "a, b",
                vec![ParamType::Any, ParamType::Any],
                |c| Ok(Value::Int(c.int(0)? + c.int(1)?)),
            ));
        }
        "test_multi_layer_laziness_ambiguity" => {
            let lazy_a = |name: &str, sign: i64| {
                FunctionDef::typed(
                    name,
                    "a, b",
                    vec![ParamType::Lazy, ParamType::Any],
                    move |c| {
                        let a = c.need_lambda(0)?.call(&[])?;
                        Ok(Value::Int(sign * a.as_int().unwrap_or(0) + c.int(1)?))
                    },
                )
            };
            lib.register(lazy_a("foo", 1));
            lib.register(lazy_a("bar", 1));
            lib.push_layer();
            lib.register(FunctionDef::typed(
                "foo",
                "a, b",
                vec![ParamType::Any, ParamType::Lazy],
                |c| {
                    let b = c.need_lambda(1)?.call(&[])?;
                    Ok(Value::Int(-c.int(0)? - b.as_int().unwrap_or(0)))
                },
            ));
            lib.register(lazy_a("bar", -1));
        }
        // test_type_aggregation
        "test_not_of_type" => {
            lib.register(always_true(ParamType::Not(Box::new(ParamType::Int))));
        }
        "test_chain" => {
            lib.register(always_true(ParamType::AllOf(vec![
                ParamType::Not(Box::new(ParamType::Bool)),
                ParamType::Int,
            ])));
        }
        "test_any_of" => {
            lib.register(FunctionDef::typed(
                "foo",
                "arg",
                vec![ParamType::AnyOf(vec![
                    ParamType::String,
                    ParamType::Integer,
                ])],
                |c| match c.value(0)? {
                    Value::Str(_) => Ok(Value::Int(1)),
                    Value::Int(_) => Ok(Value::Int(2)),
                    _ => Ok(Value::Null),
                },
            ));
        }
        // test_yaql_interface: functions that evaluate YAQL themselves.
        "test_call" => {
            // foo(yaql_interface): yaql_interface('2+2')
            lib.register(FunctionDef::native("foo", "", |c| {
                c.evaluate(&compile("2+2")?, None, &[])
            }));
            // bar(yi): yi('$a * $', 2, a=3)
            lib.register(FunctionDef::native("bar", "", |c| {
                c.evaluate(
                    &compile("$a * $")?,
                    Some(Value::Int(2)),
                    &[("a", Value::Int(3))],
                )
            }));
        }
        "test_method_call" => {
            // yaql_interface.on([1, 2, 3]).where(lambda i: i > 1)
            lib.register(FunctionDef::native("foo", "", |c| {
                let predicate = c.native_lambda(|args| {
                    Ok(Value::Bool(
                        args.first().and_then(Value::as_int).is_some_and(|i| i > 1),
                    ))
                });
                c.call_method("where", ints(&[1, 2, 3]), vec![predicate])
            }));
            // yi.on([1, 2, 3]).select(yi.engine('$ * $'))
            lib.register(FunctionDef::native("bar", "", |c| {
                let selector = c.query_lambda(&compile("$ * $")?)?;
                c.call_method("select", ints(&[1, 2, 3]), vec![selector])
            }));
        }
        _ => return None,
    }
    Some(Arc::new(lib))
}

/// Compiles with the tests' engine (a function's own `yaql_interface`).
fn compile(source: &str) -> Result<murano_yaql::eval::Query, Error> {
    Engine::new(Grammar::standard_with_delegates(), Options::default())
        .compile(source)
        .map_err(|e| Error::new(murano_yaql::eval::ErrorKind::Host, e.to_string()))
}

/// A Python list of integers.
fn ints(items: &[i64]) -> Value {
    Value::List(Arc::new(items.iter().map(|i| Value::Int(*i)).collect()))
}

/// `def foo(arg): return arg` with a typed parameter.
fn identity(name: &str, t: ParamType) -> FunctionDef {
    FunctionDef::typed(name, "arg", vec![t], |c| Ok(c.value(0)?.clone()))
}

/// `foo(arg)` returning its literal argument.
fn constant_identity(t: ParamType) -> FunctionDef {
    FunctionDef::typed("foo", "arg", vec![t], |c| {
        c.arg(0).map_or(Ok(Value::Null), |a| c.force(a))
    })
}

/// `foo(arg)` returning true.
fn always_true(t: ParamType) -> FunctionDef {
    FunctionDef::typed("foo", "arg", vec![t], |_| Ok(Value::Bool(true)))
}

fn grammar(case: &Json) -> Grammar {
    match case["grammar"].as_str().unwrap_or("standard") {
        "legacy" => Grammar::legacy(),
        "standard_nodelegates" => Grammar::standard(),
        _ => Grammar::standard_with_delegates(),
    }
}

fn run_case(case: &Json, lib: &Arc<Library>) -> Result<(), String> {
    let mut options = Options {
        convert_tuples_to_lists: true,
        ..Options::default()
    };
    if let Some(opts) = case["engine"]["options"].as_object() {
        for (k, v) in opts {
            options.set_yaql_option(k, &decode(v));
        }
    }
    let engine = Engine::new(grammar(case), options);
    let mut ctx = Context::new(lib.clone());
    if let Some(vars) = case["context"]["vars"].as_object() {
        for (k, v) in vars {
            ctx.set(k, convert_input(decode(v)));
        }
    }
    if let Some(data) = case.get("data") {
        ctx.set("$", convert_input(decode(data)));
        if let Some(alias) = case["context"]["data_alias"].as_str() {
            ctx.set(alias, decode(data));
        }
    }
    let expr = case["expr"].as_str().unwrap_or("");
    let want_error = case["outcome"].as_str() == Some("error");
    let query = match engine.compile(expr) {
        Ok(q) => q,
        Err(e) => {
            let name = e.class().python_name();
            return if want_error && case["error"]["type"].as_str() == Some(name) {
                Ok(())
            } else {
                Err(format!("parse error {name}: {e}"))
            };
        }
    };
    let result = query.evaluate(&ctx);
    if case["nondeterministic"].as_bool() == Some(true) {
        return result.map(|_| ()).map_err(|e| format!("error {e}"));
    }
    match (result, want_error) {
        (Ok(v), false) => {
            let almost = case["checked_by"].as_str() == Some("assertAlmostEqual");
            let unordered = case["ordered"].as_bool() == Some(false);
            if matches(&case["result"], &v, almost, unordered) {
                Ok(())
            } else {
                Err(format!("got {v:?}, want {}", case["result"]))
            }
        }
        (Ok(v), true) => Err(format!("got {v:?}, want error {}", case["error"]["type"])),
        (Err(e), true) => {
            let want = case["error"]["type"].as_str().unwrap_or("?");
            if case["error"]["phase"].as_str() == Some("parse") {
                return Err(format!("eval error {e}, want parse error {want}"));
            }
            let name = e.python_name();
            let expected_raise = case["test_expects_raise"].to_string();
            if name == want || expected_raise.contains(&format!("\"{name}\"")) {
                Ok(())
            } else {
                Err(format!("error {e}, want {want}"))
            }
        }
        (Err(e), false) => Err(format!("error {e}, want {}", case["result"])),
    }
}

/// Decodes the corpus value encoding.
fn decode(j: &Json) -> Value {
    match j {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => {
            let text = n.to_string();
            if text.contains(['.', 'e', 'E']) {
                Value::Float(n.as_f64().unwrap_or(0.0))
            } else {
                n.as_i64().map(Value::Int).unwrap_or(Value::Null)
            }
        }
        Json::String(s) => Value::str(s),
        Json::Array(items) => Value::List(Arc::new(items.iter().map(decode).collect())),
        Json::Object(map) => {
            if map.len() == 1 {
                let (k, v) = map
                    .iter()
                    .next()
                    .map(|(k, v)| (k.as_str(), v))
                    .unwrap_or(("", j));
                let items = || {
                    v.as_array()
                        .map(|a| a.iter().map(decode).collect::<Vec<_>>())
                        .unwrap_or_default()
                };
                match k {
                    "$tuple" => return Value::tuple(items()),
                    "$set" | "$frozenset" => {
                        return Value::Set(Arc::new(items().into_iter().collect()))
                    }
                    "$iterator" => return Value::iter(Box::new(items().into_iter().map(Ok))),
                    "$dict" => {
                        let mut d = Dict::default();
                        for pair in v.as_array().into_iter().flatten() {
                            d.insert(decode(&pair[0]), decode(&pair[1]));
                        }
                        return Value::Dict(Arc::new(d));
                    }
                    "$float" => {
                        return Value::Float(match v.as_str() {
                            Some("nan") => f64::NAN,
                            Some("-inf") => f64::NEG_INFINITY,
                            _ => f64::INFINITY,
                        })
                    }
                    "$timespan" => return Value::TimeSpan(v.as_i64().unwrap_or(0)),
                    "$datetime" => return Value::DateTime(parse_iso(v.as_str().unwrap_or(""))),
                    _ => {}
                }
            }
            Value::dict(map.iter().map(|(k, v)| (Value::str(k), decode(v))))
        }
    }
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.ffffff]+HH:MM`.
fn parse_iso(s: &str) -> DateTime {
    let num = |a: usize, b: usize| s.get(a..b).and_then(|t| t.parse::<i64>().ok()).unwrap_or(0);
    let (y, mo, d, h, mi, sec) = (
        num(0, 4),
        num(5, 7),
        num(8, 10),
        num(11, 13),
        num(14, 16),
        num(17, 19),
    );
    let mut rest = &s[19.min(s.len())..];
    let mut micros = 0;
    if let Some(r) = rest.strip_prefix('.') {
        micros = r.get(0..6).and_then(|t| t.parse::<i64>().ok()).unwrap_or(0);
        rest = &r[6.min(r.len())..];
    }
    let sign = if rest.starts_with('-') { -1 } else { 1 };
    let oh = rest
        .get(1..3)
        .and_then(|t| t.parse::<i64>().ok())
        .unwrap_or(0);
    let om = rest
        .get(4..6)
        .and_then(|t| t.parse::<i64>().ok())
        .unwrap_or(0);
    let offset = sign * (oh * 3600 + om * 60);
    // days from civil
    let yy = if mo <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy.rem_euclid(400);
    let doy = (153 * (if mo > 2 { mo - 3 } else { mo + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let local = ((days * 24 + h) * 60 + mi) * 60 + sec;
    DateTime {
        micros: (local - offset) * 1_000_000 + micros,
        offset: offset as i32,
    }
}

fn matches(want: &Json, got: &Value, almost: bool, unordered: bool) -> bool {
    if unordered {
        if let (Json::Array(w), Value::List(g)) = (want, got) {
            return multiset(w, g, almost);
        }
        if let (Json::String(w), Value::Str(g)) = (want, got) {
            let mut a: Vec<char> = w.chars().collect();
            let mut b: Vec<char> = g.chars().collect();
            a.sort_unstable();
            b.sort_unstable();
            return a == b;
        }
    }
    same(want, got, almost)
}

fn multiset(want: &[Json], got: &[Value], almost: bool) -> bool {
    if want.len() != got.len() {
        return false;
    }
    let mut used = vec![false; got.len()];
    want.iter().all(|w| {
        let hit = got
            .iter()
            .enumerate()
            .find(|(i, g)| !used[*i] && same(w, g, almost))
            .map(|(i, _)| i);
        match hit {
            Some(i) => {
                used[i] = true;
                true
            }
            None => false,
        }
    })
}

fn same(want: &Json, got: &Value, almost: bool) -> bool {
    match (want, got) {
        (Json::Null, Value::Null) => true,
        (Json::Bool(a), Value::Bool(b)) => a == b,
        (Json::Number(_), Value::Int(_) | Value::Float(_)) => match (decode(want), got) {
            (Value::Int(a), Value::Int(b)) => a == *b,
            (Value::Float(a), Value::Float(b)) => {
                if almost {
                    ((a - b).abs() * 1e7).round() == 0.0
                } else {
                    a == *b || (a.is_nan() && b.is_nan())
                }
            }
            _ => false,
        },
        (Json::String(a), Value::Str(b)) => a == &**b,
        (Json::Array(w), Value::List(g)) => {
            w.len() == g.len() && w.iter().zip(g.iter()).all(|(a, b)| same(a, b, almost))
        }
        (Json::Object(map), _) => {
            if map.len() == 1 {
                let (k, v) = map
                    .iter()
                    .next()
                    .map(|(k, v)| (k.as_str(), v))
                    .unwrap_or(("", want));
                match (k, got) {
                    ("$tuple", Value::Tuple(g)) => {
                        let w = v.as_array().cloned().unwrap_or_default();
                        return w.len() == g.len()
                            && w.iter().zip(g.iter()).all(|(a, b)| same(a, b, almost));
                    }
                    ("$set" | "$frozenset", Value::Set(s)) => {
                        let g: Vec<Value> = s.iter().cloned().collect();
                        return multiset(
                            v.as_array().map(Vec::as_slice).unwrap_or(&[]),
                            &g,
                            almost,
                        );
                    }
                    ("$dict", Value::Dict(d)) => {
                        let pairs = v.as_array().cloned().unwrap_or_default();
                        return pairs.len() == d.len()
                            && pairs.iter().all(|p| {
                                d.get(&decode(&p[0]))
                                    .is_some_and(|x| same(&p[1], x, almost))
                            });
                    }
                    ("$datetime", Value::DateTime(g)) => {
                        let w = parse_iso(v.as_str().unwrap_or(""));
                        return w == *g;
                    }
                    ("$timespan", Value::TimeSpan(g)) => return v.as_i64() == Some(*g),
                    ("$float", Value::Float(_)) => {
                        return decode(want) == *got || (got.py_str() == "nan" && v == "nan")
                    }
                    (
                        "$tuple" | "$set" | "$frozenset" | "$dict" | "$datetime" | "$timespan"
                        | "$float",
                        _,
                    ) => return false,
                    _ => {}
                }
            }
            let Value::Dict(d) = got else { return false };
            map.len() == d.len()
                && map
                    .iter()
                    .all(|(k, v)| d.get(&Value::str(k)).is_some_and(|x| same(v, x, almost)))
        }
        _ => false,
    }
}
