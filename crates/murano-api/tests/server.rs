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
        app,
        token: token.map(str::to_owned),
    };
    let (l, addr) = rt
        .block_on(murano_api::bind("127.0.0.1:0".parse().unwrap(), token))
        .unwrap();
    rt.spawn(murano_api::serve(l, shared));
    Server { addr, rt }
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
