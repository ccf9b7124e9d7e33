//! The store the first `murano env` wrote (its own tables, schema 1,
//! `application_id` `MURS`) carried over to Murano's tables: written into
//! a new file beside it, the old one kept as `<file>.first-format`, then
//! the new one renamed over it (a crash before the rename leaves the old
//! file as it was, to be carried over again).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use murano_api::clock;
use murano_api::store::Row;
use rusqlite::{params, Connection, OpenFlags};
use serde_json::{json, Value as Json};

use crate::{refused, Files, Result, Store, StoredEnvironment};

/// The schema version of the first format this murano carries over.
const FIRST_VERSION: i32 = 1;

fn at(secs: i64) -> String {
    clock::format_unix(u64::try_from(secs).unwrap_or(0), 0)
}

fn parsed(text: Option<String>) -> Json {
    text.and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Json::Null)
}

fn row(pairs: Vec<(&str, Json)>) -> Row {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// One deployment of the first format, with its records.
struct OldDeployment {
    environment: String,
    kind: String,
    action: Json,
    state: String,
    pid: i64,
    started: i64,
    finished: Option<i64>,
    outcome: Json,
    final_model: Json,
    records: BTreeMap<String, Vec<Json>>,
}

/// Carries the first-format store at `path` (schema `version`) over to
/// Murano's tables; the old file is kept as `<path>.first-format`.
pub(crate) fn first_format(path: &Path, version: i32) -> Result<()> {
    if version != FIRST_VERSION {
        return Err(refused(
            path,
            format!("a store of an earlier murano with schema {version}, which this murano cannot carry over"),
        ));
    }
    let damaged = |e: rusqlite::Error| refused(path, format!("cannot read the earlier store: {e}"));
    {
        // Its write-ahead log folded in and removed (the store ran in WAL
        // mode): the copy kept is whole, and no log of the old file is
        // left beside the new one.
        let c = Connection::open(path).map_err(damaged)?;
        c.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(damaged)?;
        c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;")
            .map_err(damaged)?;
    }
    let old =
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(damaged)?;
    // Read everything first.
    let mut packages: Vec<(String, String, Files)> = Vec::new();
    {
        let mut st = old
            .prepare("SELECT name, source FROM packages ORDER BY name")
            .map_err(damaged)?;
        let names: Vec<(String, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(damaged)?
            .collect::<std::result::Result<_, _>>()
            .map_err(damaged)?;
        let mut files = old
            .prepare("SELECT path, bytes FROM package_files WHERE package = ?1")
            .map_err(damaged)?;
        for (name, source) in names {
            let mut map = Files::new();
            let rows = files
                .query_map([&name], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
                })
                .map_err(damaged)?;
            for r in rows {
                let (p, bytes) = r.map_err(damaged)?;
                map.insert(p, Arc::new(bytes));
            }
            packages.push((name, source, map));
        }
    }
    let environments: Vec<(StoredEnvironment, i64)> = {
        let mut st = old
            .prepare(
                "SELECT id, name, status, status_text, description, pending, cloud, created \
                 FROM environments ORDER BY created, name",
            )
            .map_err(damaged)?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    StoredEnvironment {
                        id: r.get(0)?,
                        name: r.get(1)?,
                        status: r.get(2)?,
                        status_text: r.get(3)?,
                        description: parsed(r.get(4)?),
                        pending: r.get::<_, Option<String>>(5)?.map(|p| parsed(Some(p))),
                        cloud: parsed(r.get(6)?),
                    },
                    r.get::<_, i64>(7)?,
                ))
            })
            .map_err(damaged)?;
        rows.collect::<std::result::Result<_, _>>()
            .map_err(damaged)?
    };
    let deployments: Vec<OldDeployment> = {
        let mut st = old
            .prepare(
                "SELECT id, environment, kind, action, state, pid, started, finished, outcome, \
                 final_model FROM deployments ORDER BY id",
            )
            .map_err(damaged)?;
        let mut records = old
            .prepare("SELECT kind, body FROM records WHERE deployment = ?1 ORDER BY kind, seq")
            .map_err(damaged)?;
        let rows: Vec<(i64, OldDeployment)> = st
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    OldDeployment {
                        environment: r.get(1)?,
                        kind: r.get(2)?,
                        action: parsed(r.get(3)?),
                        state: r.get(4)?,
                        pid: r.get(5)?,
                        started: r.get(6)?,
                        finished: r.get(7)?,
                        outcome: parsed(r.get(8)?),
                        final_model: parsed(r.get(9)?),
                        records: BTreeMap::new(),
                    },
                ))
            })
            .map_err(damaged)?
            .collect::<std::result::Result<_, _>>()
            .map_err(damaged)?;
        let mut out = Vec::new();
        for (id, mut d) in rows {
            let recs = records
                .query_map([id], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
                })
                .map_err(damaged)?;
            for rec in recs {
                let (kind, body) = rec.map_err(damaged)?;
                d.records.entry(kind).or_default().push(parsed(Some(body)));
            }
            out.push(d);
        }
        out
    };
    drop(old);

    let new_path = sibling(path, "carrying-over");
    let _ = std::fs::remove_file(&new_path);
    {
        let mut store = Store {
            db: crate::open_db(&new_path)?,
            path: new_path.clone(),
        };
        for (name, source, files) in &packages {
            store
                .import_package(source, files)
                .map_err(|e| refused(path, format!("cannot carry over package {name}: {e}")))?;
        }
        for (env, created) in &environments {
            carry_environment(&store, env, *created, &deployments)?;
        }
    }
    std::fs::copy(path, sibling(path, "first-format")).map_err(|e| {
        refused(
            path,
            format!("cannot keep a copy of the earlier store: {e}"),
        )
    })?;
    std::fs::rename(&new_path, path)
        .map_err(|e| refused(path, format!("cannot replace the earlier store: {e}")))?;
    Ok(())
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

/// One environment with its deployments: Murano's rows as if the API had
/// made them (a session per deployment, its state the deployment's
/// outcome; the pending changes an open session).
fn carry_environment(
    store: &Store,
    env: &StoredEnvironment,
    created: i64,
    deployments: &[OldDeployment],
) -> Result<()> {
    let db = &store.db;
    let tenant = env.description["project_id"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(crate::catalog::catalog_owner);
    let user = crate::environments::session_user(&env.description);
    let mine: Vec<&OldDeployment> = deployments
        .iter()
        .filter(|d| d.environment == env.id)
        .collect();
    let version = mine.iter().filter(|d| d.finished.is_some()).count() as i64;
    db.transaction(|db| {
        db.insert(
            "environment",
            &row(vec![
                ("id", json!(env.id)),
                ("name", json!(env.name)),
                ("tenant_id", json!(tenant)),
                ("description_text", json!("")),
                ("version", json!(version)),
                ("description", env.description.clone()),
                ("created", json!(at(created))),
                ("updated", json!(at(created))),
            ]),
        )?;
        db.set_cloud_state(&env.id, &env.cloud)?;
        for (i, d) in mine.iter().enumerate() {
            let started = at(d.started);
            let finished = d.finished.map(at).unwrap_or_else(|| started.clone());
            // A deployment left running (its process gone) is failed, as
            // opening the first store would have done.
            let state = if d.state == "running" { "interrupted" } else { d.state.as_str() };
            let failed = state != "success";
            let deleting = d.kind == "delete";
            let session_state = match (deleting, failed) {
                (false, false) | (true, false) => "deployed",
                (false, true) => "deploy failure",
                (true, true) => "delete failure",
            };
            let task_id = clock::new_id();
            db.insert(
                "session",
                &row(vec![
                    ("id", json!(clock::new_id())),
                    ("environment_id", json!(env.id)),
                    ("user_id", json!(user)),
                    ("state", json!(session_state)),
                    ("version", json!(i)),
                    ("description", env.description.clone()),
                    ("created", json!(started)),
                    ("updated", json!(finished)),
                ]),
            )?;
            let result = match d.outcome.get("raised") {
                Some(r) => json!({"isException": true, "result": {"message": r["message"]}}),
                None => json!({"isException": false, "result": d.outcome.get("result").cloned().unwrap_or(Json::Null)}),
            };
            db.insert(
                "task",
                &row(vec![
                    ("id", json!(task_id)),
                    ("environment_id", json!(env.id)),
                    (
                        "description",
                        if deleting { Json::Null } else { d.final_model["Objects"].clone() },
                    ),
                    ("action", d.action.clone()),
                    ("result", result),
                    ("started", json!(started)),
                    ("finished", json!(finished)),
                    ("created", json!(started)),
                    ("updated", json!(finished)),
                ]),
            )?;
            let reports = d.records.get("report").cloned().unwrap_or_default();
            for r in &reports {
                db.insert(
                    "status",
                    &row(vec![
                        ("id", json!(clock::new_id())),
                        ("task_id", json!(task_id)),
                        ("entity_id", r["id"].clone()),
                        ("text", crate::ops::stored_report(r.clone())["text"].clone()),
                        ("level", r["level"].clone()),
                        ("created", json!(started)),
                        ("updated", json!(started)),
                    ]),
                )?;
            }
            let list = |k: &str| Json::Array(d.records.get(k).cloned().unwrap_or_default()).to_string();
            db.connection().execute(
                "INSERT INTO env_run (task_id, pid, kind, state, outcome, reports, heat, \
                 agent_plans, log, final_model) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    task_id,
                    d.pid,
                    d.kind,
                    state,
                    d.outcome.to_string(),
                    list("report"),
                    list("heat"),
                    list("agent_plan"),
                    list("log"),
                    d.final_model.to_string()
                ],
            )?;
        }
        if let Some(p) = &env.pending {
            crate::environments::open_session(db, &db.get("environment", &env.id)?.unwrap_or_default(), p)?;
        }
        Ok::<_, crate::StoreError>(())
    })
}
