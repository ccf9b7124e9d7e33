//! The Rust side of `benches/compare/run.sh`: times the same workloads as
//! the Python harness and prints one JSON object of median seconds.
//!
//! ```text
//! compare <shared-dir> <repetitions> <zips-dir> [--quick] [--only ROW[,ROW...]]
//! ```
//!
//! `--only` times only the named rows (the output then has only their keys).

use std::path::Path;
use std::time::Instant;

use murano_packages::check::{check_package, CheckOptions};
use murano_packages::source::FileMap;
use murano_yaml::{load_class_file, LoadOptions};
use murano_yaql::Grammar;

/// The allocator the `murano` tool ships with (see its `main.rs`), unless
/// built without the default `mimalloc` feature (`run.sh --system-alloc`).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Named in the output, so every printed ratio says what it measured.
const ALLOCATOR_NAME: &str = if cfg!(feature = "mimalloc") {
    "mimalloc"
} else {
    "system"
};

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// How long each workload is repeated for at least. A Python repetition
/// takes seconds, a Rust one milliseconds: with only `repetitions` samples
/// a hiccup of the shared machine lasting a tenth of a second could move
/// the Rust median (some runs measured the parse at 25 ms where every
/// other gave 16-19 ms). More samples over a second make the median
/// robust to that without changing what is measured.
const MIN_TOTAL_SECONDS: f64 = 1.0;

/// Most samples per workload, whatever the time.
const MAX_SAMPLES: usize = 1000;

fn time(repetitions: usize, mut work: impl FnMut() -> usize) -> (f64, usize) {
    let mut count = work(); // warm-up
    let mut samples = Vec::new();
    let mut total = 0.0;
    while samples.len() < MAX_SAMPLES && (samples.len() < repetitions || total < MIN_TOTAL_SECONDS)
    {
        let start = Instant::now();
        count = work();
        let elapsed = start.elapsed().as_secs_f64();
        total += elapsed;
        samples.push(elapsed);
    }
    (median(samples), count)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let shared = Path::new(args.get(1).map(String::as_str).unwrap_or("../shared"));
    let repetitions: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(5);
    let zips = Path::new(
        args.get(3)
            .map(String::as_str)
            .unwrap_or("target/compare-zips"),
    );
    let quick = args.iter().any(|a| a == "--quick");
    let only: Option<Vec<String>> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|rows| rows.split(',').map(str::to_owned).collect());
    let wanted = |row: &str| {
        only.as_ref()
            .is_none_or(|rows| rows.iter().any(|r| r == row))
    };
    let mut out = serde_json::Map::new();
    let mut record = |row: &str, (seconds, count): (f64, usize)| {
        out.insert(row.to_owned(), seconds.into());
        out.insert(format!("{row}-count"), count.into());
    };

    if wanted("yaql-parse") {
        let mut expressions = murano_benches::corpus_expressions(shared, "class").expressions;
        if quick {
            expressions.truncate(expressions.len() / 10);
        }
        let grammar = Grammar::murano();
        record(
            "yaql-parse",
            time(repetitions, || {
                expressions
                    .iter()
                    .filter(|e| grammar.parse(e).is_ok())
                    .count()
            }),
        );
    }
    if wanted("class-load") {
        let mut class_files: Vec<Vec<u8>> =
            murano_benches::sorted_files(&shared.join("corpus/class"), ".yaml")
                .iter()
                .filter_map(|p| std::fs::read(p).ok())
                .collect();
        if quick {
            class_files.truncate(class_files.len() / 10);
        }
        let options = LoadOptions::default();
        record(
            "class-load",
            time(repetitions, || {
                class_files
                    .iter()
                    .filter(|b| load_class_file(b, &options).is_ok())
                    .count()
            }),
        );
    }
    if wanted("yaql-eval") {
        // yaql.eval style: pre-parsed, a fresh child context per evaluation.
        let suite = murano_benches::YaqlEvalSuite::load(shared);
        record(
            "yaql-eval",
            time(repetitions, || {
                suite
                    .compiled
                    .iter()
                    .filter(|(query, data)| suite.evaluate(query, data.as_ref()).is_ok())
                    .count()
            }),
        );
    }
    if wanted("package-check") {
        let mut zip_paths = murano_benches::sorted_files(zips, ".zip");
        if quick {
            zip_paths.truncate(zip_paths.len() / 4);
        }
        let archives: Vec<Vec<u8>> = zip_paths
            .iter()
            .filter_map(|p| std::fs::read(p).ok())
            .collect();
        // The same checks murano-pkg-check runs, so both report the same findings.
        let check_options = CheckOptions::default().with_pkgcheck_only(true);
        record(
            "package-check",
            time(repetitions, || {
                archives
                    .iter()
                    .filter_map(|bytes| FileMap::from_zip(bytes, &Default::default()).ok())
                    .map(|files| check_package(&files, &check_options).len())
                    .sum()
            }),
        );
    }
    if wanted("hot-validate") {
        // Heat templates: load, version, template-validate with generic
        // resources (the Python side runs Heat 27's engine on the same texts).
        let mut hot_texts = murano_benches::hot_templates(shared);
        if quick {
            hot_texts.truncate(hot_texts.len() / 4);
        }
        let hot_limits = murano_hot::Limits::default();
        record(
            "hot-validate",
            time(repetitions, || {
                hot_texts
                    .iter()
                    .filter(|t| murano_benches::hot_validate(t, &hot_limits))
                    .count()
            }),
        );
    }
    if wanted("engine") {
        // MuranoPL execution: the engine conformance steps (the Python side
        // replays them through Murano's own DSL test foundation).
        let engine_suite = murano_benches::EngineSuite::load(shared, quick).unwrap_or_else(|e| {
            eprintln!("engine suite: {e}");
            std::process::exit(1)
        });
        record("engine", time(repetitions, || engine_suite.replay()));
    }
    out.insert("allocator".to_owned(), ALLOCATOR_NAME.into());
    println!("{}", serde_json::Value::Object(out));
}
