//! The lexer: yaql's token rules, in yaql's order.
//!
//! yaql's PLY lexer tries, at each position, its rules as one alternation:
//! `$name`, numbers, `name(`, bare words, the three string quotes, then the
//! operator symbols of the grammar (longest first), then the punctuation
//! `( ) ] , }`. The first rule that matches wins, which is not always the
//! longest match (`12.3x` gives the number `12`, not an error). A `logos`
//! automaton recognises the ASCII shapes quickly; the steps that depend on
//! Python's regular-expression semantics (word boundaries, Unicode word
//! characters, the operator table chosen at run time) are done by hand.

use std::borrow::Cow;

use logos::Logos;

use crate::ast::Number;
use crate::error::{ParseError, ParseErrorKind};
use crate::escape::decode_escapes;
use crate::grammar::{is_ignored, GrammarInner, SymbolToken};
use crate::span::Span;

/// The shapes `logos` recognises; the lexer refines each.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n]+")]
enum Shape {
    #[regex(r"\$[A-Za-z0-9_]*")]
    Dollar,
    #[regex(r"[0-9]+(\.[0-9]+)?")]
    Number,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Word,
    #[regex(r#"'([^'\\]|\\[^\n])*'"#)]
    SingleQuoted,
    #[regex(r#""([^"\\]|\\[^\n])*""#)]
    DoubleQuoted,
    #[regex(r#"`([^`\\]|\\[^\n])*`"#)]
    BackQuoted,
}

/// A token's kind and value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok<'s> {
    Number(Number),
    String(Cow<'s, str>),
    /// A bare identifier: yaql's `KEYWORD_STRING`.
    Keyword(&'s str),
    /// An identifier glued to `(`; the text excludes the parenthesis.
    Func(&'s str),
    /// `$`, `$name` or `$1`, as written.
    Dollar(&'s str),
    True,
    False,
    Null,
    Operator(u16),
    /// The keyword-argument operator (`=>`).
    Mapping,
    /// `[`: indexer after a value, list literal elsewhere.
    Indexer,
    /// `{`: map literal.
    Map,
    LParen,
    RParen,
    RBracket,
    Comma,
    RBrace,
    End,
}

impl Tok<'_> {
    /// Whether a value may start with this token (prefix operators are
    /// checked by the parser, which knows the grammar).
    pub(crate) fn starts_operand(&self) -> bool {
        matches!(
            self,
            Tok::Number(_)
                | Tok::String(_)
                | Tok::Keyword(_)
                | Tok::Func(_)
                | Tok::Dollar(_)
                | Tok::True
                | Tok::False
                | Tok::Null
                | Tok::Indexer
                | Tok::Map
                | Tok::LParen
        )
    }
}

/// A token with its byte span.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token<'s> {
    pub(crate) tok: Tok<'s>,
    pub(crate) span: Span,
}

/// Python's `\w` for `str` patterns: letters, digits and numerics of any
/// script, and `_`.
pub(crate) fn is_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Python's `\d` restricted to ASCII (see COMPATIBILITY.md).
fn is_digit(c: char) -> bool {
    c.is_ascii_digit()
}

/// Pulls tokens on demand, so that (as in yaql) a grammar error before a bad
/// character is reported instead of the bad character.
pub(crate) struct Lexer<'g, 's> {
    grammar: &'g GrammarInner,
    source: &'s str,
    pos: usize,
}

impl<'g, 's> Lexer<'g, 's> {
    pub(crate) fn new(grammar: &'g GrammarInner, source: &'s str) -> Self {
        Lexer {
            grammar,
            source,
            pos: 0,
        }
    }

    fn error(&self, kind: ParseErrorKind, start: usize, end: usize) -> ParseError {
        ParseError::new(kind, Span::new(start, end), self.source)
    }

    /// The next token, or [`Tok::End`].
    pub(crate) fn next_token(&mut self) -> Result<Token<'s>, ParseError> {
        let bytes = self.source.as_bytes();
        while self.pos < bytes.len() && is_ignored(bytes[self.pos] as char) {
            self.pos += 1;
        }
        let start = self.pos;
        if start >= self.source.len() {
            return Ok(Token {
                tok: Tok::End,
                span: Span::new(start, start),
            });
        }
        let rest = &self.source[start..];
        let mut shapes = Shape::lexer(rest);
        let shape = match shapes.next() {
            Some(Ok(shape)) => Some((shape, shapes.span().end)),
            _ => None,
        };
        let found = match shape {
            Some((shape, len)) => self.refine(shape, start, len)?,
            None => self.non_ascii_word(start),
        };
        let (tok, end) = match found {
            Some(found) => found,
            None => self.symbol_or_punctuation(start)?,
        };
        self.pos = end;
        Ok(Token {
            tok,
            span: Span::new(start, end),
        })
    }

    #[inline]
    fn prev_is_word(&self, at: usize) -> bool {
        match at.checked_sub(1).map(|i| self.source.as_bytes()[i]) {
            None => false,
            Some(b) if b.is_ascii() => b == b'_' || b.is_ascii_alphanumeric(),
            Some(_) => self.source[..at].chars().next_back().is_some_and(is_word),
        }
    }

    /// Extends a run of word characters that `logos` (ASCII only) ended at
    /// `end` over any following non-ASCII word characters.
    #[inline]
    fn extend_word(&self, end: usize) -> usize {
        // `logos` took every ASCII word character: an ASCII byte next ends
        // the word.
        if self.source.as_bytes().get(end).is_none_or(u8::is_ascii) {
            end
        } else {
            self.extend_non_ascii_word(end)
        }
    }

    #[cold]
    fn extend_non_ascii_word(&self, mut end: usize) -> usize {
        for c in self.source[end..].chars() {
            if !is_word(c) {
                break;
            }
            end += c.len_utf8();
        }
        end
    }

    /// Turns a recognised shape into yaql's token, or `None` when yaql's
    /// rule does not match here after all and later rules must be tried.
    fn refine(
        &self,
        shape: Shape,
        start: usize,
        len: usize,
    ) -> Result<Option<(Tok<'s>, usize)>, ParseError> {
        let source = self.source;
        let end = start + len;
        Ok(match shape {
            Shape::Dollar => {
                let end = self.extend_word(end);
                Some((Tok::Dollar(&source[start..end]), end))
            }
            Shape::Number => self.number(start, end),
            Shape::Word => self.word(start, self.extend_word(end)),
            Shape::SingleQuoted | Shape::DoubleQuoted => {
                let body = &source[start + 1..end - 1];
                match decode_escapes(body) {
                    Ok(text) => Some((Tok::String(text), end)),
                    Err(bad) => {
                        let at = start + 1 + bad.offset;
                        return Err(self.error(
                            ParseErrorKind::InvalidEscape {
                                escape: bad.escape.clone(),
                                reason: bad.reason,
                            },
                            at,
                            at + bad.escape.len(),
                        ));
                    }
                }
            }
            Shape::BackQuoted => {
                let body = &source[start + 1..end - 1];
                let text = if body.contains("\\`") {
                    Cow::Owned(body.replace("\\`", "`"))
                } else {
                    Cow::Borrowed(body)
                };
                Some((Tok::String(text), end))
            }
        })
    }

    /// yaql's number rule `\b\d+(\.?\d+)?\b`, including its backtracking:
    /// `12.5x` yields `12` (then `.`), and digits glued to a letter match
    /// nothing.
    fn number(&self, start: usize, end: usize) -> Option<(Tok<'s>, usize)> {
        if self.prev_is_word(start) {
            return None;
        }
        let text = &self.source[start..end];
        let boundary_after = |at: usize| !self.source[at..].chars().next().is_some_and(is_word);
        let (text, end) = if boundary_after(end) {
            (text, end)
        } else {
            // Only the integer part before a '.' can still end on a
            // boundary (the '.' itself); a digit run glued to a word
            // character never can.
            let dot = text.find('.')?;
            (&text[..dot], start + dot)
        };
        if text.contains('.') {
            // The shape guarantees digits '.' digits, which always parses.
            let value: f64 = text.parse().ok()?;
            Some((Tok::Number(Number::Float(value)), end))
        } else {
            Some((Tok::Number(Number::from_digits(text)), end))
        }
    }

    /// Identifiers: `name(` is a function token; a bare word is an operator
    /// of the grammar, `true`/`false`/`null`, or a keyword string, except
    /// that one starting with `__` matches no rule.
    fn word(&self, start: usize, end: usize) -> Option<(Tok<'s>, usize)> {
        if self.prev_is_word(start) {
            return None;
        }
        let text = &self.source[start..end];
        if self.source[end..].starts_with('(') {
            return Some((Tok::Func(text), end + 1));
        }
        if text.starts_with("__") {
            return None;
        }
        if let Some(id) = self.grammar.word_operator(text) {
            return Some((Tok::Operator(id), end));
        }
        let tok = match text {
            "true" => Tok::True,
            "false" => Tok::False,
            "null" => Tok::Null,
            _ => Tok::Keyword(text),
        };
        Some((tok, end))
    }

    /// Words that start with a non-ASCII letter, which `logos` leaves alone.
    fn non_ascii_word(&self, start: usize) -> Option<(Tok<'s>, usize)> {
        let first = self.source[start..].chars().next()?;
        if first.is_ascii() || !is_word(first) || is_digit(first) {
            return None;
        }
        self.word(start, self.extend_word(start))
    }

    /// The operator symbols of the grammar, longest first, then yaql's
    /// punctuation literals; failing both, a lexical error.
    fn symbol_or_punctuation(&self, start: usize) -> Result<(Tok<'s>, usize), ParseError> {
        let rest = &self.source[start..];
        let candidates = &self.grammar.symbols[usize::from(rest.as_bytes()[0])];
        for (symbol, token) in candidates {
            if rest.starts_with(&**symbol) {
                let tok = match *token {
                    SymbolToken::Operator(id) => Tok::Operator(id),
                    SymbolToken::Mapping => Tok::Mapping,
                    SymbolToken::Indexer => Tok::Indexer,
                    SymbolToken::Map => Tok::Map,
                };
                return Ok((tok, start + symbol.len()));
            }
        }
        let c = rest.chars().next().unwrap_or('\0');
        let tok = match c {
            '(' => Tok::LParen,
            ')' => Tok::RParen,
            ']' => Tok::RBracket,
            ',' => Tok::Comma,
            '}' => Tok::RBrace,
            _ => {
                return Err(self.error(
                    ParseErrorKind::IllegalCharacter(c),
                    start,
                    start + c.len_utf8(),
                ))
            }
        };
        Ok((tok, start + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Grammar;

    fn lex(grammar: &Grammar, src: &str) -> Result<Vec<String>, ParseError> {
        let mut lexer = Lexer::new(&grammar.inner, src);
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token()?;
            if t.tok == Tok::End {
                return Ok(out);
            }
            out.push(match t.tok {
                Tok::Operator(id) => format!("op{}", grammar.inner.operator(id).symbol),
                other => format!("{other:?}"),
            });
        }
    }

    #[test]
    fn numbers_follow_python_backtracking() {
        let g = Grammar::standard();
        assert_eq!(
            lex(&g, "12.5x").unwrap_err().kind(),
            &ParseErrorKind::IllegalCharacter('5')
        );
        assert_eq!(lex(&g, "5.2.int()").unwrap()[0], "Number(Float(5.2))");
        assert_eq!(
            lex(&g, "5.float()").unwrap()[..2],
            ["Number(Int(5))", "op."]
        );
        assert!(lex(&g, "1e5").is_err());
    }

    #[test]
    fn words_functions_and_keywords() {
        let g = Grammar::standard();
        assert_eq!(
            lex(&g, "not(x) not x True").unwrap(),
            [
                "Func(\"not\")",
                "Keyword(\"x\")",
                "RParen",
                "opnot",
                "Keyword(\"x\")",
                "Keyword(\"True\")"
            ]
        );
        assert!(lex(&g, "__x").is_err());
        assert_eq!(lex(&g, "__x(").unwrap(), ["Func(\"__x\")"]);
        assert_eq!(lex(&g, "$__x").unwrap(), ["Dollar(\"$__x\")"]);
        assert_eq!(lex(&g, "café").unwrap(), ["Keyword(\"café\")"]);
        assert_eq!(lex(&g, "ёлка").unwrap(), ["Keyword(\"ёлка\")"]);
    }

    #[test]
    fn operators_match_longest_symbol() {
        let g = Grammar::standard();
        assert_eq!(lex(&g, "a=>b").unwrap()[1], "Mapping");
        assert_eq!(lex(&g, "a=~b").unwrap()[1], "op=~");
        assert_eq!(lex(&g, "a->b").unwrap()[1], "op->");
        assert_eq!(lex(&g, "a?.b").unwrap()[1], "op?.");
        assert!(lex(&g, "a:b").is_err());
        assert_eq!(lex(&Grammar::murano(), "a:b").unwrap()[1], "op:");
    }

    #[test]
    fn strings() {
        let g = Grammar::standard();
        assert_eq!(lex(&g, r"'a\'b'").unwrap(), ["String(\"a'b\")"]);
        assert_eq!(lex(&g, r"`a\`\n`").unwrap(), ["String(\"a`\\\\n\")"]);
        assert!(lex(&g, "'abc").is_err());
        assert_eq!(
            lex(&g, r"'\xZZ'").unwrap_err().class(),
            crate::ErrorClass::Decode
        );
        // A backslash before a line break ends no string.
        assert!(lex(&g, "'a\\\nb'").is_err());
        assert_eq!(lex(&g, "'a\nb'").unwrap(), ["String(\"a\\nb\")"]);
    }
}
