//! YAQL, the query language of OpenStack Murano, for Rust.
//!
//! This crate reproduces Python yaql 3.2: its lexer, its grammar built
//! from an operator table (so that yaql's standard grammar, Murano's
//! engine grammar and yaql's legacy grammar are all values), and its tree,
//! printed in yaql's own canonical notation. It does no I/O.
//!
//! ```
//! use murano_yaql::Grammar;
//!
//! // Murano's class files use the engine grammar, with `:` and `is`.
//! let grammar = Grammar::murano();
//! let expr = grammar.parse("$.instances.where($ is res:Instance).len() > 0")?;
//! assert_eq!(
//!     expr.to_string(),
//!     "#operator_>(#operator_.(#operator_.(#operator_.($, instances), \
//!      where(#operator_is($, #operator_:(res, Instance)))), len()), 0)"
//! );
//!
//! // Errors say what kind of failure yaql would raise, and where.
//! let err = grammar.parse("$.x[").unwrap_err();
//! assert_eq!(err.class().python_name(), "YaqlGrammarException");
//! # Ok::<(), murano_yaql::ParseError>(())
//! ```
//!
//! Untrusted text is safe to parse: every failure is a [`ParseError`], and
//! [`ParseOptions`] bounds nesting depth and length.
//!
//! # Features
//! - `unicode-names` (default): decode `\N{NAME}` escapes in strings. Without
//!   it such escapes are errors.
//! - `serde`: `serde::Serialize` for [`Expression`] (its source text),
//!   [`Expr`] (source text that parses back to it) and [`Span`].

#![forbid(unsafe_code)]

mod ast;
mod chars;
mod error;
mod escape;
pub mod eval;
mod grammar;
mod lexer;
mod operators;
mod parser;
mod print;
pub mod pyint;
pub mod pyre;
#[cfg(feature = "serde")]
mod serde_impls;
mod span;
pub mod stack;
mod tokens;

pub use ast::{Constant, Expr, ExprKind, Expression, Number, OperatorRef};
pub use error::{ErrorClass, ParseError, ParseErrorKind};
pub use grammar::Grammar;
pub use operators::{OperatorKind, OperatorRecord, OperatorTable, OperatorTableError, TableEntry};
pub use parser::ParseOptions;
pub use print::python_float_repr;
pub use span::{LineCol, Span};
pub use tokens::TokenClass;
