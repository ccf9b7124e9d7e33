//! Package format identifiers: what Murano's `load_utils.load_from_dir`
//! and the package-type plug-in loader make of a manifest's `Format` key.
//!
//! A `Format` names a package type and the MuranoPL runtime version it
//! needs, e.g. `MuranoPL/1.3` or `Heat.HOT/1.0`; a bare number means
//! MuranoPL. [`parse_format`] applies Murano's rules and picks the package
//! handler; errors carry the Python exception class Murano raises.
//!
//! ```
//! use murano_dsl::version::YamlScalar;
//! use murano_packages::format::{parse_format, PackageHandler};
//!
//! let format = parse_format(Some(&YamlScalar::Float(1.2)))?;
//! assert_eq!(format.name, "MuranoPL");
//! assert_eq!(format.runtime_version.to_string(), "1.2.0");
//! assert_eq!(format.handler, PackageHandler::MuranoPl);
//!
//! let hot = parse_format(Some(&YamlScalar::from("Heat.HOT/1")))?;
//! assert_eq!(hot.handler, PackageHandler::Hot);
//!
//! let err = parse_format(Some(&YamlScalar::from("MuranoPL/1.5"))).unwrap_err();
//! assert_eq!(err.to_string(), "Incorrect package format: Unsupported format MuranoPL/1.5");
//! assert_eq!(err.python_class(), "murano.packages.exceptions.PackageFormatError");
//! # Ok::<(), murano_packages::format::FormatError>(())
//! ```

use std::fmt;

use murano_dsl::version::{Version, VersionError, YamlScalar};
use murano_yaml::py_text as pychar;

/// The format used when the manifest's `Format` is absent or false.
pub const DEFAULT_FORMAT: &str = "MuranoPL/1.0";

/// The format name of MuranoPL packages.
pub const MURANO_PL: &str = "MuranoPL";

/// The format name of Heat template (HOT) packages.
pub const HEAT_HOT: &str = "Heat.HOT";

/// The (format name, runtime version) pairs Murano registers, as
/// `(name, major, minor, patch)`: MuranoPL 1.0.0 to 1.4.0, Heat.HOT 1.0.0.
pub const SUPPORTED_FORMATS: [(&str, u64, u64, u64); 6] = [
    (MURANO_PL, 1, 0, 0),
    (MURANO_PL, 1, 1, 0),
    (MURANO_PL, 1, 2, 0),
    (MURANO_PL, 1, 3, 0),
    (MURANO_PL, 1, 4, 0),
    (HEAT_HOT, 1, 0, 0),
];

/// The package class Murano instantiates for a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PackageHandler {
    /// `murano.packages.mpl_package.MuranoPlPackage`.
    MuranoPl,
    /// `murano.packages.hot_package.HotPackage`.
    Hot,
}

impl PackageHandler {
    /// The class name, e.g. `MuranoPlPackage`.
    pub fn class_name(self) -> &'static str {
        match self {
            PackageHandler::MuranoPl => "MuranoPlPackage",
            PackageHandler::Hot => "HotPackage",
        }
    }

    /// The qualified class name, e.g.
    /// `murano.packages.mpl_package.MuranoPlPackage`.
    pub fn qualified_name(self) -> &'static str {
        match self {
            PackageHandler::MuranoPl => "murano.packages.mpl_package.MuranoPlPackage",
            PackageHandler::Hot => "murano.packages.hot_package.HotPackage",
        }
    }

    /// The handler registered for a format name and runtime version, if
    /// any. Names are case-sensitive and versions are compared in full
    /// (prerelease and build metadata included).
    pub fn for_format(name: &str, runtime_version: &Version) -> Option<PackageHandler> {
        SUPPORTED_FORMATS
            .iter()
            .find(|(known, major, minor, patch)| {
                *known == name && *runtime_version == Version::new(*major, *minor, *patch)
            })
            .map(|(known, ..)| {
                if *known == HEAT_HOT {
                    PackageHandler::Hot
                } else {
                    PackageHandler::MuranoPl
                }
            })
    }
}

impl fmt::Display for PackageHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.class_name())
    }
}

/// A supported package format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageFormat {
    /// The format name (`MuranoPL` or `Heat.HOT`), stripped of
    /// surrounding whitespace.
    pub name: String,
    /// The MuranoPL runtime version the package asks for.
    pub runtime_version: Version,
    /// The package class that loads it.
    pub handler: PackageHandler,
}

/// Why a `Format` value was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// The format text has no `/` (Python: `ValueError(<text>)`, not
    /// wrapped into a package error).
    #[error("{0}")]
    MissingSlash(String),
    /// The version part does not coerce into a version (the `ValueError`
    /// of `Version.coerce`, not wrapped either).
    #[error(transparent)]
    Version(#[from] VersionError),
    /// Well-formed, but no handler is registered for that name and
    /// version: `PackageFormatError`. Holds the format text.
    #[error("Incorrect package format: Unsupported format {0}")]
    Unsupported(String),
}

/// The Python exception class hierarchy of `PackageFormatError`, nearest
/// base first.
const PACKAGE_FORMAT_ERROR_MRO: [&str; 4] = [
    "murano.packages.exceptions.PackageLoadError",
    "murano.packages.exceptions.PackageException",
    "murano.common.exceptions.Error",
    "builtins.Exception",
];

const VALUE_ERROR_MRO: [&str; 1] = ["builtins.Exception"];

impl FormatError {
    /// The qualified Python exception class Murano raises, e.g.
    /// `builtins.ValueError` or
    /// `murano.packages.exceptions.PackageFormatError`.
    pub fn python_class(&self) -> &'static str {
        match self {
            FormatError::MissingSlash(_) => "builtins.ValueError",
            FormatError::Version(e) => e.python_exception().qualified_name(),
            FormatError::Unsupported(_) => "murano.packages.exceptions.PackageFormatError",
        }
    }

    /// The base classes of [`FormatError::python_class`], nearest first
    /// (`PackageFormatError` is a `PackageLoadError`).
    pub fn python_mro(&self) -> &'static [&'static str] {
        match self {
            FormatError::Unsupported(_) => &PACKAGE_FORMAT_ERROR_MRO,
            _ => &VALUE_ERROR_MRO,
        }
    }

    /// Whether Murano raises a `PackageLoadError` (here: the
    /// `PackageFormatError` of an unsupported format) rather than a plain
    /// Python error.
    pub fn is_package_load_error(&self) -> bool {
        matches!(self, FormatError::Unsupported(_))
    }
}

/// The format text Murano builds from a manifest's `Format` value:
/// Python's `str()` of it, [`DEFAULT_FORMAT`] when absent (`None`) or false
/// (null, `""`, `0`, `false`), and `MuranoPL/` in front when it starts
/// with a digit (Python's `isdigit()`).
///
/// ```
/// use murano_dsl::version::YamlScalar;
/// use murano_packages::format::format_text;
///
/// assert_eq!(format_text(None), "MuranoPL/1.0");
/// assert_eq!(format_text(Some(&YamlScalar::Int("0".into()))), "MuranoPL/1.0");
/// assert_eq!(format_text(Some(&YamlScalar::Float(1.10))), "MuranoPL/1.1");
/// assert_eq!(format_text(Some(&YamlScalar::Bool(true))), "True");
/// ```
pub fn format_text(value: Option<&YamlScalar>) -> String {
    let text = match value {
        Some(value) if value.is_truthy() => value.python_str(),
        _ => DEFAULT_FORMAT.to_owned(),
    };
    if text.chars().next().is_some_and(pychar::is_digit) {
        format!("{MURANO_PL}/{text}")
    } else {
        text
    }
}

/// The plug-in loader's `_parse_format_string`: splits at the **last**
/// `/`, strips the name (Python's `strip()`), and coerces the version part
/// as it is (`Version.coerce`, so a leading space fails and a trailing one
/// is dropped).
///
/// ```
/// use murano_packages::format::{split_format, FormatError};
///
/// let (name, version) = split_format(" MuranoPL /1.0")?;
/// assert_eq!((name.as_str(), version.to_string().as_str()), ("MuranoPL", "1.0.0"));
/// let (name, _) = split_format("a/b/1")?;
/// assert_eq!(name, "a/b");
/// assert!(matches!(split_format("Heat.HOT"), Err(FormatError::MissingSlash(_))));
/// assert!(matches!(split_format("MuranoPL/ 1.0"), Err(FormatError::Version(_))));
/// # Ok::<(), FormatError>(())
/// ```
pub fn split_format(text: &str) -> Result<(String, Version), FormatError> {
    let (name, version) = text
        .rsplit_once('/')
        .ok_or_else(|| FormatError::MissingSlash(text.to_owned()))?;
    let version = Version::coerce(version)?;
    Ok((pychar::strip(name).to_owned(), version))
}

/// What `load_from_dir` makes of a manifest's `Format` value (`None` when
/// the key is absent): the format name, the runtime version and the
/// handler, or the error Murano raises.
///
/// See [`format_text`] and [`split_format`] for the steps; a name and
/// version pair outside [`SUPPORTED_FORMATS`] is
/// [`FormatError::Unsupported`], whose message quotes the format text
/// (after the `MuranoPL/` prefix was added).
pub fn parse_format(value: Option<&YamlScalar>) -> Result<PackageFormat, FormatError> {
    let text = format_text(value);
    let (name, runtime_version) = split_format(&text)?;
    match PackageHandler::for_format(&name, &runtime_version) {
        Some(handler) => Ok(PackageFormat {
            name,
            runtime_version,
            handler,
        }),
        None => Err(FormatError::Unsupported(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: YamlScalar) -> Result<(String, String, PackageHandler), FormatError> {
        parse_format(Some(&value)).map(|f| (f.name, f.runtime_version.to_string(), f.handler))
    }

    #[test]
    fn false_values_mean_muranopl_1_0() {
        for value in [
            YamlScalar::Null,
            YamlScalar::from(""),
            YamlScalar::from(0i64),
            YamlScalar::Float(0.0),
            YamlScalar::Bool(false),
        ] {
            let (name, version, handler) = parse(value).unwrap();
            assert_eq!((name.as_str(), version.as_str()), ("MuranoPL", "1.0.0"));
            assert_eq!(handler, PackageHandler::MuranoPl);
        }
        assert_eq!(parse_format(None).unwrap().name, "MuranoPL");
    }

    #[test]
    fn numbers_go_through_python_str() {
        assert_eq!(parse(YamlScalar::Float(1.10)).unwrap().1, "1.1.0");
        assert_eq!(parse(YamlScalar::from(1i64)).unwrap().1, "1.0.0");
        assert!(matches!(
            parse(YamlScalar::Float(1.5)),
            Err(FormatError::Unsupported(t)) if t == "MuranoPL/1.5"
        ));
        // `True` has no slash: a bare ValueError.
        assert!(matches!(
            parse(YamlScalar::Bool(true)),
            Err(FormatError::MissingSlash(t)) if t == "True"
        ));
    }

    #[test]
    fn versions_compare_in_full() {
        for text in [
            "MuranoPL/1.0.0+b",
            "MuranoPL/1.0-beta",
            "Heat.HOT/1.0.1",
            "MuranoPL/1.4.1",
        ] {
            assert!(
                matches!(parse(text.into()), Err(FormatError::Unsupported(t)) if t == text),
                "{text}"
            );
        }
        assert_eq!(parse("MuranoPL/1.4".into()).unwrap().1, "1.4.0");
        assert_eq!(
            parse("Heat.HOT/1.0 ".into()).unwrap().2,
            PackageHandler::Hot
        );
        assert_eq!(parse("MuranoPL/01.0".into()).unwrap().1, "1.0.0");
    }

    #[test]
    fn names_are_case_sensitive_and_stripped() {
        assert!(matches!(
            parse("heat.hot/1.0".into()),
            Err(FormatError::Unsupported(_))
        ));
        assert_eq!(parse("\u{3000}Heat.HOT\t/1".into()).unwrap().0, "Heat.HOT");
        // Only the last slash splits.
        assert!(matches!(
            parse("MuranoPL/1.0/1.0".into()),
            Err(FormatError::Unsupported(_))
        ));
    }

    #[test]
    fn digit_prefix_uses_python_isdigit() {
        // Arabic-Indic digits: isdigit() (prefix added) and \d (coerced).
        let (name, version, _) = parse("\u{661}.\u{660}".into()).unwrap();
        assert_eq!((name.as_str(), version.as_str()), ("MuranoPL", "1.0.0"));
        // Superscript two: isdigit() but not \d, so the version part fails.
        assert!(matches!(
            parse("\u{b2}".into()),
            Err(FormatError::Version(_))
        ));
        // A digit after the first character does not count.
        assert!(matches!(
            parse("v1.0".into()),
            Err(FormatError::MissingSlash(t)) if t == "v1.0"
        ));
    }

    #[test]
    fn error_classes() {
        let unsupported = parse("TOSCA/1.0".into()).unwrap_err();
        assert!(unsupported.is_package_load_error());
        assert_eq!(
            unsupported.python_mro()[0],
            "murano.packages.exceptions.PackageLoadError"
        );
        let bad_version = parse("MuranoPL/v1".into()).unwrap_err();
        assert_eq!(bad_version.python_class(), "builtins.ValueError");
        assert_eq!(
            bad_version.to_string(),
            "Version string lacks a numerical component: 'v1'"
        );
        assert!(!bad_version.is_package_load_error());
    }
}
