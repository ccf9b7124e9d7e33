//! The data a template is made of, as Python holds it after Heat's loader:
//! with Python's `str()`, `repr()` and `json.dumps` renderings, which show
//! through in Heat's messages.

use std::fmt::Write as _;

use murano_yaql::python_float_repr;

/// A loaded value (a Python object built by `json.loads` or Heat's YAML
/// loader).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `None`.
    Null,
    /// `True` / `False`.
    Bool(bool),
    /// An integer that fits in 64 bits.
    Int(i64),
    /// A larger integer, as decimal digits (with an optional `-`).
    BigInt(String),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// Bytes (`!!binary`).
    Bytes(Vec<u8>),
    /// A list.
    List(Vec<Value>),
    /// A dict, in insertion order, keys unique.
    Map(Vec<(Value, Value)>),
}

impl Value {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The entries, if this is a dict.
    pub fn as_map(&self) -> Option<&[(Value, Value)]> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The value under string key `key`, if this is a dict.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(n) => *n != 0,
            Value::BigInt(_) => true,
            Value::Float(x) => *x != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            Value::List(v) => !v.is_empty(),
            Value::Map(m) => !m.is_empty(),
        }
    }

    /// Whether Python's `isinstance(x, numbers.Number)` holds (bool is an
    /// int in Python).
    pub fn is_number(&self) -> bool {
        matches!(
            self,
            Value::Bool(_) | Value::Int(_) | Value::BigInt(_) | Value::Float(_)
        )
    }

    /// The numeric value as f64, for numbers.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            Value::Int(n) => Some(*n as f64),
            Value::BigInt(s) => s.parse().ok(),
            Value::Float(x) => Some(*x),
            _ => None,
        }
    }

    /// Python's type name (`type(x).__name__`).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::BigInt(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::List(_) => "list",
            Value::Map(_) => "dict",
        }
    }

    /// Python's `str(x)`.
    pub fn py_str(&self) -> String {
        match self {
            Value::Str(s) => s.clone(),
            _ => self.py_repr(),
        }
    }

    /// Python's `repr(x)`.
    pub fn py_repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    fn write_repr(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("None"),
            Value::Bool(true) => out.push_str("True"),
            Value::Bool(false) => out.push_str("False"),
            Value::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Value::BigInt(s) => out.push_str(s),
            Value::Float(x) => out.push_str(&python_float_repr(*x)),
            Value::Str(s) => out.push_str(&murano_yaml::py_text::repr(s)),
            Value::Bytes(b) => {
                out.push_str("b'");
                for &c in b {
                    match c {
                        b'\\' => out.push_str("\\\\"),
                        b'\'' => out.push_str("\\'"),
                        b'\n' => out.push_str("\\n"),
                        b'\r' => out.push_str("\\r"),
                        b'\t' => out.push_str("\\t"),
                        0x20..=0x7e => out.push(c as char),
                        _ => {
                            let _ = write!(out, "\\x{c:02x}");
                        }
                    }
                }
                out.push('\'');
            }
            Value::List(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.write_repr(out);
                }
                out.push(']');
            }
            Value::Map(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_repr(out);
                    out.push_str(": ");
                    v.write_repr(out);
                }
                out.push('}');
            }
        }
    }

    /// Python's `json.dumps(x)` (default separators, `ensure_ascii`);
    /// `None` when json cannot encode the value (bytes, non-string keys
    /// other than numbers, booleans and None).
    pub fn json_dumps(&self) -> Option<String> {
        let mut out = String::new();
        self.write_json(&mut out, ", ", ": ")?;
        Some(out)
    }

    /// `json.dumps(x, separators=(',', ':'))`-like compact form with the
    /// given separators.
    pub(crate) fn write_json(&self, out: &mut String, item: &str, kv: &str) -> Option<()> {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(true) => out.push_str("true"),
            Value::Bool(false) => out.push_str("false"),
            Value::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Value::BigInt(s) => out.push_str(s),
            Value::Float(x) => out.push_str(&json_float(*x)),
            Value::Str(s) => json_str(s, out),
            Value::Bytes(_) => return None,
            Value::List(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(item);
                    }
                    v.write_json(out, item, kv)?;
                }
                out.push(']');
            }
            Value::Map(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(item);
                    }
                    let key = match k {
                        Value::Str(s) => s.clone(),
                        Value::Null => "null".into(),
                        Value::Bool(b) => b.to_string(),
                        Value::Int(n) => n.to_string(),
                        Value::BigInt(s) => s.clone(),
                        Value::Float(x) => json_float(*x),
                        _ => return None,
                    };
                    json_str(&key, out);
                    out.push_str(kv);
                    v.write_json(out, item, kv)?;
                }
                out.push('}');
            }
        }
        Some(())
    }

    /// The conformance data's JSON encoding of a value (see the module
    /// docs of the harness): tagged forms for what JSON cannot hold.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(n) => J::from(*n),
            Value::BigInt(s) => s
                .parse::<serde_json::Number>()
                .map(J::Number)
                .unwrap_or_else(|_| J::String(s.clone())),
            Value::Float(x) => {
                if x.is_nan() {
                    tagged("$float", "nan")
                } else if x.is_infinite() {
                    tagged("$float", if *x > 0.0 { "inf" } else { "-inf" })
                } else {
                    serde_json::Number::from_f64(*x)
                        .map(J::Number)
                        .unwrap_or(J::Null)
                }
            }
            Value::Str(s) => J::String(s.clone()),
            Value::Bytes(b) => tagged("$bytes", &murano_yaml::base64::encode(b)),
            Value::List(items) => J::Array(items.iter().map(Value::to_json).collect()),
            Value::Map(entries) => {
                if entries.iter().all(|(k, _)| matches!(k, Value::Str(_))) {
                    let mut m = serde_json::Map::new();
                    for (k, v) in entries {
                        m.insert(k.as_str().unwrap_or_default().to_owned(), v.to_json());
                    }
                    J::Object(m)
                } else {
                    let pairs = entries
                        .iter()
                        .map(|(k, v)| J::Array(vec![k.to_json(), v.to_json()]))
                        .collect();
                    let mut m = serde_json::Map::new();
                    m.insert("$map".into(), J::Array(pairs));
                    J::Object(m)
                }
            }
        }
    }

    /// A value from plain JSON (as an API client sends parameter values).
    pub fn from_json(j: &serde_json::Value) -> Value {
        use serde_json::Value as J;
        match j {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Value::Int(i)
                } else if n.is_u64() {
                    Value::BigInt(n.to_string())
                } else {
                    Value::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            J::String(s) => Value::Str(s.clone()),
            J::Array(a) => Value::List(a.iter().map(Value::from_json).collect()),
            J::Object(o) => Value::Map(
                o.iter()
                    .map(|(k, v)| (Value::Str(k.clone()), Value::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// Python equality (`1 == 1.0 == True`).
    pub fn py_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Str(a), Value::Str(b)) => a == b,
            (a, b) if a.is_number() && b.is_number() => match (a, b) {
                (Value::BigInt(x), Value::BigInt(y)) => x == y,
                _ => a.as_f64() == b.as_f64(),
            },
            (Value::Null, Value::Null) => true,
            (Value::Bytes(a), Value::Bytes(b)) => a == b,
            (Value::List(a), Value::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.py_eq(y))
            }
            (Value::Map(a), Value::Map(b)) => {
                a.len() == b.len()
                    && a.iter().all(|(k, v)| {
                        b.iter()
                            .find(|(k2, _)| k2.py_eq(k))
                            .is_some_and(|(_, v2)| v2.py_eq(v))
                    })
            }
            _ => false,
        }
    }
}

fn tagged(tag: &str, text: &str) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert(tag.into(), serde_json::Value::String(text.into()));
    serde_json::Value::Object(m)
}

/// Python's `json.dumps` of a float.
pub(crate) fn json_float(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        python_float_repr(x)
    }
}

/// Python's `json.dumps` of a string (`ensure_ascii=True`).
pub(crate) fn json_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reprs_are_pythons() {
        let v = Value::Map(vec![(
            Value::Str("a".into()),
            Value::List(vec![
                Value::Int(1),
                Value::Float(2.0),
                Value::Null,
                Value::Bool(true),
            ]),
        )]);
        assert_eq!(v.py_str(), "{'a': [1, 2.0, None, True]}");
        assert_eq!(v.json_dumps().unwrap(), "{\"a\": [1, 2.0, null, true]}");
        assert_eq!(Value::Str("é".into()).json_dumps().unwrap(), "\"\\u00e9\"");
        assert_eq!(murano_yaml::base64::encode(b"ab"), "YWI=");
    }
}
