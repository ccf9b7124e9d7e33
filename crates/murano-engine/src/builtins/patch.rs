//! `patch(obj, patch)`: RFC 6902 JSON patches as Python's `jsonpatch`
//! applies them (Murano's `patch_`): a pointer that does not resolve
//! leaves the object unchanged; a failed `test` raises
//! `JsonPatchTestFailed`, an impossible change `JsonPatchConflict`.

use std::sync::Arc;

use murano_yaql::eval::{Dict, Error, Value};

use crate::engine::host_exception;

/// Why an operation failed.
enum Fail {
    /// Python's `JsonPointerException`: the whole patch is dropped.
    Pointer,
    /// Any other error.
    Raise(Error),
}

fn conflict(message: &str) -> Fail {
    Fail::Raise(host_exception("JsonPatchConflict", "jsonpatch", message))
}

/// Applies `patch` (one operation or a list of them) to `obj`.
pub(crate) fn apply(obj: &Value, patch: &Value) -> Result<Value, Error> {
    let ops: Vec<Value> = match patch {
        Value::List(items) | Value::Tuple(items) => items.to_vec(),
        other => vec![other.clone()],
    };
    let mut doc = obj.clone();
    for op in &ops {
        match apply_one(doc, op) {
            Ok(d) => doc = d,
            Err(Fail::Pointer) => return Ok(obj.clone()),
            Err(Fail::Raise(e)) => return Err(e),
        }
    }
    Ok(doc)
}

fn field<'a>(op: &'a Dict, name: &str) -> Option<&'a Value> {
    op.get(&Value::str(name))
}

fn pointer(text: &str) -> Result<Vec<String>, Fail> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = text.strip_prefix('/') else {
        return Err(Fail::Pointer);
    };
    Ok(rest
        .split('/')
        .map(|p| p.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn apply_one(doc: Value, op: &Value) -> Result<Value, Fail> {
    let Value::Dict(op) = op else {
        return Err(Fail::Raise(host_exception(
            "InvalidJsonPatch",
            "jsonpatch",
            "Operation must be a dictionary",
        )));
    };
    let name = field(op, "op").and_then(Value::as_str).unwrap_or("");
    let path = pointer(field(op, "path").and_then(Value::as_str).unwrap_or(""))?;
    let value = || field(op, "value").cloned().unwrap_or_default();
    match name {
        "add" => edit(doc, &path, &mut |parent, last| {
            insert(parent, last, value(), true)
        }),
        "replace" => edit(doc, &path, &mut |parent, last| {
            insert(parent, last, value(), false)
        }),
        "remove" => edit(doc, &path, &mut |parent, last| {
            remove(parent, last).map(|(p, _)| p)
        }),
        "test" => {
            let found = get(&doc, &path)?;
            if found == value() {
                Ok(doc)
            } else {
                Err(Fail::Raise(host_exception(
                    "JsonPatchTestFailed",
                    "jsonpatch",
                    &format!(
                        "{} is not equal to tested value {}",
                        found.repr(),
                        value().repr()
                    ),
                )))
            }
        }
        "move" | "copy" => {
            let from = pointer(field(op, "from").and_then(Value::as_str).unwrap_or(""))?;
            let moved = get(&doc, &from)?;
            let doc = if name == "move" {
                edit(doc, &from, &mut |parent, last| {
                    remove(parent, last).map(|(p, _)| p)
                })?
            } else {
                doc
            };
            edit(doc, &path, &mut |parent, last| {
                insert(parent, last, moved.clone(), true)
            })
        }
        other => Err(Fail::Raise(host_exception(
            "InvalidJsonPatch",
            "jsonpatch",
            &format!("Unknown operation {other:?}"),
        ))),
    }
}

fn get(doc: &Value, path: &[String]) -> Result<Value, Fail> {
    let mut cur = doc.clone();
    for part in path {
        cur = match &cur {
            Value::Dict(d) => d.get(&Value::str(part)).cloned().ok_or(Fail::Pointer)?,
            Value::List(items) | Value::Tuple(items) => {
                let i: usize = part.parse().map_err(|_| Fail::Pointer)?;
                items.get(i).cloned().ok_or(Fail::Pointer)?
            }
            _ => return Err(Fail::Pointer),
        };
    }
    Ok(cur)
}

/// Rebuilds `doc` with `f` applied to the parent of the path's last part.
fn edit(
    doc: Value,
    path: &[String],
    f: &mut dyn FnMut(Value, &str) -> Result<Value, Fail>,
) -> Result<Value, Fail> {
    let Some((last, init)) = path.split_last() else {
        return Err(conflict("cannot change the whole document"));
    };
    edit_at(doc, init, last, f)
}

fn edit_at(
    node: Value,
    init: &[String],
    last: &str,
    f: &mut dyn FnMut(Value, &str) -> Result<Value, Fail>,
) -> Result<Value, Fail> {
    let Some((head, rest)) = init.split_first() else {
        return f(node, last);
    };
    match node {
        Value::Dict(d) => {
            let key = Value::str(head);
            let child = d.get(&key).cloned().ok_or(Fail::Pointer)?;
            let mut d = (*d).clone();
            d.insert(key, edit_at(child, rest, last, f)?);
            Ok(Value::Dict(Arc::new(d)))
        }
        Value::List(items) | Value::Tuple(items) => {
            let i: usize = head.parse().map_err(|_| Fail::Pointer)?;
            let child = items.get(i).cloned().ok_or(Fail::Pointer)?;
            let mut v = items.to_vec();
            v[i] = edit_at(child, rest, last, f)?;
            Ok(Value::List(Arc::new(v)))
        }
        _ => Err(Fail::Pointer),
    }
}

fn insert(parent: Value, last: &str, value: Value, add: bool) -> Result<Value, Fail> {
    match parent {
        Value::Dict(d) => {
            let key = Value::str(last);
            if !add && !d.contains_key(&key) {
                return Err(Fail::Pointer);
            }
            let mut d = (*d).clone();
            d.insert(key, value);
            Ok(Value::Dict(Arc::new(d)))
        }
        Value::List(items) | Value::Tuple(items) => {
            let mut v = items.to_vec();
            if add && last == "-" {
                v.push(value);
            } else {
                let i: usize = last.parse().map_err(|_| Fail::Pointer)?;
                if add {
                    if i > v.len() {
                        return Err(conflict("can't insert outside of list"));
                    }
                    v.insert(i, value);
                } else {
                    let slot = v.get_mut(i).ok_or(Fail::Pointer)?;
                    *slot = value;
                }
            }
            Ok(Value::List(Arc::new(v)))
        }
        _ => Err(Fail::Pointer),
    }
}

fn remove(parent: Value, last: &str) -> Result<(Value, Value), Fail> {
    match parent {
        Value::Dict(d) => {
            let mut d = (*d).clone();
            let old = d.shift_remove(&Value::str(last)).ok_or(Fail::Pointer)?;
            Ok((Value::Dict(Arc::new(d)), old))
        }
        Value::List(items) | Value::Tuple(items) => {
            let i: usize = last.parse().map_err(|_| Fail::Pointer)?;
            if i >= items.len() {
                return Err(Fail::Pointer);
            }
            let mut v = items.to_vec();
            let old = v.remove(i);
            Ok((Value::List(Arc::new(v)), old))
        }
        _ => Err(Fail::Pointer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(pairs: &[(&str, Value)]) -> Value {
        Value::Dict(Arc::new(
            pairs
                .iter()
                .map(|(k, v)| (Value::str(k), v.clone()))
                .collect(),
        ))
    }

    #[test]
    fn operations() {
        let ops = Value::List(Arc::new(vec![
            d(&[
                ("op", Value::str("add")),
                ("path", Value::str("/a")),
                ("value", Value::Int(1)),
            ]),
            d(&[
                ("op", Value::str("copy")),
                ("from", Value::str("/a")),
                ("path", Value::str("/b")),
            ]),
            d(&[
                ("op", Value::str("move")),
                ("from", Value::str("/a")),
                ("path", Value::str("/c")),
            ]),
            d(&[
                ("op", Value::str("test")),
                ("path", Value::str("/c")),
                ("value", Value::Int(1)),
            ]),
        ]));
        let out = apply(&d(&[]), &ops).unwrap();
        assert_eq!(format!("{out:?}"), "{'b': 1, 'c': 1}");
        // A pointer that does not resolve leaves the document as it was.
        let bad = d(&[("op", Value::str("remove")), ("path", Value::str("/x/y"))]);
        assert_eq!(apply(&out, &bad).unwrap(), out);
        let failing = d(&[
            ("op", Value::str("test")),
            ("path", Value::str("/b")),
            ("value", Value::Int(2)),
        ]);
        assert!(apply(&out, &failing).is_err());
    }
}
