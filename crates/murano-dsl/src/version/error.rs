//! Errors of the version functions, each tied to the Python exception
//! class Murano raises in the same situation.

use murano_yaml::py_text::repr;

/// The Python exception class behind a [`VersionError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PythonException {
    /// `builtins.ValueError`: semantic-version rejected the text.
    ValueError,
    /// `builtins.IndexError`: Murano indexed an empty spec string.
    IndexError,
    /// `builtins.AttributeError`: Murano's spec normalization met a part
    /// that the library cannot list as one item.
    AttributeError,
}

impl PythonException {
    /// The class name, e.g. `ValueError`.
    pub fn name(self) -> &'static str {
        match self {
            PythonException::ValueError => "ValueError",
            PythonException::IndexError => "IndexError",
            PythonException::AttributeError => "AttributeError",
        }
    }

    /// The qualified name the oracle records, e.g. `builtins.ValueError`.
    pub fn qualified_name(self) -> &'static str {
        match self {
            PythonException::ValueError => "builtins.ValueError",
            PythonException::IndexError => "builtins.IndexError",
            PythonException::AttributeError => "builtins.AttributeError",
        }
    }
}

/// Why a version or a version spec was rejected.
///
/// The `Display` text is the message Python gives (semantic-version's own
/// wording for the `ValueError`s); [`VersionError::python_exception`] names
/// the exception class.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VersionError {
    /// `Version.coerce` found no leading digits.
    #[error("Version string lacks a numerical component: {}", repr(.0))]
    NoNumericalComponent(String),
    /// A strict version string was empty.
    #[error("Invalid empty version string: ''")]
    EmptyVersionString,
    /// A strict version string is not `MAJOR.MINOR.PATCH[-pre][+build]`.
    #[error("Invalid version string: {}", repr(.0))]
    InvalidVersionString(String),
    /// A strict version string has a leading zero in a numeric component.
    #[error("Invalid leading zero in {component}: {}", repr(.text))]
    LeadingZeroInComponent {
        /// `major`, `minor` or `patch`.
        component: &'static str,
        /// The whole version string.
        text: String,
    },
    /// A prerelease or build part has an empty dot-separated identifier.
    #[error("Invalid empty identifier '' in {}", repr(.identifiers))]
    EmptyIdentifier {
        /// The whole prerelease or build part.
        identifiers: String,
    },
    /// A numeric prerelease identifier has a leading zero.
    #[error("Invalid leading zero in identifier {}", repr(.0))]
    LeadingZeroInIdentifier(String),
    /// Text that should be a number is not.
    #[error("invalid literal for int() with base 10: {}", repr(.0))]
    InvalidNumber(String),
    /// A comma-separated block of a spec does not have the simple-spec
    /// shape.
    #[error("Invalid simple block {}", repr(.0))]
    InvalidSimpleBlock(String),
    /// A block has the right shape but an invalid combination (a wildcard
    /// with an operator other than `==`/`>=`, a partial version with a
    /// prerelease or build, build metadata with an ordering operator).
    #[error("Invalid simple spec: {}", repr(.0))]
    InvalidSimpleSpec(String),
    /// `parse_version_spec` was given text that is empty once whitespace is
    /// removed (Python: `IndexError` from `version_spec[0]`).
    #[error("string index out of range")]
    EmptySpec,
    /// A spec has a `!=` on a partial version next to other blocks: the
    /// library parses it as an OR that it cannot list as a single item, and
    /// Murano's normalization fails on the missing item (Python:
    /// `AttributeError`). Holds the spec text.
    #[error("'NoneType' object has no attribute 'kind'")]
    UnlistableAlternative(String),
}

impl VersionError {
    /// The Python exception class Murano raises for this error.
    pub fn python_exception(&self) -> PythonException {
        match self {
            VersionError::EmptySpec => PythonException::IndexError,
            VersionError::UnlistableAlternative(_) => PythonException::AttributeError,
            _ => PythonException::ValueError,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_follow_python() {
        assert_eq!(
            VersionError::NoNumericalComponent("v1.0".into()).to_string(),
            "Version string lacks a numerical component: 'v1.0'"
        );
        assert_eq!(
            VersionError::EmptyIdentifier {
                identifiers: ".2".into()
            }
            .to_string(),
            "Invalid empty identifier '' in '.2'"
        );
        assert_eq!(
            VersionError::InvalidSimpleBlock("==1.x".into()).to_string(),
            "Invalid simple block '==1.x'"
        );
        assert_eq!(
            VersionError::EmptySpec.python_exception().qualified_name(),
            "builtins.IndexError"
        );
    }
}
