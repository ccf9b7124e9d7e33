//! Murano Dynamic UI definitions for Rust.
//!
//! This crate will hold the UI definition model, field cleaning and
//! validation, and evaluation into an object model (see the workspace
//! README). Today it provides the dashboard's rule for which YAML strings
//! of a UI file are YAQL expressions, which differs from the engine's.
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

pub mod expression;
