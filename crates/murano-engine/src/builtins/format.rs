//! yaql 2.0's string `format()` (Python's `str.format`), which yaql 3.0
//! removed for CVE-2024-29156. Fields are positional (`{}`, `{0}`) or
//! named (`{name}`), with an optional conversion (`!s`, `!r`) and a
//! format spec for strings and numbers (fill, alignment, width,
//! precision, type `d`/`f`/`s`). Attribute and index lookups inside a
//! field (`{0.__class__}`, `{0[1]}`), the hole behind the CVE, are
//! refused with a `ValueError`.

use murano_yaql::eval::{Error, ErrorKind, Value};

/// The widest field and the largest precision accepted (Python's limit is
/// memory; untrusted format strings must not allocate without bound).
const MAX_FIELD_WIDTH: usize = 10_000;

fn value_error(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::ValueError, message)
}

/// The error of a result that would pass `limit` bytes (yaql's
/// `Options::max_string_len`).
pub(crate) fn string_too_long(limit: usize) -> Error {
    murano_dsl::functions::string_too_long(limit)
}

/// Formats `fmt` with positional `args` and keyword `kwargs`; a result
/// longer than `limit` bytes is refused as it grows (each field is
/// bounded, but a format string repeating one is not).
pub(crate) fn format(
    fmt: &str,
    args: &[Value],
    kwargs: &[(String, Value)],
    limit: usize,
) -> Result<Value, Error> {
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    let mut auto = 0usize;
    let mut manual = false;
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '}' => return Err(value_error("Single '}' encountered in format string")),
            '{' => {
                let mut field = String::new();
                let mut depth = 1;
                loop {
                    match chars.next() {
                        None => return Err(value_error("expected '}' before end of string")),
                        Some('{') => {
                            depth += 1;
                            field.push('{');
                        }
                        Some('}') => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                            field.push('}');
                        }
                        Some(ch) => field.push(ch),
                    }
                }
                let (name_conv, spec) = match field.split_once(':') {
                    Some((a, b)) => (a, b),
                    None => (field.as_str(), ""),
                };
                let (name, conversion) = match name_conv.split_once('!') {
                    Some((a, b)) => (a, Some(b)),
                    None => (name_conv, None),
                };
                if name.contains('.') || name.contains('[') {
                    return Err(value_error(format!(
                        "attribute and index lookups in format fields are refused: {{{field}}}"
                    )));
                }
                if spec.contains('{') {
                    return Err(value_error("nested format fields are not supported"));
                }
                let value = if name.is_empty() {
                    if manual {
                        return Err(value_error(
                            "cannot switch from manual field specification to automatic field numbering",
                        ));
                    }
                    let v = args.get(auto).ok_or_else(|| {
                        Error::new(ErrorKind::IndexError, "Replacement index out of range")
                    })?;
                    auto += 1;
                    v
                } else if let Ok(i) = name.parse::<usize>() {
                    if auto > 0 {
                        return Err(value_error(
                            "cannot switch from automatic field numbering to manual field specification",
                        ));
                    }
                    manual = true;
                    args.get(i).ok_or_else(|| {
                        Error::new(ErrorKind::IndexError, "Replacement index out of range")
                    })?
                } else {
                    kwargs
                        .iter()
                        .find(|(k, _)| k == name)
                        .map(|(_, v)| v)
                        .ok_or_else(|| Error::new(ErrorKind::KeyError, format!("'{name}'")))?
                };
                let converted = match conversion {
                    None => None,
                    Some("s") => Some(value.py_str()),
                    Some("r") => Some(value.repr()),
                    Some(other) => {
                        return Err(value_error(format!("Unknown conversion specifier {other}")))
                    }
                };
                out.push_str(&apply_spec(value, converted, spec)?);
                if out.len() > limit {
                    return Err(string_too_long(limit));
                }
            }
            c => out.push(c),
        }
    }
    if out.len() > limit {
        return Err(string_too_long(limit));
    }
    Ok(Value::str(&out))
}

fn apply_spec(value: &Value, converted: Option<String>, spec: &str) -> Result<String, Error> {
    if spec.is_empty() {
        return Ok(converted.unwrap_or_else(|| value.py_str()));
    }
    let mut chars: Vec<char> = spec.chars().collect();
    let mut fill = ' ';
    let mut align = None;
    if chars.len() >= 2 && matches!(chars[1], '<' | '>' | '^' | '=') {
        fill = chars[0];
        align = Some(chars[1]);
        chars.drain(..2);
    } else if !chars.is_empty() && matches!(chars[0], '<' | '>' | '^' | '=') {
        align = Some(chars[0]);
        chars.drain(..1);
    }
    let rest: String = chars.iter().collect();
    let ty = rest.chars().last().filter(|c| c.is_ascii_alphabetic());
    let body = match ty {
        Some(_) => &rest[..rest.len() - 1],
        None => rest.as_str(),
    };
    let (width, precision) = match body.split_once('.') {
        Some((w, p)) => (w, Some(p)),
        None => (body, None),
    };
    let width: usize = if width.is_empty() {
        0
    } else {
        width
            .parse()
            .map_err(|_| value_error(format!("Invalid format specifier '{spec}'")))?
    };
    if width > MAX_FIELD_WIDTH {
        return Err(value_error(format!("format width {width} is too large")));
    }
    let precision: Option<usize> = match precision {
        Some(p) => Some(
            p.parse()
                .map_err(|_| value_error(format!("Invalid format specifier '{spec}'")))?,
        ),
        None => None,
    };
    if precision.is_some_and(|p| p > MAX_FIELD_WIDTH) {
        return Err(value_error("format precision is too large"));
    }
    let text = match (ty, converted, value) {
        (None | Some('s'), Some(s), _) => truncate(&s, precision),
        (None | Some('s'), None, Value::Str(s)) => truncate(s, precision),
        (Some('d') | None, None, Value::Int(n)) => n.to_string(),
        (Some('f'), None, Value::Int(n)) => format!("{:.*}", precision.unwrap_or(6), *n as f64),
        (Some('f'), None, Value::Float(x)) => format!("{:.*}", precision.unwrap_or(6), x),
        (None, None, Value::Float(x)) if precision.is_some() => {
            format!("{:.*}", precision.unwrap_or(6), x)
        }
        (None, None, other) if precision.is_none() => other.py_str(),
        _ => {
            return Err(value_error(format!(
                "Unsupported format specifier '{spec}'"
            )))
        }
    };
    let len = text.chars().count();
    if len >= width {
        return Ok(text);
    }
    let pad = width - len;
    let numeric = matches!(value, Value::Int(_) | Value::Float(_));
    let align = align.unwrap_or(if numeric { '>' } else { '<' });
    let fill_n = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    Ok(match align {
        '<' => format!("{text}{}", fill_n(pad)),
        '^' => format!("{}{text}{}", fill_n(pad / 2), fill_n(pad - pad / 2)),
        _ => format!("{}{text}", fill_n(pad)),
    })
}

fn truncate(s: &str, precision: Option<usize>) -> String {
    match precision {
        Some(p) => s.chars().take(p).collect(),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[Value]) -> Result<Value, Error> {
        format(fmt, args, &[], usize::MAX)
    }

    /// Issue 38, item 3: each field is at most 10,000 wide, but a format
    /// string repeating one (`'{0:>9999}' * 400000`: 4 GB) passed the
    /// string limit; the result is refused as it grows past it.
    #[test]
    fn results_past_the_string_limit_are_refused() {
        let fmt = "{0:>9999}".repeat(11);
        let args = [Value::Int(1)];
        let err = format(&fmt, &args, &[], 100_000).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::MemoryQuotaExceeded);
        let ok = format(&fmt, &args, &[], 110_000).unwrap();
        assert!(matches!(ok, Value::Str(s) if s.len() == 109_989));
        // Literal text counts as well.
        let err = format(&"x".repeat(101), &args, &[], 100).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::MemoryQuotaExceeded);
    }

    #[test]
    fn positional_named_and_escapes() {
        let args = [Value::str("a"), Value::Int(2)];
        assert_eq!(f("{0}:{1}", &args).unwrap(), Value::str("a:2"));
        assert_eq!(f("{}-{}", &args).unwrap(), Value::str("a-2"));
        assert_eq!(f("{{{0}}}", &args).unwrap(), Value::str("{a}"));
        let kw = [("x".to_owned(), Value::Bool(true))];
        assert_eq!(
            format("{x}", &[], &kw, usize::MAX).unwrap(),
            Value::str("True")
        );
        assert_eq!(f("{0!r}", &args).unwrap(), Value::str("'a'"));
        assert_eq!(f("{1:>3}|{0:<2}|", &args).unwrap(), Value::str("  2|a |"));
        assert_eq!(
            f("{0:.2f}", &[Value::Float(1.0)]).unwrap(),
            Value::str("1.00")
        );
    }

    #[test]
    fn lookups_and_bad_fields_are_refused() {
        let args = [Value::str("a")];
        assert_eq!(
            f("{0.__class__}", &args).unwrap_err().kind(),
            ErrorKind::ValueError
        );
        assert_eq!(
            f("{0[0]}", &args).unwrap_err().kind(),
            ErrorKind::ValueError
        );
        assert_eq!(f("{1}", &args).unwrap_err().kind(), ErrorKind::IndexError);
        assert_eq!(f("{", &args).unwrap_err().kind(), ErrorKind::ValueError);
        assert_eq!(f("}", &args).unwrap_err().kind(), ErrorKind::ValueError);
        let big = [Value::Float(1.0)];
        assert_eq!(
            f("{0:>99999999}", &big).unwrap_err().kind(),
            ErrorKind::ValueError
        );
        assert_eq!(
            f("{0:.99999999f}", &big).unwrap_err().kind(),
            ErrorKind::ValueError
        );
        assert_eq!(f("{}{0}", &args).unwrap_err().kind(), ErrorKind::ValueError);
    }
}
