//! Cleaning one posted field value the way the dashboard's Django fields
//! do: conversion, the required and choice checks, then validators.
//!
//! ```
//! use murano_ui::clean::{python_int, python_literal_pair};
//! use murano_yaql::eval::Value;
//!
//! assert_eq!(python_int(" +1_0 "), Some(10));
//! assert_eq!(python_int("1e1"), None);
//! let pair = python_literal_pair("('net-1', None)").unwrap();
//! assert_eq!(pair, Value::tuple(vec![Value::str("net-1"), Value::Null]));
//! ```

use murano_yaml::py_text as pychar;
use murano_yaql::eval::Value;

use crate::definition::{FieldDef, FieldKind, FieldValidator};
use crate::evaluate::Walker;
use crate::pyre::PyRegex;

/// One error of a field: message and code (`None` for validator items).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The message.
    pub message: String,
    /// The code.
    pub code: Option<String>,
}

fn err(message: impl Into<String>, code: Option<&str>) -> FieldError {
    FieldError {
        message: message.into(),
        code: code.map(str::to_owned),
    }
}

/// Why cleaning did not give a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CleanFailure {
    /// Validation errors, in order.
    Invalid(Vec<FieldError>),
    /// The dashboard raised (e.g. a network value that is not a literal).
    Crash {
        /// The Python exception class.
        exception: crate::ErrorClass,
        /// Its message.
        message: String,
    },
}

/// Python `int()` of a text.
pub fn python_int(text: &str) -> Option<i64> {
    let t = pychar::strip(text);
    let (neg, digits) = match t.chars().next()? {
        '+' => (false, &t[1..]),
        '-' => (true, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let mut n: i64 = 0;
    for c in digits.chars() {
        if c == '_' {
            continue;
        }
        let d = pychar::decimal_value(c)?;
        n = n.checked_mul(10)?.checked_add(i64::from(d))?;
    }
    Some(if neg { -n } else { n })
}

/// Parses a Python literal made of tuples/lists of strings, `None`,
/// integers and booleans (what network fields post).
pub fn python_literal_pair(text: &str) -> Option<Value> {
    let chars: Vec<char> = text.chars().collect();
    let mut p = Lit { c: &chars, i: 0 };
    p.ws();
    let v = p.value()?;
    p.ws();
    (p.i == chars.len()).then_some(v)
}

struct Lit<'a> {
    c: &'a [char],
    i: usize,
}

impl Lit<'_> {
    fn ws(&mut self) {
        while self.i < self.c.len() && self.c[self.i].is_whitespace() {
            self.i += 1;
        }
    }
    fn value(&mut self) -> Option<Value> {
        let c = *self.c.get(self.i)?;
        match c {
            '(' | '[' => {
                let close = if c == '(' { ')' } else { ']' };
                self.i += 1;
                let mut items = Vec::new();
                let mut trailing_comma = false;
                loop {
                    self.ws();
                    if self.c.get(self.i) == Some(&close) {
                        self.i += 1;
                        break;
                    }
                    items.push(self.value()?);
                    self.ws();
                    match self.c.get(self.i) {
                        Some(',') => {
                            self.i += 1;
                            trailing_comma = true;
                        }
                        Some(x) if *x == close => {
                            self.i += 1;
                            trailing_comma = false;
                            break;
                        }
                        _ => return None,
                    }
                }
                if c == '(' {
                    if items.len() == 1 && !trailing_comma {
                        return items.pop();
                    }
                    Some(Value::tuple(items))
                } else {
                    Some(Value::List(std::sync::Arc::new(items)))
                }
            }
            '\'' | '"' => {
                self.i += 1;
                let mut s = String::new();
                loop {
                    let x = *self.c.get(self.i)?;
                    self.i += 1;
                    if x == c {
                        break;
                    }
                    if x == '\\' {
                        let e = *self.c.get(self.i)?;
                        self.i += 1;
                        s.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            '0' => '\0',
                            other => other,
                        });
                    } else {
                        s.push(x);
                    }
                }
                Some(Value::str(&s))
            }
            _ => {
                let start = self.i;
                while self.i < self.c.len()
                    && (self.c[self.i].is_alphanumeric()
                        || matches!(self.c[self.i], '_' | '-' | '+'))
                {
                    self.i += 1;
                }
                let word: String = self.c[start..self.i].iter().collect();
                match word.as_str() {
                    "None" => Some(Value::Null),
                    "True" => Some(Value::Bool(true)),
                    "False" => Some(Value::Bool(false)),
                    w => python_int(w).map(Value::Int),
                }
            }
        }
    }
}

/// Python `repr()` of a cleaned value (strings quoted the Python way).
pub fn py_repr(v: &Value) -> String {
    match v {
        Value::Str(s) => murano_yaml::py_text::repr(s),
        Value::Tuple(items) => {
            let inner: Vec<String> = items.iter().map(py_repr).collect();
            if items.len() == 1 {
                format!("({},)", inner[0])
            } else {
                format!("({})", inner.join(", "))
            }
        }
        Value::List(items) => {
            format!(
                "[{}]",
                items.iter().map(py_repr).collect::<Vec<_>>().join(", ")
            )
        }
        other => other.repr(),
    }
}

/// Python `str()` of a cleaned value.
pub fn py_str(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        other => py_repr(other),
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Str(s) => s.is_empty(),
        Value::List(x) | Value::Tuple(x) => x.is_empty(),
        Value::Dict(d) => d.is_empty(),
        _ => false,
    }
}

/// Options of a select-like field: (value, label).
pub type Options = Vec<(Value, String)>;

fn length_message(kind: &str, limit: i64, has: usize) -> String {
    let unit = if limit == 1 {
        "character"
    } else {
        "characters"
    };
    format!("Ensure this value has {kind} {limit} {unit} (it has {has}).")
}

fn default_messages(kind: &FieldKind) -> Vec<(&'static str, &'static str)> {
    let mut m = vec![("required", "This field is required.")];
    match kind {
        FieldKind::Integer => m.push(("invalid", "Enter a whole number.")),
        FieldKind::DatabaseList => m.push(("invalid", DBLIST_MESSAGE)),
        k if k.is_select() => m.push((
            "invalid_choice",
            "Select a valid choice. %(value)s is not one of the available choices.",
        )),
        _ => {}
    }
    m
}

const DBLIST_MESSAGE: &str = "First symbol should be latin letter or underscore. Subsequent symbols can be latin letter, numeric, underscore, at sign, number sign or dollar sign";

fn message_for(field: &FieldDef, code: &str, fallback: &str) -> String {
    if let Some((_, m)) = field.error_messages.iter().find(|(k, _)| k == code) {
        return m.clone();
    }
    default_messages(&field.kind)
        .into_iter()
        .find(|(k, _)| *k == code)
        .map(|(_, m)| m.to_owned())
        .unwrap_or_else(|| fallback.to_owned())
}

/// Cleans one field. `posted` is the raw posted string (`None`: not
/// posted); `options` the select options; `walker` runs YAQL validators.
pub fn clean_field(
    field: &FieldDef,
    posted: Option<&str>,
    options: &Options,
    walker: &Walker,
) -> Result<Value, CleanFailure> {
    let invalid = |e: FieldError| CleanFailure::Invalid(vec![e]);
    // 1. convert
    let value = match &field.kind {
        FieldKind::String | FieldKind::Text | FieldKind::Password | FieldKind::ClusterIp => {
            match posted {
                None | Some("") => Value::str(""),
                Some(s) => {
                    if field.strip {
                        Value::str(pychar::strip(s))
                    } else {
                        Value::str(s)
                    }
                }
            }
        }
        FieldKind::Integer => match posted {
            None | Some("") => Value::Null,
            Some(s) => {
                let trimmed = strip_decimal_suffix(s);
                match python_int(&trimmed) {
                    Some(n) => Value::Int(n),
                    None => {
                        return Err(invalid(err(
                            message_for(field, "invalid", "Enter a whole number."),
                            Some("invalid"),
                        )))
                    }
                }
            }
        },
        FieldKind::Boolean | FieldKind::FloatingIp => {
            let b = match posted {
                None => false,
                Some(s) if field.hidden => {
                    let l = s.to_lowercase();
                    !(l == "false" || l == "0" || s.is_empty())
                }
                Some(s) => {
                    let l = s.to_lowercase();
                    if l == "true" {
                        true
                    } else if l == "false" {
                        false
                    } else {
                        !s.is_empty()
                    }
                }
            };
            Value::Bool(b)
        }
        FieldKind::DatabaseList => match posted {
            None | Some("") => Value::List(std::sync::Arc::new(Vec::new())),
            Some(s) => Value::List(std::sync::Arc::new(
                s.split(',').map(|x| Value::str(pychar::strip(x))).collect(),
            )),
        },
        FieldKind::Network => match posted {
            None | Some("") => Value::tuple(vec![Value::Null, Value::Null]),
            Some(s) => match python_literal_pair(s) {
                Some(v) => v,
                None => {
                    return Err(CleanFailure::Crash {
                        exception: crate::ErrorClass::ValueError,
                        message: format!("malformed node or string: {s}"),
                    })
                }
            },
        },
        FieldKind::Flavor => {
            return Ok(match posted {
                None => Value::Null,
                Some(p) => options
                    .iter()
                    .find(|(id, _)| id.as_str() == Some(p))
                    .map(|(_, name)| Value::str(name))
                    .unwrap_or_else(|| Value::str(p)),
            });
        }
        _ => match posted {
            None | Some("") => Value::str(""),
            Some(s) => Value::str(s),
        },
    };
    // 2. checks
    if field.required && is_empty(&value) {
        return Err(invalid(err(
            message_for(field, "required", "This field is required."),
            Some("required"),
        )));
    }
    if field.kind.is_select() && value.truthy() {
        let text = py_str(&value);
        let ok = options
            .iter()
            .any(|(k, _)| *k == value || py_str(k) == text);
        if !ok {
            let msg = message_for(field, "invalid_choice", "").replace("%(value)s", &text);
            return Err(invalid(err(msg, Some("invalid_choice"))));
        }
    }
    if field.kind == FieldKind::DatabaseList {
        if let (Ok(re), Some(items)) = (
            PyRegex::new(r"^[a-zA-z_][a-zA-Z0-9_$#@]*$", 0),
            value.as_slice(),
        ) {
            for it in items {
                if !re.search(&py_str(it)) {
                    return Err(invalid(err(DBLIST_MESSAGE, Some("invalid"))));
                }
            }
        }
    }
    // 3. empty values skip validators
    if is_empty(&value) {
        return Ok(finish(field, value));
    }
    // 4. validators
    let mut errors = Vec::new();
    if field.kind == FieldKind::ClusterIp {
        let s = py_str(&value);
        if !is_ipv4(&s) {
            errors.push(err(
                message_for(field, "invalid", "Enter a valid IPv4 address."),
                Some("invalid"),
            ));
        }
    }
    for v in &field.validators {
        match v {
            FieldValidator::Regex {
                regex,
                message,
                code,
            } => {
                if !regex.search(&py_str(&value)) {
                    match code {
                        Some(c) => errors.push(err(message_for(field, c, message), Some(c))),
                        None => errors.push(err(message.clone(), None)),
                    }
                }
            }
            FieldValidator::Yaql { expr, message } => {
                let ctx = walker.context().with("$", value.clone());
                match walker.eval_text(expr.text(), &ctx) {
                    Ok(r) if r.truthy() => {}
                    Ok(_) => errors.push(err(message.clone(), None)),
                    Err(e) => {
                        return Err(CleanFailure::Crash {
                            exception: crate::ErrorClass::Yaql(e.kind()),
                            message: e.to_string(),
                        })
                    }
                }
            }
        }
    }
    let length = match &value {
        Value::Str(s) => Some(s.chars().count()),
        Value::List(items) => Some(items.len()),
        _ => None,
    };
    let is_char = matches!(
        field.kind,
        FieldKind::String
            | FieldKind::Text
            | FieldKind::Password
            | FieldKind::ClusterIp
            | FieldKind::DatabaseList
    );
    if is_char {
        if let Some(len) = length {
            if let Some(min) = field.min_length {
                if (len as i64) < min {
                    errors.push(err(
                        message_for(field, "min_length", &length_message("at least", min, len)),
                        Some("min_length"),
                    ));
                }
            }
            let max = field
                .max_length
                .or((field.kind == FieldKind::ClusterIp).then_some(39));
            if let Some(max) = max {
                if (len as i64) > max {
                    errors.push(err(
                        message_for(field, "max_length", &length_message("at most", max, len)),
                        Some("max_length"),
                    ));
                }
            }
        }
        if py_str(&value).contains('\0') {
            errors.push(err(
                message_for(
                    field,
                    "null_characters_not_allowed",
                    "Null characters are not allowed.",
                ),
                Some("null_characters_not_allowed"),
            ));
        }
    }
    if field.kind == FieldKind::Integer {
        if let Some(n) = value.as_int() {
            if let Some(max) = field.max_value {
                if n > max {
                    errors.push(err(
                        message_for(
                            field,
                            "max_value",
                            &format!("Ensure this value is less than or equal to {max}."),
                        ),
                        Some("max_value"),
                    ));
                }
            }
            if let Some(min) = field.min_value {
                if n < min {
                    errors.push(err(
                        message_for(
                            field,
                            "min_value",
                            &format!("Ensure this value is greater than or equal to {min}."),
                        ),
                        Some("min_value"),
                    ));
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(finish(field, value))
    } else {
        Err(CleanFailure::Invalid(errors))
    }
}

fn finish(field: &FieldDef, value: Value) -> Value {
    match field.kind {
        FieldKind::AppRef(_) | FieldKind::Domain if value.as_str() == Some("") => Value::Null,
        _ => value,
    }
}

fn strip_decimal_suffix(s: &str) -> String {
    // Django's `re.sub(r"\.0*\s*$", "", value)`: the first dot followed only
    // by zeros and white space is cut with everything after it.
    let chars: Vec<char> = s.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c == '.' {
            let rest = &chars[i + 1..];
            let zeros = rest.iter().take_while(|c| **c == '0').count();
            if rest[zeros..].iter().all(|c| c.is_whitespace()) {
                return chars[..i].iter().collect();
            }
        }
    }
    s.to_owned()
}

fn is_ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.chars().all(|c| c.is_ascii_digit())
                && !(p.len() > 1 && p.starts_with('0'))
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}
