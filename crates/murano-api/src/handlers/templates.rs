//! Environment templates and their applications: `/templates…` (Murano's
//! `templates.py`, `template_applications.py`, `EnvTemplateServices`).

use serde_json::{json, Map, Value};

use super::environments::{create_env, env_dict, py_str};
use super::{render, traverse};
use crate::app::{App, Outcome, Reply, Req};
use crate::clock;
use crate::fault::ApiError;
use crate::store::{key, Db, Row};

const TABLE: &str = "environment-template";

/// A template as `to_dict` shows it: its columns but the description, plus
/// the attributes the request set beyond the columns (`services`).
fn template_dict(row: &Row, extra: Option<&Map<String, Value>>) -> Value {
    let mut d = render(TABLE, row, &["description"]);
    for (k, v) in extra.into_iter().flatten() {
        if d.get(k).is_none() {
            d[k] = v.clone();
        }
    }
    d
}

/// `GET /templates` (`is_public`).
pub fn index(app: &App, req: &Req) -> Outcome {
    app.check("list_env_templates", &req.ctx, json!({}))?;
    let db = app.db();
    let tenant = req.ctx.tenant.clone();
    let all = db.select(TABLE, &Row::new(), "")?;
    let public = |r: &Row| r["is_public"] == json!(true);
    let mine = |r: &Row| r["tenant_id"].as_str() == tenant.as_deref();
    let keep: Vec<&Row> = match req.param("is_public").filter(|p| !p.is_empty()) {
        Some(p) if p.eq_ignore_ascii_case("true") => all.iter().filter(|r| public(r)).collect(),
        Some(_) => all.iter().filter(|r| !public(r) && mine(r)).collect(),
        None => all.iter().filter(|r| public(r) || mine(r)).collect(),
    };
    let out: Vec<Value> = keep.into_iter().map(|r| template_dict(r, None)).collect();
    Ok(Reply::Json(json!({ "templates": out })))
}

fn validate_name(body: &Value) -> Result<String, ApiError> {
    let name = body.get("name").map(py_str).unwrap_or_default();
    if name.trim().is_empty() {
        return Err(ApiError::bad_request(
            "Please, specify a name of the environment template.",
        ));
    }
    if name.chars().count() > 255 {
        return Err(ApiError::bad_request(
            "Environment template name should be 255 characters maximum",
        ));
    }
    Ok(name)
}

fn insert_template(
    db: &Db,
    mut params: Map<String, Value>,
    tenant: Value,
) -> Result<Value, ApiError> {
    let id = clock::new_id();
    params.insert("id".into(), json!(id));
    params.insert("tenant_id".into(), tenant);
    let now = clock::now();
    let mut row = Row::new();
    row.insert("id".into(), json!(id));
    row.insert(
        "name".into(),
        params.get("name").cloned().unwrap_or(json!("")),
    );
    row.insert("tenant_id".into(), params["tenant_id"].clone());
    row.insert(
        "description_text".into(),
        params.get("description_text").cloned().unwrap_or(json!("")),
    );
    row.insert("version".into(), json!(0));
    row.insert(
        "is_public".into(),
        params.get("is_public").cloned().unwrap_or(json!(false)),
    );
    row.insert("created".into(), json!(now));
    row.insert("updated".into(), json!(now));
    row.insert("description".into(), Value::Object(params.clone()));
    db.insert(TABLE, &row)?;
    Ok(template_dict(&row, Some(&params)))
}

/// `POST /templates`.
pub fn create(app: &App, req: &Req) -> Outcome {
    let body = req.required_json()?;
    app.check("create_env_template", &req.ctx, json!({}))?;
    let Value::Object(params) = body else {
        return Err(ApiError::plain(400));
    };
    validate_name(&Value::Object(params.clone()))?;
    let db = app.db();
    // A deployed Murano's table is unique on (tenant_id, name).
    if name_taken(&db, &req.ctx.tenant_value(), &params["name"])? {
        return Err(ApiError::detail(
            409,
            "Env Template with specified name already exists",
        ));
    }
    insert_template(&db, params, req.ctx.tenant_value()).map(Reply::Json)
}

/// Whether the tenant already has a template called `name`.
fn name_taken(db: &Db, tenant: &Value, name: &Value) -> Result<bool, ApiError> {
    let mut k = key("tenant_id", tenant.clone());
    k.insert("name".into(), name.clone());
    Ok(!db.select(TABLE, &k, "")?.is_empty())
}

fn exists(db: &Db, id: &str) -> Result<Row, ApiError> {
    db.get(TABLE, id)?
        .ok_or_else(|| ApiError::not_found(format!("EnvTemplate <TempId {id}> is not found")))
}

/// Murano's `_validate_request`: the template exists and is public, or
/// the tenant's, or the context is admin.
fn visible(db: &Db, req: &Req, id: &str) -> Result<Row, ApiError> {
    let t = exists(db, id)?;
    if t["is_public"] == json!(true)
        || req.ctx.is_admin
        || t["tenant_id"].as_str() == req.ctx.tenant.as_deref()
    {
        return Ok(t);
    }
    Err(ApiError::forbidden(
        "User has no access to these resources.",
    ))
}

/// Murano's `verify_env_template`: exists and is the tenant's.
fn owned(db: &Db, req: &Req, id: &str) -> Result<Row, ApiError> {
    let t = db.get(TABLE, id)?.ok_or_else(|| {
        ApiError::not_found(format!("Environment Template with id {id} not found"))
    })?;
    if t["tenant_id"].as_str() != req.ctx.tenant.as_deref() {
        return Err(ApiError::forbidden(
            "User is not authorized to access this tenant resources",
        ));
    }
    Ok(t)
}

/// `GET /templates/{id}`.
pub fn show(app: &App, req: &Req, id: &str) -> Outcome {
    app.check(
        "show_env_template",
        &req.ctx,
        json!({"env_template_id": id}),
    )?;
    let db = app.db();
    let t = visible(&db, req, id)?;
    let mut d = template_dict(&t, None);
    d["services"] = template_data(&t, "/services")?;
    Ok(Reply::Json(d))
}

/// Murano's `get_template_data`.
fn template_data(t: &Row, path: &str) -> Result<Value, ApiError> {
    let desc = &t["description"];
    if desc.is_null() {
        return Ok(Value::Null);
    }
    if desc.get("services").is_none() {
        return Ok(json!([]));
    }
    traverse(path, desc).cloned().ok_or_else(|| {
        ApiError::not_found(format!(
            "Environment Template <EnvId {}> is not found",
            t["id"].as_str().unwrap_or("")
        ))
    })
}

/// `PUT /templates/{id}`.
pub fn update(app: &App, req: &Req, id: &str) -> Outcome {
    let body = req.required_json()?;
    app.check(
        "update_env_template",
        &req.ctx,
        json!({"env_template_id": id}),
    )?;
    let db = app.db();
    visible(&db, req, id)?;
    let name_ok = body
        .get("name")
        .is_some_and(|n| !py_str(n).trim().is_empty());
    if !name_ok {
        return Err(ApiError::detail(400, "EnvTemplate body is incorrect"));
    }
    let mut set = Row::new();
    for col in ["name", "is_public", "description_text"] {
        if let Some(v) = body.get(col) {
            set.insert(col.into(), v.clone());
        }
    }
    set.insert("updated".into(), json!(clock::now()));
    db.update(TABLE, &key("id", id), &set)?;
    let t = exists(&db, id)?;
    let extra = body.as_object().cloned();
    Ok(Reply::Json(template_dict(&t, extra.as_ref())))
}

/// `DELETE /templates/{id}`.
pub fn delete(app: &App, req: &Req, id: &str) -> Outcome {
    app.check(
        "delete_env_template",
        &req.ctx,
        json!({"env_template_id": id}),
    )?;
    let db = app.db();
    visible(&db, req, id)?;
    db.delete(TABLE, &key("id", id))?;
    Ok(Reply::Empty)
}

/// `POST /templates/{id}/create-environment`: an environment and an open
/// session whose model holds the template's applications.
pub fn create_environment(app: &App, req: &Req, id: &str) -> Outcome {
    let body = req.required_json()?;
    app.check(
        "create_environment",
        &req.ctx,
        json!({"env_template_id": id}),
    )?;
    let db = app.db();
    let t = visible(&db, req, id)?;
    validate_name(&body)?;
    let Value::Object(params) = body else {
        return Err(ApiError::plain(400));
    };
    let env = create_env(&db, req, &params)?;
    let env_id = env["id"].as_str().unwrap_or("").to_owned();
    let mut desc = env["description"].clone();
    if let Some(svcs) = t["description"]
        .get("services")
        .filter(|s| s.as_array().is_some_and(|a| !a.is_empty()))
    {
        desc["Objects"]["services"] = svcs.clone();
    }
    let now = clock::now();
    let sid = clock::new_id();
    let mut s = Row::new();
    s.insert("id".into(), json!(sid));
    s.insert("environment_id".into(), json!(env_id));
    s.insert("user_id".into(), json!(req.ctx.user));
    s.insert("state".into(), json!("opened"));
    s.insert("version".into(), env["version"].clone());
    s.insert("description".into(), desc);
    s.insert("created".into(), json!(now));
    s.insert("updated".into(), json!(now));
    db.insert("session", &s)?;
    let _ = env_dict;
    Ok(Reply::Json(
        json!({"session_id": sid, "environment_id": env_id}),
    ))
}

/// `POST /templates/{id}/clone`: a copy of a public template for the
/// context's tenant.
pub fn clone(app: &App, req: &Req, id: &str) -> Outcome {
    let body = req.required_json()?;
    app.check("clone_env_template", &req.ctx, json!({}))?;
    let db = app.db();
    let old = exists(&db, id)?;
    if old["is_public"] != json!(true) {
        return Err(ApiError::forbidden(
            "User has no access to these resources.",
        ));
    }
    let name = validate_name(&body)?;
    let mut params = template_dict(&old, None)
        .as_object()
        .cloned()
        .unwrap_or_default();
    params.insert("name".into(), json!(name));
    params.insert(
        "is_public".into(),
        body.get("is_public").cloned().unwrap_or(json!(false)),
    );
    if let Some(s) = old["description"].get("services") {
        params.insert("services".into(), s.clone());
    }
    for k in ["created", "updated"] {
        params.remove(k);
    }
    if name_taken(&db, &req.ctx.tenant_value(), &json!(name))? {
        return Err(ApiError::new(
            409,
            "Env template with specified name already exists",
        ));
    }
    insert_template(&db, params, req.ctx.tenant_value()).map(Reply::Json)
}

fn app_path(path: Option<&str>) -> String {
    match path.filter(|p| !p.is_empty()) {
        Some(p) => format!("/services/{p}"),
        None => "/services".to_owned(),
    }
}

/// `GET /templates/{id}/services[/{path}]`.
pub fn apps_show(app: &App, req: &Req, id: &str, path: Option<&str>) -> Outcome {
    let db = app.db();
    let t = owned(&db, req, id)?;
    template_data(&t, &app_path(path)).map(Reply::Json)
}

fn save_description(db: &Db, id: &str, desc: Value) -> Result<(), ApiError> {
    let set: Row = [
        ("description".to_owned(), desc),
        ("updated".to_owned(), json!(clock::now())),
    ]
    .into_iter()
    .collect();
    db.update(TABLE, &key("id", id), &set)?;
    Ok(())
}

/// `POST /templates/{id}/services`: add an application (or a list).
pub fn apps_post(app: &App, req: &Req, id: &str) -> Outcome {
    let body = req.required_json()?;
    let db = app.db();
    let t = owned(&db, req, id)?;
    let mut desc = t["description"].clone();
    if !desc.is_object() {
        return Err(ApiError::not_found(format!(
            "Environment Template <EnvId {id}> is not found"
        )));
    }
    let list = desc
        .as_object_mut()
        .map(|d| d.entry("services").or_insert(json!([])));
    if let Some(Value::Array(a)) = list {
        match &body {
            Value::Array(items) => a.extend(items.iter().cloned()),
            v => a.push(v.clone()),
        }
    }
    save_description(&db, id, desc)?;
    Ok(Reply::Json(body))
}

/// `PUT /templates/{id}/services/{path}`: replace an application.
pub fn apps_put(app: &App, req: &Req, id: &str, path: &str) -> Outcome {
    let body = req.required_json()?;
    app.check("update_service_env_template", &req.ctx, json!({}))?;
    let db = app.db();
    let t = owned(&db, req, id)?;
    let mut desc = t["description"].clone();
    let target = path.rsplit('/').next().unwrap_or("");
    let services = desc
        .get_mut("services")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| ApiError::detail(404, format!("The template does not exist {id}")))?;
    let slot = services
        .iter_mut()
        .find(|s| s["?"]["id"].as_str() == Some(target))
        .ok_or_else(|| ApiError::detail(404, format!("The template does not exist {id}")))?;
    *slot = body.clone();
    desc["updated"] = json!(clock::now().replace('T', " "));
    save_description(&db, id, desc)?;
    Ok(Reply::Json(body))
}

/// `DELETE /templates/{id}/services/{path}`: the description afterwards.
pub fn apps_delete(app: &App, req: &Req, id: &str, path: &str) -> Outcome {
    let db = app.db();
    let t = owned(&db, req, id)?;
    let mut desc = t["description"].clone();
    let target = path.rsplit('/').next().unwrap_or("");
    if let Some(a) = desc.get_mut("services").and_then(Value::as_array_mut) {
        let before = a.len();
        a.retain(|s| s["?"]["id"].as_str() != Some(target));
        if a.len() == before {
            return Err(ApiError::detail(
                404,
                format!("The template does not exist {id}"),
            ));
        }
    }
    save_description(&db, id, desc.clone())?;
    Ok(Reply::Json(desc))
}
