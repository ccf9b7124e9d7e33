//! Frozen and mutable values. Murano freezes the result of every MuranoPL
//! expression (its `#finalize` is `helpers.evaluate(freeze=True)`: lists
//! become tuples), and thaws values where they leave MuranoPL
//! (`dsl.to_mutable` on the arguments of native methods and on results
//! given to Python callers): a host comparing or merging them
//! (`HeatStack.updateTemplate`'s `template == current`) sees lists only.

use std::sync::Arc;

use murano_yaql::eval::{Dict, Value};

/// Deepest nesting converted (deeper values are passed as they are).
const MAX_DEPTH: usize = 256;

/// `value` with every tuple, at any depth, made a list.
pub(crate) fn to_mutable(value: &Value) -> Value {
    convert(value, 0)
}

fn convert(value: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return value.clone();
    }
    match value {
        Value::Tuple(items) | Value::List(items) => {
            let out: Vec<Value> = items.iter().map(|v| convert(v, depth + 1)).collect();
            Value::List(Arc::new(out))
        }
        Value::Dict(d) => {
            let mut out = Dict::default();
            for (k, v) in d.iter() {
                out.insert(k.clone(), convert(v, depth + 1));
            }
            Value::Dict(Arc::new(out))
        }
        other => other.clone(),
    }
}

/// Murano's `#finalize` of every MuranoPL expression
/// (`helpers.evaluate(result, freeze=True)`): lists, at any depth, become
/// tuples.
pub(crate) fn freeze(value: &Value) -> Value {
    freeze_at(value, 0)
}

fn freeze_at(value: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return value.clone();
    }
    match value {
        Value::Tuple(items) | Value::List(items) => {
            Value::tuple(items.iter().map(|v| freeze_at(v, depth + 1)).collect())
        }
        Value::Dict(d) => {
            let mut out = Dict::default();
            for (k, v) in d.iter() {
                out.insert(freeze_at(k, depth + 1), freeze_at(v, depth + 1));
            }
            Value::Dict(Arc::new(out))
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_become_lists_at_any_depth() {
        let v = Value::dict([(
            Value::str("a"),
            Value::tuple(vec![Value::Int(1), Value::tuple(vec![Value::Int(2)])]),
        )]);
        let m = to_mutable(&v);
        assert_eq!(format!("{m:?}"), "{'a': [1, [2]]}");
        assert_ne!(m, v);
        assert_eq!(to_mutable(&Value::Int(3)), Value::Int(3));
    }

    #[test]
    fn freezing_makes_lists_tuples_and_back() {
        let v = Value::dict([(
            Value::str("a"),
            Value::List(Arc::new(vec![Value::str("demo")])),
        )]);
        let f = freeze(&v);
        assert_eq!(format!("{f:?}"), "{'a': ('demo',)}");
        assert_eq!(to_mutable(&f), v);
    }
}
