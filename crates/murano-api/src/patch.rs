//! RFC 6902 JSON patches (`add`, `replace`, `remove`, `test`) over an
//! object model, for `PATCH …/model/`. Errors are messages for a 404.

use serde_json::Value;

fn tokens(pointer: &str) -> Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let rest = pointer
        .strip_prefix('/')
        .ok_or_else(|| format!("Location must start with /: {pointer}"))?;
    Ok(rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn parent<'a>(doc: &'a mut Value, toks: &[String]) -> Result<&'a mut Value, String> {
    let mut v = doc;
    for t in toks {
        v = match v {
            Value::Object(m) => m.get_mut(t.as_str()),
            Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
            _ => None,
        }
        .ok_or_else(|| format!("can't resolve path member {t:?}"))?;
    }
    Ok(v)
}

/// Apply `ops` to `doc` in order; on error `doc` may be partly changed.
pub fn apply(doc: &mut Value, ops: &[Value]) -> Result<(), String> {
    for op in ops {
        let name = op["op"].as_str().unwrap_or("");
        let toks = tokens(op["path"].as_str().unwrap_or(""))?;
        let value = op.get("value").cloned().unwrap_or(Value::Null);
        let Some((last, init)) = toks.split_last() else {
            match name {
                "add" | "replace" => *doc = value,
                "test" if *doc == value => {}
                _ => return Err(format!("can't {name} the whole document")),
            }
            continue;
        };
        let p = parent(doc, init)?;
        match (name, p) {
            ("add", Value::Object(m)) | ("replace", Value::Object(m)) => {
                if name == "replace" && !m.contains_key(last.as_str()) {
                    return Err(format!("can't replace a non-existent object {last:?}"));
                }
                m.insert(last.clone(), value);
            }
            ("add", Value::Array(a)) => {
                let i = if last == "-" {
                    a.len()
                } else {
                    last.parse().map_err(|_| "invalid array index".to_owned())?
                };
                if i > a.len() {
                    return Err("can't insert outside of list".into());
                }
                a.insert(i, value);
            }
            ("replace", Value::Array(a)) => {
                let slot = last
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| a.get_mut(i))
                    .ok_or("can't replace outside of list")?;
                *slot = value;
            }
            ("remove", Value::Object(m)) => {
                m.remove(last.as_str())
                    .ok_or_else(|| format!("can't remove a non-existent object {last:?}"))?;
            }
            ("remove", Value::Array(a)) => {
                let i = last
                    .parse::<usize>()
                    .ok()
                    .filter(|i| *i < a.len())
                    .ok_or("can't remove outside of list")?;
                a.remove(i);
            }
            ("test", p) => {
                let got = parent(p, std::slice::from_ref(last))?;
                if *got != value {
                    return Err("test failed".into());
                }
            }
            (name, _) => return Err(format!("unsupported operation {name:?} here")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn add_replace_remove() {
        let mut d = json!({"a": [1, 2], "b": {"c": 1}});
        apply(
            &mut d,
            &[
                json!({"op": "add", "path": "/a/-", "value": 3}),
                json!({"op": "replace", "path": "/b/c", "value": 2}),
                json!({"op": "remove", "path": "/a/0"}),
            ],
        )
        .unwrap();
        assert_eq!(d, json!({"a": [2, 3], "b": {"c": 2}}));
        assert!(apply(&mut d, &[json!({"op": "remove", "path": "/x/y"})]).is_err());
    }
}
