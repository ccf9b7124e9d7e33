use super::*;
use murano_api::store::key;
use rusqlite::{params, Connection};
use serde_json::json;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("murano-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("store.db")
}

fn env(id: &str, name: &str) -> StoredEnvironment {
    StoredEnvironment {
        id: id.into(),
        name: name.into(),
        status: "ready".into(),
        status_text: String::new(),
        description: json!({"Objects": {"?": {"id": id}, "services": []},
                            "project_id": "p1", "user_id": "u1"}),
        pending: None,
        cloud: json!({}),
    }
}

fn finished(failed: bool) -> TaskResult {
    TaskResult {
        outcome: json!({"ok": true, "result": null}),
        reports: vec![json!({"kind": "status", "id": "e1", "text": "hi", "level": "info"})],
        heat: vec![json!({"op": "push"})],
        agent_plans: vec![],
        log: vec![json!({"level": "INFO", "message": "m"})],
        final_model: json!({}),
        failed,
        reports_stored: false,
        api_result: json!({"model": {"Objects": {"?": {"id": "e1"}, "applications": []},
                                     "ObjectsCopy": {}},
                           "action": {"isException": false, "result": null}}),
        cloud: json!({"heat": {}}),
    }
}

#[test]
fn a_new_store_has_the_current_schema_and_reopens() {
    let path = temp("new");
    let mut s = Store::open(&path).unwrap();
    s.create_environment(&env("e1", "shop")).unwrap();
    drop(s);
    let s = Store::open(&path).unwrap();
    let e = s.environment("shop").unwrap();
    assert_eq!(e.id, "e1");
    assert_eq!(e.status, "ready");
    // Murano's row, owned by the description's project.
    let row = s.db().get("environment", "e1").unwrap().unwrap();
    assert_eq!(row["tenant_id"], "p1");
    assert_eq!(s.db().schema_version().unwrap(), i64::from(SCHEMA_VERSION));
}

#[test]
fn foreign_and_corrupt_files_are_refused_untouched() {
    let path = temp("foreign");
    std::fs::write(&path, b"hello, not a database").unwrap();
    assert!(matches!(
        Store::open(&path),
        Err(StoreError::Refused { .. })
    ));
    assert_eq!(std::fs::read(&path).unwrap(), b"hello, not a database");
    let other = temp("other");
    {
        let c = Connection::open(&other).unwrap();
        c.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            .unwrap();
    }
    let before = std::fs::read(&other).unwrap();
    let e = Store::open(&other).unwrap_err();
    assert!(e.to_string().contains("another application"), "{e}");
    assert_eq!(std::fs::read(&other).unwrap(), before);
    // `murano serve` opens files through the same checks.
    assert!(matches!(open_db(&other), Err(StoreError::Refused { .. })));
}

/// The tables of the first `murano env` store (its schema 1).
const FIRST_FORMAT: &str = "CREATE TABLE packages (name TEXT PRIMARY KEY, version TEXT NOT NULL,
        source TEXT NOT NULL, classes TEXT NOT NULL, imported INTEGER NOT NULL);
     CREATE TABLE package_files (package TEXT NOT NULL, path TEXT NOT NULL, bytes BLOB NOT NULL,
        PRIMARY KEY (package, path));
     CREATE TABLE environments (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL, status_text TEXT NOT NULL, description TEXT NOT NULL,
        pending TEXT, cloud TEXT NOT NULL, created INTEGER NOT NULL);
     CREATE TABLE deployments (id INTEGER PRIMARY KEY AUTOINCREMENT, environment TEXT NOT NULL,
        kind TEXT NOT NULL, action TEXT, state TEXT NOT NULL, pid INTEGER NOT NULL,
        started INTEGER NOT NULL, finished INTEGER, outcome TEXT, final_model TEXT);
     CREATE TABLE records (deployment INTEGER NOT NULL, kind TEXT NOT NULL, seq INTEGER NOT NULL,
        body TEXT NOT NULL, PRIMARY KEY (deployment, kind, seq));";

#[test]
fn a_store_of_the_first_format_is_carried_over() {
    let path = temp("old");
    {
        let c = Connection::open(&path).unwrap();
        // As the first store ran: in WAL mode.
        c.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
        c.execute_batch(FIRST_FORMAT).unwrap();
        c.execute_batch(
            "INSERT INTO packages VALUES ('demo.App', '1.2.0', 'the/demo', '[\"demo.App\"]', 1);
             INSERT INTO package_files VALUES ('demo.App', 'manifest.yaml',
               CAST('FullName: demo.App
Version: 1.2.0
Classes:
  demo.App: App.yaml
' AS BLOB));
             INSERT INTO package_files VALUES ('demo.App', 'Classes/App.yaml',
               CAST('Name: demo.App
' AS BLOB));
             INSERT INTO environments VALUES ('e1', 'shop', 'pending', 'Deployment finished',
               '{\"Objects\": {\"?\": {\"id\": \"e1\"}, \"services\": []}, \"project_id\": \"p1\"}',
               '{\"Objects\": {\"?\": {\"id\": \"e1\"}, \"services\": [1]}}', '{}', 5);
             INSERT INTO environments VALUES ('e2', 'idle', 'ready', '',
               '{\"Objects\": {\"?\": {\"id\": \"e2\"}}}', NULL, '{}', 6);
             INSERT INTO deployments VALUES (1, 'e1', 'deploy',
               '{\"object_id\": \"e1\", \"method\": \"deploy\", \"args\": {}}', 'success', 7,
               10, 11, '{\"ok\": true, \"result\": null}', '{\"Objects\": {}}');
             INSERT INTO records VALUES (1, 'report', 0, '{\"id\": \"e1\", \"text\": \"hi\", \"level\": \"info\"}');
             INSERT INTO records VALUES (1, 'log', 0, '{\"message\": \"m\"}');
             PRAGMA user_version = 1;",
        )
        .unwrap();
        c.pragma_update(None, "application_id", OLD_APPLICATION_ID)
            .unwrap();
    }
    let s = Store::open(&path).unwrap();
    // The earlier file is kept beside it, whole.
    let kept = path.with_file_name("store.db.first-format");
    let old = Connection::open(&kept).unwrap();
    let n: i64 = old
        .query_row("SELECT COUNT(*) FROM environments", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 2);
    drop(old);
    let p = s.package("demo.App").unwrap();
    assert_eq!(
        (p.version.as_str(), p.source.as_str()),
        ("1.2.0", "the/demo")
    );
    let shop = s.environment("shop").unwrap();
    assert_eq!(shop.status, "pending");
    assert_eq!(shop.status_text, "hi");
    assert_eq!(shop.pending.unwrap()["Objects"]["services"], json!([1]));
    assert_eq!(
        s.db().get("environment", "e1").unwrap().unwrap()["tenant_id"],
        "p1"
    );
    let deps = s.deployments("e1").unwrap();
    assert_eq!((deps[0].id, deps[0].state.as_str()), (1, "success"));
    assert_eq!(deps[0].reports[0]["text"], "hi");
    assert_eq!(
        s.records(&deps[0].task, "log").unwrap(),
        [json!({"message": "m"})]
    );
    assert_eq!(s.environment("idle").unwrap().status, "ready");
    drop(s);
    // Carried over once: the file is now a store of Murano's tables.
    let s = Store::open(&path).unwrap();
    assert_eq!(s.environments().unwrap().len(), 2);
}

#[test]
fn a_later_first_format_schema_is_refused_by_name() {
    let path = temp("old2");
    {
        let c = Connection::open(&path).unwrap();
        c.execute_batch(FIRST_FORMAT).unwrap();
        c.execute_batch("PRAGMA user_version = 2").unwrap();
        c.pragma_update(None, "application_id", OLD_APPLICATION_ID)
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    match Store::open(&path) {
        Err(StoreError::Refused { path: p, why }) => {
            assert_eq!(p, path);
            assert!(why.contains("earlier murano"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_newer_schema_is_refused() {
    let path = temp("newer");
    drop(Store::open(&path).unwrap());
    {
        let c = Connection::open(&path).unwrap();
        c.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
    }
    let e = Store::open(&path).unwrap_err();
    assert!(e.to_string().contains("newer"), "{e}");
}

#[test]
fn one_deployment_of_an_environment_at_a_time() {
    let path = temp("one");
    let mut s = Store::open(&path).unwrap();
    s.create_environment(&env("e1", "shop")).unwrap();
    s.set_pending(
        "e1",
        Some(&json!({"Objects": {"?": {"id": "e1"}, "services": [1]}})),
    )
    .unwrap();
    assert_eq!(s.environment("e1").unwrap().status, "pending");
    let deploy = json!({"object_id": "e1", "method": "deploy", "args": {}});
    let (n, task) = s.begin_deployment("e1", "deploy", &deploy).unwrap();
    assert_eq!(n, 1);
    let again = s.begin_deployment("e1", "deploy", &deploy).unwrap_err();
    assert!(
        again.to_string().contains("already being deployed"),
        "{again}"
    );
    assert_eq!(s.environment("e1").unwrap().status, "deploying");
    assert!(matches!(
        s.set_pending("e1", None),
        Err(StoreError::Conflict(_))
    ));
    s.finish_deployment(&task, "e1", &finished(false)).unwrap();
    let e = s.environment("e1").unwrap();
    assert_eq!(e.status, "ready");
    assert_eq!(e.status_text, "Deployment finished");
    assert_eq!(e.pending, None);
    let deps = s.deployments("e1").unwrap();
    assert_eq!(deps[0].state, "success");
    assert_eq!(deps[0].kind, "deploy");
    assert_eq!(deps[0].reports[0]["text"], "hi");
    assert_eq!(s.records(&task, "heat").unwrap(), [json!({"op": "push"})]);
    // What it sent, where the dashboard's deployment page reads it.
    let sent = s.db().task_artifacts(&task).unwrap().unwrap();
    assert_eq!(sent.heat, [json!({"op": "push"})]);
    assert!(sent.agent_plans.is_empty());
    // Murano's rows: the task finished, its reports as status rows.
    let t = s.db().get("task", &task).unwrap().unwrap();
    assert!(!t["finished"].is_null());
    let texts: Vec<Json> = s
        .db()
        .select("status", &key("task_id", task.as_str()), "created, rowid")
        .unwrap()
        .into_iter()
        .map(|r| r["text"].clone())
        .collect();
    assert_eq!(
        texts,
        [
            json!("Action deploy is scheduled"),
            json!("hi"),
            json!("Deployment finished")
        ]
    );
    assert_eq!(s.begin_deployment("e1", "deploy", &deploy).unwrap().0, 2);
}

#[test]
fn deployments_of_dead_processes_are_marked_interrupted() {
    let path = temp("dead");
    let mut s = Store::open(&path).unwrap();
    s.create_environment(&env("e1", "shop")).unwrap();
    let deploy = json!({"object_id": "e1", "method": "deploy", "args": {}});
    let (_, task) = s.begin_deployment("e1", "deploy", &deploy).unwrap();
    // A process id no process has.
    s.db()
        .connection()
        .execute(
            "UPDATE env_run SET pid = ?1 WHERE task_id = ?2",
            params![i64::from(i32::MAX), task],
        )
        .unwrap();
    drop(s);
    let s = Store::open(&path).unwrap();
    if Path::new("/proc/self").exists() {
        assert_eq!(s.deployments("e1").unwrap()[0].state, "interrupted");
        let e = s.environment("e1").unwrap();
        assert_eq!(e.status, "deploy failure");
        assert_eq!(e.status_text, INTERRUPTED);
    }
}

#[test]
fn a_task_the_api_ran_is_a_deployment() {
    let path = temp("api");
    let mut s = Store::open(&path).unwrap();
    s.create_environment(&env("e1", "shop")).unwrap();
    let t = "2020-01-01T00:00:00.000000";
    for (table, row) in [
        (
            "task",
            json!({"id": "t1", "environment_id": "e1", "created": t, "updated": t,
                   "started": t, "finished": t, "description": {"?": {}},
                   "action": {"object_id": "obj", "method": "restart", "args": {}},
                   "result": {"isException": false, "result": 3}}),
        ),
        (
            "status",
            json!({"id": "s1", "task_id": "t1", "text": "ok", "level": "info",
                   "created": t, "updated": t}),
        ),
    ] {
        s.db().insert(table, row.as_object().unwrap()).unwrap();
    }
    let d = &s.deployments("e1").unwrap()[0];
    assert_eq!((d.kind.as_str(), d.state.as_str()), ("action", "success"));
    assert_eq!(d.outcome["result"], 3);
    assert_eq!(d.reports[0]["text"], "ok");
    assert!(s.records("t1", "log").unwrap().is_empty());
}

#[test]
fn packages_are_imported_listed_and_removed() {
    let path = temp("pkg");
    let mut s = Store::open(&path).unwrap();
    let mut files = BTreeMap::new();
    files.insert(
        "manifest.yaml".to_owned(),
        Arc::new(
            b"FullName: demo.App\nVersion: 1.2.0\nFormat: 1.0\nType: Application\nClasses:\n  demo.App: App.yaml\n"
                .to_vec(),
        ),
    );
    files.insert(
        "Classes/App.yaml".to_owned(),
        Arc::new(b"Name: demo.App\n".to_vec()),
    );
    let p = s.import_package("demo", &files).unwrap();
    assert_eq!(p.version, "1.2.0");
    assert_eq!(p.classes, ["demo.App"]);
    assert_eq!(p.source, "demo");
    // Importing again replaces it.
    s.import_package("demo", &files).unwrap();
    assert_eq!(s.packages().unwrap().len(), 1);
    // Murano's row: public, the archive holding the files.
    let row = &s.db().select("package", &Default::default(), "").unwrap()[0];
    assert_eq!(row["is_public"], true);
    assert_eq!(row["fully_qualified_name"], "demo.App");
    assert_eq!(s.package_files().unwrap()[0].1.len(), 2);
    assert_eq!(
        s.package_files_of("demo.App").unwrap().unwrap()["Classes/App.yaml"].as_slice(),
        b"Name: demo.App\n"
    );
    s.remove_package("demo.App").unwrap();
    assert!(s.packages().unwrap().is_empty());
    assert!(matches!(
        s.remove_package("demo.App"),
        Err(StoreError::NotFound(_))
    ));
}
