//! Times the steps of the hot-validate workload separately (load only,
//! load and version, full validation) over the HOT conformance templates.

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
    for (name, f) in &steps {
        let start = Instant::now();
        let mut n = 0;
        for _ in 0..20 {
            n = texts.iter().map(|t| f(t)).sum::<usize>();
        }
        println!(
            "{name}: {:.2} ms ({n})",
            start.elapsed().as_secs_f64() * 1000.0 / 20.0
        );
    }
}
