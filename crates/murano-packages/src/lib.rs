//! Murano packages for Rust: manifests, format identifiers, the package
//! interface of the package-type plug-in specification, the plug-in
//! registry with the built-in MuranoPL and Heat.HOT package types, and
//! package files held in memory (the library does no I/O); reproducible
//! package zips ([`pack`]), new packages ([`scaffold`]), repository
//! summaries and `Require` closure checks ([`repository`]) and
//! documentation pages ([`docs`]).
//!
//! ```
//! use murano_packages::{source::FileMap, PluginRegistry};
//!
//! let mut files = FileMap::new();
//! files.insert("manifest.yaml", b"Format: MuranoPL/1.2\nFullName: com.example.Lib\n\
//! Type: Library\nVersion: 1.2\nClasses:\n  com.example.Lib: Lib.yaml\n".to_vec())?;
//! files.insert("Classes/Lib.yaml", b"Name: Lib\n".to_vec())?;
//! let package = PluginRegistry::with_builtins().load(files)?;
//! assert_eq!(package.full_name(), "com.example.Lib");
//! assert_eq!(package.version().to_string(), "1.2.0");
//! assert_eq!(package.classes()?, ["com.example.Lib"]);
//! # Ok::<(), murano_packages::PackageError>(())
//! ```

#![forbid(unsafe_code)]

#[cfg(feature = "zip")]
pub mod archive;
pub mod catalog;
pub mod check;
pub mod docs;
mod error;
pub mod format;
mod hot;
mod murano_pl;
#[cfg(feature = "zip")]
pub mod pack;
mod package;
mod registry;
pub mod repository;
pub mod scaffold;
pub mod source;

pub use error::PackageError;
pub use hot::HotPackage;
pub use murano_pl::MuranoPlPackage;
/// Python's `str.title()` ([`murano_yaml::py_text::title`]), re-exported.
pub use murano_yaml::py_text::title as py_title;
pub use package::{read_manifest, ClassSource, Package, PackageBase, PackageType};
pub use registry::{DynSource, PluginFactory, PluginRegistry};
