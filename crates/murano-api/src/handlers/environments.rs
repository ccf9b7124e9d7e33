//! `/environments`: list, create, show, rename, delete, last statuses and
//! the object model (Murano's `environments.py`).

use serde_json::{json, Value};

use super::{
    check_env, check_session, env_description, env_status, render, services, sessions_of, traverse,
};
use crate::app::{App, Outcome, Reply, Req};
use crate::clock;
use crate::fault::ApiError;
use crate::store::{key, Db, Row, StoreError};

const NAME_MAX: usize = 255;

/// An environment as its `to_dict` renders it (no description).
pub fn env_dict(row: &Row) -> Value {
    render("environment", row, &["description"])
}

/// `GET /environments` (`all_tenants`, `tenant`).
pub fn index(app: &App, req: &Req) -> Outcome {
    let all = req
        .param("all_tenants")
        .unwrap_or("false")
        .eq_ignore_ascii_case("true");
    let tenant = req.param("tenant").filter(|t| !t.is_empty());
    let filter = if all {
        app.check("list_environments_all_tenants", &req.ctx, json!({}))?;
        None
    } else if let Some(t) = tenant {
        app.check("list_environments_all_tenants", &req.ctx, json!({}))?;
        Some(t.to_owned())
    } else {
        app.check("list_environments", &req.ctx, json!({}))?;
        Some(req.ctx.tenant.clone().unwrap_or_default())
    };
    let db = app.db();
    let k = filter.map(|t| key("tenant_id", t)).unwrap_or_default();
    let mut out = Vec::new();
    for env in db.select("environment", &k, "")? {
        let mut d = env_dict(&env);
        d["status"] = json!(env_status(&db, env["id"].as_str().unwrap_or(""))?);
        out.push(d);
    }
    Ok(Reply::Json(json!({ "environments": out })))
}

fn default_networks(name: &str) -> Value {
    json!({
        "environment": {
            "?": {"id": clock::new_id(), "type": "io.murano.resources.NeutronNetwork"},
            "name": format!("{name}-network"),
        },
        "flat": null,
    })
}

/// Create an environment named in `body` for the context's tenant
/// (Murano's `EnvironmentServices.create`); the stored row.
pub fn create_env(
    db: &Db,
    req: &Req,
    body: &serde_json::Map<String, Value>,
) -> Result<Row, ApiError> {
    let name = body.get("name").map(py_str).unwrap_or_default();
    let mut objects = serde_json::Map::new();
    objects.insert("?".into(), json!({"id": clock::new_id()}));
    for (k, v) in body {
        objects.insert(k.clone(), v.clone());
    }
    if objects.get("defaultNetworks").is_none_or(is_falsy) {
        objects.insert("defaultNetworks".into(), default_networks(&name));
    }
    if let Some(q) = objects.get_mut("?").and_then(Value::as_object_mut) {
        q.insert("type".into(), json!("io.murano.Environment"));
        q.insert("metadata".into(), json!({}));
    }
    let now = clock::now();
    let mut row = Row::new();
    row.insert("id".into(), json!(clock::new_id()));
    row.insert("name".into(), json!(name));
    row.insert("tenant_id".into(), req.ctx.tenant_value());
    row.insert(
        "description_text".into(),
        body.get("description_text").cloned().unwrap_or(json!("")),
    );
    row.insert("version".into(), json!(0));
    row.insert(
        "description".into(),
        json!({"Objects": objects, "Attributes": [], "project_id": req.ctx.tenant, "user_id": req.ctx.user}),
    );
    row.insert("created".into(), json!(now));
    row.insert("updated".into(), json!(now));
    db.insert("environment", &row).map_err(|e| match e {
        StoreError::Duplicate => {
            ApiError::new(409, "Environment with specified name already exists")
        }
        e => e.into(),
    })?;
    Ok(row)
}

/// Python's `str()` of a JSON value, for names.
pub fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

fn is_falsy(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
    }
}

/// `POST /environments`.
pub fn create(app: &App, req: &Req) -> Outcome {
    let body = Some(req.required_json()?);
    app.check("create_environment", &req.ctx, json!({}))?;
    let body = match body {
        Some(Value::Object(m)) => m,
        _ => {
            return Err(ApiError::bad_request(
                "Please, specify a name of the environment to create",
            ))
        }
    };
    let named = body
        .get("name")
        .is_some_and(|n| !py_str(n).trim().is_empty());
    if !named {
        return Err(ApiError::bad_request(
            "Please, specify a name of the environment to create",
        ));
    }
    let name = py_str(&body["name"]);
    if name.chars().count() > NAME_MAX {
        return Err(ApiError::bad_request(
            "Environment name should be 255 characters maximum",
        ));
    }
    let db = app.db();
    let row = create_env(&db, req, &body)?;
    // Murano's model takes the body's other keys as attributes, which its
    // `to_dict` then shows (muranoclient sends `region`).
    let mut d = env_dict(&row);
    for (k, v) in &body {
        if d.get(k).is_none() && k != "description" && k != "defaultNetworks" {
            d[k] = v.clone();
        }
    }
    Ok(Reply::Json(d))
}

/// `GET /environments/{id}`.
pub fn show(app: &App, req: &Req, env_id: &str) -> Outcome {
    let db = app.db();
    check_env(&db, req, env_id)?;
    app.check(
        "show_environment",
        &req.ctx,
        json!({"environment_id": env_id}),
    )?;
    let env = db
        .get("environment", env_id)?
        .ok_or_else(|| ApiError::plain(404))?;
    let mut d = env_dict(&env);
    let status = env_status(&db, env_id)?;
    d["status"] = json!(status);
    d["acquired_by"] = Value::Null;
    if status == "deploying" {
        if let Some(s) = sessions_of(&db, env_id, Some("deploying"))?.first() {
            d["acquired_by"] = s["id"].clone();
        }
    }
    let sid = req.ctx.session.as_deref();
    if let Some(sid) = sid {
        let sess = db.get("session", sid)?;
        check_session(&db, req, env_id, sess.as_ref(), sid)?;
    }
    d["services"] = services(&db, env_id, sid)?;
    Ok(Reply::Json(d))
}

/// `PUT /environments/{id}`: rename.
pub fn update(app: &App, req: &Req, env_id: &str) -> Outcome {
    let body = Some(req.required_json()?);
    let db = app.db();
    check_env(&db, req, env_id)?;
    app.check(
        "update_environment",
        &req.ctx,
        json!({"environment_id": env_id}),
    )?;
    let name = body
        .as_ref()
        .and_then(|b| b.get("name"))
        .map(py_str)
        .ok_or_else(|| ApiError::plain(400))?;
    if name.trim().is_empty() {
        return Err(ApiError::bad_request(
            "Environment name must contain at least one non-white space symbol",
        ));
    }
    if name.chars().count() > NAME_MAX {
        return Err(ApiError::bad_request(
            "Environment name should be 255 characters maximum",
        ));
    }
    let set: Row = [
        ("name".to_owned(), json!(name)),
        ("updated".to_owned(), json!(clock::now())),
    ]
    .into_iter()
    .collect();
    db.update("environment", &key("id", env_id), &set)
        .map_err(|e| match e {
            StoreError::Duplicate => {
                ApiError::new(409, "Environment with specified name already exists")
            }
            e => e.into(),
        })?;
    let env = db
        .get("environment", env_id)?
        .ok_or_else(|| ApiError::plain(404))?;
    Ok(Reply::Json(env_dict(&env)))
}

/// `DELETE /environments/{id}` (`abandon=true` removes it without the
/// engine; otherwise a deletion session is opened and deployed).
pub fn delete(app: &App, req: &Req, env_id: &str) -> Outcome {
    app.check(
        "delete_environment",
        &req.ctx,
        json!({"environment_id": env_id}),
    )?;
    {
        let db = app.db();
        check_env(&db, req, env_id)?;
        if req
            .param("abandon")
            .unwrap_or("")
            .eq_ignore_ascii_case("true")
        {
            remove(&db, env_id)?;
            return Ok(Reply::Empty);
        }
    }
    let sess = super::sessions::configure_row(app, req, env_id)?;
    let sid = sess["id"].as_str().unwrap_or("").to_owned();
    {
        let db = app.db();
        let mut desc = env_description(&db, env_id, Some(&sid))?;
        desc["Objects"] = Value::Null;
        let set: Row = [("description".to_owned(), desc)].into_iter().collect();
        db.update("session", &key("id", sid.as_str()), &set)?;
    }
    super::sessions::deploy(app, req, env_id, &sid)?;
    Ok(Reply::Empty)
}

/// Remove an environment and what hangs off it.
pub fn remove(db: &Db, env_id: &str) -> Result<(), ApiError> {
    db.transaction(|db| {
        for task in db.select("task", &key("environment_id", env_id), "")? {
            db.delete("status", &key("task_id", task["id"].clone()))?;
            // What `murano env` kept of the tasks it ran.
            db.connection()
                .execute(
                    "DELETE FROM env_run WHERE task_id = ?1",
                    [&task["id"].as_str().unwrap_or("")],
                )
                .map_err(StoreError::from)?;
        }
        db.delete("task", &key("environment_id", env_id))?;
        db.delete("session", &key("environment_id", env_id))?;
        db.delete("environment", &key("id", env_id))?;
        // Its offline cloud (Heat stacks) goes with it.
        db.delete_cloud_state(env_id)?;
        db.delete_task_artifacts(env_id)?;
        Ok::<_, ApiError>(())
    })
}

/// `GET /environments/{id}/lastStatus`.
pub fn last_status(app: &App, req: &Req, env_id: &str) -> Outcome {
    let db = app.db();
    check_env(&db, req, env_id)?;
    let svcs = services(&db, env_id, req.ctx.session.as_deref())?;
    let mut result = serde_json::Map::new();
    for svc in svcs.as_array().into_iter().flatten() {
        let sid = svc["?"]["id"].as_str().unwrap_or("").to_owned();
        let mut ids = Vec::new();
        entity_ids(svc, &mut ids);
        let mut last: Option<Row> = None;
        for id in ids {
            for st in db.select("status", &key("entity_id", id), "created DESC")? {
                if last
                    .as_ref()
                    .is_none_or(|l| l["created"].as_str() < st["created"].as_str())
                {
                    last = Some(st);
                }
            }
        }
        result.insert(
            sid,
            last.map(|l| render("status", &l, &[]))
                .unwrap_or(Value::Null),
        );
    }
    Ok(Reply::Json(json!({ "lastStatuses": result })))
}

/// The ids of the objects inside `v` (Murano's `build_entity_map`).
pub fn entity_ids(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(id) = m.get("?").and_then(|q| q.get("id")).and_then(Value::as_str) {
                out.push(id.to_owned());
            }
            for x in m.values() {
                entity_ids(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| entity_ids(x, out)),
        _ => {}
    }
}

/// `GET /environments/{id}/model/{path}`.
pub fn get_model(app: &App, req: &Req, env_id: &str, path: &str) -> Outcome {
    let db = app.db();
    check_env(&db, req, env_id)?;
    app.check(
        "show_environment",
        &req.ctx,
        json!({"environment_id": env_id}),
    )?;
    let desc = env_description(&db, env_id, req.ctx.session.as_deref())?;
    let objects = &desc["Objects"];
    traverse(path, objects)
        .cloned()
        .map(Reply::Json)
        .ok_or_else(|| ApiError::plain(404))
}

/// `PATCH /environments/{id}/model/` (`application/env-model-json-patch`).
pub fn update_model(app: &App, req: &Req, env_id: &str) -> Outcome {
    let body = req.json()?.unwrap_or(Value::Null);
    let changes = crate::model_patch::parse(&body)?;
    let db = app.db();
    check_env(&db, req, env_id)?;
    if changes.is_empty() {
        return Err(ApiError::detail(
            400,
            "Request body is empty: please, provide environment object model patch",
        ));
    }
    app.check(
        "update_environment",
        &req.ctx,
        json!({"environment_id": env_id}),
    )?;
    let sid = req
        .ctx
        .session
        .clone()
        .ok_or_else(|| ApiError::plain(400))?;
    let mut desc = env_description(&db, env_id, Some(&sid))?;
    let mut objects = desc["Objects"].take();
    crate::patch::apply(&mut objects, &changes).map_err(|m| ApiError::detail(404, m))?;
    desc["Objects"] = objects.clone();
    let set: Row = [("description".to_owned(), desc)].into_iter().collect();
    db.update("session", &key("id", sid.as_str()), &set)?;
    Ok(Reply::Json(objects))
}
