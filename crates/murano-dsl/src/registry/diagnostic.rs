//! Errors and diagnostics of the class registry.

use std::fmt;

use crate::diagnostic::{position, Diagnostic};

use crate::model::NameError;
use crate::version::Version;
use crate::yaml::Mark;

use super::{ClassId, PackageId};

/// Stable diagnostic codes of the registry (`R1xx`). Every one of them is
/// a problem Murano's engine refuses; [`Diagnostic::python_exception`] says
/// what it raises. The table of every code is [`crate::diagnostic::CODES`].
pub mod codes {
    /// An `Extends` entry (or the implicit `io.murano.Object`) does not
    /// resolve: `NoClassFound`, `NoPackageFound`, or a bad name
    /// (`ValueError` / `KeyError`).
    pub const UNRESOLVED_PARENT: &str = "R100";
    /// A name resolves only outside what its package can see (its own
    /// classes, its `Require`d packages and `io.murano`); kept because the
    /// registry is [lenient](super::super::Resolution::Lenient), but
    /// Murano raises the error given in the message.
    pub const OUTSIDE_REQUIREMENTS: &str = "R101";
    /// A class (`Usage: Class`) extends a meta class
    /// (`InvalidInheritanceError`).
    pub const META_PARENT: &str = "R102";
    /// The class extends itself, directly or through other classes. Murano
    /// reports this as `NoClassFound` for the class it started from.
    pub const CYCLE: &str = "R103";
    /// Two packages of the hierarchy require one package with different
    /// specs (or reach two versions of it): Murano tries to remap the
    /// versions and fails (`TypeError`, see the module documentation).
    pub const VERSION_REMAP: &str = "R104";
    /// An `Import` entry does not resolve.
    pub const UNRESOLVED_IMPORT: &str = "R110";
    /// A `Meta` entry is a mapping with other than one key
    /// (`ValueError: Invalid Meta format`).
    pub const META_FORMAT: &str = "R120";
    /// A `Meta` entry names no class that can be found (or is null).
    pub const META_UNRESOLVED: &str = "R121";
    /// A `Meta` entry names a class that is not `Usage: Meta`.
    pub const META_NOT_META_CLASS: &str = "R122";
    /// A meta class attached where its `Applies` does not allow.
    pub const META_NOT_APPLICABLE: &str = "R123";
    /// A meta class of `Cardinality: One` attached twice to one target.
    pub const META_CARDINALITY: &str = "R124";
    /// Inherited meta of `Cardinality: One` reaches a class, property or
    /// method from two different classes and the target does not declare
    /// it itself (`ValueError` when Murano reads the meta).
    pub const META_INHERITANCE_CONFLICT: &str = "R125";
}

/// A problem found while linking, before it becomes a [`Diagnostic`]
/// (with the ids of the package and class it concerns kept beside it).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Finding {
    pub(crate) code: &'static str,
    pub(crate) message: String,
    pub(crate) python_exception: &'static str,
    pub(crate) package: PackageId,
    pub(crate) class: Option<ClassId>,
    pub(crate) start: Mark,
    pub(crate) end: Mark,
}

impl Finding {
    /// The diagnostic: the code's severity, the span in the class file
    /// (or the manifest, for package meta), the class (or package) as its
    /// subject, and the exception Murano raises.
    pub(crate) fn into_diagnostic(self, subject: String) -> Diagnostic {
        Diagnostic::new(self.code, self.message)
            .with_span(position(self.start), position(self.end))
            .with_subject(subject)
            .with_python_exception(self.python_exception)
    }
}

/// Why a class name could not be found, as Murano's package
/// `find_class` fails.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// The name is not a type name, or uses an undeclared prefix.
    #[error("{0}")]
    InvalidName(NameError),
    /// No class of that name in the package nor in the packages it
    /// requires. `packages` lists them as Murano does: the required
    /// packages searched, then the package itself.
    #[error("Class \"{name}\" is not found in {}", PackageList(.packages))]
    NoClassFound {
        /// The full name looked up.
        name: String,
        /// The packages searched, as (name, version).
        packages: Vec<(String, Version)>,
    },
    /// A required package is not in the registry (Murano gives up on the
    /// first one it cannot load).
    #[error("Package \"{name}\" is not found")]
    NoPackageFound {
        /// The package name.
        name: String,
    },
}

struct PackageList<'a>(&'a [(String, Version)]);

impl fmt::Display for PackageList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, version)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name}/{version}")?;
        }
        Ok(())
    }
}

impl LookupError {
    /// The Python exception Murano raises.
    pub fn python_exception(&self) -> &'static str {
        match self {
            LookupError::InvalidName(NameError::UnknownPrefix(_)) => "KeyError",
            LookupError::InvalidName(_) => "ValueError",
            LookupError::NoClassFound { .. } => "NoClassFound",
            LookupError::NoPackageFound { .. } => "NoPackageFound",
        }
    }
}

/// Why a hierarchy query failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The id belongs to no class of this registry.
    #[error("no class with id {0:?} in the registry")]
    UnknownClass(ClassId),
    /// The class is part of, or extends, a cyclic hierarchy.
    #[error("the hierarchy of {class} is cyclic ({})", .cycle.join(" -> "))]
    Cycle {
        /// The class queried.
        class: String,
        /// A cycle it reaches, first class repeated at the end.
        cycle: Vec<String>,
    },
    /// Murano's `NoMethodFound`.
    #[error("Method \"{0}\" is not found")]
    NoMethodFound(String),
    /// Murano's `AmbiguousMethodName`: the name resolves to methods of
    /// several unrelated classes.
    #[error("Found more than one method \"{0}\"")]
    AmbiguousMethodName(String),
    /// Murano's `NoPropertyFound`.
    #[error("Property \"{0}\" is not found")]
    NoPropertyFound(String),
    /// Murano's `AmbiguousPropertyNameError`.
    #[error("Found more than one property \"{0}\"")]
    AmbiguousPropertyName(String),
    /// The method has no argument of that name.
    #[error("method \"{method}\" has no argument \"{argument}\"")]
    NoArgumentFound {
        /// The method.
        method: String,
        /// The argument asked for.
        argument: String,
    },
    /// Inherited meta of `Cardinality: One` comes from two classes
    /// (Murano's `ValueError`).
    #[error(
        "Found more than one instance of Meta {meta_class} with Cardinality One \
         (from {first} and {second})"
    )]
    MetaConflict {
        /// The meta class.
        meta_class: String,
        /// The class the first instance comes from.
        first: String,
        /// The class the second instance comes from.
        second: String,
    },
    /// The hierarchy is too deep or too entangled to aggregate meta within
    /// the registry's limits.
    #[error("the hierarchy of {0} is too complex to aggregate meta")]
    TooComplex(String),
}

impl QueryError {
    /// The Python exception Murano raises in the same situation (for a
    /// cycle Murano cannot load the class at all: `NoClassFound`).
    pub fn python_exception(&self) -> &'static str {
        match self {
            QueryError::UnknownClass(_) | QueryError::Cycle { .. } => "NoClassFound",
            QueryError::NoMethodFound(_) => "NoMethodFound",
            QueryError::AmbiguousMethodName(_) => "AmbiguousMethodName",
            QueryError::NoPropertyFound(_) => "NoPropertyFound",
            QueryError::AmbiguousPropertyName(_) => "AmbiguousPropertyNameError",
            QueryError::NoArgumentFound { .. } => "KeyError",
            QueryError::MetaConflict { .. } => "ValueError",
            QueryError::TooComplex(_) => "RecursionError",
        }
    }
}

/// Why the registry refused to add a package or a class.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// A package with the same name and version is already registered.
    #[error("package {name}/{version} is already registered")]
    DuplicatePackage {
        /// The package name.
        name: String,
        /// Its version.
        version: Version,
    },
    /// The package id is not from this builder.
    #[error("no package with id {0:?}")]
    UnknownPackage(PackageId),
    /// The class has no (resolvable) `Name`; use
    /// [`add_class_as`](super::RegistryBuilder::add_class_as).
    #[error("the class has no resolvable Name")]
    UnnamedClass,
    /// The package already has a class of that name (the first one stays,
    /// as in Murano's package loader).
    #[error("class {name} is already registered in package {package}")]
    DuplicateClass {
        /// The package name.
        package: String,
        /// The class name.
        name: String,
    },
}
