//! The stages above YAQL: loading class files, loading whole packages
//! through the plug-in registry (Heat.HOT translation included), checking
//! packages, applying contracts, generating a class's JSON schema, and a
//! scaling check that parse and load time grow linearly with input size.
//! Examples always; the shared corpora when present.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use murano_benches::{corpus_packages, example_packages, json_to_value, shared_root, sorted_files};
use murano_dsl::contract::{Contract, MemoryHost, Runtime, Scope};
use murano_dsl::model::ClassDefinition;
use murano_packages::check::{check_package, CheckOptions};
use murano_packages::source::PackageSource;
use murano_packages::PluginRegistry;
use murano_schema::{generate, CatalogBuilder, SchemaRequest};
use murano_yaml::{load_class_file, LoadOptions};
use murano_yaql::eval::convert_input;
use murano_yaql::Grammar;

fn class_files() -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    for (_, package) in example_packages() {
        for path in package.paths() {
            if path.starts_with("Classes/") && path.ends_with(".yaml") {
                files.push(package.read(path).unwrap_or_default().to_vec());
            }
        }
    }
    if let Some(root) = shared_root() {
        files.extend(
            sorted_files(&root.join("corpus/class"), ".yaml")
                .iter()
                .filter_map(|p| std::fs::read(p).ok()),
        );
    }
    files
}

fn class_loading(c: &mut Criterion) {
    let files = class_files();
    let bytes: usize = files.iter().map(Vec::len).sum();
    let options = LoadOptions::default();
    let mut group = c.benchmark_group("class-files");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("load", |b| {
        b.iter(|| {
            for f in &files {
                let _ = black_box(load_class_file(black_box(f), &options));
            }
        })
    });
    group.bench_function("load-and-model", |b| {
        b.iter(|| {
            for f in &files {
                if let Ok(file) = load_class_file(f, &options) {
                    black_box(ClassDefinition::from_documents(&file.documents, None));
                }
            }
        })
    });
    group.finish();
}

fn packages(c: &mut Criterion) {
    let registry = PluginRegistry::with_builtins();
    let mut group = c.benchmark_group("packages");
    for (name, files) in example_packages() {
        // Loading reads the manifest; asking for every class and the UI
        // does the per-format work (for Heat.HOT, the translation).
        group.bench_function(BenchmarkId::new("load-all", &name), |b| {
            b.iter(|| {
                let Ok(package) = registry.load(files.clone()) else {
                    return;
                };
                for class in package.classes().unwrap_or_default() {
                    let _ = black_box(package.get_class(&class));
                }
                let _ = black_box(package.ui());
            })
        });
    }
    let options = CheckOptions::default();
    let examples: Vec<_> = example_packages().into_iter().map(|(_, f)| f).collect();
    group.bench_function("check/examples", |b| {
        b.iter(|| {
            for files in &examples {
                black_box(check_package(files, &options));
            }
        })
    });
    if let Some(root) = shared_root() {
        let trees = corpus_packages(&root);
        group.throughput(Throughput::Elements(trees.len() as u64));
        group.sample_size(10);
        group.bench_function("check/corpus-trees", |b| {
            b.iter(|| {
                for files in &trees {
                    black_box(check_package(files, &options));
                }
            })
        });
    }
    group.finish();
}

/// Applying contracts as the engine does on each property write.
fn contracts(c: &mut Criterion) {
    let scope = Scope::new(Arc::new(Runtime::new(1, 4)), Arc::new(MemoryHost::new()));
    let cases = [
        ("int-check", "$.int().notNull().check($ > 0 and $ < 65536)", "\"8080\""),
        ("string-list", "[$.string().notNull(), 1]", "[\"a\", \"b\", \"c\", 4, 5, 6, 7, 8]"),
        (
            "dict",
            "{name: $.string().notNull(), port: $.int(), tags: [$.string()], $.string(): $}",
            "{\"name\": \"web\", \"port\": \"80\", \"tags\": [\"a\", \"b\"], \"x\": 1, \"y\": [1, 2]}",
        ),
    ];
    let mut group = c.benchmark_group("contracts");
    for (name, contract, data) in cases {
        let contract = Contract::parse_yaml(contract).expect("benchmark contract parses");
        let data = convert_input(json_to_value(
            &serde_json::from_str(data).expect("benchmark data is JSON"),
        ));
        contract
            .transform(&scope, Some(&data), None)
            .expect("benchmark data satisfies its contract");
        group.bench_function(name, |b| {
            b.iter(|| black_box(contract.transform(&scope, Some(black_box(&data)), None)))
        });
    }
    group.finish();
}

/// Schema generation for the example shop class, with Murano's core
/// library from the shared data (skipped without it).
fn schema(c: &mut Criterion) {
    let Some(root) = shared_root() else {
        return;
    };
    let registry = PluginRegistry::with_builtins();
    let mut builder = CatalogBuilder::new();
    let core =
        murano_testkit::read_package_dir(&root.join("corpus/packages/murano/meta/io.murano"))
            .unwrap_or_default();
    for files in [core].into_iter().chain(
        example_packages()
            .into_iter()
            .filter(|(name, _)| name == "shop")
            .map(|(_, f)| f),
    ) {
        if let Ok(package) = registry.load(files) {
            let _ = builder.add_package(package.as_ref());
        }
    }
    let catalog = builder.build();
    let request = SchemaRequest::new("com.example.Shop");
    if generate(&catalog, &request).is_err() {
        return;
    }
    c.bench_function("schema/com.example.Shop", |b| {
        b.iter(|| black_box(generate(&catalog, black_box(&request))))
    });
}

/// Parse and load time per byte should stay flat from 1x to 100x.
fn scaling(c: &mut Criterion) {
    let grammar = Grammar::murano();
    let unit = "$.instances.where($.flavor = 'm1.small').select($.name).join(', ')";
    let mut group = c.benchmark_group("scaling");
    for times in [1usize, 10, 100] {
        let expression = vec![unit; times].join(" + ");
        group.throughput(Throughput::Bytes(expression.len() as u64));
        group.bench_function(BenchmarkId::new("yaql-parse", times), |b| {
            b.iter(|| black_box(grammar.parse(black_box(&expression))))
        });
        let mut class = String::from("Name: com.example.Big\nMethods:\n");
        for i in 0..times * 10 {
            class.push_str(&format!(
                "  m{i}:\n    Arguments:\n      - x:\n          Contract: $.int().notNull()\n    Body:\n      - $.value: $x * {i}\n      - Return: $.value\n"
            ));
        }
        let options = LoadOptions::default();
        group.throughput(Throughput::Bytes(class.len() as u64));
        group.bench_function(BenchmarkId::new("class-load", times), |b| {
            b.iter(|| black_box(load_class_file(black_box(class.as_bytes()), &options)))
        });
    }
    group.finish();
}

criterion_group!(benches, class_loading, packages, contracts, schema, scaling);
criterion_main!(benches);
