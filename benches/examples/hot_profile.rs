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
//! profile it alone (`perf record --call-graph dwarf ...`).

use std::time::Instant;

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
