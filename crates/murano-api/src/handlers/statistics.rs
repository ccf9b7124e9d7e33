//! Instance statistics: `GET /environments/{id}/instance-statistics/…`
//! (Murano's `instance_statistics.py`, over the `instance_stats` table).

use serde_json::{json, Value};

use crate::app::{App, Outcome, Reply, Req};
use crate::store::key;

fn rows(
    app: &App,
    req: &Req,
    env_id: &str,
    instance: Option<&str>,
) -> Result<Vec<Value>, crate::fault::ApiError> {
    let db = app.db();
    let mut k = key("environment_id", env_id);
    // Not in Murano (its TODO): only the tenant's own instances.
    k.insert("tenant_id".into(), req.ctx.tenant_value());
    if let Some(i) = instance {
        k.insert("instance_id".into(), json!(i));
    }
    Ok(db
        .select("instance_stats", &k, "")?
        .into_iter()
        .map(Value::Object)
        .collect())
}

/// `GET …/instance-statistics/raw[/{instance_id}]`.
pub fn raw(app: &App, req: &Req, env_id: &str, instance: Option<&str>) -> Outcome {
    let rule = if instance.is_some() {
        "get_instance_statistics"
    } else {
        "get_statistics"
    };
    let mut target = json!({"environment_id": env_id});
    if let Some(i) = instance {
        target["instance_id"] = json!(i);
    }
    app.check(rule, &req.ctx, target)?;
    let out: Vec<Value> = rows(app, req, env_id, instance)?
        .into_iter()
        .map(|r| {
            json!({"type": r["instance_type"], "type_name": r["type_name"], "unit_count": r["unit_count"],
                   "instance_id": r["instance_id"], "type_title": r["type_title"],
                   "active": r["destroyed"].is_null(), "duration": Value::Null})
        })
        .collect();
    Ok(Reply::Json(json!(out)))
}

/// `GET …/instance-statistics/aggregated`.
pub fn aggregated(app: &App, req: &Req, env_id: &str) -> Outcome {
    app.check(
        "get_aggregated_statistics",
        &req.ctx,
        json!({"environment_id": env_id}),
    )?;
    let mut by_type: Vec<(Value, i64)> = Vec::new();
    for r in rows(app, req, env_id, None)? {
        let t = r["instance_type"].clone();
        match by_type.iter_mut().find(|(k, _)| *k == t) {
            Some((_, n)) => *n += 1,
            None => by_type.push((t, 1)),
        }
    }
    let out: Vec<Value> = by_type
        .into_iter()
        .map(|(t, n)| json!({"type": t, "count": n}))
        .collect();
    Ok(Reply::Json(json!(out)))
}
