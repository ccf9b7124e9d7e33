//! Meta instances as values: the properties of a meta class, written or
//! defaulted, through their contracts.

use std::collections::HashMap;
use std::sync::Arc;

use murano_dsl::contract::{Contract, MemoryHost, Runtime, Scope};
use murano_dsl::registry::MetaInstance;
use murano_yaml::convert::{self, ToYaql};
use murano_yaml::{Int, Node, Value as YamlValue};
use murano_yaql::eval::Value as YValue;
use serde_json::{Map, Value as Json};

use crate::{Catalog, SchemaError};

/// A YAML value as YAQL data (expressions as their text), with
/// [`ToYaql::schema_meta`] rules.
pub(crate) fn yaml_to_yaql(node: &Node) -> YValue {
    // `schema_meta()` refuses nothing, so the error arm is never taken.
    convert::to_yaql(node, &ToYaql::schema_meta()).unwrap_or(YValue::Null)
}

/// A YAML value as the oracle's JSON: expressions tagged `{"$yaql": text}`,
/// mappings with non-string keys as `{"$map": [[k, v], …]}`.
pub(crate) fn yaml_to_json(node: &Node) -> Json {
    match &node.value {
        YamlValue::Null => Json::Null,
        YamlValue::Bool(b) => Json::Bool(*b),
        YamlValue::Int(Int::Small(n)) => Json::from(*n),
        YamlValue::Int(Int::Big(s)) => s
            .parse::<serde_json::Number>()
            .map_or_else(|_| Json::String(s.clone()), Json::Number),
        YamlValue::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
        YamlValue::Str(s) => Json::String(s.clone()),
        YamlValue::Yaql(y) => {
            let mut m = Map::new();
            m.insert("$yaql".into(), Json::String(y.text().to_owned()));
            Json::Object(m)
        }
        YamlValue::Seq(items) | YamlValue::Set(items) => {
            Json::Array(items.iter().map(yaml_to_json).collect())
        }
        YamlValue::Pairs(pairs) => Json::Array(
            pairs
                .iter()
                .map(|(k, v)| Json::Array(vec![yaml_to_json(k), yaml_to_json(v)]))
                .collect(),
        ),
        YamlValue::Map(pairs) => {
            if pairs
                .iter()
                .all(|(k, _)| matches!(k.value, YamlValue::Str(_)))
            {
                Json::Object(
                    pairs
                        .iter()
                        .map(|(k, v)| (k.value.python_str(), yaml_to_json(v)))
                        .collect(),
                )
            } else {
                let mut m = Map::new();
                m.insert(
                    "$map".into(),
                    Json::Array(
                        pairs
                            .iter()
                            .map(|(k, v)| Json::Array(vec![yaml_to_json(k), yaml_to_json(v)]))
                            .collect(),
                    ),
                );
                Json::Object(m)
            }
        }
        other => Json::String(other.python_str()),
    }
}

/// The property values of a meta instance, as Murano's meta object holds
/// them: each property of the meta class, written or defaulted, through
/// its contract.
pub(crate) fn meta_values(
    catalog: &Catalog,
    instance: &MetaInstance<'_>,
) -> Result<HashMap<String, YValue>, SchemaError> {
    let registry = catalog.registry();
    let meta_class = instance.attachment.meta_class;
    let class_name = registry.class_name(meta_class).unwrap_or("?").to_owned();
    let written: Vec<(String, &Node)> = match &instance.attachment.properties {
        Some(Node {
            value: YamlValue::Map(pairs),
            ..
        }) => pairs
            .iter()
            .map(|(k, v)| (k.value.python_str(), v))
            .collect(),
        _ => Vec::new(),
    };
    let runtime = registry
        .package_of(meta_class)
        .map_or((1, 0), |p| catalog.runtime(p));
    let raw: Vec<(YValue, YValue)> = written
        .iter()
        .map(|(k, v)| (YValue::str(k), yaml_to_yaql(v)))
        .collect();
    let context = Runtime::new(runtime.0, runtime.1)
        .root_context()
        .child()
        .with("$", YValue::dict(raw));
    let scope = Scope::new(
        Arc::new(Runtime::new(runtime.0, runtime.1)),
        Arc::new(MemoryHost::new()),
    )
    .with_context(context);
    let mut out = HashMap::new();
    let mut chain = vec![meta_class];
    chain.extend(registry.ancestors(meta_class).unwrap_or_default());
    for class in chain {
        let Some(def) = registry.definition(class) else {
            continue;
        };
        for property in &def.properties {
            if out.contains_key(&property.name) {
                continue;
            }
            let written_node = written
                .iter()
                .find(|(k, _)| *k == property.name)
                .map(|(_, v)| *v);
            let given = written_node.map(yaml_to_yaql);
            let value = match &property.contract {
                Some(node) => {
                    let contract = Contract::from_node(node).map_err(|e| {
                        SchemaError::new(e.python_type(), e.message.clone()).at_mark(node.start)
                    })?;
                    // A value that breaks the contract is reported where it
                    // is written; a failing default, at the contract.
                    let at = written_node.map_or(node.start, |v| v.start);
                    contract
                        .transform(&scope, given.as_ref(), property.default.as_ref())
                        .map(|t| t.value)
                        .map_err(|e| {
                            SchemaError::new(
                                e.python_type(),
                                format!("[{class_name}.{}{}] {}", property.name, e.path, e.message),
                            )
                            .at_mark(at)
                        })?
                }
                None => given.unwrap_or(YValue::Null),
            };
            out.insert(property.name.clone(), value);
        }
    }
    Ok(out)
}
