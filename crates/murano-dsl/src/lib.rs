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
//!
//! # Features
//! - `serde`: `serde::Serialize` on the model types (class model and
//!   instruction trees, YAML nodes and marks, contract trees, versions and
//!   specs, object models, registry diagnostics), for tools that write them
//!   as JSON. YAQL expressions serialize as their text, versions, specs,
//!   dates and paths as their canonical text; [`version::Version`] and
//!   [`version::VersionSpec`] also deserialize from it. Enables
//!   `murano-yaql/serde`.

#![forbid(unsafe_code)]

pub mod contract;
pub mod expression;
pub mod model;
pub mod object_model;
pub mod registry;
#[cfg(feature = "serde")]
mod serde_impls;
pub mod version;
pub mod yaml;
