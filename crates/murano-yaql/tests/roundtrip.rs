//! Printing a tree as source and parsing it again gives the same tree:
//! for generated expressions (property tests) and for every expression of
//! the shared corpora when they are present.

use std::path::Path;

use murano_yaql::{Grammar, ParseError};
use proptest::prelude::*;

fn roundtrips(grammar: &Grammar, source: &str) -> Result<(), String> {
    let tree = match grammar.parse(source) {
        Ok(tree) => tree,
        Err(_) => return Ok(()),
    };
    let printed = tree.root().to_source();
    let again = grammar
        .parse(&printed)
        .map_err(|e| format!("{source:?} printed as {printed:?}, which fails: {e}"))?;
    if again.root().same_tree(tree.root()) {
        Ok(())
    } else {
        Err(format!(
            "{source:?} printed as {printed:?} reads back as {again}, not {tree}"
        ))
    }
}

/// yaql source built from the grammar's shapes, so that most of it parses.
fn expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        "[0-9]{1,25}",
        "[0-9]{1,4}\\.[0-9]{1,4}",
        "'([^'\\\\]|\\\\[nt'\\\\dx])*'",
        "\"[a-zé \\n]*\"",
        "`[^`]*`",
        "[a-zA-Z_][a-zA-Z0-9_]{0,5}",
        "\\$[a-z0-9]{0,3}",
        Just("true".to_owned()),
        Just("null".to_owned()),
    ];
    let ops = prop::sample::select(vec![
        ".", "?.", "+", "-", "*", "/", "mod", "=~", "!~", ">", "<", ">=", "<=", "=", "!=", "in",
        "and", "or", "->", "is", ":",
    ]);
    leaf.prop_recursive(6, 64, 4, move |inner| {
        // yaql's argument lists: positional ones (skips allowed except
        // last), then keyword ones.
        let positional = prop::collection::vec(
            prop_oneof![4 => inner.clone(), 1 => Just(String::new())],
            0..4,
        )
        .prop_map(|mut items| {
            while items.last().is_some_and(String::is_empty) {
                items.pop();
            }
            items
        });
        let keyword = prop::collection::vec(
            ("[a-z]{1,3}", inner.clone()).prop_map(|(k, v)| format!("{k} => {v}")),
            0..2,
        );
        let args = (positional, keyword).prop_map(|(mut items, keyword)| {
            items.extend(keyword);
            items.join(", ")
        });
        prop_oneof![
            (inner.clone(), ops.clone(), inner.clone())
                .prop_map(|(a, o, b)| format!("{a} {o} {b}")),
            (
                prop::sample::select(vec!["-", "+", "not ", ":"]),
                inner.clone()
            )
                .prop_map(|(o, a)| format!("{o}{a}")),
            ("[a-z][a-zA-Z]{0,4}", args.clone()).prop_map(|(f, a)| format!("{f}({a})")),
            inner.clone().prop_map(|a| format!("({a})")),
            args.clone().prop_map(|a| format!("[{a}]")),
            args.clone().prop_map(|a| format!("{{{a}}}")),
            (inner.clone(), args.clone()).prop_map(|(t, a)| format!("{t}[{a}]")),
            (inner.clone(), args).prop_map(|(t, a)| format!("{t}({a})")),
        ]
    })
}

fn grammars() -> [Grammar; 4] {
    [
        Grammar::standard(),
        Grammar::standard_with_delegates(),
        Grammar::murano(),
        Grammar::legacy(),
    ]
}

proptest! {
    #![proptest_config(murano_testkit::proptest_config(2000))]

    #[test]
    fn generated_expressions_roundtrip(source in expression()) {
        for grammar in grammars() {
            prop_assert_eq!(roundtrips(&grammar, &source), Ok(()));
        }
    }

    #[test]
    fn arbitrary_text_never_panics(source in "\\PC{0,64}") {
        for grammar in grammars() {
            let _: Result<_, ParseError> = grammar.parse(&source);
            let _ = grammar.tokenize(&source);
        }
    }

    #[test]
    fn arbitrary_token_soup_never_panics(
        parts in prop::collection::vec(
            prop::sample::select(vec![
                "(", ")", "[", "]", "{", "}", ",", "=>", "$", "$x", "f(", "a", "1", "1.5",
                "'s'", "-", "not", "and", ".", "?.", ":", "is", "->", " ", "\n", "__", "\\",
            ]),
            0..40,
        )
    ) {
        let source = parts.concat();
        for grammar in grammars() {
            prop_assert_eq!(roundtrips(&grammar, &source), Ok(()));
        }
    }
}

/// Every expression of the shared data round-trips. Skips (and says so)
/// when the data is absent.
#[test]
fn corpus_expressions_roundtrip() {
    let root = match std::env::var_os("MURANO_SHARED") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    if !root.is_dir() {
        println!("shared data not found at {}; skipping", root.display());
        return;
    }
    let mut checked = 0;
    let mut failures = Vec::new();
    let parse_rows = std::fs::read_to_string(root.join("conformance/yaql/parse.jsonl")).unwrap();
    for line in parse_rows.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let grammar = match row["grammar"].as_str() {
            Some("legacy") => Grammar::legacy(),
            Some("standard_nodelegates") => Grammar::standard(),
            _ => Grammar::standard_with_delegates(),
        };
        checked += 1;
        if let Err(e) = roundtrips(&grammar, row["expr"].as_str().unwrap()) {
            failures.push(e);
        }
    }
    for (dir, grammar) in [("class", Grammar::murano()), ("ui", Grammar::standard())] {
        for entry in std::fs::read_dir(root.join("corpus").join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if !path.to_string_lossy().ends_with(".expected.json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // Pull the expression texts without a full walk: "$yaql" values.
            let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
            let mut stack = vec![&doc];
            while let Some(v) = stack.pop() {
                match v {
                    serde_json::Value::Object(m) => {
                        if let Some(serde_json::Value::String(src)) = m.get("$yaql") {
                            checked += 1;
                            if let Err(e) = roundtrips(&grammar, src) {
                                failures.push(e);
                            }
                        } else {
                            stack.extend(m.values());
                        }
                    }
                    serde_json::Value::Array(items) => stack.extend(items),
                    _ => {}
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} failed:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    assert!(checked > 1000);
}

/// Guards the property above against vacuity: most generated expressions
/// must actually parse, or the round trip checks nothing.
#[test]
fn most_generated_expressions_parse() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let strategy = expression();
    let grammar = Grammar::murano();
    let total = 1000;
    let parsed = (0..total)
        .filter(|_| {
            let source = strategy.new_tree(&mut runner).unwrap().current();
            grammar.parse(&source).is_ok()
        })
        .count();
    println!("{parsed}/{total} generated expressions parse");
    assert!(parsed * 2 > total, "only {parsed}/{total} parse");
}
