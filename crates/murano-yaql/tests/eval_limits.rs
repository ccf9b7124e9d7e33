//! Hostile expressions under the default options: each ends with a typed
//! error (or a value), quickly, without panicking or exhausting memory.

use std::sync::Arc;

use murano_yaql::eval::{Context, Engine, ErrorKind, Library, Options, Value};

/// Evaluates `expr` in `engine` over `library`, keeping the error's kind.
fn run_in(engine: &Engine, library: Library, expr: &str) -> Result<Value, ErrorKind> {
    let ctx = Context::new(Arc::new(library));
    let query = engine.compile(expr).expect("parses");
    query.evaluate(&ctx).map_err(|e| e.kind())
}

fn run(expr: &str) -> Result<Value, ErrorKind> {
    run_in(&Engine::standard(), Library::standard(true), expr)
}

#[test]
fn endless_sequences_stop_at_the_iterator_limit() {
    for expr in [
        "sequence()",
        "sequence().select($ * 2).where($ > 5).len()",
        "range(1000000000000)",
        "range(1000000000000).len()",
    ] {
        assert_eq!(run(expr), Err(ErrorKind::CollectionTooLarge), "{expr}");
    }
}

#[test]
fn blow_ups_are_refused() {
    assert_eq!(
        run("'a' * 1000000000000"),
        Err(ErrorKind::MemoryQuotaExceeded)
    );
    assert_eq!(run("[1] * 1000000000"), Err(ErrorKind::MemoryQuotaExceeded));
    assert_eq!(run("pow(10, 100000)"), Err(ErrorKind::Overflow));
}

#[test]
fn runaway_evaluation_runs_out_of_fuel() {
    assert_eq!(
        run_with_fuel(
            Engine::standard(),
            Library::standard(true),
            10_000,
            "range(100000).select($ * $).sum()"
        ),
        Err(ErrorKind::OutOfFuel)
    );
}

/// Evaluates `expr` in `engine` with a small step budget.
fn run_with_fuel(
    mut engine: Engine,
    library: Library,
    fuel: u64,
    expr: &str,
) -> Result<Value, ErrorKind> {
    engine.options_mut().fuel = Some(fuel);
    run_in(&engine, library, expr)
}

#[test]
fn work_on_big_values_costs_fuel_in_proportion() {
    // Each step builds, copies or scans a million items: a few calls each,
    // but far more work than a step. Found by the eval_props test: the
    // legacy indexer below ran for hours under a 50,000-step budget.
    let legacy = [
        "(range(1000000000000))[[1, 2] * 1000000]",
        "let(x => [1, 2] * 500000) -> range(100000).select($x + $x).len()",
    ];
    for expr in legacy {
        assert_eq!(
            run_with_fuel(Engine::legacy(), Library::legacy(), 50_000, expr),
            Err(ErrorKind::OutOfFuel),
            "{expr}"
        );
    }
    let standard = [
        "let(x => [1, 2] * 500000) -> range(100000).select(3 in $x).len()",
        "let(s => 'ab' * 1000000) -> range(100000).select($s.indexOf('c')).len()",
        "let(x => range(1000000).toList()) -> range(100000).select($x.sum()).len()",
    ];
    for expr in standard {
        assert_eq!(
            run_with_fuel(Engine::standard(), Library::standard(true), 50_000, expr),
            Err(ErrorKind::OutOfFuel),
            "{expr}"
        );
    }
}

#[test]
fn endless_iteration_without_an_iterator_limit_runs_out_of_fuel() {
    let mut engine = Engine::standard();
    engine.options_mut().limit_iterators = None;
    assert_eq!(
        run_with_fuel(
            engine,
            Library::standard(true),
            10_000,
            "sequence().where(true).len()"
        ),
        Err(ErrorKind::OutOfFuel)
    );
}

#[test]
fn small_values_cost_no_extra_fuel() {
    // Sizes below the per-step unit are free: ordinary expressions keep
    // the budget they had.
    assert_eq!(
        run_with_fuel(
            Engine::standard(),
            Library::standard(true),
            40,
            "[1, 2, 3].select($ * 2).sum()"
        ),
        Ok(Value::Int(12))
    );
}

#[test]
fn recursion_through_lambdas_hits_the_depth_limit() {
    // A lambda applied to itself recurses without end; the call-depth
    // limit stops it (yaql's RecursionError) before the stack runs out,
    // even on a test thread's small stack in an unoptimised build.
    let engine = Engine::new(
        murano_yaql::Grammar::standard_with_delegates(),
        Options::default(),
    );
    assert_eq!(
        run_in(
            &engine,
            Library::standard(true),
            "lambda($1($1))(lambda($1($1)))"
        ),
        Err(ErrorKind::RecursionLimit)
    );
}

#[test]
fn catastrophic_regular_expressions_end() {
    // Python's re backtracks for a very long time here; the backtrack limit
    // ends it with a value or an error, but it ends.
    let started = std::time::Instant::now();
    let _ = run("regex('(a+)+$').matches('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!')");
    assert!(started.elapsed().as_secs() < 30);
}

#[test]
fn defaults_are_limited_and_can_be_lifted() {
    let defaults = Options::default();
    assert!(defaults.limit_iterators.is_some() && defaults.fuel.is_some());
}

/// `[$1, $1]` folded n times is n nodes in memory and 2^n leaves as text:
/// printing, `str()`, `join()` and output conversion stop at
/// `Options::max_string_len` or fuel instead of exhausting memory.
#[test]
fn values_that_share_structure_do_not_print_exponentially() {
    // Output conversion keeps the sharing: the result is as small.
    let out = run("range(40).aggregate([$1, $1], 1)").expect("converts");
    assert!(out.check_printed_len(1 << 20).is_err());
    assert!(out.repr_within(1 << 20).is_err());
    assert!(out.py_str_within(1 << 20).is_err());
    // Under the default limits (64 MiB of text).
    for expr in [
        "str(range(40).aggregate([$1, $1], 1))",
        "range(1000000).select('x' * 1000).join('')",
    ] {
        assert_eq!(run(expr), Err(ErrorKind::MemoryQuotaExceeded), "{expr}");
    }
    // The limit is an option; a small one keeps the test quick.
    let mut engine = Engine::standard();
    engine.options_mut().max_string_len = 1 << 16;
    let small = |expr: &str| run_in(&engine, Library::standard(true), expr);
    for expr in [
        "str(range(40).aggregate([$1, $1], 1))",
        "range(40).aggregate([$1, $1], 1).join(',')",
        "[range(40).aggregate([$1, $1], 1)].join(',')",
        "'a'.replace('a', str(range(40).aggregate([$1, $1], 1)))",
        "{'k' => range(40).aggregate([$1, $1], 1)}.values().join('')",
        "str({'k' => range(40).aggregate([$1, $1], 1)})",
        "range(40).aggregate($1 + $1, 'ab')",
        "'xx'.replace('', 'y' * 40000)",
        "regex('x').replace('xxx', 'y' * 40000)",
    ] {
        assert_eq!(small(expr), Err(ErrorKind::MemoryQuotaExceeded), "{expr}");
    }
    engine.options_mut().max_string_len = 8;
    let small = |expr: &str| run_in(&engine, Library::standard(true), expr);
    assert_eq!(small("'ab' * 4"), Ok(Value::str("abababab")));
    assert_eq!(small("'ab' * 5"), Err(ErrorKind::MemoryQuotaExceeded));
    assert_eq!(small("str([1, 2, 3])"), Err(ErrorKind::MemoryQuotaExceeded));
    assert_eq!(small("[1, 2].join('--')"), Ok(Value::str("1--2")));
    assert_eq!(
        small("[1, 2, 3, 4].join('--')"),
        Err(ErrorKind::MemoryQuotaExceeded)
    );
    assert_eq!(
        small("'abcd' + 'efghi'"),
        Err(ErrorKind::MemoryQuotaExceeded)
    );
    assert_eq!(
        small("'aaaa'.replace('a', 'bbb')"),
        Err(ErrorKind::MemoryQuotaExceeded)
    );
    assert_eq!(small("'aaaa'.replace('b', 'bbb')"), Ok(Value::str("aaaa")));
    assert_eq!(
        small("regex('a').replace('aaa', 'bbb')"),
        Err(ErrorKind::MemoryQuotaExceeded)
    );
}

/// Item 14 of the hardening round: datetime arithmetic that leaves years
/// 1 to 9999 is Python's OverflowError, not year 10000.
#[test]
fn datetime_arithmetic_stays_within_pythons_years() {
    for expr in [
        "datetime(9999, 12, 31) + timespan(days => 1)",
        "datetime(1, 1, 1) - timespan(microseconds => 1)",
        "timespan(days => 1) + datetime(9999, 12, 31, 23, 59, 59)",
        "datetime(9999, 12, 31, 23) + timespan(hours => 1)",
    ] {
        assert_eq!(run(expr), Err(ErrorKind::Overflow), "{expr}");
    }
    assert!(run("(datetime(9999, 12, 30) + timespan(days => 1)).year").is_ok());
    assert_eq!(
        run("(datetime(9999, 12, 30) + timespan(days => 1)).year"),
        Ok(Value::Int(9999))
    );
}

/// `check_printed_len` measures a long string shared many times once and
/// agrees with `repr` on either side of the limit.
#[test]
fn printed_len_of_shared_strings() {
    let s = Value::str(&"x".repeat(1000));
    let list = Value::List(Arc::new(vec![s; 1000]));
    let len = list.repr().len();
    assert!(list.check_printed_len(len).is_ok());
    assert!(list.check_printed_len(len - 1).is_err());
    // A billion bytes as text, measured without being written.
    let big = Value::str(&"y".repeat(1 << 20));
    let wide = Value::List(Arc::new(vec![big; 1000]));
    assert!(wide.check_printed_len(64 << 20).is_err());
}

/// Issue 38, item 4: `split()`, `rightSplit()` and `toCharArray()` built
/// their whole result (tens of millions of items) before any limit
/// applied; `len()` does not convert its argument for output, so the
/// result escaped `yaql.limitIterators` altogether. They stop one item
/// past the limit now.
#[test]
fn splitting_stops_at_the_iterator_limit() {
    let mut engine = Engine::standard();
    engine.options_mut().limit_iterators = Some(10);
    let run = |expr: &str| run_in(&engine, Library::standard(true), expr);
    let words = ["w"; 11].join(" ");
    for expr in [
        format!("'{words}'.split().len()"),
        format!("'{words}'.split(' ').len()"),
        format!("'{words}'.rightSplit().len()"),
        format!("'{words}'.rightSplit(' ').len()"),
        "'abcdefghijk'.toCharArray().len()".to_owned(),
    ] {
        assert_eq!(run(&expr), Err(ErrorKind::CollectionTooLarge), "{expr}");
    }
    // At the limit, and with fewer splits asked for, nothing changes.
    let ten = ["w"; 10].join("  ");
    assert_eq!(run(&format!("' {ten} '.split().len()")), Ok(Value::Int(10)));
    assert_eq!(
        run(&format!("'{ten}'.split('  ').len()")),
        Ok(Value::Int(10))
    );
    assert_eq!(run("'abcdefghij'.toCharArray().len()"), Ok(Value::Int(10)));
    assert_eq!(
        run(&format!("'{words} ' .split(' ', 2)")),
        run("['w', 'w', 'w w w w w w w w w ']")
    );
    assert_eq!(
        run(&format!("' {words}'.rightSplit(null, 1)")),
        run("[' w w w w w w w w w w', 'w']")
    );
}
