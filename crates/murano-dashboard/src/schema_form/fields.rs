//! The form of a class: its JSON schema's properties as fields, grouped
//! in sections and ordered as the schema's UI hints say, with the
//! widget each type shows as and the values shown before any input.

use std::collections::BTreeMap;

use serde_json::Value as Json;

/// One field of a generated form.
#[derive(Debug, Clone)]
pub struct FormField {
    /// The property's name.
    pub name: String,
    /// Its JSON schema.
    pub schema: Json,
    /// Its title (the name when it has none).
    pub title: String,
    /// Its `formSection`.
    pub section: Option<String>,
    /// Its `formIndex`.
    pub index: Option<i64>,
    /// Whether it is shown (not hidden by meta).
    pub visible: bool,
}

/// One section of a form, in display order.
#[derive(Debug, Clone)]
pub struct Section {
    /// Its heading (`None` for the fields of no section).
    pub title: Option<String>,
    /// Its fields in display order.
    pub fields: Vec<FormField>,
}

/// The types a schema names (`type` as a string or a list).
pub fn types_of(schema: &Json) -> Vec<&str> {
    match schema.get("type") {
        Some(Json::String(t)) => vec![t.as_str()],
        Some(Json::Array(ts)) => ts.iter().filter_map(Json::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether a schema accepts null (or names no type).
pub fn nullable(schema: &Json) -> bool {
    let types = types_of(schema);
    types.is_empty() || types.contains(&"null")
}

/// The widget a schema gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Widget {
    /// A text input.
    Text,
    /// A number input.
    Number,
    /// A check box.
    Checkbox,
    /// A select of the schema's `enum`.
    Select,
    /// A multiple select of the items' `enum`.
    MultiSelect,
    /// A text area, one scalar item a line.
    Lines,
    /// A text area holding JSON.
    Json,
}

/// The widget a schema gets.
pub fn widget(schema: &Json) -> Widget {
    let types = types_of(schema);
    let main = types.iter().find(|t| **t != "null").copied().unwrap_or("");
    match main {
        "string" if schema.get("enum").is_some() => Widget::Select,
        "string" => Widget::Text,
        "integer" | "number" if schema.get("enum").is_some() => Widget::Select,
        "integer" | "number" => Widget::Number,
        "boolean" => Widget::Checkbox,
        "array" => match schema.get("items") {
            Some(items) if items.get("enum").is_some() => Widget::MultiSelect,
            Some(items) if matches!(widget(items), Widget::Text | Widget::Number) => Widget::Lines,
            _ => Widget::Json,
        },
        _ => Widget::Json,
    }
}

/// The fields of a schema grouped by section: the sections of
/// `formSections` by their index (then name), the fields in each by
/// `formIndex` (fields without one after, by title); fields with no
/// section (or an unknown one) come first, without a heading.
pub fn sections(schema: &Json) -> Vec<Section> {
    let mut fields: Vec<FormField> = Vec::new();
    if let Some(Json::Object(props)) = schema.get("properties") {
        for (name, s) in props {
            fields.push(FormField {
                name: name.clone(),
                title: s
                    .get("title")
                    .and_then(Json::as_str)
                    .unwrap_or(name)
                    .to_owned(),
                section: s
                    .get("formSection")
                    .and_then(Json::as_str)
                    .map(str::to_owned),
                index: s.get("formIndex").and_then(Json::as_i64),
                visible: s.get("visible").and_then(Json::as_bool).unwrap_or(true),
                schema: s.clone(),
            });
        }
    }
    let mut known: Vec<(i64, String, String)> = Vec::new();
    if let Some(Json::Object(secs)) = schema.get("formSections") {
        for (name, s) in secs {
            let index = s.get("index").and_then(Json::as_i64).unwrap_or(i64::MAX);
            let title = s
                .get("title")
                .and_then(Json::as_str)
                .unwrap_or(name)
                .to_owned();
            known.push((index, name.clone(), title));
        }
    }
    known.sort();
    let order = |f: &FormField| (f.index.is_none(), f.index.unwrap_or(0), f.title.clone());
    let mut out = Vec::new();
    let mut general: Vec<FormField> = fields
        .iter()
        .filter(|f| {
            !f.section
                .as_ref()
                .is_some_and(|s| known.iter().any(|k| &k.1 == s))
        })
        .cloned()
        .collect();
    general.sort_by_key(order);
    if !general.is_empty() {
        out.push(Section {
            title: None,
            fields: general,
        });
    }
    for (_, name, title) in known {
        let mut in_section: Vec<FormField> = fields
            .iter()
            .filter(|f| f.section.as_deref() == Some(&name))
            .cloned()
            .collect();
        in_section.sort_by_key(order);
        if !in_section.is_empty() {
            out.push(Section {
                title: Some(title),
                fields: in_section,
            });
        }
    }
    out
}

/// The text an input shows for a JSON value.
pub fn shown(value: &Json, w: Widget) -> String {
    match (value, w) {
        (Json::Null, _) => String::new(),
        (Json::String(s), _) => s.clone(),
        (Json::Bool(b), _) => {
            if *b {
                "on".into()
            } else {
                String::new()
            }
        }
        (Json::Array(items), Widget::Lines) => items
            .iter()
            .map(|i| match i {
                Json::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        (other, Widget::Json) => serde_json::to_string_pretty(other).unwrap_or_default(),
        (other, _) => other.to_string(),
    }
}

/// The values a form shows first: each field's default.
pub fn defaults(schema: &Json) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for section in sections(schema) {
        for f in section.fields {
            let w = widget(&f.schema);
            let Some(default) = f.schema.get("default") else {
                continue;
            };
            let values = match (w, default) {
                (Widget::MultiSelect, Json::Array(items)) => {
                    items.iter().map(|i| shown(i, Widget::Text)).collect()
                }
                _ => vec![shown(default, w)],
            };
            out.insert(f.name.clone(), values);
        }
    }
    out
}

/// The text of a JSON number.
pub fn number_text(n: &Json) -> String {
    match n {
        Json::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}
