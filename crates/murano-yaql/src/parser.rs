//! The parser: precedence climbing that makes yaql's (PLY's) choices.
//!
//! yaql's grammar is LALR with ambiguities settled by precedence. After a
//! complete operand, PLY either *shifts* the next operator token into the
//! operand or *reduces* the pending rule first; [`Prec::shifts`] is that
//! choice, and each recursive call carries the precedence of the rule whose
//! last operand it parses. Argument lists follow yaql's `args` rules
//! exactly: skipped positional arguments anywhere but last, keyword
//! arguments only after the positional ones, with at most one skipped
//! argument between the two.

use crate::ast::{Constant, Expr, ExprKind, Expression};
use crate::error::{ParseError, ParseErrorKind};
use crate::grammar::{Grammar, GrammarInner, Prec};
use crate::lexer::{Lexer, Tok};
use crate::span::Span;

/// Limits for parsing untrusted text.
///
/// ```
/// use murano_yaql::{ErrorClass, Grammar, ParseOptions};
///
/// let options = ParseOptions::default().with_max_depth(3);
/// let err = Grammar::standard().parse_with("[[[[1]]]]", &options).unwrap_err();
/// assert_eq!(err.class(), ErrorClass::Limit);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Deepest nesting of the tree (each operator, call, bracket or
    /// parenthesis is one level). Default 256. Bounds the stack used here
    /// and by every later walk over the tree.
    pub max_depth: u32,
    /// Longest source in bytes. Default 1 MiB.
    pub max_len: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_depth: 256,
            max_len: 1 << 20,
        }
    }
}

impl ParseOptions {
    /// Sets [`ParseOptions::max_depth`].
    pub fn with_max_depth(mut self, max_depth: u32) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Sets [`ParseOptions::max_len`].
    pub fn with_max_len(mut self, max_len: usize) -> Self {
        self.max_len = max_len;
        self
    }
}

impl Grammar {
    /// Parses `source` with the default [`ParseOptions`].
    pub fn parse(&self, source: &str) -> Result<Expression, ParseError> {
        self.parse_with(source, &ParseOptions::default())
    }

    /// Parses `source` under the given limits.
    pub fn parse_with(
        &self,
        source: &str,
        options: &ParseOptions,
    ) -> Result<Expression, ParseError> {
        if source.len() > options.max_len || source.len() > u32::MAX as usize {
            return Err(ParseError::new(
                ParseErrorKind::TooLong {
                    limit: options.max_len,
                },
                Span::new(options.max_len.min(source.len()), source.len()),
                source,
            ));
        }
        let mut parser = Parser {
            grammar: &self.inner,
            lexer: Lexer::new(&self.inner, source),
            source,
            peeked: false,
            max_depth: options.max_depth,
            depth: 0,
            built_depth: 0,
        };
        let mut root = PLACEHOLDER;
        parser.value(Prec::NONE, &mut root)?;
        if parser.bump()? != Tok::End {
            return Err(parser.unexpected());
        }
        Ok(Expression {
            root,
            source: source.into(),
        })
    }

    /// Whether `source` parses: what Murano's and the dashboard's expression
    /// detection ask. Errors that yaql would not raise as a
    /// `YaqlParsingException` (see [`crate::ErrorClass::Decode`]) are
    /// returned instead of being folded into `false`.
    pub fn is_valid(&self, source: &str) -> Result<bool, ParseError> {
        match self.parse(source) {
            Ok(_) => Ok(true),
            Err(e) if e.class().is_yaql_parsing_error() => Ok(false),
            Err(e) => Err(e),
        }
    }
}

type PResult<T> = Result<T, ParseError>;

struct Parser<'g, 's> {
    grammar: &'g GrammarInner,
    lexer: Lexer<'g, 's>,
    source: &'s str,
    /// Whether the lexer's current token is peeked (not yet consumed).
    peeked: bool,
    max_depth: u32,
    /// Nesting of the recursive calls, bounded by `max_depth`.
    depth: u32,
    /// The depth of the tree the last parsing step built. Parsing steps
    /// write their node to a slot and return only success (see
    /// [`Parser::value`]), so the depth is left here for the caller.
    built_depth: u32,
}

/// Where an argument list ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Close {
    Paren,
    Bracket,
    Brace,
}

impl Close {
    fn matches(self, tok: Tok) -> bool {
        matches!(
            (self, tok),
            (Close::Paren, Tok::RParen)
                | (Close::Bracket, Tok::RBracket)
                | (Close::Brace, Tok::RBrace)
        )
    }
}

/// What follows a complete operand.
#[derive(Clone, Copy)]
enum Continuation {
    Operator(u16),
    Index,
    Call,
}

/// Where an argument list stands, named after what was read last.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ArgState {
    Start,
    /// Only skipped arguments so far: a positional one must follow.
    LeadingSkips,
    Positional,
    PositionalComma,
    /// `a, ,`: one skipped argument; a keyword argument may still follow.
    PositionalSkip,
    Keyword,
    KeywordComma,
}

impl<'s> Parser<'_, 's> {
    /// The next token, left unconsumed; its span is [`Parser::span`].
    #[inline]
    fn peek(&mut self) -> PResult<Tok> {
        if !self.peeked {
            self.lexer.advance()?;
            self.peeked = true;
        }
        Ok(self.lexer.tok)
    }

    /// Consumes the next token; its span is [`Parser::span`] until the
    /// next peek.
    #[inline]
    fn bump(&mut self) -> PResult<Tok> {
        let tok = self.peek()?;
        self.peeked = false;
        Ok(tok)
    }

    /// The span of the token last peeked or consumed.
    fn span(&self) -> Span {
        self.lexer.span
    }

    /// The error for the token last peeked or consumed.
    fn unexpected(&self) -> ParseError {
        self.unexpected_token(self.lexer.tok, self.lexer.span)
    }

    fn unexpected_token(&self, tok: Tok, span: Span) -> ParseError {
        let kind = if tok == Tok::End {
            ParseErrorKind::UnexpectedEnd
        } else {
            ParseErrorKind::UnexpectedToken {
                text: self.source[span.range()].to_owned(),
            }
        };
        ParseError::new(kind, span, self.source)
    }

    fn too_deep(&self, span: Span) -> ParseError {
        ParseError::new(
            ParseErrorKind::TooDeep {
                limit: self.max_depth,
            },
            span,
            self.source,
        )
    }

    /// Checks the depth of a node about to be built, records it, and
    /// writes the node to `out`.
    #[inline]
    fn node(&mut self, out: &mut Expr, kind: ExprKind, span: Span, depth: u32) -> PResult<()> {
        if depth > self.max_depth {
            return Err(self.too_deep(span));
        }
        self.built_depth = depth;
        *out = Expr { kind, span };
        Ok(())
    }

    /// A value whose continuation is decided against `pending`, the
    /// precedence of the rule it is the last operand of.
    ///
    /// Parsing functions write the node they build to `out`, which is
    /// where it stays (a box or a vector slot already allocated), instead
    /// of returning it: a node returned through a `Result` is written in
    /// pieces and copied at once right after, which stalls the processor
    /// at every level.
    fn value(&mut self, pending: Prec, out: &mut Expr) -> PResult<()> {
        self.depth += 1;
        if self.depth > self.max_depth {
            let span = match self.peek() {
                Ok(_) => self.span(),
                Err(_) => Span::default(),
            };
            return Err(self.too_deep(span));
        }
        let result = self.value_inner(pending, out);
        self.depth -= 1;
        result
    }

    fn value_inner(&mut self, pending: Prec, out: &mut Expr) -> PResult<()> {
        self.operand(out)?;
        loop {
            let grammar = self.grammar;
            let continuation = match self.peek()? {
                Tok::Operator(id) => {
                    let info = grammar.operator(id);
                    let continues = info.binary.is_some() || info.suffix.is_some();
                    (continues && pending.shifts(info.token.level))
                        .then_some(Continuation::Operator(id))
                }
                Tok::Indexer => grammar
                    .indexer
                    .filter(|indexer| pending.shifts(indexer.level))
                    .map(|_| Continuation::Index),
                // `(` has no precedence: PLY reduces any pending rule that
                // has one, so the call takes the whole operand.
                Tok::LParen if grammar.allow_delegates && pending.shifts(0) => {
                    Some(Continuation::Call)
                }
                _ => None,
            };
            match continuation {
                Some(Continuation::Operator(id)) => self.operator_after(out, id)?,
                Some(Continuation::Index) => self.index(out)?,
                Some(Continuation::Call) => self.call_value(out)?,
                None => return Ok(()),
            }
        }
    }

    /// A binary or suffix operator after the value in `out`, which it
    /// replaces.
    #[inline(never)]
    fn operator_after(&mut self, out: &mut Expr, id: u16) -> PResult<()> {
        let depth = self.built_depth;
        let info = self.grammar.operator(id);
        let op_tok = self.bump()?;
        let op_span = self.span();
        let as_binary = match (&info.binary, &info.suffix) {
            (Some(_), Some(_)) => self.starts_operand()?,
            (Some(_), None) => true,
            _ => false,
        };
        match (&info.binary, &info.suffix) {
            (Some(role), _) if as_binary => {
                let mut operands = Box::new([std::mem::replace(out, PLACEHOLDER), PLACEHOLDER]);
                self.value(role.rule, &mut operands[1])?;
                let rhs_depth = self.built_depth;
                let span = operands[0].span.to(operands[1].span);
                let kind = ExprKind::Binary {
                    op: role.op,
                    operands,
                };
                self.node(out, kind, span, depth.max(rhs_depth) + 1)
            }
            (_, Some(role)) => {
                let operand = Box::new(std::mem::replace(out, PLACEHOLDER));
                let span = operand.span.to(op_span);
                let kind = ExprKind::Unary {
                    op: role.op,
                    suffix: true,
                    operand,
                };
                self.node(out, kind, span, depth + 1)
            }
            _ => Err(self.unexpected_token(op_tok, op_span)),
        }
    }

    /// `value[args]`, the value being in `out`.
    #[inline(never)]
    fn index(&mut self, out: &mut Expr) -> PResult<()> {
        let depth = self.built_depth;
        self.bump()?;
        let target = Box::new(std::mem::replace(out, PLACEHOLDER));
        let (args, args_depth, end) = self.args(Close::Bracket)?;
        let span = target.span.to(end);
        let kind = ExprKind::Index { target, args };
        self.node(out, kind, span, depth.max(args_depth) + 1)
    }

    /// `value(args)` with delegates on, the value being in `out`.
    #[inline(never)]
    fn call_value(&mut self, out: &mut Expr) -> PResult<()> {
        let depth = self.built_depth;
        self.bump()?;
        let callee = Box::new(std::mem::replace(out, PLACEHOLDER));
        let (args, args_depth, end) = self.args(Close::Paren)?;
        let span = callee.span.to(end);
        let kind = ExprKind::CallValue { callee, args };
        self.node(out, kind, span, depth.max(args_depth) + 1)
    }

    /// Whether the next token can start an operand (for operators that are
    /// both binary and suffix).
    fn starts_operand(&mut self) -> PResult<bool> {
        let grammar = self.grammar;
        Ok(match self.peek()? {
            Tok::Operator(id) => grammar.operator(id).prefix.is_some(),
            Tok::Indexer => grammar.indexer.is_some(),
            Tok::Map => grammar.has_map,
            other => other.starts_operand(),
        })
    }

    /// A literal, name, call, bracketed form, or a prefix operator applied
    /// to a value.
    fn operand(&mut self, out: &mut Expr) -> PResult<()> {
        let grammar = self.grammar;
        let tok = self.bump()?;
        let span = self.span();
        let kind = match tok {
            Tok::Number => ExprKind::Constant(Constant::Number(self.lexer.number_value(span)?)),
            Tok::String => ExprKind::Constant(Constant::String(self.lexer.take_string().into())),
            Tok::True => ExprKind::Constant(Constant::Bool(true)),
            Tok::False => ExprKind::Constant(Constant::Bool(false)),
            Tok::Null => ExprKind::Constant(Constant::Null),
            Tok::Keyword => ExprKind::Keyword(self.source[span.range()].into()),
            Tok::Dollar => ExprKind::Variable(self.source[span.range()].into()),
            Tok::Func => {
                let name = &self.source[span.start as usize..span.end as usize - 1];
                return self.function(out, name, span);
            }
            Tok::LParen => return self.wrapped(out, span),
            Tok::Indexer if grammar.indexer.is_some() => {
                return self.bracketed(out, Close::Bracket, span)
            }
            Tok::Map if grammar.has_map => return self.bracketed(out, Close::Brace, span),
            Tok::Operator(id) if grammar.operator(id).prefix.is_some() => {
                return self.prefix(out, id, span)
            }
            _ => return Err(self.unexpected()),
        };
        self.built_depth = 1;
        *out = Expr { kind, span };
        Ok(())
    }

    /// `name(args)`; the `name(` token is read.
    #[inline(never)]
    fn function(&mut self, out: &mut Expr, name: &str, span: Span) -> PResult<()> {
        let (args, depth, end) = self.args(Close::Paren)?;
        let kind = ExprKind::Call {
            name: name.into(),
            args,
        };
        self.node(out, kind, span.to(end), depth + 1)
    }

    /// `(value)`; the `(` is read.
    #[inline(never)]
    fn wrapped(&mut self, out: &mut Expr, span: Span) -> PResult<()> {
        let mut inner = Box::new(PLACEHOLDER);
        self.value(Prec::NONE, &mut inner)?;
        let depth = self.built_depth;
        if self.bump()? != Tok::RParen {
            return Err(self.unexpected());
        }
        let span = span.to(self.span());
        self.node(out, ExprKind::Wrap(inner), span, depth + 1)
    }

    /// `[args]` or `{args}`; the opening token is read.
    #[inline(never)]
    fn bracketed(&mut self, out: &mut Expr, close: Close, span: Span) -> PResult<()> {
        let (args, depth, end) = self.args(close)?;
        let kind = if close == Close::Brace {
            ExprKind::Map(args)
        } else {
            ExprKind::List(args)
        };
        self.node(out, kind, span.to(end), depth + 1)
    }

    /// `op value`; the operator is read.
    #[inline(never)]
    fn prefix(&mut self, out: &mut Expr, id: u16, span: Span) -> PResult<()> {
        let info = self.grammar.operator(id);
        let role = info.prefix.as_ref().expect("checked by the caller");
        let mut operand = Box::new(PLACEHOLDER);
        self.value(role.rule, &mut operand)?;
        let depth = self.built_depth;
        let span = span.to(operand.span);
        let kind = ExprKind::Unary {
            op: role.op,
            suffix: false,
            operand,
        };
        self.node(out, kind, span, depth + 1)
    }

    /// The arguments after `(`, `[` or `{`, through the closing token.
    /// Returns them, their deepest depth, and the closing token's span.
    fn args(&mut self, close: Close) -> PResult<(Vec<Expr>, u32, Span)> {
        use ArgState::*;
        let mut args = Vec::new();
        let mut depth = 0;
        let mut state = Start;
        loop {
            let tok = self.peek()?;
            let span = self.span();
            if close.matches(tok) {
                self.bump()?;
                if matches!(state, Start | Positional | Keyword) {
                    return Ok((args, depth, span));
                }
                return Err(self.unexpected());
            }
            if tok == Tok::Comma {
                self.bump()?;
                state = match state {
                    Start | LeadingSkips => {
                        args.push(no_value(span));
                        LeadingSkips
                    }
                    Positional => PositionalComma,
                    PositionalComma => {
                        args.push(no_value(span));
                        PositionalSkip
                    }
                    PositionalSkip => {
                        args.push(no_value(span));
                        LeadingSkips
                    }
                    Keyword => KeywordComma,
                    KeywordComma => return Err(self.unexpected()),
                };
                continue;
            }
            if matches!(state, Positional | Keyword) {
                self.bump()?;
                return Err(self.unexpected());
            }
            args.push(PLACEHOLDER);
            let slot = args.last_mut().expect("just pushed");
            let is_keyword = self.arg_item(state, slot)?;
            depth = depth.max(self.built_depth);
            state = if is_keyword { Keyword } else { Positional };
        }
    }

    /// One argument into `out`: a value, or `value => value` where a
    /// keyword argument may stand. Returns whether it is a keyword one.
    #[inline(never)]
    fn arg_item(&mut self, state: ArgState, out: &mut Expr) -> PResult<bool> {
        use ArgState::*;
        self.value(Prec::NONE, out)?;
        let value_depth = self.built_depth;
        let is_mapping = self.peek()? == Tok::Mapping;
        let keyword_allowed = matches!(
            state,
            Start | PositionalComma | PositionalSkip | KeywordComma
        );
        if is_mapping && keyword_allowed {
            self.bump()?;
            let source = Box::new(std::mem::replace(out, PLACEHOLDER));
            let mut destination = Box::new(PLACEHOLDER);
            self.value(Prec::NONE, &mut destination)?;
            let dest_depth = self.built_depth;
            let span = source.span.to(destination.span);
            let kind = ExprKind::MappingRule {
                source,
                destination,
            };
            self.node(out, kind, span, value_depth.max(dest_depth) + 1)?;
            Ok(true)
        } else if state == KeywordComma || is_mapping {
            // A positional argument after keyword ones, or `=>` where no
            // keyword argument may stand.
            self.bump()?;
            Err(self.unexpected())
        } else {
            self.built_depth = value_depth;
            Ok(false)
        }
    }
}

/// What a slot holds until the node parsed into it is written.
const PLACEHOLDER: Expr = Expr {
    kind: ExprKind::NoValue,
    span: Span { start: 0, end: 0 },
};

fn no_value(span: Span) -> Expr {
    Expr {
        kind: ExprKind::NoValue,
        span: Span::new(span.start as usize, span.start as usize),
    }
}
