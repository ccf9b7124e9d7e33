//! Routes and checks of murano-api that the recorded conformance tests do
//! not reach: request statistics (`GET /stats`), deleting the whole
//! services list, and the upload's metadata schema with Murano's 400s.

use std::net::SocketAddr;
use std::sync::Arc;

use murano_api::engine::QueueOnlyEngine;
use murano_api::policy::Policy;
use murano_api::store::Db;
use murano_api::upload::{LoadedPackage, PackageLoader};
use murano_api::{App, Limits, Shared};
use serde_json::{json, Value};

struct Server {
    addr: SocketAddr,
    _rt: tokio::runtime::Runtime,
}

/// A loader that reads any archive as the same small application.
struct OneApp;

impl PackageLoader for OneApp {
    fn load(&self, _archive: &[u8]) -> Result<LoadedPackage, String> {
        Ok(LoadedPackage {
            full_name: "com.example.App".into(),
            name: "App".into(),
            package_type: "Application".into(),
            description: json!("d"),
            author: json!("a"),
            supplier: json!({}),
            tags: vec!["own".into()],
            classes: vec!["com.example.App".into()],
            ..LoadedPackage::default()
        })
    }
}

fn start() -> Server {
    start_with(None)
}

fn start_with(identity: Option<murano_api::identity::LocalIdentity>) -> Server {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let app = App::new(
        Db::in_memory().unwrap(),
        Policy::default(),
        Arc::new(QueueOnlyEngine::default()),
        Limits::default(),
    )
    .with_loader(Arc::new(OneApp));
    if let Some(id) = identity {
        app.identity.set(id).unwrap();
    }
    let shared = Shared {
        app: Arc::new(app),
        token: None,
    };
    let (l, addr) = rt
        .block_on(murano_api::bind("127.0.0.1:0".parse().unwrap(), None))
        .unwrap();
    rt.spawn(murano_api::serve(l, shared));
    Server { addr, _rt: rt }
}

/// One request as tenant `t` (a member); status and body.
fn call(
    s: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut b = ureq::http::Request::builder()
        .method(method)
        .uri(format!("http://{}/v1{path}", s.addr))
        .header("X-Tenant-Id", "t")
        .header("X-User-Id", "u")
        .header("X-Roles", "member");
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let mut resp = agent.run(b.body(body).unwrap()).unwrap();
    let status = resp.status().as_u16();
    (status, resp.body_mut().read_to_string().unwrap())
}

fn json_of(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

const JSON: (&str, &str) = ("Content-Type", "application/json");

/// A multipart upload: an optional text part, then the archive.
fn upload(s: &Server, meta: Option<&str>) -> (u16, String) {
    let mut body = Vec::new();
    if let Some(m) = meta {
        body.extend_from_slice(
            format!("--XX\r\nContent-Disposition: form-data; name=\"__metadata__\"\r\n\r\n{m}\r\n")
                .as_bytes(),
        );
    }
    body.extend_from_slice(
        b"--XX\r\nContent-Disposition: form-data; name=\"app.zip\"; filename=\"app.zip\"\r\n\
Content-Type: application/octet-stream\r\n\r\nPK-not-read\r\n--XX--\r\n",
    );
    call(
        s,
        "POST",
        "/catalog/packages",
        &[("Content-Type", "multipart/form-data; boundary=XX")],
        body,
    )
}

/// The explanation of a webob error page (Murano's 400s are HTML/JSON
/// pages carrying it); the body as is when it has none.
fn explanation(body: &str) -> String {
    match serde_json::from_str::<Value>(body) {
        Ok(v) => v["explanation"]
            .as_str()
            .or(v["error"]["message"].as_str())
            .map_or_else(|| body.to_owned(), str::to_owned),
        Err(_) => body.to_owned(),
    }
}

#[test]
fn stats_count_the_requests_controllers_served() {
    let s = start();
    let (st, body) = call(&s, "GET", "/stats", &[], Vec::new());
    assert_eq!(st, 200, "{body}");
    let rows = json_of(&body);
    assert_eq!(rows.as_array().map(Vec::len), Some(1), "{rows}");
    let first = rows[0]["request_count"].as_u64().unwrap();
    // Two served (one a 404 from a controller), one unrouted (not counted).
    call(&s, "GET", "/environments", &[], Vec::new());
    call(&s, "GET", "/environments/none", &[], Vec::new());
    call(&s, "GET", "/no-such-route", &[], Vec::new());
    let (st, body) = call(&s, "GET", "/stats", &[], Vec::new());
    assert_eq!(st, 200, "{body}");
    let row = &json_of(&body)[0];
    assert_eq!(row["request_count"].as_u64(), Some(first + 3), "{row}");
    assert_eq!(row["error_count"].as_u64(), Some(1), "{row}");
    let per_tenant: Value = json_of(row["requests_per_tenant"].as_str().unwrap());
    assert_eq!(per_tenant["t"].as_u64(), Some(first + 2), "{row}");
    for k in [
        "id",
        "host",
        "created",
        "updated",
        "average_response_time",
        "requests_per_second",
        "errors_per_second",
        "cpu_count",
        "cpu_percent",
    ] {
        assert!(row.get(k).is_some(), "{k} missing: {row}");
    }
}

#[test]
fn the_whole_services_list_can_be_deleted() {
    let s = start();
    let (_, body) = call(
        &s,
        "POST",
        "/environments",
        &[JSON],
        br#"{"name": "e"}"#.to_vec(),
    );
    let env = json_of(&body)["id"].as_str().unwrap().to_owned();
    let (_, body) = call(
        &s,
        "POST",
        &format!("/environments/{env}/configure"),
        &[],
        Vec::new(),
    );
    let sid = json_of(&body)["id"].as_str().unwrap().to_owned();
    let session = ("X-Configuration-Session", sid.as_str());
    let app = json!({"?": {"id": "a1", "type": "com.example.App"}, "name": "a"});
    let (st, body) = call(
        &s,
        "POST",
        &format!("/environments/{env}/services"),
        &[JSON, session],
        app.to_string().into_bytes(),
    );
    assert_eq!(st, 200, "{body}");
    for path in ["services", "services/"] {
        let (st, body) = call(
            &s,
            "DELETE",
            &format!("/environments/{env}/{path}"),
            &[session],
            Vec::new(),
        );
        assert_eq!(
            st,
            if path == "services" { 200 } else { 404 },
            "{path}: {body}"
        );
        let (st, body) = call(
            &s,
            "GET",
            &format!("/environments/{env}/services"),
            &[session],
            Vec::new(),
        );
        assert_eq!((st, json_of(&body)), (200, json!([])), "{path}");
    }
}

#[test]
fn upload_metadata_follows_murano_upload_schema() {
    let s = start();
    let (st, body) = upload(&s, Some(r#"{"type": null}"#));
    assert_eq!(st, 400, "{body}");
    let e = explanation(&body);
    assert!(
        e.contains(
            "Package schema is not valid: Additional properties are not allowed ('type' was unexpected)\n\nFailed validating 'additionalProperties' in schema:\n"
        ),
        "{e}"
    );
    let (st, body) = upload(&s, Some(r#"{"tags": ["a", "a"]}"#));
    assert_eq!(st, 400, "{body}");
    assert!(
        explanation(&body)
            .contains("Package schema is not valid: ['a', 'a'] has non-unique elements"),
        "{body}"
    );
    let (st, body) = upload(&s, Some(r#"{"enabled": "yes"}"#));
    assert_eq!(st, 400, "{body}");
    assert!(
        explanation(&body).contains("On instance['enabled']:\n    'yes'"),
        "{body}"
    );
    // A part that is not a JSON object is not metadata (Murano keeps it as
    // text and ignores it).
    let (st, body) = upload(&s, Some("not json"));
    assert_eq!(st, 200, "{body}");
    let (st, body) = call(
        &s,
        "DELETE",
        &format!(
            "/catalog/packages/{}",
            json_of(&body)["id"].as_str().unwrap()
        ),
        &[],
        Vec::new(),
    );
    assert_eq!(st, 200, "{body}");
    // Allowed keys are applied: tags join the package's own.
    let (st, body) = upload(
        &s,
        Some(r#"{"tags": ["extra"], "is_public": false, "enabled": false, "description": "x"}"#),
    );
    assert_eq!(st, 200, "{body}");
    let p = json_of(&body);
    assert_eq!(p["enabled"], json!(false), "{p}");
    let mut tags: Vec<&str> = p["tags"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    tags.sort_unstable();
    assert_eq!(tags, ["extra", "own"]);
}

#[test]
fn upload_refuses_a_json_body() {
    let s = start();
    let (st, body) = call(
        &s,
        "POST",
        "/catalog/packages",
        &[JSON],
        br#"{"a": 1}"#.to_vec(),
    );
    assert_eq!(st, 400, "{body}");
    assert!(
        explanation(&body).contains("Content-Type must be 'multipart/form-data'"),
        "{body}"
    );
    let (st, _) = call(
        &s,
        "POST",
        "/catalog/packages",
        &[("Content-Type", "text/plain")],
        b"x".to_vec(),
    );
    assert_eq!(st, 415);
}

/// A raw request with only these headers.
fn bare(
    s: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut b = ureq::http::Request::builder()
        .method(method)
        .uri(format!("http://{}/v1{path}", s.addr));
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let mut resp = agent
        .run(b.body(body.as_bytes().to_vec()).unwrap())
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.body_mut().read_to_string().unwrap())
}

#[test]
fn requests_naming_no_project_get_the_local_identity() {
    let s = start_with(Some(murano_api::identity::LocalIdentity::new("P", "me")));
    // Only a token, as muranoclient with --os-no-client-auth sends.
    let token = ("X-Auth-Token", "T");
    let (st, body) = bare(
        &s,
        "POST",
        "/environments",
        &[token, JSON],
        r#"{"name": "e"}"#,
    );
    assert_eq!(st, 200, "{body}");
    assert_eq!(json_of(&body)["tenant_id"], json!("P"));
    // A request naming its project keeps it and sees nothing of P's.
    let (st, body) = bare(
        &s,
        "GET",
        "/environments",
        &[token, ("X-Project-Id", "Q")],
        "",
    );
    assert_eq!((st, json_of(&body)), (200, json!({"environments": []})));
    let (_, body) = bare(&s, "GET", "/environments", &[token], "");
    assert_eq!(
        json_of(&body)["environments"].as_array().map(Vec::len),
        Some(1)
    );
    // Without a local identity such a request has no tenant.
    let s = start();
    let (_, body) = bare(&s, "GET", "/environments", &[token], "");
    assert_eq!(json_of(&body), json!({"environments": []}));
}
