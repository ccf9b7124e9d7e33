//! `/environments/{id}/configure` and `/environments/{id}/sessions/{sid}`:
//! open, show, delete and deploy a configuration session (Murano's
//! `sessions.py` and `SessionServices`).

use serde_json::{json, Value};

use super::{check_env, check_session, env_status, render, validate_session};
use crate::app::{App, Outcome, Reply, Req};
use crate::clock;
use crate::fault::ApiError;
use crate::store::{key, Row};

fn session_dict(row: &Row) -> Value {
    render("session", row, &["description"])
}

/// Open a session on `env_id` for the context's user; its dict.
pub fn configure_row(app: &App, req: &Req, env_id: &str) -> Result<Value, ApiError> {
    let db = app.db();
    let env = check_env(&db, req, env_id)?;
    let status = env_status(&db, env_id)?;
    if status == "deploying" || status == "deleting" {
        return Err(ApiError::forbidden(format!(
            "Could not open session for environment <EnvId: {env_id}>, environment has deploying or deleting status."
        )));
    }
    let now = clock::now();
    let mut row = Row::new();
    row.insert("id".into(), json!(clock::new_id()));
    row.insert("environment_id".into(), json!(env_id));
    row.insert("user_id".into(), json!(req.ctx.user));
    row.insert("state".into(), json!("opened"));
    row.insert(
        "version".into(),
        env.get("version").cloned().unwrap_or(json!(0)),
    );
    row.insert(
        "description".into(),
        env.get("description").cloned().unwrap_or(Value::Null),
    );
    row.insert("created".into(), json!(now));
    row.insert("updated".into(), json!(now));
    db.insert("session", &row)?;
    Ok(session_dict(&row))
}

/// `POST /environments/{id}/configure`.
pub fn configure(app: &App, req: &Req, env_id: &str) -> Outcome {
    configure_row(app, req, env_id).map(Reply::Json)
}

fn invalid(sid: &str) -> ApiError {
    ApiError::forbidden(format!(
        "Session <SessionId {sid}> is invalid: environment has been updated or updating right now with other session"
    ))
}

fn not_owner(req: &Req, sid: &str) -> ApiError {
    ApiError::new(
        401,
        format!(
            "User <UserId {}> is not authorized to access session <SessionId {sid}>.",
            req.ctx.user.as_deref().unwrap_or("None")
        ),
    )
}

/// `GET /environments/{id}/sessions/{sid}`.
pub fn show(app: &App, req: &Req, env_id: &str, sid: &str) -> Outcome {
    let db = app.db();
    let sess = db.get("session", sid)?;
    check_session(&db, req, env_id, sess.as_ref(), sid)?;
    let sess = sess.ok_or_else(|| ApiError::plain(404))?;
    if sess["user_id"].as_str() != req.ctx.user.as_deref() {
        return Err(not_owner(req, sid));
    }
    if !validate_session(&db, &sess)? {
        return Err(invalid(sid));
    }
    Ok(Reply::Json(session_dict(&sess)))
}

/// `DELETE /environments/{id}/sessions/{sid}`.
pub fn delete(app: &App, req: &Req, env_id: &str, sid: &str) -> Outcome {
    let db = app.db();
    let sess = db.get("session", sid)?;
    check_session(&db, req, env_id, sess.as_ref(), sid)?;
    let sess = sess.ok_or_else(|| ApiError::plain(404))?;
    if sess["user_id"].as_str() != req.ctx.user.as_deref() {
        return Err(not_owner(req, sid));
    }
    if sess["state"] == "deploying" {
        return Err(ApiError::forbidden(format!(
            "Session <SessionId: {sid}> is in deploying state and could not be deleted"
        )));
    }
    db.delete("session", &key("id", sid))?;
    Ok(Reply::Empty)
}

/// `POST /environments/{id}/sessions/{sid}/deploy`: hand the session's
/// model to the engine (or remove the environment when the model was
/// deleted and never deployed).
pub fn deploy(app: &App, req: &Req, env_id: &str, sid: &str) -> Outcome {
    let task = {
        let db = app.db();
        let sess = db.get("session", sid)?;
        check_session(&db, req, env_id, sess.as_ref(), sid)?;
        let sess = sess.ok_or_else(|| ApiError::plain(404))?;
        if !validate_session(&db, &sess)? {
            return Err(invalid(sid));
        }
        if sess["state"] != "opened" {
            return Err(ApiError::forbidden(format!(
                "Session <SessionId {sid}> is already deployed or deployment is in progress"
            )));
        }
        let desc = &sess["description"];
        if desc["Objects"].is_null() && desc.get("ObjectsCopy").is_none() {
            super::environments::remove(&db, env_id)?;
            return Ok(Reply::Empty);
        }
        let action = if desc["Objects"].is_null() {
            None
        } else {
            Some(json!({"object_id": env_id, "method": "deploy", "args": {}}))
        };
        let name = if action.is_some() { "deploy" } else { "None" };
        submit(&db, req, env_id, &sess, action, name)?.0
    };
    app.engine.handle_task(task);
    Ok(Reply::Empty)
}

/// Murano's `ActionServices.submit_task` minus the RPC: build the engine
/// task from the session's model, mark the session deploying (deleting
/// when the model is gone), record the task and its "scheduled" status.
/// Returns the task to hand to the engine and the task's id.
pub fn submit(
    db: &crate::store::Db,
    req: &Req,
    env_id: &str,
    sess: &Row,
    action: Option<Value>,
    action_name: &str,
) -> Result<(Value, String), ApiError> {
    let mut model = sess.get("description").cloned().unwrap_or(Value::Null);
    let has_objects = !model["Objects"].is_null();
    if has_objects {
        model["Objects"]["?"]["id"] = json!(env_id);
        let services = model["Objects"]
            .as_object_mut()
            .and_then(|o| o.remove("services"))
            .unwrap_or(json!([]));
        model["Objects"]["applications"] = services;
    }
    let task = json!({
        "action": action,
        "model": model,
        "token": req.ctx.auth_token,
        "project_id": req.ctx.tenant,
        "user_id": req.ctx.user,
        "id": env_id,
    });
    let now = clock::now();
    let task_id = clock::new_id();
    let sid = sess["id"].as_str().unwrap_or("");
    db.transaction(|db| {
        let state = if has_objects { "deploying" } else { "deleting" };
        let set: Row = [
            ("state".to_owned(), json!(state)),
            ("updated".to_owned(), json!(now)),
        ]
        .into_iter()
        .collect();
        db.update("session", &key("id", sid), &set)?;
        let mut t = Row::new();
        t.insert("id".into(), json!(task_id));
        t.insert("environment_id".into(), json!(env_id));
        t.insert(
            "description".into(),
            if has_objects {
                task["model"]["Objects"].clone()
            } else {
                Value::Null
            },
        );
        t.insert("action".into(), task["action"].clone());
        t.insert("result".into(), json!({}));
        t.insert("started".into(), json!(now));
        t.insert("finished".into(), Value::Null);
        t.insert("created".into(), json!(now));
        t.insert("updated".into(), json!(now));
        db.insert("task", &t)?;
        let mut st = Row::new();
        st.insert("id".into(), json!(clock::new_id()));
        st.insert("task_id".into(), json!(task_id));
        st.insert(
            "text".into(),
            json!(format!("Action {action_name} is scheduled")),
        );
        st.insert("level".into(), json!("info"));
        st.insert("created".into(), json!(now));
        st.insert("updated".into(), json!(now));
        db.insert("status", &st)?;
        Ok::<_, ApiError>(())
    })?;
    Ok((task, task_id))
}
