//! [`Version`]: semantic-version 2.10's `Version`, with its `coerce`.

use std::cmp::Ordering;
use std::fmt;

use super::number::VersionNumber;
use super::VersionError;
use murano_yaml::py_text as pychar;

/// A semantic version as Murano (through semantic-version 2.10) holds it.
///
/// It carries the same information as a [`semver::Version`] (and converts
/// to and from one, see [`Version::to_semver`]), but its numeric components
/// are unbounded like Python's integers, and its comparisons follow the
/// Python library:
///
/// * `==` ([`PartialEq`]) compares everything, build metadata included;
/// * [`Version::cmp_precedence`] is semver precedence (build metadata
///   ignored), which the library's `<`, `<=`, `>`, `>=` use;
/// * [`Ord`] is precedence, then build metadata (the library's sort key),
///   so that it agrees with `==`.
///
/// ```
/// use murano_dsl::version::Version;
///
/// let v = Version::coerce("01.2-beta_1")?;
/// assert_eq!(v.to_string(), "1.2.0-beta-1");
/// assert!(v < Version::new(1, 2, 0));
/// assert_eq!(Version::parse("1.2.3+b7")?.to_semver(), Some(semver::Version::parse("1.2.3+b7").unwrap()));
/// assert!(Version::parse("1.2").is_err()); // strict parsing needs three parts
/// # Ok::<(), murano_dsl::version::VersionError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Version {
    major: VersionNumber,
    minor: VersionNumber,
    patch: VersionNumber,
    pre: semver::Prerelease,
    build: semver::BuildMetadata,
}

impl Version {
    /// `MAJOR.MINOR.PATCH` without prerelease or build metadata.
    pub fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version::release(major.into(), minor.into(), patch.into())
    }

    pub(crate) fn release(
        major: VersionNumber,
        minor: VersionNumber,
        patch: VersionNumber,
    ) -> Version {
        Version {
            major,
            minor,
            patch,
            pre: semver::Prerelease::EMPTY,
            build: semver::BuildMetadata::EMPTY,
        }
    }

    /// A version from its parts, validating the prerelease and build texts
    /// the way semantic-version does (in that order): no empty identifier,
    /// and no leading zero in a numeric prerelease identifier.
    pub(crate) fn from_parts(
        major: VersionNumber,
        minor: VersionNumber,
        patch: VersionNumber,
        pre: &str,
        build: &str,
    ) -> Result<Version, VersionError> {
        validate_identifiers(pre, false)?;
        validate_identifiers(build, true)?;
        let pre = semver::Prerelease::new(pre)
            .map_err(|_| VersionError::InvalidVersionString(pre.to_owned()))?;
        let build = semver::BuildMetadata::new(build)
            .map_err(|_| VersionError::InvalidVersionString(build.to_owned()))?;
        Ok(Version {
            major,
            minor,
            patch,
            pre,
            build,
        })
    }

    /// semantic-version's `Version.coerce`: makes a version out of any text
    /// that starts with a number.
    ///
    /// * The longest prefix `\d+(\.\d+(\.\d+)?)?` (Unicode digits, as
    ///   Python's `\d`) is the numeric part; none is an error. Missing
    ///   parts are `0`, leading zeros are dropped.
    /// * In the rest, every character other than ASCII letters, digits,
    ///   `+`, `.` and `-` becomes `-`. A rest starting with `+` or `.` is
    ///   build metadata; otherwise it is a prerelease (after a leading
    ///   `-`), up to an optional `+build`. `+` inside the build part
    ///   becomes `.`; empty parts are dropped.
    /// * The result must then be a valid version (no empty identifier, no
    ///   leading zero in a numeric prerelease identifier).
    ///
    /// ```
    /// use murano_dsl::version::{PythonException, Version};
    ///
    /// let coerce = |s: &str| Version::coerce(s).map(|v| v.to_string());
    /// assert_eq!(coerce("1.2.3.4")?, "1.2.3+4");
    /// assert_eq!(coerce("1.x")?, "1.0.0+x");
    /// assert_eq!(coerce("1.2a")?, "1.2.0-a");
    /// assert_eq!(coerce("1.0 ")?, "1.0.0");
    /// assert_eq!(coerce("2015-01-01")?, "2015.0.0-01-01");
    /// let err = Version::coerce("v1.0").unwrap_err();
    /// assert_eq!(err.python_exception(), PythonException::ValueError);
    /// assert_eq!(err.to_string(), "Version string lacks a numerical component: 'v1.0'");
    /// assert!(Version::coerce("1.2.3-01").is_err());
    /// # Ok::<(), murano_dsl::version::VersionError>(())
    /// ```
    pub fn coerce(text: &str) -> Result<Version, VersionError> {
        let mut numbers: Vec<VersionNumber> = Vec::with_capacity(3);
        let first = digit_run(text);
        let Some(major) = VersionNumber::from_python_digits(&text[..first]) else {
            return Err(VersionError::NoNumericalComponent(text.to_owned()));
        };
        numbers.push(major);
        let mut end = first;
        while numbers.len() < 3 {
            let Some(after_dot) = text[end..].strip_prefix('.') else {
                break;
            };
            let run = digit_run(after_dot);
            let Some(number) = VersionNumber::from_python_digits(&after_dot[..run]) else {
                break;
            };
            numbers.push(number);
            end += 1 + run;
        }
        let mut numbers = numbers.into_iter();
        let major = numbers.next().unwrap_or_else(VersionNumber::zero);
        let minor = numbers.next().unwrap_or_else(VersionNumber::zero);
        let patch = numbers.next().unwrap_or_else(VersionNumber::zero);
        if end == text.len() {
            return Ok(Version::release(major, minor, patch));
        }
        let rest: String = text[end..]
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-') {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let (pre, build) = if let Some(build) = rest.strip_prefix(['+', '.']) {
            ("", build)
        } else {
            let rest = rest.strip_prefix('-').unwrap_or(&rest);
            rest.split_once('+').unwrap_or((rest, ""))
        };
        let build = build.replace('+', ".");
        Version::from_parts(major, minor, patch, pre, &build)
    }

    /// semantic-version's strict `Version(text)`: exactly
    /// `MAJOR.MINOR.PATCH[-pre][+build]` (one trailing newline tolerated,
    /// as Python's `$` allows), no leading zeros in the numbers.
    ///
    /// ```
    /// use murano_dsl::version::Version;
    ///
    /// assert_eq!(Version::parse("1.0.0-rc.1")?.to_string(), "1.0.0-rc.1");
    /// assert!(Version::parse("01.0.0").is_err());
    /// assert!(Version::parse("1.0.0-").is_err());
    /// # Ok::<(), murano_dsl::version::VersionError>(())
    /// ```
    pub fn parse(text: &str) -> Result<Version, VersionError> {
        if text.is_empty() {
            return Err(VersionError::EmptyVersionString);
        }
        let invalid = || VersionError::InvalidVersionString(text.to_owned());
        let body = text.strip_suffix('\n').unwrap_or(text);
        let mut cores: Vec<&str> = Vec::with_capacity(3);
        let mut rest = body;
        for index in 0..3 {
            if index > 0 {
                rest = rest.strip_prefix('.').ok_or_else(invalid)?;
            }
            let run = digit_run(rest);
            if run == 0 {
                return Err(invalid());
            }
            cores.push(&rest[..run]);
            rest = &rest[run..];
        }
        let identifier_run = |s: &str| {
            s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
                .unwrap_or(s.len())
        };
        let mut pre = "";
        if let Some(after) = rest.strip_prefix('-') {
            let run = identifier_run(after);
            if run == 0 {
                return Err(invalid());
            }
            pre = &after[..run];
            rest = &after[run..];
        }
        let mut build = "";
        if let Some(after) = rest.strip_prefix('+') {
            let run = identifier_run(after);
            if run == 0 {
                return Err(invalid());
            }
            build = &after[..run];
            rest = &after[run..];
        }
        if !rest.is_empty() {
            return Err(invalid());
        }
        let mut numbers = Vec::with_capacity(3);
        for (core, component) in cores.into_iter().zip(["major", "minor", "patch"]) {
            if core.len() > 1 && core.starts_with('0') {
                return Err(VersionError::LeadingZeroInComponent {
                    component,
                    text: text.to_owned(),
                });
            }
            numbers.push(VersionNumber::from_python_digits(core).ok_or_else(invalid)?);
        }
        let mut numbers = numbers.into_iter();
        let major = numbers.next().ok_or_else(invalid)?;
        let minor = numbers.next().ok_or_else(invalid)?;
        let patch = numbers.next().ok_or_else(invalid)?;
        Version::from_parts(major, minor, patch, pre, build)
    }

    /// The major number.
    pub fn major(&self) -> &VersionNumber {
        &self.major
    }

    /// The minor number.
    pub fn minor(&self) -> &VersionNumber {
        &self.minor
    }

    /// The patch number.
    pub fn patch(&self) -> &VersionNumber {
        &self.patch
    }

    /// The prerelease part (empty for a release).
    pub fn pre(&self) -> &semver::Prerelease {
        &self.pre
    }

    /// The build metadata (often empty).
    pub fn build(&self) -> &semver::BuildMetadata {
        &self.build
    }

    /// Whether there is a prerelease part.
    pub fn is_prerelease(&self) -> bool {
        !self.pre.is_empty()
    }

    /// The same version as a [`semver::Version`], unless a number does not
    /// fit in a `u64`.
    pub fn to_semver(&self) -> Option<semver::Version> {
        Some(semver::Version {
            major: self.major.as_u64()?,
            minor: self.minor.as_u64()?,
            patch: self.patch.as_u64()?,
            pre: self.pre.clone(),
            build: self.build.clone(),
        })
    }

    /// Semver precedence, as semantic-version's `<`/`>` compare: numbers,
    /// then prerelease (a release is above its prereleases; numeric
    /// identifiers below alphanumeric ones); build metadata ignored.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use murano_dsl::version::Version;
    ///
    /// let a = Version::parse("1.0.0+a")?;
    /// let b = Version::parse("1.0.0+b")?;
    /// assert_eq!(a.cmp_precedence(&b), Ordering::Equal);
    /// assert_ne!(a, b);
    /// let rc = Version::parse("1.0.0-rc.1")?;
    /// assert_eq!(rc.cmp_precedence(&a), Ordering::Less);
    /// # Ok::<(), murano_dsl::version::VersionError>(())
    /// ```
    pub fn cmp_precedence(&self, other: &Version) -> Ordering {
        self.major
            .cmp(&other.major)
            .then_with(|| self.minor.cmp(&other.minor))
            .then_with(|| self.patch.cmp(&other.patch))
            .then_with(|| self.pre.cmp(&other.pre))
    }

    /// The same version without build metadata (the library's
    /// `truncate('prerelease')`).
    pub(crate) fn without_build(&self) -> Version {
        Version {
            build: semver::BuildMetadata::EMPTY,
            ..self.clone()
        }
    }

    /// Only `MAJOR.MINOR.PATCH` (the library's `truncate()`).
    pub(crate) fn release_part(&self) -> Version {
        Version::release(self.major.clone(), self.minor.clone(), self.patch.clone())
    }

    /// The library's `next_major()`.
    pub(crate) fn next_major(&self) -> Version {
        if self.is_prerelease() && self.minor.is_zero() && self.patch.is_zero() {
            Version::release(
                self.major.clone(),
                VersionNumber::zero(),
                VersionNumber::zero(),
            )
        } else {
            Version::release(
                self.major.increment(),
                VersionNumber::zero(),
                VersionNumber::zero(),
            )
        }
    }

    /// The library's `next_minor()`.
    pub(crate) fn next_minor(&self) -> Version {
        if self.is_prerelease() && self.patch.is_zero() {
            Version::release(
                self.major.clone(),
                self.minor.clone(),
                VersionNumber::zero(),
            )
        } else {
            Version::release(
                self.major.clone(),
                self.minor.increment(),
                VersionNumber::zero(),
            )
        }
    }

    /// The library's `next_patch()`.
    pub(crate) fn next_patch(&self) -> Version {
        if self.is_prerelease() {
            self.release_part()
        } else {
            Version::release(
                self.major.clone(),
                self.minor.clone(),
                self.patch.increment(),
            )
        }
    }
}

/// Length in bytes of the run of Python `\d` characters at the start.
fn digit_run(text: &str) -> usize {
    text.find(|c: char| pychar::decimal_value(c).is_none())
        .unwrap_or(text.len())
}

/// semantic-version's `_validate_identifiers` on a dot-separated part
/// (nothing to check when the part is empty: it is absent).
fn validate_identifiers(part: &str, allow_leading_zeros: bool) -> Result<(), VersionError> {
    if part.is_empty() {
        return Ok(());
    }
    for item in part.split('.') {
        if item.is_empty() {
            return Err(VersionError::EmptyIdentifier {
                identifiers: part.to_owned(),
            });
        }
        if !allow_leading_zeros
            && item.len() > 1
            && item.starts_with('0')
            && item.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(VersionError::LeadingZeroInIdentifier(item.to_owned()));
        }
    }
    Ok(())
}

/// The library's sort key for build metadata: identifiers compared one by
/// one, numeric ones (by value) below alphanumeric ones (by bytes).
fn cmp_build(a: &str, b: &str) -> Ordering {
    fn key(identifier: &str) -> (bool, &str) {
        let numeric = !identifier.is_empty() && identifier.bytes().all(|b| b.is_ascii_digit());
        if numeric {
            let trimmed = identifier.trim_start_matches('0');
            (false, trimmed)
        } else {
            (true, identifier)
        }
    }
    fn split(s: &str) -> Vec<&str> {
        if s.is_empty() {
            Vec::new()
        } else {
            s.split('.').collect()
        }
    }
    let (left, right) = (split(a), split(b));
    for (x, y) in left.iter().zip(right.iter()) {
        let (x_alpha, x_text) = key(x);
        let (y_alpha, y_text) = key(y);
        let ordering = match (x_alpha, y_alpha) {
            (false, false) => x_text
                .len()
                .cmp(&y_text.len())
                .then_with(|| x_text.cmp(y_text)),
            (true, true) => x_text.cmp(y_text),
            (false, true) => Ordering::Less,
            (true, false) => Ordering::Greater,
        };
        if ordering != Ordering::Equal {
            return ordering;
        }
    }
    left.len().cmp(&right.len())
}

impl Ord for Version {
    fn cmp(&self, other: &Version) -> Ordering {
        self.cmp_precedence(other)
            .then_with(|| cmp_build(self.build.as_str(), other.build.as_str()))
            .then_with(|| self.build.as_str().cmp(other.build.as_str()))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl From<semver::Version> for Version {
    fn from(version: semver::Version) -> Version {
        Version {
            major: version.major.into(),
            minor: version.minor.into(),
            patch: version.patch.into(),
            pre: version.pre,
            build: version.build,
        }
    }
}

impl std::str::FromStr for Version {
    type Err = VersionError;

    /// Strict parsing, as [`Version::parse`].
    fn from_str(text: &str) -> Result<Version, VersionError> {
        Version::parse(text)
    }
}

impl fmt::Display for Version {
    /// Python's `str()` of the version: `1.2.3-rc.1+build.5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        if !self.build.is_empty() {
            write!(f, "+{}", self.build)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Version({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coerce(text: &str) -> Result<String, VersionError> {
        Version::coerce(text).map(|v| v.to_string())
    }

    fn v(text: &str) -> Version {
        Version::parse(text).expect("valid version")
    }

    #[test]
    fn coerce_numeric_prefix() {
        assert_eq!(coerce("1").unwrap(), "1.0.0");
        assert_eq!(coerce("01.02.03").unwrap(), "1.2.3");
        assert_eq!(coerce("1.01").unwrap(), "1.1.0");
        assert_eq!(coerce("0.0.0").unwrap(), "0.0.0");
        assert_eq!(
            coerce("99999999999999999999.0.0").unwrap(),
            "99999999999999999999.0.0"
        );
        // Python's \d and int() accept every script's decimal digits.
        assert_eq!(coerce("\u{661}.\u{662}").unwrap(), "1.2.0");
        assert!(matches!(
            Version::coerce(" 1.0"),
            Err(VersionError::NoNumericalComponent(_))
        ));
        assert!(matches!(
            Version::coerce(""),
            Err(VersionError::NoNumericalComponent(_))
        ));
        assert!(matches!(
            Version::coerce("\u{b2}"),
            Err(VersionError::NoNumericalComponent(_))
        ));
    }

    #[test]
    fn coerce_rest_rules() {
        assert_eq!(coerce("1.2.3.4").unwrap(), "1.2.3+4");
        assert_eq!(coerce("1.2.3.4+5+6").unwrap(), "1.2.3+4.5.6");
        assert_eq!(coerce("0.1+2-3+4_5").unwrap(), "0.1.0+2-3.4-5");
        assert_eq!(coerce("1.x").unwrap(), "1.0.0+x");
        assert_eq!(coerce("1.2.").unwrap(), "1.2.0");
        assert_eq!(coerce("1.0.0-").unwrap(), "1.0.0");
        assert_eq!(coerce("1.0.0+").unwrap(), "1.0.0");
        assert_eq!(coerce("1.0\n").unwrap(), "1.0.0");
        assert_eq!(coerce("1.0-beta").unwrap(), "1.0.0-beta");
        assert_eq!(coerce("1.2.3b4").unwrap(), "1.2.3-b4");
        assert_eq!(coerce("1.0.0-alpha_beta").unwrap(), "1.0.0-alpha-beta");
        assert_eq!(coerce("1.2.3-rc.1+build.7").unwrap(), "1.2.3-rc.1+build.7");
        assert_eq!(coerce("1.0--x").unwrap(), "1.0.0--x");
        assert_eq!(coerce("1a+b+c").unwrap(), "1.0.0-a+b.c");
        assert_eq!(coerce("1 é").unwrap(), "1.0.0--");
        assert_eq!(coerce("2015-01-01").unwrap(), "2015.0.0-01-01");
    }

    #[test]
    fn coerce_errors_are_value_errors() {
        let err = Version::coerce("1..2").unwrap_err();
        assert_eq!(err.to_string(), "Invalid empty identifier '' in '.2'");
        let err = Version::coerce("1.2.3-01").unwrap_err();
        assert_eq!(err.to_string(), "Invalid leading zero in identifier '01'");
        let err = Version::coerce("1-a..b").unwrap_err();
        assert_eq!(err.to_string(), "Invalid empty identifier '' in 'a..b'");
        // Leading zeros are fine in build metadata.
        assert_eq!(coerce("1.0.0+01").unwrap(), "1.0.0+01");
    }

    #[test]
    fn strict_parse() {
        assert_eq!(v("1.2.3").to_string(), "1.2.3");
        assert_eq!(v("1.2.3\n").to_string(), "1.2.3");
        assert_eq!(v("0.0.0-0").to_string(), "0.0.0-0");
        for bad in [
            "",
            "1.2",
            "1.2.3.4",
            "v1.2.3",
            "1.2.3-",
            "1.2.3+",
            "1.2.3 ",
            "1.2.3\n\n",
        ] {
            assert!(Version::parse(bad).is_err(), "{bad:?}");
        }
        assert!(matches!(
            Version::parse("1.02.3"),
            Err(VersionError::LeadingZeroInComponent {
                component: "minor",
                ..
            })
        ));
        assert!(matches!(
            Version::parse("1.2.3-a.01"),
            Err(VersionError::LeadingZeroInIdentifier(_))
        ));
        assert!(Version::parse("1.2.3+a.01").is_ok());
    }

    #[test]
    fn precedence_and_equality() {
        let order = [
            "0.0.0-0",
            "0.0.0",
            "1.0.0-0",
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.11.111",
            "2.0.0",
            "99999999999999999999.0.0",
        ];
        for pair in order.windows(2) {
            assert_eq!(v(pair[0]).cmp_precedence(&v(pair[1])), Ordering::Less);
            assert!(v(pair[0]) < v(pair[1]));
        }
        assert_eq!(v("1.0.0+x").cmp_precedence(&v("1.0.0")), Ordering::Equal);
        assert_ne!(v("1.0.0+x"), v("1.0.0"));
        assert!(v("1.0.0") < v("1.0.0+x"));
        assert!(v("1.0.0+2") < v("1.0.0+10"));
        assert!(v("1.0.0+10") < v("1.0.0+a"));
        assert_ne!(v("1.0.0+01"), v("1.0.0+1"));
        assert_ne!(v("1.0.0+01").cmp(&v("1.0.0+1")), Ordering::Equal);
    }

    #[test]
    fn next_versions_follow_the_library() {
        assert_eq!(v("1.2.3").next_major().to_string(), "2.0.0");
        assert_eq!(v("1.0.0-rc").next_major().to_string(), "1.0.0");
        assert_eq!(v("1.2.3").next_minor().to_string(), "1.3.0");
        assert_eq!(v("1.2.0-rc").next_minor().to_string(), "1.2.0");
        assert_eq!(v("1.2.3").next_patch().to_string(), "1.2.4");
        assert_eq!(v("1.2.3-rc").next_patch().to_string(), "1.2.3");
    }

    #[test]
    fn semver_round_trip() {
        let version = v("1.2.3-rc.1+b.7");
        let sv = version.to_semver().expect("fits");
        assert_eq!(Version::from(sv), version);
        assert_eq!(v("18446744073709551616.0.0").to_semver(), None);
    }
}
