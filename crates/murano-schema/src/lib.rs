//! JSON schema for MuranoPL classes and their model builders (the
//! "MuranoPL forms" design), as Murano's engine generates it
//! (`murano/dsl/schema_generator.py`).
//!
//! * [`CatalogBuilder`] / [`Catalog`]: the packages a request can see.
//! * [`generate`]: the answer of `GET /schemas/{className}[/{methods}]`:
//!   a map from `""` (the class) and each model builder name to a draft-04
//!   JSON schema, or a [`SchemaError`] whose [`ErrorStatus`] says whether
//!   it is a *not found* or a *bad request*.
//! * [`translate_contract`]: one contract as a schema.
//!
//! ```
//! use murano_packages::{source::FileMap, PluginRegistry};
//! use murano_schema::{generate, CatalogBuilder, SchemaRequest};
//! use serde_json::json;
//!
//! let mut files = FileMap::new();
//! files.insert("manifest.yaml", b"Format: MuranoPL/1.4\nFullName: com.example\n\
//! Type: Application\nClasses:\n  com.example.App: App.yaml\n  io.murano.Object: Object.yaml\n".to_vec())?;
//! files.insert("Classes/Object.yaml", b"Name: io.murano.Object\n".to_vec())?;
//! files.insert("Classes/App.yaml", b"
//! Namespaces: {=: com.example, m: io.murano.metadata}
//! Name: App
//! Properties:
//!   port:
//!     Contract: $.int().notNull().check($ > 0 and $ < 65536)
//!     Default: 8080
//! ".to_vec())?;
//! let mut builder = CatalogBuilder::new();
//! builder.add_package(PluginRegistry::with_builtins().load(files)?.as_ref())?;
//! let catalog = builder.build();
//!
//! let schemas = generate(&catalog, &SchemaRequest::new("com.example.App"))?;
//! assert_eq!(schemas[""]["properties"]["port"], json!({
//!     "type": "integer", "default": 8080,
//!     "minimum": 0, "exclusiveMinimum": true,
//!     "maximum": 65536, "exclusiveMaximum": true,
//! }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Murano behaviours kept on purpose
//!
//! * `string()`, `int()`, `bool()`, `class()` and `template()` start a new
//!   schema: whatever came before them in the chain is dropped, except
//!   `notNull()`.
//! * `check(A and B and C)` translates only `C` (`and` is
//!   left-associative and only the top-level split is done); reversed
//!   comparisons (`5 > $`) get the exclusiveness wrong, as Murano does.
//! * Contract class names resolve in the names scope of the class being
//!   generated, so an inherited `$.class(Foo)` becomes `<child ns>.Foo`.
//! * Model builder schemas list every argument, the first (object model)
//!   one included, as Murano's generator does (the design document says it
//!   is skipped).
//!
//! # Differences from Murano
//!
//! * Constants in `check()` are folded with YAQL; static methods named in
//!   them (`$this.choices()`) are evaluated only when their body is a
//!   single `Return`, otherwise the item is ignored.
//! * Sections and meta are gathered in a fixed order (Murano uses a
//!   Python set), so ties are broken deterministically.

#![forbid(unsafe_code)]

mod catalog;
mod generate;
mod meta;
mod translate;

pub use catalog::{Catalog, CatalogBuilder};
pub use generate::{generate, SchemaMap, SchemaRequest};
pub use translate::translate_contract;

/// How an error answers an HTTP request.
///
/// ```
/// use murano_schema::{ErrorStatus, SchemaError};
/// assert_eq!(SchemaError::new("KeyError", "'x'").status(), ErrorStatus::BadRequest);
/// assert_eq!(SchemaError::new("NoPackageFound", "p").status(), ErrorStatus::NotFound);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorStatus {
    /// 404: the class or package requested (or one it needs) is not in
    /// the catalog (`NoClassFound`, `NoPackageFound`,
    /// `NoPackageForClassFound`).
    NotFound,
    /// 400: the request or the class definitions cannot give a schema.
    BadRequest,
}

/// Why no schema could be generated: the Python exception Murano raises
/// and its message.
///
/// ```
/// use murano_schema::{ErrorStatus, SchemaError};
/// let e = SchemaError::new("NoClassFound", "Class \"x\" is not found");
/// assert_eq!(e.status(), ErrorStatus::NotFound);
/// assert_eq!(e.to_string(), "NoClassFound: Class \"x\" is not found");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{exception}: {message}")]
pub struct SchemaError {
    /// The Python exception class name (`NoClassFound`, `KeyError`, …).
    pub exception: String,
    /// The message.
    pub message: String,
}

impl SchemaError {
    /// An error of the given Python exception class.
    pub fn new(exception: impl Into<String>, message: impl Into<String>) -> SchemaError {
        SchemaError {
            exception: exception.into(),
            message: message.into(),
        }
    }

    pub(crate) fn package(message: String) -> SchemaError {
        SchemaError::new("PackageLoadError", message)
    }

    /// The HTTP-like status: not found for missing classes and packages,
    /// bad request otherwise.
    pub fn status(&self) -> ErrorStatus {
        match self.exception.as_str() {
            "NoClassFound" | "NoPackageFound" | "NoPackageForClassFound" => ErrorStatus::NotFound,
            _ => ErrorStatus::BadRequest,
        }
    }
}
