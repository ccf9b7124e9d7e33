//! `serde::Serialize` impls that a derive cannot give (feature `serde`).
//!
//! The rest of the model derives `Serialize` next to its definition; this
//! module holds what is written by hand: values serialized as their
//! canonical text (versions, specs, dates, paths, YAQL), JSON-like trees
//! serialized as the JSON they stand for, and types with private fields.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, SerializeStruct, Serializer};

use crate::contract::ListContract;
use crate::model::Namespaces;
use crate::object_model::{
    ClassRequest, Data, Map, Object, ObjectModel, Path, SystemData, TypeRef as ObjectTypeRef,
    Value as ObjectValue,
};
use crate::version::{Operator, SpecItem, Version, VersionNumber, VersionSpec};

/// Implements `Serialize` as the `Display` text.
macro_rules! serialize_as_text {
    ($($ty:ty),+ $(,)?) => {
        $(impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        })+
    };
}

// Versions and specs as their canonical text (`1.2.3-rc.1`,
// `<2.0.0,>=1.0.0`, `>=`), dates and timestamps in ISO 8601, paths as JSON
// pointers, object-model type strings as written.
serialize_as_text!(
    Version,
    VersionNumber,
    VersionSpec,
    Operator,
    SpecItem,
    Path,
    ObjectTypeRef,
);

/// Implements `Deserialize` through `FromStr` (the inverse of the text
/// above).
macro_rules! deserialize_from_text {
    ($($ty:ty),+ $(,)?) => {
        $(impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        })+
    };
}

deserialize_from_text!(Version, VersionSpec);

impl Serialize for Namespaces {
    /// A mapping from prefix to namespace, in declaration order.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.entries())
    }
}

impl Serialize for ListContract {
    /// `{"items": [...], "min_length": n, "max_length": n | null}`; `items`
    /// are the elements as written, trailing counts included.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("ListContract", 3)?;
        s.serialize_field("items", &self.items)?;
        s.serialize_field("min_length", &self.min_length())?;
        s.serialize_field("max_length", &self.max_length())?;
        s.end()
    }
}

/// A contract's scalar (a YAQL value built from YAML data) as the JSON it
/// stands for; values JSON cannot hold are written as their `repr()`.
pub(crate) fn yaql_value<S: Serializer>(
    value: &murano_yaql::eval::Value,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    YaqlValue(value).serialize(serializer)
}

struct YaqlValue<'a>(&'a murano_yaql::eval::Value);

impl Serialize for YaqlValue<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use murano_yaql::eval::Value;
        match self.0 {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Int(n) => serializer.serialize_i64(*n),
            Value::Float(x) => serializer.serialize_f64(*x),
            Value::Str(s) => serializer.serialize_str(s),
            Value::List(items) | Value::Tuple(items) => {
                serializer.collect_seq(items.iter().map(YaqlValue))
            }
            Value::Set(items) => serializer.collect_seq(items.iter().map(YaqlValue)),
            Value::Dict(dict) => {
                let mut map = serializer.serialize_map(Some(dict.len()))?;
                for (k, v) in dict.iter() {
                    match k {
                        Value::Str(s) => map.serialize_key(&**s)?,
                        other => map.serialize_key(&other.repr())?,
                    }
                    map.serialize_value(&YaqlValue(v))?;
                }
                map.end()
            }
            other => serializer.serialize_str(&other.repr()),
        }
    }
}

/// A mapping key as JSON text: strings as they are, other scalars as
/// `json.dumps` writes them as keys, expressions as their text.
fn key_text(key: &ObjectValue) -> std::borrow::Cow<'_, str> {
    match key {
        ObjectValue::Str(s) | ObjectValue::Yaql(s) => s.as_str().into(),
        other => other.to_string().into(),
    }
}

impl Serialize for ObjectValue {
    /// The JSON the value stands for. Integers beyond 64 bits are written
    /// as their decimal text, an unevaluated expression as its text.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ObjectValue::Null => serializer.serialize_unit(),
            ObjectValue::Bool(b) => serializer.serialize_bool(*b),
            ObjectValue::Int(crate::yaml::Int::Small(n)) => serializer.serialize_i64(*n),
            ObjectValue::Int(crate::yaml::Int::Big(digits)) => serializer.serialize_str(digits),
            ObjectValue::Float(x) => serializer.serialize_f64(*x),
            ObjectValue::Str(s) | ObjectValue::Yaql(s) => serializer.serialize_str(s),
            ObjectValue::List(items) => serializer.collect_seq(items),
            ObjectValue::Map(map) => map.serialize(serializer),
        }
    }
}

impl Serialize for Map {
    /// A JSON object, keys in order (non-string keys as their JSON text).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter().map(|(k, v)| (key_text(k), v)))
    }
}

impl Serialize for Data {
    /// The JSON the data stands for (objects with their `?` section).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Data::Scalar(value) => value.serialize(serializer),
            Data::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Data::Map(entries) => {
                serializer.collect_map(entries.iter().map(|(k, v)| (key_text(k), v)))
            }
            Data::Object(object) => object.serialize(serializer),
        }
    }
}

impl Serialize for Object {
    /// The object as written in the model: `?` and its properties, in
    /// order.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl Serialize for SystemData {
    /// The `?` section as written.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.entries().serialize(serializer)
    }
}

impl Serialize for ClassRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("ClassRequest", 3)?;
        s.serialize_field("name", &self.name)?;
        s.serialize_field("version_spec", &self.version_spec)?;
        s.serialize_field("package", &self.package)?;
        s.end()
    }
}

impl Serialize for ObjectModel {
    /// `{"kind", "root", "diagnostics"}`; `root` is the model's JSON.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("ObjectModel", 3)?;
        s.serialize_field("kind", &self.kind())?;
        s.serialize_field("root", self.root())?;
        s.serialize_field("diagnostics", self.diagnostics())?;
        s.end()
    }
}
