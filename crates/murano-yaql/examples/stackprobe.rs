use murano_yaql::{Grammar, ParseOptions};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let kind = a[1].clone();
    let depth: usize = a[2].parse().unwrap();
    let stack: usize = a[3].parse().unwrap();
    let src = match kind.as_str() {
        "paren" => format!("{}1{}", "(".repeat(depth), ")".repeat(depth)),
        "list" => format!("{}1{}", "[".repeat(depth), "]".repeat(depth)),
        "func" => format!("{}1{}", "f(".repeat(depth), ")".repeat(depth)),
        "neg" => format!("{}1", "-".repeat(depth)),
        _ => format!("1{}", "+1".repeat(depth)),
    };
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            let g = Grammar::standard();
            let o = ParseOptions::default().with_max_depth(100000);
            let t = g.parse_with(&src, &o).unwrap();
            let s = t.to_string();
            let _ = t.root().to_source();
            drop(t);
            assert!(!s.is_empty());
        })
        .unwrap()
        .join()
        .unwrap();
}
