//! Every dashboard page rendered with 1,000 packages in the catalog
//! (target: under 50 ms a page), through the same dispatcher the HTTP
//! layer calls, over an in-memory store.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use murano_api::app::Req;
use murano_api::engine::QueueOnlyEngine;
use murano_api::handlers::packages;
use murano_api::policy::Policy;
use murano_api::store::Db;
use murano_api::upload::{LoadedPackage, PackageLoader};
use murano_api::{App, Limits};
use murano_dashboard::{local_context, Dashboard, Page, PageRequest};
use serde_json::{json, Value};

/// A bench "archive" is the catalog entry as JSON.
struct JsonLoader;

impl PackageLoader for JsonLoader {
    fn load(&self, archive: &[u8]) -> Result<LoadedPackage, String> {
        let v: Value = serde_json::from_slice(archive).map_err(|e| e.to_string())?;
        Ok(LoadedPackage {
            full_name: v["fqn"].as_str().unwrap_or("").to_owned(),
            name: v["name"].as_str().unwrap_or("").to_owned(),
            package_type: "Application".into(),
            description: v["description"].clone(),
            author: json!("bench"),
            supplier: json!({}),
            tags: vec!["bench".into(), format!("t{}", v["n"])],
            classes: vec![v["fqn"].as_str().unwrap_or("").to_owned()],
            logo: None,
            supplier_logo: None,
            ui: v["ui"].as_str().map(str::to_owned),
        })
    }
}

const UI: &str = "Version: 2.2\nApplication:\n  ?:\n    type: TYPE\n  other: $.main.other\n  size: $.main.size\nForms:\n  - main:\n      fields:\n        - name: other\n          type: bench.App0\n          required: false\n        - name: size\n          type: integer\n          initial: 3\n";

fn upload(app: &App, n: usize) -> String {
    let fqn = format!("bench.App{n}");
    let entry = json!({"fqn": fqn, "name": format!("Bench application {n}"), "n": n,
        "description": "A package of the benchmark catalog. ".repeat(4),
        "ui": UI.replace("TYPE", &fqn)});
    let mut body =
        b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"p.zip\"\r\n\r\n"
            .to_vec();
    body.extend_from_slice(entry.to_string().as_bytes());
    body.extend_from_slice(b"\r\n--B--\r\n");
    let req = Req {
        ctx: local_context(),
        body,
        content_type: Some("multipart/form-data; boundary=B".into()),
        ..Req::default()
    };
    match packages::upload(app, &req) {
        Ok(murano_api::app::Reply::Json(v)) => v["id"].as_str().unwrap_or("").to_owned(),
        other => panic!("upload: {other:?}"),
    }
}

fn redirect(p: Page) -> String {
    match p {
        Page::Redirect(to) => to,
        other => panic!("{other:?}"),
    }
}

fn bench_pages(c: &mut Criterion) {
    let app = App::new(
        Db::in_memory().expect("store"),
        Policy::default(),
        Arc::new(QueueOnlyEngine::default()),
        Limits::default(),
    )
    .with_loader(Arc::new(JsonLoader));
    let d = Dashboard::new(Arc::new(app));
    let ids: Vec<String> = (0..1000).map(|n| upload(&d.app, n)).collect();
    let env = redirect(d.dispatch(&PageRequest::post("/environments", &[("name", "bench")])));
    // Three applications through the wizard, then a deployment.
    for id in &ids[..3] {
        let step = redirect(d.dispatch(&PageRequest::post(&format!("{env}/add/{id}"), &[])));
        let mut next = redirect(d.dispatch(&PageRequest::post(
            &step,
            &[("size", "4"), ("__action", "next")],
        )));
        while next.starts_with("/drafts/") {
            next = redirect(d.dispatch(&PageRequest::post(
                &next,
                &[("application_name", "a"), ("__action", "next")],
            )));
        }
    }
    redirect(d.dispatch(&PageRequest::post(&format!("{env}/deploy"), &[])));
    let step = redirect(d.dispatch(&PageRequest::post(&format!("{env}/add/{}", ids[1]), &[])));
    let eid = env.rsplit('/').next().unwrap_or("").to_owned();
    let deployment = {
        let db = d.app.db();
        db.select(
            "task",
            &murano_api::store::key("environment_id", eid.as_str()),
            "",
        )
        .expect("tasks")[0]["id"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    };
    // What a deployment of three applications sends: a stack update per
    // application with a growing template, and an agent plan each.
    let mut sent = murano_api::store::TaskArtifacts::default();
    let mut resources = serde_json::Map::new();
    for n in 0..3 {
        resources.insert(
            format!("server-{n}"),
            json!({"type": "OS::Nova::Server", "properties": {
                "flavor": "m1.small", "image": "ubuntu", "user_data": "x".repeat(2000)}}),
        );
        sent.heat
            .push(json!({"op": if n == 0 { "create" } else { "update" },
            "stack": "murano-bench", "region": null,
            "template": {"heat_template_version": "2013-05-23", "resources": resources.clone()},
            "parameters": {}, "files": {}, "environment": ""}));
        sent.agent_plans.push(
            json!({"queue": format!("e-{n}"), "host": format!("server-{n}"),
            "wait_results": true, "timeout": 3600, "plan": {"FormatVersion": "2.0.0",
            "Body": "return deploy(args.app).stdout", "Files": {"deploy.sh": "y".repeat(4000)}}}),
        );
    }
    d.app
        .db()
        .set_task_artifacts(&deployment, &eid, &sent)
        .expect("artifacts");
    let pages = [
        ("catalog", "/catalog".to_owned()),
        (
            "catalog_search",
            "/catalog?search=application+99".to_owned(),
        ),
        ("catalog_last_page", "/catalog?tag=t999".to_owned()),
        ("package", format!("/catalog/{}", ids[500])),
        ("environments", "/environments".to_owned()),
        ("environment", env.clone()),
        ("add_choose", format!("{env}/add")),
        ("wizard_step", step),
        ("deployment", format!("{env}/deployments/{deployment}")),
    ];
    let mut group = c.benchmark_group("dashboard_1000_packages");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (name, url) in pages {
        let req = PageRequest::get(&url);
        match d.dispatch(&req) {
            Page::Html(200, _) => {}
            other => panic!("{name}: {other:?}"),
        }
        group.bench_function(name, |b| b.iter(|| d.dispatch(&req)));
    }
    group.finish();
}

criterion_group!(benches, bench_pages);
criterion_main!(benches);
