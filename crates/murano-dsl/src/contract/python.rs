//! Python's rules that contracts rely on: `int()` of a value, `str()` of a
//! value, and Murano's `format_scalar`.

use murano_yaql::eval::Value;

/// Python's `int(text)` in base 10 (see [`murano_yaql::pyint::parse`]).
/// `None` when Python raises, or when the number does not fit in 64 bits.
pub(crate) fn parse_int(text: &str) -> Option<i64> {
    murano_yaql::pyint::parse(text).ok()
}

/// Python's `int(value)`: `None` when Python raises (or the result does
/// not fit in 64 bits).
pub(crate) fn py_int(value: &Value) -> Option<i64> {
    match value {
        Value::Int(n) => Some(*n),
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Float(f) => {
            // 2^63 as a float; every float in [-2^63, 2^63) truncates into
            // an i64.
            const LIMIT: f64 = 9_223_372_036_854_775_808.0;
            let t = f.trunc();
            (t.is_finite() && (-LIMIT..LIMIT).contains(&t)).then_some(t as i64)
        }
        Value::Str(s) => parse_int(s),
        _ => None,
    }
}

/// Python's `str(value)`, with host objects shown by their type name.
pub(crate) fn py_str(value: &Value) -> String {
    match value {
        Value::Object(o) => o.type_name().to_owned(),
        other => other.py_str(),
    }
}

/// Murano's `helpers.format_scalar`: strings in single quotes (as they
/// are, no escaping), anything else as Python's `str()`.
pub(crate) fn format_scalar(value: &Value) -> String {
    match value {
        Value::Str(s) => format!("'{s}'"),
        other => py_str(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_int_of_strings() {
        for (text, expected) in [
            (" 12 ", Some(12)),
            ("+4", Some(4)),
            ("-0", Some(0)),
            ("1_000", Some(1000)),
            ("\u{663}", Some(3)),
            ("007", Some(7)),
            ("\u{1c}5\u{3000}", Some(5)),
            ("2.5", None),
            ("1e3", None),
            ("0x1f", None),
            ("", None),
            ("_1", None),
            ("1__0", None),
            ("1_", None),
            ("- 3", None),
            ("+", None),
            ("9223372036854775807", Some(i64::MAX)),
            ("-9223372036854775808", Some(i64::MIN)),
            ("9223372036854775808", None),
        ] {
            assert_eq!(parse_int(text), expected, "{text:?}");
        }
    }

    #[test]
    fn python_int_of_floats() {
        assert_eq!(py_int(&Value::Float(-0.5)), Some(0));
        assert_eq!(py_int(&Value::Float(12.9)), Some(12));
        assert_eq!(py_int(&Value::Float(f64::NAN)), None);
        assert_eq!(py_int(&Value::Float(1e300)), None);
    }
}
