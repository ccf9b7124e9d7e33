//! The HTML of the forms page and of a submitted form's result.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use crate::serve::html::{escape, escape_lines, page};
use murano_dashboard::schema_form::clean::Posted;
use murano_dashboard::schema_form::fields::{
    nullable, number_text, sections, shown, types_of, widget, FormField, Widget,
};

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
pub(super) fn render_form(
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
pub(super) fn render_result(class: &str, method: &str, model: &Json) -> String {
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
