//! The public view of tokens, for highlighters and tools.

use crate::error::ParseError;
use crate::grammar::Grammar;
use crate::lexer::{Lexer, Tok};
use crate::span::Span;

/// What kind of token a piece of source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TokenClass {
    /// An integer or decimal literal.
    Number,
    /// A quoted string.
    String,
    /// A bare identifier used as a string (yaql's `KEYWORD_STRING`).
    Keyword,
    /// A function name glued to its `(` (the span includes the `(`).
    Function,
    /// `$`, `$1`, `$name`.
    Variable,
    /// `true`, `false` or `null`.
    Literal,
    /// An operator of the grammar (symbol or word).
    Operator,
    /// The keyword-argument operator (`=>`).
    NameValue,
    /// `[`.
    OpenBracket,
    /// `{`.
    OpenBrace,
    /// `(` not glued to a name.
    OpenParen,
    /// `)`, `]` or `}`.
    Close,
    /// `,`.
    Comma,
}

impl Grammar {
    /// Splits `source` into tokens as this grammar's lexer does, without
    /// parsing. Fails at the first character no token starts with.
    ///
    /// ```
    /// use murano_yaql::{Grammar, TokenClass};
    ///
    /// let src = "$.f('x') and not true";
    /// let classes: Vec<TokenClass> =
    ///     Grammar::standard().tokenize(src)?.into_iter().map(|(c, _)| c).collect();
    /// assert_eq!(classes, [
    ///     TokenClass::Variable, TokenClass::Operator, TokenClass::Function,
    ///     TokenClass::String, TokenClass::Close, TokenClass::Operator,
    ///     TokenClass::Operator, TokenClass::Literal,
    /// ]);
    /// # Ok::<(), murano_yaql::ParseError>(())
    /// ```
    pub fn tokenize(&self, source: &str) -> Result<Vec<(TokenClass, Span)>, ParseError> {
        let mut lexer = Lexer::new(&self.inner, source);
        let mut out = Vec::new();
        loop {
            let token = lexer.next_token()?;
            let class = match token.tok {
                Tok::End => return Ok(out),
                Tok::Number => TokenClass::Number,
                Tok::String => TokenClass::String,
                Tok::Keyword => TokenClass::Keyword,
                Tok::Func => TokenClass::Function,
                Tok::Dollar => TokenClass::Variable,
                Tok::True | Tok::False | Tok::Null => TokenClass::Literal,
                Tok::Operator(_) => TokenClass::Operator,
                Tok::Mapping => TokenClass::NameValue,
                Tok::Indexer => TokenClass::OpenBracket,
                Tok::Map => TokenClass::OpenBrace,
                Tok::LParen => TokenClass::OpenParen,
                Tok::RParen | Tok::RBracket | Tok::RBrace => TokenClass::Close,
                Tok::Comma => TokenClass::Comma,
            };
            out.push((class, token.span));
        }
    }
}
