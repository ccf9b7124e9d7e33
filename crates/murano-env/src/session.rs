//! Environments and their sessions as murano-api keeps them
//! (`murano/db/services/environments.py`, `sessions.py`,
//! `murano/api/v1/sessions.py`): a session copies the environment's
//! description when it is opened (`configure`), collects changes to its
//! applications, and is deployed as one task; an environment deploys one
//! session at a time.

use serde_json::{json, Value as Json};

use crate::model::{self, ApiReaction, ModelError, NewEnvironment};

/// The status of an environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvironmentStatus {
    /// Deployed (or new) with nothing pending.
    Ready,
    /// A session holds changes not deployed yet.
    Pending,
    /// A deployment runs.
    Deploying,
    /// The last deployment failed.
    DeployFailure,
    /// A deletion runs.
    Deleting,
    /// The last deletion failed.
    DeleteFailure,
}

impl EnvironmentStatus {
    /// Murano's name (`ready`, `deploy failure`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            EnvironmentStatus::Ready => "ready",
            EnvironmentStatus::Pending => "pending",
            EnvironmentStatus::Deploying => "deploying",
            EnvironmentStatus::DeployFailure => "deploy failure",
            EnvironmentStatus::Deleting => "deleting",
            EnvironmentStatus::DeleteFailure => "delete failure",
        }
    }

    /// The status of its Murano name.
    pub fn parse(text: &str) -> Option<EnvironmentStatus> {
        [
            EnvironmentStatus::Ready,
            EnvironmentStatus::Pending,
            EnvironmentStatus::Deploying,
            EnvironmentStatus::DeployFailure,
            EnvironmentStatus::Deleting,
            EnvironmentStatus::DeleteFailure,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

/// The state of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionState {
    /// Open for changes.
    Opened,
    /// Its task runs.
    Deploying,
    /// Its task finished without errors.
    Deployed,
    /// Its deployment finished with errors.
    DeployFailure,
    /// Its deletion finished with errors.
    DeleteFailure,
}

impl SessionState {
    /// Murano's name.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionState::Opened => "opened",
            SessionState::Deploying => "deploying",
            SessionState::Deployed => "deployed",
            SessionState::DeployFailure => "deploy failure",
            SessionState::DeleteFailure => "delete failure",
        }
    }

    /// The state of its Murano name.
    pub fn parse(text: &str) -> Option<SessionState> {
        [
            SessionState::Opened,
            SessionState::Deploying,
            SessionState::Deployed,
            SessionState::DeployFailure,
            SessionState::DeleteFailure,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

/// Why a session operation was refused (murano-api's 403/404 answers).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// A deployment or deletion of the environment runs.
    #[error("environment {0} is being deployed or deleted; no session can be opened or deployed")]
    Busy(String),
    /// The session is not open any more.
    #[error("session {0} is already deployed or its deployment is in progress")]
    NotOpen(String),
    /// No session with this id.
    #[error("session {0} is not found")]
    NoSession(String),
    /// The model could not be changed.
    #[error(transparent)]
    Model(#[from] ModelError),
}

/// One session of an environment.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// Its id.
    pub id: String,
    /// Its state.
    pub state: SessionState,
    /// The description it changes (API form: `services`).
    pub description: Json,
    /// Whether it changed the description.
    pub changed: bool,
}

/// An environment: its description, status and sessions.
#[derive(Debug, Clone, PartialEq)]
pub struct Environment {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The owner project.
    pub project_id: String,
    /// The owner user.
    pub user_id: String,
    /// The stored description (API form).
    pub description: Json,
    /// Its status.
    pub status: EnvironmentStatus,
    /// The last status text (`Deployment finished`, ...).
    pub status_text: String,
    /// Its sessions, oldest first.
    pub sessions: Vec<Session>,
}

impl Environment {
    /// A new environment with its default network and no applications.
    pub fn new(env: &NewEnvironment) -> Environment {
        Environment {
            id: env.id.clone(),
            name: env.name.clone(),
            project_id: env.project_id.clone(),
            user_id: env.user_id.clone(),
            description: model::to_description(&model::initial_model(env, Vec::new())),
            status: EnvironmentStatus::Ready,
            status_text: String::new(),
            sessions: Vec::new(),
        }
    }

    fn busy(&self) -> bool {
        self.sessions
            .iter()
            .any(|s| s.state == SessionState::Deploying)
    }

    /// Opens a session (`POST /environments/<id>/configure`) with the id
    /// `session_id`: refused while a deployment or deletion runs.
    pub fn configure(&mut self, session_id: &str) -> Result<&mut Session, SessionError> {
        if self.busy() {
            return Err(SessionError::Busy(self.id.clone()));
        }
        self.sessions.push(Session {
            id: session_id.to_owned(),
            state: SessionState::Opened,
            description: self.description.clone(),
            changed: false,
        });
        let last = self.sessions.len() - 1;
        Ok(&mut self.sessions[last])
    }

    /// The open session `id`.
    pub fn open_session(&mut self, id: &str) -> Result<&mut Session, SessionError> {
        let s = self
            .sessions
            .iter_mut()
            .find(|s| s.id == id)
            .ok_or_else(|| SessionError::NoSession(id.to_owned()))?;
        if s.state != SessionState::Opened {
            return Err(SessionError::NotOpen(id.to_owned()));
        }
        Ok(s)
    }

    /// Adds an application (its object model) to the session.
    pub fn add_application(&mut self, session: &str, app: Json) -> Result<(), SessionError> {
        let s = self.open_session(session)?;
        let objects = s
            .description
            .get_mut("Objects")
            .and_then(Json::as_object_mut)
            .ok_or_else(|| ModelError::NoPath("Objects".into()))?;
        let services = objects.entry("services").or_insert_with(|| json!([]));
        if let Json::Array(a) = services {
            a.push(app);
        }
        s.changed = true;
        self.refresh_status();
        Ok(())
    }

    fn app_index(description: &Json, app_id: &str) -> Result<usize, ModelError> {
        description["Objects"]["services"]
            .as_array()
            .and_then(|a| a.iter().position(|x| x["?"]["id"] == app_id))
            .ok_or_else(|| ModelError::NoApplication(app_id.to_owned()))
    }

    /// Removes the application `app_id` from the session.
    pub fn remove_application(
        &mut self,
        session: &str,
        app_id: &str,
    ) -> Result<Json, SessionError> {
        let s = self.open_session(session)?;
        let i = Self::app_index(&s.description, app_id)?;
        let removed = match s.description["Objects"]["services"].as_array_mut() {
            Some(a) => a.remove(i),
            None => Json::Null,
        };
        s.changed = true;
        self.refresh_status();
        Ok(removed)
    }

    /// Edits the application `app_id` with a JSON patch (RFC 6902 `add`,
    /// `replace`, `remove`; paths inside the application), as
    /// `environment-apps-edit` does.
    pub fn edit_application(
        &mut self,
        session: &str,
        app_id: &str,
        patch: &Json,
    ) -> Result<(), SessionError> {
        let s = self.open_session(session)?;
        let i = Self::app_index(&s.description, app_id)?;
        let app = &mut s.description["Objects"]["services"][i];
        let mut edited = app.clone();
        crate::patch::apply(&mut edited, patch)?;
        *app = edited;
        s.changed = true;
        self.refresh_status();
        Ok(())
    }

    /// Starts deploying the session: its task (a deploy of the
    /// environment). Refused when another deployment runs or the session
    /// is not open.
    pub fn deploy(&mut self, session: &str) -> Result<Json, SessionError> {
        if self.busy() {
            return Err(SessionError::Busy(self.id.clone()));
        }
        let env_id = self.id.clone();
        let (project, user) = (self.project_id.clone(), self.user_id.clone());
        let s = self.open_session(session)?;
        s.state = SessionState::Deploying;
        let model = model::task_model(&s.description, &env_id);
        self.status = EnvironmentStatus::Deploying;
        Ok(model::engine_task(
            model,
            Some((&env_id, "deploy", &json!({}))),
            &env_id,
            &project,
            &user,
        ))
    }

    /// Starts an action (`POST /environments/<id>/actions/<action id>`):
    /// a session of its own, deploying the action's task.
    pub fn action(
        &mut self,
        session_id: &str,
        action_id: &str,
        args: &Json,
    ) -> Result<Json, SessionError> {
        let found = model::find_action(&self.description, action_id)?;
        self.configure(session_id)?;
        let env_id = self.id.clone();
        let (project, user) = (self.project_id.clone(), self.user_id.clone());
        let s = self.open_session(session_id)?;
        s.state = SessionState::Deploying;
        let model = model::task_model(&s.description, &env_id);
        self.status = EnvironmentStatus::Deploying;
        Ok(model::engine_task(
            model,
            Some((&found.object_id, &found.method, args)),
            &env_id,
            &project,
            &user,
        ))
    }

    /// Starts the deletion: its task, or `None` when the environment was
    /// never loaded by the engine (then it is simply gone).
    pub fn delete(&mut self, session_id: &str) -> Result<Option<Json>, SessionError> {
        if self.busy() {
            return Err(SessionError::Busy(self.id.clone()));
        }
        let Some(model) = model::deletion_model(&self.description, &self.id) else {
            return Ok(None);
        };
        self.configure(session_id)?;
        let s = self.open_session(session_id)?;
        s.state = SessionState::Deploying;
        self.status = EnvironmentStatus::Deleting;
        Ok(Some(model::engine_task(
            model,
            None,
            &self.id,
            &self.project_id,
            &self.user_id,
        )))
    }

    /// Applies a finished task's result to the deploying session and the
    /// environment; [`ApiReaction::Removed`] means the environment is
    /// gone.
    pub fn finish<'a>(
        &mut self,
        final_model: &Json,
        raised: bool,
        report_levels: impl IntoIterator<Item = &'a str>,
    ) -> ApiReaction {
        let reaction = model::process_result(final_model, raised, report_levels);
        if let ApiReaction::Stored {
            description,
            session_state,
            environment_status,
            status_text,
        } = &reaction
        {
            self.description = description.clone();
            self.status_text = status_text.clone();
            for s in &mut self.sessions {
                if s.state == SessionState::Deploying {
                    s.state = SessionState::parse(session_state).unwrap_or(SessionState::Deployed);
                }
            }
            self.status =
                EnvironmentStatus::parse(environment_status).unwrap_or(EnvironmentStatus::Ready);
            self.refresh_status();
        }
        reaction
    }

    /// Marks a deployment that never finished (the process died) as
    /// failed, as murano-api does for stale sessions.
    pub fn fail_interrupted(&mut self) {
        let mut deleting = false;
        for s in &mut self.sessions {
            if s.state == SessionState::Deploying {
                deleting = s.description.get("Objects").is_none_or(Json::is_null)
                    || self.status == EnvironmentStatus::Deleting;
                s.state = if deleting {
                    SessionState::DeleteFailure
                } else {
                    SessionState::DeployFailure
                };
            }
        }
        if matches!(
            self.status,
            EnvironmentStatus::Deploying | EnvironmentStatus::Deleting
        ) {
            self.status = if deleting {
                EnvironmentStatus::DeleteFailure
            } else {
                EnvironmentStatus::DeployFailure
            };
        }
    }

    /// `pending` while an open session holds changes (unless a
    /// deployment runs or the last one failed).
    fn refresh_status(&mut self) {
        let pending = self
            .sessions
            .iter()
            .any(|s| s.state == SessionState::Opened && s.changed);
        if pending && self.status == EnvironmentStatus::Ready {
            self.status = EnvironmentStatus::Pending;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Environment {
        Environment::new(&NewEnvironment {
            id: "e1".into(),
            name: "shop".into(),
            network_id: "n1".into(),
            project_id: "p".into(),
            user_id: "u".into(),
        })
    }

    #[test]
    fn one_deployment_at_a_time() {
        let mut e = env();
        e.configure("s1").unwrap();
        e.configure("s2").unwrap();
        e.add_application("s1", json!({"?": {"id": "a1", "type": "X"}}))
            .unwrap();
        assert_eq!(e.status, EnvironmentStatus::Pending);
        let task = e.deploy("s1").unwrap();
        assert_eq!(task["model"]["Objects"]["applications"][0]["?"]["id"], "a1");
        assert_eq!(task["action"]["method"], "deploy");
        assert!(matches!(e.deploy("s2"), Err(SessionError::Busy(_))));
        assert!(matches!(e.configure("s3"), Err(SessionError::Busy(_))));
        let mut m = task["model"].clone();
        m["ObjectsCopy"] = m["Objects"].clone();
        e.finish(&m, false, []);
        assert_eq!(e.status, EnvironmentStatus::Ready);
        assert!(matches!(e.deploy("s1"), Err(SessionError::NotOpen(_))));
    }

    #[test]
    fn applications_are_patched_and_removed() {
        let mut e = env();
        e.configure("s").unwrap();
        e.add_application("s", json!({"?": {"id": "a1"}, "name": "x"}))
            .unwrap();
        e.edit_application(
            "s",
            "a1",
            &json!([{"op": "replace", "path": "/name", "value": "y"}]),
        )
        .unwrap();
        assert_eq!(
            e.sessions[0].description["Objects"]["services"][0]["name"],
            "y"
        );
        assert!(e.edit_application("s", "zz", &json!([])).is_err());
        e.remove_application("s", "a1").unwrap();
        assert_eq!(e.sessions[0].description["Objects"]["services"], json!([]));
    }

    #[test]
    fn interrupted_deployments_are_marked_failed() {
        let mut e = env();
        e.configure("s").unwrap();
        e.deploy("s").unwrap();
        e.fail_interrupted();
        assert_eq!(e.status, EnvironmentStatus::DeployFailure);
        assert_eq!(e.sessions[0].state, SessionState::DeployFailure);
    }

    #[test]
    fn never_deployed_environments_are_deleted_without_a_task() {
        let mut e = env();
        assert_eq!(e.delete("s").unwrap(), None);
    }
}
