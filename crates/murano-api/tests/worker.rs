//! The worker pool behind `murano serve` (`murano_api::worker`): its size
//! and queue length are options that hold, a full queue fails the
//! deployment with a clear error, reports reach the store while a task
//! runs, and results are applied as Murano's `ResultEndpoint` does. A
//! stand-in runner, held at a gate, takes the engine's place.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use murano_api::engine::Engine;
use murano_api::engine_catalog::EngineCatalog;
use murano_api::policy::Policy;
use murano_api::store::{key, Db, Row};
use murano_api::worker::{queue_full_message, TaskRunner, WorkerEngine, WorkerOptions};
use murano_api::{App, Limits};
use murano_engine::deploy::PackageFiles;
use murano_engine::host::{decode, Recording};
use murano_env::cloud::ReportObserver;
use murano_env::{CloudState, TaskRecord};
use serde_json::{json, Value};

/// How many tasks run now and at most, and whether they may finish.
#[derive(Default)]
struct Gate {
    state: Mutex<(usize, usize, usize, bool)>, // running, most, started, open
    changed: Condvar,
}

impl Gate {
    fn wait_started(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut st = self.state.lock().unwrap();
        while st.2 < n {
            assert!(Instant::now() < deadline, "only {} tasks started", st.2);
            st = self
                .changed
                .wait_timeout(st, Duration::from_millis(50))
                .unwrap()
                .0;
        }
    }

    fn open(&self) {
        self.state.lock().unwrap().3 = true;
        self.changed.notify_all();
    }
}

struct GatedRunner(Arc<Gate>);

impl TaskRunner for GatedRunner {
    fn run_task(
        &self,
        _packages: &[PackageFiles],
        cloud: &CloudState,
        task: &Value,
        observer: ReportObserver,
    ) -> TaskRecord {
        let env = task["id"].as_str().unwrap_or("");
        observer(&decode(
            &json!({"kind": "status", "id": env, "text": "working",
                                  "level": "info", "details": null}),
        ));
        {
            let mut st = self.0.state.lock().unwrap();
            st.0 += 1;
            st.1 = st.1.max(st.0);
            st.2 += 1;
            self.0.changed.notify_all();
            while !st.3 {
                st = self.0.changed.wait(st).unwrap();
            }
            st.0 -= 1;
        }
        let mut model = task["model"].clone();
        model["ObjectsCopy"] = model["Objects"].clone();
        let mut cloud = cloud.clone();
        cloud.counters.uuid += 1;
        TaskRecord {
            outcome: json!({"ok": true, "result": env}),
            recording: Recording::default(),
            log: Vec::new(),
            final_model: model,
            cloud_after: cloud,
        }
    }

    fn run_static(&self, _packages: &[PackageFiles], task: &Value) -> TaskRecord {
        TaskRecord {
            outcome: json!({"ok": true, "result": task["action"]["args"]}),
            recording: Recording::default(),
            log: Vec::new(),
            final_model: Value::Null,
            cloud_after: CloudState::default(),
        }
    }
}

fn row(v: Value) -> Row {
    v.as_object().unwrap().clone()
}

/// An environment with a deploying session and its task, as
/// `sessions::submit` leaves them; the engine task for it.
fn deploying(db: &Db, env: &str) -> Value {
    let t = "2020-01-01T00:00:00.000000";
    let objects = json!({"?": {"id": env, "type": "io.murano.Environment"}, "applications": []});
    db.insert(
        "environment",
        &row(json!({"id": env, "name": env, "tenant_id": "p",
        "version": 0, "description": {"Objects": null}, "created": t, "updated": t})),
    )
    .unwrap();
    db.insert(
        "session",
        &row(json!({"id": format!("s-{env}"), "environment_id": env,
        "state": "deploying", "version": 0, "created": t, "updated": t})),
    )
    .unwrap();
    db.insert(
        "task",
        &row(json!({"id": format!("t-{env}"), "environment_id": env,
        "created": t, "updated": t, "started": t, "result": {}})),
    )
    .unwrap();
    json!({"action": {"object_id": env, "method": "deploy", "args": {}},
           "model": {"Objects": objects}, "id": env, "project_id": "p", "user_id": "u",
           "token": null})
}

fn pool(workers: usize, queue: usize) -> (Arc<App>, Arc<WorkerEngine>, Arc<Gate>) {
    let gate = Arc::new(Gate::default());
    let options = WorkerOptions {
        workers,
        queue,
        ..WorkerOptions::default()
    };
    let engine = Arc::new(
        WorkerEngine::with_runner(
            &options,
            EngineCatalog::default(),
            Arc::new(GatedRunner(gate.clone())),
        )
        .unwrap(),
    );
    let app = Arc::new(App::new(
        Db::in_memory().unwrap(),
        Policy::default(),
        engine.clone(),
        Limits::default(),
    ));
    engine.attach(&app);
    (app, engine, gate)
}

fn session_state(app: &App, env: &str) -> String {
    app.db()
        .get("session", &format!("s-{env}"))
        .unwrap()
        .unwrap()["state"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn texts(app: &App, env: &str) -> Vec<String> {
    app.db()
        .select(
            "status",
            &key("task_id", format!("t-{env}")),
            "created, rowid",
        )
        .unwrap()
        .into_iter()
        .map(|r| r["text"].as_str().unwrap_or("").to_owned())
        .collect()
}

fn wait_finished(app: &App, env: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while session_state(app, env) == "deploying" {
        assert!(Instant::now() < deadline, "{env} never finished");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn options_are_checked() {
    assert!(WorkerOptions::default().validate().is_ok());
    for bad in [
        WorkerOptions {
            workers: 0,
            ..WorkerOptions::default()
        },
        WorkerOptions {
            queue: 0,
            ..WorkerOptions::default()
        },
        WorkerOptions {
            stack: 1 << 20,
            ..WorkerOptions::default()
        },
        WorkerOptions {
            workers: 100_000,
            ..WorkerOptions::default()
        },
    ] {
        let err = bad.validate().unwrap_err();
        assert!(err.contains("between") || err.contains("stack"), "{err}");
        assert!(WorkerEngine::start(&bad, EngineCatalog::default()).is_err());
    }
}

#[test]
fn a_full_queue_fails_the_deployment_with_a_clear_error() {
    let (app, engine, gate) = pool(1, 1);
    let tasks: Vec<Value> = ["a", "b", "c"]
        .iter()
        .map(|e| deploying(&app.db(), e))
        .collect();
    engine.handle_task(tasks[0].clone());
    gate.wait_started(1);
    // The one thread is busy with a: b waits in the queue, c finds it full.
    engine.handle_task(tasks[1].clone());
    engine.handle_task(tasks[2].clone());
    assert_eq!(session_state(&app, "c"), "deploy failure");
    let c = texts(&app, "c");
    assert_eq!(c[0], queue_full_message(1), "{c:?}");
    assert_eq!(c.last().unwrap(), "Deployment finished with errors");
    let task = app.db().get("task", "t-c").unwrap().unwrap();
    assert_eq!(task["result"]["isException"], true);
    assert!(!task["finished"].is_null());
    // a reported while it ran, before it finished.
    assert_eq!(texts(&app, "a"), ["working"]);
    assert_eq!(session_state(&app, "a"), "deploying");
    gate.open();
    for env in ["a", "b"] {
        wait_finished(&app, env);
        assert_eq!(session_state(&app, env), "deployed");
        assert_eq!(texts(&app, env), ["working", "Deployment finished"]);
        let task = app.db().get("task", &format!("t-{env}")).unwrap().unwrap();
        assert_eq!(task["result"], json!({"isException": false, "result": env}));
        let e = app.db().get("environment", env).unwrap().unwrap();
        assert_eq!(e["version"], 1);
        assert!(e["description"]["Objects"]["services"].is_array());
        assert!(e["description"]["ObjectsCopy"].is_object());
        // The cloud the task left is kept for the next one.
        let cloud = app.db().cloud_state(env).unwrap().unwrap();
        assert_eq!(CloudState::from_json(&cloud).unwrap().counters.uuid, 1);
    }
    engine.shutdown();
}

#[test]
fn the_pool_runs_as_many_tasks_at_once_as_it_has_threads() {
    let (app, engine, gate) = pool(2, 8);
    let envs = ["w", "x", "y", "z"];
    for e in envs {
        let t = deploying(&app.db(), e);
        engine.handle_task(t);
    }
    // Two run at once (with fewer threads this would never happen) ...
    gate.wait_started(2);
    gate.open();
    for e in envs {
        wait_finished(&app, e);
        assert_eq!(session_state(&app, e), "deployed");
    }
    // ... and never more than two.
    assert_eq!(gate.state.lock().unwrap().1, 2);
    engine.shutdown();
}

#[test]
fn static_actions_run_with_null_arguments_as_murano_sends_them() {
    let (_app, engine, _gate) = pool(1, 1);
    let task = json!({"action": {"method": "m", "class_name": "C", "args": null},
                      "project_id": "p", "id": "x"});
    assert_eq!(engine.call_static_action(task).unwrap(), json!({}));
    let err = engine
        .generate_schema(json!({"project_id": "p"}), "No.Such", vec![], None, None)
        .unwrap_err();
    // Murano's package loader finds no package for the class: a 404.
    assert_eq!(err.exc_type, "NoPackageForClassFound");
}

/// A runner that fails hard on environments named `boom`.
struct Panicky(GatedRunner);

impl TaskRunner for Panicky {
    fn run_task(
        &self,
        packages: &[PackageFiles],
        cloud: &CloudState,
        task: &Value,
        observer: ReportObserver,
    ) -> TaskRecord {
        assert_ne!(task["id"], "boom", "the runner fails");
        self.0.run_task(packages, cloud, task, observer)
    }

    fn run_static(&self, packages: &[PackageFiles], task: &Value) -> TaskRecord {
        self.0.run_static(packages, task)
    }
}

#[test]
fn a_task_whose_engine_fails_is_failed_and_the_pool_goes_on() {
    let gate = Arc::new(Gate::default());
    gate.open();
    let options = WorkerOptions {
        workers: 1,
        ..WorkerOptions::default()
    };
    let engine = Arc::new(
        WorkerEngine::with_runner(
            &options,
            EngineCatalog::default(),
            Arc::new(Panicky(GatedRunner(gate))),
        )
        .unwrap(),
    );
    let app = Arc::new(App::new(
        Db::in_memory().unwrap(),
        Policy::default(),
        engine.clone(),
        Limits::default(),
    ));
    engine.attach(&app);
    for env in ["boom", "fine"] {
        let t = deploying(&app.db(), env);
        engine.handle_task(t);
    }
    wait_finished(&app, "boom");
    wait_finished(&app, "fine");
    assert_eq!(session_state(&app, "boom"), "deploy failure");
    assert!(texts(&app, "boom")
        .iter()
        .any(|t| t.contains("engine failed")));
    assert_eq!(session_state(&app, "fine"), "deployed");
    engine.shutdown();
}

/// A runner that reports `n` times, each a long text.
struct Chatty(usize);

impl TaskRunner for Chatty {
    fn run_task(
        &self,
        _packages: &[PackageFiles],
        cloud: &CloudState,
        task: &Value,
        observer: ReportObserver,
    ) -> TaskRecord {
        for i in 0..self.0 {
            let text = if i == 0 {
                json!(format!("{i}:{}", "\u{e9}".repeat(100)))
            } else {
                json!([i, "x".repeat(100)])
            };
            observer(&decode(
                &json!({"kind": "status", "id": task["id"], "text": text,
                                      "level": "info", "details": null}),
            ));
        }
        let mut model = task["model"].clone();
        model["ObjectsCopy"] = model["Objects"].clone();
        TaskRecord {
            outcome: json!({"ok": true, "result": null}),
            recording: Recording::default(),
            log: Vec::new(),
            final_model: model,
            cloud_after: cloud.clone(),
        }
    }

    fn run_static(&self, packages: &[PackageFiles], task: &Value) -> TaskRecord {
        GatedRunner(Arc::default()).run_static(packages, task)
    }
}

#[test]
fn reports_of_a_task_are_bounded_in_number_and_length() {
    let options = WorkerOptions {
        workers: 1,
        max_reports: 5,
        max_report_text: 11,
        ..WorkerOptions::default()
    };
    let engine = Arc::new(
        WorkerEngine::with_runner(&options, EngineCatalog::default(), Arc::new(Chatty(50)))
            .unwrap(),
    );
    let app = Arc::new(App::new(
        Db::in_memory().unwrap(),
        Policy::default(),
        engine.clone(),
        Limits::default(),
    ));
    engine.attach(&app);
    let t = deploying(&app.db(), "chatty");
    engine.handle_task(t);
    wait_finished(&app, "chatty");
    let got = texts(&app, "chatty");
    // Five reports cut to 11 bytes (at a character boundary), the
    // warning, then the task's own closing report.
    assert_eq!(got.len(), 7, "{got:?}");
    assert_eq!(got[0], "0:\u{e9}\u{e9}\u{e9}\u{e9}\u{2026}");
    assert_eq!(got[1], "[1,\"xxxxxxx\u{2026}");
    assert!(got[5].contains("more than 5 reports"), "{got:?}");
    assert_eq!(got[6], "Deployment finished with warnings");
    engine.shutdown();
}

/// A runner whose task pushes one Heat stack per unit of `self.0` and
/// sends one agent plan.
struct Pushing(usize);

impl TaskRunner for Pushing {
    fn run_task(
        &self,
        _packages: &[PackageFiles],
        cloud: &CloudState,
        task: &Value,
        _observer: ReportObserver,
    ) -> TaskRecord {
        let mut model = task["model"].clone();
        model["ObjectsCopy"] = model["Objects"].clone();
        let mut recording = Recording::default();
        for i in 0..self.0 {
            recording
                .heat
                .push(json!({"op": "push", "stack": format!("stack-{i}"),
                "template": {"resources": {"r": {"type": "OS::Nova::Server"}}}}));
        }
        recording
            .agent_plans
            .push(json!({"queue": "q", "plan": {"Body": "return 1"}}));
        TaskRecord {
            outcome: json!({"ok": true, "result": null}),
            recording,
            log: Vec::new(),
            final_model: model,
            cloud_after: cloud.clone(),
        }
    }

    fn run_static(&self, packages: &[PackageFiles], task: &Value) -> TaskRecord {
        GatedRunner(Arc::default()).run_static(packages, task)
    }
}

fn pushing_app(runner: Pushing, max_artifacts: usize) -> (Arc<App>, Arc<WorkerEngine>) {
    let options = WorkerOptions {
        workers: 1,
        max_artifacts,
        ..WorkerOptions::default()
    };
    let engine = Arc::new(
        WorkerEngine::with_runner(&options, EngineCatalog::default(), Arc::new(runner)).unwrap(),
    );
    let app = Arc::new(App::new(
        Db::in_memory().unwrap(),
        Policy::default(),
        engine.clone(),
        Limits::default(),
    ));
    engine.attach(&app);
    (app, engine)
}

#[test]
fn each_task_keeps_the_heat_templates_and_agent_plans_it_sent() {
    let (app, engine) = pushing_app(Pushing(2), 8 << 20);
    let t = deploying(&app.db(), "pushed");
    engine.handle_task(t);
    wait_finished(&app, "pushed");
    let kept = app.db().task_artifacts("t-pushed").unwrap().unwrap();
    let stacks: Vec<_> = kept.heat.iter().map(|h| h["stack"].clone()).collect();
    assert_eq!(stacks, [json!("stack-0"), json!("stack-1")]);
    assert_eq!(
        kept.heat[0]["template"]["resources"]["r"]["type"],
        "OS::Nova::Server"
    );
    assert_eq!(
        kept.agent_plans,
        [json!({"queue": "q", "plan": {"Body": "return 1"}})]
    );
    // Deleting the environment forgets them.
    murano_api::handlers::environments::remove(&app.db(), "pushed").unwrap();
    assert_eq!(app.db().task_artifacts("t-pushed").unwrap(), None);
    engine.shutdown();
}

#[test]
fn kept_heat_templates_and_agent_plans_are_bounded() {
    let one = json!({"op": "push", "stack": "stack-0",
        "template": {"resources": {"r": {"type": "OS::Nova::Server"}}}})
    .to_string()
    .len();
    // Room for three stacks of ten: the rest, and the plan, are counted.
    let (app, engine) = pushing_app(Pushing(10), 3 * one + 2);
    let t = deploying(&app.db(), "big");
    engine.handle_task(t);
    wait_finished(&app, "big");
    let kept = app.db().task_artifacts("t-big").unwrap().unwrap();
    assert_eq!(kept.heat.len(), 4, "{:?}", kept.heat);
    assert_eq!(kept.heat[3], json!({"omitted": 7}));
    assert_eq!(kept.agent_plans, [json!({"omitted": 1})]);
    engine.shutdown();
}
