//! Engine tasks run against the stateful offline cloud: the task JSON
//! murano-api sends in, what the engine did and the cloud state after it
//! out.

use std::sync::Arc;

use murano_engine::deploy::{DeployOptions, PackageFiles};
use murano_engine::host::{OfflineOptions, Recording};
use murano_engine::task::{run_engine_task, run_static_action, StaticAction, TaskAction};
use serde_json::{json, Value as Json};

use crate::cloud::{CloudState, StatefulCloud};

/// What one task did.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// `{"ok": true, "result": …}` or `{"raised": {stage, type, …}}`.
    pub outcome: Json,
    /// Host calls, Heat operations, agent plans, reports.
    pub recording: Recording,
    /// Logger lines.
    pub log: Vec<Json>,
    /// The model the engine returned (null for static tasks).
    pub final_model: Json,
    /// The cloud after the task.
    pub cloud_after: CloudState,
}

impl TaskRecord {
    /// Whether the task raised.
    pub fn raised(&self) -> bool {
        self.outcome.get("raised").is_some()
    }

    /// The levels of the task's status reports.
    pub fn report_levels(&self) -> Vec<&str> {
        self.recording
            .reports
            .iter()
            .filter_map(|r| r.get("level").and_then(Json::as_str))
            .collect()
    }
}

/// Runs an engine task (`{action, model, id, …}`) over `packages` in the
/// cloud `cloud`.
pub fn run_task(
    packages: &[PackageFiles],
    cloud: &CloudState,
    offline: &OfflineOptions,
    task: &Json,
    options: &DeployOptions,
) -> TaskRecord {
    run_task_observed(packages, cloud, offline, task, options, None)
}

/// [`run_task`] telling `observer` about each status report as it is
/// made.
pub fn run_task_observed(
    packages: &[PackageFiles],
    cloud: &CloudState,
    offline: &OfflineOptions,
    task: &Json,
    options: &DeployOptions,
    observer: Option<crate::cloud::ReportObserver>,
) -> TaskRecord {
    let mut host = StatefulCloud::new(cloud.clone(), offline.clone());
    if let Some(o) = observer {
        host = host.with_observer(o);
    }
    let model = task.get("model").cloned().unwrap_or(Json::Null);
    let env_id = task.get("id").and_then(Json::as_str).unwrap_or("");
    let action = task
        .get("action")
        .filter(|a| !a.is_null())
        .map(|a| TaskAction {
            object_id: a["object_id"].as_str().unwrap_or("").to_owned(),
            method: a["method"].as_str().unwrap_or("").to_owned(),
            args: a.get("args").cloned().unwrap_or_else(|| json!({})),
        });
    let plan = run_engine_task(
        packages,
        Arc::new(host.clone()),
        env_id,
        &model,
        action.as_ref(),
        options,
    );
    TaskRecord {
        outcome: plan.outcome,
        recording: plan.recording,
        log: plan.log,
        final_model: plan.final_model,
        cloud_after: host.state(),
    }
}

/// Runs a static action task (`{action: {class_name, method, args,
/// pkg_name, class_version}, …}`).
pub fn run_static_task(
    packages: &[PackageFiles],
    cloud: &CloudState,
    offline: &OfflineOptions,
    task: &Json,
    options: &DeployOptions,
) -> TaskRecord {
    let host = StatefulCloud::new(cloud.clone(), offline.clone());
    let a = &task["action"];
    let action = StaticAction {
        class_name: a["class_name"].as_str().unwrap_or("").to_owned(),
        method: a["method"].as_str().unwrap_or("").to_owned(),
        package: a["pkg_name"].as_str().map(str::to_owned),
        args: a.get("args").cloned().unwrap_or_else(|| json!({})),
    };
    let r = run_static_action(packages, Arc::new(host.clone()), &action, options);
    TaskRecord {
        outcome: r.outcome,
        recording: r.recording,
        log: r.log,
        final_model: Json::Null,
        cloud_after: host.state(),
    }
}
