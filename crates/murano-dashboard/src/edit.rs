//! Editing an application of an environment later: its properties as a
//! form filled with their current values (text, numbers, check boxes,
//! references to the environment's other applications as a select, and
//! structured values as JSON), saved in the user's configuration session
//! through the API's services PUT, as `environment-apps-edit` would.

use murano_api::handlers::services;
use serde_json::{Map, Value};

use crate::calls::{api_req, existing_session, json_of, message, open_session};
use crate::catalog::text;
use crate::html::{error_page, escape, page, url_encode, Section};
use crate::{Dashboard, Page, PageRequest};

/// The kind of input a property is edited with.
fn kind(v: &Value, others: &[(String, String)]) -> &'static str {
    match v {
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(s) if others.iter().any(|(id, _)| id == s) => "ref",
        Value::String(_) => "string",
        Value::Null => "null",
        _ => "json",
    }
}

/// The application `aid` of the model the user works on, and the other
/// applications (id, name).
fn load(
    d: &Dashboard,
    req: &PageRequest,
    eid: &str,
    aid: &str,
) -> Result<(Value, Vec<(String, String)>), Page> {
    let sid = existing_session(&d.app, &req.ctx, eid).map_err(|e| fail(&e))?;
    let list = json_of(services::get(
        &d.app,
        &api_req(&req.ctx, sid.as_deref(), &[], None),
        eid,
        None,
    ))
    .map_err(|e| fail(&e))?;
    let list = list.as_array().cloned().unwrap_or_default();
    let app = list
        .iter()
        .find(|a| a["?"]["id"].as_str() == Some(aid))
        .cloned()
        .ok_or_else(crate::not_found)?;
    let others = list
        .iter()
        .filter(|a| a["?"]["id"].as_str() != Some(aid))
        .map(|a| {
            let name = text(&a["?"]["name"]);
            let name = if name.is_empty() {
                text(&a["name"])
            } else {
                name
            };
            (
                text(&a["?"]["id"]),
                format!("{name} ({})", text(&a["?"]["type"])),
            )
        })
        .collect();
    Ok((app, others))
}

fn fail(e: &murano_api::fault::ApiError) -> Page {
    Page::Html(
        e.status,
        error_page("The request failed", Section::Environments, &message(e)),
    )
}

/// The edit form; `errors` are (property, message).
fn render(
    eid: &str,
    app: &Value,
    others: &[(String, String)],
    typed: Option<&Map<String, Value>>,
    errors: &[(String, String)],
) -> String {
    let aid = text(&app["?"]["id"]);
    let name = {
        let n = text(&app["?"]["name"]);
        if n.is_empty() {
            text(&app["name"])
        } else {
            n
        }
    };
    let mut body = format!(
        "<p><a href=\"/environments/{}\">Back to the environment</a></p>\n<h1>Edit {}</h1>\n<p class=\"muted\"><code>{}</code></p>\n\
         <form method=\"post\" action=\"/environments/{}/apps/{}/edit\" novalidate>\n",
        url_encode(eid),
        escape(&name),
        escape(&text(&app["?"]["type"])),
        url_encode(eid),
        url_encode(&aid),
    );
    let Some(props) = app.as_object() else {
        return page("Edit", Section::Environments, &body);
    };
    for (k, v) in props.iter().filter(|(k, _)| k.as_str() != "?") {
        let shown = typed.and_then(|t| t.get(k)).unwrap_or(v);
        let kind = kind(v, others);
        let id = escape(&format!("id_{k}"));
        let n = escape(k);
        let err = errors.iter().find(|(p, _)| p == k).map(|(_, m)| m);
        let described = if err.is_some() {
            format!(" aria-describedby=\"err_{n}\" aria-invalid=\"true\"")
        } else {
            String::new()
        };
        let class = if kind == "bool" {
            "field checkbox"
        } else {
            "field"
        };
        body.push_str(&format!(
            "<div class=\"{class}{}\" data-field=\"{n}\">\n<input type=\"hidden\" name=\"__kind_{n}\" value=\"{kind}\">\n",
            if err.is_some() { " error" } else { "" }
        ));
        let label = format!("<label for=\"{id}\">{n}</label>\n");
        let error = err
            .map(|m| {
                format!(
                    "<ul class=\"errors\" id=\"err_{n}\"><li>{}</li></ul>\n",
                    escape(m)
                )
            })
            .unwrap_or_default();
        let input = match kind {
            "bool" => format!(
                "<input type=\"checkbox\" name=\"{n}\" id=\"{id}\"{}{described}>\n",
                if shown == &Value::Bool(true) { " checked" } else { "" }
            ),
            "number" => format!(
                "<input type=\"number\" step=\"any\" name=\"{n}\" id=\"{id}\" value=\"{}\"{described}>\n",
                escape(&text(shown))
            ),
            "ref" => {
                let mut s = format!("<select name=\"{n}\" id=\"{id}\"{described}>\n");
                for (oid, label) in others {
                    let sel = if shown.as_str() == Some(oid.as_str()) { " selected" } else { "" };
                    s.push_str(&format!("<option value=\"{}\"{sel}>{}</option>\n", escape(oid), escape(label)));
                }
                s.push_str("</select>\n");
                s
            }
            "string" | "null" => format!(
                "<input type=\"text\" name=\"{n}\" id=\"{id}\" value=\"{}\"{described}>\n",
                escape(&text(shown))
            ),
            _ => format!(
                "<textarea name=\"{n}\" id=\"{id}\" rows=\"4\"{described}>{}</textarea>\n",
                escape(&match shown {
                    Value::String(s) => s.clone(),
                    v => serde_json::to_string_pretty(v).unwrap_or_default(),
                })
            ),
        };
        if kind == "bool" {
            body.push_str(&input);
            body.push_str(&label);
            body.push_str(&error);
        } else {
            body.push_str(&label);
            body.push_str(&error);
            body.push_str(&input);
        }
        body.push_str("</div>\n");
    }
    body.push_str("<div class=\"buttons\"><button type=\"submit\" class=\"primary\" id=\"save\">Save</button></div>\n</form>\n");
    page(&format!("Edit {name}"), Section::Environments, &body)
}

/// `GET /environments/{id}/apps/{app}/edit`.
pub fn show(d: &Dashboard, req: &PageRequest, eid: &str, aid: &str) -> Page {
    match load(d, req, eid, aid) {
        Ok((app, others)) => Page::Html(200, render(eid, &app, &others, None, &[])),
        Err(p) => p,
    }
}

/// `POST /environments/{id}/apps/{app}/edit`: the posted values, typed
/// as the properties were, saved in the user's session.
pub fn save(d: &Dashboard, req: &PageRequest, eid: &str, aid: &str) -> Page {
    let (app, others) = match load(d, req, eid, aid) {
        Ok(x) => x,
        Err(p) => return p,
    };
    let mut updated = app.clone();
    let mut errors = Vec::new();
    let mut typed = Map::new();
    if let Some(props) = app.as_object() {
        for (k, old) in props.iter().filter(|(k, _)| k.as_str() != "?") {
            let posted = req.field(k);
            let new = match kind(old, &others) {
                "bool" => Value::Bool(posted.is_some()),
                "number" => match posted.map(str::trim).unwrap_or("") {
                    "" => Value::Null,
                    p => match serde_json::from_str::<serde_json::Number>(p) {
                        Ok(n) => Value::Number(n),
                        Err(_) => {
                            errors.push((k.clone(), "Enter a number.".to_owned()));
                            Value::String(p.to_owned())
                        }
                    },
                },
                "null" if posted.unwrap_or("").is_empty() => Value::Null,
                "string" | "ref" | "null" => Value::String(posted.unwrap_or("").to_owned()),
                _ => match serde_json::from_str(posted.unwrap_or("")) {
                    Ok(v) => v,
                    Err(e) => {
                        errors.push((k.clone(), format!("Not valid JSON: {e}")));
                        Value::String(posted.unwrap_or("").to_owned())
                    }
                },
            };
            typed.insert(k.clone(), new.clone());
            updated[k] = new;
        }
    }
    if !errors.is_empty() {
        return Page::Html(400, render(eid, &app, &others, Some(&typed), &errors));
    }
    let put = || {
        let sid = open_session(&d.app, &req.ctx, eid)?;
        json_of(services::replace(
            &d.app,
            &api_req(&req.ctx, Some(&sid), &[], Some(&updated)),
            eid,
            aid,
        ))
    };
    match put() {
        Ok(_) => Page::Redirect(format!("/environments/{}", url_encode(eid))),
        Err(e) => fail(&e),
    }
}
