//! Hostile expressions under the default options: each ends with a typed
//! error (or a value), quickly, without panicking or exhausting memory.

use std::sync::Arc;

use murano_yaql::eval::{Context, Engine, ErrorKind, Library, Options, Value};

fn run(expr: &str) -> Result<Value, ErrorKind> {
    let ctx = Context::new(Arc::new(Library::standard(true)));
    let query = Engine::standard().compile(expr).expect("parses");
    query.evaluate(&ctx).map_err(|e| e.kind())
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
    let mut engine = Engine::standard();
    engine.options_mut().fuel = Some(10_000);
    let ctx = Context::new(Arc::new(Library::standard(true)));
    let query = engine
        .compile("range(100000).select($ * $).sum()")
        .expect("parses");
    assert_eq!(
        query.evaluate(&ctx).map_err(|e| e.kind()),
        Err(ErrorKind::OutOfFuel)
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
