//! Executing MuranoPL: Murano's own DSL unit tests, replayed step by step
//! from the engine conformance suite (object models loaded, methods
//! called, models serialised, finalisation) on fresh engines. Needs the
//! shared data; without it the benchmark says so and measures nothing.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use murano_benches::{shared_root, EngineSuite};

fn engine(c: &mut Criterion) {
    let Some(shared) = shared_root() else {
        eprintln!("engine: shared data absent, nothing measured");
        return;
    };
    let mut group = c.benchmark_group("engine");
    for (name, suite) in [
        ("every-public-test", EngineSuite::load_all(&shared)),
        ("pure-tests", EngineSuite::load(&shared, false)),
    ] {
        let suite = match suite {
            Ok(s) => s,
            Err(e) => {
                eprintln!("engine: {e}");
                return;
            }
        };
        let steps: usize = suite.tests.iter().map(|(_, s)| s.len()).sum();
        group.throughput(Throughput::Elements(steps as u64));
        group.bench_function(name, |b| b.iter(|| suite.replay()));
    }
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
