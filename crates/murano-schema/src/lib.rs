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
//!   generated, so an inherited `$.class(Foo)` becomes `<child ns>.Foo`
//!   (when that class is missing, the error carries a [`SchemaError::note`]
//!   saying so).
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
pub use generate::{generate, method_schemas, SchemaMap, SchemaRequest};
pub use translate::translate_contract;

pub use murano_diagnostics::Position;

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

/// The Python exception class a [`SchemaError`] stands for.
///
/// Murano's own classes and Python's built-in ones are variants; yaql's
/// exception classes are [`ErrorClass::Yaql`]; a class named by a host or
/// a registry diagnostic that this crate does not know is kept by name in
/// [`ErrorClass::Other`].
///
/// ```
/// use murano_schema::ErrorClass;
/// use murano_yaql::eval::ErrorKind;
///
/// let class = ErrorClass::from_python_name("NoMethodRegisteredException");
/// assert_eq!(class, ErrorClass::Yaql(ErrorKind::NoMethodRegistered));
/// assert_eq!(ErrorClass::from_python_name("KeyError"), ErrorClass::KeyError);
/// assert_eq!(ErrorClass::NoClassFound.python_name(), "NoClassFound");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorClass {
    /// Murano's `NoClassFound`.
    NoClassFound,
    /// Murano's `NoPackageFound`.
    NoPackageFound,
    /// Murano's `NoPackageForClassFound`.
    NoPackageForClassFound,
    /// Murano's `PackageLoadError`: a package of the catalog did not load.
    PackageLoadError,
    /// Murano's `NoPropertyFound`.
    NoPropertyFound,
    /// Murano's `NoMethodFound`.
    NoMethodFound,
    /// Murano's `AmbiguousMethodName`.
    AmbiguousMethodName,
    /// Murano's `AmbiguousPropertyNameError`.
    AmbiguousPropertyNameError,
    /// Murano's `InvalidInheritanceError`.
    InvalidInheritanceError,
    /// Murano's `ContractViolationException` (a meta value that breaks its
    /// contract).
    ContractViolation,
    /// Murano's `DslContractSyntaxError`.
    ContractSyntax,
    /// Murano's `NoObjectFoundError`.
    NoObjectFound,
    /// Python's `KeyError`.
    KeyError,
    /// Python's `ValueError`.
    ValueError,
    /// Python's `TypeError`.
    TypeError,
    /// Python's `AttributeError`.
    AttributeError,
    /// Python's `IndexError`.
    IndexError,
    /// Python's `RecursionError`.
    RecursionError,
    /// yaql's base `YaqlException` (a contract that is not a chain of
    /// contract methods).
    YaqlException,
    /// One of yaql's evaluation exception classes.
    Yaql(murano_yaql::eval::ErrorKind),
    /// Not a Python class: a `check()` item whose value is not a constant
    /// this crate can fold (Murano would evaluate it).
    NotConstant,
    /// Any other class, by name.
    Other(String),
}

/// yaql's evaluation error kinds, searched by [`ErrorClass::from_python_name`].
const YAQL_KINDS: [murano_yaql::eval::ErrorKind; 23] = {
    use murano_yaql::eval::ErrorKind as K;
    [
        K::NoFunctionRegistered,
        K::NoMethodRegistered,
        K::NoMatchingFunction,
        K::NoMatchingMethod,
        K::AmbiguousFunction,
        K::AmbiguousMethod,
        K::MappingTranslation,
        K::CollectionTooLarge,
        K::MemoryQuotaExceeded,
        K::KeyError,
        K::IndexError,
        K::TypeError,
        K::ValueError,
        K::StopIteration,
        K::ZeroDivision,
        K::AssertionError,
        K::AttributeError,
        K::RegexError,
        K::Overflow,
        K::OutOfFuel,
        K::RecursionLimit,
        K::Host,
        K::Mismatch,
    ]
};

impl ErrorClass {
    /// The Python class name, as Murano reports it.
    pub fn python_name(&self) -> &str {
        match self {
            ErrorClass::NoClassFound => "NoClassFound",
            ErrorClass::NoPackageFound => "NoPackageFound",
            ErrorClass::NoPackageForClassFound => "NoPackageForClassFound",
            ErrorClass::PackageLoadError => "PackageLoadError",
            ErrorClass::NoPropertyFound => "NoPropertyFound",
            ErrorClass::NoMethodFound => "NoMethodFound",
            ErrorClass::AmbiguousMethodName => "AmbiguousMethodName",
            ErrorClass::AmbiguousPropertyNameError => "AmbiguousPropertyNameError",
            ErrorClass::InvalidInheritanceError => "InvalidInheritanceError",
            ErrorClass::ContractViolation => "ContractViolationException",
            ErrorClass::ContractSyntax => "DslContractSyntaxError",
            ErrorClass::NoObjectFound => "NoObjectFoundError",
            ErrorClass::KeyError => "KeyError",
            ErrorClass::ValueError => "ValueError",
            ErrorClass::TypeError => "TypeError",
            ErrorClass::AttributeError => "AttributeError",
            ErrorClass::IndexError => "IndexError",
            ErrorClass::RecursionError => "RecursionError",
            ErrorClass::YaqlException => "YaqlException",
            ErrorClass::Yaql(kind) => kind.python_name(),
            ErrorClass::NotConstant => "NotConstant",
            ErrorClass::Other(name) => name,
        }
    }

    /// The class of a Python class name: Murano's and Python's built-in
    /// classes first, then yaql's, else [`ErrorClass::Other`]. The name
    /// always comes back unchanged from [`ErrorClass::python_name`].
    pub fn from_python_name(name: &str) -> ErrorClass {
        let known = [
            ErrorClass::NoClassFound,
            ErrorClass::NoPackageFound,
            ErrorClass::NoPackageForClassFound,
            ErrorClass::PackageLoadError,
            ErrorClass::NoPropertyFound,
            ErrorClass::NoMethodFound,
            ErrorClass::AmbiguousMethodName,
            ErrorClass::AmbiguousPropertyNameError,
            ErrorClass::InvalidInheritanceError,
            ErrorClass::ContractViolation,
            ErrorClass::ContractSyntax,
            ErrorClass::NoObjectFound,
            ErrorClass::KeyError,
            ErrorClass::ValueError,
            ErrorClass::TypeError,
            ErrorClass::AttributeError,
            ErrorClass::IndexError,
            ErrorClass::RecursionError,
            ErrorClass::YaqlException,
            ErrorClass::NotConstant,
        ];
        if let Some(c) = known.into_iter().find(|c| c.python_name() == name) {
            return c;
        }
        match YAQL_KINDS.into_iter().find(|k| k.python_name() == name) {
            Some(kind) => ErrorClass::Yaql(kind),
            None => ErrorClass::Other(name.to_owned()),
        }
    }
}

impl std::fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.python_name())
    }
}

/// Why no schema could be generated: the Python exception Murano raises,
/// its message and, when the failure belongs to one node of a class file
/// (or manifest), where that node starts.
///
/// ```
/// use murano_schema::{ErrorClass, ErrorStatus, SchemaError};
/// let e = SchemaError::new("NoClassFound", "Class \"x\" is not found");
/// assert_eq!(e.class, ErrorClass::NoClassFound);
/// assert_eq!(e.status(), ErrorStatus::NotFound);
/// assert_eq!(e.to_string(), "NoClassFound: Class \"x\" is not found");
/// assert_eq!(e.position, None);
/// assert_eq!(e.note, None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", class.python_name())]
pub struct SchemaError {
    /// The Python exception class.
    pub class: ErrorClass,
    /// The message.
    pub message: String,
    /// Where the failing node starts (line and column from 1), when the
    /// failure belongs to one node. The file is not recorded.
    pub position: Option<Position>,
    /// A one-line explanation for people, not part of Murano's error
    /// (why a class is missing when Murano's inherited-contract name
    /// resolution is the cause).
    pub note: Option<String>,
}

impl SchemaError {
    /// An error of the given Python exception class (by name, see
    /// [`ErrorClass::from_python_name`]).
    pub fn new(exception: impl AsRef<str>, message: impl Into<String>) -> SchemaError {
        SchemaError::of(ErrorClass::from_python_name(exception.as_ref()), message)
    }

    /// An error of a class.
    pub fn of(class: ErrorClass, message: impl Into<String>) -> SchemaError {
        SchemaError {
            class,
            message: message.into(),
            position: None,
            note: None,
        }
    }

    /// The same error with a note for people (see [`SchemaError::note`]).
    pub fn with_note(mut self, note: impl Into<String>) -> SchemaError {
        self.note = Some(note.into());
        self
    }

    /// The Python exception class name (`NoClassFound`, `KeyError`, ...).
    pub fn exception(&self) -> &str {
        self.class.python_name()
    }

    /// The same error with its position set, unless it has one.
    pub fn at(mut self, position: Position) -> SchemaError {
        if self.position.is_none() {
            self.position = Some(position);
        }
        self
    }

    /// [`SchemaError::at`] the start of a YAML node (its 0-based mark).
    pub(crate) fn at_mark(self, mark: murano_yaml::Mark) -> SchemaError {
        self.at(Position::from_zero_based(
            mark.line,
            mark.column,
            mark.index,
        ))
    }

    pub(crate) fn package(message: String) -> SchemaError {
        SchemaError::of(ErrorClass::PackageLoadError, message)
    }

    /// The HTTP-like status: not found for missing classes and packages,
    /// bad request otherwise.
    pub fn status(&self) -> ErrorStatus {
        match self.class {
            ErrorClass::NoClassFound
            | ErrorClass::NoPackageFound
            | ErrorClass::NoPackageForClassFound => ErrorStatus::NotFound,
            _ => ErrorStatus::BadRequest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use murano_packages::{source::FileMap, PluginRegistry};
    use murano_yaql::eval::ErrorKind;

    #[test]
    fn class_names_round_trip() {
        for name in [
            "NoClassFound",
            "NoPackageFound",
            "NoPackageForClassFound",
            "PackageLoadError",
            "NoPropertyFound",
            "NoMethodFound",
            "AmbiguousMethodName",
            "AmbiguousPropertyNameError",
            "InvalidInheritanceError",
            "ContractViolationException",
            "DslContractSyntaxError",
            "NoObjectFoundError",
            "KeyError",
            "ValueError",
            "TypeError",
            "AttributeError",
            "IndexError",
            "RecursionError",
            "YaqlException",
            "NoMatchingFunctionException",
            "NotConstant",
            "SomeHostError",
        ] {
            let class = ErrorClass::from_python_name(name);
            assert_eq!(class.python_name(), name);
            assert_eq!(
                SchemaError::new(name, "m").to_string(),
                format!("{name}: m")
            );
        }
        assert_eq!(
            ErrorClass::from_python_name("NoMatchingFunctionException"),
            ErrorClass::Yaql(ErrorKind::NoMatchingFunction)
        );
        assert_eq!(
            ErrorClass::from_python_name("ContractViolationException"),
            ErrorClass::ContractViolation
        );
        assert_eq!(
            ErrorClass::from_python_name("SomeHostError"),
            ErrorClass::Other("SomeHostError".into())
        );
        assert_eq!(
            SchemaError::new("NoPackageForClassFound", "").status(),
            ErrorStatus::NotFound
        );
        assert_eq!(
            SchemaError::new("SomeHostError", "").status(),
            ErrorStatus::BadRequest
        );
    }

    fn catalog(app: &str) -> Catalog {
        let mut files = FileMap::new();
        files
            .insert(
                "manifest.yaml",
                b"Format: MuranoPL/1.4\nFullName: com.example\nType: Application\n\
                  Classes:\n  com.example.App: App.yaml\n  io.murano.Object: Object.yaml\n"
                    .to_vec(),
            )
            .unwrap();
        files
            .insert("Classes/Object.yaml", b"Name: io.murano.Object\n".to_vec())
            .unwrap();
        files
            .insert("Classes/App.yaml", app.as_bytes().to_vec())
            .unwrap();
        let mut builder = CatalogBuilder::new();
        builder
            .add_package(
                PluginRegistry::with_builtins()
                    .load(files)
                    .unwrap()
                    .as_ref(),
            )
            .unwrap();
        builder.build()
    }

    #[test]
    fn contract_errors_point_at_the_contract() {
        let catalog = catalog(
            "Namespaces: {=: com.example}\nName: App\nProperties:\n  port:\n    Contract: $.nope()\n",
        );
        let e = generate(&catalog, &SchemaRequest::new("com.example.App")).unwrap_err();
        assert_eq!(
            e.class,
            ErrorClass::Yaql(ErrorKind::NoMethodRegistered),
            "{e}"
        );
        let at = e.position.expect("a position");
        assert_eq!((at.line, at.column), (5, 15));
    }

    #[test]
    fn lookups_have_no_position() {
        let catalog = catalog("Name: com.example.App\n");
        let e = generate(&catalog, &SchemaRequest::new("com.example.Nope")).unwrap_err();
        assert_eq!(e.class, ErrorClass::NoPackageForClassFound);
        assert_eq!(e.position, None);
    }
}
