//! What a restarted server does with the tasks the previous process left
//! running: nothing can finish them any more, so they are marked failed
//! (the session `deploy failure`/`delete failure`, the task finished with
//! an error report), and nothing else changes.

use serde_json::{json, Value};

use crate::clock;
use crate::fault::ApiError;
use crate::store::{key, Db, Row};

/// The message of the error report an interrupted task gets.
pub const INTERRUPTED: &str = "The task was interrupted: the server stopped before it finished";

/// Mark every unfinished task failed; how many there were.
pub fn fail_interrupted(db: &Db) -> Result<usize, ApiError> {
    let tasks: Vec<Row> = db.select("task", &key("finished", Value::Null), "")?;
    let now = clock::now();
    db.transaction(|db| {
        for t in &tasks {
            let env = t["environment_id"].as_str().unwrap_or("");
            for (from, to) in [
                ("deploying", "deploy failure"),
                ("deleting", "delete failure"),
            ] {
                let mut k = key("environment_id", env);
                k.insert("state".into(), json!(from));
                let set: Row = [
                    ("state".to_owned(), json!(to)),
                    ("updated".to_owned(), json!(now)),
                ]
                .into_iter()
                .collect();
                db.update("session", &k, &set)?;
            }
            let set: Row = [
                ("finished".to_owned(), json!(now)),
                ("updated".to_owned(), json!(now)),
                (
                    "result".to_owned(),
                    json!({"isException": true, "result": {"message": INTERRUPTED}}),
                ),
            ]
            .into_iter()
            .collect();
            db.update("task", &key("id", t["id"].clone()), &set)?;
            let status: Row = [
                ("id".to_owned(), json!(clock::new_id())),
                ("task_id".to_owned(), t["id"].clone()),
                ("text".to_owned(), json!(INTERRUPTED)),
                ("level".to_owned(), json!("error")),
                ("created".to_owned(), json!(now)),
                ("updated".to_owned(), json!(now)),
            ]
            .into_iter()
            .collect();
            db.insert("status", &status)?;
        }
        Ok::<_, ApiError>(())
    })?;
    Ok(tasks.len())
}
