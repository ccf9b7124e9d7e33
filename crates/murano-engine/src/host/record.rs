//! What a session of the system classes did, as JSON (the deploy oracle's
//! encoding, README §3.6 and §5).

use murano_yaql::eval::Value;
use serde_json::{json, Map, Value as Json};

use crate::Engine;

/// Everything the system classes did in one session, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recording {
    /// Host calls in call-start order: `{class, method, receiver, args,
    /// kwargs, result}` (or `raised: {type, message}` instead of
    /// `result`).
    pub host_calls: Vec<Json>,
    /// Heat operations: `{op, stack, region, template, parameters, files,
    /// environment, tags, call_index}`.
    pub heat: Vec<Json>,
    /// Agent plans sent: `{queue, host, wait_results, timeout, plan,
    /// call_index}`.
    pub agent_plans: Vec<Json>,
    /// Status reports and instance notifications.
    pub reports: Vec<Json>,
}

/// Most records of each kind one session keeps (later ones are dropped
/// and counted in `truncated`).
pub(crate) const MAX_RECORDS: usize = 100_000;

impl Recording {
    /// The index of the last host call started (for `call_index`).
    pub(crate) fn last_call(&self) -> Option<usize> {
        self.host_calls.len().checked_sub(1)
    }
}

/// Most nesting the encoder follows (deeper values are written as
/// `{"$repr": "deep"}`).
const MAX_DEPTH: usize = 200;

/// Longest value encoded, as the length of its text: a value that shares
/// one big string or list is small in memory and can be exponentially
/// long expanded, so a longer one (or one nested deeper than yaql
/// prints) is written as `{"$repr": "too large"}`.
pub const MAX_ENCODED_TEXT: usize = 16 << 20;

/// A value as the oracle encodes host-call arguments and results:
/// scalars as they are, sequences as arrays, dicts as objects, sets
/// sorted, MuranoPL objects as `{"$object": id, "type": class}`, classes
/// as `{"$type": name}`, anything else as `{"$repr": type}`; a value whose
/// text passes [`MAX_ENCODED_TEXT`] as `{"$repr": "too large"}`.
pub fn encode(engine: &Engine, value: &Value) -> Json {
    let collection = matches!(
        value,
        Value::List(_) | Value::Tuple(_) | Value::Set(_) | Value::Dict(_)
    );
    // Measured first (each shared part once): expanding is what costs.
    if collection && value.check_printed_len(MAX_ENCODED_TEXT).is_err() {
        return json!({"$repr": "too large"});
    }
    encode_at(engine, value, 0)
}

fn encode_at(engine: &Engine, value: &Value, depth: usize) -> Json {
    if depth > MAX_DEPTH {
        return json!({"$repr": "deep"});
    }
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(n) => Json::from(*n),
        Value::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
        Value::Str(s) => Json::String(s.to_string()),
        Value::List(items) | Value::Tuple(items) => Json::Array(
            items
                .iter()
                .map(|v| encode_at(engine, v, depth + 1))
                .collect(),
        ),
        Value::Set(items) => {
            let mut out: Vec<Json> = items
                .iter()
                .map(|v| encode_at(engine, v, depth + 1))
                .collect();
            out.sort_by_key(|a| a.to_string());
            Json::Array(out)
        }
        Value::Dict(d) => {
            let mut m = Map::new();
            for (k, v) in d.iter() {
                let key = match k {
                    Value::Str(s) => s.to_string(),
                    other => other.py_str(),
                };
                m.insert(key, encode_at(engine, v, depth + 1));
            }
            Json::Object(m)
        }
        other => {
            if let Some(view) = engine.object_view(other) {
                return json!({"$object": view.id, "type": view.class});
            }
            if let Some((name, _)) = engine.type_view(other) {
                return json!({"$type": name});
            }
            json!({"$repr": other.type_name()})
        }
    }
}

/// JSON back to a value (plans, templates): arrays as lists.
pub fn decode(json: &Json) -> Value {
    murano_dsl::yaml::convert::from_json(json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn encoding_stops_at_its_depth_limit() {
        let engine = Engine::new(
            Arc::new(crate::ClassSetBuilder::new().build()),
            crate::Limits::default(),
            Vec::new(),
        );
        let mut v = Value::Int(1);
        for _ in 0..(MAX_DEPTH + 10) {
            v = Value::List(Arc::new(vec![v]));
        }
        let mut j = &encode(&engine, &v);
        let mut depth = 0;
        while let Json::Array(a) = j {
            j = &a[0];
            depth += 1;
        }
        assert_eq!(depth, MAX_DEPTH + 1);
        assert_eq!(j, &json!({"$repr": "deep"}));
    }

    #[test]
    fn values_too_long_as_text_are_not_expanded() {
        let engine = Engine::new(
            Arc::new(crate::ClassSetBuilder::new().build()),
            crate::Limits::default(),
            Vec::new(),
        );
        // 2^40 items as text, a few bytes in memory.
        let mut v = Value::Int(1);
        for _ in 0..40 {
            v = Value::List(Arc::new(vec![v.clone(), v]));
        }
        assert_eq!(encode(&engine, &v), json!({"$repr": "too large"}));
        let big = Value::str(&"x".repeat(1 << 20));
        let wide = Value::List(Arc::new(vec![big; 17]));
        assert_eq!(encode(&engine, &wide), json!({"$repr": "too large"}));
        let fits = Value::List(Arc::new(vec![Value::Int(1), Value::Int(2)]));
        assert_eq!(encode(&engine, &fits), json!([1, 2]));
    }

    #[test]
    fn sets_are_sorted_and_dict_keys_are_text() {
        let engine = Engine::new(
            Arc::new(crate::ClassSetBuilder::new().build()),
            crate::Limits::default(),
            Vec::new(),
        );
        let set: murano_yaql::eval::Set = [Value::str("b"), Value::str("a")].into_iter().collect();
        assert_eq!(
            encode(&engine, &Value::Set(Arc::new(set))),
            json!(["a", "b"])
        );
        let d = Value::dict([(Value::Int(1), Value::Null)]);
        assert_eq!(encode(&engine, &d), json!({"1": null}));
    }
}
