//! MuranoPL for Rust: how Murano's engine reads class files.
//!
//! This crate holds:
//! - [`model`]: the class model (names, namespaces, properties, methods
//!   with their instruction trees, meta) read from a loaded class file;
//! - [`contract`]: contract trees and their application to values;
//! - [`version`]: Murano's versions and version specs
//!   (semantic-version 2.10's rules);
//! - [`registry`]: classes across packages, inheritance (MRO), extension
//!   imports and meta;
//! - [`object_model`]: reading and writing object models (`Objects`,
//!   `ObjectsCopy`, `Attributes`).
//!
//! The YAML layer is the crate `murano_yaml`, re-exported here as
//! [`yaml`] together with the YAQL-detection rule ([`expression`]):
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
pub mod diagnostic;
pub mod functions;
pub mod model;
pub mod object_model;
pub mod registry;
#[cfg(feature = "serde")]
mod serde_impls;
pub mod version;

/// The YAML layer, re-exported: class files are loaded with
/// [`murano_yaml`], which also holds the YAQL-detection rule.
pub use murano_yaml as yaml;
/// Which plain scalars are YAQL ([`murano_yaml::expression`], re-exported).
pub use murano_yaml::expression;
