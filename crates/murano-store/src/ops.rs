//! Engine tasks of a stored environment, run through the store: the
//! deployment committed as running, the task run against the
//! environment's offline cloud, its records and the environment's new
//! state committed together.

use murano_engine::deploy::{DeployOptions, PackageFiles};
use murano_engine::host::OfflineOptions;
use murano_env::cloud::ReportObserver;
use murano_env::model::{self, ApiReaction};
use murano_env::{run_task_observed, CloudState, TaskRecord};
use serde_json::{json, Value as Json};

use crate::{Result, Store, StoreError, StoredEnvironment, TaskResult};

/// An engine task to run for an environment.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvTask {
    /// `deploy`, `action` or `delete`.
    pub kind: String,
    /// The task model.
    pub model: Json,
    /// `(object id, method, arguments)`; `None` for a deletion.
    pub action: Option<(String, String, Json)>,
}

impl EnvTask {
    /// The deployment of the environment's pending changes (or of its
    /// description again).
    pub fn deploy(env: &StoredEnvironment) -> EnvTask {
        let description = env.pending.as_ref().unwrap_or(&env.description);
        EnvTask {
            kind: "deploy".into(),
            model: model::task_model(description, &env.id),
            action: Some((env.id.clone(), "deploy".into(), json!({}))),
        }
    }

    /// The action `action_id` (as `_actions` lists it) with `args`.
    pub fn action(env: &StoredEnvironment, action_id: &str, args: Json) -> Result<EnvTask> {
        let found = model::find_action(&env.description, action_id)
            .map_err(|e| StoreError::NotFound(e.to_string()))?;
        Ok(EnvTask {
            kind: "action".into(),
            model: model::task_model(&env.description, &env.id),
            action: Some((found.object_id, found.method, args)),
        })
    }

    /// The deletion task, `None` when the environment was never deployed
    /// (then it is simply removed).
    pub fn delete(env: &StoredEnvironment) -> Option<EnvTask> {
        model::deletion_model(&env.description, &env.id).map(|m| EnvTask {
            kind: "delete".into(),
            model: m,
            action: None,
        })
    }
}

/// What a task run through the store did.
#[derive(Debug, Clone)]
pub struct EnvTaskRun {
    /// The deployment's number.
    pub deployment: i64,
    /// What the engine did.
    pub record: TaskRecord,
    /// murano-api's reaction.
    pub reaction: ApiReaction,
    /// Whether the deployment failed.
    pub failed: bool,
}

impl Store {
    /// Runs `task` for `env`: refused while another deployment of it
    /// runs; `observer` hears each status report as it is made.
    pub fn run_env_task(
        &mut self,
        env: &StoredEnvironment,
        task: &EnvTask,
        packages: &[PackageFiles],
        offline: &OfflineOptions,
        observer: Option<ReportObserver>,
    ) -> Result<EnvTaskRun> {
        let cloud =
            CloudState::from_json(&env.cloud).map_err(|e| StoreError::Damaged(e.to_string()))?;
        let action_json = task.action.as_ref().map_or(
            Json::Null,
            |(o, m, a)| json!({"object_id": o, "method": m, "args": a}),
        );
        let (deployment, task_id) = self.begin_deployment(&env.id, &task.kind, &action_json)?;
        let wrapper = model::engine_task(
            task.model.clone(),
            task.action
                .as_ref()
                .map(|(o, m, a)| (o.as_str(), m.as_str(), a)),
            &env.id,
            &offline.project_id,
            &offline.user_id,
        );
        // Each report reaches Murano's status table as it is made (over a
        // connection of its own: the engine reports from its thread), so
        // an API client polling the deployment follows it.
        let live = self.db.writer().ok().flatten().map(std::sync::Mutex::new);
        let reports_stored = live.is_some();
        let env_id = env.id.clone();
        let recorder: ReportObserver = std::sync::Arc::new(move |r: &murano_yaql::eval::Value| {
            if let Some(db) = &live {
                let report = stored_report(murano_engine::deploy::value_to_json(r));
                let db = db.lock().unwrap_or_else(|e| e.into_inner());
                let _ = murano_api::handlers::results::record_report(&db, &env_id, &report);
            }
            if let Some(o) = &observer {
                o(r);
            }
        });
        let record = run_task_observed(
            packages,
            &cloud,
            offline,
            &wrapper,
            &DeployOptions::default(),
            Some(recorder),
        );
        let reaction =
            model::process_result(&record.final_model, record.raised(), record.report_levels());
        let failed = record.raised() || record.report_levels().contains(&"error");
        let result = TaskResult {
            outcome: record.outcome.clone(),
            reports: record.recording.reports.clone(),
            heat: record.recording.heat.clone(),
            agent_plans: record.recording.agent_plans.clone(),
            log: record.log.clone(),
            final_model: record.final_model.clone(),
            failed,
            reports_stored,
            api_result: murano_api::worker::task_result(&wrapper, &record),
            cloud: record.cloud_after.to_json(),
        };
        self.finish_deployment(&task_id, &env.id, &result)?;
        Ok(EnvTaskRun {
            deployment,
            record,
            reaction,
            failed,
        })
    }
}

/// A report as the status table keeps it: a message that is not a
/// string as its JSON text, as the API's engine stores it.
pub(crate) fn stored_report(mut r: Json) -> Json {
    if !r["text"].is_null() && !r["text"].is_string() {
        r["text"] = json!(r["text"].to_string());
    }
    r
}
