//! The engine reporting back to the API (Murano's `ResultEndpoint` and
//! notification endpoints in `murano/common/server.py`): status reports
//! and instance notifications while a task runs, then the task's result.

use serde_json::{json, Value};

use crate::clock;
use crate::fault::ApiError;
use crate::store::{key, Db, Row};

/// The environment's most recent task (Murano's `get_last_deployment`):
/// the one reports and results belong to; its `id`, `environment_id` and
/// times only (each report looks it up: the task's description, a whole
/// environment, is not decoded for that).
pub fn last_task(db: &Db, env_id: &str) -> Result<Option<Row>, ApiError> {
    Ok(db
        .select_columns(
            "task",
            &key("environment_id", env_id),
            &["id", "environment_id", "created", "updated", "finished"],
            "created DESC, rowid DESC",
        )?
        .into_iter()
        .next())
}

fn row(pairs: Vec<(&str, Value)>) -> Row {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// Store a report the engine made while running a task of `env_id`
/// (`{"kind": "status", id, text, level, details}` as Murano's
/// `report_notification`, or `{"kind": "instance", event, payload}` as
/// its `track_instance` / `untrack_instance`).
pub fn record_report(db: &Db, env_id: &str, report: &Value) -> Result<(), ApiError> {
    let now = clock::now();
    match report["kind"].as_str() {
        Some("instance") => record_instance(db, env_id, report),
        _ => {
            let Some(task) = last_task(db, env_id)? else {
                return Ok(());
            };
            let text = match &report["text"] {
                Value::String(s) => Value::String(s.clone()),
                Value::Null => Value::Null,
                v => Value::String(v.to_string()),
            };
            let details = match &report["details"] {
                Value::Null => Value::Null,
                Value::String(s) => Value::String(s.clone()),
                v => Value::String(v.to_string()),
            };
            db.insert(
                "status",
                &row(vec![
                    ("id", json!(clock::new_id())),
                    ("entity_id", report["id"].clone()),
                    ("task_id", task["id"].clone()),
                    ("text", text),
                    ("level", report["level"].clone()),
                    ("details", details),
                    ("created", json!(now)),
                    ("updated", json!(now)),
                ]),
            )?;
            Ok(())
        }
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// `InstanceStatsServices.track_instance` / `destroy_instance`.
fn record_instance(db: &Db, env_id: &str, report: &Value) -> Result<(), ApiError> {
    let p = &report["payload"];
    let Some(instance) = p["instance"].as_str() else {
        return Ok(());
    };
    let env = p["environment"].as_str().unwrap_or(env_id);
    let mut k = key("environment_id", env);
    k.insert("instance_id".into(), json!(instance));
    match report["event"].as_str() {
        Some("murano.track_instance") => {
            let tenant = db
                .get("environment", env)?
                .map_or(Value::Null, |e| e["tenant_id"].clone());
            if db.select("instance_stats", &k, "")?.is_empty() {
                let mut r = k.clone();
                r.insert("tenant_id".into(), tenant);
                r.insert("instance_type".into(), p["instance_type"].clone());
                r.insert("created".into(), json!(unix_now()));
                r.insert("destroyed".into(), Value::Null);
                r.insert("type_name".into(), p["type_name"].clone());
                r.insert("type_title".into(), p["type_title"].clone());
                r.insert("unit_count".into(), p["unit_count"].clone());
                db.insert("instance_stats", &r)?;
            } else {
                let set = row(vec![("unit_count", p["unit_count"].clone())]);
                db.update("instance_stats", &k, &set)?;
            }
        }
        Some("murano.untrack_instance") => {
            let mut live = k.clone();
            live.insert("destroyed".into(), Value::Null);
            let set = row(vec![("destroyed", json!(unix_now()))]);
            db.update("instance_stats", &live, &set)?;
        }
        _ => {}
    }
    Ok(())
}

/// What [`process_result`] did with the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// No such environment (removed meanwhile): nothing changed.
    NoEnvironment,
    /// A deletion finished: the environment and what hangs off it are gone.
    Removed,
    /// The model was stored and the task closed.
    Stored,
}

/// Apply a task's result (`{"model": …, "action": {"result",
/// "isException"}}`) for environment `env_id`, as Murano's
/// `ResultEndpoint.process_result`: a model without `Objects` and
/// `ObjectsCopy` removes the environment; else the model is stored
/// (`applications` shown as `services`), the version goes up, the last
/// task is finished with the action's result and a "Deployment
/// finished" / "Deletion finished" report (" with errors", " with
/// warnings" by the levels of its reports), and the deploying (deleting)
/// session becomes `deployed`, or `deploy failure` (`delete failure`)
/// when the task reported errors or raised.
pub fn process_result(db: &Db, env_id: &str, result: &Value) -> Result<Applied, ApiError> {
    let Some(env) = db.get("environment", env_id)? else {
        return Ok(Applied::NoEnvironment);
    };
    let mut model = result["model"].clone();
    let objects_null = model.get("Objects").is_none_or(Value::is_null);
    // Murano: `model.get('ObjectsCopy', {}) is None`: a missing copy is
    // not a null one.
    let copy_null = model.get("ObjectsCopy").is_some_and(Value::is_null);
    if objects_null && copy_null {
        super::environments::remove(db, env_id)?;
        return Ok(Applied::Removed);
    }
    let deleted = objects_null;
    // As Murano stores it (the recorded client session): `applications`
    // becomes `services`; a model already in the API's form keeps its
    // `services`.
    if let Some(objects) = model.get_mut("Objects").and_then(Value::as_object_mut) {
        if let Some(apps) = objects.remove("applications") {
            objects.insert("services".into(), apps);
        } else if !objects.contains_key("services") {
            objects.insert("services".into(), json!([]));
        }
    }
    let action = result.get("action").cloned().unwrap_or(json!({}));
    let now = clock::now();
    db.transaction(|db| {
        let version = env["version"].as_i64().unwrap_or(0) + 1;
        let set = row(vec![
            ("description", model.clone()),
            ("updated", json!(now)),
            ("version", json!(version)),
        ]);
        db.update("environment", &key("id", env_id), &set)?;
        let mut errors = 0;
        if let Some(task) = last_task(db, env_id)? {
            let tid = task["id"].clone();
            let count = |level: &str| -> Result<usize, ApiError> {
                let mut k = key("task_id", tid.clone());
                k.insert("level".into(), json!(level));
                Ok(db.select("status", &k, "")?.len())
            };
            errors = count("error")?;
            let warnings = count("warning")?;
            let set = row(vec![
                ("finished", json!(now)),
                ("updated", json!(now)),
                ("result", action.clone()),
            ]);
            db.update("task", &key("id", tid.clone()), &set)?;
            let mut text = if deleted {
                "Deletion finished".to_owned()
            } else {
                "Deployment finished".to_owned()
            };
            if errors > 0 {
                text.push_str(" with errors");
            } else if warnings > 0 {
                text.push_str(" with warnings");
            }
            db.insert(
                "status",
                &row(vec![
                    ("id", json!(clock::new_id())),
                    ("task_id", tid),
                    ("text", json!(text)),
                    ("level", json!("info")),
                    ("created", json!(now)),
                    ("updated", json!(now)),
                ]),
            )?;
        }
        let failed = errors > 0 || action["isException"] == json!(true);
        let (from, to) = match (deleted, failed) {
            (false, false) => ("deploying", "deployed"),
            (false, true) => ("deploying", "deploy failure"),
            (true, false) => ("deleting", "deployed"),
            (true, true) => ("deleting", "delete failure"),
        };
        // Murano closes the first such session only.
        let mut k = key("environment_id", env_id);
        k.insert("state".into(), json!(from));
        if let Some(sess) = db.select("session", &k, "")?.into_iter().next() {
            let set = row(vec![("state", json!(to)), ("updated", json!(now))]);
            db.update("session", &key("id", sess["id"].clone()), &set)?;
        }
        Ok::<_, ApiError>(())
    })?;
    Ok(Applied::Stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> Db {
        let db = Db::in_memory().unwrap();
        let t = "2020-01-01T00:00:00.000000";
        db.insert(
            "environment",
            json!({"id": "e", "name": "n", "tenant_id": "p", "version": 0,
                   "description": {"Objects": {"?": {"id": "e"}, "services": []}},
                   "created": t, "updated": t})
            .as_object()
            .unwrap(),
        )
        .unwrap();
        db.insert(
            "session",
            json!({"id": "s", "environment_id": "e", "state": "deploying", "version": 0,
                   "created": t, "updated": t})
            .as_object()
            .unwrap(),
        )
        .unwrap();
        db.insert(
            "task",
            json!({"id": "t", "environment_id": "e", "created": t, "updated": t,
                   "started": t, "result": {}})
            .as_object()
            .unwrap(),
        )
        .unwrap();
        db
    }

    #[test]
    fn a_result_stores_the_model_and_closes_task_and_session() {
        let db = setup();
        record_report(
            &db,
            "e",
            &json!({"kind": "status", "id": "o1", "text": "hi", "level": "warning"}),
        )
        .unwrap();
        let result = json!({"model": {"Objects": {"?": {"id": "e"}, "applications": [{"a": 1}]},
                                      "ObjectsCopy": {}},
                            "action": {"result": 7, "isException": false}});
        assert_eq!(process_result(&db, "e", &result).unwrap(), Applied::Stored);
        let env = db.get("environment", "e").unwrap().unwrap();
        assert_eq!(env["version"], 1);
        assert_eq!(env["description"]["Objects"]["services"], json!([{"a": 1}]));
        let task = db.get("task", "t").unwrap().unwrap();
        assert_eq!(task["result"]["result"], 7);
        assert!(!task["finished"].is_null());
        let texts: Vec<Value> = db
            .select("status", &key("task_id", "t"), "created")
            .unwrap()
            .into_iter()
            .map(|r| r["text"].clone())
            .collect();
        assert!(texts.contains(&json!("Deployment finished with warnings")));
        assert_eq!(
            db.get("session", "s").unwrap().unwrap()["state"],
            "deployed"
        );
    }

    #[test]
    fn an_exception_fails_the_session_and_a_null_model_removes_the_environment() {
        let db = setup();
        let result = json!({"model": {"Objects": {"?": {"id": "e"}}},
                            "action": {"isException": true, "result": {"message": "boom"}}});
        process_result(&db, "e", &result).unwrap();
        assert_eq!(
            db.get("session", "s").unwrap().unwrap()["state"],
            "deploy failure"
        );
        let gone = json!({"model": {"Objects": null, "ObjectsCopy": null}, "action": {}});
        db.set_cloud_state("e", &json!({})).unwrap();
        assert_eq!(process_result(&db, "e", &gone).unwrap(), Applied::Removed);
        assert!(db.get("environment", "e").unwrap().is_none());
        assert!(db.get("task", "t").unwrap().is_none());
        assert_eq!(db.cloud_state("e").unwrap(), None);
        assert_eq!(
            process_result(&db, "e", &result).unwrap(),
            Applied::NoEnvironment
        );
    }

    #[test]
    fn instances_are_tracked_and_untracked() {
        let db = setup();
        let track = json!({"kind": "instance", "event": "murano.track_instance",
            "payload": {"instance": "i", "environment": "e", "instance_type": 0,
                        "type_name": "io.murano.resources.LinuxMuranoInstance",
                        "type_title": null, "unit_count": 1}});
        record_report(&db, "e", &track).unwrap();
        let rows = db.select("instance_stats", &Row::new(), "").unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["tenant_id"], "p");
        assert!(rows[0]["destroyed"].is_null());
        let untrack = json!({"kind": "instance", "event": "murano.untrack_instance",
            "payload": {"instance": "i", "environment": "e"}});
        record_report(&db, "e", &untrack).unwrap();
        let rows = db.select("instance_stats", &Row::new(), "").unwrap();
        assert!(!rows[0]["destroyed"].is_null());
    }
}
