//! `murano serve` with its engine: a whole environment lifecycle over
//! HTTP as a Murano client drives it (package upload, environment,
//! session, application, deploy, reports, an action, static actions, a
//! schema, a redeploy, deletion), and a server killed during a deployment
//! and restarted (that deployment failed, nothing else lost).

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{core_library, examples, murano, Scratch};
use serde_json::{json, Value};

/// A served `murano serve`, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(db: &Path, core: &Path, extra: &[&str]) -> Server {
    let mut child = murano()
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(db)
        .arg("--catalog")
        .arg(core)
        .args(extra)
        .env_remove("MURANO_CATALOG")
        .env_remove("MURANO_API_TOKEN")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut url = None;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(u) = line.split_whitespace().find(|w| w.starts_with("http://")) {
            // It prints the API's root, `http://ADDR/v1`.
            let root = u.trim_end_matches('/');
            url = Some(root.trim_end_matches("/v1").to_owned());
            break;
        }
    }
    // Keep reading so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Server {
        child,
        url: url.expect("the server prints its address"),
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// One request as tenant `p1`, user `u1`: (status, body as JSON or as a
/// string).
fn call(
    srv: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Vec<u8>>,
) -> (u16, Value) {
    call_as(srv, "p1", method, path, headers, body)
}

/// [`call`] as tenant `tenant`.
fn call_as(
    srv: &Server,
    tenant: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Vec<u8>>,
) -> (u16, Value) {
    let mut b = ureq::http::Request::builder()
        .method(method)
        .uri(format!("{}{path}", srv.url))
        .header("X-Project-Id", tenant)
        .header("X-User-Id", "u1");
    let json_body = body.is_some() && !headers.iter().any(|(k, _)| *k == "Content-Type");
    if json_body {
        b = b.header("Content-Type", "application/json");
    }
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let req = b.body(body.unwrap_or_default()).unwrap();
    let mut resp = agent().run(req).unwrap();
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap_or_default();
    let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, value)
}

fn ok(
    srv: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> Value {
    let (status, v) = call(
        srv,
        method,
        path,
        headers,
        body.map(|b| b.to_string().into_bytes()),
    );
    assert_eq!(status, 200, "{method} {path}: {v}");
    v
}

/// `murano package DIR -o ZIP`.
fn zip(scratch: &Scratch, dir: &Path) -> PathBuf {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let out = scratch.path(&format!("{name}.zip"));
    let st = murano()
        .arg("package")
        .arg(dir)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    out
}

/// Upload a package zip as python-muranoclient does (multipart: the JSON
/// `__metadata__` part and the file); its id.
fn upload(srv: &Server, zip: &Path) -> String {
    let bytes = std::fs::read(zip).unwrap();
    let mut body = Vec::new();
    body.extend_from_slice(
        b"--BOUNDARY\r\nContent-Disposition: form-data; name=\"__metadata__\"\r\n\r\n{\"is_public\": false}\r\n--BOUNDARY\r\nContent-Disposition: form-data; name=\"pkg\"; filename=\"pkg.zip\"\r\nContent-Type: application/octet-stream\r\n\r\n",
    );
    body.extend_from_slice(&bytes);
    body.extend_from_slice(b"\r\n--BOUNDARY--\r\n");
    let (status, v) = call(
        srv,
        "POST",
        "/v1/catalog/packages",
        &[("Content-Type", "multipart/form-data; boundary=BOUNDARY")],
        Some(body),
    );
    assert_eq!(status, 200, "{v}");
    v["id"].as_str().unwrap().to_owned()
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn deployments(srv: &Server, env: &str) -> Vec<Value> {
    ok(
        srv,
        "GET",
        &format!("/v1/environments/{env}/deployments"),
        &[],
        None,
    )["deployments"]
        .as_array()
        .unwrap()
        .clone()
}

/// Waits until the environment's newest deployment is no longer running;
/// that deployment.
fn wait_deployed(srv: &Server, env: &str, count: usize) -> Value {
    let mut last = Value::Null;
    wait_for("the deployment", || {
        let deps = deployments(srv, env);
        last = deps.first().cloned().unwrap_or(Value::Null);
        deps.len() == count
            && !last["state"]
                .as_str()
                .unwrap_or("running")
                .starts_with("running")
    });
    last
}

fn reports(srv: &Server, env: &str, dep: &str) -> Vec<String> {
    ok(
        srv,
        "GET",
        &format!("/v1/environments/{env}/deployments/{dep}"),
        &[],
        None,
    )["reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap_or("").to_owned())
        .collect()
}

fn session(srv: &Server, env: &str) -> String {
    ok(
        srv,
        "POST",
        &format!("/v1/environments/{env}/configure"),
        &[],
        None,
    )["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn instance(id: &str) -> Value {
    json!({"?": {"type": "io.murano.resources.LinuxMuranoInstance", "id": id},
           "name": "vm", "flavor": "m1.small", "image": "img-ubuntu", "keyname": "k",
           "assignFloatingIp": false, "availabilityZone": "nova"})
}

#[test]
fn a_client_lives_a_whole_environment_lifecycle_over_http() {
    let Some(core) = core_library() else { return };
    let scratch = Scratch::new("serve-engine-lifecycle");
    let packages = examples().join("packages");
    let zips: Vec<PathBuf> = ["notes-db", "greetings", "shop"]
        .iter()
        .map(|p| zip(&scratch, &packages.join(p)))
        .collect();
    // The offline cloud answers from the cloud description.
    let cloud = scratch.write("cloud.yaml", "host:\n  fixed_ip: 192.0.2.7\n");
    let srv = start(
        &scratch.path("api.db"),
        &core,
        &["--cloud", cloud.to_str().unwrap(), "--workers", "1"],
    );
    for z in &zips {
        upload(&srv, z);
    }
    let listed = ok(&srv, "GET", "/v1/catalog/packages", &[], None);
    assert_eq!(listed["packages"].as_array().unwrap().len(), 3, "{listed}");

    let env = ok(
        &srv,
        "POST",
        "/v1/environments",
        &[],
        Some(json!({"name": "notes"})),
    );
    let env = env["id"].as_str().unwrap().to_owned();
    let sid = session(&srv, &env);
    let app_id = "a0000000000000000000000000000001";
    let app = json!({"?": {"type": "com.example.NotesDb", "id": app_id},
                     "name": "notes-db", "instance": instance("b0000000000000000000000000000001")});
    let session_header = [("X-Configuration-Session", sid.as_str())];
    ok(
        &srv,
        "POST",
        &format!("/v1/environments/{env}/services"),
        &session_header,
        Some(app),
    );
    ok(
        &srv,
        "POST",
        &format!("/v1/environments/{env}/sessions/{sid}/deploy"),
        &[],
        None,
    );

    // The first deployment: success, its reports as the engine made them.
    let dep = wait_deployed(&srv, &env, 1);
    assert_eq!(dep["state"], "success", "{dep}");
    assert_eq!(dep["action"]["method"], "deploy");
    let dep_id = dep["id"].as_str().unwrap();
    let texts = reports(&srv, &env, dep_id);
    assert_eq!(
        texts.first().map(String::as_str),
        Some("Action deploy is scheduled"),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"Database notes-db is up at 192.0.2.7".to_owned()),
        "{texts:?}"
    );
    assert_eq!(
        texts.last().map(String::as_str),
        Some("Deployment finished")
    );

    // The deployed object model: the application with its action.
    let shown = ok(&srv, "GET", &format!("/v1/environments/{env}"), &[], None);
    assert_eq!(shown["status"], "ready", "{shown}");
    let services = shown["services"].as_array().unwrap();
    assert_eq!(services.len(), 1, "{shown}");
    assert_eq!(services[0]["?"]["id"], app_id);
    assert_eq!(services[0]["name"], "notes-db");
    assert_eq!(services[0]["backups"], 0);
    assert_eq!(services[0]["instance"]["ipAddresses"], json!(["192.0.2.7"]));
    // The engine's instance notifications are Murano's statistics.
    let stats = ok(
        &srv,
        "GET",
        &format!("/v1/environments/{env}/instance-statistics/raw"),
        &[],
        None,
    );
    assert_eq!(stats.as_array().map(Vec::len), Some(1), "{stats}");
    assert_eq!(stats[0]["active"], true, "{stats}");
    assert_eq!(
        stats[0]["type_name"], "io.murano.resources.LinuxMuranoInstance",
        "{stats}"
    );
    let actions = services[0]["?"]["_actions"].as_object().unwrap();
    let (action_id, _) = actions
        .iter()
        .find(|(_, a)| a["name"] == "backup")
        .unwrap_or_else(|| panic!("no backup action in {actions:?}"));

    // The action: a task id, then its result.
    let task = ok(
        &srv,
        "POST",
        &format!("/v1/environments/{env}/actions/{action_id}"),
        &[],
        Some(json!({})),
    );
    let task_id = task["task_id"].as_str().unwrap().to_owned();
    let mut result = Value::Null;
    wait_for("the action's result", || {
        result = ok(
            &srv,
            "GET",
            &format!("/v1/environments/{env}/actions/{task_id}"),
            &[],
            None,
        );
        result.get("isException").is_some()
    });
    assert_eq!(result, json!({"isException": false, "result": 1}));
    let dep = wait_deployed(&srv, &env, 2);
    assert_eq!(dep["state"], "success", "{dep}");
    let texts = reports(&srv, &env, dep["id"].as_str().unwrap());
    assert!(
        texts.contains(&"Backup 1 of notes-db done".to_owned()),
        "{texts:?}"
    );
    let shown = ok(&srv, "GET", &format!("/v1/environments/{env}"), &[], None);
    assert_eq!(shown["services"][0]["backups"], 1, "{shown}");

    // Static actions: a public static method runs; a method that is not
    // public is not found (404), as are unknown classes.
    let called = ok(
        &srv,
        "POST",
        "/v1/actions",
        &[],
        Some(
            json!({"className": "com.example.Shop", "methodName": "fromCatalogue",
                    "parameters": {"model": {"name": "x"}, "catalogue": "books", "size": 2}}),
        ),
    );
    assert_eq!(called, json!({"name": "books", "port": 8002}));
    for (class, method) in [
        ("com.example.Greeter", "farewell"),
        ("com.example.Nope", "m"),
    ] {
        let body = json!({"className": class, "methodName": method, "parameters": {"name": "x"}});
        let (status, v) = call(
            &srv,
            "POST",
            "/v1/actions",
            &[],
            Some(body.to_string().into_bytes()),
        );
        assert_eq!(status, 404, "{class}.{method}: {v}");
    }

    // Arguments breaking the method's contract: 400.
    let body = json!({"className": "com.example.Shop", "methodName": "fromCatalogue",
                      "parameters": {"model": {}, "catalogue": "books", "size": 0}});
    let (status, v) = call(
        &srv,
        "POST",
        "/v1/actions",
        &[],
        Some(body.to_string().into_bytes()),
    );
    assert_eq!(status, 400, "{v}");

    // Another tenant's engine does not see these private packages.
    let body = json!({"className": "com.example.Shop", "methodName": "fromCatalogue",
                      "parameters": {"model": {}, "catalogue": "books"}});
    let (status, v) = call_as(
        &srv,
        "p2",
        "POST",
        "/v1/actions",
        &[],
        Some(body.to_string().into_bytes()),
    );
    assert_eq!(status, 404, "{v}");
    let (status, v) = call_as(&srv, "p2", "GET", "/v1/schemas/com.example.Shop", &[], None);
    assert_eq!(status, 404, "{v}");

    // A class schema and a model builder's.
    let schema = ok(&srv, "GET", "/v1/schemas/com.example.Shop", &[], None);
    assert_eq!(schema[""]["type"], "object", "{schema}");
    assert!(schema[""]["properties"]["port"].is_object(), "{schema}");
    assert!(schema["fromCatalogue"].is_object(), "{schema}");
    let one = ok(
        &srv,
        "GET",
        "/v1/schemas/com.example.Shop/fromCatalogue",
        &[],
        None,
    );
    assert!(
        one["fromCatalogue"]["properties"]["catalogue"].is_object(),
        "{one}"
    );
    let (status, _) = call(&srv, "GET", "/v1/schemas/com.example.Nope", &[], None);
    assert_eq!(status, 404);

    // The application removed and the environment redeployed.
    let sid = session(&srv, &env);
    let session_header = [("X-Configuration-Session", sid.as_str())];
    ok(
        &srv,
        "DELETE",
        &format!("/v1/environments/{env}/services/{app_id}"),
        &session_header,
        None,
    );
    ok(
        &srv,
        "POST",
        &format!("/v1/environments/{env}/sessions/{sid}/deploy"),
        &[],
        None,
    );
    let dep = wait_deployed(&srv, &env, 3);
    assert_eq!(dep["state"], "success", "{dep}");
    let shown = ok(&srv, "GET", &format!("/v1/environments/{env}"), &[], None);
    assert_eq!(shown["services"], json!([]), "{shown}");
    assert_eq!(shown["status"], "ready");
    let stats = ok(
        &srv,
        "GET",
        &format!("/v1/environments/{env}/instance-statistics/raw"),
        &[],
        None,
    );
    assert_eq!(stats[0]["active"], false, "{stats}");

    // Deletion: the engine's delete task, then the environment is gone.
    ok(
        &srv,
        "DELETE",
        &format!("/v1/environments/{env}"),
        &[],
        None,
    );
    wait_for("the environment's removal", || {
        call(&srv, "GET", &format!("/v1/environments/{env}"), &[], None).0 == 404
    });
    let envs = ok(&srv, "GET", "/v1/environments", &[], None);
    assert_eq!(envs["environments"], json!([]));
}

/// A package whose deployment reports `started`, then (when `forever`)
/// loops until it is stopped.
fn endless_package(scratch: &Scratch) -> PathBuf {
    scratch.write(
        "endless/manifest.yaml",
        "Format: MuranoPL/1.4\nType: Application\nFullName: io.example.Endless\nName: Endless\n\
         Description: Deploys until it is stopped.\n\
         Classes:\n  io.example.Endless: Endless.yaml\n",
    );
    scratch.write(
        "endless/Classes/Endless.yaml",
        "Namespaces:\n  =: io.example\n  std: io.murano\nName: Endless\nExtends: std:Application\n\
         Properties:\n  forever:\n    Contract: $.bool().notNull()\n\
         Methods:\n  deploy:\n    Body:\n\
         \x20     - $.find(std:Environment).reporter.report($this, 'started')\n\
         \x20     - $i: 0\n\
         \x20     - While: $.forever\n        Do:\n          - $i: $i + 1\n",
    );
    scratch.path("endless")
}

fn environment_with(srv: &Server, name: &str, forever: bool) -> String {
    let env = ok(
        srv,
        "POST",
        "/v1/environments",
        &[],
        Some(json!({"name": name})),
    );
    let env = env["id"].as_str().unwrap().to_owned();
    let sid = session(srv, &env);
    let app = json!({"?": {"type": "io.example.Endless", "id": format!("{:0>32}", name.len())},
                     "forever": forever});
    ok(
        srv,
        "POST",
        &format!("/v1/environments/{env}/services"),
        &[("X-Configuration-Session", sid.as_str())],
        Some(app),
    );
    ok(
        srv,
        "POST",
        &format!("/v1/environments/{env}/sessions/{sid}/deploy"),
        &[],
        None,
    );
    env
}

#[test]
fn a_server_killed_during_a_deployment_fails_it_and_loses_nothing_else() {
    let Some(core) = core_library() else { return };
    let scratch = Scratch::new("serve-engine-kill");
    let pkg = zip(&scratch, &endless_package(&scratch));
    let db = scratch.path("api.db");
    // Enough fuel that the endless deployment is still running when killed.
    let srv = start(&db, &core, &["--max-fuel", "1000000000000"]);
    let pkg_id = upload(&srv, &pkg);
    let quick = environment_with(&srv, "quick", false);
    assert_eq!(wait_deployed(&srv, &quick, 1)["state"], "success");
    let endless = environment_with(&srv, "endless", true);
    let dep_id = {
        let mut id = String::new();
        wait_for("the endless deployment to report", || {
            let deps = deployments(&srv, &endless);
            let Some(d) = deps.first() else { return false };
            id = d["id"].as_str().unwrap().to_owned();
            reports(&srv, &endless, &id).contains(&"started".to_owned())
        });
        id
    };
    assert_eq!(deployments(&srv, &endless)[0]["state"], "running");
    let quick_before = ok(&srv, "GET", &format!("/v1/environments/{quick}"), &[], None);
    drop(srv); // SIGKILL

    let srv = start(&db, &core, &[]);
    let deps = deployments(&srv, &endless);
    assert_eq!(deps.len(), 1);
    assert_eq!(deps[0]["id"], dep_id.as_str());
    assert_eq!(deps[0]["state"], "completed_w_errors", "{}", deps[0]);
    let texts = reports(&srv, &endless, &dep_id);
    assert!(texts.last().unwrap().contains("interrupted"), "{texts:?}");
    let shown = ok(
        &srv,
        "GET",
        &format!("/v1/environments/{endless}"),
        &[],
        None,
    );
    assert_eq!(shown["status"], "deploy failure", "{shown}");
    // Everything committed before is still there.
    let quick_after = ok(&srv, "GET", &format!("/v1/environments/{quick}"), &[], None);
    assert_eq!(quick_after, quick_before);
    assert_eq!(deployments(&srv, &quick)[0]["state"], "success");
    let pkg_shown = ok(
        &srv,
        "GET",
        &format!("/v1/catalog/packages/{pkg_id}"),
        &[],
        None,
    );
    assert_eq!(pkg_shown["fully_qualified_name"], "io.example.Endless");
    // The failed environment can be deployed again (this time it ends).
    let sid = session(&srv, &endless);
    // The interrupted model was never stored: the environment has no
    // application yet, and gets one that ends.
    let services = ok(
        &srv,
        "GET",
        &format!("/v1/environments/{endless}/services"),
        &[("X-Configuration-Session", sid.as_str())],
        None,
    );
    assert_eq!(services, json!([]));
    let app = json!({"?": {"type": "io.example.Endless", "id": "e0000000000000000000000000000001"},
                     "forever": false});
    ok(
        &srv,
        "POST",
        &format!("/v1/environments/{endless}/services"),
        &[("X-Configuration-Session", sid.as_str())],
        Some(app),
    );
    ok(
        &srv,
        "POST",
        &format!("/v1/environments/{endless}/sessions/{sid}/deploy"),
        &[],
        None,
    );
    assert_eq!(wait_deployed(&srv, &endless, 2)["state"], "success");
}

#[test]
fn pool_options_out_of_range_are_refused() {
    for (flag, value) in [
        ("--workers", "0"),
        ("--queue", "0"),
        ("--workers", "100000"),
    ] {
        let db = std::env::temp_dir().join(format!("murano-serve-opts-{}.db", std::process::id()));
        let out = murano()
            .args(["serve", "--listen", "127.0.0.1:0", "--db"])
            .arg(&db)
            .args([flag, value])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{flag} {value}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("must be between"), "{flag} {value}: {err}");
        assert!(!db.exists(), "the database was created");
    }
}
