//! Murano's `dsl.to_mutable` on the arguments of native methods
//! (`yaql_integration`'s native stubs): the frozen values of MuranoPL
//! (tuples) reach the host as lists, so a host comparing or merging them
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
}
