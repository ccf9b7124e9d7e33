//! Frozen and mutable values. Murano freezes the result of every MuranoPL
//! expression (its `#finalize` is `helpers.evaluate(freeze=True)`: lists
//! become tuples), and thaws values where they leave MuranoPL
//! (`dsl.to_mutable` on the arguments of native methods and on results
//! given to Python callers): a host comparing or merging them
//! (`HeatStack.updateTemplate`'s `template == current`) sees lists only.

use std::collections::HashMap;
use std::sync::Arc;

use murano_yaql::eval::{Dict, Value};

/// Deepest nesting converted (deeper values are passed as they are).
const MAX_DEPTH: usize = 256;

/// What a conversion makes of a collection: tuples, or lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Frozen,
    Mutable,
}

/// `value` with every tuple, at any depth, made a list.
pub(crate) fn to_mutable(value: &Value) -> Value {
    convert(value, Target::Mutable)
}

/// Murano's `#finalize` of every MuranoPL expression
/// (`helpers.evaluate(result, freeze=True)`): lists, at any depth, become
/// tuples.
pub(crate) fn freeze(value: &Value) -> Value {
    convert(value, Target::Frozen)
}

fn convert(value: &Value, target: Target) -> Value {
    Converter {
        target,
        done: HashMap::new(),
    }
    .at(value, 0)
    .unwrap_or_else(|| value.clone())
}

/// One conversion. Every assignment and result goes through one, so it
/// keeps sharing: a collection met again (`$s: [$s, $s]`, repeated, is n
/// collections and 2^n paths) is converted once, and one already in the
/// target form is kept as it is rather than copied.
struct Converter {
    target: Target,
    /// Collections seen, by address: their conversion (`None`: unchanged).
    /// The addresses stay valid: the value converted holds them all.
    done: HashMap<usize, Option<Value>>,
}

impl Converter {
    /// `value` converted, or `None` when it is already in the target form.
    fn at(&mut self, value: &Value, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        let address = match value {
            Value::Tuple(items) | Value::List(items) => Arc::as_ptr(items) as *const u8 as usize,
            Value::Dict(d) => Arc::as_ptr(d) as *const u8 as usize,
            _ => return None,
        };
        if let Some(done) = self.done.get(&address) {
            return done.clone();
        }
        let out = match value {
            Value::Tuple(items) | Value::List(items) => {
                let converted: Vec<Option<Value>> =
                    items.iter().map(|v| self.at(v, depth + 1)).collect();
                let in_form = match self.target {
                    Target::Frozen => matches!(value, Value::Tuple(_)),
                    Target::Mutable => matches!(value, Value::List(_)),
                };
                if converted.iter().all(Option::is_none) {
                    // Items as they are: the same vector serves, in the
                    // target form.
                    match (in_form, self.target) {
                        (true, _) => None,
                        (false, Target::Frozen) => Some(Value::Tuple(items.clone())),
                        (false, Target::Mutable) => Some(Value::List(items.clone())),
                    }
                } else {
                    let out: Vec<Value> = converted
                        .into_iter()
                        .zip(items.iter())
                        .map(|(c, v)| c.unwrap_or_else(|| v.clone()))
                        .collect();
                    Some(match self.target {
                        Target::Frozen => Value::Tuple(Arc::new(out)),
                        Target::Mutable => Value::List(Arc::new(out)),
                    })
                }
            }
            Value::Dict(d) => {
                // Keys are frozen; thawing leaves them (they are hashable).
                let mut changed = false;
                let mut pairs = Vec::with_capacity(d.len());
                for (k, v) in d.iter() {
                    let key = match self.target {
                        Target::Frozen => self.at(k, depth + 1),
                        Target::Mutable => None,
                    };
                    let val = self.at(v, depth + 1);
                    changed |= key.is_some() || val.is_some();
                    pairs.push((key, val));
                }
                if !changed {
                    None
                } else {
                    let mut out = Dict::default();
                    for ((k, v), (key, val)) in d.iter().zip(pairs) {
                        out.insert(
                            key.unwrap_or_else(|| k.clone()),
                            val.unwrap_or_else(|| v.clone()),
                        );
                    }
                    Some(Value::Dict(Arc::new(out)))
                }
            }
            _ => None,
        };
        self.done.insert(address, out.clone());
        out
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

    fn halves(v: &Value) -> (Value, Value) {
        match v {
            Value::Tuple(x) | Value::List(x) => (x[0].clone(), x[1].clone()),
            other => panic!("not a pair: {other:?}"),
        }
    }

    fn same(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Tuple(x) | Value::List(x), Value::Tuple(y) | Value::List(y)) => {
                Arc::ptr_eq(x, y)
            }
            _ => false,
        }
    }

    /// Issue 38, item 5: `$s: [$s, $s]` n times is n collections; each
    /// assignment's conversion copied all 2^n paths. Sharing is kept
    /// (2^20 paths here).
    #[test]
    fn conversions_keep_sharing() {
        for list in [true, false] {
            let mut s = Value::Int(1);
            for _ in 0..20 {
                let pair = vec![s.clone(), s];
                s = if list {
                    Value::List(Arc::new(pair))
                } else {
                    Value::tuple(pair)
                };
            }
            for v in [freeze(&s), to_mutable(&s)] {
                let (a, b) = halves(&v);
                assert!(same(&a, &b));
                let (c, d) = halves(&a);
                assert!(same(&c, &d));
            }
            // A value already in the target form is not copied.
            let frozen = freeze(&s);
            assert!(same(&freeze(&frozen), &frozen));
            let thawed = to_mutable(&s);
            assert!(same(&to_mutable(&thawed), &thawed));
        }
    }
}
