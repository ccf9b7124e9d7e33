//! What a loaded YAML document is made of.

use std::fmt;
use std::sync::Arc;

use crate::error::Mark;

/// A loaded value with the span of the YAML node it came from.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where the node starts (for a tagged node: at its tag).
    pub start: Mark,
    /// Where it ends.
    pub end: Mark,
}

/// A Python integer: machine-sized when it fits, decimal digits otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(untagged))]
pub enum Int {
    /// Fits in 64 bits.
    Small(i64),
    /// Decimal digits with an optional leading `-`, no leading zeros.
    Big(String),
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Int::Small(n) => write!(f, "{n}"),
            Int::Big(digits) => f.write_str(digits),
        }
    }
}

/// A calendar date (`datetime.date`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Date {
    /// Year.
    pub year: u16,
    /// Month, 1 to 12.
    pub month: u8,
    /// Day, 1 to 31.
    pub day: u8,
}

impl fmt::Display for Date {
    /// ISO 8601, as Python's `isoformat()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// A date and time (`datetime.datetime`), with a UTC offset when the YAML
/// gave one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Timestamp {
    /// The date.
    pub date: Date,
    /// Hour.
    pub hour: u8,
    /// Minute.
    pub minute: u8,
    /// Second.
    pub second: u8,
    /// Microseconds.
    pub microsecond: u32,
    /// Offset from UTC in minutes, if any.
    pub offset_minutes: Option<i32>,
}

impl fmt::Display for Timestamp {
    /// ISO 8601, as Python's `isoformat()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}T{:02}:{:02}:{:02}",
            self.date, self.hour, self.minute, self.second
        )?;
        if self.microsecond != 0 {
            write!(f, ".{:06}", self.microsecond)?;
        }
        if let Some(offset) = self.offset_minutes {
            let sign = if offset < 0 { '-' } else { '+' };
            let offset = offset.abs();
            write!(f, "{sign}{:02}:{:02}", offset / 60, offset % 60)?;
        }
        Ok(())
    }
}

/// A YAQL expression found in the document.
#[derive(Debug, Clone, PartialEq)]
pub struct YaqlScalar {
    /// The parsed expression; its source is the scalar's text (see
    /// [`YaqlScalar::text`]).
    pub expression: Arc<murano_yaql::Expression>,
    /// Identifies the YAML node: Python compares YAQL objects by identity,
    /// so two YAQL keys are one key only when they are the same node (an
    /// alias).
    pub node_id: usize,
}

impl YaqlScalar {
    /// The expression text: the scalar after YAML folding. It is the
    /// parsed expression's source, stored once.
    pub fn text(&self) -> &str {
        self.expression.source()
    }
}

/// A loaded value, as PyYAML's safe constructor (plus Murano's `!yaql`)
/// builds it.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum Value {
    /// `null`, `~`, empty.
    Null,
    /// YAML 1.1 booleans (`yes`, `Off`, `TRUE`…).
    Bool(bool),
    /// Integers in every YAML 1.1 form.
    Int(Int),
    /// Floats (which YAML 1.1 writes with a dot).
    Float(f64),
    /// Strings.
    Str(String),
    /// `2015-01-02`.
    Date(Date),
    /// `2001-12-14t21:59:43.10-05:00`.
    Timestamp(Timestamp),
    /// `!!binary`.
    Binary(Vec<u8>),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping in document order, keys unique as Python's dict makes
    /// them (`1`, `1.0` and `true` are one key; YAQL keys never merge).
    Map(Vec<(Node, Node)>),
    /// `!!set`: the keys of a mapping.
    Set(Vec<Node>),
    /// `!!omap` and `!!pairs`: a list of key-value pairs.
    Pairs(Vec<(Node, Node)>),
    /// A YAQL expression.
    Yaql(YaqlScalar),
    /// A reference back to a collection that contains it (a recursive
    /// alias).
    Recursive,
}

impl Value {
    /// A short description of the value's kind (`"a mapping"`), for
    /// messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Date(_) | Value::Timestamp(_) => "a date",
            Value::Binary(_) => "binary data",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
            Value::Set(_) => "a set",
            Value::Pairs(_) => "a list of pairs",
            Value::Yaql(_) => "a YAQL expression",
            Value::Recursive => "a recursive alias",
        }
    }

    /// Python truthiness: what decides whether Murano drops a document.
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(Int::Small(n)) => *n != 0,
            Value::Int(Int::Big(_)) => true,
            Value::Float(x) => *x != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Binary(b) => !b.is_empty(),
            Value::Seq(v) | Value::Set(v) => !v.is_empty(),
            Value::Map(v) | Value::Pairs(v) => !v.is_empty(),
            Value::Date(_) | Value::Timestamp(_) | Value::Yaql(_) | Value::Recursive => true,
        }
    }

    /// The entries, if this is a mapping.
    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match self {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value of key `key` (a string key), if this is a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.value.as_str() == Some(key))
            .map(|(_, v)| v)
    }
}

impl Value {
    /// Python's `str()` of the value as PyYAML builds it (strings as they
    /// are, `None`, `True`, floats as `repr()`, collections as `repr()`).
    pub fn python_str(&self) -> String {
        match self {
            Value::Str(s) => s.clone(),
            Value::Yaql(y) => y.text().to_owned(),
            Value::Date(d) => d.to_string(),
            Value::Timestamp(t) => t.to_string().replacen('T', " ", 1),
            _ => self.python_repr(),
        }
    }

    /// Python's `repr()` of the value.
    pub fn python_repr(&self) -> String {
        match self {
            Value::Null => "None".into(),
            Value::Bool(true) => "True".into(),
            Value::Bool(false) => "False".into(),
            Value::Int(i) => i.to_string(),
            Value::Float(x) => murano_yaql::python_float_repr(*x),
            Value::Str(s) => crate::py_text::repr(s),
            Value::Date(d) => format!("datetime.date({}, {}, {})", d.year, d.month, d.day),
            Value::Timestamp(t) => format!("'{t}'"),
            Value::Binary(b) => crate::py_text::bytes_repr(b),
            Value::Seq(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(|n| n.value.python_repr())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Set(items) => format!(
                "{{{}}}",
                items
                    .iter()
                    .map(|n| n.value.python_repr())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Map(pairs) => format!(
                "{{{}}}",
                pairs
                    .iter()
                    .map(|(k, v)| format!("{}: {}", k.value.python_repr(), v.value.python_repr()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Pairs(pairs) => format!(
                "[{}]",
                pairs
                    .iter()
                    .map(|(k, v)| format!("({}, {})", k.value.python_repr(), v.value.python_repr()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Yaql(y) => format!("YAQL({})", y.text()),
            Value::Recursive => "[...]".into(),
        }
    }
}
