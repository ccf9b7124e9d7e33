//! The rendering of YAQL parse and evaluation errors, pinned with
//! snapshots: one input expression per file under `tests/render/parse`
//! and `tests/render/eval`, its rendering in `tests/snapshots`. A change
//! of wording or layout fails these tests (with `CI=true` insta writes
//! nothing); review it and update the snapshot files with it.

use std::sync::Arc;

use murano_yaql::eval::{Context, Engine, Library};
use murano_yaql::Grammar;

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).expect("readable input")
}

#[test]
fn parse_errors() {
    insta::glob!("render/parse/*.yaql", |path| {
        let source = read(path);
        let err = Grammar::murano()
            .parse(&source)
            .expect_err("the input is an expression that does not parse");
        insta::assert_snapshot!(err.render(&source));
    });
}

#[test]
fn evaluation_errors() {
    let context = Context::new(Arc::new(Library::standard(true)));
    insta::glob!("render/eval/*.yaql", |path| {
        let source = read(path);
        let query = Engine::standard()
            .compile(&source)
            .expect("the input compiles");
        let err = query
            .evaluate(&context)
            .expect_err("the input is an expression that fails");
        insta::assert_snapshot!(err.render(&source));
    });
}
