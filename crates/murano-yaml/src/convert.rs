//! The one conversion between loaded YAML, YAQL values and JSON.
//!
//! Three directions, one function each: [`to_yaql`] (a YAML node as YAQL
//! data), [`to_json`] (a YAQL value as JSON) and [`from_json`] (JSON as
//! YAQL data). Their callers differ in a few real ways, and each way is an
//! option with a name rather than a copy of the function:
//!
//! | option | contracts | UI forms | JSON schema | `murano yaql --data` |
//! | --- | --- | --- | --- | --- |
//! | [`ToYaql::sequences`] | list | list | tuple | list |
//! | [`ToYaql::sets`] | set | list | tuple | list |
//! | [`ToYaql::pairs`] | dict | dict | dict | list of pairs |
//! | [`ToYaql::big_ints`] | refused | text | text | text |
//! | [`ToYaql::opaque`] | refused | `str()` | `str()` | `str()` |
//!
//! Contracts are strict because Murano's contract scalars are Python data
//! that the engine compares with values: an integer beyond 64 bits, binary
//! data or a recursive alias there is refused with a typed error rather
//! than compared as text. `murano yaql --data` hands `!!pairs` and
//! `!!omap` over as PyYAML builds them: a list of `(key, value)` pairs.
//!
//! ```
//! use murano_yaml::convert::{self, ToJson, ToYaql};
//! use murano_yaml::{load_ui_file, LoadOptions};
//!
//! let node = load_ui_file(b"a: [1, 2]\nb: !!set {x}\n", &LoadOptions::default())?.unwrap();
//! let value = convert::to_yaql(&node, &ToYaql::forms()).unwrap();
//! let json = convert::to_json(&value, &ToJson::default());
//! assert_eq!(json.to_string(), r#"{"a":[1,2],"b":["x"]}"#);
//! # Ok::<(), murano_yaml::YamlError>(())
//! ```

use std::sync::Arc;

use murano_yaql::eval::{Dict, Value};
use serde_json::Value as Json;

use crate::{Int, Mark, Node, Value as Yaml};

/// How YAML sequences (or sets) become YAQL collections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Collection {
    /// A list.
    List,
    /// A tuple (what yaql's input conversion makes of Python sequences).
    Tuple,
    /// A set (only meaningful for `!!set`).
    Set,
}

/// How `!!pairs` and `!!omap` become YAQL data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Pairs {
    /// A dictionary (later keys win, as in a mapping).
    Dict,
    /// A list of two-element lists, as PyYAML builds them (a list of
    /// tuples).
    List,
}

/// What to do with a value that has no faithful YAQL form: an integer
/// beyond 64 bits ([`ToYaql::big_ints`]), binary data or a recursive alias
/// ([`ToYaql::opaque`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unsupported {
    /// Python's `str()` of the value (an integer's digits).
    Text,
    /// A [`ConvertError`].
    Refuse,
}

/// Options of [`to_yaql`]. The constructors name the callers whose rules
/// they follow; the fields say what differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToYaql {
    /// What sequences become.
    pub sequences: Collection,
    /// What `!!set` becomes.
    pub sets: Collection,
    /// What `!!pairs` and `!!omap` become.
    pub pairs: Pairs,
    /// Integers beyond 64 bits.
    pub big_ints: Unsupported,
    /// Binary data and recursive aliases.
    pub opaque: Unsupported,
}

impl ToYaql {
    /// Contract scalars: lists, sets and dicts; anything without a faithful
    /// YAQL form is refused.
    pub const fn contracts() -> Self {
        ToYaql {
            sequences: Collection::List,
            sets: Collection::Set,
            pairs: Pairs::Dict,
            big_ints: Unsupported::Refuse,
            opaque: Unsupported::Refuse,
        }
    }

    /// Dynamic UI data: sequences and sets as lists, the rest as text.
    pub const fn forms() -> Self {
        ToYaql {
            sequences: Collection::List,
            sets: Collection::List,
            pairs: Pairs::Dict,
            big_ints: Unsupported::Text,
            opaque: Unsupported::Text,
        }
    }

    /// Class metadata read by the JSON-schema generator: sequences and sets
    /// as tuples (immutable, as yaql's input conversion makes them).
    pub const fn schema_meta() -> Self {
        ToYaql {
            sequences: Collection::Tuple,
            sets: Collection::Tuple,
            pairs: Pairs::Dict,
            big_ints: Unsupported::Text,
            opaque: Unsupported::Text,
        }
    }

    /// Data handed to a YAQL expression from a YAML or JSON file: as
    /// [`ToYaql::forms`], but ordered pairs stay a list of pairs.
    pub const fn data() -> Self {
        ToYaql {
            pairs: Pairs::List,
            ..ToYaql::forms()
        }
    }
}

impl Default for ToYaql {
    /// [`ToYaql::forms`].
    fn default() -> Self {
        ToYaql::forms()
    }
}

/// A YAML value [`to_yaql`] was told to refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError {
    /// What was refused (`"an integer beyond 64 bits"`).
    pub what: &'static str,
    /// Where the refused value starts.
    pub mark: Mark,
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is not supported here (at {})", self.what, self.mark)
    }
}

impl std::error::Error for ConvertError {}

/// A YAML node as YAQL data. Expressions become their text; dates and
/// timestamps their ISO text.
pub fn to_yaql(node: &Node, options: &ToYaql) -> Result<Value, ConvertError> {
    let refuse = |what: &'static str| ConvertError {
        what,
        mark: node.start,
    };
    let collection = |items: &[Node], kind: Collection| -> Result<Value, ConvertError> {
        let items = items
            .iter()
            .map(|item| to_yaql(item, options))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(match kind {
            Collection::List => Value::List(Arc::new(items)),
            Collection::Tuple => Value::tuple(items),
            Collection::Set => Value::Set(Arc::new(items.into_iter().collect())),
        })
    };
    Ok(match &node.value {
        Yaml::Null => Value::Null,
        Yaml::Bool(b) => Value::Bool(*b),
        Yaml::Int(Int::Small(n)) => Value::Int(*n),
        Yaml::Int(Int::Big(digits)) => match options.big_ints {
            Unsupported::Text => Value::str(digits),
            Unsupported::Refuse => return Err(refuse("an integer beyond 64 bits")),
        },
        Yaml::Float(f) => Value::Float(*f),
        Yaml::Str(s) => Value::str(s),
        Yaml::Yaql(y) => Value::str(y.text()),
        Yaml::Date(d) => Value::str(&d.to_string()),
        Yaml::Timestamp(t) => Value::str(&t.to_string()),
        Yaml::Seq(items) => collection(items, options.sequences)?,
        Yaml::Set(items) => collection(items, options.sets)?,
        Yaml::Pairs(pairs) if options.pairs == Pairs::List => Value::List(Arc::new(
            pairs
                .iter()
                .map(|(k, v)| {
                    Ok(Value::List(Arc::new(vec![
                        to_yaql(k, options)?,
                        to_yaql(v, options)?,
                    ])))
                })
                .collect::<Result<Vec<_>, ConvertError>>()?,
        )),
        Yaml::Map(pairs) | Yaml::Pairs(pairs) => {
            let mut out = Dict::default();
            for (k, v) in pairs {
                out.insert(to_yaql(k, options)?, to_yaql(v, options)?);
            }
            Value::Dict(Arc::new(out))
        }
        Yaml::Binary(_) | Yaml::Recursive => match options.opaque {
            Unsupported::Text => Value::str(&node.value.python_str()),
            Unsupported::Refuse => {
                return Err(refuse(if matches!(node.value, Yaml::Binary(_)) {
                    "binary data"
                } else {
                    "a recursive alias"
                }))
            }
        },
    })
}

/// How floats JSON cannot hold (infinities, NaN) are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NonFinite {
    /// `null`.
    Null,
    /// Python's `repr()` as a string (`"inf"`, `"nan"`).
    Text,
}

/// Options of [`to_json`].
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ToJson {
    /// Write tuples as `{"tuple": [...]}` (the dashboard's object-model
    /// oracle tells tuples from lists that way); otherwise as arrays.
    pub tag_tuples: bool,
    /// Infinities and NaN.
    pub non_finite: NonFinite,
    /// The text of a value JSON cannot hold (a host object, a function),
    /// when the host has one (the dashboard's object ids); otherwise
    /// Python's `str()`. Used for such values and such dictionary keys.
    pub host_text: Option<fn(&Value) -> Option<String>>,
}

impl Default for ToJson {
    /// Plain arrays for tuples, `null` for non-finite floats, no host
    /// texts.
    fn default() -> Self {
        ToJson {
            tag_tuples: false,
            non_finite: NonFinite::Null,
            host_text: None,
        }
    }
}

impl ToJson {
    /// Sets [`ToJson::tag_tuples`].
    pub fn with_tagged_tuples(mut self, tag_tuples: bool) -> Self {
        self.tag_tuples = tag_tuples;
        self
    }

    /// Sets [`ToJson::non_finite`].
    pub fn with_non_finite(mut self, non_finite: NonFinite) -> Self {
        self.non_finite = non_finite;
        self
    }

    /// Sets [`ToJson::host_text`].
    pub fn with_host_text(mut self, host_text: fn(&Value) -> Option<String>) -> Self {
        self.host_text = Some(host_text);
        self
    }

    fn opaque_text(&self, value: &Value) -> String {
        self.host_text
            .and_then(|text| text(value))
            .unwrap_or_else(|| value.py_str())
    }

    /// A dictionary key as Python's `json.dumps` writes it: strings as
    /// they are, `null`, `true`/`false`, numbers as their `repr()`.
    fn key(&self, key: &Value) -> String {
        match key {
            Value::Str(s) => s.to_string(),
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(n) => n.to_string(),
            Value::Float(f) => murano_yaql::python_float_repr(*f),
            other => self.opaque_text(other),
        }
    }
}

/// A YAQL value as JSON: lists, tuples and sets as arrays, dictionaries as
/// objects (keys as `json.dumps` writes them), anything else as text.
pub fn to_json(value: &Value, options: &ToJson) -> Json {
    let array = |items: &mut dyn Iterator<Item = &Value>| {
        Json::Array(items.map(|item| to_json(item, options)).collect())
    };
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(n) => Json::from(*n),
        Value::Float(f) => match serde_json::Number::from_f64(*f) {
            Some(n) => Json::Number(n),
            None if options.non_finite == NonFinite::Null => Json::Null,
            None => Json::String(value.py_str()),
        },
        Value::Str(s) => Json::String(s.to_string()),
        Value::List(items) => array(&mut items.iter()),
        Value::Tuple(items) if options.tag_tuples => {
            let mut tagged = serde_json::Map::new();
            tagged.insert("tuple".into(), array(&mut items.iter()));
            Json::Object(tagged)
        }
        Value::Tuple(items) => array(&mut items.iter()),
        Value::Set(items) => array(&mut items.iter()),
        Value::Dict(d) => Json::Object(
            d.iter()
                .map(|(k, v)| (options.key(k), to_json(v, options)))
                .collect(),
        ),
        other => Json::String(options.opaque_text(other)),
    }
}

/// JSON as YAQL data: arrays as lists, objects as dictionaries, integers
/// that fit 64 bits as integers and other numbers as floats.
pub fn from_json(value: &Json) -> Value {
    match value {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => n
            .as_i64()
            .map(Value::Int)
            .unwrap_or_else(|| Value::Float(n.as_f64().unwrap_or(0.0))),
        Json::String(s) => Value::str(s),
        Json::Array(items) => Value::List(Arc::new(items.iter().map(from_json).collect())),
        Json::Object(m) => Value::dict(m.iter().map(|(k, x)| (Value::str(k), from_json(x)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{load_manifest, LoadOptions};

    fn node(text: &str) -> Node {
        load_manifest(text, &LoadOptions::default())
            .unwrap()
            .unwrap()
    }

    fn json(text: &str, options: &ToYaql) -> String {
        to_json(&to_yaql(&node(text), options).unwrap(), &ToJson::default()).to_string()
    }

    #[test]
    fn each_option_names_a_real_difference() {
        let set = "!!set {a}";
        assert!(matches!(
            to_yaql(&node(set), &ToYaql::contracts()),
            Ok(Value::Set(_))
        ));
        assert!(matches!(
            to_yaql(&node(set), &ToYaql::forms()),
            Ok(Value::List(_))
        ));
        assert!(matches!(
            to_yaql(&node(set), &ToYaql::schema_meta()),
            Ok(Value::Tuple(_))
        ));

        let pairs = "!!pairs [a: 1, b: 2]";
        assert_eq!(json(pairs, &ToYaql::forms()), r#"{"a":1,"b":2}"#);
        assert_eq!(json(pairs, &ToYaql::data()), r#"[["a",1],["b",2]]"#);

        let big = "123456789012345678901234567890";
        assert_eq!(json(big, &ToYaql::forms()), format!("\"{big}\""));
        let err = to_yaql(&node(big), &ToYaql::contracts()).unwrap_err();
        assert_eq!(err.what, "an integer beyond 64 bits");
        assert!(to_yaql(&node("!!binary aGk="), &ToYaql::contracts()).is_err());
        assert!(to_yaql(&node("!!binary aGk="), &ToYaql::forms()).is_ok());
    }

    #[test]
    fn json_keys_and_floats_as_python_json_writes_them() {
        let value = to_yaql(
            &node("{null: 1, true: 2, 1.5: 3, 4: .inf}"),
            &ToYaql::forms(),
        )
        .unwrap();
        assert_eq!(
            to_json(&value, &ToJson::default()).to_string(),
            r#"{"null":1,"true":2,"1.5":3,"4":null}"#
        );
        assert_eq!(
            to_json(&value, &ToJson::default().with_non_finite(NonFinite::Text)).to_string(),
            r#"{"null":1,"true":2,"1.5":3,"4":"inf"}"#
        );
    }

    #[test]
    fn tuples_tagged_on_request_and_json_reads_back() {
        let tuple = Value::tuple(vec![Value::Int(1)]);
        assert_eq!(to_json(&tuple, &ToJson::default()).to_string(), "[1]");
        let tagged = ToJson::default().with_tagged_tuples(true);
        assert_eq!(to_json(&tuple, &tagged).to_string(), r#"{"tuple":[1]}"#);
        let back = from_json(&serde_json::json!({"a": [1, 2.5, "x", null, true]}));
        assert_eq!(
            to_json(&back, &ToJson::default()).to_string(),
            r#"{"a":[1,2.5,"x",null,true]}"#
        );
    }
}
