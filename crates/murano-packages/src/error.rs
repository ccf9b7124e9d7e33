//! Package errors, with the Python exception class Murano raises.

use murano_dsl::version::VersionError;
use murano_yaml::YamlError;

use crate::format::FormatError;

/// Why a package, or one of its properties, could not be loaded. The
/// variants follow the exceptions Murano raises (`python_class`), and
/// Murano's own messages are reproduced word for word.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PackageError {
    /// `murano.packages.exceptions.PackageLoadError`.
    #[error("{0}")]
    Load(String),
    /// `PackageFormatError` (a `PackageLoadError`); the text after
    /// "Incorrect package format: ".
    #[error("Incorrect package format: {0}")]
    Format(String),
    /// `PackageClassLoadError`.
    #[error("Unable to load class \"{class}\" from package: {message}")]
    ClassLoad {
        /// The class.
        class: String,
        /// Why.
        message: String,
    },
    /// The manifest's Format.
    #[error(transparent)]
    FormatId(#[from] FormatError),
    /// A version or version spec (Python `ValueError`, `IndexError`,
    /// `AttributeError` escaping from the version code).
    #[error(transparent)]
    Version(#[from] VersionError),
    /// A YAML error that Murano lets escape unwrapped (HOT templates).
    #[error(transparent)]
    Yaml(#[from] YamlError),
    /// A Python built-in error escaping Murano's code: the class name
    /// (`ValueError`, `TypeError`, `AttributeError`, `KeyError`) and the
    /// message.
    #[error("{message}")]
    Python {
        /// `ValueError`, `TypeError`, `AttributeError`, `KeyError`…
        class: &'static str,
        /// Python's message.
        message: String,
    },
}

impl PackageError {
    pub(crate) fn python(class: &'static str, message: impl Into<String>) -> Self {
        PackageError::Python {
            class,
            message: message.into(),
        }
    }

    /// The qualified Python class of the exception Murano raises.
    pub fn python_class(&self) -> String {
        match self {
            PackageError::Load(_) => "murano.packages.exceptions.PackageLoadError".into(),
            PackageError::Format(_) => "murano.packages.exceptions.PackageFormatError".into(),
            PackageError::ClassLoad { .. } => {
                "murano.packages.exceptions.PackageClassLoadError".into()
            }
            PackageError::FormatId(e) => e.python_class().into(),
            PackageError::Version(e) => e.python_exception().qualified_name().into(),
            PackageError::Yaml(e) => {
                let name = e.class().python_name();
                let module = match name {
                    "ReaderError" => "yaml.reader.",
                    "ScannerError" => "yaml.scanner.",
                    "ParserError" => "yaml.parser.",
                    "ComposerError" => "yaml.composer.",
                    "ConstructorError" => "yaml.constructor.",
                    "ValueError" => "builtins.",
                    _ => "yaql.language.exceptions.",
                };
                format!("{module}{name}")
            }
            PackageError::Python { class, .. } => format!("builtins.{class}"),
        }
    }

    /// Whether Murano's message is its own text (comparable word for word)
    /// rather than Python's or a library's.
    pub fn is_murano_error(&self) -> bool {
        self.python_class().starts_with("murano.")
    }
}
