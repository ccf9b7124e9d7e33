//! Deployments: `GET /deployments`, `GET /environments/{id}/deployments`
//! and a deployment's status reports (Murano's `deployments.py`).

use serde_json::{json, Value};

use super::{check_env, render};
use crate::app::{App, Outcome, Reply, Req};
use crate::fault::ApiError;
use crate::store::{key, Db, Row};

/// The model of a task as shown: `applications` renamed `services`.
fn patch_description(desc: &Value) -> Value {
    let mut d = if desc.is_object() {
        desc.clone()
    } else {
        json!({})
    };
    let apps = d
        .as_object_mut()
        .and_then(|o| o.remove("applications"))
        .unwrap_or(json!([]));
    d["services"] = apps;
    d
}

fn with_state(db: &Db, task: &Row) -> Result<Value, ApiError> {
    let id = task["id"].clone();
    let count = |level: &str| -> Result<usize, ApiError> {
        let mut k = key("task_id", id.clone());
        k.insert("level".into(), json!(level));
        Ok(db.select("status", &k, "")?.len())
    };
    let (errors, warnings) = (count("error")?, count("warning")?);
    let finished = !task["finished"].is_null();
    let state = match (finished, errors > 0, warnings > 0) {
        (true, true, _) => "completed_w_errors",
        (true, false, true) => "completed_w_warnings",
        (true, false, false) => "success",
        (false, true, _) => "running_w_errors",
        (false, false, true) => "running_w_warnings",
        (false, false, false) => "running",
    };
    let mut d = render("task", task, &[]);
    d["state"] = json!(state);
    d["description"] = patch_description(&task["description"]);
    Ok(d)
}

/// `GET /deployments` (every environment of the tenant) and
/// `GET /environments/{id}/deployments`, newest first.
pub fn index(app: &App, req: &Req, env_id: Option<&str>) -> Outcome {
    let db = app.db();
    let envs: Vec<String> = match env_id {
        None => {
            app.check("list_deployments_all_environments", &req.ctx, json!({}))?;
            let k = key("tenant_id", req.ctx.tenant_value());
            db.select("environment", &k, "")?
                .into_iter()
                .filter_map(|e| e["id"].as_str().map(str::to_owned))
                .collect()
        }
        Some(id) => {
            check_env(&db, req, id)?;
            app.check("list_deployments", &req.ctx, json!({"environment_id": id}))?;
            vec![id.to_owned()]
        }
    };
    let mut tasks = Vec::new();
    for e in &envs {
        tasks.extend(db.select("task", &key("environment_id", e.as_str()), "created DESC")?);
    }
    tasks.sort_by(|a, b| b["created"].as_str().cmp(&a["created"].as_str()));
    let out = tasks
        .iter()
        .map(|t| with_state(&db, t))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Reply::Json(json!({ "deployments": out })))
}

/// `GET /environments/{id}/deployments/{deployment_id}` (`service_id`
/// filters the reports to those services' objects).
pub fn statuses(app: &App, req: &Req, env_id: &str, dep_id: &str) -> Outcome {
    app.check(
        "statuses_deployments",
        &req.ctx,
        json!({"environment_id": env_id, "deployment_id": dep_id}),
    )?;
    let db = app.db();
    // Not in Murano: the environment must be the tenant's (tenant isolation).
    if db.get("environment", env_id)?.is_some() {
        check_env(&db, req, env_id)?;
    }
    let task = db
        .get("task", dep_id)?
        .ok_or_else(|| ApiError::plain(404))?;
    if task["environment_id"].as_str() != Some(env_id) {
        return Err(ApiError::plain(400));
    }
    let mut reports = db.select("status", &key("task_id", dep_id), "created")?;
    let wanted: Vec<&str> = req
        .query
        .iter()
        .filter(|(k, _)| k == "service_id")
        .map(|(_, v)| v.as_str())
        .collect();
    if !wanted.is_empty() {
        let desc = patch_description(&task["description"]);
        let mut ids = Vec::new();
        for svc in desc["services"].as_array().into_iter().flatten() {
            if svc["?"]["id"]
                .as_str()
                .is_some_and(|id| wanted.contains(&id))
            {
                super::environments::entity_ids(svc, &mut ids);
            }
        }
        if ids.is_empty() {
            return Ok(Reply::Json(json!({"reports": []})));
        }
        reports.retain(|r| {
            r["entity_id"]
                .as_str()
                .is_some_and(|e| ids.iter().any(|i| i == e))
        });
    }
    let out: Vec<Value> = reports.iter().map(|r| render("status", r, &[])).collect();
    Ok(Reply::Json(json!({ "reports": out })))
}
