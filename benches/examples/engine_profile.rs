//! Profiles the engine replay of `compare/`: `cargo run --release -p
//! murano-benches --example engine_profile [shared] [rounds]`, under
//! `perf record` for instance.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let shared = std::path::Path::new(args.get(1).map(String::as_str).unwrap_or("../shared"));
    let rounds: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(20);
    let suite = murano_benches::EngineSuite::load(shared, false).expect("engine suite");
    let start = std::time::Instant::now();
    let mut steps = 0;
    for _ in 0..rounds {
        steps += suite.replay();
    }
    let t = start.elapsed().as_secs_f64() / rounds as f64;
    println!("{steps} steps, {:.2} ms per replay", t * 1000.0);
}
