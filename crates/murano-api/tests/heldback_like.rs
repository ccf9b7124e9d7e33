//! Scenarios of Murano's API unit tests that the public conformance part
//! (`conformance/api/`) does not carry (the held-back quarter), rebuilt
//! from what each reference test sets up, sends and asserts, and checked
//! against `murano serve` over HTTP: statuses, bodies, error texts and the
//! engine calls, with the expectations Murano 14.0.0 answers with.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use murano_api::engine::{Engine, RemoteError};
use murano_api::policy::Policy;
use murano_api::store::{hex, Db};
use murano_api::{App, Limits, Shared};
use serde_json::{json, Value};

/// An engine that records what it is handed.
#[derive(Default)]
struct Recorder {
    tasks: Mutex<Vec<Value>>,
}

impl Engine for Recorder {
    fn handle_task(&self, task: Value) {
        self.tasks.lock().unwrap().push(task);
    }
    fn call_static_action(&self, _task: Value) -> Result<Value, RemoteError> {
        Ok(Value::Null)
    }
    fn generate_schema(
        &self,
        _c: Value,
        _n: &str,
        _m: Vec<String>,
        _v: Option<String>,
        _p: Option<String>,
    ) -> Result<Value, RemoteError> {
        Ok(json!({}))
    }
}

/// Who sends a request (the context Murano's middleware builds).
#[derive(Clone)]
struct Who {
    user: &'static str,
    tenant: &'static str,
    admin: bool,
    session: Option<String>,
}

fn who(user: &'static str, tenant: &'static str) -> Who {
    Who {
        user,
        tenant,
        admin: false,
        session: None,
    }
}

fn default_who() -> Who {
    who("test_user", "test_tenant")
}

struct Server {
    addr: SocketAddr,
    app: Arc<App>,
    engine: Arc<Recorder>,
    _rt: tokio::runtime::Runtime,
}

/// A fresh server: empty database, every policy check denied.
fn start() -> Server {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let engine = Arc::new(Recorder::default());
    let deny = [("default".to_owned(), "!".to_owned())]
        .into_iter()
        .collect();
    let app = Arc::new(App::new(
        Db::in_memory().unwrap(),
        Policy::new(deny, "default"),
        engine.clone(),
        Limits::default(),
    ));
    let shared = Shared {
        app: app.clone(),
        token: None,
    };
    let (l, addr) = rt
        .block_on(murano_api::bind("127.0.0.1:0".parse().unwrap(), None))
        .unwrap();
    rt.spawn(murano_api::serve(l, shared));
    Server {
        addr,
        app,
        engine,
        _rt: rt,
    }
}

/// A response: status, content type (without parameters), body.
struct Resp {
    status: u16,
    ctype: String,
    body: Vec<u8>,
}

impl Resp {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl Server {
    /// Replace the rule set (rules not listed fall back to `default`,
    /// which is absent: denied).
    fn policy(&self, rules: &[(&str, &str)]) {
        let r = rules
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        self.app.set_policy(Policy::new(r, "default"));
    }

    fn insert(&self, table: &str, row: Value) {
        let Value::Object(m) = row else { panic!() };
        self.app.db().insert(table, &m).unwrap();
    }

    /// A request as the unit tests send it (`Content-Type:
    /// application/json` even without a body).
    fn send(
        &self,
        method: &str,
        path: &str,
        w: &Who,
        extra: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Resp {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .accept(ureq::config::AutoHeaderValue::None)
            .http_status_as_error(false)
            .build()
            .into();
        let mut b = ureq::http::Request::builder()
            .method(method)
            .uri(format!("http://{}/v1{path}", self.addr))
            .header("X-User-Id", w.user)
            .header("X-Tenant-Id", w.tenant);
        if w.admin {
            b = b.header("X-Roles", "admin");
        }
        if let Some(s) = &w.session {
            b = b.header("X-Configuration-Session", s.as_str());
        }
        if !extra
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        {
            b = b.header("Content-Type", "application/json");
        }
        for (k, v) in extra {
            b = b.header(*k, *v);
        }
        let mut resp = agent
            .run(b.body(body.unwrap_or_default()).unwrap())
            .unwrap();
        let status = resp.status().as_u16();
        let ctype = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_owned();
        let body = resp.body_mut().read_to_vec().unwrap();
        Resp {
            status,
            ctype,
            body,
        }
    }

    fn get(&self, path: &str, w: &Who) -> Resp {
        self.send("GET", path, w, &[], None)
    }

    fn post(&self, path: &str, w: &Who, body: Value) -> Resp {
        self.send("POST", path, w, &[], Some(body.to_string().into_bytes()))
    }

    fn post_empty(&self, path: &str, w: &Who) -> Resp {
        self.send("POST", path, w, &[], Some(Vec::new()))
    }
}

/// webob's plain error body: title, explanation, detail.
fn webob(code: &str, explanation: &str, detail: &str) -> String {
    format!("{code}\n\n{explanation}\n\n{detail}  ")
}

// ---------------------------------------------------------------- catalog

const T0: &str = "2020-01-01T00:00:01.500000";

/// A catalog row as the unit tests' `package_upload` writes it, with the
/// test package's metadata; `n` orders creation times.
fn package_row(id: &str, fqn: &str, name: &str, owner: &str, public: bool, n: u32) -> Value {
    let t = format!("2020-01-01T00:00:{:02}.500000", 10 + n);
    json!({
        "id": id, "archive": {"$hex": hex(b"PK fake archive")},
        "author": "Test runner", "created": t, "updated": t,
        "description": "Test V1 Application", "enabled": true,
        "fully_qualified_name": fqn, "is_public": public,
        "logo": {"$hex": hex(b"logo")}, "name": name, "owner_id": owner,
        "supplier": {"Name": "Supplier Name"},
        "supplier_logo": {"$hex": hex(b"slogo")}, "type": "Application",
        "ui_definition": null,
    })
}

fn add_package(s: &Server, row: Value, classes: &[&str], categories: &[&str]) {
    let id = row["id"].as_str().unwrap().to_owned();
    s.insert("package", row);
    for (i, c) in classes.iter().enumerate() {
        s.insert(
            "class_definition",
            json!({"id": format!("{id}c{i}"), "name": c, "package_id": id,
                   "created": T0, "updated": T0}),
        );
    }
    for c in categories {
        let cat = s
            .app
            .db()
            .select("category", &murano_api::store::key("name", *c), "")
            .unwrap();
        let cid = cat[0]["id"].clone();
        s.insert(
            "package_to_category",
            json!({"package_id": id, "category_id": cid}),
        );
    }
}

fn add_category_row(s: &Server, id: &str, name: &str, n: u32) {
    let t = format!("2020-01-01T00:00:{:02}.500000", n);
    s.insert(
        "category",
        json!({"id": id, "name": name, "created": t, "updated": t}),
    );
}

fn ids(v: &Value) -> Vec<String> {
    v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect()
}

const PKG_RULES: &[(&str, &str)] = &[("get_package", ""), ("manage_public_package", "")];

#[test]
fn packages_filtered_by_id() {
    let s = start();
    s.policy(PKG_RULES);
    add_package(
        &s,
        package_row("p1", "test.mpl.v1.app_1", "test.mpl.v1.app_1", "", true, 1),
        &["test.mpl.v1.app.Thing1"],
        &[],
    );
    add_package(
        &s,
        package_row("p2", "test.mpl.v1.app_2", "test.mpl.v1.app_2", "", true, 2),
        &["test.mpl.v1.app.Thing2"],
        &[],
    );
    let r = s.get("/catalog/packages?id=p1", &default_who());
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(ids(&v), ["p1"]);
    assert_eq!(
        v["packages"][0]["class_definitions"],
        json!(["test.mpl.v1.app.Thing1"])
    );
}

#[test]
fn packages_filtered_by_category_in() {
    let s = start();
    for (i, c) in ["cat1", "cat2", "cat3", "cat4"].iter().enumerate() {
        add_category_row(&s, &format!("c{i}"), c, i as u32 + 1);
    }
    s.policy(PKG_RULES);
    for (i, cats) in [["cat1", "cat2"], ["cat2", "cat3"], ["cat2", "cat4"]]
        .iter()
        .enumerate()
    {
        let n = i + 1;
        add_package(
            &s,
            package_row(
                &format!("p{n}"),
                &format!("fqn_{n}"),
                &format!("test.mpl.v1.app_{n}"),
                "",
                true,
                n as u32,
            ),
            &[],
            cats,
        );
    }
    let r = s.get(
        "/catalog/packages?category=in%3Acat1%2Ccat3",
        &default_who(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(ids(&r.json()), ["p1", "p2"]);
}

#[test]
fn packages_invalid_order_by_is_skipped() {
    let s = start();
    s.policy(PKG_RULES);
    let mut row = package_row("p1", "f1", "n1", "test_tenant", false, 1);
    row["type"] = json!("Library");
    add_package(&s, row, &[], &[]);
    for q in ["order_by=name", "order_by=TEST+ORDER+BY"] {
        let r = s.get(&format!("/catalog/packages?{q}"), &default_who());
        assert_eq!(r.status, 200, "{q}: {}", r.text());
        assert_eq!(ids(&r.json()), ["p1"], "{q}");
    }
    // With the invalid value dropped, the order is by id alone (not name).
    add_package(
        &s,
        package_row("p0", "f0", "n9", "test_tenant", false, 2),
        &[],
        &[],
    );
    let r = s.get("/catalog/packages", &default_who());
    assert_eq!(ids(&r.json()), ["p1", "p0"]);
    let r = s.get("/catalog/packages?order_by=TEST+ORDER+BY", &default_who());
    assert_eq!(ids(&r.json()), ["p0", "p1"]);
}

#[test]
fn packages_limit_gives_next_marker() {
    let s = start();
    s.policy(PKG_RULES);
    let mut row = package_row("p1", "f1", "n1", "test_tenant", false, 1);
    row["type"] = json!("Library");
    add_package(&s, row, &[], &[]);
    let r = s.get("/catalog/packages?limit=1", &default_who());
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["next_marker"], json!("p1"));
}

#[test]
fn packages_visibility_by_owner_public_and_admin() {
    let s = start();
    s.policy(PKG_RULES);
    let user = default_who();
    let admin = Who {
        admin: true,
        ..default_who()
    };
    let count = |w: &Who, q: &str| {
        let r = s.get(&format!("/catalog/packages{q}"), w);
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["packages"].as_array().unwrap().len()
    };
    assert_eq!(count(&user, ""), 0);
    for (i, owner) in ["test_tenant", "test_tenant", "other_tenant", "other_tenant"]
        .iter()
        .enumerate()
    {
        let id = format!("p{i}");
        add_package(
            &s,
            package_row(&id, &id, "pkg", owner, false, i as u32),
            &[],
            &[],
        );
    }
    assert_eq!(count(&user, ""), 2);
    assert_eq!(count(&user, "?catalog=True"), 2);
    assert_eq!(count(&admin, ""), 4);
    assert_eq!(count(&admin, "?catalog=True"), 2);
    add_package(
        &s,
        package_row("q1", "q1", "pkg", "test_tenant", true, 8),
        &[],
        &[],
    );
    add_package(
        &s,
        package_row("q2", "q2", "pkg", "other_tenant", true, 9),
        &[],
        &[],
    );
    assert_eq!(count(&user, ""), 4);
    assert_eq!(count(&user, "?catalog=True"), 4);
    assert_eq!(count(&admin, ""), 6);
    assert_eq!(count(&admin, "?catalog=True"), 4);
    // Same names: ordered by id.
    let r = s.get("/catalog/packages", &admin);
    assert_eq!(ids(&r.json()), ["p0", "p1", "p2", "p3", "q1", "q2"]);
}

fn patch_package(s: &Server, id: &str, ops: Value) -> Resp {
    s.send(
        "PATCH",
        &format!("/catalog/packages/{id}"),
        &default_who(),
        &[("Content-Type", "application/murano-packages-json-patch")],
        Some(ops.to_string().into_bytes()),
    )
}

#[test]
fn package_tags_added_private_and_public() {
    let s = start();
    s.policy(&[
        ("modify_package", ""),
        ("manage_public_package", ""),
        ("publicize_package", ""),
    ]);
    add_package(
        &s,
        package_row("p1", "f1", "n", "test_tenant", false, 1),
        &[],
        &[],
    );
    add_package(
        &s,
        package_row("p2", "f2", "n", "test_tenant", true, 2),
        &[],
        &[],
    );
    for id in ["p1", "p2"] {
        let r = patch_package(
            &s,
            id,
            json!([{"op": "add", "path": "/tags", "value": ["foo", "bar"]}]),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let mut tags: Vec<String> = serde_json::from_value(r.json()["tags"].clone()).unwrap();
        tags.sort();
        assert_eq!(tags, ["bar", "foo"]);
    }
    // Without `manage_public_package` the public package is not editable.
    s.policy(&[("modify_package", "")]);
    let r = patch_package(
        &s,
        "p2",
        json!([{"op": "add", "path": "/tags", "value": ["x"]}]),
    );
    assert_eq!(r.status, 403);
}

#[test]
fn package_made_public() {
    let s = start();
    s.policy(&[
        ("modify_package", ""),
        ("manage_public_package", ""),
        ("publicize_package", ""),
    ]);
    add_package(
        &s,
        package_row("p1", "f1", "n", "test_tenant", false, 1),
        &[],
        &[],
    );
    let r = patch_package(
        &s,
        "p1",
        json!([{"op": "replace", "path": "/is_public", "value": true}]),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["is_public"], json!(true));
    // `publicize_package` is what allows it.
    s.policy(&[("modify_package", ""), ("manage_public_package", "")]);
    add_package(
        &s,
        package_row("p2", "f2", "n", "test_tenant", false, 2),
        &[],
        &[],
    );
    let r = patch_package(
        &s,
        "p2",
        json!([{"op": "replace", "path": "/is_public", "value": true}]),
    );
    assert_eq!(r.status, 403);
}

#[test]
fn package_download_and_ui_with_their_accept() {
    let s = start();
    s.policy(&[("download_package", "@"), ("get_package", "@")]);
    add_package(&s, package_row("p1", "f1", "n", "", true, 1), &[], &[]);
    let r = s.send(
        "GET",
        "/catalog/packages/p1/download",
        &default_who(),
        &[("Accept", "application/octet-stream")],
        None,
    );
    assert_eq!(
        (r.status, r.ctype.as_str()),
        (200, "application/octet-stream")
    );
    assert_eq!(r.body, b"PK fake archive");
    // A package without a UI definition: 200 and an empty text body.
    let r = s.send(
        "GET",
        "/catalog/packages/p1/ui",
        &default_who(),
        &[("Accept", "text/plain")],
        None,
    );
    assert_eq!(
        (r.status, r.ctype.as_str()),
        (200, "text/plain"),
        "{}",
        r.text()
    );
    assert_eq!(r.text(), "");
}

#[test]
fn category_added_listed_and_refused() {
    let s = start();
    s.policy(&[("add_category", "@")]);
    let r = s.post(
        "/catalog/categories",
        &default_who(),
        json!({"name": "new_category"}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let mut keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["created", "id", "name", "package_count", "updated"]);
    assert_eq!(
        (&v["name"], &v["package_count"]),
        (&json!("new_category"), &json!(0))
    );
    assert_eq!(v["created"].as_str().unwrap().len(), 19);

    let r = s.post("/catalog/categories", &default_who(), json!({"name": ""}));
    assert_eq!(r.status, 400);
    assert_eq!(
        r.text(),
        webob(
            "400 Bad Request",
            "Please, specify a name of the category to create",
            " "
        )
    );

    s.policy(&[("add_category", "role:context_admin")]);
    let r = s.post(
        "/catalog/categories",
        &default_who(),
        json!({"name": "other"}),
    );
    assert_eq!(r.status, 403);
    assert_eq!(
        r.text(),
        webob("403 Forbidden", "Access was denied to this resource.", " ")
    );
}

#[test]
fn categories_sorted() {
    let s = start();
    add_category_row(&s, "b", "cat1", 1);
    add_category_row(&s, "a", "cat2", 2);
    s.policy(&[("get_category", "@")]);
    let names = |q: &str| -> Vec<String> {
        let r = s.get(&format!("/catalog/categories{q}"), &default_who());
        assert_eq!(r.status, 200, "{q}: {}", r.text());
        r.json()["categories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(""), ["cat1", "cat2"]);
    assert_eq!(names("?sort_keys=created%2C++id"), ["cat1", "cat2"]);
    assert_eq!(names("?sort_dir=desc"), ["cat2", "cat1"]);
    // Times within one second still order (the rendered ones do not).
    let s = start();
    for (id, name, t) in [("z", "cat1", "01.100000"), ("y", "cat2", "01.200000")] {
        let t = format!("2020-01-01T00:00:{t}");
        s.insert(
            "category",
            json!({"id": id, "name": name, "created": t, "updated": t}),
        );
    }
    s.policy(&[("get_category", "@")]);
    let r = s.get(
        "/catalog/categories?sort_keys=created%2C++id",
        &default_who(),
    );
    let v = r.json();
    let got: Vec<&str> = v["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(got, ["z", "y"]);
}

// ------------------------------------------------------------ deployments

#[test]
fn deployments_of_all_environments_are_the_tenants() {
    let s = start();
    s.policy(&[
        ("create_environment", "@"),
        ("list_deployments_all_environments", "@"),
    ]);
    let mut seen = Vec::new();
    for (n, w) in [
        who("test_user_1", "test_tenant_1"),
        who("test_user_2", "test_tenant_2"),
    ]
    .iter()
    .enumerate()
    {
        let r = s.post(
            "/environments",
            w,
            json!({"name": format!("test_environment_{n}")}),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let env = r.json();
        assert_eq!(env["tenant_id"], json!(w.tenant));
        let env_id = env["id"].as_str().unwrap().to_owned();
        let r = s.post_empty(&format!("/environments/{env_id}/configure"), w);
        assert_eq!(r.status, 200, "{}", r.text());
        let sid = r.json()["id"].as_str().unwrap().to_owned();
        let r = s.post_empty(&format!("/environments/{env_id}/sessions/{sid}/deploy"), w);
        assert_eq!((r.status, r.text().as_str()), (200, ""));
        assert_eq!(s.engine.tasks.lock().unwrap().len(), n + 1);
        let r = s.get("/deployments", w);
        assert_eq!(r.status, 200, "{}", r.text());
        let deps = r.json()["deployments"].as_array().unwrap().clone();
        assert_eq!(deps.len(), 1);
        let d = &deps[0];
        assert_eq!(d["environment_id"], json!(env_id));
        let mut keys: Vec<&String> = d.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "action",
                "created",
                "description",
                "environment_id",
                "finished",
                "id",
                "result",
                "started",
                "state",
                "updated"
            ]
        );
        assert_eq!(
            d["action"],
            json!({"object_id": env_id, "method": "deploy", "args": {}})
        );
        assert_eq!(
            (&d["finished"], &d["result"], &d["state"]),
            (&Value::Null, &json!({}), &json!("running"))
        );
        let desc = &d["description"];
        assert_eq!(
            desc["?"],
            json!({"id": env_id, "type": "io.murano.Environment", "metadata": {}})
        );
        assert_eq!(desc["services"], json!([]));
        assert!(desc.get("applications").is_none() && desc.get("Objects").is_none());
        let task = s.engine.tasks.lock().unwrap()[n].clone();
        assert_eq!(task["action"], d["action"]);
        assert_eq!(
            (&task["project_id"], &task["user_id"], &task["token"]),
            (&json!(w.tenant), &json!(w.user), &Value::Null)
        );
        seen.push(deps[0]["id"].clone());
    }
    assert_ne!(seen[0], seen[1]);
}

#[test]
fn deployment_statuses_of_an_unknown_deployment() {
    let s = start();
    s.policy(&[("create_environment", "@"), ("statuses_deployments", "@")]);
    let w = who("test_user_1", "test_tenant_1");
    let r = s.post("/environments", &w, json!({"name": "test_environment_1"}));
    let env_id = r.json()["id"].as_str().unwrap().to_owned();
    let r = s.get(&format!("/environments/{env_id}/deployments/1"), &w);
    assert_eq!(r.status, 404);
    assert_eq!(
        r.text(),
        webob("404 Not Found", "The resource could not be found.", " ")
    );
}

// -------------------------------------------------------------- templates

#[test]
fn template_created_listed_and_shown() {
    let s = start();
    s.policy(&[
        ("list_env_templates", "@"),
        ("create_env_template", "@"),
        ("show_env_template", "@"),
    ]);
    let r = s.post(
        "/templates",
        &default_who(),
        json!({"name": "mytemp", "description_text": "description"}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let mut created = r.json();
    let id = created["id"].as_str().unwrap().to_owned();
    for (k, v) in [
        ("tenant_id", json!("test_tenant")),
        ("is_public", json!(false)),
        ("name", json!("mytemp")),
        ("description_text", json!("description")),
        ("version", json!(0)),
    ] {
        assert_eq!(created[k], v, "{k}");
    }
    assert_eq!(created.as_object().unwrap().len(), 8, "{created}");
    let r = s.get("/templates", &default_who());
    assert_eq!(r.json(), json!({"templates": [created.clone()]}));
    created["services"] = json!([]);
    let r = s.get(&format!("/templates/{id}"), &default_who());
    assert_eq!(r.json(), created);
}

#[test]
fn applications_added_to_a_template() {
    let s = start();
    s.policy(&[("create_env_template", "@"), ("add_application", "@")]);
    let r = s.post(
        "/templates",
        &default_who(),
        json!({"name": "template_name"}),
    );
    assert_eq!(r.status, 200);
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let first = json!([{
        "instance": {"assignFloatingIp": "true", "keyname": "k", "image": "i",
                     "flavor": "m1.medium",
                     "?": {"type": "io.murano.resources.Linux", "id": "inst-1"}},
        "name": "orion", "port": "8080",
        "?": {"type": "io.murano.apps.apache.Tomcat", "id": "app-1"}}]);
    let path = format!("/templates/{id}/services");
    let r = s.post(&path, &default_who(), first.clone());
    assert_eq!((r.status, r.json()), (200, first.clone()));
    let r = s.get(&path, &default_who());
    assert_eq!((r.status, r.json()), (200, first.clone()));
    let second = json!([{"instance": "inst-1", "name": "tomcat", "port": "8080",
        "?": {"type": "io.murano.apps.apache.Tomcat", "id": "app-1"}}]);
    let r = s.post(&path, &default_who(), second.clone());
    assert_eq!((r.status, r.json()), (200, second.clone()));
    let r = s.get(&path, &default_who());
    assert_eq!(
        (r.status, r.json()),
        (200, json!([first[0].clone(), second[0].clone()]))
    );
}

#[test]
fn environment_from_a_template_without_services() {
    let s = start();
    s.policy(&[("create_env_template", "@"), ("create_environment", "@")]);
    let r = s.post("/templates", &default_who(), json!({"name": "name"}));
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let r = s.post(
        &format!("/templates/{id}/create-environment"),
        &default_who(),
        json!({"name": "my_template"}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v.as_object().unwrap().len(), 2);
    let env = v["environment_id"].as_str().unwrap();
    let sid = v["session_id"].as_str().unwrap();
    let db = s.app.db();
    assert!(db.get("environment", env).unwrap().is_some());
    let sess = db.get("session", sid).unwrap().unwrap();
    assert_eq!(sess["environment_id"], json!(env));
    assert!(s.engine.tasks.lock().unwrap().is_empty());
}

#[test]
fn template_missing_service_or_template() {
    let s = start();
    s.policy(&[
        ("create_env_template", "@"),
        ("delete_env_application", "@"),
        ("create_environment", "@"),
    ]);
    let r = s.post(
        "/templates",
        &default_who(),
        json!({"name": "mytemplate", "services": [
            {"name": "tomcat", "port": "8080",
             "?": {"type": "io.murano.apps.apache.Tomcat", "id": "ID1"}}]}),
    );
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["services"].as_array().unwrap().len(), 1);
    let id = v["id"].as_str().unwrap().to_owned();
    let r = s.send(
        "DELETE",
        &format!("/templates/{id}/services/NO_EXIST"),
        &default_who(),
        &[],
        None,
    );
    assert_eq!(r.status, 404);
    assert_eq!(
        r.text(),
        webob(
            "404 Not Found",
            "The resource could not be found.",
            &format!(" The template does not exist {id}")
        )
    );
    let r = s.post(
        "/templates/noexisting/create-environment",
        &default_who(),
        json!({"name": "test"}),
    );
    assert_eq!(r.status, 404);
    assert_eq!(
        r.text(),
        webob("404 Not Found", "EnvTemplate  is not found", " ")
    );
}

// ----------------------------------------------------------- environments

#[test]
fn no_environments_listed() {
    let s = start();
    s.policy(&[("list_environments", "@")]);
    let r = s.get("/environments", &default_who());
    assert_eq!((r.status, r.json()), (200, json!({"environments": []})));
}

#[test]
fn last_status_within_a_session() {
    let s = start();
    s.policy(&[("create_environment", "@")]);
    let w = who("test_user_1", "test_tenant_1");
    let r = s.post("/environments", &w, json!({"name": "test_environment_1"}));
    let env_id = r.json()["id"].as_str().unwrap().to_owned();
    let r = s.post_empty(&format!("/environments/{env_id}/configure"), &w);
    let sid = r.json()["id"].as_str().unwrap().to_owned();
    let w = Who {
        session: Some(sid),
        ..w
    };
    let r = s.get(&format!("/environments/{env_id}/lastStatus"), &w);
    assert_eq!((r.status, r.json()), (200, json!({"lastStatuses": {}})));
}

/// The unit tests' `_create_env_and_session`: environment `123` (a model
/// with only its id) and a session opened on it.
fn env_and_session(s: &Server) -> String {
    // Opening a session checks no policy rule.
    s.policy(&[("show_environment", "@"), ("update_environment", "@")]);
    s.insert(
        "environment",
        json!({"id": "123", "name": "my-env", "tenant_id": "test_tenant",
               "version": 0, "description_text": "", "created": T0, "updated": T0,
               "description": {"Objects": {"?": {"id": "123"}}, "Attributes": {}}}),
    );
    let r = s.post_empty("/environments/123/configure", &default_who());
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["id"].as_str().unwrap().to_owned()
}

fn patch_model(s: &Server, sid: &str, ops: Value) -> Resp {
    let w = Who {
        session: Some(sid.to_owned()),
        ..default_who()
    };
    s.send(
        "PATCH",
        "/environments/123/model/",
        &w,
        &[("Content-Type", "application/env-model-json-patch")],
        Some(ops.to_string().into_bytes()),
    )
}

#[test]
fn model_read_and_patched_in_a_session() {
    let s = start();
    let sid = env_and_session(&s);
    let r = s.get("/environments/123/model/", &default_who());
    assert_eq!((r.status, r.json()), (200, json!({"?": {"id": "123"}})));
    let r = patch_model(
        &s,
        &sid,
        json!([{"op": "add", "path": "/?/name", "value": "my_env"}]),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["?"], json!({"id": "123", "name": "my_env"}));
    let in_session = Who {
        session: Some(sid),
        ..default_who()
    };
    let r = s.get("/environments/123/model//%3F", &in_session);
    assert_eq!(
        (r.status, r.json()),
        (200, json!({"id": "123", "name": "my_env"}))
    );
    let r = s.get("/environments/123/model//%3F", &default_who());
    assert_eq!((r.status, r.json()), (200, json!({"id": "123"})));
}

#[test]
fn model_patch_errors() {
    let s = start();
    let sid = env_and_session(&s);
    let r = patch_model(&s, &sid, json!(["foo"]));
    assert_eq!(r.status, 400);
    assert_eq!(
        r.text(),
        webob("400 Bad Request", "Operations must be JSON objects.", " ")
    );
    let r = patch_model(
        &s,
        &sid,
        json!([{"op": "add", "path": "/?/id", "value": "foo"}]),
    );
    assert_eq!(r.status, 403);
    assert_eq!(
        r.text(),
        webob(
            "403 Forbidden",
            "Method 'add' is not allowed for a path with name '?/id'. Allowed operations are: no operations",
            " "
        )
    );
    let r = patch_model(
        &s,
        &sid,
        json!([{"op": "add", "path": "/?/name", "value": 111}]),
    );
    assert_eq!(r.status, 400);
    assert_eq!(
        r.text(),
        webob("400 Bad Request", "111 is not of type 'string'", " ")
    );
}

// ------------------------------------------------------------- statistics

#[test]
fn instance_statistics_of_unknown_environment_are_empty() {
    let s = start();
    s.policy(&[("get_aggregated_statistics", "@")]);
    let r = s.get(
        "/environments/12344/instance-statistics/aggregated",
        &default_who(),
    );
    assert_eq!((r.status, r.json()), (200, json!([])));
    s.policy(&[("get_instance_statistics", "@")]);
    let r = s.get(
        "/environments/12345/instance-statistics/raw/12",
        &default_who(),
    );
    assert_eq!((r.status, r.json()), (200, json!([])));
}

// ------------------------------------------- error mappings (mocked tests)

#[test]
fn package_filter_with_unbalanced_quotes_is_skipped() {
    let s = start();
    s.policy(PKG_RULES);
    add_package(
        &s,
        package_row("p1", "f1", "n1", "test_tenant", false, 1),
        &[],
        &[],
    );
    // Valid quoting filters (no package has these tags) ...
    let r = s.get("/catalog/packages?tag=in%3Atag1%2Ctag3", &default_who());
    assert_eq!(ids(&r.json()), Vec::<String>::new());
    // ... an unclosed quote makes Murano skip the filter.
    let r = s.get("/catalog/packages?tag=in%3A%22tag1%2Ctag3", &default_who());
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(ids(&r.json()), ["p1"]);
}

#[test]
fn template_names_are_unique_per_tenant() {
    let s = start();
    s.policy(&[("create_env_template", "@"), ("clone_env_template", "@")]);
    let body = json!({"name": "mytemp", "description_text": "description"});
    assert_eq!(
        s.post("/templates", &default_who(), body.clone()).status,
        200
    );
    let r = s.post("/templates", &default_who(), body.clone());
    assert_eq!(r.status, 409);
    assert_eq!(
        r.text(),
        webob(
            "409 Conflict",
            "There was a conflict when trying to complete your request.",
            " Env Template with specified name already exists"
        )
    );
    // Another tenant may use the name.
    assert_eq!(s.post("/templates", &who("u2", "t2"), body).status, 200);
    let r = s.post(
        "/templates",
        &default_who(),
        json!({"name": "pub", "is_public": true}),
    );
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let r = s.post(
        &format!("/templates/{id}/clone"),
        &default_who(),
        json!({"name": "mytemp"}),
    );
    assert_eq!(r.status, 409);
    assert_eq!(
        r.text(),
        webob(
            "409 Conflict",
            "Env template with specified name already exists",
            " "
        )
    );
}

/// Environment `e1` of `test_tenant` (version `version`) with session `s1`
/// of `test_user` in `state`, opened against version 0.
fn env_with_session(s: &Server, version: i64, state: &str) {
    s.insert(
        "environment",
        json!({"id": "e1", "name": "env", "tenant_id": "test_tenant",
               "version": version, "description_text": "", "created": T0, "updated": T0,
               "description": {"Objects": {"?": {"id": "e1"}}, "Attributes": []}}),
    );
    s.insert(
        "session",
        json!({"id": "s1", "environment_id": "e1", "user_id": "test_user",
               "state": state, "version": 0, "description": null,
               "created": T0, "updated": T0}),
    );
}

#[test]
fn session_refusals() {
    // Sessions check no policy rule: every rule stays denied.
    for state in ["deploying", "deleting"] {
        let s = start();
        env_with_session(&s, 0, state);
        let r = s.post_empty("/environments/e1/configure", &default_who());
        assert_eq!(r.status, 403, "{state}");
        assert_eq!(
            r.text(),
            webob(
                "403 Forbidden",
                // webob strips `<...>` (the id) from plain-text bodies.
                "Could not open session for environment , environment has deploying or deleting status.",
                " "
            )
        );
    }
    // A session the environment has moved past (deployed since).
    let s = start();
    env_with_session(&s, 1, "opened");
    let r = s.get("/environments/e1/sessions/s1", &default_who());
    assert_eq!(r.status, 403);
    assert_eq!(
        r.text(),
        webob(
            "403 Forbidden",
            "Session  is invalid: environment has been updated or updating right now with other session",
            " "
        )
    );
    let s = start();
    env_with_session(&s, 0, "deploying");
    let r = s.send(
        "DELETE",
        "/environments/e1/sessions/s1",
        &default_who(),
        &[],
        None,
    );
    assert_eq!(r.status, 403);
    assert_eq!(
        r.text(),
        webob(
            "403 Forbidden",
            "Session  is in deploying state and could not be deleted",
            " "
        )
    );
}

#[test]
fn services_replaced_whole_in_a_session() {
    let s = start();
    s.policy(&[("create_environment", "@")]);
    let w = who("test_user_1", "test_tenant_1");
    let r = s.post("/environments", &w, json!({"name": "test_environment_1"}));
    let env_id = r.json()["id"].as_str().unwrap().to_owned();
    let r = s.post_empty(&format!("/environments/{env_id}/configure"), &w);
    let w = Who {
        session: Some(r.json()["id"].as_str().unwrap().to_owned()),
        ..w
    };
    let path = format!("/environments/{env_id}/services");
    let app = json!([{"?": {"id": "a1", "type": "x"}, "name": "n"}]);
    for body in [json!([]), json!("test service"), app] {
        let r = s.send("PUT", &path, &w, &[], Some(body.to_string().into_bytes()));
        assert_eq!((r.status, r.json()), (200, body));
    }
    let r = s.get(&path, &w);
    assert_eq!(
        (r.status, r.json()),
        (
            200,
            json!([{"?": {"id": "a1", "type": "x", "status": "pending"}, "name": "n"}])
        )
    );
    // No body: the services become an empty list.
    let r = s.send("PUT", &path, &w, &[], Some(Vec::new()));
    assert_eq!((r.status, r.json()), (200, json!([])));
}
