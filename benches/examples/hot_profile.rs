//! Times the steps of the hot-validate workload separately (load only,
//! load and version, full validation) over the HOT conformance templates.
//!
//! ```text
//! hot_profile [STEP [ITERATIONS]]
//! ```
//!
//! With a step name (`load`, `load+version`, `load+schemas`, `validate`;
//! `all` for every step),
//! only that step runs, `ITERATIONS` times (default 20): long enough to
//! profile it alone (`perf record --call-graph dwarf ...`). `slowest`
//! lists the templates whose validation takes longest, with their share
//! of the whole.

use std::time::Instant;

/// The allocator the `compare` binary times with.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let Some(shared) = murano_benches::shared_root() else {
        eprintln!("no shared data");
        return;
    };
    let texts = murano_benches::hot_templates(&shared);
    let limits = murano_hot::Limits::default();
    type Step<'a> = (&'static str, Box<dyn Fn(&str) -> usize + 'a>);
    let steps: Vec<Step<'_>> = vec![
        (
            "load",
            Box::new(|t: &str| usize::from(murano_hot::load::parse(t, &limits).is_ok())),
        ),
        (
            "load+version",
            Box::new(|t: &str| usize::from(murano_hot::Template::load(t, &limits).is_ok())),
        ),
        (
            "load+schemas",
            Box::new(|t: &str| {
                usize::from(
                    murano_hot::Template::load(t, &limits)
                        .and_then(|t| t.schemas())
                        .is_ok(),
                )
            }),
        ),
        (
            "validate",
            Box::new(|t: &str| usize::from(murano_benches::hot_validate(t, &limits))),
        ),
    ];
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|a| a == "slowest") {
        slowest(&texts, &limits);
        return;
    }
    let only = args.get(1).filter(|s| s.as_str() != "all");
    let iterations: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(20);
    for (name, f) in &steps {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let start = Instant::now();
        let mut n = 0;
        let mut best = f64::INFINITY;
        for _ in 0..iterations {
            let one = Instant::now();
            n = texts.iter().map(|t| f(t)).sum::<usize>();
            best = best.min(one.elapsed().as_secs_f64());
        }
        println!(
            "{name}: {:.2} ms mean, {:.2} ms best ({n})",
            start.elapsed().as_secs_f64() * 1000.0 / iterations as f64,
            best * 1000.0
        );
    }
}

/// Prints the ten templates that take longest to validate (best of 50
/// runs each), and what share of the total they take.
fn slowest(texts: &[String], limits: &murano_hot::Limits) {
    let mut times: Vec<(f64, usize)> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let best = (0..50)
                .map(|_| {
                    let start = Instant::now();
                    murano_benches::hot_validate(t, limits);
                    start.elapsed().as_secs_f64()
                })
                .fold(f64::INFINITY, f64::min);
            (best, i)
        })
        .collect();
    let total: f64 = times.iter().map(|(t, _)| t).sum();
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("total {:.3} ms", total * 1000.0);
    for (t, i) in times.iter().take(10) {
        let head: String = texts[*i].chars().take(60).collect();
        println!(
            "{:>8.1} us {:>5.1}% #{i} {} bytes {:?}",
            t * 1e6,
            t / total * 100.0,
            texts[*i].len(),
            head
        );
    }
}
