//! Environments: Murano's `environment` rows, their pending changes the
//! description of their open session, their status Murano's.

use murano_api::clock;
use murano_api::handlers::{env_status, sessions_of};
use murano_api::store::{key, Db, Row};
use serde_json::{json, Value as Json};

use crate::{Result, Store, StoreError, StoredEnvironment};

fn text(row: &Row, col: &str) -> String {
    row.get(col)
        .and_then(Json::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The user `murano env`'s sessions are opened for: the one the
/// environment's description names, else the offline cloud's default.
pub(crate) fn session_user(description: &Json) -> String {
    description["user_id"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| murano_engine::host::OfflineOptions::default().user_id)
}

/// The open session whose description is the environment's pending
/// changes: the newest `opened` one made at the environment's current
/// version (an older one was overtaken by a deployment).
pub(crate) fn pending_session(db: &Db, env: &Row) -> Result<Option<Row>> {
    let version = env["version"].as_i64().unwrap_or(0);
    let id = text(env, "id");
    Ok(sessions_of(db, &id, Some("opened"))?
        .into_iter()
        .find(|s| s["version"].as_i64().unwrap_or(0) >= version))
}

/// The text of the last status report of the environment's last task.
fn last_status_text(db: &Db, env_id: &str) -> Result<String> {
    let text: Option<String> = db
        .connection()
        .query_row(
            "SELECT s.text FROM status s JOIN task t ON s.task_id = t.id \
             WHERE t.environment_id = ?1 ORDER BY t.created DESC, t.rowid DESC, \
             s.created DESC, s.rowid DESC LIMIT 1",
            [env_id],
            |r| r.get(0),
        )
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })?;
    Ok(text.unwrap_or_default())
}

impl Store {
    fn stored(&self, row: &Row) -> Result<StoredEnvironment> {
        let id = text(row, "id");
        let cloud = self
            .db
            .cloud_state(&id)?
            .unwrap_or_else(|| murano_env::CloudState::default().to_json());
        Ok(StoredEnvironment {
            status: env_status(&self.db, &id)?.to_owned(),
            status_text: last_status_text(&self.db, &id)?,
            description: row.get("description").cloned().unwrap_or(Json::Null),
            pending: pending_session(&self.db, row)?
                .map(|s| s.get("description").cloned().unwrap_or(Json::Null)),
            cloud,
            name: text(row, "name"),
            id,
        })
    }

    /// Creates an environment, owned by the project its description
    /// names (`project_id`).
    pub fn create_environment(&mut self, env: &StoredEnvironment) -> Result<()> {
        let now = clock::now();
        let tenant = env.description["project_id"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(crate::catalog::catalog_owner);
        self.db.immediate(|db| {
            if !db
                .select("environment", &key("name", env.name.as_str()), "")?
                .is_empty()
            {
                return Err(StoreError::Conflict(format!(
                    "an environment named {} already exists",
                    env.name
                )));
            }
            let row: Row = [
                ("id", json!(env.id)),
                ("name", json!(env.name)),
                ("tenant_id", json!(tenant)),
                ("description_text", json!("")),
                ("version", json!(0)),
                ("description", env.description.clone()),
                ("created", json!(now)),
                ("updated", json!(now)),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
            db.insert("environment", &row)?;
            db.set_cloud_state(&env.id, &env.cloud)?;
            Ok(())
        })?;
        if let Some(p) = &env.pending {
            self.set_pending(&env.id, Some(p))?;
        }
        Ok(())
    }

    /// Every environment (every project's), by name.
    pub fn environments(&self) -> Result<Vec<StoredEnvironment>> {
        self.db
            .select("environment", &Row::new(), "name, rowid")?
            .iter()
            .map(|r| self.stored(r))
            .collect()
    }

    /// An environment by id, or by name (refused when environments of
    /// several projects have that name).
    pub fn environment(&self, name_or_id: &str) -> Result<StoredEnvironment> {
        if let Some(row) = self.db.get("environment", name_or_id)? {
            return self.stored(&row);
        }
        let named = self
            .db
            .select("environment", &key("name", name_or_id), "rowid")?;
        match named.as_slice() {
            [] => Err(StoreError::NotFound(format!("no environment {name_or_id}"))),
            [one] => self.stored(one),
            many => Err(StoreError::Conflict(format!(
                "{} environments of different projects are named {name_or_id}; name one by its id ({})",
                many.len(),
                many.iter()
                    .map(|r| text(r, "id"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// Saves the pending changes of an environment in its open session
    /// (opened when it has none; `None` closes it); refused while it
    /// deploys.
    pub fn set_pending(&mut self, id: &str, pending: Option<&Json>) -> Result<()> {
        let now = clock::now();
        self.db.immediate(|db| {
            let env = db
                .get("environment", id)?
                .ok_or_else(|| StoreError::NotFound(format!("no environment {id}")))?;
            let status = env_status(db, id)?;
            if status == "deploying" || status == "deleting" {
                return Err(StoreError::Conflict(format!(
                    "environment {id} is {status}; wait for it to finish"
                )));
            }
            let open = pending_session(db, &env)?;
            match (pending, open) {
                (Some(desc), Some(s)) => {
                    let set: Row = [
                        ("description".to_owned(), desc.clone()),
                        ("updated".to_owned(), json!(now)),
                    ]
                    .into_iter()
                    .collect();
                    db.update("session", &key("id", s["id"].clone()), &set)?;
                }
                (Some(desc), None) => {
                    open_session(db, &env, desc)?;
                }
                (None, Some(s)) => {
                    db.delete("session", &key("id", s["id"].clone()))?;
                }
                (None, None) => {}
            }
            Ok(())
        })
    }

    /// Removes an environment murano-api deletes without an engine task
    /// (never deployed); refused while it deploys.
    pub fn remove_environment(&mut self, id: &str) -> Result<()> {
        self.db.immediate(|db| {
            if let Some(n) = crate::deployments::running(db, id)? {
                return Err(StoreError::Conflict(format!(
                    "environment {id} is being deployed ({n}); wait for it to finish"
                )));
            }
            murano_api::handlers::environments::remove(db, id)?;
            Ok(())
        })
    }
}

/// Opens a session on `env` whose description is `desc`; its row.
pub(crate) fn open_session(db: &Db, env: &Row, desc: &Json) -> Result<Row> {
    let now = clock::now();
    let row: Row = [
        ("id", json!(clock::new_id())),
        ("environment_id", env["id"].clone()),
        (
            "user_id",
            json!(session_user(env.get("description").unwrap_or(&Json::Null))),
        ),
        ("state", json!("opened")),
        ("version", env.get("version").cloned().unwrap_or(json!(0))),
        ("description", desc.clone()),
        ("created", json!(now)),
        ("updated", json!(now)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    db.insert("session", &row)?;
    Ok(row)
}
