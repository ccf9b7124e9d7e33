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

/// The engine grammar, built once.
pub fn engine_grammar() -> &'static Grammar {
    static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
    GRAMMAR.get_or_init(Grammar::murano)
}

/// Python's `str.isspace()`, which `\s` follows for `str` patterns.
pub fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `\w` for `str` patterns.
pub fn is_python_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// True when the whole text matches `^[\s\w\d.]*$`: such text is always
/// a plain string, even when it would parse (`not true`, `a and b`).
pub fn is_plain_words(text: &str) -> bool {
    text.chars()
        .all(|c| c == '.' || is_python_space(c) || is_python_word(c))
}

/// The dashboard's grammar (yaql's standard one, no delegates), built once.
pub fn dashboard_grammar() -> &'static Grammar {
    static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
    GRAMMAR.get_or_init(Grammar::standard)
}

/// True when the whole text matches the dashboard's `^[\s\w\d.:]*$`:
/// such text is a plain string in UI files.
pub fn is_dashboard_plain_words(text: &str) -> bool {
    text.chars()
        .all(|c| c == '.' || c == ':' || is_python_space(c) || is_python_word(c))
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
}
