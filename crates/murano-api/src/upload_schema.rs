//! The JSON part of a package upload checked against Murano's
//! `PKG_UPLOAD_SCHEMA` (`murano/api/v1/validation_schemas.py`), with the
//! error text murano-api gives: jsonschema's `str(best_match(errors))`
//! (its message, the failing keyword and sub-schema, the instance), values
//! rendered as Python's `pprint` (sorted keys, 72 columns) renders them.

use murano_yaml::py_text::repr as py_repr_str;
use serde_json::{json, Map, Value};

/// The properties the schema allows, in the schema's order (jsonschema
/// reports the first failing one).
const PROPERTIES: [&str; 6] = [
    "tags",
    "categories",
    "description",
    "name",
    "is_public",
    "enabled",
];

/// One failed check: where in the schema and the instance, and why.
struct Failure {
    message: String,
    keyword: &'static str,
    schema_path: Vec<&'static str>,
    schema: Value,
    instance_path: Vec<Value>,
    instance: Value,
}

fn string_list_schema() -> Value {
    json!({"type": "array", "minItems": 0, "items": {"type": "string"}, "uniqueItems": true})
}

/// The whole schema, as data (for the top-level error's rendering).
fn schema() -> Value {
    json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {
            "tags": string_list_schema(),
            "categories": string_list_schema(),
            "description": {"type": "string"},
            "name": {"type": "string"},
            "is_public": {"type": "boolean"},
            "enabled": {"type": "boolean"}
        },
        "additionalProperties": false
    })
}

/// Check `meta` (an object) against the upload schema; `Err` holds the
/// text Murano puts after "Package schema is not valid: ".
pub fn validate(meta: &Map<String, Value>) -> Result<(), String> {
    match best_failure(meta) {
        None => Ok(()),
        Some(f) => Err(render(&f)),
    }
}

/// jsonschema's `best_match`: the shallowest failure, the first of equals
/// in the order the schema's keywords are checked.
fn best_failure(meta: &Map<String, Value>) -> Option<Failure> {
    let extras: Vec<&String> = meta
        .keys()
        .filter(|k| !PROPERTIES.contains(&k.as_str()))
        .collect();
    if !extras.is_empty() {
        let names: Vec<String> = extras.iter().map(|k| py_repr_str(k)).collect();
        let verb = if extras.len() == 1 { "was" } else { "were" };
        return Some(Failure {
            message: format!(
                "Additional properties are not allowed ({} {verb} unexpected)",
                names.join(", ")
            ),
            keyword: "additionalProperties",
            schema_path: Vec::new(),
            schema: schema(),
            instance_path: Vec::new(),
            instance: Value::Object(meta.clone()),
        });
    }
    let mut deeper: Option<Failure> = None;
    for prop in PROPERTIES {
        let Some(v) = meta.get(prop) else { continue };
        let (shallow, deep) = check_property(prop, v);
        if shallow.is_some() {
            return shallow;
        }
        if deeper.is_none() {
            deeper = deep;
        }
    }
    deeper
}

/// The first failure of property `prop` at its own level, and the first
/// one inside it (a list item).
fn check_property(prop: &'static str, v: &Value) -> (Option<Failure>, Option<Failure>) {
    let at = |keyword, message: String, schema: Value| Failure {
        message,
        keyword,
        schema_path: vec!["properties", prop],
        schema,
        instance_path: vec![json!(prop)],
        instance: v.clone(),
    };
    let wanted = match prop {
        "tags" | "categories" => "array",
        "is_public" | "enabled" => "boolean",
        _ => "string",
    };
    if wanted != "array" {
        let ok = match wanted {
            "boolean" => v.is_boolean(),
            _ => v.is_string(),
        };
        let f = (!ok).then(|| {
            at(
                "type",
                format!("{} is not of type '{wanted}'", py_repr(v)),
                json!({"type": wanted}),
            )
        });
        return (f, None);
    }
    let Some(items) = v.as_array() else {
        let f = at(
            "type",
            format!("{} is not of type 'array'", py_repr(v)),
            string_list_schema(),
        );
        return (Some(f), None);
    };
    let deep = items
        .iter()
        .enumerate()
        .find(|(_, x)| !x.is_string())
        .map(|(i, x)| Failure {
            message: format!("{} is not of type 'string'", py_repr(x)),
            keyword: "type",
            schema_path: vec!["properties", prop, "items"],
            schema: json!({"type": "string"}),
            instance_path: vec![json!(prop), json!(i)],
            instance: x.clone(),
        });
    let duplicated = items
        .iter()
        .enumerate()
        .any(|(i, x)| items[..i].contains(x));
    let shallow = duplicated.then(|| {
        at(
            "uniqueItems",
            format!("{} has non-unique elements", py_repr(v)),
            string_list_schema(),
        )
    });
    (shallow, deep)
}

/// `str(ValidationError)`: message, keyword and sub-schema, instance.
fn render(f: &Failure) -> String {
    let mut schema_at = String::from("schema");
    for p in &f.schema_path {
        schema_at.push_str(&format!("[{}]", py_repr_str(p)));
    }
    let mut instance_at = String::from("instance");
    for p in &f.instance_path {
        instance_at.push_str(&format!("[{}]", py_repr(p)));
    }
    format!(
        "{}\n\nFailed validating '{}' in {schema_at}:\n    {}\n\nOn {instance_at}:\n    {}",
        f.message,
        f.keyword,
        indented(&pformat(&f.schema)),
        indented(&pformat(&f.instance)),
    )
}

/// Continuation lines indented by four, as jsonschema indents them.
fn indented(s: &str) -> String {
    s.replace('\n', "\n    ")
}

/// Python's `repr` of a JSON value (as `json.loads` made it), on one line,
/// dict keys sorted as `pprint` sorts them.
fn py_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => py_number(n),
        Value::String(s) => py_repr_str(s),
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(py_repr).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(m) => {
            let items: Vec<String> = sorted(m)
                .into_iter()
                .map(|(k, v)| format!("{}: {}", py_repr_str(k), py_repr(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

fn py_number(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if !n.is_i64() && !n.is_u64() => {
            if f.fract() == 0.0 && f.abs() < 1e16 {
                format!("{f:.1}")
            } else {
                f.to_string()
            }
        }
        _ => n.to_string(),
    }
}

fn sorted(m: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut items: Vec<_> = m.iter().collect();
    items.sort_by(|a, b| a.0.cmp(b.0));
    items
}

/// Python's `pprint.pformat(v, width=72)`.
fn pformat(v: &Value) -> String {
    let mut out = String::new();
    format_value(v, 0, 0, &mut out);
    out
}

const WIDTH: usize = 72;

fn format_value(v: &Value, indent: usize, allowance: usize, out: &mut String) {
    let rep = py_repr(v);
    let fits = rep.chars().count() <= WIDTH.saturating_sub(indent + allowance);
    match v {
        Value::Object(m) if !fits && !m.is_empty() => {
            out.push('{');
            let indent = indent + 1;
            let items = sorted(m);
            let last = items.len() - 1;
            for (i, (k, x)) in items.into_iter().enumerate() {
                let key = py_repr_str(k);
                out.push_str(&key);
                out.push_str(": ");
                let a = if i == last { allowance + 1 } else { 1 };
                format_value(x, indent + key.chars().count() + 2, a, out);
                if i != last {
                    out.push_str(",\n");
                    out.push_str(&" ".repeat(indent));
                }
            }
            out.push('}');
        }
        Value::Array(a) if !fits && !a.is_empty() => {
            out.push('[');
            let indent = indent + 1;
            let last = a.len() - 1;
            for (i, x) in a.iter().enumerate() {
                let al = if i == last { allowance + 1 } else { 1 };
                format_value(x, indent, al, out);
                if i != last {
                    out.push_str(",\n");
                    out.push_str(&" ".repeat(indent));
                }
            }
            out.push(']');
        }
        _ => out.push_str(&rep),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(v: Value) -> Result<(), String> {
        validate(v.as_object().unwrap())
    }

    #[test]
    fn accepts_what_the_schema_allows() {
        assert!(check(json!({})).is_ok());
        assert!(check(
            json!({"tags": ["a", "b"], "categories": [], "description": "d",
                             "name": "n", "is_public": true, "enabled": false})
        )
        .is_ok());
    }

    /// The text murano-api gave for an unknown key (recorded in the API
    /// conformance data, test_catalog's upload with `{"type": null}`).
    #[test]
    fn an_unknown_key_is_reported_with_the_whole_schema() {
        let e = check(json!({"type": null})).unwrap_err();
        let expected = [
            "Additional properties are not allowed ('type' was unexpected)",
            "",
            "Failed validating 'additionalProperties' in schema:",
            "    {'$schema': 'http://json-schema.org/draft-04/schema#',",
            "     'additionalProperties': False,",
            "     'properties': {'categories': {'items': {'type': 'string'},",
            "                                   'minItems': 0,",
            "                                   'type': 'array',",
            "                                   'uniqueItems': True},",
            "                    'description': {'type': 'string'},",
            "                    'enabled': {'type': 'boolean'},",
            "                    'is_public': {'type': 'boolean'},",
            "                    'name': {'type': 'string'},",
            "                    'tags': {'items': {'type': 'string'},",
            "                             'minItems': 0,",
            "                             'type': 'array',",
            "                             'uniqueItems': True}},",
            "     'type': 'object'}",
            "",
            "On instance:",
            "    {'type': None}",
        ];
        assert_eq!(e, expected.join("\n"));
    }

    #[test]
    fn wrong_types_name_the_property() {
        let e = check(json!({"is_public": "yes"})).unwrap_err();
        assert_eq!(
            e,
            "'yes' is not of type 'boolean'\n\n\
Failed validating 'type' in schema['properties']['is_public']:\n    {'type': 'boolean'}\n\n\
On instance['is_public']:\n    'yes'"
        );
        let e = check(json!({"tags": [1]})).unwrap_err();
        assert_eq!(
            e,
            "1 is not of type 'string'\n\n\
Failed validating 'type' in schema['properties']['tags']['items']:\n    {'type': 'string'}\n\n\
On instance['tags'][0]:\n    1"
        );
    }

    #[test]
    fn a_shallower_failure_wins() {
        // A duplicate in categories (depth 1) beats a number in tags (depth 2).
        let e = check(json!({"tags": [1], "categories": ["a", "a"]})).unwrap_err();
        assert!(e.starts_with("['a', 'a'] has non-unique elements\n"), "{e}");
        assert!(e.contains("in schema['properties']['categories']:"), "{e}");
        let e = check(json!({"enabled": 1, "x": 1, "y": 2})).unwrap_err();
        assert!(
            e.starts_with("Additional properties are not allowed ('x', 'y' were unexpected)"),
            "{e}"
        );
    }

    #[test]
    fn python_reprs() {
        assert_eq!(py_repr_str("it's"), "\"it's\"");
        assert_eq!(py_repr_str("a\nb"), "'a\\nb'");
        assert_eq!(py_repr(&json!(1.0)), "1.0");
        assert_eq!(
            py_repr(&json!({"b": [true, null], "a": 2})),
            "{'a': 2, 'b': [True, None]}"
        );
    }
}
