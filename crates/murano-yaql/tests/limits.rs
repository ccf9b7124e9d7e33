//! Hostile input: every limit holds, and nothing panics or overflows.

use murano_yaql::{ErrorClass, Grammar, ParseErrorKind, ParseOptions};

const MILLION: usize = 1_000_000;

fn assert_too_deep(source: &str) {
    for grammar in [
        Grammar::standard_with_delegates(),
        Grammar::murano(),
        Grammar::legacy(),
    ] {
        let err = grammar.parse(source).expect_err("must be refused");
        assert_eq!(err.class(), ErrorClass::Limit, "{err}");
        assert!(
            matches!(err.kind(), ParseErrorKind::TooDeep { limit: 256 }),
            "{err} for {:?}…",
            &source[..20]
        );
    }
}

#[test]
fn a_million_open_parentheses() {
    assert_too_deep(&"(".repeat(MILLION));
}

#[test]
fn a_million_nested_lists_and_calls() {
    assert_too_deep(&"[".repeat(MILLION));
    // Kept under the 1 MiB length limit so that depth is what trips.
    assert_too_deep(&"f(".repeat(MILLION / 2));
    assert_too_deep(&"{a => ".repeat(MILLION / 6));
}

#[test]
fn a_million_prefix_operators() {
    assert_too_deep(&format!("{}1", "-".repeat(MILLION)));
    assert_too_deep(&format!("{}1", "not ".repeat(MILLION / 4)));
}

#[test]
fn long_left_associative_chains_are_deep_trees() {
    // No recursion while parsing these, but the tree would be a million
    // levels deep, and dropping or printing it would recurse.
    assert_too_deep(&format!("1{}", "+1".repeat(MILLION / 2)));
    assert_too_deep(&format!("$a{}", ".b".repeat(MILLION / 2)));
    assert_too_deep(&format!("$a{}", "[0]".repeat(MILLION / 3)));
}

#[test]
fn right_associative_chains() {
    assert_too_deep(&format!("{}1", "a -> ".repeat(MILLION / 5)));
}

#[test]
fn depth_just_under_the_limit_parses_prints_and_drops() {
    let src = format!("{}1{}", "(".repeat(255), ")".repeat(255));
    let tree = Grammar::standard().parse(&src).expect("within the limit");
    assert!(tree.to_string().starts_with("#wrap(#wrap("));
    assert_eq!(
        Grammar::standard().parse(&tree.root().to_source()).unwrap(),
        tree
    );
}

#[test]
fn wide_flat_input_is_fine() {
    let src = format!("[{}1]", "1, ".repeat(100_000));
    let tree = Grammar::standard()
        .parse(&src)
        .expect("flat lists are not deep");
    assert_eq!(tree.root().children().len(), 100_001);
}

#[test]
fn length_limit() {
    let options = ParseOptions::default().with_max_len(10);
    let err = Grammar::standard()
        .parse_with("12345678901", &options)
        .unwrap_err();
    assert_eq!(err.kind(), &ParseErrorKind::TooLong { limit: 10 });
    assert!(Grammar::standard()
        .parse_with("1234567890", &options)
        .is_ok());
}

#[test]
fn huge_numbers_keep_their_digits() {
    // Up to Python's limit on integer text (4300 digits).
    let digits = "9".repeat(4300);
    let tree = Grammar::standard().parse(&digits).unwrap();
    assert_eq!(tree.to_string(), digits);
    // Past it yaql's lexer lets Python's ValueError through.
    let err = Grammar::standard()
        .parse(&format!("{digits}9"))
        .unwrap_err();
    assert_eq!(err.class(), murano_yaql::ErrorClass::Value);
    // Floats have no such limit.
    let tree = Grammar::standard().parse(&format!("{digits}9.5")).unwrap();
    assert_eq!(tree.to_string(), "inf");
}

#[test]
fn errors_carry_positions() {
    let src = "$.a +\n  ?";
    let err = Grammar::standard().parse(src).unwrap_err();
    assert_eq!(err.class(), ErrorClass::Lexical);
    assert_eq!(err.char_position(), Some(8));
    let at = err.line_col(src);
    assert_eq!((at.line, at.column), (2, 3));
    assert!(
        err.render(src)
            .ends_with("\n  --> 2:3\n  |\n2 |   ?\n  |   ^"),
        "{}",
        err.render(src)
    );
}
