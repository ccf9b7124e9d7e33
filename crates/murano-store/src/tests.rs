use super::*;

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
        description: json!({"Objects": {"?": {"id": id}}}),
        pending: None,
        cloud: json!({}),
    }
}

#[test]
fn a_new_store_has_the_current_schema_and_reopens() {
    let path = temp("new");
    let mut s = Store::open(&path).unwrap();
    s.create_environment(&env("e1", "shop")).unwrap();
    drop(s);
    let s = Store::open(&path).unwrap();
    assert_eq!(s.environment("shop").unwrap().id, "e1");
    let v: i32 = s
        .conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, SCHEMA_VERSION);
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
    let d = s.begin_deployment("e1", "deploy", &json!(null)).unwrap();
    assert!(matches!(
        s.begin_deployment("e1", "deploy", &json!(null)),
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(s.environment("e1").unwrap().status, "deploying");
    let result = TaskResult {
        outcome: json!({"ok": true, "result": null}),
        reports: vec![json!({"text": "hi", "level": "info"})],
        heat: vec![],
        agent_plans: vec![],
        log: vec![],
        final_model: json!({}),
        failed: false,
        environment: Some((
            json!({"Objects": {}}),
            "ready".into(),
            "Deployment finished".into(),
        )),
        cloud: json!({"heat": {}}),
    };
    s.finish_deployment(d, "e1", &result).unwrap();
    let deps = s.deployments("e1").unwrap();
    assert_eq!(deps[0].state, "success");
    assert_eq!(deps[0].reports[0]["text"], "hi");
    s.begin_deployment("e1", "deploy", &json!(null)).unwrap();
}

#[test]
fn deployments_of_dead_processes_are_marked_interrupted() {
    let path = temp("dead");
    let mut s = Store::open(&path).unwrap();
    s.create_environment(&env("e1", "shop")).unwrap();
    let d = s.begin_deployment("e1", "deploy", &json!(null)).unwrap();
    // A process id no process has.
    s.conn
        .execute(
            "UPDATE deployments SET pid = ?1 WHERE id = ?2",
            params![i64::from(i32::MAX), d],
        )
        .unwrap();
    drop(s);
    let s = Store::open(&path).unwrap();
    if Path::new("/proc/self").exists() {
        assert_eq!(s.deployments("e1").unwrap()[0].state, "interrupted");
        assert_eq!(s.environment("e1").unwrap().status, "deploy failure");
    }
}

#[test]
fn packages_are_imported_listed_and_removed() {
    let path = temp("pkg");
    let mut s = Store::open(&path).unwrap();
    let mut files = BTreeMap::new();
    files.insert(
        "manifest.yaml".to_owned(),
        Arc::new(b"FullName: demo.App\nVersion: 1.2.0\nClasses:\n  demo.App: App.yaml\n".to_vec()),
    );
    files.insert(
        "Classes/App.yaml".to_owned(),
        Arc::new(b"Name: demo.App\n".to_vec()),
    );
    let p = s.import_package("demo", &files).unwrap();
    assert_eq!(p.version, "1.2.0");
    assert_eq!(p.classes, ["demo.App"]);
    assert_eq!(s.package_files().unwrap()[0].1.len(), 2);
    s.remove_package("demo.App").unwrap();
    assert!(s.packages().unwrap().is_empty());
    assert!(matches!(
        s.remove_package("demo.App"),
        Err(StoreError::NotFound(_))
    ));
}
