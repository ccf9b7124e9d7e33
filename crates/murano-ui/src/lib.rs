//! Murano Dynamic UI definitions for Rust: the typed definition
//! ([`definition`]), field cleaning and validation ([`clean`]), the wizard
//! ([`wizard`]) and evaluation into the object model ([`evaluate`]), with
//! everything cloud-related behind [`host::Host`] and randomness behind
//! [`host::Entropy`]. It follows the dashboard's real behaviour.
//!
//! ```
//! use murano_ui::expression::is_expression;
//!
//! assert!(is_expression("$.appConfiguration.name")?);
//! assert!(!is_expression("std:Application")?); // ':' counts as a word here
//! assert!(!is_expression("$ is string")?); // no `is` operator in this grammar
//! # Ok::<(), murano_yaql::ParseError>(())
//! ```

#![forbid(unsafe_code)]

pub mod clean;
pub mod definition;
pub mod evaluate;
pub mod expression;
pub mod host;
pub mod pyre;
pub mod wizard;

use murano_yaml::{load_ui_file, LoadOptions, Value as Y};

/// Errors, by the stage at which the dashboard fails.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The definition was rejected while loading.
    #[error("definition: {exception}: {message}")]
    Definition {
        /// Python exception class.
        exception: String,
        /// Message.
        message: String,
    },
    /// The dashboard raised while cleaning a step.
    #[error("validation: {0}")]
    Validation(String),
    /// No flavor of that name for resource usages.
    #[error("resource_usages: {0}")]
    ResourceUsages(String),
    /// Templates/Application evaluation failed.
    #[error("evaluation: {exception}: {message}")]
    Evaluation {
        /// Python exception class.
        exception: String,
        /// Message.
        message: String,
    },
    /// Building the final body failed.
    #[error("finalize: {0}")]
    Finalize(String),
}

impl Error {
    /// The stage name the conformance cases use.
    ///
    /// ```
    /// assert_eq!(murano_ui::Error::Finalize("x".into()).stage(), "finalize");
    /// ```
    pub fn stage(&self) -> &'static str {
        match self {
            Error::Definition { .. } => "definition",
            Error::Validation(_) => "validation",
            Error::ResourceUsages(_) => "resource_usages",
            Error::Evaluation { .. } => "evaluation",
            Error::Finalize(_) => "finalize",
        }
    }
}

/// What the dashboard's loader makes of a plain YAML scalar: `yaql`,
/// `str`, `int`, `float`, `bool`, `null`, `timestamp`.
///
/// ```
/// assert_eq!(murano_ui::resolve_plain_scalar("Hello-World"), "yaql");
/// assert_eq!(murano_ui::resolve_plain_scalar("foo bar"), "str");
/// assert_eq!(murano_ui::resolve_plain_scalar("0x1F"), "int");
/// ```
pub fn resolve_plain_scalar(text: &str) -> &'static str {
    match load_ui_file(text.as_bytes(), &LoadOptions::default()) {
        Ok(Some(node)) => match node.value {
            Y::Yaql(_) => "yaql",
            Y::Str(_) => "str",
            Y::Int(_) => "int",
            Y::Float(_) => "float",
            Y::Bool(_) => "bool",
            Y::Null => "null",
            Y::Date(_) | Y::Timestamp(_) => "timestamp",
            _ => fallback(text),
        },
        Ok(None) => "null",
        Err(_) => fallback(text),
    }
}

fn fallback(text: &str) -> &'static str {
    if expression::is_expression(text).unwrap_or(false) {
        "yaql"
    } else {
        "str"
    }
}
