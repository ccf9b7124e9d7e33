//! Validating every template of the HOT conformance data: load, version,
//! parameter schemas and `template-validate`'s checks with generic
//! resources. Needs the shared data (`MURANO_SHARED`, default
//! `../shared`); without it the bench has nothing to measure.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use murano_hot::{Limits, Template};

fn templates() -> Vec<String> {
    let root = std::env::var_os("MURANO_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
        });
    let dir = root.join("conformance/hot");
    let Ok(text) = std::fs::read_to_string(dir.join("cases.jsonl")) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|c| c["template"].as_str().map(|t| dir.join(t)))
        .filter_map(|p| std::fs::read(p).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .collect()
}

fn bench(c: &mut Criterion) {
    let texts = templates();
    if texts.is_empty() {
        eprintln!("no HOT conformance data found (set MURANO_SHARED)");
        return;
    }
    let limits = Limits::default();
    let bytes: usize = texts.iter().map(String::len).sum();
    let mut group = c.benchmark_group("hot");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("validate_all", |b| {
        b.iter(|| {
            texts
                .iter()
                .filter(|t| {
                    Template::load(t, &limits)
                        .and_then(|t| {
                            t.schemas()?;
                            t.validate(&[])
                        })
                        .is_ok()
                })
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
