//! Actions: `POST /environments/{id}/actions/{action_id}` (a task id),
//! `GET /environments/{id}/actions/{task_id}` (its result) and static
//! actions, `POST /actions` (Murano's `actions.py`, `static_actions.py`).

use serde_json::{json, Value};

use super::{check_env, env_status};
use crate::app::{App, Outcome, Reply, Req};
use crate::fault::ApiError;
use crate::store::{key, Row};

/// The object holding action `action_id` in its `?._actions`, and the
/// action's entry (Murano's `find_action`).
fn find_action<'a>(model: &'a Value, action_id: &str) -> Option<(&'a str, &'a Value)> {
    match model {
        Value::Array(a) => a.iter().find_map(|x| find_action(x, action_id)),
        Value::Object(m) => {
            if let Some(q) = m.get("?") {
                if let (Some(id), Some(act)) = (
                    q["id"].as_str(),
                    q.get("_actions").and_then(|a| a.get(action_id)),
                ) {
                    return Some((id, act));
                }
            }
            m.values().find_map(|x| find_action(x, action_id))
        }
        _ => None,
    }
}

/// `POST /environments/{id}/actions/{action_id}`.
pub fn execute(app: &App, req: &Req, env_id: &str, action_id: &str) -> Outcome {
    let body = req.json()?;
    let task = {
        let db = app.db();
        check_env(&db, req, env_id)?;
        app.check("execute_action", &req.ctx, json!({}))?;
        let status = env_status(&db, env_id)?;
        if status == "deploying" || status == "deleting" {
            return Err(ApiError::plain(403));
        }
        drop(db);
        let sess = super::sessions::configure_row(app, req, env_id)?;
        let db = app.db();
        let sid = sess["id"].as_str().unwrap_or("");
        let sess: Row = db
            .get("session", sid)?
            .ok_or_else(|| ApiError::plain(404))?;
        if !super::validate_session(&db, &sess)? {
            return Err(ApiError::plain(403));
        }
        let (obj, act) = find_action(&sess["description"], action_id)
            .map(|(o, a)| (o.to_owned(), a.clone()))
            .ok_or_else(|| ApiError::detail(404, "Action is not found"))?;
        if act.get("enabled") == Some(&json!(false)) {
            return Err(ApiError::detail(400, "Cannot execute disabled action"));
        }
        let name = act["name"].as_str().unwrap_or("").to_owned();
        let args = match body {
            Some(v) if v != json!({}) && !v.is_null() => v,
            _ => json!({}),
        };
        let action = json!({"object_id": obj, "method": name, "args": args});
        super::sessions::submit(&db, req, env_id, &sess, Some(action), &name)?
    };
    let (task, task_id) = task;
    app.engine.handle_task(task);
    Ok(Reply::Json(json!({ "task_id": task_id })))
}

/// `GET /environments/{id}/actions/{task_id}`.
pub fn get_result(app: &App, req: &Req, env_id: &str, task_id: &str) -> Outcome {
    let db = app.db();
    check_env(&db, req, env_id)?;
    app.check("execute_action", &req.ctx, json!({}))?;
    let mut k = key("id", task_id);
    k.insert("environment_id".into(), json!(env_id));
    match db.select("task", &k, "")?.into_iter().next().map(|t| t["result"].clone()) {
        Some(r) if !r.is_null() => Ok(Reply::Json(r)),
        _ => Err(ApiError::detail(
            404,
            format!("Result for task with environment_id: {env_id} and task_id: {task_id} was not found."),
        )),
    }
}

/// `POST /actions`: a static action, run by the engine.
pub fn static_action(app: &App, req: &Req) -> Outcome {
    let body = req.json()?.unwrap_or(json!({}));
    app.check("execute_action", &req.ctx, json!({}))?;
    let get = |k: &str| body.get(k).cloned().unwrap_or(Value::Null);
    let nonempty = |v: &Value| match v {
        Value::String(s) => !s.is_empty(),
        Value::Null => false,
        _ => true,
    };
    let (class, method) = (get("className"), get("methodName"));
    if !nonempty(&class) || !nonempty(&method) {
        return Err(ApiError::detail(
            400,
            "Class name and method name must be specified for static action",
        ));
    }
    let version = body.get("classVersion").cloned().unwrap_or(json!("=0"));
    let task = json!({
        "action": {"method": method, "class_name": class, "pkg_name": get("packageName"),
                   "class_version": version, "args": get("parameters")},
        "token": req.ctx.auth_token,
        "project_id": req.ctx.tenant,
        "user_id": req.ctx.user,
        "id": crate::clock::new_uuid(),
    });
    match app.engine.call_static_action(task) {
        Ok(v) => Ok(Reply::Json(v)),
        Err(e) => Err(match e.exc_type.as_str() {
            "NoClassFound"
            | "NoMethodFound"
            | "NoPackageFound"
            | "NoPackageForClassFound"
            | "MethodNotExposed"
            | "NoMatchingMethodException" => ApiError::detail(404, e.value),
            "ContractViolationException" | "ValueError" => ApiError::detail(400, e.value),
            _ => ApiError::detail(503, e.value),
        }),
    }
}
