//! Deployments: an environment's Murano tasks, numbered in order; for the
//! ones `murano env` runs, its `env_run` row (process, outcome, records).

use murano_api::handlers::recovery::{fail_task, process_alive};
use murano_api::handlers::{env_status, results, sessions};
use murano_api::store::{key, Db, Row};
use murano_api::worker::{bounded_artifacts, WorkerOptions};
use rusqlite::OptionalExtension;
use serde_json::{json, Value as Json};

use crate::environments::{open_session, pending_session, session_user};
use crate::{parse, Deployment, Result, Store, StoreError, TaskResult};

/// The message of a deployment whose process ended before it finished.
pub const INTERRUPTED: &str =
    "Deployment interrupted: the process running it ended before it finished";

fn text(row: &Row, col: &str) -> String {
    row.get(col)
        .and_then(Json::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The tasks of an environment, oldest first.
fn tasks(db: &Db, env: &str) -> Result<Vec<Row>> {
    Ok(db.select("task", &key("environment_id", env), "created, rowid")?)
}

/// The ids and finish times of an environment's tasks, oldest first
/// (their descriptions, whole environments, not decoded).
fn task_heads(db: &Db, env: &str) -> Result<Vec<Row>> {
    Ok(db.select_columns(
        "task",
        &key("environment_id", env),
        &["id", "finished"],
        "created, rowid",
    )?)
}

/// What is running for `env`, described (`deployment 2, process 41`),
/// if anything is.
pub(crate) fn running(db: &Db, env: &str) -> Result<Option<String>> {
    for (i, t) in task_heads(db, env)?.iter().enumerate() {
        if !t["finished"].is_null() {
            continue;
        }
        let by = match run_pid(db, &text(t, "id"))? {
            Some(pid) => format!("process {pid}"),
            None => "murano serve".to_owned(),
        };
        return Ok(Some(format!("deployment {}, {by}", i + 1)));
    }
    let status = env_status(db, env)?;
    if status == "deploying" || status == "deleting" {
        return Ok(Some(format!("{status} through the API")));
    }
    Ok(None)
}

fn run_pid(db: &Db, task: &str) -> Result<Option<i64>> {
    Ok(db
        .connection()
        .query_row("SELECT pid FROM env_run WHERE task_id = ?1", [task], |r| {
            r.get(0)
        })
        .optional()?)
}

/// The `env_run` row of a task: kind, state, outcome and the records.
struct Run {
    kind: String,
    state: String,
    outcome: Option<String>,
    reports: Option<String>,
}

fn run_of(db: &Db, task: &str) -> Result<Option<Run>> {
    Ok(db
        .connection()
        .query_row(
            "SELECT kind, state, outcome, reports FROM env_run WHERE task_id = ?1",
            [task],
            |r| {
                Ok(Run {
                    kind: r.get(0)?,
                    state: r.get(1)?,
                    outcome: r.get(2)?,
                    reports: r.get(3)?,
                })
            },
        )
        .optional()?)
}

/// A task the API ran, as a deployment: its kind from its action, its
/// state and outcome from its result and reports.
fn derived(db: &Db, env: &str, t: &Row) -> Result<(String, String, Json, Vec<Json>)> {
    let action = &t["action"];
    let kind = if t["description"].is_null() {
        "delete"
    } else if action["method"] == "deploy" && action["object_id"] == env {
        "deploy"
    } else {
        "action"
    };
    let statuses = db.select("status", &key("task_id", t["id"].clone()), "created, rowid")?;
    let reports: Vec<Json> = statuses
        .iter()
        .map(|s| {
            json!({"kind": "status", "id": s["entity_id"], "text": s["text"],
                   "level": s["level"], "details": s["details"]})
        })
        .collect();
    let errors = statuses.iter().any(|s| s["level"] == "error");
    let result = &t["result"];
    let (state, outcome) = if t["finished"].is_null() {
        ("running", Json::Null)
    } else if result["isException"] == json!(true) {
        let message = result["result"]["message"].clone();
        let state = if message == murano_api::handlers::recovery::INTERRUPTED {
            "interrupted"
        } else {
            "failure"
        };
        (state, json!({"raised": {"message": message}}))
    } else {
        let state = if errors { "failure" } else { "success" };
        (state, json!({"ok": true, "result": result["result"]}))
    };
    Ok((kind.to_owned(), state.to_owned(), outcome, reports))
}

impl Store {
    /// Fails the running deployments of processes that are gone (their
    /// sessions `deploy failure` / `delete failure`, an error report).
    pub(crate) fn recover(&mut self) -> Result<usize> {
        let stale: Vec<(String, i64)> = {
            let conn = self.db.connection();
            let mut st =
                conn.prepare("SELECT task_id, pid FROM env_run WHERE state = 'running'")?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<std::result::Result<Vec<_>, _>>()?
                .into_iter()
                .filter(|(_, pid)| !process_alive(*pid))
                .collect()
        };
        if stale.is_empty() {
            return Ok(0);
        }
        let outcome = json!({"raised": {"stage": "<interrupted>", "type": "Interrupted",
                                        "message": INTERRUPTED}});
        self.db.immediate(|db| {
            for (task, _) in &stale {
                if let Some(t) = db.get("task", task)? {
                    if t["finished"].is_null() {
                        fail_task(db, &t, INTERRUPTED)?;
                    }
                }
                db.connection().execute(
                    "UPDATE env_run SET state = 'interrupted', outcome = ?2 WHERE task_id = ?1",
                    rusqlite::params![task, outcome.to_string()],
                )?;
            }
            Ok::<_, StoreError>(())
        })?;
        Ok(stale.len())
    }

    /// Starts a deployment of `env` (`kind`: `deploy`, `action`,
    /// `delete`) as Murano's API submits one: a session holding the
    /// model (the pending one for a deployment), marked deploying, a task
    /// with its "scheduled" report, and the `env_run` row naming this
    /// process; refused while another deployment of it runs. Returns the
    /// deployment's number and the task's id.
    pub fn begin_deployment(
        &mut self,
        env: &str,
        kind: &str,
        action: &Json,
    ) -> Result<(i64, String)> {
        self.db.immediate(|db| {
            if let Some(what) = running(db, env)? {
                return Err(StoreError::Conflict(format!(
                    "environment {env} is already being deployed ({what}); only one deployment of an environment runs at a time"
                )));
            }
            let row = db
                .get("environment", env)?
                .ok_or_else(|| StoreError::NotFound(format!("no environment {env}")))?;
            let deployed = row.get("description").cloned().unwrap_or(Json::Null);
            let session = match kind {
                "deploy" => match pending_session(db, &row)? {
                    Some(s) => s,
                    None => open_session(db, &row, &deployed)?,
                },
                "delete" => {
                    let mut desc = deployed.clone();
                    desc["Objects"] = Json::Null;
                    open_session(db, &row, &desc)?
                }
                _ => open_session(db, &row, &deployed)?,
            };
            let user = session_user(&deployed);
            let req = murano_api::app::Req {
                ctx: murano_api::context::RequestContext {
                    user: Some(user),
                    tenant: row["tenant_id"].as_str().map(str::to_owned),
                    auth_token: Some(murano_env::model::TASK_TOKEN.to_owned()),
                    ..Default::default()
                },
                ..Default::default()
            };
            let (action, name) = if action.is_null() {
                (None, "None".to_owned())
            } else {
                let name = action["method"].as_str().unwrap_or("").to_owned();
                (Some(action.clone()), name)
            };
            let (_, task_id) = sessions::submit(db, &req, env, &session, action, &name)?;
            db.connection().execute(
                "INSERT INTO env_run (task_id, pid, kind, state) VALUES (?1, ?2, ?3, 'running')",
                rusqlite::params![task_id, std::process::id(), kind],
            )?;
            let number = task_heads(db, env)?.len() as i64;
            Ok((number, task_id))
        })
    }

    /// Stores a finished deployment: its records, its status reports,
    /// the environment's cloud, then Murano's reaction to its result (the
    /// model stored, or the environment removed), in one transaction.
    pub fn finish_deployment(&mut self, task: &str, env: &str, result: &TaskResult) -> Result<()> {
        let state = if result.failed { "failure" } else { "success" };
        let list = |v: &[Json]| Json::Array(v.to_vec()).to_string();
        self.db.immediate(|db| {
            db.connection().execute(
                "UPDATE env_run SET state = ?2, outcome = ?3, reports = ?4, heat = ?5, \
                 agent_plans = ?6, log = ?7, final_model = ?8 WHERE task_id = ?1",
                rusqlite::params![
                    task,
                    state,
                    result.outcome.to_string(),
                    list(&result.reports),
                    list(&result.heat),
                    list(&result.agent_plans),
                    list(&result.log),
                    result.final_model.to_string()
                ],
            )?;
            if !result.reports_stored {
                for r in &result.reports {
                    let r = crate::ops::stored_report(r.clone());
                    results::record_report(db, env, &r)?;
                }
            }
            if db.get("environment", env)?.is_some() {
                db.set_cloud_state(env, &result.cloud)?;
                // What the deployment sent, for the dashboard's deployment
                // page, bounded as the API's worker bounds it.
                let kept = bounded_artifacts(
                    &result.heat,
                    &result.agent_plans,
                    WorkerOptions::default().max_artifacts,
                );
                db.set_task_artifacts(task, env, &kept)?;
            }
            results::process_result(db, env, &result.api_result)?;
            Ok::<_, StoreError>(())
        })
    }

    /// The deployments of an environment, oldest first.
    pub fn deployments(&self, env: &str) -> Result<Vec<Deployment>> {
        let mut out = Vec::new();
        for (i, t) in tasks(&self.db, env)?.iter().enumerate() {
            let id = text(t, "id");
            let (kind, state, outcome, reports) = match run_of(&self.db, &id)? {
                Some(run) => (
                    run.kind,
                    run.state,
                    parse(run.outcome.as_deref().unwrap_or("null"), "outcome")?,
                    match parse(run.reports.as_deref().unwrap_or("[]"), "reports")? {
                        Json::Array(a) => a,
                        _ => Vec::new(),
                    },
                ),
                None => derived(&self.db, env, t)?,
            };
            out.push(Deployment {
                id: i as i64 + 1,
                task: id,
                environment: env.to_owned(),
                kind,
                action: t.get("action").cloned().unwrap_or(Json::Null),
                state,
                outcome,
                reports,
            });
        }
        Ok(out)
    }

    /// The records of one kind (`report`, `heat`, `agent_plan`, `log`) of
    /// the task `task` that `murano env` ran, in order (none for a task
    /// the API ran).
    pub fn records(&self, task: &str, kind: &str) -> Result<Vec<Json>> {
        let column = match kind {
            "report" => "reports",
            "heat" => "heat",
            "agent_plan" => "agent_plans",
            "log" => "log",
            other => return Err(StoreError::NotFound(format!("no records of kind {other}"))),
        };
        let text: Option<Option<String>> = self
            .db
            .connection()
            .query_row(
                &format!("SELECT {column} FROM env_run WHERE task_id = ?1"),
                [task],
                |r| r.get(0),
            )
            .optional()?;
        match parse(text.flatten().as_deref().unwrap_or("[]"), kind)? {
            Json::Array(a) => Ok(a),
            _ => Ok(Vec::new()),
        }
    }
}
