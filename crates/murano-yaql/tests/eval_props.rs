//! Property: evaluating generated expressions ends, within the limits,
//! with a value or a typed error, never a panic, in each engine (standard,
//! Murano's, legacy); and evaluation is deterministic (the expressions use
//! no randomness or clock), so a second evaluation gives the same outcome.
//!
//! The expressions come from a small grammar of operators, collection
//! methods and functions chosen to reach the limits: big repetitions,
//! endless sequences, deep nesting, huge numbers.

use std::sync::Arc;
use std::time::{Duration, Instant};

use murano_yaql::eval::{Context, Engine, Library, Value};
use proptest::prelude::*;

/// The step budget of each evaluation here (the default is 10,000,000,
/// about a second in a release build; tests run unoptimised).
const FUEL: u64 = 50_000;

/// The longest one evaluation may take in an unoptimised build with
/// [`FUEL`] steps: generous, but far below "runs away".
const TIME_LIMIT: Duration = Duration::from_secs(20);

fn leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        (0i64..20).prop_map(|n| n.to_string()),
        prop::sample::select(vec![
            "0",
            "-1",
            "1000000",
            "1000000000000",
            "9223372036854775807",
            "99999999999999999999",
            "2.5",
            "1e308",
            "0.0",
        ])
        .prop_map(str::to_owned),
        prop::sample::select(vec!["'a'", "'abc'", "''", "'x y'", "'{0}-{1}'", "'(a+)+$'"])
            .prop_map(str::to_owned),
        prop::sample::select(vec![
            "$", "$.a", "$.b", "$.s", "$.n", "null", "true", "false", "[]", "{}",
        ])
        .prop_map(str::to_owned),
        // Expressions that run into the limits.
        prop::sample::select(vec![
            "range(100000)",
            "range(1000000000000)",
            "sequence()",
            "$.a.cycle()",
            "'ab' * 100000",
            "[1, 2] * 1000000",
            "range(1000).select(range(1000))",
            "range(3000).toList()",
            "pow(10, 400)",
            "regex('(a+)+$').matches('aaaaaaaaaaaaaaaaaaaaaaaaaaaa!')",
        ])
        .prop_map(str::to_owned),
    ]
}

fn expression() -> impl Strategy<Value = String> {
    leaf().prop_recursive(5, 48, 3, |inner| {
        let binary = prop::sample::select(vec![
            "+", "-", "*", "/", "mod", "=", "!=", "<", ">", "<=", ">=", "and", "or", "in",
        ]);
        let method0 = prop::sample::select(vec![
            "len()",
            "sum()",
            "first()",
            "last()",
            "distinct()",
            "keys()",
            "values()",
            "items()",
            "reverse()",
            "toUpper()",
            "toList()",
            "flatten()",
            "count()",
            "max()",
            "min()",
            "isEmpty()",
            "any()",
            "all()",
            "join(',')",
            "select($ * 2)",
            "select([$, $])",
            "selectMany($)",
            "where($ > 1)",
            "where($)",
            "orderBy($)",
            "groupBy($)",
            "enumerate()",
            "memorize()",
            "cycle()",
            "repeat()",
            "toSet()",
            "sequence()",
        ]);
        let method1 = prop::sample::select(vec![
            "take",
            "skip",
            "append",
            "indexOf",
            "contains",
            "split",
            "format",
            "repeat",
            "limit",
            "concat",
            "zip",
            "union",
            "mergeWith",
            "get",
            "startsWith",
        ]);
        let function1 = prop::sample::select(vec![
            "range",
            "len",
            "list",
            "str",
            "int",
            "float",
            "abs",
            "bool",
            "not",
            "set",
            "sequence",
            "dict",
            "isList",
            "isString",
            "isInteger",
        ]);
        let function2 = prop::sample::select(vec![
            "range", "pow", "max", "min", "list", "format", "dict", "zip", "repeat",
        ]);
        prop_oneof![
            (inner.clone(), binary, inner.clone()).prop_map(|(a, op, b)| format!("({a} {op} {b})")),
            inner.clone().prop_map(|a| format!("(-{a})")),
            inner.clone().prop_map(|a| format!("(not {a})")),
            (inner.clone(), method0).prop_map(|(a, m)| format!("({a}).{m}")),
            (inner.clone(), method1, inner.clone()).prop_map(|(a, m, b)| format!("({a}).{m}({b})")),
            (function1, inner.clone()).prop_map(|(f, a)| format!("{f}({a})")),
            (function2, inner.clone(), inner.clone())
                .prop_map(|(f, a, b)| format!("{f}({a}, {b})")),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
            (inner.clone(), inner.clone()).prop_map(|(k, v)| format!("{{{k} => {v}}}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("let(x => {a}) -> $x + {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a})[{b}]")),
            (inner.clone(), inner.clone(), inner)
                .prop_map(|(c, a, b)| format!("switch({c} => {a}, true => {b})")),
        ]
    })
}

/// The data bound to `$`.
fn data() -> Value {
    Value::dict([
        (
            Value::str("a"),
            Value::tuple(vec![Value::Int(1), Value::Int(2), Value::Int(3)]),
        ),
        (
            Value::str("b"),
            Value::dict([(Value::str("k"), Value::str("v"))]),
        ),
        (Value::str("s"), Value::str("hello world")),
        (Value::str("n"), Value::Int(7)),
    ])
}

fn engines() -> Vec<(&'static str, Engine, Library)> {
    let mut out = vec![
        ("standard", Engine::standard(), Library::standard(true)),
        ("murano", Engine::murano(true), Library::standard(false)),
        ("legacy", Engine::legacy(), Library::legacy()),
    ];
    for (_, engine, _) in &mut out {
        engine.options_mut().fuel = Some(FUEL);
    }
    out
}

/// The outcome of one evaluation, comparable across runs: the printed
/// value, or the error's kind and message.
fn outcome(engine: &Engine, ctx: &Context, source: &str) -> Option<Result<String, String>> {
    let query = engine.compile(source).ok()?;
    Some(match query.evaluate(ctx) {
        Ok(v) => Ok(v.repr()),
        Err(e) => Err(format!("{:?}: {e}", e.kind())),
    })
}

proptest! {
    #![proptest_config(murano_testkit::proptest_config(400))]

    #[test]
    fn evaluation_ends_within_limits(source in expression()) {
        for (name, engine, library) in engines() {
            let ctx = Context::new(Arc::new(library)).with("$", data());
            let started = Instant::now();
            let first = outcome(&engine, &ctx, &source);
            let elapsed = started.elapsed();
            prop_assert!(
                elapsed < TIME_LIMIT,
                "{name}: {source:?} took {elapsed:?}"
            );
            let second = outcome(&engine, &ctx, &source);
            prop_assert_eq!(first, second, "{}: {:?} is not deterministic", name, source);
        }
    }
}

/// The generator reaches evaluation: most expressions parse, and some
/// evaluate to values and some to errors, in every engine.
#[test]
fn generated_expressions_evaluate_to_values_and_errors() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let strategy = expression();
    for (name, engine, library) in engines() {
        let ctx = Context::new(Arc::new(library)).with("$", data());
        let (mut values, mut errors, mut unparsed) = (0, 0, 0);
        for _ in 0..300 {
            let source = strategy.new_tree(&mut runner).expect("generates").current();
            match outcome(&engine, &ctx, &source) {
                Some(Ok(_)) => values += 1,
                Some(Err(_)) => errors += 1,
                None => unparsed += 1,
            }
        }
        assert!(
            values > 30 && errors > 30 && unparsed < 150,
            "{name}: {values} values, {errors} errors, {unparsed} unparsed"
        );
    }
}
