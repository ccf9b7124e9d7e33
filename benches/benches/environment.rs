//! A whole environment lifecycle through the store (issue 32): import the
//! WordPress, MySQL and Apache packages of the shared corpus into a fresh
//! SQLite store, create an environment, add the three applications (the
//! WordPress form points at the other two), deploy, run the environment's
//! `deploy` action, redeploy after an edit, and delete. Needs the shared
//! data; without it the benchmark says so and measures nothing.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use murano_benches::shared_root;
use murano_engine::deploy::PackageFiles;
use murano_engine::host::OfflineOptions;
use murano_env::model::NewEnvironment;
use murano_env::{CloudState, Environment};
use murano_store::{EnvTask, Files, Store, StoredEnvironment};
use serde_json::{json, Value as Json};

/// The allocator the `murano` binary ships with, so the lifecycle is timed
/// as the CLI and `murano serve` run it.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn files_below(root: &Path) -> Files {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let (Ok(rel), Ok(bytes)) = (p.strip_prefix(root), std::fs::read(&p)) {
                out.insert(rel.to_string_lossy().replace('\\', "/"), Arc::new(bytes));
            }
        }
    }
    out
}

fn instance(name: &str) -> Json {
    json!({"?": {"type": "io.murano.resources.LinuxMuranoInstance", "id": format!("{name}-vm-id")},
           "name": name, "flavor": "m1.small", "image": "img-ubuntu", "keyname": "k",
           "assignFloatingIp": true, "availabilityZone": "nova"})
}

fn lifecycle(db: &Path, packages: &[(String, Files)]) {
    let _ = std::fs::remove_file(db);
    let mut store = Store::open(db).expect("store");
    for (name, files) in packages {
        store.import_package(name, files).expect("import");
    }
    let engine_packages: Vec<PackageFiles> = store
        .package_files()
        .expect("files")
        .into_iter()
        .map(|(n, f)| PackageFiles::from_files(&n, f).expect("package"))
        .collect();
    let e = Environment::new(&NewEnvironment {
        id: "e0000000000000000000000000000001".into(),
        name: "shop".into(),
        network_id: "e0000000000000000000000000000002".into(),
        project_id: "p".into(),
        user_id: "u".into(),
    });
    let mut desc = e.description.clone();
    desc["Objects"]["services"] = json!([
        {"?": {"id": "db", "type": "com.example.databases.MySql", "name": "db"},
         "database": "wp", "username": "wp_user", "password": "Passw0rd!", "instance": instance("db")},
        {"?": {"id": "web", "type": "com.example.apache.ApacheHttpServer", "name": "web"},
         "enablePHP": true, "instance": instance("web")},
        {"?": {"id": "wp", "type": "com.example.WordPress", "name": "wp"},
         "database": "db", "server": "web", "dbName": "wordpress", "dbUser": "wp_user",
         "dbPassword": "Passw0rd!"}
    ]);
    let stored = StoredEnvironment {
        id: e.id.clone(),
        name: e.name.clone(),
        status: "pending".into(),
        status_text: String::new(),
        description: e.description.clone(),
        pending: Some(desc),
        cloud: CloudState::default().to_json(),
    };
    store.create_environment(&stored).expect("create");
    let offline = OfflineOptions::default();
    let run = |task: EnvTask, store: &mut Store| {
        let env = store.environment("shop").expect("env");
        let r = store
            .run_env_task(&env, &task, &engine_packages, &offline, None)
            .expect("run");
        assert!(!r.failed, "{}", r.record.outcome);
    };
    let env = store.environment("shop").expect("env");
    run(EnvTask::deploy(&env), &mut store);
    let env = store.environment("shop").expect("env");
    let deploy_action = format!("{}_deploy", env.id);
    run(
        EnvTask::action(&env, &deploy_action, json!({})).expect("action"),
        &mut store,
    );
    let env = store.environment("shop").expect("env");
    let mut edited = env.description.clone();
    edited["Objects"]["services"][1]["instance"]["flavor"] = json!("m1.medium");
    store.set_pending(&env.id, Some(&edited)).expect("edit");
    let env = store.environment("shop").expect("env");
    run(EnvTask::deploy(&env), &mut store);
    let env = store.environment("shop").expect("env");
    run(EnvTask::delete(&env).expect("delete"), &mut store);
}

fn environment(c: &mut Criterion) {
    let Some(shared) = shared_root() else {
        eprintln!("environment: shared data absent, nothing measured");
        return;
    };
    let apps = shared.join("corpus/packages/murano-apps");
    let dirs: Vec<(&str, PathBuf)> = vec![
        (
            "io.murano",
            shared.join("conformance/engine/meta/io.murano"),
        ),
        (
            "io.murano.applications",
            shared.join("corpus/packages/murano/meta/io.murano.applications"),
        ),
        ("WordPress", apps.join("WordPress/package")),
        ("MySQL", apps.join("MySQL/package")),
        ("ApacheHTTPServer", apps.join("ApacheHTTPServer/package/v0")),
        ("ZabbixAgent", apps.join("ZabbixAgent/package")),
        (
            "SQLDatabaseLibrary",
            apps.join("SQLDatabaseLibrary/package"),
        ),
        ("ZabbixServer", apps.join("ZabbixServer/package")),
    ];
    let packages: Vec<(String, Files)> = dirs
        .iter()
        .map(|(n, d)| ((*n).to_owned(), files_below(d)))
        .collect();
    let dir = std::env::temp_dir().join(format!("murano-bench-env-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let db = dir.join("store.db");
    let mut group = c.benchmark_group("environment");
    group.sample_size(10);
    group.bench_function("wordpress-lifecycle-through-the-store", |b| {
        b.iter(|| lifecycle(&db, &packages))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, environment);
criterion_main!(benches);
