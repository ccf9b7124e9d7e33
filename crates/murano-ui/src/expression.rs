//! Which plain YAML scalars of a UI file the dashboard treats as YAQL.
//!
//! The dashboard's rule: not made only of white space, word characters,
//! dots and colons (`^[\s\w\d.:]*$`), and parses with yaql's standard
//! grammar without delegates ([`Grammar::standard`]). Only yaql's grammar
//! and lexical errors mean "a string"; anything else escapes.

use std::sync::OnceLock;

use murano_yaql::{Grammar, ParseError};

/// The dashboard's grammar, built once.
pub fn dashboard_grammar() -> &'static Grammar {
    static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
    GRAMMAR.get_or_init(Grammar::standard)
}

fn is_word_or_space(c: char) -> bool {
    c == '.'
        || c == ':'
        || c == '_'
        || c.is_alphanumeric()
        || c.is_whitespace()
        || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// The dashboard's `YaqlExpression.match` for a plain scalar.
pub fn is_expression(text: &str) -> Result<bool, ParseError> {
    if text.chars().all(is_word_or_space) {
        return Ok(false);
    }
    dashboard_grammar().is_valid(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_corpus_quirk_table() {
        for yes in ["$", "a-b", "x and y()", "$x.y", "--x", "x=y"] {
            assert_eq!(is_expression(yes), Ok(true), "{yes}");
        }
        for no in [
            "std:Application",
            ":Foo",
            "$.class(sys:Foo)",
            "$.a[1:2]",
            "$ is string",
            "a => b",
            "http://a/b",
            "foo bar",
        ] {
            assert_eq!(is_expression(no), Ok(false), "{no}");
        }
    }
}
