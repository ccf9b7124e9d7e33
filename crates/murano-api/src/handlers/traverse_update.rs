//! Murano's `TraverseHelper.get` and `update` over a model, as
//! `PUT /environments/{id}/services/{path}` uses them, with the answers
//! murano-api gives for what they raise: a missing key (`KeyError`) or a
//! `None` walked through (`ValueError`) is the controller's 404; setting a
//! key on a list, a string or `None` (`TypeError`) is the resource's plain
//! 400; an index past a list's end or a list item that is not an object
//! (`IndexError`, `AttributeError`, uncaught) is a 500.

use serde_json::Value;

use crate::fault::ApiError;

/// One step from a node to a child.
enum Step {
    Key(String),
    Index(usize),
}

/// `KeyError`/`ValueError`, caught by the services controller.
fn not_found() -> ApiError {
    ApiError::plain(404)
}

/// `TypeError`, turned into a plain 400 by Murano's resource wrapper.
fn type_error() -> ApiError {
    ApiError::plain(400)
}

/// Anything else Python raises: the server's 500.
fn internal() -> ApiError {
    ApiError::plain(500)
}

/// The steps `TraverseHelper.get(path, root)` takes; `None` when it ends
/// on Python's `None` (a list without the id, as the last segment). A
/// scalar reached before the end stops the walk there.
fn resolve(path: &str, root: &Value) -> Result<Option<Vec<Step>>, ApiError> {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let mut steps = Vec::new();
    let mut cur = root;
    for (n, &seg) in segs.iter().enumerate() {
        match cur {
            Value::Array(items) => {
                let mut found = None;
                for (i, item) in items.iter().enumerate() {
                    // `item.get('?', {}).get('id')`: a non-object raises.
                    let Value::Object(m) = item else {
                        return Err(internal());
                    };
                    match m.get("?") {
                        Some(Value::Object(q))
                            if q.get("id").and_then(Value::as_str) == Some(seg) =>
                        {
                            found = Some(i);
                            break;
                        }
                        None | Some(Value::Object(_)) => {}
                        Some(_) => return Err(internal()),
                    }
                }
                if found.is_none() && seg.bytes().all(|b| b.is_ascii_digit()) {
                    let i = seg.parse::<usize>().map_err(|_| internal())?;
                    if i >= items.len() {
                        return Err(internal());
                    }
                    found = Some(i);
                }
                match found {
                    Some(i) => {
                        steps.push(Step::Index(i));
                        cur = &items[i];
                    }
                    // Python's `None`: a next segment raises ValueError.
                    None if n + 1 < segs.len() => return Err(not_found()),
                    None => return Ok(None),
                }
            }
            Value::Object(m) => match m.get(seg) {
                Some(v) => {
                    steps.push(Step::Key(seg.to_owned()));
                    cur = v;
                }
                None => return Err(not_found()),
            },
            Value::Null => return Err(not_found()),
            _ => break,
        }
    }
    Ok(Some(steps))
}

fn walk_mut<'a>(mut v: &'a mut Value, steps: &[Step]) -> Option<&'a mut Value> {
    for s in steps {
        v = match (s, v) {
            (Step::Key(k), Value::Object(m)) => m.get_mut(k)?,
            (Step::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

/// Python's `int(key)` of a path segment: blanks around, a sign, ASCII
/// digits with single underscores between them; the value when it fits.
fn python_int(key: &str) -> Option<Result<i64, ()>> {
    let t = key.trim();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let b = digits.as_bytes();
    let ok = !b.is_empty()
        && b.first().is_some_and(u8::is_ascii_digit)
        && b.last().is_some_and(u8::is_ascii_digit)
        && b.iter().all(|c| c.is_ascii_digit() || *c == b'_')
        && !digits.contains("__");
    if !ok {
        return None;
    }
    let plain: String = digits.chars().filter(|c| *c != '_').collect();
    Some(
        plain
            .parse::<i64>()
            .map(|n| if neg { -n } else { n })
            .map_err(|_| ()),
    )
}

/// `TraverseHelper.update(path, value, root)`: set the node at `path`
/// (its parent found by `get`, its last segment a list index when it reads
/// as an integer, else an object key).
pub fn update(root: &mut Value, path: &str, value: Value) -> Result<(), ApiError> {
    let parent_path = match path.rfind('/') {
        Some(i) => &path[..i],
        None => "",
    };
    let key = path.get(1..).unwrap_or("").rsplit('/').next().unwrap_or("");
    let Some(steps) = resolve(parent_path, root)? else {
        // `None[key] = value`.
        return Err(type_error());
    };
    let node = walk_mut(root, &steps).ok_or_else(internal)?;
    match (python_int(key), node) {
        (Some(n), Value::Array(a)) => {
            let len = i64::try_from(a.len()).map_err(|_| internal())?;
            let i = n
                .ok()
                .map(|n| if n < 0 { n + len } else { n })
                .filter(|i| (0..len).contains(i))
                .ok_or_else(internal)?;
            a[usize::try_from(i).map_err(|_| internal())?] = value;
        }
        // A dict's integer key, written out as its decimal text.
        (Some(n), Value::Object(m)) => {
            let text = n
                .map(|n| n.to_string())
                .unwrap_or_else(|_| key.trim().to_owned());
            m.insert(text, value);
        }
        (None, Value::Object(m)) => {
            m.insert(key.to_owned(), value);
        }
        _ => return Err(type_error()),
    }
    Ok(())
}

/// `root['?']['updated'] = now` after an update: a model without `?`
/// raises `KeyError` (404), a non-object one `TypeError` (400).
pub fn touch(root: &mut Value, now: &str) -> Result<(), ApiError> {
    let Value::Object(m) = root else {
        return Err(type_error());
    };
    match m.get_mut("?") {
        None => Err(not_found()),
        Some(Value::Object(q)) => {
            q.insert("updated".into(), Value::String(now.to_owned()));
            Ok(())
        }
        Some(_) => Err(type_error()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn model() -> Value {
        json!({"?": {"id": "env"}, "services": [
            {"?": {"id": "a1", "type": "x.Y"}, "name": "n", "list": [1, 2]}
        ]})
    }

    fn status(path: &str, value: Value) -> (u16, Value) {
        let mut m = model();
        let s = match update(&mut m, path, value) {
            Ok(()) => 200,
            Err(e) => e.status,
        };
        (s, m)
    }

    #[test]
    fn answers_as_murano_does() {
        // The cases and answers recorded against murano-api 14.0.0.
        let (s, m) = status("/services/a1/name", json!("new"));
        assert_eq!((s, &m["services"][0]["name"]), (200, &json!("new")));
        let (s, m) = status("/services/a1/newkey", json!("x"));
        assert_eq!((s, &m["services"][0]["newkey"]), (200, &json!("x")));
        let (s, m) = status("/services/a1/list/0", json!(5));
        assert_eq!((s, &m["services"][0]["list"]), (200, &json!([5, 2])));
        let (s, m) = status("/services/a1/list/-1", json!(5));
        assert_eq!((s, &m["services"][0]["list"]), (200, &json!([1, 5])));
        let (s, m) = status("/services", json!([]));
        assert_eq!((s, &m["services"]), (200, &json!([])));
        // An application replaced by its id: a key set on a list.
        assert_eq!(status("/services/a1", json!({"name": "m"})).0, 400);
        // A missing application: `None[key]`.
        assert_eq!(status("/services/zz/name", json!("x")).0, 400);
        // A trailing slash: an empty key set on a string.
        assert_eq!(status("/services/a1/name/", json!("y")).0, 400);
        // Walking through a missing key or a missing application.
        assert_eq!(status("/services/a1/nope/x", json!(1)).0, 404);
        assert_eq!(status("/services/zz/name/x", json!(1)).0, 404);
        // Past the end of a list.
        assert_eq!(status("/services/a1/list/7", json!(5)).0, 500);
        assert_eq!(status("/services/9/name", json!(5)).0, 500);
        // A scalar stops the walk; setting on it is a TypeError.
        assert_eq!(status("/services/a1/name/x/y", json!(1)).0, 400);
        // By index when no item has that id.
        let (s, m) = status("/services/0/name", json!("i"));
        assert_eq!((s, &m["services"][0]["name"]), (200, &json!("i")));
        let mut m = model();
        touch(&mut m, "now").unwrap();
        assert_eq!(m["?"]["updated"], json!("now"));
        assert_eq!(touch(&mut json!({}), "now").unwrap_err().status, 404);
        assert_eq!(touch(&mut json!({"?": 1}), "now").unwrap_err().status, 400);
    }

    #[test]
    fn python_integers() {
        assert_eq!(python_int(" 1_0 "), Some(Ok(10)));
        assert_eq!(python_int("-3"), Some(Ok(-3)));
        assert_eq!(python_int("1__0"), None);
        assert_eq!(python_int("_1"), None);
        assert_eq!(python_int("a1"), None);
        assert_eq!(python_int(""), None);
        assert_eq!(python_int("99999999999999999999"), Some(Err(())));
    }
}
