//! The checks behind the fuzz targets in `fuzz/`, kept here so that the
//! seed corpora and regression inputs replay as ordinary tests on a stable
//! toolchain. Each check panics when an invariant breaks.

use murano_yaql::{Grammar, ParseOptions};

/// YAQL lexing and parsing in every built-in grammar: no panic; a tree
/// prints in both forms, and its source form parses back to the same tree.
pub fn yaql_parse(data: &[u8]) {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let options = ParseOptions::default().with_max_depth(64);
    for grammar in [
        Grammar::standard(),
        Grammar::standard_with_delegates(),
        Grammar::murano(),
        Grammar::legacy(),
    ] {
        let _ = grammar.tokenize(source);
        match grammar.parse_with(source, &options) {
            Ok(tree) => {
                let _ = tree.to_string();
                let printed = tree.root().to_source();
                let again = grammar
                    .parse(&printed)
                    .unwrap_or_else(|e| panic!("{source:?} printed as {printed:?} fails: {e}"));
                assert!(
                    again.root().same_tree(tree.root()),
                    "{source:?} printed as {printed:?} reads back differently"
                );
            }
            Err(e) => {
                let _ = e.render(source);
                assert!(e.span().end as usize <= source.len());
            }
        }
    }
}

/// A fuzz check: panics when an invariant breaks.
pub type Check = fn(&[u8]);

/// The fuzz targets and their checks, by target name.
pub const TARGETS: &[(&str, Check)] = &[("yaql_parse", yaql_parse)];
