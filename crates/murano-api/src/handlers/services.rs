//! `/environments/{id}/services[/{path}]`: read and edit the applications
//! of an environment's model inside a configuration session
//! (`X-Configuration-Session`; Murano's `services.py`, `CoreServices`).

use serde_json::{json, Value};

use super::{check_env, env_description, services, traverse, validate_session};
use crate::app::{App, Outcome, Reply, Req};
use crate::clock;
use crate::fault::ApiError;
use crate::store::{key, Db, Row};

fn full_path(path: Option<&str>) -> String {
    match path.filter(|p| !p.is_empty()) {
        Some(p) => format!("/services/{}", p.trim_end_matches('/')),
        None => "/services".to_owned(),
    }
}

/// Murano's `verify_session`: the header names an existing, valid session
/// that is not deploying; its id.
fn verify_session(db: &Db, req: &Req) -> Result<String, ApiError> {
    let sid = req.ctx.session.clone().ok_or_else(|| {
        ApiError::bad_request(
            "X-Configuration-Session header which indicates to the session is missed",
        )
    })?;
    let sess = db
        .get("session", &sid)?
        .ok_or_else(|| ApiError::not_found(format!("Session <SessionId {sid}> is not found")))?;
    if !validate_session(db, &sess)? {
        return Err(ApiError::forbidden(format!(
            "Session <SessionId {sid}> is invalid: environment has been updated or updating right now with other session"
        )));
    }
    if sess["state"] == "deploying" {
        return Err(ApiError::forbidden(format!(
            "Session <SessionId {sid}> is already in deployment state"
        )));
    }
    Ok(sid)
}

/// The node at `path` for writing: dicts by key, lists by index or `?.id`.
fn node_mut<'a>(mut v: &'a mut Value, segs: &[&str]) -> Option<&'a mut Value> {
    for seg in segs {
        v = match v {
            Value::Object(m) => m.get_mut(*seg)?,
            Value::Array(a) => match seg.parse::<usize>() {
                Ok(i) => a.get_mut(i)?,
                Err(_) => a.iter_mut().find(|x| x["?"]["id"].as_str() == Some(seg))?,
            },
            _ => return None,
        };
    }
    Some(v)
}

fn segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

/// Murano's `TraverseHelper.remove`.
fn remove_at(doc: &mut Value, path: &str) -> Option<()> {
    let segs = segments(path);
    let (last, init) = segs.split_last()?;
    match node_mut(doc, init)? {
        Value::Object(m) => m.remove(*last).map(|_| ()),
        Value::Array(a) => {
            let i = match last.parse::<usize>() {
                Ok(i) if i < a.len() => i,
                _ => a.iter().position(|x| x["?"]["id"].as_str() == Some(last))?,
            };
            a.remove(i);
            Some(())
        }
        _ => None,
    }
}

fn save(db: &Db, sid: &str, objects: Value) -> Result<(), ApiError> {
    let mut desc = db
        .get("session", sid)?
        .map(|s| s["description"].clone())
        .unwrap_or(json!({}));
    desc["Objects"] = objects;
    let set: Row = [
        ("description".to_owned(), desc),
        ("updated".to_owned(), json!(clock::now())),
    ]
    .into_iter()
    .collect();
    db.update("session", &key("id", sid), &set)?;
    Ok(())
}

/// `GET /environments/{id}/services[/{path}]`.
pub fn get(app: &App, req: &Req, env_id: &str, path: Option<&str>) -> Outcome {
    let db = app.db();
    check_env(&db, req, env_id)?;
    let sid = req.ctx.session.as_deref();
    let path = full_path(path);
    if path == "/services" {
        return Ok(Reply::Json(services(&db, env_id, sid)?));
    }
    let desc = env_description(&db, env_id, sid)?;
    let objects = &desc["Objects"];
    if objects.is_null() {
        return Ok(Reply::Json(Value::Null));
    }
    if objects.get("services").is_none() {
        return Ok(Reply::Json(json!([])));
    }
    traverse(&path, objects)
        .cloned()
        .map(Reply::Json)
        .ok_or_else(|| ApiError::plain(404))
}

/// `POST /environments/{id}/services`: add an application (or a list).
pub fn post(app: &App, req: &Req, env_id: &str, path: Option<&str>) -> Outcome {
    let body = req.json()?;
    let db = app.db();
    let sid = verify_session(&db, req)?;
    check_env(&db, req, env_id)?;
    let body = body.filter(|b| !matches!(b, Value::Null) && *b != json!({}) && *b != json!([]));
    let Some(body) = body else {
        return Err(ApiError::detail(
            400,
            "Request body is empty: please, provide application object model",
        ));
    };
    let mut objects = env_description(&db, env_id, Some(&sid))?["Objects"].take();
    if !objects.is_object() {
        return Err(ApiError::not_found(format!(
            "Environment <EnvId {env_id}> is not found"
        )));
    }
    if full_path(path) == "/services" {
        let list = objects
            .as_object_mut()
            .map(|o| o.entry("services").or_insert(json!([])));
        if let Some(Value::Array(a)) = list {
            match &body {
                Value::Array(items) => a.extend(items.iter().cloned()),
                v => a.push(v.clone()),
            }
        }
    }
    save(&db, &sid, objects)?;
    Ok(Reply::Json(body))
}

/// `PUT /environments/{id}/services[/{path}]`: set the node at the path
/// as Murano's `TraverseHelper.update` does (a falsy body sets `[]`).
pub fn put(app: &App, req: &Req, env_id: &str, path: Option<&str>) -> Outcome {
    let body = req.json()?.filter(truthy).unwrap_or(json!([]));
    let db = app.db();
    let sid = verify_session(&db, req)?;
    check_env(&db, req, env_id)?;
    let mut objects = env_description(&db, env_id, Some(&sid))?["Objects"].take();
    // Murano's path: the one given after `/services/`, a trailing slash
    // kept (an empty last key).
    let path = match path.filter(|p| !p.is_empty()) {
        Some(p) => format!("/services/{p}"),
        None => "/services".to_owned(),
    };
    super::traverse_update::update(&mut objects, &path, body.clone())?;
    super::traverse_update::touch(&mut objects, &clock::now().replace('T', " "))?;
    save(&db, &sid, objects)?;
    Ok(Reply::Json(body))
}

/// Replace application `app_id` of the session's model by the body (the
/// dashboard's edit of an application; Murano's API has no such call: its
/// `PUT` at an application's path is a 400, see [`put`]). 404 when the
/// model has no such application.
pub fn replace(app: &App, req: &Req, env_id: &str, app_id: &str) -> Outcome {
    let body = req.required_json()?;
    let db = app.db();
    let sid = verify_session(&db, req)?;
    check_env(&db, req, env_id)?;
    let mut objects = env_description(&db, env_id, Some(&sid))?["Objects"].take();
    let slot = objects
        .get_mut("services")
        .and_then(Value::as_array_mut)
        .and_then(|a| a.iter_mut().find(|x| x["?"]["id"].as_str() == Some(app_id)))
        .ok_or_else(|| ApiError::plain(404))?;
    *slot = body.clone();
    if let Some(q) = objects.get_mut("?").and_then(Value::as_object_mut) {
        q.insert("updated".into(), json!(clock::now().replace('T', " ")));
    }
    save(&db, &sid, objects)?;
    Ok(Reply::Json(body))
}

/// Python's truth of a JSON value (`null`, `false`, `0`, `""`, `[]` and
/// `{}` are false).
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `DELETE /environments/{id}/services/{path}`.
pub fn delete(app: &App, req: &Req, env_id: &str, path: Option<&str>) -> Outcome {
    let db = app.db();
    let sid = verify_session(&db, req)?;
    check_env(&db, req, env_id)?;
    let mut objects = env_description(&db, env_id, Some(&sid))?["Objects"].take();
    remove_at(&mut objects, &full_path(path)).ok_or_else(|| ApiError::plain(404))?;
    save(&db, &sid, objects)?;
    Ok(Reply::Empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_by_object_id() {
        let mut d = json!({"services": [{"?": {"id": "a"}, "n": 1}, {"?": {"id": "b"}, "n": 2}]});
        d["services"][1]["n"] = json!(3);
        remove_at(&mut d, "/services/a").unwrap();
        assert_eq!(d, json!({"services": [{"?": {"id": "b"}, "n": 3}]}));
        assert!(remove_at(&mut d, "/services/zz").is_none());
    }
}
