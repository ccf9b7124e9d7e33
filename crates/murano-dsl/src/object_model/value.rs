//! [`Value`] and [`Map`]: the JSON-like data an object model is written in.

use std::fmt;

use crate::yaml::Int;

/// A value of an object model as Murano receives it: what Python's
/// `json.loads` (or `yaml.safe_load`) produces, plus [`Value::Yaql`] for
/// the not yet evaluated expressions of a UI definition's templates.
///
/// Floats compare equal when both are NaN, so that a parsed value equals
/// itself after a round trip.
///
/// ```
/// use murano_dsl::object_model::{Map, Value};
///
/// let mut map = Map::new();
/// map.insert("name".into(), "web".into());
/// map.insert("port".into(), Value::from(80));
/// let value = Value::Map(map);
/// assert_eq!(value.get("port"), Some(&Value::from(80)));
/// assert_eq!(value.to_json()?, r#"{"name": "web", "port": 80}"#);
/// # Ok::<(), murano_dsl::object_model::ObjectModelError>(())
/// ```
#[derive(Debug, Clone)]
pub enum Value {
    /// `null` (Python's `None`).
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer (Python integers are unbounded).
    Int(Int),
    /// A float, NaN and infinities included (Python's `json` reads and
    /// writes them as `NaN`, `Infinity`, `-Infinity`).
    Float(f64),
    /// A string.
    Str(String),
    /// A YAQL expression that has not been evaluated, as found in a UI
    /// definition: its text. Never produced from JSON and never written
    /// to JSON.
    Yaql(String),
    /// A list.
    List(Vec<Value>),
    /// A mapping, in order.
    Map(Map),
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Value::Str(a), Value::Str(b)) | (Value::Yaql(a), Value::Yaql(b)) => a == b,
            (Value::List(a), Value::List(b)) => a == b,
            (Value::Map(a), Value::Map(b)) => a == b,
            _ => false,
        }
    }
}

impl Value {
    /// Python's truth value: `None`, `False`, `0`, `0.0`, `""`, `[]` and
    /// `{}` are false; expressions are true.
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(Int::Small(n)) => *n != 0,
            Value::Int(Int::Big(_)) | Value::Yaql(_) => true,
            Value::Float(x) => *x != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(items) => !items.is_empty(),
            Value::Map(map) => !map.is_empty(),
        }
    }

    /// Whether this is neither a list nor a mapping.
    pub fn is_scalar(&self) -> bool {
        !matches!(self, Value::List(_) | Value::Map(_))
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The mapping, if this is one.
    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(map) => Some(map),
            _ => None,
        }
    }

    /// The items, if this is a list.
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(items) => Some(items),
            _ => None,
        }
    }

    /// The value under string key `key`, if this is a mapping.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_map()?.get(key)
    }

    /// A short name of the kind of value, as Python names the type
    /// (`NoneType`, `bool`, `int`, `float`, `str`, `list`, `dict`;
    /// `yaql` for an expression).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Yaql(_) => "yaql",
            Value::List(_) => "list",
            Value::Map(_) => "dict",
        }
    }

    /// Whether Python would find the two dictionary keys equal: strings
    /// by text; `None` with itself; booleans, integers and floats by
    /// numeric value (`1`, `1.0` and `True` are one key). Expressions,
    /// lists and mappings are never equal keys.
    pub fn key_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Null, Value::Null) => true,
            _ => match (self.number(), other.number()) {
                (Some(a), Some(b)) => a.numeric_eq(&b),
                _ => false,
            },
        }
    }

    fn number(&self) -> Option<Number<'_>> {
        match self {
            Value::Bool(b) => Some(Number::Small(i64::from(*b))),
            Value::Int(Int::Small(n)) => Some(Number::Small(*n)),
            Value::Int(Int::Big(digits)) => Some(Number::Big(digits)),
            Value::Float(x) => Some(Number::Float(*x)),
            _ => None,
        }
    }

    /// Python's `str()` of a scalar as `json.dumps` writes it for a
    /// mapping key (`null`, `true`, `1`, `1.5`, `NaN`); `None` for what
    /// cannot be a JSON key.
    pub(crate) fn json_key_text(&self) -> Option<String> {
        match self {
            Value::Str(s) => Some(s.clone()),
            Value::Null => Some("null".to_owned()),
            Value::Bool(true) => Some("true".to_owned()),
            Value::Bool(false) => Some("false".to_owned()),
            Value::Int(i) => Some(i.to_string()),
            Value::Float(x) => Some(json_float(*x)),
            Value::Yaql(_) | Value::List(_) | Value::Map(_) => None,
        }
    }

    /// The text naming this key in a [`super::Path`]: the key text for
    /// JSON keys, the expression text for an expression.
    pub(crate) fn path_key_text(&self) -> String {
        match self {
            Value::Yaql(text) => text.clone(),
            other => other
                .json_key_text()
                .unwrap_or_else(|| other.type_name().to_owned()),
        }
    }
}

/// A float as Python's `json` writes it: `repr()`, with `NaN`, `Infinity`
/// and `-Infinity`.
pub(crate) fn json_float(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        murano_yaql::python_float_repr(x)
    }
}

enum Number<'a> {
    Small(i64),
    Big(&'a str),
    Float(f64),
}

impl Number<'_> {
    fn numeric_eq(&self, other: &Number<'_>) -> bool {
        match (self, other) {
            (Number::Small(a), Number::Small(b)) => a == b,
            (Number::Big(a), Number::Big(b)) => a == b,
            (Number::Float(a), Number::Float(b)) => a == b,
            (Number::Small(_), Number::Big(_)) | (Number::Big(_), Number::Small(_)) => false,
            (Number::Float(x), Number::Small(n)) | (Number::Small(n), Number::Float(x)) => {
                // Exact comparison, as Python compares int and float.
                if *x == 0.0 {
                    return *n == 0;
                }
                x.is_finite() && x.fract() == 0.0 && format!("{x:.0}") == n.to_string()
            }
            (Number::Float(x), Number::Big(digits)) | (Number::Big(digits), Number::Float(x)) => {
                x.is_finite() && x.fract() == 0.0 && format!("{x:.0}") == *digits
            }
        }
    }
}

impl From<&str> for Value {
    fn from(text: &str) -> Value {
        Value::Str(text.to_owned())
    }
}

impl From<String> for Value {
    fn from(text: String) -> Value {
        Value::Str(text)
    }
}

impl From<bool> for Value {
    fn from(value: bool) -> Value {
        Value::Bool(value)
    }
}

impl From<i64> for Value {
    fn from(value: i64) -> Value {
        Value::Int(Int::Small(value))
    }
}

impl From<f64> for Value {
    fn from(value: f64) -> Value {
        Value::Float(value)
    }
}

impl From<Map> for Value {
    fn from(map: Map) -> Value {
        Value::Map(map)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Value {
        Value::List(items)
    }
}

impl fmt::Display for Value {
    /// The JSON text (`json.dumps`), or a placeholder when the value has
    /// no JSON form (an expression shows as `<yaql: text>`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_json() {
            Ok(text) => f.write_str(&text),
            Err(_) => match self {
                Value::Yaql(text) => write!(f, "<yaql: {text}>"),
                other => write!(f, "<{}>", other.type_name()),
            },
        }
    }
}

/// A mapping that keeps its keys in insertion order, with Python's
/// dictionary rules: inserting a key that is already there replaces the
/// value in place (see [`Value::key_eq`]).
///
/// ```
/// use murano_dsl::object_model::{Map, Value};
///
/// let mut map = Map::new();
/// map.insert("b".into(), Value::from(1));
/// map.insert("a".into(), Value::from(2));
/// map.insert("b".into(), Value::from(3)); // stays first
/// let keys: Vec<_> = map.keys().filter_map(Value::as_str).collect();
/// assert_eq!(keys, ["b", "a"]);
/// assert_eq!(map.get("b"), Some(&Value::from(3)));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Map {
    entries: Vec<(Value, Value)>,
}

impl Map {
    /// An empty mapping.
    pub fn new() -> Map {
        Map::default()
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value under string key `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The value under `key`, keys compared as Python compares them.
    pub fn get_key(&self, key: &Value) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| k.key_eq(key))
            .map(|(_, v)| v)
    }

    /// Whether string key `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The position of string key `key`.
    pub fn position(&self, key: &str) -> Option<usize> {
        self.entries
            .iter()
            .position(|(k, _)| k.as_str() == Some(key))
    }

    /// Sets `key` to `value`: in place when the key is present (the old
    /// value is returned), at the end otherwise.
    pub fn insert(&mut self, key: Value, value: Value) -> Option<Value> {
        match self.entries.iter_mut().find(|(k, _)| k.key_eq(&key)) {
            Some((_, slot)) => Some(std::mem::replace(slot, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes string key `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let index = self.position(key)?;
        Some(self.entries.remove(index).1)
    }

    /// The entries in order.
    pub fn iter(&self) -> std::slice::Iter<'_, (Value, Value)> {
        self.entries.iter()
    }

    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &Value> {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in order.
    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The entries as a slice.
    pub fn as_slice(&self) -> &[(Value, Value)] {
        &self.entries
    }
}

impl FromIterator<(Value, Value)> for Map {
    /// Collects with [`Map::insert`]: a repeated key keeps its first
    /// position and its last value, as `dict(pairs)` does.
    fn from_iter<I: IntoIterator<Item = (Value, Value)>>(iter: I) -> Map {
        let mut map = Map::new();
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}

impl IntoIterator for Map {
    type Item = (Value, Value);
    type IntoIter = std::vec::IntoIter<(Value, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = &'a (Value, Value);
    type IntoIter = std::slice::Iter<'a, (Value, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truthiness_follows_python() {
        assert!(!Value::Null.is_truthy());
        assert!(!Value::from(0).is_truthy());
        assert!(!Value::from(-0.0).is_truthy());
        assert!(!Value::from("").is_truthy());
        assert!(!Value::List(vec![]).is_truthy());
        assert!(!Value::Map(Map::new()).is_truthy());
        assert!(Value::Int(Int::Big("100000000000000000000".into())).is_truthy());
        assert!(Value::Yaql("$.x".into()).is_truthy());
        assert!(Value::from(f64::NAN).is_truthy());
    }

    #[test]
    fn python_key_equality() {
        assert!(Value::from(1).key_eq(&Value::from(1.0)));
        assert!(Value::from(true).key_eq(&Value::from(1)));
        assert!(!Value::from(1).key_eq(&Value::from("1")));
        assert!(!Value::from(1.5).key_eq(&Value::from(1)));
        assert!(Value::from(-0.0).key_eq(&Value::from(0)));
        assert!(Value::from(false).key_eq(&Value::from(0.0)));
        assert!(Value::Int(Int::Big("10000000000000000000".into())).key_eq(&Value::from(1e19)));
        assert!(!Value::Yaql("$".into()).key_eq(&Value::Yaql("$".into())));
        assert!(!Value::from(f64::NAN).key_eq(&Value::from(f64::NAN)));
    }

    #[test]
    fn insert_replaces_in_place() {
        let mut map: Map = [
            (Value::from(1), Value::from("a")),
            (Value::from("x"), Value::from("b")),
            (Value::from(true), Value::from("c")),
        ]
        .into_iter()
        .collect();
        assert_eq!(map.len(), 2);
        assert_eq!(map.get_key(&Value::from(1.0)), Some(&Value::from("c")));
        assert_eq!(map.remove("x"), Some(Value::from("b")));
        assert_eq!(map.len(), 1);
    }

    #[test]
    fn nan_equals_itself() {
        assert_eq!(Value::from(f64::NAN), Value::from(f64::NAN));
        assert_ne!(Value::from(1), Value::from(1.0));
    }
}
