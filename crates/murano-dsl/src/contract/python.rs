//! Python's rules that contracts rely on: `int()` of a value, `str()` of a
//! value, and Murano's `format_scalar`.

use murano_yaql::eval::Value;

/// The code points of `0` in every run of ten Unicode decimal digits
/// (category `Nd`); Python's `int()` accepts all of them.
const DIGIT_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66,
    0xde6, 0xe50, 0xed0, 0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90,
    0x1b50, 0x1bb0, 0x1c40, 0x1c50, 0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10,
    0x104a0, 0x10d30, 0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450, 0x114d0, 0x11650,
    0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50, 0x11da0, 0x16a60, 0x16ac0, 0x16b50,
    0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0,
];

/// The value of a Unicode decimal digit.
fn decimal_digit(c: char) -> Option<u32> {
    let cp = c as u32;
    let i = DIGIT_ZEROS.partition_point(|&z| z <= cp);
    let zero = *DIGIT_ZEROS.get(i.checked_sub(1)?)?;
    (cp - zero < 10).then_some(cp - zero)
}

/// Python's `str.isspace()`.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `int(text)` in base 10: surrounding whitespace, one sign,
/// single `_` between digits, any Unicode decimal digits. `None` when
/// Python raises, or when the number does not fit in 64 bits.
pub(crate) fn parse_int(text: &str) -> Option<i64> {
    let s = text.trim_matches(is_py_space);
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if body.is_empty() || body.starts_with('_') || body.ends_with('_') {
        return None;
    }
    let mut n: i128 = 0;
    let mut previous_underscore = false;
    for c in body.chars() {
        if c == '_' {
            if previous_underscore {
                return None;
            }
            previous_underscore = true;
            continue;
        }
        previous_underscore = false;
        let d = decimal_digit(c)?;
        n = n.checked_mul(10)?.checked_add(i128::from(d))?;
        if n > i128::from(i64::MAX) + 1 {
            return None;
        }
    }
    let n = if negative { -n } else { n };
    i64::try_from(n).ok()
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
