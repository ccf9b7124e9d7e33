//! A submitted form read back: the posted texts of each field parsed by
//! its type and checked against the field's schema (bounded in depth).

use std::collections::BTreeMap;

use murano_ui::pyre::PyRegex;
use serde_json::{Map, Value as Json};

use crate::schema_form::fields::{number_text, sections, types_of, widget, Widget};

/// Parses one scalar input by its schema type; `None` for empty input.
fn parse_scalar(raw: &str, schema: &Json) -> Result<Option<Json>, String> {
    let types = types_of(schema);
    let text = raw.trim();
    if text.is_empty() && !types.contains(&"string") {
        return Ok(None);
    }
    if raw.is_empty() {
        return Ok(None);
    }
    if types.contains(&"integer") {
        return text
            .parse::<i64>()
            .map(|n| Some(Json::from(n)))
            .map_err(|_| "Enter a whole number.".to_owned());
    }
    if types.contains(&"number") {
        return text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(|n| Some(Json::Number(n)))
            .ok_or_else(|| "Enter a number.".to_owned());
    }
    Ok(Some(Json::String(raw.to_owned())))
}

/// The largest nesting accepted in a JSON input (the rest of the input is
/// bounded by the request size).
pub const MAX_JSON_DEPTH: usize = 64;

fn json_depth(v: &Json) -> usize {
    match v {
        Json::Array(items) => 1 + items.iter().map(json_depth).max().unwrap_or(0),
        Json::Object(m) => 1 + m.values().map(json_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The value of one field from what was posted.
pub fn parse_field(values: &[String], schema: &Json) -> Result<Json, String> {
    let first = values.first().map(String::as_str).unwrap_or("");
    let w = widget(schema);
    let value = match w {
        Widget::Checkbox => Json::Bool(!first.is_empty()),
        Widget::Text | Widget::Number | Widget::Select => {
            parse_scalar(first, schema)?.unwrap_or(Json::Null)
        }
        Widget::MultiSelect => {
            let items = schema.get("items").cloned().unwrap_or(Json::Null);
            let mut out = Vec::new();
            for v in values.iter().filter(|v| !v.is_empty()) {
                out.extend(parse_scalar(v, &items)?);
            }
            Json::Array(out)
        }
        Widget::Lines => {
            let items = schema.get("items").cloned().unwrap_or(Json::Null);
            let mut out = Vec::new();
            for line in first.lines().map(str::trim).filter(|l| !l.is_empty()) {
                out.extend(parse_scalar(line, &items)?);
            }
            Json::Array(out)
        }
        Widget::Json => {
            if first.trim().is_empty() {
                Json::Null
            } else {
                // serde_json refuses nesting deeper than 128 by itself.
                let v: Json =
                    serde_json::from_str(first).map_err(|e| format!("Enter JSON: {e}"))?;
                if json_depth(&v) > MAX_JSON_DEPTH {
                    return Err(format!("Nested deeper than {MAX_JSON_DEPTH} levels."));
                }
                v
            }
        }
    };
    Ok(value)
}

fn type_matches(value: &Json, t: &str) -> bool {
    match t {
        "null" => value.is_null(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        // A Murano object: its object model, or the id of an existing one.
        "muranoObject" => value.is_object() || value.is_string(),
        _ => true,
    }
}

/// Checks a value against the draft-04 keywords Murano's generator emits
/// (type, enum, minimum/maximum with their exclusive flags, pattern,
/// items/additionalItems, properties/additionalProperties), returning the
/// first problem in words.
pub fn validate(value: &Json, schema: &Json, depth: usize) -> Result<(), String> {
    if depth > MAX_JSON_DEPTH {
        return Err(format!("Nested deeper than {MAX_JSON_DEPTH} levels."));
    }
    let types = types_of(schema);
    if !types.is_empty() && !types.iter().any(|t| type_matches(value, t)) {
        return Err(if value.is_null() {
            "This field is required.".into()
        } else {
            format!("Enter a value of type {}.", types.join(" or "))
        });
    }
    if value.is_null() {
        return Ok(());
    }
    if let Some(Json::Array(allowed)) = schema.get("enum") {
        if !allowed.contains(value) {
            let shown = match value {
                Json::String(s) => s.clone(),
                other => other.to_string(),
            };
            return Err(format!(
                "Select a valid choice. {shown} is not one of the available choices."
            ));
        }
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = schema.get("minimum").and_then(Json::as_f64) {
            let exclusive = schema.get("exclusiveMinimum").and_then(Json::as_bool) == Some(true);
            if n < min || exclusive && n == min {
                let word = if exclusive {
                    "greater than"
                } else {
                    "greater than or equal to"
                };
                return Err(format!(
                    "Ensure this value is {word} {}.",
                    number_text(&schema["minimum"])
                ));
            }
        }
        if let Some(max) = schema.get("maximum").and_then(Json::as_f64) {
            let exclusive = schema.get("exclusiveMaximum").and_then(Json::as_bool) == Some(true);
            if n > max || exclusive && n == max {
                let word = if exclusive {
                    "less than"
                } else {
                    "less than or equal to"
                };
                return Err(format!(
                    "Ensure this value is {word} {}.",
                    number_text(&schema["maximum"])
                ));
            }
        }
    }
    if let (Some(text), Some(Json::String(pattern))) = (value.as_str(), schema.get("pattern")) {
        let regex = PyRegex::new(pattern, 0)
            .map_err(|e| format!("The schema's pattern {pattern:?} does not compile: {e}"))?;
        if !regex.search(text) {
            return Err(format!("Enter a value matching {pattern}."));
        }
    }
    if let Json::Array(items) = value {
        for (i, item) in items.iter().enumerate() {
            let item_schema = match schema.get("items") {
                Some(Json::Array(list)) => list.get(i).or(schema.get("additionalItems")),
                other => other,
            };
            if let Some(s) = item_schema.filter(|s| s.is_object()) {
                validate(item, s, depth + 1).map_err(|e| format!("Item {}: {e}", i + 1))?;
            }
        }
    }
    if let (Json::Object(entries), Some(Json::Object(props))) = (value, schema.get("properties")) {
        for (k, v) in entries {
            match props.get(k) {
                Some(s) if s.is_object() => {
                    validate(v, s, depth + 1).map_err(|e| format!("{k}: {e}"))?
                }
                Some(_) => {}
                None => match schema.get("additionalProperties") {
                    Some(Json::Bool(false)) => return Err(format!("{k}: not a known key.")),
                    Some(s @ Json::Object(_)) => {
                        validate(v, s, depth + 1).map_err(|e| format!("{k}: {e}"))?
                    }
                    _ => {}
                },
            }
        }
    }
    Ok(())
}

/// What was posted, by field name (several values for multiple selects).
pub type Posted = BTreeMap<String, Vec<String>>;

/// The result of a submitted form: the values by field, or the errors.
pub fn clean(schema: &Json, posted: &Posted) -> Result<Map<String, Json>, Vec<(String, String)>> {
    let mut values = Map::new();
    let mut errors = Vec::new();
    for section in sections(schema) {
        for f in section.fields {
            let raw = posted.get(&f.name).cloned().unwrap_or_default();
            match parse_field(&raw, &f.schema).and_then(|v| validate(&v, &f.schema, 0).map(|()| v))
            {
                Ok(v) => {
                    values.insert(f.name.clone(), v);
                }
                Err(e) => errors.push((f.name.clone(), e)),
            }
        }
    }
    if errors.is_empty() {
        Ok(values)
    } else {
        Err(errors)
    }
}
