//! The engine reporting a finished task back to the API (Murano's
//! `ResultEndpoint.process_result`): the environment takes the deployed
//! model, its version goes up, the task is finished with a "Deployment
//! finished" report and the deploying session becomes `deployed`.

use serde_json::{json, Value};

use crate::clock;
use crate::fault::ApiError;
use crate::store::{key, Db, Row};

/// Apply a successful task result (`{"model": …, "action": …}`) for
/// environment `env_id`.
pub fn process_result(db: &Db, env_id: &str, result: &Value) -> Result<(), ApiError> {
    let Some(env) = db.get("environment", env_id)? else {
        return Ok(());
    };
    let mut model = result["model"].clone();
    if let Some(objects) = model.get_mut("Objects").and_then(Value::as_object_mut) {
        if let Some(apps) = objects.remove("applications") {
            objects.insert("services".into(), apps);
        }
    }
    let now = clock::now();
    db.transaction(|db| {
        let deleted = model["Objects"].is_null();
        let version = env["version"].as_i64().unwrap_or(0) + 1;
        let set: Row = [
            ("description".to_owned(), model.clone()),
            ("updated".to_owned(), json!(now)),
            ("version".to_owned(), json!(version)),
        ]
        .into_iter()
        .collect();
        db.update("environment", &key("id", env_id), &set)?;
        for (from, to) in [("deploying", "deployed"), ("deleting", "deployed")] {
            let mut k = key("environment_id", env_id);
            k.insert("state".into(), json!(from));
            let set: Row = [
                ("state".to_owned(), json!(to)),
                ("updated".to_owned(), json!(now)),
            ]
            .into_iter()
            .collect();
            db.update("session", &k, &set)?;
        }
        let last = db
            .select(
                "task",
                &key("environment_id", env_id),
                "created DESC, rowid DESC",
            )?
            .into_iter()
            .next();
        if let Some(task) = last {
            let set: Row = [
                ("finished".to_owned(), json!(now)),
                ("updated".to_owned(), json!(now)),
            ]
            .into_iter()
            .collect();
            db.update("task", &key("id", task["id"].clone()), &set)?;
            let text = if deleted {
                "Deletion finished"
            } else {
                "Deployment finished"
            };
            let status: Row = [
                ("id".to_owned(), json!(clock::new_id())),
                ("task_id".to_owned(), task["id"].clone()),
                ("text".to_owned(), json!(text)),
                ("level".to_owned(), json!("info")),
                ("created".to_owned(), json!(now)),
                ("updated".to_owned(), json!(now)),
            ]
            .into_iter()
            .collect();
            db.insert("status", &status)?;
        }
        Ok::<_, ApiError>(())
    })
}
