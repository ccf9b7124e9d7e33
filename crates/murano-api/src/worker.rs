//! The engine behind `murano serve`: engine tasks (deployments, actions,
//! deletions) run on a bounded pool of OS threads, never on the async
//! runtime's, against each environment's stateful offline cloud
//! (`murano-env`). As Murano's engine behind its queue: status reports go
//! to the `status` table as they are made, then the result is applied as
//! Murano's `ResultEndpoint` does (`handlers::results`). Static actions
//! and schemas answer synchronously, on a thread of their own with the
//! engine's stack.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::thread::JoinHandle;

use murano_engine::deploy::{value_to_json, DeployOptions, PackageFiles};
use murano_engine::host::{OfflineOptions, Recording};
use murano_env::cloud::ReportObserver;
use murano_env::{CloudState, TaskRecord};
use murano_schema::SchemaRequest;
use serde_json::{json, Value};

use crate::app::App;
use crate::engine::{Engine, RemoteError};
use crate::engine_catalog::{EngineCatalog, TenantPackages};
use crate::handlers::results;
use crate::store::TaskArtifacts;

/// Most worker threads a pool may have.
pub const MAX_WORKERS: usize = 256;
/// Most tasks a pool's queue may hold.
pub const MAX_QUEUE: usize = 1 << 20;
/// The least stack a thread running the engine gets: above the engine's
/// default stack budget (`murano_engine::DEFAULT_MAX_STACK`, 6 MiB).
pub const MIN_STACK: usize = 8 << 20;

/// Settings of the worker pool.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// Threads running tasks at once (default 2).
    pub workers: usize,
    /// Tasks waiting for a thread; one more is refused and its
    /// deployment fails (default 64).
    pub queue: usize,
    /// Stack of each engine thread, in bytes (default 16 MiB; at least
    /// [`MIN_STACK`]).
    pub stack: usize,
    /// What the offline cloud answers (`--cloud`).
    pub offline: OfflineOptions,
    /// The engine's limits.
    pub deploy: DeployOptions,
    /// Most reports (status reports and instance notifications) one task
    /// stores (default 10,000); one warning says when more were dropped.
    pub max_reports: usize,
    /// Longest text of a stored report, in bytes (default 64 KiB; longer
    /// ones are cut, ending in `…`).
    pub max_report_text: usize,
    /// Most bytes of Heat operations and agent plans (as JSON text) kept
    /// per task for the dashboard's deployment page (default 8 MiB); the
    /// ones past it are counted in a note instead.
    pub max_artifacts: usize,
}

impl Default for WorkerOptions {
    fn default() -> Self {
        WorkerOptions {
            workers: 2,
            queue: 64,
            stack: 16 << 20,
            offline: OfflineOptions::default(),
            deploy: DeployOptions::default(),
            max_reports: 10_000,
            max_report_text: 64 << 10,
            max_artifacts: 8 << 20,
        }
    }
}

impl WorkerOptions {
    /// Why these settings cannot make a pool, if they cannot.
    pub fn validate(&self) -> Result<(), String> {
        if self.workers == 0 || self.workers > MAX_WORKERS {
            return Err(format!(
                "workers must be between 1 and {MAX_WORKERS}, not {}",
                self.workers
            ));
        }
        if self.queue == 0 || self.queue > MAX_QUEUE {
            return Err(format!(
                "the task queue length must be between 1 and {MAX_QUEUE}, not {}",
                self.queue
            ));
        }
        if self.stack < MIN_STACK {
            return Err(format!(
                "the engine threads' stack must be at least {MIN_STACK} bytes, not {}",
                self.stack
            ));
        }
        Ok(())
    }
}

/// What runs one task: the offline engine, or a stand-in in tests.
pub trait TaskRunner: Send + Sync {
    /// Run engine task `task` over `packages` in `cloud`, telling
    /// `observer` about each report as it is made.
    fn run_task(
        &self,
        packages: &[PackageFiles],
        cloud: &CloudState,
        task: &Value,
        observer: ReportObserver,
    ) -> TaskRecord;
    /// Run static action task `task` over `packages`.
    fn run_static(&self, packages: &[PackageFiles], task: &Value) -> TaskRecord;
}

/// The engine against the stateful offline cloud (`murano-env`).
#[derive(Debug, Clone, Default)]
pub struct OfflineRunner {
    /// What the offline cloud answers.
    pub offline: OfflineOptions,
    /// The engine's limits.
    pub deploy: DeployOptions,
}

impl TaskRunner for OfflineRunner {
    fn run_task(
        &self,
        packages: &[PackageFiles],
        cloud: &CloudState,
        task: &Value,
        observer: ReportObserver,
    ) -> TaskRecord {
        murano_env::run_task_observed(
            packages,
            cloud,
            &self.offline,
            task,
            &self.deploy,
            Some(observer),
        )
    }

    fn run_static(&self, packages: &[PackageFiles], task: &Value) -> TaskRecord {
        murano_env::run_static_task(
            packages,
            &CloudState::default(),
            &self.offline,
            task,
            &self.deploy,
        )
    }
}

struct Shared {
    app: OnceLock<Weak<App>>,
    runner: Arc<dyn TaskRunner>,
    catalog: EngineCatalog,
    queue: usize,
    stack: usize,
    max_reports: usize,
    max_report_text: usize,
    max_artifacts: usize,
}

/// The engine of `murano serve`: a bounded pool of threads running tasks.
/// Build it with [`WorkerEngine::start`], give it to [`App::new`], then
/// [`WorkerEngine::attach`] the app so finished tasks reach its store.
pub struct WorkerEngine {
    shared: Arc<Shared>,
    sender: Mutex<Option<SyncSender<Value>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl std::fmt::Debug for WorkerEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerEngine")
            .field("queue", &self.shared.queue)
            .finish_non_exhaustive()
    }
}

/// The message of the report a task refused by a full queue gets.
pub fn queue_full_message(queue: usize) -> String {
    format!("The engine is busy: its task queue is full ({queue} tasks waiting); the task was not run, try again later")
}

impl WorkerEngine {
    /// A pool running the offline engine over `catalog` (the system
    /// packages: Murano's core library).
    pub fn start(options: &WorkerOptions, catalog: EngineCatalog) -> Result<WorkerEngine, String> {
        let runner = OfflineRunner {
            offline: options.offline.clone(),
            deploy: options.deploy.clone(),
        };
        WorkerEngine::with_runner(options, catalog, Arc::new(runner))
    }

    /// A pool running tasks with `runner`.
    pub fn with_runner(
        options: &WorkerOptions,
        catalog: EngineCatalog,
        runner: Arc<dyn TaskRunner>,
    ) -> Result<WorkerEngine, String> {
        options.validate()?;
        let shared = Arc::new(Shared {
            app: OnceLock::new(),
            runner,
            catalog,
            queue: options.queue,
            stack: options.stack,
            max_reports: options.max_reports,
            max_report_text: options.max_report_text,
            max_artifacts: options.max_artifacts,
        });
        let (tx, rx) = sync_channel::<Value>(options.queue);
        let rx = Arc::new(Mutex::new(rx));
        let mut threads = Vec::with_capacity(options.workers);
        for i in 0..options.workers {
            let (shared, rx) = (shared.clone(), rx.clone());
            let handle = std::thread::Builder::new()
                .name(format!("murano-engine-{i}"))
                .stack_size(options.stack)
                .spawn(move || work(&shared, &rx))
                .map_err(|e| format!("cannot start an engine thread: {e}"))?;
            threads.push(handle);
        }
        Ok(WorkerEngine {
            shared,
            sender: Mutex::new(Some(tx)),
            threads: Mutex::new(threads),
        })
    }

    /// Connect the pool to the app whose store tasks report to (once;
    /// later calls are ignored). The pool holds it weakly: tasks that
    /// finish after the app is gone are dropped.
    pub fn attach(&self, app: &Arc<App>) {
        let _ = self.shared.app.set(Arc::downgrade(app));
    }

    /// Stop taking tasks and wait for the threads to finish the ones
    /// queued.
    pub fn shutdown(&self) {
        self.sender.lock().unwrap_or_else(|e| e.into_inner()).take();
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        for t in threads {
            let _ = t.join();
        }
    }

    fn app(&self) -> Option<Arc<App>> {
        self.shared.app.get().and_then(Weak::upgrade)
    }

    /// The packages `tenant` may use, read from the store under its lock
    /// (released before the engine runs), as a `RemoteError` when that fails.
    fn tenant_packages(&self, tenant: Option<&str>) -> Result<TenantPackages, RemoteError> {
        let runtime_error = |value: String| RemoteError {
            exc_type: "RuntimeError".into(),
            value,
        };
        let app = self
            .app()
            .ok_or_else(|| runtime_error("the engine is not attached to a store".into()))?;
        self.shared
            .catalog
            .for_tenant(&app, tenant)
            .map_err(runtime_error)
    }

    /// Run `f` on a thread with the engine's stack, waiting for it.
    fn on_engine_stack<T: Send>(&self, f: impl FnOnce() -> T + Send) -> Result<T, RemoteError> {
        let fail = |what: &str| RemoteError {
            exc_type: "RuntimeError".into(),
            value: what.to_owned(),
        };
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(self.shared.stack)
                .spawn_scoped(s, f)
                .map_err(|e| fail(&format!("cannot start an engine thread: {e}")))?
                .join()
                .map_err(|_| fail("the engine failed"))
        })
    }
}

impl Drop for WorkerEngine {
    fn drop(&mut self) {
        // Threads end once the queue is drained; nobody waits for them.
        self.sender.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

fn work(shared: &Arc<Shared>, rx: &Mutex<Receiver<Value>>) {
    loop {
        let task = match rx.lock().unwrap_or_else(|e| e.into_inner()).recv() {
            Ok(t) => t,
            Err(_) => return,
        };
        let Some(app) = shared.app.get().and_then(Weak::upgrade) else {
            continue;
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| run_one(shared, &app, &task)));
        if outcome.is_err() {
            fail_task(&app, &task, "The engine failed while running the task");
        }
    }
}

/// The result Murano's engine sends for a finished task.
pub fn task_result(task: &Value, record: &TaskRecord) -> Value {
    let model = if record.final_model.is_null() {
        task["model"].clone()
    } else {
        record.final_model.clone()
    };
    let action = match record.outcome.get("raised") {
        Some(r) => {
            let message = r["message"].clone();
            let details = match r["type"].as_str() {
                Some(t) => json!(format!("{t}: {}", message.as_str().unwrap_or(""))),
                None => message.clone(),
            };
            json!({"isException": true, "result": {"message": message, "details": details}})
        }
        None => json!({
            "isException": false,
            "result": record.outcome.get("result").cloned().unwrap_or(Value::Null),
        }),
    };
    json!({"model": model, "action": action})
}

fn run_one(shared: &Shared, app: &Arc<App>, task: &Value) {
    let env_id = task["id"].as_str().unwrap_or("").to_owned();
    let tenant = task["project_id"].as_str().map(str::to_owned);
    let prepared = shared
        .catalog
        .for_tenant(app, tenant.as_deref())
        .and_then(|pkgs| {
            let stored = app.db().cloud_state(&env_id).map_err(|e| e.to_string())?;
            let cloud = match stored {
                Some(j) => CloudState::from_json(&j).map_err(|e| e.to_string())?,
                None => CloudState::default(),
            };
            Ok((pkgs, cloud))
        });
    let (packages, cloud) = match prepared {
        Ok(p) => p,
        Err(e) => return fail_task(app, task, &format!("The engine cannot start the task: {e}")),
    };
    let reporter = app.clone();
    let report_env = env_id.clone();
    let (most, longest) = (shared.max_reports, shared.max_report_text);
    let made = AtomicUsize::new(0);
    let observer: ReportObserver = Arc::new(move |r: &murano_yaql::eval::Value| {
        // A package reporting in a loop must not fill the disk.
        let n = made.fetch_add(1, Ordering::Relaxed);
        let report = match n.cmp(&most) {
            std::cmp::Ordering::Less => {
                let mut j = value_to_json(r);
                // A message that is not a string is stored as its JSON text.
                if !j["text"].is_null() && !j["text"].is_string() {
                    j["text"] = json!(j["text"].to_string());
                }
                if let Some(t) = j["text"].as_str().filter(|t| t.len() > longest) {
                    j["text"] = json!(cut(t, longest));
                }
                j
            }
            std::cmp::Ordering::Equal => json!({
                "kind": "status", "id": report_env, "level": "warning", "details": null,
                "text": format!("This task made more than {most} reports: the later ones were dropped"),
            }),
            std::cmp::Ordering::Greater => return,
        };
        let db = reporter.db();
        let _ = results::record_report(&db, &report_env, &report);
    });
    let record = shared
        .runner
        .run_task(&packages.engine_packages(), &cloud, task, observer);
    let result = task_result(task, &record);
    let db = app.db();
    if db.get("environment", &env_id).ok().flatten().is_some() {
        let _ = db.set_cloud_state(&env_id, &record.cloud_after.to_json());
        // The task being finished is the environment's last one.
        if let Ok(Some(t)) = results::last_task(&db, &env_id) {
            if let Some(tid) = t["id"].as_str() {
                let kept = task_artifacts(&record.recording, shared.max_artifacts);
                let _ = db.set_task_artifacts(tid, &env_id, &kept);
            }
        }
    }
    let _ = results::process_result(&db, &env_id, &result);
}

/// The Heat operations and agent plans of `recording`, at most `max`
/// bytes of them (as JSON text) in order; each list past the budget ends
/// in one `{"omitted": n}` note.
pub fn task_artifacts(recording: &Recording, max: usize) -> TaskArtifacts {
    bounded_artifacts(&recording.heat, &recording.agent_plans, max)
}

/// The Heat operations `heat` and agent plans `plans` of a task, at most
/// `max` bytes of them (as JSON text) in order, as [`task_artifacts`]
/// keeps them: for tasks run outside the worker (`murano env`).
pub fn bounded_artifacts(heat: &[Value], plans: &[Value], max: usize) -> TaskArtifacts {
    let mut left = max;
    let mut keep = |items: &[Value]| -> Vec<Value> {
        let mut kept = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let size = item.to_string().len();
            if size > left {
                kept.push(json!({"omitted": items.len() - i}));
                left = 0;
                break;
            }
            left -= size;
            kept.push(item.clone());
        }
        kept
    };
    let heat = keep(heat);
    let agent_plans = keep(plans);
    TaskArtifacts { heat, agent_plans }
}

/// The first `max` bytes of `text` (at a character boundary), then `…`.
fn cut(text: &str, max: usize) -> String {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\u{2026}", &text[..end])
}

/// Fail a task that could not run: an error report, then the task's own
/// model back as a failed result (the deployment ends `deploy failure`).
fn fail_task(app: &App, task: &Value, message: &str) {
    let env_id = task["id"].as_str().unwrap_or("");
    let db = app.db();
    let _ = results::record_report(
        &db,
        env_id,
        &json!({"kind": "status", "id": env_id, "text": message, "level": "error", "details": null}),
    );
    let result = json!({
        "model": task["model"],
        "action": {"isException": true, "result": {"message": message, "details": message}},
    });
    let _ = results::process_result(&db, env_id, &result);
}

fn remote(raised: &Value) -> RemoteError {
    RemoteError {
        exc_type: raised["type"].as_str().unwrap_or("Exception").to_owned(),
        value: raised["message"].as_str().unwrap_or("").to_owned(),
    }
}

/// Each method locks the app's store itself: call them without holding
/// [`App::db`]'s guard (a task refused by a full queue is failed in the
/// store at once; static actions and schemas read the catalog).
impl Engine for WorkerEngine {
    fn handle_task(&self, task: Value) {
        let refused = {
            let sender = self.sender.lock().unwrap_or_else(|e| e.into_inner());
            match sender.as_ref() {
                Some(tx) => match tx.try_send(task) {
                    Ok(()) => None,
                    Err(TrySendError::Full(t)) => Some((t, queue_full_message(self.shared.queue))),
                    Err(TrySendError::Disconnected(t)) => {
                        Some((t, "The engine has stopped; the task was not run".to_owned()))
                    }
                },
                None => Some((
                    task,
                    "The engine has stopped; the task was not run".to_owned(),
                )),
            }
        };
        if let (Some((task, message)), Some(app)) = (refused, self.app()) {
            fail_task(&app, &task, &message);
        }
    }

    fn call_static_action(&self, task: Value) -> Result<Value, RemoteError> {
        let packages = self.tenant_packages(task["project_id"].as_str())?;
        let mut task = task;
        // Murano's StaticActionServices sends `args or {}`.
        if task["action"]["args"].is_null() {
            task["action"]["args"] = json!({});
        }
        let runner = self.shared.runner.clone();
        let record =
            self.on_engine_stack(|| runner.run_static(&packages.engine_packages(), &task))?;
        match record.outcome.get("raised") {
            Some(r) => Err(remote(r)),
            None => Ok(record.outcome.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    fn generate_schema(
        &self,
        credentials: Value,
        class_name: &str,
        method_names: Vec<String>,
        class_version: Option<String>,
        package_name: Option<String>,
    ) -> Result<Value, RemoteError> {
        let mut request = SchemaRequest::new(class_name);
        if let Some(v) = class_version {
            request = request.version(v);
        }
        if let Some(p) = package_name {
            request = request.package(p);
        }
        if !method_names.is_empty() {
            request = request.methods(method_names);
        }
        self.schemas(&credentials, &request, murano_schema::generate)
    }

    fn method_schemas(
        &self,
        credentials: Value,
        class_name: &str,
        method_names: Vec<String>,
    ) -> Result<Value, RemoteError> {
        let request = SchemaRequest::new(class_name).methods(method_names);
        self.schemas(&credentials, &request, murano_schema::method_schemas)
    }
}

/// A schema generator of `murano_schema` (`generate`, `method_schemas`).
type Generate = fn(
    &murano_schema::Catalog,
    &SchemaRequest,
) -> Result<murano_schema::SchemaMap, murano_schema::SchemaError>;

impl WorkerEngine {
    /// Run `generate` for `request` over the packages of the credentials'
    /// tenant, on the engine's stack.
    fn schemas(
        &self,
        credentials: &Value,
        request: &SchemaRequest,
        generate: Generate,
    ) -> Result<Value, RemoteError> {
        let packages = self.tenant_packages(credentials["project_id"].as_str())?;
        let generated = self.on_engine_stack(|| {
            generate(&self.shared.catalog.schema_catalog(&packages), request)
                .map(|s| serde_json::to_value(&s).unwrap_or(Value::Null))
        })?;
        generated.map_err(|e| RemoteError {
            exc_type: e.exception().to_owned(),
            value: e.message.clone(),
        })
    }
}
