//! `murano forms serve`: the MuranoPL forms design in a browser. A form is
//! generated from the JSON schema of a class (and one per model builder),
//! grouped by `formSection`, ordered by `formIndex`, with the UI hints of
//! meta (titles, descriptions, help texts, hidden fields); a submitted form
//! is validated against the schema and gives the object model (for a
//! model builder, the static action call that would run it).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use murano_ui::host::{Entropy, SystemEntropy};
use murano_ui::pyre::PyRegex;
use serde_json::{Map, Value as Json};

use super::html::{error_page, escape, escape_lines, page};
use super::{App, Method, Reply, Request};
use crate::schema::load_catalog;

/// Preview the forms generated from MuranoPL classes (the MuranoPL forms
/// design) in a browser.
#[derive(Args)]
pub(crate) struct FormsArgs {
    #[command(subcommand)]
    command: FormsCommand,
}

#[derive(Subcommand)]
enum FormsCommand {
    Serve(FormsServeArgs),
}

/// Preview the form generated from a class's JSON schema in a browser.
///
/// Example:
///
///   murano forms serve path/to/package com.example.App --catalog path/to/core-library
///   Serving the forms of com.example.App at http://127.0.0.1:38427/ (Ctrl-C to stop)
///
/// The page shows one form for the class's properties and one per model
/// builder, the fields grouped by section (formSection) and ordered by
/// formIndex, with the titles, descriptions and help texts of their meta;
/// hidden fields are not shown. "Submit" validates the values against the
/// schema, shows the errors next to their fields, and shows the object
/// model (for a model builder, the static action call that runs it). The
/// package and its catalog are read again on every page load.
///
/// The server listens on 127.0.0.1 only and never writes a file. It
/// answers only requests naming it (Host 127.0.0.1:PORT or
/// localhost:PORT; others get 421) and takes posts from its own pages
/// only (another origin gets 403). It serves --max-connections
/// connections at once (when all are taken, the one idle the longest is
/// closed) and closes a connection idle for --idle-timeout seconds, a
/// request that takes more than --read-timeout seconds to arrive, and a
/// client that does not read its answer for --write-timeout seconds.
#[derive(Args)]
#[command(verbatim_doc_comment)]
struct FormsServeArgs {
    /// A package directory or .zip archive.
    package: PathBuf,
    /// The full name of the class.
    class: String,
    /// Packages (folders searched recursively, or .zip files) the class may
    /// use, e.g. Murano's core library (as for `murano schema`).
    #[arg(long, value_name = "DIR")]
    catalog: Vec<PathBuf>,
    /// The port to listen on (127.0.0.1 only); 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    #[command(flatten)]
    limits: super::ServeOptions,
}

/// One field of a generated form.
#[derive(Debug, Clone)]
pub(crate) struct FormField {
    name: String,
    schema: Json,
    title: String,
    section: Option<String>,
    index: Option<i64>,
    visible: bool,
}

/// One section of a form, in display order.
#[derive(Debug, Clone)]
pub(crate) struct Section {
    title: Option<String>,
    fields: Vec<FormField>,
}

fn types_of(schema: &Json) -> Vec<&str> {
    match schema.get("type") {
        Some(Json::String(t)) => vec![t.as_str()],
        Some(Json::Array(ts)) => ts.iter().filter_map(Json::as_str).collect(),
        _ => Vec::new(),
    }
}

fn nullable(schema: &Json) -> bool {
    let types = types_of(schema);
    types.is_empty() || types.contains(&"null")
}

/// The widget a schema gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Widget {
    Text,
    Number,
    Checkbox,
    Select,
    MultiSelect,
    Lines,
    Json,
}

fn widget(schema: &Json) -> Widget {
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
pub(crate) fn sections(schema: &Json) -> Vec<Section> {
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
fn shown(value: &Json, w: Widget) -> String {
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
pub(crate) fn defaults(schema: &Json) -> BTreeMap<String, Vec<String>> {
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

fn number_text(n: &Json) -> String {
    match n {
        Json::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

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
const MAX_JSON_DEPTH: usize = 64;

fn json_depth(v: &Json) -> usize {
    match v {
        Json::Array(items) => 1 + items.iter().map(json_depth).max().unwrap_or(0),
        Json::Object(m) => 1 + m.values().map(json_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The value of one field from what was posted.
fn parse_field(values: &[String], schema: &Json) -> Result<Json, String> {
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
pub(crate) fn validate(value: &Json, schema: &Json, depth: usize) -> Result<(), String> {
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
type Posted = BTreeMap<String, Vec<String>>;

/// The result of a submitted form: the values by field, or the errors.
pub(crate) fn clean(
    schema: &Json,
    posted: &Posted,
) -> Result<Map<String, Json>, Vec<(String, String)>> {
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

fn render_field(f: &FormField, values: &[String], error: Option<&str>) -> String {
    let w = widget(&f.schema);
    let id = escape(&format!("id_{}", f.name));
    let name = escape(&f.name);
    let first = values.first().map(String::as_str).unwrap_or("");
    if !f.visible {
        return format!(
            "<input type=\"hidden\" name=\"{name}\" id=\"{id}\" value=\"{}\">\n",
            escape(first)
        );
    }
    // An empty list is a list: only scalars and objects can be missing.
    let required = !nullable(&f.schema)
        && !matches!(w, Widget::Checkbox | Widget::MultiSelect | Widget::Lines);
    let help = f
        .schema
        .get("helpText")
        .and_then(Json::as_str)
        .filter(|h| !h.is_empty());
    let description = f
        .schema
        .get("description")
        .and_then(Json::as_str)
        .filter(|h| !h.is_empty());
    let mut described = Vec::new();
    if error.is_some() {
        described.push(format!("err_{}", f.name));
    }
    if help.is_some() {
        described.push(format!("help_{}", f.name));
    }
    if description.is_some() {
        described.push(format!("desc_{}", f.name));
    }
    let described = if described.is_empty() {
        String::new()
    } else {
        format!(" aria-describedby=\"{}\"", escape(&described.join(" ")))
    };
    let req_attr = if required {
        " aria-required=\"true\""
    } else {
        ""
    };
    let input = match w {
        Widget::Checkbox => format!(
            "<input type=\"checkbox\" name=\"{name}\" id=\"{id}\"{}{described}>\n",
            if first.is_empty() { "" } else { " checked" }
        ),
        Widget::Number => {
            let mut bounds = String::new();
            if let Some(min) = f.schema.get("minimum").filter(|m| m.is_number()) {
                bounds.push_str(&format!(" min=\"{}\"", number_text(min)));
            }
            if let Some(max) = f.schema.get("maximum").filter(|m| m.is_number()) {
                bounds.push_str(&format!(" max=\"{}\"", number_text(max)));
            }
            format!(
                "<input type=\"number\" name=\"{name}\" id=\"{id}\" value=\"{}\"{bounds}{req_attr}{described}>\n",
                escape(first)
            )
        }
        Widget::Text => format!(
            "<input type=\"text\" name=\"{name}\" id=\"{id}\" value=\"{}\"{req_attr}{described}>\n",
            escape(first)
        ),
        Widget::Select | Widget::MultiSelect => {
            let (options, multiple) = if w == Widget::Select {
                (f.schema.get("enum"), "")
            } else {
                (
                    f.schema.get("items").and_then(|i| i.get("enum")),
                    " multiple",
                )
            };
            let mut out =
                format!("<select name=\"{name}\" id=\"{id}\"{multiple}{req_attr}{described}>\n");
            if w == Widget::Select && (nullable(&f.schema) || first.is_empty()) {
                out.push_str("<option value=\"\">---------</option>\n");
            }
            for option in options
                .and_then(Json::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[])
            {
                let text = shown(option, Widget::Text);
                let selected = if values.contains(&text) {
                    " selected"
                } else {
                    ""
                };
                out.push_str(&format!(
                    "<option value=\"{}\"{selected}>{}</option>\n",
                    escape(&text),
                    escape(&text)
                ));
            }
            out.push_str("</select>\n");
            out
        }
        Widget::Lines | Widget::Json => format!(
            "<textarea name=\"{name}\" id=\"{id}\" rows=\"4\"{req_attr}{described}>{}</textarea>\n",
            escape(first)
        ),
    };
    let mark = if required {
        "<span class=\"required\" title=\"required\">*</span>"
    } else {
        ""
    };
    let label = format!("<label for=\"{id}\">{}{mark}</label>\n", escape(&f.title));
    let class = match (w == Widget::Checkbox, error.is_some()) {
        (true, true) => "field checkbox error",
        (true, false) => "field checkbox",
        (false, true) => "field error",
        (false, false) => "field",
    };
    let mut out = format!("<div class=\"{class}\" data-field=\"{name}\">\n");
    if w == Widget::Checkbox {
        out.push_str(&input);
        out.push_str(&label);
    } else {
        out.push_str(&label);
    }
    if let Some(e) = error {
        out.push_str(&format!(
            "<ul class=\"errors\" id=\"err_{name}\">\n<li>{}</li>\n</ul>\n",
            escape(e)
        ));
    }
    if let Some(h) = help {
        out.push_str(&format!(
            "<p class=\"help\" id=\"help_{name}\">{}</p>\n",
            escape(h)
        ));
    }
    let hint = match w {
        Widget::Lines => Some("One item per line."),
        Widget::Json if types_of(&f.schema).contains(&"muranoObject") => {
            Some("The object model of the object, as JSON, or the id of an existing one.")
        }
        Widget::Json => Some("A JSON value."),
        Widget::MultiSelect => Some("Select one or more."),
        _ => None,
    };
    if let Some(h) = hint {
        out.push_str(&format!("<p class=\"help\">{h}</p>\n"));
    }
    if w != Widget::Checkbox {
        out.push_str(&input);
    }
    if let Some(d) = description {
        out.push_str(&format!(
            "<p class=\"help\" id=\"desc_{name}\">{}</p>\n",
            escape_lines(d)
        ));
    }
    out.push_str("</div>\n");
    out
}

/// The path of a form: `/` for the class, `/method/NAME` for a builder.
fn form_path(method: &str) -> String {
    if method.is_empty() {
        "/".into()
    } else {
        format!("/method/{method}")
    }
}

/// The page of one form of `schemas` (`method` "" for the class).
pub(crate) fn render_form(
    class: &str,
    schemas: &BTreeMap<String, Json>,
    method: &str,
    values: &Posted,
    errors: &[(String, String)],
) -> String {
    let Some(schema) = schemas.get(method) else {
        return page("Not found", "<h1>Not found</h1>\n");
    };
    let mut body = format!("<h1>{}</h1>\n", escape(class));
    if schemas.len() > 1 {
        body.push_str("<nav aria-label=\"Forms\">\n<ol class=\"steps\">\n");
        for name in schemas.keys() {
            let text = if name.is_empty() {
                "Properties".to_owned()
            } else {
                format!("Model builder: {name}")
            };
            let (class, current) = if name == method {
                (" class=\"active\"", " aria-current=\"page\"")
            } else {
                ("", "")
            };
            body.push_str(&format!(
                "<li{class}><a href=\"{}\"{current}>{}</a></li>\n",
                escape(&form_path(name)),
                escape(&text)
            ));
        }
        body.push_str("</ol>\n</nav>\n");
    }
    if let Some(t) = schema.get("title").and_then(Json::as_str) {
        body.push_str(&format!("<h2>{}</h2>\n", escape(t)));
    }
    if let Some(d) = schema.get("description").and_then(Json::as_str) {
        body.push_str(&format!("<p>{}</p>\n", escape_lines(d)));
    }
    body.push_str(&format!(
        "<form method=\"post\" action=\"{}\" novalidate>\n",
        escape(&form_path(method))
    ));
    // Errors of hidden fields have no field to stand by: they go on top.
    let known: Vec<String> = sections(schema)
        .iter()
        .flat_map(|s| {
            s.fields
                .iter()
                .filter(|f| f.visible)
                .map(|f| f.name.clone())
        })
        .collect();
    let general: Vec<&(String, String)> =
        errors.iter().filter(|(n, _)| !known.contains(n)).collect();
    if !general.is_empty() {
        body.push_str("<div class=\"form-errors\" id=\"form-errors\" role=\"alert\">\n<ul>\n");
        for (_, e) in general {
            body.push_str(&format!("<li>{}</li>\n", escape(e)));
        }
        body.push_str("</ul>\n</div>\n");
    }
    for section in sections(schema) {
        let visible = section.fields.iter().any(|f| f.visible);
        if visible {
            body.push_str("<section class=\"form-section\">\n");
            if let Some(t) = &section.title {
                body.push_str(&format!("<h2>{}</h2>\n", escape(t)));
            }
        }
        for f in &section.fields {
            let error = errors
                .iter()
                .find(|(n, _)| *n == f.name)
                .map(|(_, e)| e.as_str());
            let empty = Vec::new();
            body.push_str(&render_field(
                f,
                values.get(&f.name).unwrap_or(&empty),
                error,
            ));
        }
        if visible {
            body.push_str("</section>\n");
        }
    }
    body.push_str("<div class=\"buttons\">\n<button type=\"submit\" class=\"primary\" id=\"submit\">Submit</button>\n</div>\n</form>\n");
    page(&format!("{class} — form"), &body)
}

/// The page of a valid submission: the object model (or the builder call).
pub(crate) fn render_result(class: &str, method: &str, model: &Json) -> String {
    let what = if method.is_empty() {
        "Object model".to_owned()
    } else {
        format!("The call of the model builder {method}")
    };
    let mut body = format!(
        "<h1>{}</h1>\n<h2 id=\"model-title\">{}</h2>\n",
        escape(class),
        escape(&what)
    );
    body.push_str(&format!(
        "<pre class=\"model\" id=\"object-model\" aria-labelledby=\"model-title\" tabindex=\"0\">{}</pre>\n",
        escape(&serde_json::to_string_pretty(model).unwrap_or_default())
    ));
    body.push_str(&format!(
        "<p><a href=\"{}\" id=\"back\">Back to the form</a></p>\n",
        escape(&form_path(method))
    ));
    page(&format!("{class} — object model"), &body)
}

/// The forms server.
pub(crate) struct FormsApp {
    package: PathBuf,
    class: String,
    catalog: Vec<PathBuf>,
    /// What was typed, by form ("" for the class).
    typed: BTreeMap<String, Posted>,
    entropy: SystemEntropy,
}

struct Loaded {
    schemas: BTreeMap<String, Json>,
    package: String,
    version: String,
}

impl FormsApp {
    fn load(&self) -> Result<Loaded, Reply> {
        let mut ignore = |_: String| {};
        let (catalog, name) = load_catalog(&self.package, &self.catalog, &mut ignore)
            .map_err(|e| Reply::Html(500, error_page("The package does not load", &e)))?;
        let request = murano_schema::SchemaRequest::new(self.class.clone()).package(name.clone());
        let schemas = murano_schema::generate(&catalog, &request).map_err(|e| {
            Reply::Html(
                500,
                error_page(&format!("No form for {}", self.class), &e.to_string()),
            )
        })?;
        let version = crate::files::read_package_or_message(&self.package)
            .ok()
            .and_then(|l| {
                murano_packages::PluginRegistry::with_builtins()
                    .load(l.files)
                    .ok()
            })
            .map(|p| p.version().to_string())
            .unwrap_or_default();
        Ok(Loaded {
            schemas,
            package: name,
            version,
        })
    }

    fn show(&self, method: &str, errors: &[(String, String)]) -> Reply {
        let loaded = match self.load() {
            Ok(l) => l,
            Err(reply) => return reply,
        };
        let Some(schema) = loaded.schemas.get(method) else {
            return not_found();
        };
        let values = self
            .typed
            .get(method)
            .cloned()
            .unwrap_or_else(|| defaults(schema));
        let status = if errors.is_empty() { 200 } else { 422 };
        Reply::Html(
            status,
            render_form(&self.class, &loaded.schemas, method, &values, errors),
        )
    }

    fn submit(&mut self, method: &str, request: &Request) -> Reply {
        let loaded = match self.load() {
            Ok(l) => l,
            Err(reply) => return reply,
        };
        let Some(schema) = loaded.schemas.get(method) else {
            return not_found();
        };
        let mut posted = Posted::new();
        for (k, v) in &request.form {
            posted.entry(k.clone()).or_default().push(v.clone());
        }
        self.typed.insert(method.to_owned(), posted.clone());
        match clean(schema, &posted) {
            Err(errors) => self.show(method, &errors),
            Ok(values) => {
                let model = if method.is_empty() {
                    let mut model = Map::new();
                    model.insert(
                        "?".into(),
                        serde_json::json!({"type": self.class, "id": self.entropy.uuid4()}),
                    );
                    model.extend(values);
                    Json::Object(model)
                } else {
                    serde_json::json!({
                        "className": self.class,
                        "methodName": method,
                        "packageName": loaded.package,
                        "classVersion": if loaded.version.is_empty() { "*".to_owned() } else { loaded.version.clone() },
                        "parameters": Json::Object(values),
                    })
                };
                Reply::Html(200, render_result(&self.class, method, &model))
            }
        }
    }
}

fn not_found() -> Reply {
    Reply::Html(
        404,
        page(
            "Not found",
            "<h1>Not found</h1>\n<p><a href=\"/\">The form</a></p>\n",
        ),
    )
}

impl App for FormsApp {
    fn handle(&mut self, request: &Request) -> Reply {
        let method = if request.path == "/" {
            Some("")
        } else {
            request
                .path
                .strip_prefix("/method/")
                .filter(|m| !m.is_empty())
        };
        let Some(method) = method else {
            return not_found();
        };
        let method = super::url_decode(method);
        match request.method {
            Method::Get => self.show(&method, &[]),
            Method::Post => self.submit(&method, request),
            Method::Other => not_found(),
        }
    }
}

pub(crate) fn run(args: &FormsArgs) -> ExitCode {
    let FormsCommand::Serve(args) = &args.command;
    for path in std::iter::once(&args.package).chain(&args.catalog) {
        if !path.exists() {
            eprintln!("murano: {}: no such file or folder", path.display());
            return ExitCode::from(2);
        }
    }
    let mut app = FormsApp {
        package: args.package.clone(),
        class: args.class.clone(),
        catalog: args.catalog.clone(),
        typed: BTreeMap::new(),
        entropy: SystemEntropy::default(),
    };
    // Say once what the catalog lacks; page loads stay quiet.
    let mut warn = |message: String| eprintln!("murano: {message}");
    if let Err(e) = load_catalog(&args.package, &args.catalog, &mut warn) {
        eprintln!("murano: {e}");
    }
    super::serve(
        args.port,
        &args.limits,
        &format!("the forms of {}", args.class),
        &mut app,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Json {
        json!({
            "type": "object",
            "properties": {
                "zeta": {"type": "string"},
                "alpha": {"type": ["string", "null"], "title": "Alpha"},
                "port": {"type": "integer", "minimum": 0, "exclusiveMinimum": true,
                         "maximum": 10, "exclusiveMaximum": false, "default": 8,
                         "formSection": "net", "formIndex": 2, "helpText": "The port"},
                "host": {"type": "string", "pattern": "^[a-z]+$", "formSection": "net",
                         "formIndex": 1, "description": "Host\nname"},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]},
                         "default": ["b"], "formSection": "extra"},
                "names": {"type": "array", "items": {"type": "string"}},
                "flag": {"type": "boolean", "default": true},
                "secret": {"type": "string", "visible": false, "default": "s"},
                "obj": {"type": ["muranoObject", "null"], "muranoType": "a.B"},
                "ghost": {"type": "string", "formSection": "nowhere"},
            },
            "formSections": {
                "extra": {"title": "Extra", "index": 5},
                "net": {"title": "Network", "index": 1},
            },
        })
    }

    fn names(s: &Section) -> Vec<&str> {
        s.fields.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn fields_are_grouped_by_section_and_ordered_by_index() {
        let sections = sections(&schema());
        let titles: Vec<Option<&str>> = sections.iter().map(|s| s.title.as_deref()).collect();
        assert_eq!(titles, [None, Some("Network"), Some("Extra")]);
        // No position: by title (the name when there is none).
        assert_eq!(
            names(&sections[0]),
            ["alpha", "flag", "ghost", "names", "obj", "secret", "zeta"]
        );
        assert_eq!(names(&sections[1]), ["host", "port"]);
        assert_eq!(names(&sections[2]), ["tags"]);
    }

    fn posted(pairs: &[(&str, &str)]) -> Posted {
        let mut out = Posted::new();
        for (k, v) in pairs {
            out.entry((*k).to_owned())
                .or_default()
                .push((*v).to_owned());
        }
        out
    }

    #[test]
    fn submitted_values_are_checked_against_the_schema() {
        let s = schema();
        let errors = clean(
            &s,
            &posted(&[
                ("port", "0"),
                ("host", "Bad"),
                ("zeta", ""),
                ("tags", "c"),
                ("obj", "[1"),
            ]),
        )
        .unwrap_err();
        let by_name: BTreeMap<&str, &str> = errors
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(by_name["port"], "Ensure this value is greater than 0.");
        assert_eq!(by_name["host"], "Enter a value matching ^[a-z]+$.");
        assert_eq!(by_name["zeta"], "This field is required.");
        assert_eq!(
            by_name["tags"],
            "Item 1: Select a valid choice. c is not one of the available choices."
        );
        assert!(
            by_name["obj"].starts_with("Enter JSON: "),
            "{}",
            by_name["obj"]
        );
        assert_eq!(by_name["ghost"], "This field is required.");

        let values = clean(
            &s,
            &posted(&[
                ("port", "10"),
                ("host", "web"),
                ("zeta", "z"),
                ("ghost", "g"),
                ("tags", "a"),
                ("tags", "b"),
                ("names", "x\n\n y \n"),
                ("secret", "s"),
                ("obj", "{\"?\": {\"type\": \"a.B\"}}"),
            ]),
        )
        .unwrap();
        assert_eq!(
            Json::Object(values),
            json!({"alpha": null, "flag": false, "ghost": "g", "names": ["x", "y"],
                   "obj": {"?": {"type": "a.B"}}, "secret": "s", "zeta": "z",
                   "host": "web", "port": 10, "tags": ["a", "b"]})
        );
        let errors = clean(&s, &posted(&[("port", "x")])).unwrap_err();
        assert!(
            errors.contains(&("port".to_owned(), "Enter a whole number.".to_owned())),
            "{errors:?}"
        );
    }

    #[test]
    fn validation_is_bounded_in_depth() {
        let mut deep = json!(1);
        for _ in 0..(MAX_JSON_DEPTH + 2) {
            deep = json!([deep]);
        }
        let nested = json!({"type": "array", "items": {"type": "array"}});
        assert!(validate(&deep, &nested, 0).is_ok());
        let mut schema = json!({"type": "array"});
        for _ in 0..(MAX_JSON_DEPTH + 2) {
            schema = json!({"type": "array", "items": schema});
        }
        assert!(validate(&deep, &schema, 0)
            .unwrap_err()
            .contains("Nested deeper"));
        let text = format!(
            "{}1{}",
            "[".repeat(MAX_JSON_DEPTH + 1),
            "]".repeat(MAX_JSON_DEPTH + 1)
        );
        let any = json!({});
        assert!(parse_field(&[text], &any)
            .unwrap_err()
            .contains("Nested deeper"));
    }

    #[test]
    fn a_form_renders_with_sections_defaults_and_errors() {
        let s = schema();
        let mut schemas = BTreeMap::new();
        schemas.insert(String::new(), s.clone());
        schemas.insert(
            "build".to_owned(),
            json!({"type": "object", "properties": {}, "title": "Builder"}),
        );
        let errors = vec![(
            "port".to_owned(),
            "Ensure this value is greater than 0.".to_owned(),
        )];
        let html = render_form("com.example.App", &schemas, "", &defaults(&s), &errors);
        insta::assert_snapshot!("forms_class_form", html);
        let result = render_result("com.example.App", "build", &json!({"methodName": "build"}));
        assert!(
            result.contains("The call of the model builder build"),
            "{result}"
        );
        assert!(result.contains("href=\"/method/build\""), "{result}");
    }
}
