//! JSON Patch (RFC 6902: `add`, `replace`, `remove`, `test`) over one
//! application, as `environment-apps-edit` sends it.

use serde_json::Value as Json;

use crate::model::ModelError;

/// Most operations of one patch.
pub const MAX_OPERATIONS: usize = 10_000;

fn tokens(pointer: &str) -> Result<Vec<String>, ModelError> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let rest = pointer
        .strip_prefix('/')
        .ok_or_else(|| ModelError::BadEdit(format!("path {pointer:?} does not start with /")))?;
    Ok(rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn child<'a>(v: &'a mut Json, t: &str, pointer: &str) -> Result<&'a mut Json, ModelError> {
    let missing = || ModelError::NoPath(pointer.to_owned());
    match v {
        Json::Object(m) => m.get_mut(t).ok_or_else(missing),
        Json::Array(a) => t
            .parse::<usize>()
            .ok()
            .and_then(|i| a.get_mut(i))
            .ok_or_else(missing),
        _ => Err(missing()),
    }
}

/// Applies `patch` (a list of operations) to `doc`; on error `doc` may be
/// partly changed (callers patch a copy).
pub fn apply(doc: &mut Json, patch: &Json) -> Result<(), ModelError> {
    let ops = patch
        .as_array()
        .ok_or_else(|| ModelError::BadEdit("a patch is a list of operations".into()))?;
    if ops.len() > MAX_OPERATIONS {
        return Err(ModelError::BadEdit(format!(
            "more than {MAX_OPERATIONS} operations"
        )));
    }
    for op in ops {
        let kind = op.get("op").and_then(Json::as_str).unwrap_or("");
        let pointer = op
            .get("path")
            .and_then(Json::as_str)
            .ok_or_else(|| ModelError::BadEdit(format!("operation without path: {op}")))?;
        let toks = tokens(pointer)?;
        let value = op.get("value").cloned();
        let Some((last, parents)) = toks.split_last() else {
            match (kind, value) {
                ("add" | "replace", Some(v)) => *doc = v,
                _ => {
                    return Err(ModelError::BadEdit(format!(
                        "cannot {kind} the whole document"
                    )))
                }
            }
            continue;
        };
        let mut cur = &mut *doc;
        for t in parents {
            cur = child(cur, t, pointer)?;
        }
        match (kind, cur) {
            ("add", Json::Object(m)) | ("replace", Json::Object(m)) => {
                let v =
                    value.ok_or_else(|| ModelError::BadEdit(format!("{kind} without value")))?;
                if kind == "replace" && !m.contains_key(last) {
                    return Err(ModelError::NoPath(pointer.to_owned()));
                }
                m.insert(last.clone(), v);
            }
            ("add", Json::Array(a)) => {
                let v = value.ok_or_else(|| ModelError::BadEdit("add without value".into()))?;
                if last == "-" {
                    a.push(v);
                } else {
                    let i = last
                        .parse::<usize>()
                        .ok()
                        .filter(|i| *i <= a.len())
                        .ok_or_else(|| ModelError::NoPath(pointer.to_owned()))?;
                    a.insert(i, v);
                }
            }
            ("replace", Json::Array(a)) => {
                let v = value.ok_or_else(|| ModelError::BadEdit("replace without value".into()))?;
                let slot = last
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| a.get_mut(i))
                    .ok_or_else(|| ModelError::NoPath(pointer.to_owned()))?;
                *slot = v;
            }
            ("remove", Json::Object(m)) => {
                m.shift_remove(last)
                    .ok_or_else(|| ModelError::NoPath(pointer.to_owned()))?;
            }
            ("remove", Json::Array(a)) => {
                let i = last
                    .parse::<usize>()
                    .ok()
                    .filter(|i| *i < a.len())
                    .ok_or_else(|| ModelError::NoPath(pointer.to_owned()))?;
                a.remove(i);
            }
            ("test", cur) => {
                let here = child(cur, last, pointer)?;
                if Some(&*here) != value.as_ref() {
                    return Err(ModelError::BadEdit(format!("test failed at {pointer}")));
                }
            }
            (other, _) => {
                return Err(ModelError::BadEdit(format!(
                    "unsupported operation {other:?} at {pointer}"
                )))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn add_replace_remove_and_test() {
        let mut d = json!({"a": {"b": [1, 2]}, "c": 1});
        apply(
            &mut d,
            &json!([
                {"op": "add", "path": "/a/b/-", "value": 3},
                {"op": "replace", "path": "/c", "value": 2},
                {"op": "remove", "path": "/a/b/0"},
                {"op": "test", "path": "/c", "value": 2},
                {"op": "add", "path": "/x~1y", "value": null}
            ]),
        )
        .unwrap();
        assert_eq!(d, json!({"a": {"b": [2, 3]}, "c": 2, "x/y": null}));
    }

    #[test]
    fn bad_patches_are_errors() {
        let mut d = json!({"a": 1});
        assert!(apply(&mut d, &json!({"op": "add"})).is_err());
        assert!(apply(
            &mut d,
            &json!([{"op": "replace", "path": "/zz", "value": 1}])
        )
        .is_err());
        assert!(apply(&mut d, &json!([{"op": "move", "path": "/a"}])).is_err());
        assert!(apply(&mut d, &json!([{"op": "remove", "path": "a"}])).is_err());
    }
}
