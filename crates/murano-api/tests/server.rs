//! `murano serve`'s guarantees over real HTTP: tenant isolation, the
//! token required off loopback, the request body limit.

use std::net::SocketAddr;
use std::sync::Arc;

use murano_api::engine::QueueOnlyEngine;
use murano_api::policy::Policy;
use murano_api::store::Db;
use murano_api::{App, Limits, ServeError, Shared};
use serde_json::{json, Value};

struct Server {
    addr: SocketAddr,
    app: Arc<App>,
    rt: tokio::runtime::Runtime,
}

fn start(token: Option<&str>, limits: Limits) -> Server {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let app = Arc::new(App::new(
        Db::in_memory().unwrap(),
        Policy::default(),
        Arc::new(QueueOnlyEngine::default()),
        limits,
    ));
    let shared = Shared {
        app: app.clone(),
        token: token.map(str::to_owned),
    };
    let (l, addr) = rt
        .block_on(murano_api::bind("127.0.0.1:0".parse().unwrap(), token))
        .unwrap();
    rt.spawn(murano_api::serve(l, shared));
    Server { addr, app, rt }
}

/// One request as `tenant` (user `u-<tenant>`); status and body.
fn call(
    s: &Server,
    method: &str,
    path: &str,
    tenant: &str,
    extra: &[(&str, &str)],
    body: Option<Value>,
) -> (u16, String) {
    let _ = &s.rt;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut b = ureq::http::Request::builder()
        .method(method)
        .uri(format!("http://{}/v1{path}", s.addr))
        .header("X-Tenant-Id", tenant)
        .header("X-User-Id", format!("u-{tenant}"))
        .header("Content-Type", "application/json");
    for (k, v) in extra {
        b = b.header(*k, *v);
    }
    let req = b
        .body(body.map(|v| v.to_string()).unwrap_or_default().into_bytes())
        .unwrap();
    let mut resp = agent.run(req).unwrap();
    let status = resp.status().as_u16();
    (status, resp.body_mut().read_to_string().unwrap())
}

fn json_of(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}

#[test]
fn a_second_tenant_sees_nothing_of_the_first() {
    let s = start(None, Limits::default());
    let (st, body) = call(
        &s,
        "POST",
        "/environments",
        "a",
        &[],
        Some(json!({"name": "env"})),
    );
    assert_eq!(st, 200, "{body}");
    let env = json_of(&body)["id"].as_str().unwrap().to_owned();
    let (st, body) = call(
        &s,
        "POST",
        &format!("/environments/{env}/configure"),
        "a",
        &[],
        None,
    );
    assert_eq!(st, 200, "{body}");
    let sid = json_of(&body)["id"].as_str().unwrap().to_owned();
    let (st, body) = call(
        &s,
        "POST",
        &format!("/environments/{env}/sessions/{sid}/deploy"),
        "a",
        &[],
        None,
    );
    assert_eq!(st, 200, "{body}");

    // Tenant b: an empty list, 403 on every object of a's.
    let (st, body) = call(&s, "GET", "/environments", "b", &[], None);
    assert_eq!((st, json_of(&body)), (200, json!({"environments": []})));
    let (st, body) = call(&s, "GET", "/deployments", "b", &[], None);
    assert_eq!((st, json_of(&body)), (200, json!({"deployments": []})));
    for (method, path) in [
        ("GET", format!("/environments/{env}")),
        ("PUT", format!("/environments/{env}")),
        ("DELETE", format!("/environments/{env}")),
        ("GET", format!("/environments/{env}/sessions/{sid}")),
        ("DELETE", format!("/environments/{env}/sessions/{sid}")),
        ("POST", format!("/environments/{env}/configure")),
        ("GET", format!("/environments/{env}/deployments")),
        ("GET", format!("/environments/{env}/lastStatus")),
        ("GET", format!("/environments/{env}/model/")),
    ] {
        let (st, body) = call(&s, method, &path, "b", &[], Some(json!({"name": "x"})));
        assert_eq!(st, 403, "{method} {path}: {body}");
        assert!(
            body.contains("not authorized to access these tenant resources"),
            "{body}"
        );
    }
    // The deployment's reports are not b's either.
    let (_, deps) = call(
        &s,
        "GET",
        &format!("/environments/{env}/deployments"),
        "a",
        &[],
        None,
    );
    let dep = json_of(&deps)["deployments"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (st, _) = call(
        &s,
        "GET",
        &format!("/environments/{env}/deployments/{dep}"),
        "b",
        &[],
        None,
    );
    assert_eq!(st, 403);
    // An admin of another tenant sees all tenants only when asking for them.
    let (st, body) = call(&s, "GET", "/environments?all_tenants=true", "b", &[], None);
    assert_eq!(st, 403, "{body}");
    let (st, body) = call(
        &s,
        "GET",
        "/environments?all_tenants=true",
        "b",
        &[("X-Roles", "admin")],
        None,
    );
    assert_eq!(st, 200);
    assert_eq!(json_of(&body)["environments"].as_array().unwrap().len(), 1);
}

#[test]
fn a_token_is_required_off_loopback_and_checked() {
    let addr: SocketAddr = "0.0.0.0:0".parse().unwrap();
    assert!(matches!(
        murano_api::check_listen(addr, None),
        Err(ServeError::TokenRequired(_))
    ));
    assert!(matches!(
        murano_api::check_listen(addr, Some("")),
        Err(ServeError::TokenRequired(_))
    ));
    assert!(murano_api::check_listen(addr, Some("t")).is_ok());
    assert!(murano_api::check_listen("127.0.0.1:0".parse().unwrap(), None).is_ok());

    let s = start(Some("sekrit"), Limits::default());
    let (st, _) = call(&s, "GET", "/environments", "a", &[], None);
    assert_eq!(st, 401);
    let (st, _) = call(
        &s,
        "GET",
        "/environments",
        "a",
        &[("X-Auth-Token", "wrong")],
        None,
    );
    assert_eq!(st, 401);
    let (st, body) = call(
        &s,
        "GET",
        "/environments",
        "a",
        &[("X-Auth-Token", "sekrit")],
        None,
    );
    assert_eq!((st, json_of(&body)), (200, json!({"environments": []})));
}

#[test]
fn bodies_over_the_limit_are_refused() {
    let s = start(
        None,
        Limits {
            max_body: 64,
            ..Limits::default()
        },
    );
    let big = json!({"name": "x".repeat(100)});
    let (st, body) = call(&s, "POST", "/environments", "a", &[], Some(big));
    assert_eq!(st, 413, "{body}");
    let (st, _) = call(&s, "GET", "/environments", "a", &[], None);
    assert_eq!(st, 200);
    let (st, body) = call(
        &s,
        "POST",
        "/environments",
        "a",
        &[],
        Some(json!({"name": "ok"})),
    );
    assert_eq!(st, 200, "{body}");
}

#[test]
fn malformed_json_is_a_400() {
    let s = start(None, Limits::default());
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let req = ureq::http::Request::builder()
        .method("POST")
        .uri(format!("http://{}/v1/environments", s.addr))
        .header("X-Tenant-Id", "a")
        .header("Content-Type", "application/json")
        .body(b"{not json".to_vec())
        .unwrap();
    let resp = agent.run(req).unwrap();
    assert_eq!(resp.status().as_u16(), 400);
}

#[test]
fn applications_are_edited_inside_a_session() {
    let s = start(None, Limits::default());
    let (_, body) = call(
        &s,
        "POST",
        "/environments",
        "a",
        &[],
        Some(json!({"name": "env"})),
    );
    let env = json_of(&body)["id"].as_str().unwrap().to_owned();
    let (_, body) = call(
        &s,
        "POST",
        &format!("/environments/{env}/configure"),
        "a",
        &[],
        None,
    );
    let sid = json_of(&body)["id"].as_str().unwrap().to_owned();
    let hdr = [("X-Configuration-Session", sid.as_str())];
    let app = json!({"?": {"id": "app1", "type": "com.example.App"}, "name": "one"});
    // Without the session header: Murano's 400.
    let (st, _) = call(
        &s,
        "POST",
        &format!("/environments/{env}/services"),
        "a",
        &[],
        Some(app.clone()),
    );
    assert_eq!(st, 400);
    let (st, body) = call(
        &s,
        "POST",
        &format!("/environments/{env}/services"),
        "a",
        &hdr,
        Some(app.clone()),
    );
    assert_eq!((st, json_of(&body)), (200, app.clone()));
    let (st, body) = call(
        &s,
        "PUT",
        &format!("/environments/{env}/services/app1/name"),
        "a",
        &hdr,
        Some(json!("two")),
    );
    assert_eq!((st, json_of(&body)), (200, json!("two")));
    let (st, body) = call(
        &s,
        "GET",
        &format!("/environments/{env}/services/app1"),
        "a",
        &hdr,
        None,
    );
    assert_eq!(st, 200);
    assert_eq!(json_of(&body)["name"], "two");
    // Outside the session the deployed model has no applications yet.
    let (_, body) = call(&s, "GET", &format!("/environments/{env}"), "a", &[], None);
    assert_eq!(json_of(&body)["services"], json!([]));
    let (_, body) = call(&s, "GET", &format!("/environments/{env}"), "a", &hdr, None);
    assert_eq!(json_of(&body)["services"][0]["?"]["status"], "pending");
    let (st, _) = call(
        &s,
        "DELETE",
        &format!("/environments/{env}/services/app1"),
        "a",
        &hdr,
        None,
    );
    assert_eq!(st, 200);
    let (st, _) = call(
        &s,
        "DELETE",
        &format!("/environments/{env}/services/app1"),
        "a",
        &hdr,
        None,
    );
    assert_eq!(st, 404);
    // Another tenant cannot edit through a session id it learnt.
    let (st, _) = call(
        &s,
        "POST",
        &format!("/environments/{env}/services"),
        "b",
        &hdr,
        Some(app),
    );
    assert_eq!(st, 403);
}

#[test]
fn categories_need_the_admin_role_by_default() {
    let s = start(None, Limits::default());
    let (st, _) = call(
        &s,
        "POST",
        "/catalog/categories",
        "a",
        &[],
        Some(json!({"name": "Web"})),
    );
    assert_eq!(st, 403);
    let (st, body) = call(
        &s,
        "POST",
        "/catalog/categories",
        "a",
        &[("X-Roles", "admin")],
        Some(json!({"name": "Web"})),
    );
    assert_eq!(st, 200, "{body}");
    let (st, body) = call(&s, "GET", "/catalog/categories", "a", &[], None);
    assert_eq!(st, 200);
    assert_eq!(json_of(&body)["categories"][0]["name"], "Web");
}

#[test]
fn private_packages_stay_with_their_tenant() {
    let s = start(None, Limits::default());
    for (id, owner, public) in [("p1", "a", false), ("p2", "a", true)] {
        let row = json!({"id": id, "name": id, "fully_qualified_name": format!("com.example.{id}"),
            "owner_id": owner, "is_public": public, "enabled": true, "type": "Application",
            "description": "d", "author": "x", "supplier": {}, "archive": {"$hex": "504b"},
            "created": "2020-01-01T00:00:00.000000", "updated": "2020-01-01T00:00:00.000000"});
        s.app
            .db()
            .insert("package", row.as_object().unwrap())
            .unwrap();
    }
    let names = |tenant: &str| -> Vec<Value> {
        let (st, body) = call(&s, "GET", "/catalog/packages", tenant, &[], None);
        assert_eq!(st, 200, "{body}");
        json_of(&body)["packages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].clone())
            .collect()
    };
    assert_eq!(names("a"), vec![json!("p1"), json!("p2")]);
    assert_eq!(names("b"), vec![json!("p2")]);
    for path in ["/catalog/packages/p1", "/catalog/packages/p1/download"] {
        let (st, _) = call(&s, "GET", path, "b", &[], None);
        assert_eq!(st, 403, "{path}");
    }
    let (st, _) = call(&s, "DELETE", "/catalog/packages/p2", "b", &[], None);
    assert_eq!(st, 403);
    let (st, _) = call(&s, "GET", "/catalog/packages/p2", "b", &[], None);
    assert_eq!(st, 200);
}

#[test]
fn schemas_come_from_the_engine() {
    // The queue-only engine knows no class: Murano's 404 for NoClassFound.
    let s = start(None, Limits::default());
    let (st, body) = call(
        &s,
        "GET",
        "/schemas/com.example.Missing/a,b",
        "a",
        &[],
        None,
    );
    assert_eq!(st, 404, "{body}");
    assert!(body.contains("com.example.Missing"), "{body}");
}

#[test]
fn a_deployment_cut_by_a_restart_is_marked_failed_and_nothing_else_is_lost() {
    let dir = std::env::temp_dir().join(format!("murano-api-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("api.db");
    let serve_file = || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let db = Db::open(&path).unwrap();
        murano_api::handlers::recovery::fail_interrupted(&db).unwrap();
        let app = Arc::new(App::new(
            db,
            Policy::default(),
            Arc::new(QueueOnlyEngine::default()),
            Limits::default(),
        ));
        let (l, addr) = rt
            .block_on(murano_api::bind("127.0.0.1:0".parse().unwrap(), None))
            .unwrap();
        rt.spawn(murano_api::serve(
            l,
            Shared {
                app: app.clone(),
                token: None,
            },
        ));
        Server { addr, app, rt }
    };
    let s = serve_file();
    let (_, body) = call(
        &s,
        "POST",
        "/environments",
        "a",
        &[],
        Some(json!({"name": "kept"})),
    );
    let env = json_of(&body)["id"].as_str().unwrap().to_owned();
    let (_, body) = call(
        &s,
        "POST",
        &format!("/environments/{env}/configure"),
        "a",
        &[],
        None,
    );
    let sid = json_of(&body)["id"].as_str().unwrap().to_owned();
    let (st, _) = call(
        &s,
        "POST",
        &format!("/environments/{env}/sessions/{sid}/deploy"),
        "a",
        &[],
        None,
    );
    assert_eq!(st, 200);
    let (_, body) = call(&s, "GET", &format!("/environments/{env}"), "a", &[], None);
    assert_eq!(json_of(&body)["status"], "deploying");
    s.rt.shutdown_background();
    drop(s.app);

    let s = serve_file();
    let (_, body) = call(&s, "GET", &format!("/environments/{env}"), "a", &[], None);
    let shown = json_of(&body);
    assert_eq!(
        (shown["name"].clone(), shown["status"].clone()),
        (json!("kept"), json!("deploy failure"))
    );
    let (_, body) = call(
        &s,
        "GET",
        &format!("/environments/{env}/deployments"),
        "a",
        &[],
        None,
    );
    let dep = &json_of(&body)["deployments"][0];
    assert_eq!(dep["state"], "completed_w_errors");
    let (_, body) = call(
        &s,
        "GET",
        &format!(
            "/environments/{env}/deployments/{}",
            dep["id"].as_str().unwrap()
        ),
        "a",
        &[],
        None,
    );
    let reports = json_of(&body)["reports"].as_array().unwrap().clone();
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[1]["level"], "error");
    let _ = std::fs::remove_dir_all(&dir);
}
