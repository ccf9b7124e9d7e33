//! Lexing and parsing YAQL: throughput in bytes and in expressions, over
//! the examples and (when present) the shared corpora.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use murano_benches::all_expression_sets;

fn syntax(c: &mut Criterion) {
    for set in all_expression_sets() {
        let grammar = set.grammar.grammar();
        let mut group = c.benchmark_group(format!("yaql-syntax/{}", set.name));
        group.throughput(Throughput::Bytes(set.bytes() as u64));
        group.bench_function("lex", |b| {
            b.iter(|| {
                for e in &set.expressions {
                    let _ = black_box(grammar.tokenize(black_box(e)));
                }
            })
        });
        group.bench_function("parse", |b| {
            b.iter(|| {
                for e in &set.expressions {
                    let _ = black_box(grammar.parse(black_box(e)));
                }
            })
        });
        group.throughput(Throughput::Elements(set.expressions.len() as u64));
        group.bench_function("parse-expressions", |b| {
            b.iter(|| {
                for e in &set.expressions {
                    let _ = black_box(grammar.parse(black_box(e)));
                }
            })
        });
        group.finish();
    }
}

criterion_group!(benches, syntax);
criterion_main!(benches);
