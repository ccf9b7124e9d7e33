//! Parses, prints and drops one deeply nested expression on a thread with
//! a given stack size: a way to measure how much stack each level of
//! nesting takes (the process aborts when the stack is too small).
//!
//! ```text
//! cargo run --release --example stack_depth -- list 256 400000
//! ```
//!
//! Arguments: the shape (`paren`, `list`, `call`, `minus`), the depth, and
//! the stack size in bytes. Bisect the size to find the minimum.

use murano_yaql::{Grammar, ParseOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: stack_depth <paren|list|call|minus> <depth> <stack-bytes>");
        std::process::exit(2);
    }
    let depth: usize = args[2].parse().expect("depth is a number");
    let stack: usize = args[3].parse().expect("stack size is a number");
    let source = match args[1].as_str() {
        "paren" => format!("{}1{}", "(".repeat(depth), ")".repeat(depth)),
        "list" => format!("{}1{}", "[".repeat(depth), "]".repeat(depth)),
        "call" => format!("{}1{}", "f(".repeat(depth), ")".repeat(depth)),
        _ => format!("{}1", "-".repeat(depth)),
    };
    let worker = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            let options = ParseOptions::default().with_max_depth(u32::MAX);
            let tree = Grammar::standard()
                .parse_with(&source, &options)
                .expect("the expression is valid");
            let printed = tree.to_string();
            let source_again = tree.root().to_source();
            drop(tree);
            printed.len() + source_again.len()
        });
    let printed = worker.expect("thread starts").join().expect("no panic");
    println!("ok: {printed} bytes printed");
}
