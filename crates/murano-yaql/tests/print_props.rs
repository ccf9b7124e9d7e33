//! Property: the bounded printers agree with the unbounded ones below
//! their limit and refuse above it, and output conversion of values that
//! share structure gives the same value as converting a copy that shares
//! nothing (item 2 of the hardening round: printing, `str()` and JSON of
//! shared-structure values).

use std::sync::Arc;

use murano_yaql::eval::{Context, Engine, ErrorKind, Library, Value};
use proptest::prelude::*;

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        any::<f64>().prop_map(Value::Float),
        "[a-z'\\\\\n]{0,6}".prop_map(|s| Value::str(&s)),
    ]
}

/// Values whose collections may share children (a child is used twice).
fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(6, 64, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::tuple),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| Value::List(Arc::new(v))),
            inner.clone().prop_map(|x| Value::tuple(vec![x.clone(), x])),
            prop::collection::vec(("[a-c]{1,2}", inner), 0..3)
                .prop_map(|kv| Value::dict(kv.into_iter().map(|(k, v)| (Value::str(&k), v)))),
        ]
    })
}

/// A copy that shares no collection with `v`.
fn deep_copy(v: &Value) -> Value {
    match v {
        Value::List(x) => Value::List(Arc::new(x.iter().map(deep_copy).collect())),
        Value::Tuple(x) => Value::tuple(x.iter().map(deep_copy).collect()),
        Value::Dict(d) => Value::dict(d.iter().map(|(k, x)| (deep_copy(k), deep_copy(x)))),
        other => other.clone(),
    }
}

proptest! {
    #[test]
    fn bounded_printers_agree_below_the_limit(v in value(), limit in 0usize..200) {
        let full = v.repr();
        match v.repr_within(limit) {
            Ok(text) => prop_assert_eq!(&text, &full),
            Err(e) => {
                prop_assert_eq!(e.kind(), ErrorKind::MemoryQuotaExceeded);
                prop_assert!(full.len() > limit);
            }
        }
        prop_assert_eq!(v.repr_within(usize::MAX).unwrap(), full.clone());
        let full_str = v.py_str();
        match v.py_str_within(limit) {
            Ok(text) => prop_assert_eq!(text, full_str),
            Err(_) => prop_assert!(full_str.len() > limit),
        }
        // The size check measures the text exactly (shared nodes once).
        prop_assert_eq!(v.check_printed_len(limit).is_err(), full.len() > limit);
    }

    #[test]
    fn output_conversion_ignores_sharing(v in value()) {
        let engine = Engine::standard();
        let ctx = Context::new(Arc::new(Library::standard(true))).with("$", v.clone());
        let query = engine.compile("$").unwrap();
        let shared = query.evaluate(&ctx);
        let ctx = Context::new(Arc::new(Library::standard(true))).with("$", deep_copy(&v));
        let copied = query.evaluate(&ctx);
        prop_assert_eq!(shared.map(|x| x.repr()), copied.map(|x| x.repr()));
    }
}
