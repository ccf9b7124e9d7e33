//! `PUT /environments/{id}/services/{path}` over HTTP, answered as
//! murano-api 14.0.0 answered the same requests (Debian's python3-murano
//! served by `benches/compare/murano_api_server.py`): each case in a fresh
//! environment whose session holds one application, the status, the body
//! and the services read back afterwards.

use std::net::SocketAddr;
use std::sync::Arc;

use murano_api::engine::QueueOnlyEngine;
use murano_api::policy::Policy;
use murano_api::store::Db;
use murano_api::{App, Limits, Shared};
use serde_json::{json, Value};

struct Server {
    addr: SocketAddr,
    _rt: tokio::runtime::Runtime,
}

fn start() -> Server {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let app = Arc::new(App::new(
        Db::in_memory().unwrap(),
        Policy::default(),
        Arc::new(QueueOnlyEngine::default()),
        Limits::default(),
    ));
    let (l, addr) = rt
        .block_on(murano_api::bind("127.0.0.1:0".parse().unwrap(), None))
        .unwrap();
    rt.spawn(murano_api::serve(l, Shared { app, token: None }));
    Server { addr, _rt: rt }
}

/// One request as tenant `t`: status and body.
fn call(s: &Server, method: &str, path: &str, sid: Option<&str>, body: &[u8]) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut b = ureq::http::Request::builder()
        .method(method)
        .uri(format!("http://{}/v1{path}", s.addr))
        .header("X-Tenant-Id", "t")
        .header("X-User-Id", "u")
        .header("X-Roles", "member")
        .header("Content-Type", "application/json");
    if let Some(sid) = sid {
        b = b.header("X-Configuration-Session", sid);
    }
    let mut resp = agent.run(b.body(body.to_vec()).unwrap()).unwrap();
    let status = resp.status().as_u16();
    (status, resp.body_mut().read_to_string().unwrap())
}

/// A new environment and session holding application `a1`.
fn setup(s: &Server, n: usize) -> (String, String) {
    let name = json!({"name": format!("e{n}")}).to_string();
    let (st, b) = call(s, "POST", "/environments", None, name.as_bytes());
    assert_eq!(st, 200, "{b}");
    let env = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, b) = call(
        s,
        "POST",
        &format!("/environments/{env}/configure"),
        None,
        b"",
    );
    let sid = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let app = json!({"?": {"id": "a1", "type": "x.Y"}, "name": "n", "list": [1, 2]});
    let (st, b) = call(
        s,
        "POST",
        &format!("/environments/{env}/services"),
        Some(&sid),
        app.to_string().as_bytes(),
    );
    assert_eq!(st, 200, "{b}");
    (env, sid)
}

/// A PUT: the path after `/services`, the body, the status, the answer
/// when 200, the services read back afterwards.
type Case = (&'static str, &'static [u8], u16, Option<Value>, Value);

/// webob's plain 400 (no message of Murano's).
const PLAIN_400: &str =
    "The server could not comply with the request since it is either malformed or otherwise incorrect.<br /><br />\n\n\n\n";

#[test]
fn put_answers_as_murano_api() {
    let s = start();
    let unchanged = json!([{"?": {"id": "a1", "type": "x.Y", "status": "pending"},
        "name": "n", "list": [1, 2]}]);
    let with = |k: &str, v: Value| {
        let mut u = unchanged.clone();
        u[0][k] = v;
        u
    };
    let cases: Vec<Case> = vec![
        (
            "/a1/name",
            br#""new""#,
            200,
            Some(json!("new")),
            with("name", json!("new")),
        ),
        (
            "/a1/name",
            b"",
            200,
            Some(json!([])),
            with("name", json!([])),
        ),
        (
            "/a1/name",
            br#""""#,
            200,
            Some(json!([])),
            with("name", json!([])),
        ),
        (
            "/a1/name",
            b"null",
            200,
            Some(json!([])),
            with("name", json!([])),
        ),
        (
            "/a1/newkey",
            br#""x""#,
            200,
            Some(json!("x")),
            with("newkey", json!("x")),
        ),
        (
            "/a1/list/0",
            b"5",
            200,
            Some(json!(5)),
            with("list", json!([5, 2])),
        ),
        (
            "/a1/list/1",
            b"0",
            200,
            Some(json!([])),
            with("list", json!([1, []])),
        ),
        (
            "/a1",
            br#"{"?": {"id": "a1", "type": "x.Y"}, "name": "m"}"#,
            400,
            None,
            unchanged.clone(),
        ),
        ("/zz/name", br#""x""#, 400, None, unchanged.clone()),
        ("/a1/name/", br#""y""#, 400, None, unchanged.clone()),
        ("/a1/list/7", b"5", 500, None, unchanged.clone()),
    ];
    for (n, (path, body, status, answer, after)) in cases.into_iter().enumerate() {
        let (env, sid) = setup(&s, n);
        let url = format!("/environments/{env}/services{path}");
        let (st, b) = call(&s, "PUT", &url, Some(&sid), body);
        assert_eq!(st, status, "PUT {path} {body:?}: {b}");
        match answer {
            Some(a) => assert_eq!(serde_json::from_str::<Value>(&b).unwrap(), a, "{path}"),
            // webob's page (HTML for a client accepting anything).
            None if st == 400 => assert!(b.contains(PLAIN_400), "{path}: {b}"),
            None => {}
        }
        let list = format!("/environments/{env}/services");
        let (_, got) = call(&s, "GET", &list, Some(&sid), b"");
        assert_eq!(
            serde_json::from_str::<Value>(&got).unwrap(),
            after,
            "after PUT {path}"
        );
    }
    // A body that is not JSON: the resource's 400 before the controller.
    let (env, sid) = setup(&s, 99);
    let url = format!("/environments/{env}/services/a1/name");
    let (st, b) = call(&s, "PUT", &url, Some(&sid), b"{bad");
    assert_eq!(st, 400);
    assert!(b.contains("Malformed request body<br /><br />"), "{b}");
}
