//! Evaluating YAQL: queries over generated data (always) and yaql's own
//! test expressions (when the shared data is present), pre-compiled, each
//! in a fresh child context as `yaql.eval` does.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use murano_benches::{shared_root, YaqlEvalSuite};
use murano_yaql::eval::{convert_input, Context, Engine, Library, Value};

/// A thousand orders, as a host would pass them in.
fn orders() -> Value {
    let items = (0..1000)
        .map(|i| {
            Value::dict([
                (Value::str("id"), Value::Int(i)),
                (Value::str("customer"), Value::str(&format!("c{}", i % 37))),
                (Value::str("total"), Value::Float((i % 113) as f64 * 1.5)),
                (
                    Value::str("tags"),
                    Value::List(Arc::new(vec![
                        Value::str("a"),
                        Value::str(&format!("t{}", i % 5)),
                    ])),
                ),
            ])
        })
        .collect();
    convert_input(Value::List(Arc::new(items)))
}

const QUERIES: &[(&str, &str)] = &[
    ("where-select", "$.where($.total > 50).select($.id)"),
    (
        "group-sum",
        "$.groupBy($.customer, $.total, [$[0], $[1].sum()])",
    ),
    (
        "order-take",
        "$.orderBy($.total).thenByDescending($.id).take(10).select($.id)",
    ),
    ("flatten-distinct", "$.selectMany($.tags).distinct().len()"),
    (
        "dict-build",
        "dict($.take(200).select([str($.id), $.customer]))",
    ),
    (
        "strings",
        "$.take(200).select($.customer + '-' + str($.id)).join(',').len()",
    ),
    (
        "arithmetic",
        "range(1000).select($ * $ + 1).where($ mod 3 = 1).sum()",
    ),
];

fn generated(c: &mut Criterion) {
    let engine = Engine::standard();
    let root = Context::new(Arc::new(Library::standard(true))).with("$", orders());
    let mut group = c.benchmark_group("yaql-eval/orders");
    for (name, text) in QUERIES {
        let query = engine.compile(text).expect("benchmark query compiles");
        query.evaluate(&root).expect("benchmark query evaluates");
        group.bench_function(*name, |b| {
            b.iter(|| black_box(query.evaluate(&root.child())))
        });
    }
    group.finish();
}

fn yaql_suite(c: &mut Criterion) {
    let Some(shared) = shared_root() else {
        return;
    };
    let suite = YaqlEvalSuite::load(&shared);
    let mut group = c.benchmark_group("yaql-eval/yaql-tests");
    group.throughput(Throughput::Elements(suite.compiled.len() as u64));
    group.bench_function("compile", |b| {
        b.iter(|| {
            for text in &suite.texts {
                let _ = black_box(suite.engine.compile(black_box(text)));
            }
        })
    });
    group.bench_function("evaluate", |b| {
        b.iter(|| {
            for (query, data) in &suite.compiled {
                let _ = black_box(suite.evaluate(query, data.as_ref()));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, generated, yaql_suite);
criterion_main!(benches);
