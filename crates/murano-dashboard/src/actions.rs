//! Actions of a deployed model: a call with its arguments (a JSON object
//! posted from the environment page) and its result page.

use murano_api::handlers::actions;
use serde_json::Value;

use crate::calls::{api_req, json_of, message};
use crate::catalog::text;
use crate::html::{error_page, escape, page, url_encode, Section};
use crate::{Dashboard, Page, PageRequest};

/// `POST /environments/{id}/actions/{action}`: call it; show its task.
pub fn call(d: &Dashboard, req: &PageRequest, eid: &str, aid: &str) -> Page {
    let raw = req.field("args").unwrap_or("").trim();
    let args: Value = if req.field("__form").is_some() {
        match crate::action_form::action_args(d, req, eid, aid) {
            Ok(v) => v,
            Err(p) => return p,
        }
    } else if raw.is_empty() {
        Value::Object(Default::default())
    } else {
        match serde_json::from_str(raw) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                return Page::Html(
                    400,
                    error_page(
                        "The arguments are not valid",
                        Section::Environments,
                        "The arguments of an action are a JSON object, such as {\"count\": 2}.",
                    ),
                )
            }
        }
    };
    match json_of(actions::execute(
        &d.app,
        &api_req(&req.ctx, None, &[], Some(&args)),
        eid,
        aid,
    )) {
        Ok(v) => Page::Redirect(format!(
            "/environments/{}/tasks/{}",
            url_encode(eid),
            url_encode(&text(&v["task_id"]))
        )),
        Err(e) => Page::Html(
            e.status,
            error_page(
                "The action was not called",
                Section::Environments,
                &message(&e),
            ),
        ),
    }
}

/// `GET /environments/{id}/tasks/{task}`: the action's result, or that it
/// still runs (the page reloads itself then; a manual reload works too).
pub fn result(d: &Dashboard, req: &PageRequest, eid: &str, tid: &str) -> Page {
    let back = format!(
        "<p><a href=\"/environments/{}\">Back to the environment</a></p>\n",
        url_encode(eid)
    );
    match json_of(actions::get_result(
        &d.app,
        &api_req(&req.ctx, None, &[], None),
        eid,
        tid,
    )) {
        // An empty result is a task still running (Murano stores `{}`
        // until the engine reports back).
        Ok(v) if v.as_object().is_none_or(|o| !o.is_empty()) => {
            let failed = v["isException"] == Value::Bool(true);
            let body = format!(
                "{back}<h1>Action result</h1>\n<p id=\"action-state\" class=\"status {}\">{}</p>\n<pre id=\"action-result\" tabindex=\"0\">{}</pre>\n",
                if failed { "status-failure" } else { "status-success" },
                if failed { "The action failed" } else { "The action succeeded" },
                escape(&serde_json::to_string_pretty(&v["result"]).unwrap_or_default())
            );
            Page::Html(200, page("Action result", Section::Environments, &body))
        }
        Ok(_) => {
            let body = format!(
                "{back}<h1>Action result</h1>\n<p id=\"action-state\" role=\"status\">The action runs; its result shows here when it ends (reload the page).</p>\n\
                 <script>setTimeout(function () {{ location.reload(); }}, 1500);</script>\n"
            );
            Page::Html(200, page("Action result", Section::Environments, &body))
        }
        Err(e) => Page::Html(
            e.status,
            error_page("No result", Section::Environments, &message(&e)),
        ),
    }
}
