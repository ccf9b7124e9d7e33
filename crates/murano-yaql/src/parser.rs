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

use crate::ast::{Constant, Expr, ExprKind, Expression, OperatorRef};
use crate::error::{ParseError, ParseErrorKind};
use crate::grammar::{Grammar, GrammarInner, OperatorInfo, Prec, Role};
use crate::lexer::{Lexer, Tok, Token};
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
            peeked: None,
            max_depth: options.max_depth,
            depth: 0,
        };
        let (root, _) = parser.value(Prec::NONE)?;
        let next = parser.bump()?;
        if next.tok != Tok::End {
            return Err(parser.unexpected(&next));
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

type Parsed = (Expr, u32);
type PResult<T> = Result<T, ParseError>;

struct Parser<'g, 's> {
    grammar: &'g GrammarInner,
    lexer: Lexer<'g, 's>,
    source: &'s str,
    peeked: Option<Token<'s>>,
    max_depth: u32,
    depth: u32,
}

/// Where an argument list ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Close {
    Paren,
    Bracket,
    Brace,
}

impl Close {
    fn matches(self, tok: &Tok<'_>) -> bool {
        matches!(
            (self, tok),
            (Close::Paren, Tok::RParen)
                | (Close::Bracket, Tok::RBracket)
                | (Close::Brace, Tok::RBrace)
        )
    }
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

fn op_ref(info: &OperatorInfo, role: &Role) -> OperatorRef {
    OperatorRef {
        symbol: info.symbol.clone(),
        function: role.function.clone(),
    }
}

impl<'s> Parser<'_, 's> {
    fn peek(&mut self) -> PResult<&Token<'s>> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lexer.next_token()?);
        }
        Ok(self.peeked.as_ref().expect("just filled"))
    }

    fn bump(&mut self) -> PResult<Token<'s>> {
        self.peek()?;
        Ok(self.peeked.take().expect("peeked above"))
    }

    fn unexpected(&self, token: &Token<'_>) -> ParseError {
        let kind = if token.tok == Tok::End {
            ParseErrorKind::UnexpectedEnd
        } else {
            ParseErrorKind::UnexpectedToken {
                text: self.source[token.span.range()].to_owned(),
            }
        };
        ParseError::new(kind, token.span, self.source)
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

    /// Checks the depth of a node about to be built.
    fn node(&self, kind: ExprKind, span: Span, depth: u32) -> PResult<Parsed> {
        if depth > self.max_depth {
            return Err(self.too_deep(span));
        }
        Ok((Expr { kind, span }, depth))
    }

    /// A value whose continuation is decided against `pending`, the
    /// precedence of the rule it is the last operand of.
    fn value(&mut self, pending: Prec) -> PResult<Parsed> {
        self.depth += 1;
        if self.depth > self.max_depth {
            let span = self.peek().map(|t| t.span).unwrap_or_default();
            return Err(self.too_deep(span));
        }
        let result = self.value_inner(pending);
        self.depth -= 1;
        result
    }

    fn value_inner(&mut self, pending: Prec) -> PResult<Parsed> {
        let (mut lhs, mut depth) = self.operand()?;
        loop {
            let grammar = self.grammar;
            let token = self.peek()?;
            match token.tok {
                Tok::Operator(id) => {
                    let info = grammar.operator(id);
                    if info.binary.is_none() && info.suffix.is_none() {
                        break;
                    }
                    if !pending.shifts(info.token.level) {
                        break;
                    }
                    let op_token = self.bump()?;
                    let as_binary = match (&info.binary, &info.suffix) {
                        (Some(_), Some(_)) => self.starts_operand()?,
                        (Some(_), None) => true,
                        _ => false,
                    };
                    if as_binary {
                        let role = info.binary.as_ref().expect("checked above");
                        let (rhs, rhs_depth) = self.value(role.rule)?;
                        let span = lhs.span.to(rhs.span);
                        let kind = ExprKind::Binary {
                            op: op_ref(info, role),
                            operands: Box::new([lhs, rhs]),
                        };
                        (lhs, depth) = self.node(kind, span, depth.max(rhs_depth) + 1)?;
                    } else {
                        let role = info.suffix.as_ref().expect("suffix role");
                        let span = lhs.span.to(op_token.span);
                        let kind = ExprKind::Unary {
                            op: op_ref(info, role),
                            suffix: true,
                            operand: Box::new(lhs),
                        };
                        (lhs, depth) = self.node(kind, span, depth + 1)?;
                    }
                }
                Tok::Indexer => {
                    let Some(indexer) = grammar.indexer else {
                        break;
                    };
                    if !pending.shifts(indexer.level) {
                        break;
                    }
                    self.bump()?;
                    let (args, args_depth, end) = self.args(Close::Bracket)?;
                    let span = lhs.span.to(end);
                    let kind = ExprKind::Index {
                        target: Box::new(lhs),
                        args,
                    };
                    (lhs, depth) = self.node(kind, span, depth.max(args_depth) + 1)?;
                }
                Tok::LParen if grammar.allow_delegates => {
                    // `(` has no precedence: PLY reduces any pending rule
                    // that has one, so the call takes the whole operand.
                    if !pending.shifts(0) {
                        break;
                    }
                    self.bump()?;
                    let (args, args_depth, end) = self.args(Close::Paren)?;
                    let span = lhs.span.to(end);
                    let kind = ExprKind::CallValue {
                        callee: Box::new(lhs),
                        args,
                    };
                    (lhs, depth) = self.node(kind, span, depth.max(args_depth) + 1)?;
                }
                _ => break,
            }
        }
        Ok((lhs, depth))
    }

    /// Whether the next token can start an operand (for operators that are
    /// both binary and suffix).
    fn starts_operand(&mut self) -> PResult<bool> {
        let grammar = self.grammar;
        let token = self.peek()?;
        Ok(match token.tok {
            Tok::Operator(id) => grammar.operator(id).prefix.is_some(),
            Tok::Indexer => grammar.indexer.is_some(),
            Tok::Map => grammar.has_map,
            ref other => other.starts_operand(),
        })
    }

    /// A literal, name, call, bracketed form, or a prefix operator applied
    /// to a value.
    fn operand(&mut self) -> PResult<Parsed> {
        let grammar = self.grammar;
        let token = self.bump()?;
        let span = token.span;
        let leaf = |kind| Ok((Expr { kind, span }, 1));
        match token.tok {
            Tok::Number(n) => leaf(ExprKind::Constant(Constant::Number(n))),
            Tok::String(s) => leaf(ExprKind::Constant(Constant::String(s.into()))),
            Tok::True => leaf(ExprKind::Constant(Constant::Bool(true))),
            Tok::False => leaf(ExprKind::Constant(Constant::Bool(false))),
            Tok::Null => leaf(ExprKind::Constant(Constant::Null)),
            Tok::Keyword(name) => leaf(ExprKind::Keyword(name.into())),
            Tok::Dollar(name) => leaf(ExprKind::Variable(name.into())),
            Tok::Func(name) => {
                let (args, depth, end) = self.args(Close::Paren)?;
                let kind = ExprKind::Call {
                    name: name.into(),
                    args,
                };
                self.node(kind, span.to(end), depth + 1)
            }
            Tok::LParen => {
                let (inner, depth) = self.value(Prec::NONE)?;
                let close = self.bump()?;
                if close.tok != Tok::RParen {
                    return Err(self.unexpected(&close));
                }
                self.node(
                    ExprKind::Wrap(Box::new(inner)),
                    span.to(close.span),
                    depth + 1,
                )
            }
            Tok::Indexer if grammar.indexer.is_some() => {
                let (args, depth, end) = self.args(Close::Bracket)?;
                self.node(ExprKind::List(args), span.to(end), depth + 1)
            }
            Tok::Map if grammar.has_map => {
                let (args, depth, end) = self.args(Close::Brace)?;
                self.node(ExprKind::Map(args), span.to(end), depth + 1)
            }
            Tok::Operator(id) => {
                let info = grammar.operator(id);
                let Some(role) = &info.prefix else {
                    return Err(self.unexpected(&token));
                };
                let (operand, depth) = self.value(role.rule)?;
                let kind = ExprKind::Unary {
                    op: op_ref(info, role),
                    suffix: false,
                    operand: Box::new(operand),
                };
                let span = span.to(operand_span(&kind));
                self.node(kind, span, depth + 1)
            }
            _ => Err(self.unexpected(&token)),
        }
    }

    /// The arguments after `(`, `[` or `{`, through the closing token.
    /// Returns them, their deepest depth, and the closing token's span.
    fn args(&mut self, close: Close) -> PResult<(Vec<Expr>, u32, Span)> {
        use ArgState::*;
        let mut args = Vec::new();
        let mut depth = 0;
        let mut state = Start;
        loop {
            let token = self.peek()?;
            let span = token.span;
            if close.matches(&token.tok) {
                if matches!(state, Start | Positional | Keyword) {
                    self.bump()?;
                    return Ok((args, depth, span));
                }
                let token = self.bump()?;
                return Err(self.unexpected(&token));
            }
            if token.tok == Tok::Comma {
                let token = self.bump()?;
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
                    KeywordComma => return Err(self.unexpected(&token)),
                };
                continue;
            }
            if matches!(state, Positional | Keyword) {
                let token = self.bump()?;
                return Err(self.unexpected(&token));
            }
            let (value, value_depth) = self.value(Prec::NONE)?;
            depth = depth.max(value_depth);
            let next = self.peek()?;
            let keyword_allowed = matches!(
                state,
                Start | PositionalComma | PositionalSkip | KeywordComma
            );
            if next.tok == Tok::Mapping && keyword_allowed {
                self.bump()?;
                let (destination, dest_depth) = self.value(Prec::NONE)?;
                let span = value.span.to(destination.span);
                let kind = ExprKind::MappingRule {
                    source: Box::new(value),
                    destination: Box::new(destination),
                };
                let (rule, rule_depth) = self.node(kind, span, value_depth.max(dest_depth) + 1)?;
                depth = depth.max(rule_depth);
                args.push(rule);
                state = Keyword;
            } else if state == KeywordComma || next.tok == Tok::Mapping {
                // A positional argument after keyword ones, or `=>` where
                // no keyword argument may stand.
                let next = self.bump()?;
                return Err(self.unexpected(&next));
            } else {
                args.push(value);
                state = Positional;
            }
        }
    }
}

fn no_value(span: Span) -> Expr {
    Expr {
        kind: ExprKind::NoValue,
        span: Span::new(span.start as usize, span.start as usize),
    }
}

fn operand_span(kind: &ExprKind) -> Span {
    match kind {
        ExprKind::Unary { operand, .. } => operand.span,
        _ => Span::default(),
    }
}
