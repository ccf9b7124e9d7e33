//! The API's controllers called in-process, under the page request's
//! context: requests built as the HTTP layer builds them, replies read
//! back as JSON, and the configuration session a user edits in.

use murano_api::app::{Outcome, Reply, Req};
use murano_api::context::RequestContext;
use murano_api::fault::ApiError;
use murano_api::handlers::{self, sessions};
use murano_api::store::key;
use murano_api::App;
use serde_json::{json, Value};

/// A controller request from `ctx`, in configuration session `session`,
/// with `query` and a JSON `body`.
pub fn api_req(
    ctx: &RequestContext,
    session: Option<&str>,
    query: &[(&str, &str)],
    body: Option<&Value>,
) -> Req {
    let mut ctx = ctx.clone();
    ctx.session = session.map(str::to_owned);
    Req {
        ctx,
        query: query
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
        content_type: body.map(|_| "application/json".to_owned()),
        accept: Some("application/json".into()),
    }
}

/// A controller's reply as JSON (`null` for an empty reply or bytes).
pub fn json_of(outcome: Outcome) -> Result<Value, ApiError> {
    Ok(match outcome? {
        Reply::Json(v) => v,
        Reply::Empty | Reply::Bytes(..) => Value::Null,
    })
}

/// What a person reads of an API error: its detail, else its explanation,
/// else the status.
pub fn message(e: &ApiError) -> String {
    e.detail
        .clone()
        .filter(|d| !d.is_empty())
        .or_else(|| e.explanation.clone())
        .or_else(|| e.raw.clone())
        .unwrap_or_else(|| format!("the request failed ({})", e.status))
}

/// The user's open, still valid configuration session of `env_id`, if
/// any (the newest).
pub fn existing_session(
    app: &App,
    ctx: &RequestContext,
    env_id: &str,
) -> Result<Option<String>, ApiError> {
    let db = app.db();
    for s in handlers::sessions_of(&db, env_id, Some("opened"))? {
        if s["user_id"].as_str() == ctx.user.as_deref() && handlers::validate_session(&db, &s)? {
            return Ok(s["id"].as_str().map(str::to_owned));
        }
    }
    Ok(None)
}

/// The user's open session of `env_id`, opened (`configure`) when there
/// is none, as the dashboard keeps one per environment.
pub fn open_session(app: &App, ctx: &RequestContext, env_id: &str) -> Result<String, ApiError> {
    if let Some(sid) = existing_session(app, ctx, env_id)? {
        return Ok(sid);
    }
    let row = sessions::configure_row(app, &api_req(ctx, None, &[], None), env_id)?;
    row["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| ApiError::plain(500))
}

/// Every package the context may see (its own and public ones): id,
/// fully qualified name, display name, type and whether it has a UI.
pub fn visible_packages(app: &App, ctx: &RequestContext) -> Result<Vec<Value>, ApiError> {
    let db = app.db();
    let rows = db.select_columns(
        "package",
        &murano_api::store::Row::new(),
        &[
            "id",
            "fully_qualified_name",
            "name",
            "type",
            "ui_definition",
            "enabled",
            "is_public",
            "owner_id",
        ],
        "name",
    )?;
    Ok(rows
        .into_iter()
        .filter(|p| {
            ctx.is_admin
                || p["is_public"] == json!(true)
                || p["owner_id"].as_str() == ctx.tenant.as_deref()
        })
        .map(|p| {
            json!({
                "id": p["id"], "fqn": p["fully_qualified_name"], "name": p["name"],
                "type": p["type"], "has_ui": p["ui_definition"].is_string(),
                "enabled": p["enabled"],
            })
        })
        .collect())
}

/// The row of package `id` if the context may see it.
pub fn package_row(
    app: &App,
    ctx: &RequestContext,
    id: &str,
) -> Result<murano_api::store::Row, ApiError> {
    // The show controller checks policy and ownership; then read the row.
    json_of(handlers::packages::show(
        app,
        &api_req(ctx, None, &[], None),
        id,
    ))?;
    let db = app.db();
    db.select("package", &key("id", id), "")?
        .into_iter()
        .next()
        .ok_or_else(|| ApiError::plain(404))
}
