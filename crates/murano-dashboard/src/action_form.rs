//! An action's arguments as a form: the schema of the action's method
//! from its contracts (`GET /schemas/{class}/{method}`), rendered as the
//! MuranoPL forms render fields, and the posted values checked against it
//! before the action is called.

use murano_api::handlers::schemas;
use serde_json::Value as Json;

use crate::calls::{api_req, json_of, message};
use crate::catalog::text;
use crate::html::{escape, page, url_encode, Section};
use crate::object_form::{fail, render_scalar, split_type};
use crate::schema_form::clean::Posted;
use crate::schema_form::fields::sections;
use crate::{Dashboard, Page, PageRequest};

/// The object of a model whose `_actions` holds `aid`: its class and the
/// action's method name (bounded in depth).
fn action_owner(v: &Json, aid: &str, depth: usize) -> Option<(String, String)> {
    if depth > 64 {
        return None;
    }
    match v {
        Json::Array(a) => a.iter().find_map(|x| action_owner(x, aid, depth + 1)),
        Json::Object(m) => {
            if let Some(act) = m
                .get("?")
                .and_then(|q| q.get("_actions"))
                .and_then(|a| a.get(aid))
            {
                let class = split_type(&text(&m["?"]["type"])).0.to_owned();
                return Some((class, text(&act["name"])));
            }
            m.iter()
                .filter(|(k, _)| k.as_str() != "?")
                .find_map(|(_, x)| action_owner(x, aid, depth + 1))
        }
        _ => None,
    }
}

/// The schema of action `aid`'s method, from its contracts (`GET
/// /schemas/{class}/{method}`): (title, schema).
fn action_schema(
    d: &Dashboard,
    req: &PageRequest,
    eid: &str,
    aid: &str,
) -> Result<(String, Json), Page> {
    let deployed = {
        let db = d.app.db();
        let r = api_req(&req.ctx, None, &[], None);
        murano_api::handlers::check_env(&db, &r, eid)
            .map_err(|e| fail(e.status, "No such environment", &message(&e)))?;
        murano_api::handlers::env_description(&db, eid, None).unwrap_or(Json::Null)
    };
    let (class, method) =
        action_owner(&deployed["Objects"], aid, 0).ok_or_else(crate::not_found)?;
    let map = json_of(schemas::get_schema(
        &d.app,
        &api_req(&req.ctx, None, &[], None),
        &class,
        Some(&method),
    ))
    .map_err(|e| fail(e.status, "No form for this action", &message(&e)))?;
    let schema = match map.get(&method) {
        Some(s) => s.clone(),
        // The API answers for model builders only: any other method's
        // arguments come from the engine's method schemas.
        None => method_schema(d, req, &class, &method)?,
    };
    let title = schema
        .get("title")
        .and_then(Json::as_str)
        .map(str::to_owned)
        .unwrap_or(method);
    Ok((title, schema))
}

fn action_page(
    eid: &str,
    aid: &str,
    title: &str,
    schema: &Json,
    posted: &Posted,
    errors: &[(String, String)],
) -> String {
    let form = ArgsForm {
        action: &format!(
            "/environments/{}/actions/{}",
            url_encode(eid),
            url_encode(aid)
        ),
        back: &format!("/environments/{}", url_encode(eid)),
        back_label: "Back to the environment",
        title,
        schema,
    };
    page(
        title,
        Section::Environments,
        &form.render(posted, errors, ""),
    )
}

/// The schema of method `method` of class `class`'s arguments, from the
/// engine (`Engine::method_schemas`), for the request's tenant.
pub fn method_schema(
    d: &Dashboard,
    req: &PageRequest,
    class: &str,
    method: &str,
) -> Result<Json, Page> {
    let credentials = serde_json::json!({"project_id": req.ctx.tenant, "user_id": req.ctx.user});
    d.app
        .engine
        .method_schemas(credentials, class, vec![method.to_owned()])
        .map(|m| m.get(method).cloned().unwrap_or(Json::Null))
        .map_err(|e| {
            fail(
                404,
                "No form for this action",
                &format!("{}: {}", e.exc_type, e.value),
            )
        })
}

/// A form of a method's arguments, posted to `action`.
#[derive(Debug)]
pub struct ArgsForm<'a> {
    /// Where the form posts (already URL-encoded).
    pub action: &'a str,
    /// Where the back link goes (already URL-encoded).
    pub back: &'a str,
    /// The back link's text.
    pub back_label: &'a str,
    /// The action's title.
    pub title: &'a str,
    /// The method's schema (its arguments as properties).
    pub schema: &'a Json,
}

impl ArgsForm<'_> {
    /// The page's body: the form filled with `posted`, `errors` tied to
    /// their fields, then `after` (a result, already HTML).
    pub fn render(&self, posted: &Posted, errors: &[(String, String)], after: &str) -> String {
        let mut body = format!(
            "<p><a href=\"{}\">{}</a></p>\n<h1>{}</h1>\n\
             <p class=\"muted\">Its arguments, from the contracts of its method.</p>\n\
             <form method=\"post\" action=\"{}\" novalidate id=\"action-form\">\n\
             <input type=\"hidden\" name=\"__form\" value=\"1\">\n",
            self.back,
            escape(self.back_label),
            escape(self.title),
            self.action,
        );
        for section in sections(self.schema) {
            for f in &section.fields {
                let error = errors
                    .iter()
                    .find(|(n, _)| *n == f.name)
                    .map(|(_, m)| m.as_str());
                let values = posted.get(&f.name).cloned().unwrap_or_default();
                body.push_str(&render_scalar(f, &f.name, &values, error));
            }
        }
        body.push_str(&format!(
            "<div class=\"buttons\"><button type=\"submit\" class=\"primary\" id=\"run-action\">Run {}</button></div>\n</form>\n",
            escape(self.title)
        ));
        body.push_str(after);
        body
    }
}

/// The pairs of a posted arguments form (without its marker).
pub fn posted_args(req: &PageRequest) -> Posted {
    let mut posted = Posted::new();
    for (k, v) in req.form.iter().filter(|(k, _)| k != "__form") {
        posted.entry(k.clone()).or_default().push(v.clone());
    }
    posted
}

/// `GET /environments/{id}/actions/{action}`: the form of the action's
/// arguments with their defaults.
pub fn show_action(d: &Dashboard, req: &PageRequest, eid: &str, aid: &str) -> Page {
    match action_schema(d, req, eid, aid) {
        Ok((title, schema)) => {
            let posted = crate::schema_form::fields::defaults(&schema);
            Page::Html(200, action_page(eid, aid, &title, &schema, &posted, &[]))
        }
        Err(p) => p,
    }
}

/// The arguments a posted action form gives, checked against the
/// method's schema; the form again with the errors when they are not
/// valid.
pub fn action_args(d: &Dashboard, req: &PageRequest, eid: &str, aid: &str) -> Result<Json, Page> {
    let (title, schema) = action_schema(d, req, eid, aid)?;
    let posted = posted_args(req);
    crate::schema_form::clean::clean(&schema, &posted)
        .map(Json::Object)
        .map_err(|errors| {
            Page::Html(
                422,
                action_page(eid, aid, &title, &schema, &posted, &errors),
            )
        })
}
