//! Parses every corpus expression `N` times (default 20): a fixed workload
//! for profilers such as `perf record` or `valgrind --tool=callgrind`.
//!
//! ```text
//! cargo run --release -p murano-benches --example parse_corpus -- 20
//! ```

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let sets = murano_benches::all_expression_sets();
    let mut nodes = 0usize;
    let start = std::time::Instant::now();
    let mut bytes = 0usize;
    for _ in 0..rounds {
        for set in &sets {
            let grammar = set.grammar.grammar();
            for e in &set.expressions {
                bytes += e.len();
                if let Ok(tree) = grammar.parse(e) {
                    nodes += tree.root().children().len();
                }
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{rounds} rounds, {:.1} MiB in {secs:.3} s = {:.1} MiB/s ({nodes} root children)",
        bytes as f64 / (1 << 20) as f64,
        bytes as f64 / (1 << 20) as f64 / secs
    );
}
