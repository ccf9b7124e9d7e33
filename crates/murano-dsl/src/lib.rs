//! MuranoPL for Rust: how Murano's engine reads class files.
//!
//! This crate will hold the YAML loader, the class model, contracts,
//! versions and the class hierarchy (see the workspace README for the
//! plan). Today it provides the rule that decides which YAML strings of a
//! class file are YAQL expressions.
//!
//! ```
//! use murano_dsl::expression::is_expression;
//!
//! assert!(is_expression("$.name")?);
//! assert!(is_expression("std:Application")?);
//! assert!(!is_expression("io.murano.Object")?); // only words and dots
//! assert!(!is_expression("a => b")?); // does not parse
//! # Ok::<(), murano_yaql::ParseError>(())
//! ```

#![forbid(unsafe_code)]

pub mod contract;
pub mod expression;
pub mod model;
pub mod object_model;
pub mod registry;
pub mod version;
pub mod yaml;
