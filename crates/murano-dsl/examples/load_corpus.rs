//! A fixed workload for profiling the YAML loader: loads every class file
//! of a corpus folder a number of times.
//!
//! ```text
//! cargo run --release -p murano-dsl --example load_corpus -- <dir> [reps] [--quick]
//! ```
//!
//! `--quick` keeps the first tenth of the files (sorted), as the
//! side-by-side comparison does.

use std::path::PathBuf;
use std::time::Instant;

use murano_dsl::yaml::{load_class_file, LoadOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(
        args.get(1)
            .map(String::as_str)
            .unwrap_or("../shared/corpus/class"),
    );
    let reps: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(1);
    let quick = args.iter().any(|a| a == "--quick");
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with(".yaml"))
            })
            .collect(),
        Err(e) => {
            eprintln!("cannot read {}: {e}", dir.display());
            std::process::exit(2);
        }
    };
    paths.sort();
    if quick {
        paths.truncate(paths.len() / 10);
    }
    let files: Vec<Vec<u8>> = paths.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    let options = LoadOptions::default();
    let start = Instant::now();
    let mut loaded = 0;
    for _ in 0..reps {
        loaded = files
            .iter()
            .filter(|b| load_class_file(b, &options).is_ok())
            .count();
    }
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "{} files, {loaded} loaded, {reps} reps: {:.3} ms per pass",
        files.len(),
        elapsed * 1000.0 / reps.max(1) as f64
    );
}
