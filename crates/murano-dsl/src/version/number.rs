//! Version numbers of unbounded size, as Python's `int` keeps them.

use std::cmp::Ordering;
use std::fmt;

use murano_yaml::py_text as pychar;

/// One numeric component (major, minor or patch) of a [`Version`].
///
/// Python's integers are unbounded and semantic-version keeps them as they
/// are, so a version such as `99999999999999999999.0.0` is valid in Murano.
/// The number is stored as its decimal digits (ASCII, no leading zeros) and
/// ordered numerically.
///
/// ```
/// use murano_dsl::version::VersionNumber;
///
/// let big: VersionNumber = "99999999999999999999".parse()?;
/// assert!(big > VersionNumber::from(u64::MAX));
/// assert_eq!(big.as_u64(), None);
/// assert_eq!(big.increment().to_string(), "100000000000000000000");
/// assert_eq!("007".parse::<VersionNumber>()?.as_u64(), Some(7));
/// # Ok::<(), murano_dsl::version::VersionError>(())
/// ```
///
/// [`Version`]: super::Version
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct VersionNumber(String);

impl VersionNumber {
    /// Zero.
    pub fn zero() -> VersionNumber {
        VersionNumber("0".to_owned())
    }

    /// From the digits Python's `int()` would accept in a version: every
    /// character a Unicode decimal digit (`\d`), at least one. Leading
    /// zeros are dropped.
    pub(crate) fn from_python_digits(text: &str) -> Option<VersionNumber> {
        if text.is_empty() {
            return None;
        }
        let mut digits = String::with_capacity(text.len());
        for c in text.chars() {
            let value = pychar::decimal_value(c)?;
            if value == 0 && digits.is_empty() {
                continue;
            }
            digits.push(char::from(b'0' + value));
        }
        if digits.is_empty() {
            digits.push('0');
        }
        Some(VersionNumber(digits))
    }

    /// The decimal digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value, when it fits in a `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        self.0.parse().ok()
    }

    /// Whether this is zero (Python treats zero as false).
    pub fn is_zero(&self) -> bool {
        self.0 == "0"
    }

    /// This number plus one.
    pub fn increment(&self) -> VersionNumber {
        let mut digits: Vec<u8> = self.0.bytes().collect();
        let mut carry = true;
        for digit in digits.iter_mut().rev() {
            if *digit == b'9' {
                *digit = b'0';
            } else {
                *digit += 1;
                carry = false;
                break;
            }
        }
        let mut text = String::with_capacity(digits.len() + 1);
        if carry {
            text.push('1');
        }
        text.extend(digits.into_iter().map(char::from));
        VersionNumber(text)
    }
}

impl From<u64> for VersionNumber {
    fn from(value: u64) -> VersionNumber {
        VersionNumber(value.to_string())
    }
}

impl std::str::FromStr for VersionNumber {
    type Err = super::VersionError;

    /// Parses decimal digits (any Unicode decimal digits, as Python's
    /// `int()` reads them; leading zeros allowed).
    fn from_str(text: &str) -> Result<VersionNumber, Self::Err> {
        VersionNumber::from_python_digits(text)
            .ok_or_else(|| super::VersionError::InvalidNumber(text.to_owned()))
    }
}

impl Ord for VersionNumber {
    fn cmp(&self, other: &VersionNumber) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.cmp(&other.0))
    }
}

impl PartialOrd for VersionNumber {
    fn partial_cmp(&self, other: &VersionNumber) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for VersionNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for VersionNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(text: &str) -> VersionNumber {
        VersionNumber::from_python_digits(text).expect("digits")
    }

    #[test]
    fn leading_zeros_and_unicode_digits() {
        assert_eq!(num("000").as_str(), "0");
        assert_eq!(num("0120").as_str(), "120");
        assert_eq!(num("\u{661}\u{660}").as_str(), "10");
        assert_eq!(num("1\u{ff12}").as_str(), "12");
        assert!(VersionNumber::from_python_digits("").is_none());
        assert!(VersionNumber::from_python_digits("1a").is_none());
        assert!(VersionNumber::from_python_digits("-1").is_none());
    }

    #[test]
    fn ordering_is_numeric() {
        assert!(num("9") < num("10"));
        assert!(num("10") < num("11"));
        assert!(num("99999999999999999999") > num("18446744073709551615"));
        assert_eq!(num("5").cmp(&num("005")), Ordering::Equal);
    }

    #[test]
    fn increment_carries() {
        assert_eq!(num("0").increment().as_str(), "1");
        assert_eq!(num("9").increment().as_str(), "10");
        assert_eq!(num("1299").increment().as_str(), "1300");
        assert_eq!(num("18446744073709551615").increment().as_u64(), None);
    }
}
