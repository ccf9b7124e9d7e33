//! Murano's v1 controllers, one module per resource, and the helpers they
//! share (Murano's `check_env`, `check_session`, environment status).

pub mod actions;
pub mod categories;
pub mod deployments;
pub mod environments;
pub mod package_search;
pub mod packages;
pub mod recovery;
pub mod request_stats;
pub mod results;
pub mod schemas;
pub mod services;
pub mod sessions;
pub mod statistics;
pub mod templates;
pub mod traverse_update;

use serde_json::{json, Value};

use crate::app::Req;
use crate::clock;
use crate::fault::ApiError;
use crate::schema::{self, Kind};
use crate::store::{key, Db, Row};

/// A row as a JSON response renders it: times without microseconds,
/// `skip` columns left out.
pub fn render(table: &str, row: &Row, skip: &[&str]) -> Value {
    let mut out = serde_json::Map::new();
    let Some(t) = schema::table(table) else {
        return Value::Object(out);
    };
    for c in t.columns {
        if skip.contains(&c.name) {
            continue;
        }
        let v = row.get(c.name).cloned().unwrap_or(Value::Null);
        let v = match (c.kind, v) {
            (Kind::Time, Value::String(s)) => Value::String(clock::render(&s)),
            (_, v) => v,
        };
        out.insert(c.name.to_owned(), v);
    }
    Value::Object(out)
}

/// The environment `id` if the context may see it: 404, else 403 for
/// another tenant's (admins see all).
pub fn check_env(db: &Db, req: &Req, id: &str) -> Result<Row, ApiError> {
    let env = db
        .get("environment", id)?
        .ok_or_else(|| ApiError::not_found(format!("Environment with id {id} not found")))?;
    if env.get("tenant_id").and_then(Value::as_str) != req.ctx.tenant.as_deref()
        && !req.ctx.is_admin
    {
        return Err(ApiError::forbidden(
            "User is not authorized to access these tenant resources",
        ));
    }
    Ok(env)
}

/// Murano's `check_session`: the session exists, belongs to the
/// environment, and the environment passes `check_env`.
pub fn check_session(
    db: &Db,
    req: &Req,
    env_id: &str,
    session: Option<&Row>,
    sid: &str,
) -> Result<(), ApiError> {
    let Some(s) = session else {
        return Err(ApiError::not_found(format!(
            "Session <SessionId {sid}> is not found"
        )));
    };
    if s.get("environment_id").and_then(Value::as_str) != Some(env_id) {
        return Err(ApiError::bad_request(format!(
            "Session <SessionId {sid}> is not tied with Environment <EnvId {env_id}>"
        )));
    }
    check_env(db, req, env_id).map(|_| ())
}

fn s<'a>(row: &'a Row, col: &str) -> &'a str {
    row.get(col).and_then(Value::as_str).unwrap_or("")
}

fn int(row: &Row, col: &str) -> i64 {
    row.get(col).and_then(Value::as_i64).unwrap_or(0)
}

/// The sessions of an environment (of one state, if given), newest version
/// first, then most recently updated first.
pub fn sessions_of(db: &Db, env_id: &str, state: Option<&str>) -> Result<Vec<Row>, ApiError> {
    let mut k = key("environment_id", env_id);
    if let Some(st) = state {
        k.insert("state".into(), json!(st));
    }
    Ok(db.select("session", &k, "version DESC, updated DESC")?)
}

/// The derived status of an environment (Murano's `get_status`).
pub fn env_status(db: &Db, env_id: &str) -> Result<&'static str, ApiError> {
    let mut has_opened = false;
    // The states only: the sessions' descriptions (whole environments)
    // are not decoded for it.
    let sessions = db.select_columns(
        "session",
        &key("environment_id", env_id),
        &["id", "state"],
        "version DESC, updated DESC",
    )?;
    for sess in sessions {
        match s(&sess, "state") {
            "deploying" => return Ok("deploying"),
            "deleting" => return Ok("deleting"),
            "deploy failure" => return Ok("deploy failure"),
            "delete failure" => return Ok("delete failure"),
            "opened" => has_opened = true,
            "deployed" => break,
            _ => {}
        }
    }
    Ok(if has_opened { "pending" } else { "ready" })
}

/// Murano's `SessionServices.validate`: no newer deployment happened and
/// (for an open session) no other session is deploying.
pub fn validate_session(db: &Db, sess: &Row) -> Result<bool, ApiError> {
    let env_id = s(sess, "environment_id");
    let Some(env) = db.get("environment", env_id)? else {
        return Ok(false);
    };
    if int(&env, "version") > int(sess, "version") {
        return Ok(false);
    }
    let deploying = !sessions_of(db, env_id, Some("deploying"))?.is_empty();
    Ok(!(s(sess, "state") == "opened" && deploying))
}

/// The whole environment description (`{"Objects", "Attributes", ...}`) a
/// request works on: the session's working copy when it names a valid,
/// not yet deployed session, else the deployed one.
pub fn env_description(db: &Db, env_id: &str, session_id: Option<&str>) -> Result<Value, ApiError> {
    if let Some(sid) = session_id {
        if let Some(sess) = db.get("session", sid)? {
            let env_id = s(&sess, "environment_id").to_owned();
            if validate_session(db, &sess)? && s(&sess, "state") != "deployed" {
                return Ok(sess.get("description").cloned().unwrap_or(Value::Null));
            }
            return Ok(db
                .get("environment", &env_id)?
                .and_then(|e| e.get("description").cloned())
                .unwrap_or(Value::Null));
        }
    }
    Ok(db
        .get("environment", env_id)?
        .and_then(|e| e.get("description").cloned())
        .unwrap_or(Value::Null))
}

/// Murano's `TraverseHelper.get`: walk `path` (`/a/b`) through dicts by key
/// and lists by index or by an element's `?.id`; `None` when it leads
/// nowhere.
pub fn traverse<'a>(path: &str, mut v: &'a Value) -> Option<&'a Value> {
    for seg in path.split('/').filter(|p| !p.is_empty()) {
        v = match v {
            Value::Object(m) => m.get(seg)?,
            Value::Array(a) => match seg.parse::<usize>() {
                Ok(i) => a.get(i)?,
                Err(_) => a.iter().find(|x| x["?"]["id"].as_str() == Some(seg))?,
            },
            _ => return None,
        };
    }
    Some(v)
}

/// `services` of the model a request works on, each with its status.
pub fn services(db: &Db, env_id: &str, session_id: Option<&str>) -> Result<Value, ApiError> {
    let desc = env_description(db, env_id, session_id)?;
    let objects = &desc["Objects"];
    if objects.is_null() {
        return Ok(Value::Null);
    }
    let Some(list) = objects.get("services") else {
        return Ok(json!([]));
    };
    let mut list = list.clone();
    let status = env_status(db, env_id)?;
    if let Value::Array(items) = &mut list {
        for it in items {
            if let Some(q) = it.get_mut("?").and_then(Value::as_object_mut) {
                q.insert("status".into(), json!(status));
            }
        }
    }
    Ok(list)
}
