//! The body of `PATCH /environments/{id}/model/`
//! (`application/env-model-json-patch`) as Murano's env-model JSON-patch
//! deserializer reads it, before the controller runs: a list of objects,
//! each with `op`, a restricted JSON pointer `path` and a `value`; the
//! operations allowed per path (403 otherwise); the value checked against
//! Murano's environment schema (400 with the validator's message).

use serde_json::Value;

use crate::fault::ApiError;
use murano_yaml::py_text;

/// Murano's environment object model schema (`ENV_SCHEMA`), keys in its
/// order: the validator reports errors in that order.
const ENV_SCHEMA: &str = r#"{
 "type": "object",
 "properties": {
  "?": {"type": "object",
        "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                       "type": {"type": "string"}, "_actions": {"type": "object"}},
        "required": ["id", "type"]},
  "name": {"type": "string"},
  "region": {"type": ["string", "null"]},
  "regions": {"type": "object"},
  "defaultNetworks": {
   "type": "object",
   "properties": {
    "environment": {
     "type": "object",
     "properties": {
      "name": {"type": "string"},
      "?": {"type": "object",
            "properties": {"type": {"type": "string"}, "id": {"type": "string"},
                           "name": {"type": "string"}}},
      "autoUplink": {"type": "boolean"},
      "externalRouterId": {"type": "string"},
      "dnsNameServers": {"type": "array"},
      "autogenerateSubnet": {"type": "boolean"},
      "subnetCidr": {"type": "string"},
      "openstackId": {"type": "string"},
      "regionName": {"type": "string"}
     },
     "required": ["name", "?"]
    },
    "flat": {"type": ["boolean", "null"]}
   },
   "required": ["environment", "flat"]
  },
  "services": {"type": "array", "minItems": 0, "items": {"type": "object"}}
 },
 "required": ["?", "name", "region", "defaultNetworks"]
}"#;

/// The operations allowed on a path (joined with `/`); other paths allow
/// `add`, `replace` and `remove`.
fn allowed(path: &str) -> Option<&'static [&'static str]> {
    Some(match path {
        "" | "defaultNetworks/environment/?/id" | "?/id" => &[],
        "defaultNetworks"
        | "defaultNetworks/environment"
        | "defaultNetworks/flat"
        | "name"
        | "region"
        | "?/type" => &["replace"],
        _ => return None,
    })
}

/// The parsed changes: each `{"op", "path", "value"}` with `path` the
/// pointer rebuilt from its decoded tokens (`/a/b`), as the controller
/// hands it to the patcher.
pub fn parse(body: &Value) -> Result<Vec<Value>, ApiError> {
    let list = body
        .as_array()
        .ok_or_else(|| ApiError::bad_request("JSON-patch must be a list."))?;
    let mut out = Vec::with_capacity(list.len());
    for raw in list {
        let Some(change) = raw.as_object() else {
            return Err(ApiError::bad_request("Operations must be JSON objects."));
        };
        let op = change
            .get("op")
            .ok_or_else(|| ApiError::bad_request("Unable to find 'op' in JSON Schema change"))?;
        let path = change
            .get("path")
            .ok_or_else(|| ApiError::bad_request("Unable to find 'path' in JSON Schema change"))?;
        let tokens = decode_pointer(path)?;
        let op_text = match op {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let value = change.get("value").ok_or_else(|| {
            ApiError::bad_request(format!(
                "Operation \"{op_text}\" requires a member named \"value\"."
            ))
        })?;
        let full = tokens.join("/");
        let ops: &[&str] = allowed(&full).unwrap_or(&["add", "replace", "remove"]);
        if !ops.contains(&op_text.as_str()) {
            let list = if ops.is_empty() {
                "no operations".to_owned()
            } else {
                ops.join(", ")
            };
            return Err(ApiError::forbidden(format!(
                "Method '{op_text}' is not allowed for a path with name '{full}'. \
                 Allowed operations are: {list}"
            )));
        }
        validate_value(&tokens, value)?;
        out.push(serde_json::json!({
            "op": op, "path": format!("/{full}"), "value": value,
        }));
    }
    Ok(out)
}

/// Murano's restricted JSON pointer, decoded into stripped tokens.
fn decode_pointer(path: &Value) -> Result<Vec<String>, ApiError> {
    let p = match path {
        Value::String(s) => s.as_str(),
        // Murano fails on a pointer that is not a string (a 500): refused.
        other => {
            return Err(ApiError::bad_request(format!(
                "Pointer `{other}` does not start with \"/\"."
            )))
        }
    };
    let bad = |what: &str| ApiError::bad_request(format!("Pointer `{p}` {what}"));
    if !p.starts_with('/') {
        return Err(bad("does not start with \"/\"."));
    }
    if adjacent_slashes(&p[1..]) {
        return Err(bad("contains adjacent \"/\"."));
    }
    if p.len() > 1 && p.ends_with('/') {
        return Err(bad("ends with \"/\"."));
    }
    if py_text::strip(&p[1..]) == "/" {
        return Err(bad("does not contain a valid token."));
    }
    let bad_escape = p
        .char_indices()
        .any(|(i, c)| c == '~' && !matches!(p[i + 1..].chars().next(), Some('0' | '1')));
    if bad_escape {
        return Err(bad(
            "contains \"~\", which is not part of a recognized escape sequence.",
        ));
    }
    Ok(p.trim_start_matches('/')
        .split('/')
        .map(|t| py_text::strip(&t.replace("~1", "/").replace("~0", "~")).to_owned())
        .collect())
}

/// A `/`, blanks only, then another `/`.
fn adjacent_slashes(s: &str) -> bool {
    let mut after_slash = false;
    for c in s.chars() {
        if c == '/' {
            if after_slash {
                return true;
            }
            after_slash = true;
        } else if !py_text::is_space(c) {
            after_slash = false;
        }
    }
    false
}

/// The value of a change checked against the part of the schema its path
/// leads to (Murano walks the schema by path; a step it cannot take keeps
/// the schema where it is and skips the check).
fn validate_value(tokens: &[String], value: &Value) -> Result<(), ApiError> {
    let root: Value = serde_json::from_str(ENV_SCHEMA).unwrap_or(Value::Null);
    let mut schema = &root;
    let mut can_validate = true;
    for t in tokens {
        let kind = schema.get("type").and_then(Value::as_str);
        match kind {
            Some("array") => match schema.get("items") {
                Some(s) => schema = s,
                None => can_validate = false,
            },
            Some("object") => match schema.get("properties").and_then(|p| p.get(t.as_str())) {
                Some(s) => schema = s,
                None => can_validate = false,
            },
            _ => {}
        }
    }
    if !can_validate {
        return Ok(());
    }
    let mut errors = Vec::new();
    collect_errors(schema, value, 0, &mut errors);
    // jsonschema's best match: the shallowest error, preferring one whose
    // instance does not even have its schema's type; the first on a tie.
    let mut best: Option<&SchemaError> = None;
    for e in &errors {
        let better = match best {
            None => true,
            Some(b) => {
                e.depth < b.depth || (e.depth == b.depth && !e.type_matches && b.type_matches)
            }
        };
        if better {
            best = Some(e);
        }
    }
    match best {
        Some(e) => Err(ApiError::bad_request(e.message.clone())),
        None => Ok(()),
    }
}

struct SchemaError {
    depth: usize,
    type_matches: bool,
    message: String,
}

fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        _ => true,
    }
}

/// Errors of `value` against `schema` (the keywords Murano's schema uses),
/// in the order the validator yields them.
fn collect_errors(schema: &Value, value: &Value, depth: usize, out: &mut Vec<SchemaError>) {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let type_matches = !types.is_empty() && types.iter().any(|t| is_type(value, t));
    let mut push = |message: String| {
        out.push(SchemaError {
            depth,
            type_matches,
            message,
        })
    };
    if !types.is_empty() && !type_matches {
        let names: Vec<String> = types.iter().map(|t| py_text::repr(t)).collect();
        push(format!(
            "{} is not of type {}",
            py_repr(value),
            names.join(", ")
        ));
    }
    if let (Some(Value::Object(props)), Value::Object(obj)) = (schema.get("properties"), value) {
        for (k, sub) in props {
            if let Some(v) = obj.get(k) {
                collect_errors(sub, v, depth + 1, out);
            }
        }
    }
    if let Value::Array(items) = value {
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
            if (items.len() as u64) < min {
                out.push(SchemaError {
                    depth,
                    type_matches,
                    message: format!("{} is too short", py_repr(value)),
                });
            }
        }
        if let Some(sub) = schema.get("items") {
            for v in items {
                collect_errors(sub, v, depth + 1, out);
            }
        }
    }
    if let (Some(Value::Array(req)), Value::Object(obj)) = (schema.get("required"), value) {
        for r in req.iter().filter_map(Value::as_str) {
            if !obj.contains_key(r) {
                out.push(SchemaError {
                    depth,
                    type_matches,
                    message: format!("{} is a required property", py_text::repr(r)),
                });
            }
        }
    }
}

/// Python's `repr` of a decoded JSON value (how the validator quotes it).
fn py_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => py_float(f),
            _ => n.to_string(),
        },
        Value::String(s) => py_text::repr(s),
        Value::Array(a) => format!("[{}]", a.iter().map(py_repr).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", py_text::repr(k), py_repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Python's float repr: shortest round-trip digits, `.0` on integral
/// values, exponent form outside [1e-4, 1e16).
fn py_float(f: f64) -> String {
    if f.is_finite() && f != 0.0 && (f.abs() >= 1e16 || f.abs() < 1e-4) {
        let s = format!("{f:e}");
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mant}e{sign}{:02}", exp.abs());
    }
    let s = format!("{f}");
    if s.contains('.') || s.contains("inf") || s.contains("NaN") {
        s
    } else {
        format!("{s}.0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(body: Value) -> (u16, String) {
        let e = parse(&body).unwrap_err();
        (e.status, e.body())
    }

    #[test]
    fn values_checked_against_the_schema_with_validator_messages() {
        let one = |path: &str, value: Value| {
            let (st, body) = msg(json!([{"op": "replace", "path": path, "value": value}]));
            assert_eq!(st, 400);
            body.split("\n\n").nth(1).unwrap_or("").to_owned()
        };
        assert_eq!(one("/name", json!(111)), "111 is not of type 'string'");
        assert_eq!(
            one("/region", json!(1.5)),
            "1.5 is not of type 'string', 'null'"
        );
        assert_eq!(
            one("/name", json!({"b": 1, "a": [1, "x", null, true]})),
            "{'b': 1, 'a': [1, 'x', None, True]} is not of type 'string'"
        );
        assert_eq!(one("/name", json!(1e20)), "1e+20 is not of type 'string'");
        // The shallowest error wins; among equals, one whose instance has
        // the wrong type.
        assert_eq!(
            one("/defaultNetworks", json!({"environment": {"name": 1}})),
            "'flat' is a required property"
        );
        assert_eq!(
            one("/defaultNetworks", json!({"environment": {}, "flat": 3})),
            "3 is not of type 'boolean', 'null'"
        );
        // A path the schema does not describe is not checked.
        assert!(parse(&json!([{"op": "add", "path": "/services/0/x", "value": 1}])).is_ok());
    }

    #[test]
    fn shape_pointer_and_operation_errors() {
        assert_eq!(
            msg(json!(["foo"])).1,
            "400 Bad Request\n\nOperations must be JSON objects.\n\n   "
        );
        let (st, body) = msg(json!([{"op": "add", "path": "/?/id", "value": "x"}]));
        assert_eq!(st, 403);
        assert!(body.contains(
            "Method 'add' is not allowed for a path with name '?/id'. \
             Allowed operations are: no operations"
        ));
        let (st, body) = msg(json!([{"op": "test", "path": "/x", "value": 1}]));
        assert_eq!(st, 403);
        assert!(body.contains("Allowed operations are: add, replace, remove"));
        // `value` is required whatever the operation.
        assert!(msg(json!([{"op": "remove", "path": "/x"}]))
            .1
            .contains("Operation \"remove\" requires a member named \"value\"."));
        for (p, what) in [
            ("x", "does not start with"),
            ("/a//b", "adjacent"),
            ("/a/ /b", "adjacent"),
            ("/a/", "ends with"),
            ("/a~2", "escape"),
        ] {
            let body = msg(json!([{"op": "add", "path": p, "value": 1}])).1;
            assert!(body.contains(what), "{p}: {body}");
        }
        let ok = parse(&json!([{"op": "add", "path": "/services/ a~1b ", "value": {}}])).unwrap();
        assert_eq!(ok[0]["path"], json!("/services/a/b"));
    }
}
