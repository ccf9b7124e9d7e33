//! The engine's object store at scale: loading a model of n objects, and
//! loading a previous deployment's model (`ObjectsCopy`) of n objects
//! that the current one no longer holds, which garbage collection then
//! destroys. Time per object should not grow with n (it did: removing an
//! object shifted the rest of the store, so 99k objects took 18 s to
//! collect). Needs no shared data.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use murano_dsl::version::Version;
use murano_engine::{ClassSet, ClassSetBuilder, Engine, Limits};
use murano_yaql::eval::{Dict, Value};

const ROOT: &str = "Name: Root\nProperties:\n  nodes:\n    Contract: [$.class(Node)]\n";
const NODE: &str = "Name: Node\nProperties:\n  label:\n    Contract: $.string()\n";

fn classes() -> Arc<ClassSet> {
    let mut b = ClassSetBuilder::new();
    let pkg = b.add_package("t", Version::new(0, 0, 0)).unwrap();
    let core = b.add_package("io.murano", Version::new(0, 0, 0)).unwrap();
    b.add_system_classes(core).unwrap();
    let files: [(&str, &[u8], _); 3] = [
        ("Object.yaml", b"Name: io.murano.Object", core),
        ("Root.yaml", ROOT.as_bytes(), pkg),
        ("Node.yaml", NODE.as_bytes(), pkg),
    ];
    for (path, text, package) in files {
        for def in ClassSetBuilder::parse_file(text, path).unwrap() {
            b.add_class(package, path, def).unwrap();
        }
    }
    Arc::new(b.build())
}

fn dict(entries: Vec<(&str, Value)>) -> Value {
    let mut d = Dict::default();
    for (k, v) in entries {
        d.insert(Value::str(k), v);
    }
    Value::Dict(Arc::new(d))
}

fn object(class: &str, id: &str, props: Vec<(&str, Value)>) -> Value {
    let header = dict(vec![("type", Value::str(class)), ("id", Value::str(id))]);
    let mut entries = vec![("?", header)];
    entries.extend(props);
    dict(entries)
}

/// The root holding `n` nodes.
fn tree(n: usize) -> Value {
    let nodes = (0..n)
        .map(|i| {
            object(
                "Node",
                &format!("node-{i}"),
                vec![("label", Value::str("x"))],
            )
        })
        .collect();
    object(
        "Root",
        "root",
        vec![("nodes", Value::List(Arc::new(nodes)))],
    )
}

fn store(c: &mut Criterion) {
    let classes = classes();
    let limits = Limits {
        fuel: None,
        max_objects: usize::MAX,
        ..Limits::default()
    };
    let mut group = c.benchmark_group("object-store");
    group.sample_size(10);
    for n in [1_000usize, 4_000, 16_000] {
        let load = dict(vec![("Objects", tree(n))]);
        let collect = dict(vec![("Objects", tree(0)), ("ObjectsCopy", tree(n))]);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("load", n), &load, |b, model| {
            b.iter(|| {
                let engine = Engine::new(classes.clone(), limits.clone(), vec![]);
                engine.load_model(model).unwrap()
            })
        });
        group.bench_with_input(
            BenchmarkId::new("load-and-collect", n),
            &collect,
            |b, model| {
                b.iter(|| {
                    let engine = Engine::new(classes.clone(), limits.clone(), vec![]);
                    engine.load_model(model).unwrap()
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, store);
criterion_main!(benches);
