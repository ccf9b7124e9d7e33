//! [`YamlScalar`]: a manifest value as Murano's Python code receives it.

use std::fmt;

/// A YAML value as PyYAML hands it to Murano, reduced to what the version
/// functions look at: its Python `str()` and whether Python finds it true.
///
/// ```
/// use murano_dsl::version::YamlScalar;
///
/// assert_eq!(YamlScalar::Float(1.10).python_str(), "1.1");
/// assert_eq!(YamlScalar::Bool(true).python_str(), "True");
/// assert_eq!(YamlScalar::Null.python_str(), "None");
/// assert_eq!(YamlScalar::Int("12345678901234567890123".into()).python_str(), "12345678901234567890123");
/// assert!(!YamlScalar::Int("0".into()).is_truthy());
/// assert!(!YamlScalar::from("").is_truthy());
/// assert!(YamlScalar::Float(f64::NAN).is_truthy());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum YamlScalar {
    /// `null`, `~` or an empty value: Python's `None`.
    Null,
    /// A boolean (`True` / `False` in Python).
    Bool(bool),
    /// An integer, as its decimal digits with an optional leading `-`
    /// (Python integers are unbounded, so the digits are kept as text).
    /// Leading zeros and a `+` sign are tolerated and dropped by
    /// [`YamlScalar::python_str`].
    Int(String),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// A YAML date or timestamp, held as the text Python's `str()` gives
    /// for the `date` / `datetime` PyYAML builds (`2015-01-01`,
    /// `2001-12-14 21:59:43.100000-05:00`). Always true.
    Date(String),
    /// Any other value (a sequence, a mapping, ...), given by its Python
    /// `str()` and its truth value (false when empty).
    Other {
        /// Python's `str()` of the value.
        text: String,
        /// Python's `bool()` of the value.
        truthy: bool,
    },
}

impl YamlScalar {
    /// Python's `str()` of the value: `None`, `True`/`False`, decimal
    /// integers, floats as `repr()` (`1.0`, `1e+16`, `nan`, `inf`), strings
    /// as they are.
    pub fn python_str(&self) -> String {
        match self {
            YamlScalar::Null => "None".to_owned(),
            YamlScalar::Bool(true) => "True".to_owned(),
            YamlScalar::Bool(false) => "False".to_owned(),
            YamlScalar::Int(digits) => canonical_int(digits),
            YamlScalar::Float(x) => murano_yaql::python_float_repr(*x),
            YamlScalar::Str(text) | YamlScalar::Date(text) => text.clone(),
            YamlScalar::Other { text, .. } => text.clone(),
        }
    }

    /// Python's `bool()` of the value: `None`, `False`, zero, `0.0`, the
    /// empty string and empty collections are false.
    pub fn is_truthy(&self) -> bool {
        match self {
            YamlScalar::Null => false,
            YamlScalar::Bool(b) => *b,
            YamlScalar::Int(digits) => canonical_int(digits) != "0",
            YamlScalar::Float(x) => *x != 0.0,
            YamlScalar::Str(text) => !text.is_empty(),
            YamlScalar::Date(_) => true,
            YamlScalar::Other { truthy, .. } => *truthy,
        }
    }
}

/// An integer's text without `+` and leading zeros (`-0` is `0`). Text
/// that is not an integer is returned unchanged.
fn canonical_int(text: &str) -> String {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return text.to_owned();
    }
    let trimmed = digits.trim_start_matches('0');
    if trimmed.is_empty() {
        return "0".to_owned();
    }
    if negative {
        format!("-{trimmed}")
    } else {
        trimmed.to_owned()
    }
}

impl From<&str> for YamlScalar {
    fn from(text: &str) -> YamlScalar {
        YamlScalar::Str(text.to_owned())
    }
}

impl From<String> for YamlScalar {
    fn from(text: String) -> YamlScalar {
        YamlScalar::Str(text)
    }
}

impl From<bool> for YamlScalar {
    fn from(value: bool) -> YamlScalar {
        YamlScalar::Bool(value)
    }
}

impl From<i64> for YamlScalar {
    fn from(value: i64) -> YamlScalar {
        YamlScalar::Int(value.to_string())
    }
}

impl From<u64> for YamlScalar {
    fn from(value: u64) -> YamlScalar {
        YamlScalar::Int(value.to_string())
    }
}

impl From<f64> for YamlScalar {
    fn from(value: f64) -> YamlScalar {
        YamlScalar::Float(value)
    }
}

impl fmt::Display for YamlScalar {
    /// The same text as [`YamlScalar::python_str`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.python_str())
    }
}

impl From<&crate::yaml::Value> for YamlScalar {
    /// The scalar a loaded YAML value stands for (collections and other
    /// values by their Python `str()` and truth value).
    fn from(value: &crate::yaml::Value) -> Self {
        use crate::yaml::Value;
        match value {
            Value::Null => YamlScalar::Null,
            Value::Bool(b) => YamlScalar::Bool(*b),
            Value::Int(i) => YamlScalar::Int(i.to_string()),
            Value::Float(x) => YamlScalar::Float(*x),
            Value::Str(s) => YamlScalar::Str(s.clone()),
            Value::Date(_) | Value::Timestamp(_) => YamlScalar::Date(value.python_str()),
            other => YamlScalar::Other {
                text: other.python_str(),
                truthy: other.is_truthy(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_str_of_each_kind() {
        assert_eq!(YamlScalar::Bool(false).python_str(), "False");
        assert_eq!(YamlScalar::from(10i64).python_str(), "10");
        assert_eq!(YamlScalar::Int("-007".into()).python_str(), "-7");
        assert_eq!(YamlScalar::Int("+0".into()).python_str(), "0");
        assert_eq!(YamlScalar::Float(1.0).python_str(), "1.0");
        assert_eq!(YamlScalar::Float(2.0).python_str(), "2.0");
        assert_eq!(YamlScalar::Float(1e16).python_str(), "1e+16");
        assert_eq!(YamlScalar::Float(f64::INFINITY).python_str(), "inf");
        assert_eq!(
            YamlScalar::Date("2015-01-01".into()).python_str(),
            "2015-01-01"
        );
    }

    #[test]
    fn truthiness() {
        assert!(!YamlScalar::Null.is_truthy());
        assert!(!YamlScalar::Bool(false).is_truthy());
        assert!(!YamlScalar::Int("-0".into()).is_truthy());
        assert!(!YamlScalar::Float(-0.0).is_truthy());
        assert!(YamlScalar::from(" ").is_truthy());
        assert!(YamlScalar::Date("2015-01-01".into()).is_truthy());
        assert!(!YamlScalar::Other {
            text: "[]".into(),
            truthy: false
        }
        .is_truthy());
    }
}
