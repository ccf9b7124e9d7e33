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

/// Mark every unfinished task failed; how many there were. A task
/// `murano env` runs in another process that is still alive is left
/// alone: that process finishes it.
pub fn fail_interrupted(db: &Db) -> Result<usize, ApiError> {
    let mut tasks: Vec<Row> = db.select("task", &key("finished", Value::Null), "")?;
    tasks.retain(|t| !runs_elsewhere(db, t["id"].as_str().unwrap_or("")));
    db.transaction(|db| {
        for t in &tasks {
            fail_task(db, t, INTERRUPTED)?;
        }
        Ok::<_, ApiError>(())
    })?;
    Ok(tasks.len())
}

/// Whether another process that is alive runs task `task_id` (`murano
/// env` records its process id beside the tasks it runs).
fn runs_elsewhere(db: &Db, task_id: &str) -> bool {
    let pid: Option<i64> = db
        .connection()
        .query_row(
            "SELECT pid FROM env_run WHERE task_id = ?1",
            [task_id],
            |r| r.get(0),
        )
        .ok();
    pid.is_some_and(|p| p != i64::from(std::process::id()) && process_alive(p))
}

/// Whether a process of this id runs (Linux: `/proc/<pid>`; elsewhere
/// assumed alive, so nothing is marked interrupted by mistake).
pub fn process_alive(pid: i64) -> bool {
    if pid <= 0 {
        return false;
    }
    if pid == i64::from(std::process::id()) {
        return true;
    }
    if std::path::Path::new("/proc/self").exists() {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

/// Fail the unfinished task `t` with `message`: its environment's
/// deploying (deleting) session becomes `deploy failure` (`delete
/// failure`), the task is finished with the message as an exception and
/// an error report.
pub fn fail_task(db: &Db, t: &Row, message: &str) -> Result<(), ApiError> {
    let now = clock::now();
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
            json!({"isException": true, "result": {"message": message}}),
        ),
    ]
    .into_iter()
    .collect();
    db.update("task", &key("id", t["id"].clone()), &set)?;
    let status: Row = [
        ("id".to_owned(), json!(clock::new_id())),
        ("task_id".to_owned(), t["id"].clone()),
        ("text".to_owned(), json!(message)),
        ("level".to_owned(), json!("error")),
        ("created".to_owned(), json!(now)),
        ("updated".to_owned(), json!(now)),
    ]
    .into_iter()
    .collect();
    db.insert("status", &status)?;
    Ok(())
}
