//! Which plain YAML scalars of a class file Murano treats as YAQL.
//!
//! Murano's engine makes a plain (unquoted, untagged) scalar an expression
//! when the text is not made only of white space, word characters and dots,
//! and it parses with the engine's grammar ([`Grammar::murano`]). A parse
//! failure means "a string"; any other failure (a malformed escape in a
//! quoted literal) aborts the whole load, which is why the result is a
//! `Result`.

use std::sync::OnceLock;

use murano_yaql::{Grammar, ParseError};

use crate::py_text::{is_space as is_python_space, is_word as is_python_word};

/// The engine grammar, built once.
pub fn engine_grammar() -> &'static Grammar {
    static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
    GRAMMAR.get_or_init(Grammar::murano)
}

/// True when the whole text matches `^[\s\w\d.]*$`: such text is always
/// a plain string, even when it would parse (`not true`, `a and b`).
pub fn is_plain_words(text: &str) -> bool {
    all_chars(text, false)
}

/// Python's `\s`, `\w` (and so `\d`) and `.` for ASCII bytes, plus `:`
/// when `colon`.
fn is_plain_word_byte(b: u8, colon: bool) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(b, b'_' | b'.' | b' ' | b'\t'..=b'\r' | 0x1c..=0x1f)
        || (colon && b == b':')
}

/// The word-regex test: ASCII bytes by table, any other character by its
/// Unicode properties.
fn all_chars(text: &str, colon: bool) -> bool {
    let bytes = text.as_bytes();
    match bytes.iter().position(|&b| !is_plain_word_byte(b, colon)) {
        None => true,
        Some(i) if bytes[i] < 0x80 => false,
        Some(i) => text.get(i..).is_some_and(|rest| {
            rest.chars()
                .all(|c| c == '.' || (colon && c == ':') || is_python_space(c) || is_python_word(c))
        }),
    }
}

/// The dashboard's grammar (yaql's standard one, no delegates), built once.
pub fn dashboard_grammar() -> &'static Grammar {
    static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
    GRAMMAR.get_or_init(Grammar::standard)
}

/// True when the whole text matches the dashboard's `^[\s\w\d.:]*$`:
/// such text is a plain string in UI files.
pub fn is_dashboard_plain_words(text: &str) -> bool {
    all_chars(text, true)
}

/// The dashboard's `YaqlExpression.match` for a plain scalar of a UI file.
/// Only yaql's grammar and lexical errors mean "a string"; anything else is
/// returned as the error the dashboard would let escape.
pub fn is_dashboard_expression(text: &str) -> Result<bool, ParseError> {
    if is_dashboard_plain_words(text) {
        return Ok(false);
    }
    dashboard_grammar().is_valid(text)
}

/// Murano's `YaqlExpression.is_expression` for a plain scalar.
///
/// Returns `Err` for what Murano lets escape (an undecodable escape such as
/// `'\xZZ'` inside the expression).
pub fn is_expression(text: &str) -> Result<bool, ParseError> {
    if is_plain_words(text) {
        return Ok(false);
    }
    engine_grammar().is_valid(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_corpus_quirk_table() {
        for yes in [
            "$",
            "a-b",
            "my-app",
            "js/mixed-mode.js",
            "std:Application",
            ":Foo",
            "$.class(sys:Foo)",
            "$.a[1:2]",
            "$ is string",
            "x and y()",
            "$x.y",
            "--x",
            "x=y",
        ] {
            assert_eq!(is_expression(yes), Ok(true), "{yes}");
        }
        for no in [
            "foo bar",
            "not true",
            "5 mod 2",
            "x and y",
            "io.murano.Object",
            "$.x[",
            "a => b",
            "f(x => 1, ,2)",
            "http://a/b",
            "a, b",
            "foo@bar",
            "50%",
            "",
        ] {
            assert_eq!(is_expression(no), Ok(false), "{no}");
        }
        assert!(is_expression(r"$.f('\xZZ')").is_err());
    }

    #[test]
    fn word_test_matches_the_character_definition() {
        let slow = |t: &str, colon: bool| {
            t.chars()
                .all(|c| c == '.' || (colon && c == ':') || is_python_space(c) || is_python_word(c))
        };
        let mut samples: Vec<String> = (0u32..0x3000)
            .filter_map(char::from_u32)
            .map(|c| format!("ab{c}9"))
            .collect();
        samples.extend(
            [
                "", "a.b c", "x:y", "é:ü", "a\u{1c}b", "a\u{85}", "a\u{a0}b", "٣", "a-b",
            ]
            .map(String::from),
        );
        for t in &samples {
            assert_eq!(is_plain_words(t), slow(t, false), "{t:?}");
            assert_eq!(is_dashboard_plain_words(t), slow(t, true), "{t:?}");
        }
    }
}
