//! Parse errors: what went wrong, where, and which yaql exception it is.

use std::fmt;

use crate::span::{LineCol, Span};

/// The family an error belongs to, matching the exception Python yaql (or
/// Python itself) raises for the same input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorClass {
    /// yaql's `YaqlLexicalException`: a character no token can start with.
    Lexical,
    /// yaql's `YaqlGrammarException`: tokens in an order the grammar rejects.
    Grammar,
    /// Python's `UnicodeDecodeError`, which yaql lets escape when a string
    /// literal holds a malformed escape such as `'\xZZ'`. It is not a
    /// `YaqlParsingException`, so Murano's expression detection does not
    /// catch it.
    Decode,
    /// A limit of [`crate::ParseOptions`] was exceeded. yaql has no such
    /// limit; the class exists so that hostile input fails cleanly.
    Limit,
    /// Python's `ValueError`, which yaql's lexer lets escape when an
    /// integer literal has more digits than Python converts
    /// ([`crate::pyint::MAX_STR_DIGITS`]). Like [`ErrorClass::Decode`] it
    /// is not a `YaqlParsingException`.
    Value,
}

impl ErrorClass {
    /// The Python exception class name for this family.
    pub fn python_name(self) -> &'static str {
        match self {
            ErrorClass::Lexical => "YaqlLexicalException",
            ErrorClass::Grammar => "YaqlGrammarException",
            ErrorClass::Decode => "UnicodeDecodeError",
            ErrorClass::Limit => "LimitExceeded",
            ErrorClass::Value => "ValueError",
        }
    }

    /// Whether yaql would raise a `YaqlParsingException` (the class Murano
    /// catches when it decides whether a string is an expression).
    pub fn is_yaql_parsing_error(self) -> bool {
        matches!(self, ErrorClass::Lexical | ErrorClass::Grammar)
    }
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// No token starts with this character.
    #[error("lexical error: no token starts with {0:?}")]
    IllegalCharacter(char),
    /// A token the grammar does not allow here; `text` is its source text.
    #[error("syntax error: {text:?} is not allowed here")]
    UnexpectedToken {
        /// The token as written.
        text: String,
    },
    /// The expression ended early (this includes the empty expression).
    #[error("syntax error: the expression ends too early")]
    UnexpectedEnd,
    /// A string literal holds an escape that Python cannot decode.
    #[error("invalid escape {escape:?} in string literal: {reason}")]
    InvalidEscape {
        /// The escape sequence as written.
        escape: String,
        /// Why Python refuses it.
        reason: &'static str,
    },
    /// The source is longer than [`crate::ParseOptions::max_len`].
    #[error("expression longer than the limit of {limit} bytes")]
    TooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// Nesting is deeper than [`crate::ParseOptions::max_depth`].
    #[error("expression nested deeper than the limit of {limit}")]
    TooDeep {
        /// The limit.
        limit: u32,
    },
    /// An integer literal with more digits than Python converts
    /// ([`crate::pyint::MAX_STR_DIGITS`]).
    #[error("{}", crate::pyint::too_many_digits_message(*digits))]
    IntTooLong {
        /// How many digits the literal has.
        digits: usize,
    },
}

/// A failure to parse an expression, with its position.
///
/// `Display` gives one line; [`ParseError::render`] adds the source line
/// and a caret.
///
/// ```
/// use murano_yaql::{ErrorClass, Grammar};
///
/// let err = Grammar::standard().parse("1 ? 2").unwrap_err();
/// assert_eq!(err.class(), ErrorClass::Lexical);
/// assert_eq!(err.char_position(), Some(2));
/// assert_eq!(err.to_string(), "lexical error: no token starts with '?' (position 2)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(Box<Inner>);

/// Boxed so that `Result<_, ParseError>` stays one pointer wide on the
/// error side: the parser's recursion carries many of them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    kind: ParseErrorKind,
    span: Span,
    position: Option<usize>,
}

impl ParseError {
    pub(crate) fn new(kind: ParseErrorKind, span: Span, source: &str) -> ParseError {
        let position = match kind {
            ParseErrorKind::UnexpectedEnd => None,
            _ => Some(span.char_offset(source)),
        };
        ParseError(Box::new(Inner {
            kind,
            span,
            position,
        }))
    }

    /// What went wrong.
    pub fn kind(&self) -> &ParseErrorKind {
        &self.0.kind
    }

    /// The exception family, as Python yaql would classify it.
    pub fn class(&self) -> ErrorClass {
        match self.0.kind {
            ParseErrorKind::IllegalCharacter(_) => ErrorClass::Lexical,
            ParseErrorKind::UnexpectedToken { .. } | ParseErrorKind::UnexpectedEnd => {
                ErrorClass::Grammar
            }
            ParseErrorKind::InvalidEscape { .. } => ErrorClass::Decode,
            ParseErrorKind::TooLong { .. } | ParseErrorKind::TooDeep { .. } => ErrorClass::Limit,
            ParseErrorKind::IntTooLong { .. } => ErrorClass::Value,
        }
    }

    /// The bytes of the source the error is about.
    pub fn span(&self) -> Span {
        self.0.span
    }

    /// 0-based character index, as yaql reports it; `None` for an
    /// unexpected end, where yaql has no position either.
    pub fn char_position(&self) -> Option<usize> {
        self.0.position
    }

    /// 1-based line and column in `source` (the text that was parsed).
    pub fn line_col(&self, source: &str) -> LineCol {
        self.0.span.line_col(source)
    }

    /// The message, the line and column, then the offending source line
    /// with a caret under the position, as
    /// [`murano_diagnostics::Snippet`] renders it.
    ///
    /// ```
    /// let err = murano_yaql::Grammar::standard().parse("1 ? 2").unwrap_err();
    /// assert_eq!(
    ///     err.render("1 ? 2"),
    ///     "lexical error: no token starts with '?' (position 2)\n  --> 1:3\n  |\n1 | 1 ? 2\n  |   ^"
    /// );
    /// ```
    pub fn render(&self, source: &str) -> String {
        let start = murano_diagnostics::Position::at_byte(source, self.0.span.start as usize);
        murano_diagnostics::Snippet::new(self.to_string())
            .source(source)
            .span(Some(start), None)
            .render()
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.kind)?;
        if let Some(p) = self.0.position {
            write!(f, " (position {p})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0.kind)
    }
}
