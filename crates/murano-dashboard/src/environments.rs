//! Environments: list, create, delete; an environment's page with its
//! applications (status, last deployment), remove, deploy, its actions
//! and its deployment history with status reports (polled live by a small
//! script while a deployment runs; a reload shows the same).

use murano_api::handlers::{self, deployments, environments as envs, services, sessions};
use murano_api::store::TaskArtifacts;
use serde_json::{json, Value};

use crate::calls::{api_req, existing_session, json_of, message, open_session};
use crate::catalog::text;
use crate::html::{error_page, escape, page, url_encode, Section};
use crate::{Dashboard, Page, PageRequest};

fn status_class(status: &str) -> String {
    format!("status status-{}", status.replace([' ', '_'], "-"))
}

fn failure(e: &murano_api::fault::ApiError) -> Page {
    Page::Html(
        e.status,
        error_page("The request failed", Section::Environments, &message(e)),
    )
}

/// `GET /environments` (and the create form with its error).
pub fn list(d: &Dashboard, req: &PageRequest, error: Option<(&str, String)>) -> Page {
    let listed = match json_of(envs::index(&d.app, &api_req(&req.ctx, None, &[], None))) {
        Ok(v) => v,
        Err(e) => return failure(&e),
    };
    let mut body = String::from("<h1>Environments</h1>\n");
    let items = listed["environments"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if items.is_empty() {
        body.push_str("<p id=\"no-environments\">No environment yet.</p>\n");
    } else {
        body.push_str("<table id=\"environments\">\n<thead><tr><th scope=\"col\">Name</th><th scope=\"col\">Status</th><th scope=\"col\">Updated</th><th scope=\"col\"><span class=\"muted\">Actions</span></th></tr></thead>\n<tbody>\n");
        for e in &items {
            let id = text(&e["id"]);
            let status = text(&e["status"]);
            body.push_str(&format!(
                "<tr data-env=\"{0}\"><td><a href=\"/environments/{1}\">{2}</a></td><td><span class=\"{3}\">{4}</span></td><td>{5}</td>\
                 <td><form method=\"post\" action=\"/environments/{1}/delete\" class=\"inline\">\
                 <button type=\"submit\" class=\"danger\" aria-label=\"Delete environment {2}\">Delete</button></form></td></tr>\n",
                escape(&id),
                url_encode(&id),
                escape(&text(&e["name"])),
                status_class(&status),
                escape(&status),
                escape(&text(&e["updated"])),
            ));
        }
        body.push_str("</tbody>\n</table>\n");
    }
    let (typed, err) = match &error {
        Some((typed, msg)) => (*typed, Some(msg)),
        None => ("", None),
    };
    body.push_str("<h2 id=\"create-title\">Create an environment</h2>\n<form method=\"post\" action=\"/environments\" aria-labelledby=\"create-title\" novalidate>\n");
    let (class, described) = if err.is_some() {
        (
            " error",
            " aria-describedby=\"err_name\" aria-invalid=\"true\"",
        )
    } else {
        ("", "")
    };
    body.push_str(&format!(
        "<div class=\"field{class}\"><label for=\"id_name\">Environment name<span class=\"required\" title=\"required\">*</span></label>\n"
    ));
    if let Some(msg) = err {
        body.push_str(&format!(
            "<ul class=\"errors\" id=\"err_name\"><li>{}</li></ul>\n",
            escape(msg)
        ));
    }
    body.push_str(&format!(
        "<input type=\"text\" name=\"name\" id=\"id_name\" value=\"{}\" aria-required=\"true\"{described}></div>\n\
         <div class=\"buttons\"><button type=\"submit\" class=\"primary\" id=\"create\">Create</button></div>\n</form>\n",
        escape(typed)
    ));
    let status = if error.is_some() { 400 } else { 200 };
    Page::Html(status, page("Environments", Section::Environments, &body))
}

/// `POST /environments`: create, then show it.
pub fn create(d: &Dashboard, req: &PageRequest) -> Page {
    let name = req.field("name").unwrap_or("").to_owned();
    let body = json!({ "name": name });
    match json_of(envs::create(
        &d.app,
        &api_req(&req.ctx, None, &[], Some(&body)),
    )) {
        Ok(env) => Page::Redirect(format!("/environments/{}", url_encode(&text(&env["id"])))),
        Err(e) => list(d, req, Some((&name, message(&e)))),
    }
}

/// `POST /environments/{id}/delete`.
pub fn delete(d: &Dashboard, req: &PageRequest, eid: &str) -> Page {
    match json_of(envs::delete(
        &d.app,
        &api_req(&req.ctx, None, &[], None),
        eid,
    )) {
        Ok(_) => Page::Redirect("/environments".into()),
        Err(e) => failure(&e),
    }
}

/// `POST /environments/{id}/deploy`: deploy the user's session (one is
/// opened when nothing changed, as redeploying the same model).
pub fn deploy(d: &Dashboard, req: &PageRequest, eid: &str) -> Page {
    let run = || {
        let sid = open_session(&d.app, &req.ctx, eid)?;
        json_of(sessions::deploy(
            &d.app,
            &api_req(&req.ctx, Some(&sid), &[], None),
            eid,
            &sid,
        ))
    };
    match run() {
        Ok(_) => {
            // Deploying a deleted model removes the environment.
            let exists = d.app.db().get("environment", eid).ok().flatten().is_some();
            if exists {
                Page::Redirect(format!("/environments/{}#deployments", url_encode(eid)))
            } else {
                Page::Redirect("/environments".into())
            }
        }
        Err(e) => failure(&e),
    }
}

/// `POST /environments/{id}/apps/{app}/remove`: remove an application in
/// the user's session.
pub fn remove_app(d: &Dashboard, req: &PageRequest, eid: &str, aid: &str) -> Page {
    let run = || {
        let sid = open_session(&d.app, &req.ctx, eid)?;
        json_of(services::delete(
            &d.app,
            &api_req(&req.ctx, Some(&sid), &[], None),
            eid,
            Some(aid),
        ))
    };
    match run() {
        Ok(_) => Page::Redirect(format!("/environments/{}", url_encode(eid))),
        Err(e) => failure(&e),
    }
}

/// Whether a deployment state means it still runs.
pub fn running(state: &str) -> bool {
    state.starts_with("running")
}

fn app_name(app: &Value) -> String {
    let n = text(&app["?"]["name"]);
    if n.is_empty() {
        text(&app["name"])
    } else {
        n
    }
}

/// The deployment (newest first) whose model had application `aid`.
fn last_deployment_of<'a>(deps: &'a [Value], aid: &str) -> Option<&'a Value> {
    deps.iter().find(|dep| {
        dep["description"]["services"]
            .as_array()
            .is_some_and(|s| s.iter().any(|a| a["?"]["id"].as_str() == Some(aid)))
    })
}

/// The reports of one deployment as a table.
fn reports_table(reports: &[Value]) -> String {
    if reports.is_empty() {
        return "<p class=\"muted\">No report yet.</p>\n".into();
    }
    let mut out = String::from("<table class=\"reports\">\n<thead><tr><th scope=\"col\">Time</th><th scope=\"col\">Level</th><th scope=\"col\">Message</th></tr></thead>\n<tbody>\n");
    for r in reports {
        out.push_str(&format!(
            "<tr class=\"report level-{}\"><td>{}</td><td>{}</td><td>{}",
            escape(&text(&r["level"])),
            escape(&text(&r["created"])),
            escape(&text(&r["level"])),
            escape(&text(&r["text"])),
        ));
        let details = text(&r["details"]);
        if !details.is_empty() {
            out.push_str(&format!("<pre>{}</pre>", escape(&details)));
        }
        out.push_str("</td></tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// The script that refreshes the deployments section while one runs:
/// it fetches the page again and swaps the sections, and reloads the
/// whole page once nothing runs (buttons and actions change then); the
/// page without scripts shows the same on a reload.
const LIVE_SCRIPT: &str = "<script>\n(function () {\n  function poll() {\n    fetch(location.pathname, {credentials: 'same-origin'}).then(function (r) { return r.text(); }).then(function (t) {\n      var doc = new DOMParser().parseFromString(t, 'text/html');\n      if (!doc.getElementById('live')) { location.reload(); return; }\n      ['deployments', 'env-status', 'applications'].forEach(function (id) {\n        var now = doc.getElementById(id), old = document.getElementById(id);\n        if (now && old) { old.replaceWith(now); }\n      });\n      setTimeout(poll, 1500);\n    }).catch(function () { setTimeout(poll, 3000); });\n  }\n  setTimeout(poll, 1500);\n})();\n</script>\n";

/// The actions of the deployed model's objects, as forms.
fn actions_section(eid: &str, deployed: &Value, busy: bool) -> String {
    let mut found = Vec::new();
    collect_actions(deployed, &mut found);
    if found.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h2 id=\"actions-title\">Actions</h2>\n<ul id=\"actions\" aria-labelledby=\"actions-title\">\n");
    for (owner, aid, act) in found {
        let title = {
            let t = text(&act["title"]);
            if t.is_empty() {
                text(&act["name"])
            } else {
                t
            }
        };
        let disabled = if busy || act["enabled"] == json!(false) {
            " disabled"
        } else {
            ""
        };
        let fid = format!("args_{aid}");
        out.push_str(&format!(
            "<li><form method=\"post\" action=\"/environments/{}/actions/{}\">\n\
             <strong>{}</strong> <span class=\"muted\">of {}</span>\n\
             <div class=\"field\"><label for=\"{}\">Arguments (JSON object)</label>\n\
             <textarea name=\"args\" id=\"{}\" rows=\"2\">{{}}</textarea></div>\n\
             <button type=\"submit\" class=\"action\" data-action=\"{}\"{disabled}>Run {}</button>\n\
             <a href=\"/environments/{}/actions/{}\" class=\"action-form\">Arguments as a form</a>\n</form></li>\n",
            url_encode(eid),
            url_encode(&aid),
            escape(&title),
            escape(&owner),
            escape(&fid),
            escape(&fid),
            escape(&text(&act["name"])),
            escape(&title),
            url_encode(eid),
            url_encode(&aid),
        ));
    }
    out.push_str("</ul>\n");
    out
}

/// Every `_actions` entry in a model: (object name or type, action id,
/// action).
pub fn collect_actions(v: &Value, out: &mut Vec<(String, String, Value)>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| collect_actions(x, out)),
        Value::Object(m) => {
            if let Some(acts) = m
                .get("?")
                .and_then(|q| q.get("_actions"))
                .and_then(Value::as_object)
            {
                let owner = {
                    let n = text(&m.get("name").cloned().unwrap_or(Value::Null));
                    if n.is_empty() {
                        text(&m["?"]["type"])
                    } else {
                        n
                    }
                };
                for (aid, act) in acts {
                    out.push((owner.clone(), aid.clone(), act.clone()));
                }
            }
            for (k, x) in m {
                if k != "?" {
                    collect_actions(x, out);
                }
            }
        }
        _ => {}
    }
}

/// Each application's object model as the API returns it (what its
/// wizard or form made, with what was edited since), folded.
fn object_models(apps: &[Value]) -> String {
    let mut out = String::new();
    for a in apps {
        let json = serde_json::to_string_pretty(a).unwrap_or_default();
        out.push_str(&format!(
            "<details class=\"app-model\" data-app=\"{}\"><summary>Object model of {}</summary>\n<pre class=\"object-model\" tabindex=\"0\">{}</pre>\n</details>\n",
            escape(&text(&a["?"]["id"])),
            escape(&app_name(a)),
            escape(&json)
        ));
    }
    out
}

/// `GET /environments/{id}`.
pub fn show(d: &Dashboard, req: &PageRequest, eid: &str) -> Page {
    let sid = match existing_session(&d.app, &req.ctx, eid) {
        Ok(s) => s,
        Err(e) => return failure(&e),
    };
    // While a deployment runs, its session's model is what is shown.
    let shown = sid.clone().or_else(|| {
        let db = d.app.db();
        handlers::sessions_of(&db, eid, Some("deploying"))
            .ok()
            .and_then(|s| s.first().and_then(|s| s["id"].as_str().map(str::to_owned)))
    });
    let env = match json_of(envs::show(
        &d.app,
        &api_req(&req.ctx, shown.as_deref(), &[], None),
        eid,
    )) {
        Ok(v) => v,
        Err(e) => return failure(&e),
    };
    let deps = json_of(deployments::index(
        &d.app,
        &api_req(&req.ctx, None, &[], None),
        Some(eid),
    ))
    .ok()
    .and_then(|v| v["deployments"].as_array().cloned())
    .unwrap_or_default();
    let deployed = {
        let db = d.app.db();
        handlers::env_description(&db, eid, None).unwrap_or(Value::Null)
    };
    let name = text(&env["name"]);
    let status = text(&env["status"]);
    let busy = status == "deploying" || status == "deleting";
    let live = deps.iter().any(|dep| running(&text(&dep["state"])));
    let mut body = format!(
        "<p><a href=\"/environments\">Environments</a> / {}</p>\n<h1>{}</h1>\n\
         <p id=\"env-status\">Status: <span class=\"{}\">{}</span>{}</p>\n",
        escape(&name),
        escape(&name),
        status_class(&status),
        escape(&status),
        if sid.is_some() {
            " <span class=\"notice\" id=\"pending\">Changes not deployed yet</span>"
        } else {
            ""
        }
    );
    body.push_str(&format!(
        "<div class=\"buttons\">\n<a href=\"/environments/{0}/add\" id=\"add-app\">Add application</a>\n\
         <form method=\"post\" action=\"/environments/{0}/deploy\" class=\"inline\"><button type=\"submit\" class=\"primary\" id=\"deploy\"{1}>Deploy this environment</button></form>\n\
         <form method=\"post\" action=\"/environments/{0}/delete\" class=\"inline\"><button type=\"submit\" class=\"danger\" id=\"delete-env\"{1}>Delete environment</button></form>\n</div>\n",
        url_encode(eid),
        if busy { " disabled" } else { "" }
    ));
    body.push_str("<section id=\"applications\" aria-labelledby=\"apps-title\">\n<h2 id=\"apps-title\">Applications</h2>\n");
    let apps = env["services"].as_array().cloned().unwrap_or_default();
    if apps.is_empty() {
        body.push_str("<p id=\"no-apps\">No application yet.</p>\n");
    } else {
        body.push_str("<table id=\"apps\">\n<thead><tr><th scope=\"col\">Name</th><th scope=\"col\">Type</th><th scope=\"col\">Status</th><th scope=\"col\">Last deployment</th><th scope=\"col\"><span class=\"muted\">Actions</span></th></tr></thead>\n<tbody>\n");
        for a in &apps {
            let aid = text(&a["?"]["id"]);
            let st = text(&a["?"]["status"]);
            let last = last_deployment_of(&deps, &aid)
                .map(|dep| {
                    format!(
                        "<a href=\"/environments/{}/deployments/{}\">{}</a> {}",
                        url_encode(eid),
                        url_encode(&text(&dep["id"])),
                        escape(&text(&dep["state"])),
                        escape(&text(&dep["started"]))
                    )
                })
                .unwrap_or_else(|| "never".into());
            body.push_str(&format!(
                "<tr data-app=\"{}\" data-type=\"{}\"><td>{}</td><td><code>{}</code></td><td><span class=\"{}\">{}</span></td><td>{}</td>\
                 <td><a href=\"/environments/{}/apps/{}/edit\" class=\"edit-app\" aria-label=\"Edit {}\">Edit</a> \
                 <a href=\"/environments/{}/apps/{}/form\" class=\"form-app\" aria-label=\"Edit {} with the form of its class\">Form</a> \
                 <form method=\"post\" action=\"/environments/{}/apps/{}/remove\" class=\"inline\">\
                 <button type=\"submit\" class=\"danger remove-app\" aria-label=\"Remove {}\"{}>Remove</button></form></td></tr>\n",
                escape(&aid),
                escape(&text(&a["?"]["type"])),
                escape(&app_name(a)),
                escape(&text(&a["?"]["type"])),
                status_class(&st),
                escape(&st),
                last,
                url_encode(eid),
                url_encode(&aid),
                escape(&app_name(a)),
                url_encode(eid),
                url_encode(&aid),
                escape(&app_name(a)),
                url_encode(eid),
                url_encode(&aid),
                escape(&app_name(a)),
                if busy { " disabled" } else { "" },
            ));
        }
        body.push_str("</tbody>\n</table>\n");
        body.push_str(&object_models(&apps));
    }
    body.push_str("</section>\n");
    body.push_str(&actions_section(eid, &deployed["Objects"], busy));
    body.push_str("<section id=\"deployments\" aria-labelledby=\"deps-title\">\n<h2 id=\"deps-title\">Deployments</h2>\n");
    if live {
        body.push_str("<p id=\"live\" role=\"status\">A deployment is running; this section refreshes itself (or reload the page).</p>\n");
    }
    if deps.is_empty() {
        body.push_str("<p>Not deployed yet.</p>\n");
    } else {
        body.push_str("<table id=\"history\">\n<thead><tr><th scope=\"col\">Started</th><th scope=\"col\">Finished</th><th scope=\"col\">Action</th><th scope=\"col\">State</th></tr></thead>\n<tbody>\n");
        for dep in &deps {
            let state = text(&dep["state"]);
            let action = text(&dep["action"]["method"]);
            body.push_str(&format!(
                "<tr data-deployment=\"{}\" data-state=\"{}\"><td><a href=\"/environments/{}/deployments/{}\">{}</a></td><td>{}</td><td>{}</td><td><span class=\"{}\">{}</span></td></tr>\n",
                escape(&text(&dep["id"])),
                escape(&state),
                url_encode(eid),
                url_encode(&text(&dep["id"])),
                escape(&text(&dep["started"])),
                escape(&text(&dep["finished"])),
                escape(if action.is_empty() { "deploy" } else { &action }),
                status_class(&state),
                escape(&state),
            ));
        }
        body.push_str("</tbody>\n</table>\n");
        if let Some(latest) = deps.first() {
            let reports = json_of(deployments::statuses(
                &d.app,
                &api_req(&req.ctx, None, &[], None),
                eid,
                &text(&latest["id"]),
            ))
            .ok()
            .and_then(|v| v["reports"].as_array().cloned())
            .unwrap_or_default();
            body.push_str(
                "<h3>Reports of the latest deployment</h3>\n<div id=\"latest-reports\">\n",
            );
            body.push_str(&reports_table(&reports));
            body.push_str("</div>\n");
        }
    }
    body.push_str("</section>\n");
    if live {
        body.push_str(LIVE_SCRIPT);
    }
    Page::Html(200, page(&name, Section::Environments, &body))
}

/// `GET /environments/{id}/deployments/{deployment}`: its reports, its
/// model, the Heat templates and agent plans it sent, and what the engine
/// returned.
pub fn deployment(d: &Dashboard, req: &PageRequest, eid: &str, did: &str) -> Page {
    let r = api_req(&req.ctx, None, &[], None);
    let reports = match json_of(deployments::statuses(&d.app, &r, eid, did)) {
        Ok(v) => v["reports"].as_array().cloned().unwrap_or_default(),
        Err(e) => return failure(&e),
    };
    let dep = json_of(deployments::index(&d.app, &r, Some(eid)))
        .ok()
        .and_then(|v| {
            v["deployments"]
                .as_array()
                .and_then(|a| a.iter().find(|x| x["id"].as_str() == Some(did)).cloned())
        })
        .unwrap_or(Value::Null);
    let state = text(&dep["state"]);
    let mut body = format!(
        "<p><a href=\"/environments/{}\">Back to the environment</a></p>\n<h1>Deployment {}</h1>\n\
         <p>State: <span class=\"{}\" id=\"state\">{}</span>; started {}, finished {}.</p>\n<h2>Reports</h2>\n",
        url_encode(eid),
        escape(&text(&dep["started"])),
        status_class(&state),
        escape(&state),
        escape(&text(&dep["started"])),
        escape(&text(&dep["finished"])),
    );
    body.push_str(&reports_table(&reports));
    body.push_str(&format!(
        "<h2>Object model</h2>\n<pre id=\"deployment-model\" tabindex=\"0\">{}</pre>\n",
        escape(&serde_json::to_string_pretty(&dep["description"]).unwrap_or_default())
    ));
    let (result, artifacts) = {
        let db = d.app.db();
        let result = db
            .get("task", did)
            .ok()
            .flatten()
            .map(|t| t["result"].clone());
        (
            result.unwrap_or(Value::Null),
            db.task_artifacts(did).ok().flatten(),
        )
    };
    body.push_str(&artifacts_section(d, eid, artifacts.as_ref()));
    if !result.is_null() {
        body.push_str(&format!(
            "<details><summary>Result</summary><pre id=\"result\">{}</pre></details>\n",
            escape(&serde_json::to_string_pretty(&result).unwrap_or_default())
        ));
    }
    Page::Html(200, page("Deployment", Section::Environments, &body))
}

/// The Heat templates and agent plans deployment sent (`artifacts`, as
/// the worker kept them), or, for a deployment that kept none (one still
/// running, or made before they were kept), the environment's stacks as
/// its offline cloud has them now, said so.
fn artifacts_section(d: &Dashboard, eid: &str, artifacts: Option<&TaskArtifacts>) -> String {
    let mut out = String::from(
        "<section id=\"sent\" aria-labelledby=\"sent-title\">\n<h2 id=\"sent-title\">Heat templates and agent plans</h2>\n",
    );
    let omitted = |item: &Value| item.get("omitted").and_then(Value::as_u64);
    match artifacts {
        Some(a) => {
            out.push_str(&format!(
                "<h3>Heat templates ({})</h3>\n",
                a.heat.iter().filter(|h| omitted(h).is_none()).count()
            ));
            if a.heat.is_empty() {
                out.push_str("<p class=\"muted\" id=\"no-heat\">This deployment sent no Heat templates.</p>\n");
            }
            for (i, h) in a.heat.iter().enumerate() {
                if let Some(n) = omitted(h) {
                    out.push_str(&format!("<p class=\"muted\">{n} more Heat operations were not kept (over the size limit).</p>\n"));
                    continue;
                }
                let op = text(&h["op"]);
                let shown = if h.get("template").is_some() {
                    serde_json::to_string_pretty(&json!({
                        "template": h["template"], "parameters": h["parameters"],
                        "files": h["files"], "environment": h["environment"],
                    }))
                    .unwrap_or_default()
                } else {
                    String::new()
                };
                out.push_str(&format!(
                    "<details class=\"heat\" data-op=\"{}\"{}><summary>{}. {} of stack {} (region {})</summary>\n<pre class=\"heat_templates\" tabindex=\"0\">{}</pre>\n</details>\n",
                    escape(&op),
                    if i == 0 { " open" } else { "" },
                    i + 1,
                    escape(&op),
                    escape(&text(&h["stack"])),
                    escape(&text(&h["region"])),
                    escape(&shown),
                ));
            }
            out.push_str(&format!(
                "<h3>Agent plans ({})</h3>\n",
                a.agent_plans
                    .iter()
                    .filter(|p| omitted(p).is_none())
                    .count()
            ));
            if a.agent_plans.is_empty() {
                out.push_str(
                    "<p class=\"muted\" id=\"no-plans\">This deployment sent no agent plans.</p>\n",
                );
            }
            for (i, p) in a.agent_plans.iter().enumerate() {
                if let Some(n) = omitted(p) {
                    out.push_str(&format!("<p class=\"muted\">{n} more agent plans were not kept (over the size limit).</p>\n"));
                    continue;
                }
                out.push_str(&format!(
                    "<details class=\"plan\"><summary>{}. To {} (queue {}){}</summary>\n<pre class=\"agent_plans\" tabindex=\"0\">{}</pre>\n</details>\n",
                    i + 1,
                    escape(&text(&p["host"])),
                    escape(&text(&p["queue"])),
                    if p["wait_results"].as_bool() == Some(true) { ", waiting for the result" } else { "" },
                    escape(&serde_json::to_string_pretty(&p["plan"]).unwrap_or_default()),
                ));
            }
        }
        None => {
            let cloud = d.app.db().cloud_state(eid).ok().flatten();
            let stacks = cloud
                .as_ref()
                .and_then(|c| c.get("heat"))
                .and_then(Value::as_object);
            out.push_str("<p class=\"muted\" id=\"not-kept\">This deployment kept no record of what it sent (it is still running, or it ran before records were kept).</p>\n");
            for (name, stack) in stacks.into_iter().flatten() {
                out.push_str(&format!(
                    "<details class=\"stack\"><summary>Heat stack {} (as the environment's cloud has it now)</summary>\n<pre class=\"heat_templates\">{}</pre>\n</details>\n",
                    escape(name),
                    escape(&serde_json::to_string_pretty(&stack["template"]).unwrap_or_default())
                ));
            }
        }
    }
    out.push_str("</section>\n");
    out
}
