//! Why applying a contract failed.

use std::fmt;

use murano_yaql::eval::{Cause, Error as YaqlError, ErrorKind as YaqlErrorKind};

/// What kind of failure, each matching the Python exception Murano raises.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContractErrorKind {
    /// `murano.dsl.exceptions.ContractViolationException`: the value does
    /// not satisfy the contract.
    Violation,
    /// `murano.dsl.exceptions.DslContractSyntaxError`: the contract itself
    /// is malformed (a dictionary contract with two expression keys).
    Syntax,
    /// Python's `IndexError`: a list contract made only of integers applied
    /// to a non-empty list (Murano indexes past its item contracts).
    IndexError,
    /// `murano.dsl.exceptions.NoObjectFoundError`: `class()` given the id
    /// of an object the store does not have.
    NoObjectFound,
    /// `murano.dsl.exceptions.NoClassFound`: a class named in `class()` or
    /// `template()` does not exist.
    NoClassFound,
    /// `murano.dsl.exceptions.NoPropertyFound`: an expression read a
    /// property that a MuranoPL object or class does not have.
    NoPropertyFound,
    /// An error raised by YAQL evaluation (a predicate, a default, a
    /// contract expression), with yaql's exception class.
    Yaql(YaqlErrorKind),
    /// An error from the host, with the Python exception class and module
    /// it stands for.
    Host {
        /// Exception class name.
        type_name: String,
        /// Module of the exception class.
        module: String,
    },
}

/// A failed contract application: the kind, Murano's message and the path
/// to the offending element (`""`, `[0]`, `['port']`…; Murano sets it only
/// for violations raised by a contract expression).
///
/// ```
/// use murano_dsl::contract::{ContractError, ContractErrorKind};
///
/// let e = ContractError::violation("null value violates notNull() contract").at("['port']");
/// assert_eq!(e.python_type(), "ContractViolationException");
/// assert_eq!(e.python_module(), "murano.dsl.exceptions");
/// assert_eq!(e.to_string(), "['port']: null value violates notNull() contract");
/// assert_eq!(e.kind, ContractErrorKind::Violation);
/// ```
#[derive(Debug, Clone)]
pub struct ContractError {
    /// The kind.
    pub kind: ContractErrorKind,
    /// The message, as Murano words it.
    pub message: String,
    /// Path to the offending element, Python-formatted.
    pub path: String,
    /// The host's error behind it, kept whole (a host function's or a
    /// host callback's [`YaqlError::host`] cause): the host reads it back
    /// with [`ContractError::downcast_ref`].
    cause: Option<Cause>,
}

/// Errors are equal when their kind, message and path are, and they carry
/// the same cause (the same shared allocation) or none.
impl PartialEq for ContractError {
    fn eq(&self, other: &ContractError) -> bool {
        self.kind == other.kind
            && self.message == other.message
            && self.path == other.path
            && match (&self.cause, &other.cause) {
                (None, None) => true,
                (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
                _ => false,
            }
    }
}

impl Eq for ContractError {}

impl ContractError {
    /// An error of `kind` with a message and no path.
    pub fn new(kind: ContractErrorKind, message: impl Into<String>) -> ContractError {
        ContractError {
            kind,
            message: message.into(),
            path: String::new(),
            cause: None,
        }
    }

    /// The same error with `cause` attached (replacing any it had).
    ///
    /// ```
    /// use murano_dsl::contract::{ContractError, ContractErrorKind};
    /// #[derive(Debug)]
    /// struct Gone;
    /// impl std::fmt::Display for Gone {
    ///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    ///         f.write_str("gone")
    ///     }
    /// }
    /// impl std::error::Error for Gone {}
    /// let e = ContractError::violation("x").with_cause(std::sync::Arc::new(Gone));
    /// assert!(e.downcast_ref::<Gone>().is_some());
    /// ```
    pub fn with_cause(mut self, cause: Cause) -> ContractError {
        self.cause = Some(cause);
        self
    }

    /// The attached cause, when there is one.
    pub fn cause(&self) -> Option<&Cause> {
        self.cause.as_ref()
    }

    /// The attached cause as a `T`, when there is one of that type.
    pub fn downcast_ref<T: std::error::Error + 'static>(&self) -> Option<&T> {
        self.cause.as_deref()?.downcast_ref::<T>()
    }

    /// A contract violation.
    ///
    /// ```
    /// let e = murano_dsl::contract::ContractError::violation("");
    /// assert!(e.is_violation());
    /// ```
    pub fn violation(message: impl Into<String>) -> ContractError {
        ContractError::new(ContractErrorKind::Violation, message)
    }

    /// The same error with `path` set.
    ///
    /// ```
    /// let e = murano_dsl::contract::ContractError::violation("x").at("[1]");
    /// assert_eq!(e.path, "[1]");
    /// ```
    pub fn at(mut self, path: impl Into<String>) -> ContractError {
        self.path = path.into();
        self
    }

    /// True for a contract violation (what `check_type` turns into false).
    ///
    /// ```
    /// use murano_dsl::contract::{ContractError, ContractErrorKind};
    /// assert!(!ContractError::new(ContractErrorKind::Syntax, "x").is_violation());
    /// ```
    pub fn is_violation(&self) -> bool {
        self.kind == ContractErrorKind::Violation
    }

    /// The Python exception class Murano raises.
    ///
    /// ```
    /// use murano_dsl::contract::{ContractError, ContractErrorKind};
    /// let e = ContractError::new(ContractErrorKind::IndexError, "list index out of range");
    /// assert_eq!((e.python_type(), e.python_module()), ("IndexError", "builtins"));
    /// ```
    pub fn python_type(&self) -> &str {
        match &self.kind {
            ContractErrorKind::Violation => "ContractViolationException",
            ContractErrorKind::Syntax => "DslContractSyntaxError",
            ContractErrorKind::IndexError => "IndexError",
            ContractErrorKind::NoObjectFound => "NoObjectFoundError",
            ContractErrorKind::NoClassFound => "NoClassFound",
            ContractErrorKind::NoPropertyFound => "NoPropertyFound",
            ContractErrorKind::Yaql(k) => k.python_name(),
            ContractErrorKind::Host { type_name, .. } => type_name,
        }
    }

    /// The module of [`ContractError::python_type`].
    ///
    /// ```
    /// use murano_dsl::contract::{ContractError, ContractErrorKind};
    /// use murano_yaql::eval::ErrorKind;
    /// let e = ContractError::new(ContractErrorKind::Yaql(ErrorKind::NoMatchingFunction), "");
    /// assert_eq!(e.python_module(), "yaql.language.exceptions");
    /// ```
    pub fn python_module(&self) -> &str {
        match &self.kind {
            ContractErrorKind::Violation
            | ContractErrorKind::Syntax
            | ContractErrorKind::NoObjectFound
            | ContractErrorKind::NoClassFound
            | ContractErrorKind::NoPropertyFound => "murano.dsl.exceptions",
            ContractErrorKind::IndexError => "builtins",
            ContractErrorKind::Yaql(k) => yaql_module(*k),
            ContractErrorKind::Host { module, .. } => module,
        }
    }

    /// Converts an evaluation error. A missing attribute of a host object
    /// is Murano's `NoPropertyFound` (MuranoPL objects and classes raise it
    /// where Python objects raise `AttributeError`).
    pub(crate) fn from_yaql(e: &YaqlError) -> ContractError {
        let out = ContractError::from_yaql_alone(e);
        match e.cause() {
            Some(c) => out.with_cause(c.clone()),
            None => out,
        }
    }

    fn from_yaql_alone(e: &YaqlError) -> ContractError {
        if let Some(p) = e
            .cause()
            .and_then(|c| c.downcast_ref::<crate::functions::PythonException>())
        {
            return ContractError::new(
                ContractErrorKind::Host {
                    type_name: p.type_name.clone(),
                    module: p.module.clone(),
                },
                p.message.clone(),
            );
        }
        if e.kind() == YaqlErrorKind::AttributeError {
            if let Some((_, name)) = e.message().split_once(" object has no attribute '") {
                let name = name.strip_suffix('\'').unwrap_or(name);
                return ContractError::new(
                    ContractErrorKind::NoPropertyFound,
                    format!("Property \"{name}\" is not found"),
                );
            }
        }
        ContractError::new(ContractErrorKind::Yaql(e.kind()), e.message())
    }
}

/// The Python module of a yaql evaluation error class.
fn yaql_module(kind: YaqlErrorKind) -> &'static str {
    match kind {
        YaqlErrorKind::NoFunctionRegistered
        | YaqlErrorKind::NoMethodRegistered
        | YaqlErrorKind::NoMatchingFunction
        | YaqlErrorKind::NoMatchingMethod
        | YaqlErrorKind::AmbiguousFunction
        | YaqlErrorKind::AmbiguousMethod
        | YaqlErrorKind::MappingTranslation
        | YaqlErrorKind::CollectionTooLarge
        | YaqlErrorKind::MemoryQuotaExceeded => "yaql.language.exceptions",
        YaqlErrorKind::RegexError => "re",
        _ => "builtins",
    }
}

impl fmt::Display for ContractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ContractError {}
