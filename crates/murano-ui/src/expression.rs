//! Which plain YAML scalars of a UI file the dashboard treats as YAQL.
//!
//! The dashboard's rule: not made only of white space, word characters,
//! dots and colons (`^[\s\w\d.:]*$`), and parses with yaql's standard
//! grammar without delegates. Only yaql's grammar and lexical errors mean
//! "a string"; anything else escapes. The YAML loader in
//! [`murano_yaml`] applies the same rule.

pub use murano_yaml::expression::{
    dashboard_grammar, is_dashboard_expression as is_expression, is_dashboard_plain_words,
};

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
