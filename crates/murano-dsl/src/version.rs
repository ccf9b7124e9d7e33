//! Murano's versions and version specs, faithful to Murano's
//! `helpers.parse_version` / `parse_version_spec` and to semantic-version
//! 2.10, the Python library underneath.
//!
//! * [`Version`]: a semantic version with unbounded numbers;
//!   [`Version::coerce`] makes one out of loose text (`"1.0"` →
//!   `1.0.0`), [`Version::parse`] is strict.
//! * [`parse_version`] (a package's version in the engine: false values
//!   mean `0`) and [`manifest_version`] (the `Version` key of a manifest).
//! * [`VersionSpec`]: a requirement such as `>=1.0.0,<2.0.0`;
//!   [`parse_version_spec`] is Murano's normalization of `Require` values,
//!   [`VersionSpec::parse`] the plain library spec.
//! * [`YamlScalar`]: the YAML value these functions receive, with Python's
//!   `str()` and truth value.
//!
//! Every error is a [`VersionError`] that names the Python exception class
//! Murano raises ([`VersionError::python_exception`]).
//!
//! ```
//! use murano_dsl::version::{parse_version, parse_version_spec, YamlScalar};
//!
//! let version = parse_version(&YamlScalar::Float(1.5))?;
//! assert_eq!(version.to_string(), "1.5.0");
//! let spec = parse_version_spec(&YamlScalar::from("1"))?;
//! assert_eq!(spec.normalized(), "<2.0.0,>=1.0.0");
//! assert!(spec.matches(&version));
//! # Ok::<(), murano_dsl::version::VersionError>(())
//! ```

mod error;
mod number;
mod scalar;
mod semantic;
mod spec;

pub use error::{PythonException, VersionError};
pub use number::VersionNumber;
pub use scalar::YamlScalar;
pub use semantic::Version;
pub use spec::{parse_version_spec, Operator, SpecItem, VersionSpec};

/// Murano's `helpers.parse_version`: a false value (null, `""`, `0`,
/// `false`) means `0`; anything else is `Version.coerce(str(value))`.
///
/// ```
/// use murano_dsl::version::{parse_version, YamlScalar};
///
/// assert_eq!(parse_version(&YamlScalar::Bool(false))?.to_string(), "0.0.0");
/// assert_eq!(parse_version(&YamlScalar::from(2015i64))?.to_string(), "2015.0.0");
/// assert!(parse_version(&YamlScalar::Bool(true)).is_err()); // "True"
/// # Ok::<(), murano_dsl::version::VersionError>(())
/// ```
pub fn parse_version(value: &YamlScalar) -> Result<Version, VersionError> {
    if value.is_truthy() {
        Version::coerce(&value.python_str())
    } else {
        Ok(Version::new(0, 0, 0))
    }
}

/// A package's `version` from its manifest's `Version` key:
/// `Version.coerce(str(value))`, `0.0.0` only when the key is absent
/// (`None` here). False values are not replaced, so `Version: null` fails
/// (`"None"`) and so does `Version: ""`.
///
/// ```
/// use murano_dsl::version::{manifest_version, YamlScalar};
///
/// assert_eq!(manifest_version(None)?.to_string(), "0.0.0");
/// assert_eq!(manifest_version(Some(&YamlScalar::Float(0.1)))?.to_string(), "0.1.0");
/// let date = YamlScalar::Date("2015-01-01".into());
/// assert_eq!(manifest_version(Some(&date))?.to_string(), "2015.0.0-01-01");
/// assert!(manifest_version(Some(&YamlScalar::Null)).is_err());
/// assert!(manifest_version(Some(&YamlScalar::Bool(false))).is_err());
/// # Ok::<(), murano_dsl::version::VersionError>(())
/// ```
pub fn manifest_version(value: Option<&YamlScalar>) -> Result<Version, VersionError> {
    match value {
        Some(value) => Version::coerce(&value.python_str()),
        None => Ok(Version::new(0, 0, 0)),
    }
}
