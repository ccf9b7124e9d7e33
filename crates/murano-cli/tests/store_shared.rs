//! One store for `murano env`, `murano catalog` and `murano serve`: an
//! environment made and deployed with `murano env` is listed, shown and
//! has its deployments through the API served over the same file, and
//! one made and deployed through the API is listed, shown, deployed
//! again and deleted with `murano env`; packages imported either way are
//! in the one catalog. Needs Murano's core library (skips without it).

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{core_library, examples, murano, s, text, Scratch};
use serde_json::{json, Value};

/// The project and user of both sides: `murano env`'s through the cloud
/// description, the API's through the request headers.
const PROJECT: &str = "p-shared";
const USER: &str = "u-shared";

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

fn start(db: &Path, core: &Path, cloud: &Path, extra: &[&str]) -> Server {
    let mut child = murano()
        .args(["serve", "--listen", "127.0.0.1:0", "--workers", "1", "--db"])
        .arg(db)
        .arg("--catalog")
        .arg(core)
        .arg("--cloud")
        .arg(cloud)
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
            url = Some(u.trim_end_matches('/').trim_end_matches("/v1").to_owned());
            break;
        }
    }
    std::thread::spawn(move || for _ in lines {});
    Server {
        child,
        url: url.expect("the server prints its address"),
    }
}

/// One request as the shared project: (status, body as JSON).
fn call(
    srv: &Server,
    method: &str,
    path: &str,
    session: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut b = ureq::http::Request::builder()
        .method(method)
        .uri(format!("{}{path}", srv.url))
        .header("X-Project-Id", PROJECT)
        .header("X-User-Id", USER)
        .header("Content-Type", "application/json");
    if let Some(sid) = session {
        b = b.header("X-Configuration-Session", sid);
    }
    let body = body.map(|v| v.to_string().into_bytes()).unwrap_or_default();
    let mut resp = agent.run(b.body(body).unwrap()).unwrap();
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn ok(srv: &Server, method: &str, path: &str, session: Option<&str>, body: Option<Value>) -> Value {
    let (status, v) = call(srv, method, path, session, body);
    assert_eq!(status, 200, "{method} {path}: {v}");
    v
}

/// `murano args… --format json` on the store `db`, which must succeed;
/// its output.
fn cli(db: &Path, args: &[&str]) -> Value {
    let out = murano()
        .args(args)
        .args(["--format", "json"])
        .env("MURANO_DB", db)
        .env_remove("MURANO_CATALOG")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "murano {args:?}: {}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    serde_json::from_str(&text(&out.stdout)).unwrap()
}

/// `murano env args… --cloud cloud` (the shared project's).
fn env_cli(db: &Path, cloud: &Path, args: &[&str]) -> Value {
    let mut all = vec!["env"];
    all.extend_from_slice(args);
    all.extend(["--cloud", s(cloud)]);
    cli(db, &all)
}

fn instance(id: &str) -> Value {
    json!({"?": {"type": "io.murano.resources.LinuxMuranoInstance", "id": id},
           "name": "vm", "flavor": "m1.small", "image": "img-ubuntu", "keyname": "k",
           "assignFloatingIp": false, "availabilityZone": "nova"})
}

/// Uploads a package zip as python-muranoclient does (multipart: the
/// JSON `__metadata__` part and the file).
fn upload(srv: &Server, zip: &[u8]) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut body = b"--B\r\nContent-Disposition: form-data; name=\"__metadata__\"\r\n\r\n{}\r\n--B\r\nContent-Disposition: form-data; name=\"pkg\"; filename=\"pkg.zip\"\r\n\r\n".to_vec();
    body.extend_from_slice(zip);
    body.extend_from_slice(b"\r\n--B--\r\n");
    let req = ureq::http::Request::builder()
        .method("POST")
        .uri(format!("{}/v1/catalog/packages", srv.url))
        .header("X-Project-Id", PROJECT)
        .header("X-User-Id", USER)
        .header("Content-Type", "multipart/form-data; boundary=B")
        .body(body)
        .unwrap();
    let mut resp = agent.run(req).unwrap();
    let status = resp.status().as_u16();
    assert_eq!(
        status,
        200,
        "{}",
        resp.body_mut().read_to_string().unwrap_or_default()
    );
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn setup(
    name: &str,
) -> Option<(
    Scratch,
    std::path::PathBuf,
    std::path::PathBuf,
    std::path::PathBuf,
)> {
    let core = core_library()?;
    let scratch = Scratch::new(name);
    let db = scratch.path("murano.db");
    let cloud = scratch.write(
        "cloud.yaml",
        format!("host:\n  project_id: {PROJECT}\n  user_id: {USER}\n"),
    );
    let notes_db = examples().join("packages/notes-db");
    cli(&db, &["catalog", "import", s(&core), s(&notes_db)]);
    Some((scratch, db, cloud, core))
}

#[test]
fn an_environment_of_murano_env_is_served_by_the_api() {
    let Some((_scratch, db, cloud, core)) = setup("store-shared-cli") else {
        return;
    };
    let created = env_cli(&db, &cloud, &["create", "shop"]);
    let env = created["id"].as_str().unwrap().to_owned();
    let vm = format!("instance={}", instance("b0000000000000000000000000000001"));
    env_cli(
        &db,
        &cloud,
        &[
            "add",
            "shop",
            "com.example.NotesDb",
            "--set",
            "name=notes-db",
            "--set",
            &vm,
        ],
    );
    let deployed = env_cli(&db, &cloud, &["deploy", "shop"]);
    assert_eq!(deployed["status"], "Deployment finished", "{deployed}");

    let srv = start(&db, &core, &cloud, &[]);
    // The catalog `murano catalog import` filled is the API's.
    let packages = ok(&srv, "GET", "/v1/catalog/packages", None, None);
    let names: Vec<&str> = packages["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["fully_qualified_name"].as_str())
        .collect();
    assert!(names.contains(&"com.example.NotesDb"), "{names:?}");
    // The environment is the project's, ready, with its application.
    let listed = ok(&srv, "GET", "/v1/environments", None, None);
    let mine = listed["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == env.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(mine["name"], "shop");
    assert_eq!(mine["status"], "ready");
    let shown = ok(&srv, "GET", &format!("/v1/environments/{env}"), None, None);
    assert_eq!(shown["services"][0]["name"], "notes-db", "{shown}");
    // Its deployment, with the reports the engine made.
    let deps = ok(
        &srv,
        "GET",
        &format!("/v1/environments/{env}/deployments"),
        None,
        None,
    );
    let deps = deps["deployments"].as_array().unwrap().clone();
    assert_eq!(deps.len(), 1, "{deps:?}");
    assert_eq!(deps[0]["state"], "success");
    let dep = deps[0]["id"].as_str().unwrap();
    let reports = ok(
        &srv,
        "GET",
        &format!("/v1/environments/{env}/deployments/{dep}"),
        None,
        None,
    );
    let texts: Vec<&str> = reports["reports"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["text"].as_str())
        .collect();
    assert_eq!(
        texts.first(),
        Some(&"Action deploy is scheduled"),
        "{texts:?}"
    );
    assert_eq!(texts.last(), Some(&"Deployment finished"), "{texts:?}");
    // The dashboard on the same port shows it, with its deployment.
    let page = ok(&srv, "GET", "/environments", None, None);
    assert!(page.as_str().is_some_and(|p| p.contains("shop")), "{page}");
    let page = ok(&srv, "GET", &format!("/environments/{env}"), None, None);
    let page = page.as_str().unwrap_or_default();
    assert!(page.contains("notes-db"), "{page}");
    assert!(page.contains("Deployment finished"), "{page}");
    // Another project sees none of it.
    let (status, _) = {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let req = ureq::http::Request::builder()
            .uri(format!("{}/v1/environments/{env}", srv.url))
            .header("X-Project-Id", "someone-else")
            .body(Vec::new())
            .unwrap();
        let resp = agent.run(req).unwrap();
        (resp.status().as_u16(), ())
    };
    assert_eq!(status, 403);
}

#[test]
fn an_environment_of_the_api_is_murano_envs() {
    let Some((scratch, db, cloud, core)) = setup("store-shared-api") else {
        return;
    };
    let srv = start(&db, &core, &cloud, &[]);
    let env = ok(
        &srv,
        "POST",
        "/v1/environments",
        None,
        Some(json!({"name": "web"})),
    );
    let env = env["id"].as_str().unwrap().to_owned();
    let sid = ok(
        &srv,
        "POST",
        &format!("/v1/environments/{env}/configure"),
        None,
        None,
    )["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let app = json!({"?": {"type": "com.example.NotesDb", "id": "a0000000000000000000000000000001"},
                     "name": "notes-db", "instance": instance("b0000000000000000000000000000002")});
    ok(
        &srv,
        "POST",
        &format!("/v1/environments/{env}/services"),
        Some(&sid),
        Some(app),
    );
    ok(
        &srv,
        "POST",
        &format!("/v1/environments/{env}/sessions/{sid}/deploy"),
        None,
        None,
    );
    wait_for("the API's deployment", || {
        ok(&srv, "GET", &format!("/v1/environments/{env}"), None, None)["status"] == "ready"
    });

    // A package uploaded through the API is in `murano catalog`'s list.
    let zip = scratch.path("greetings.zip");
    let packed = murano()
        .arg("package")
        .arg(examples().join("packages/greetings"))
        .arg("-o")
        .arg(&zip)
        .output()
        .unwrap();
    assert!(packed.status.success(), "{}", text(&packed.stderr));
    upload(&srv, &std::fs::read(&zip).unwrap());
    let shown = cli(&db, &["catalog", "show", "com.example.Greetings"]);
    assert_eq!(shown["source"], "uploaded through the API", "{shown}");
    assert_eq!(shown["classes"][0], "com.example.Greeter", "{shown}");
    assert_eq!(shown["version"], "1.2.0", "{shown}");

    // `murano env` lists and shows it, with its deployment.
    let list = env_cli(&db, &cloud, &["list"]);
    let web = list
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "web")
        .cloned()
        .unwrap_or_else(|| panic!("{list}"));
    assert_eq!(web["id"], env.as_str());
    assert_eq!(web["status"], "ready");
    assert_eq!(web["applications"][0]["name"], "notes-db", "{web}");
    let deps = env_cli(&db, &cloud, &["deployments", "web"]);
    assert_eq!(deps[0]["state"], "success", "{deps}");
    assert_eq!(deps[0]["kind"], "deploy", "{deps}");
    // It deploys it again, while the server runs on the same file.
    let again = env_cli(&db, &cloud, &["deploy", "web"]);
    assert_eq!(again["deployment"], 2, "{again}");
    assert_eq!(again["status"], "Deployment finished", "{again}");
    let served = ok(
        &srv,
        "GET",
        &format!("/v1/environments/{env}/deployments"),
        None,
        None,
    );
    assert_eq!(
        served["deployments"].as_array().unwrap().len(),
        2,
        "{served}"
    );
    // And deletes it: the API no longer has it.
    env_cli(&db, &cloud, &["delete", "web"]);
    let (status, _) = call(&srv, "GET", &format!("/v1/environments/{env}"), None, None);
    assert_eq!(status, 404);
    assert!(env_cli(&db, &cloud, &["list"])
        .as_array()
        .unwrap()
        .is_empty());
}

/// A package whose deployment counts for a while (to be caught running).
fn slow_package(scratch: &Scratch) -> std::path::PathBuf {
    scratch.write(
        "slow/manifest.yaml",
        "Format: 1.0\nType: Application\nFullName: io.example.Slow\nName: Slow\nClasses:\n  io.example.Slow: Slow.yaml\n",
    );
    scratch.write(
        "slow/Classes/Slow.yaml",
        "Namespaces:\n  =: io.example\n  std: io.murano\nName: Slow\nExtends: std:Application\n\
         Properties:\n  rounds:\n    Contract: $.int().notNull()\n\
         Methods:\n  deploy:\n    Body:\n      - $i: 0\n      - While: $i < $.rounds\n        Do:\n          - $i: $i + 1\n",
    );
    scratch.path("slow")
}

#[test]
fn one_deployment_at_a_time_across_murano_env_and_murano_serve() {
    let Some((scratch, db, cloud, core)) = setup("store-shared-busy") else {
        return;
    };
    let slow = slow_package(&scratch);
    cli(&db, &["catalog", "import", s(&slow)]);
    let env = env_cli(&db, &cloud, &["create", "busy"])["id"]
        .as_str()
        .unwrap()
        .to_owned();
    env_cli(
        &db,
        &cloud,
        &[
            "add",
            "busy",
            "io.example.Slow",
            "--name",
            "s",
            "--set",
            "rounds=100000000",
        ],
    );
    let mut deploying = murano()
        .args(["env", "deploy", "busy", "--cloud", s(&cloud)])
        .env("MURANO_DB", &db)
        .env_remove("MURANO_CATALOG")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the deployment to start", || {
        env_cli(&db, &cloud, &["show", "busy"])["status"] == "deploying"
    });
    // A server started meanwhile leaves the live process's deployment
    // running, and refuses a session on the environment.
    // Fuel enough for the server's own deployment of it to run a while.
    let srv = start(&db, &core, &cloud, &["--max-fuel", "100000000000"]);
    let shown = ok(&srv, "GET", &format!("/v1/environments/{env}"), None, None);
    assert_eq!(shown["status"], "deploying", "{shown}");
    let (status, body) = call(
        &srv,
        "POST",
        &format!("/v1/environments/{env}/configure"),
        None,
        None,
    );
    assert_eq!(status, 403, "{body}");
    // The process is killed: the next murano env fails the deployment,
    // and the API sees it failed.
    deploying.kill().unwrap();
    deploying.wait().unwrap();
    let deps = env_cli(&db, &cloud, &["deployments", "busy"]);
    assert_eq!(deps[0]["state"], "interrupted", "{deps}");
    let shown = ok(&srv, "GET", &format!("/v1/environments/{env}"), None, None);
    assert_eq!(shown["status"], "deploy failure", "{shown}");
    // A deployment the API started is refused to murano env while it runs.
    let sid = ok(
        &srv,
        "POST",
        &format!("/v1/environments/{env}/configure"),
        None,
        None,
    )["id"]
        .as_str()
        .unwrap()
        .to_owned();
    ok(
        &srv,
        "POST",
        &format!("/v1/environments/{env}/sessions/{sid}/deploy"),
        None,
        None,
    );
    let refused = murano()
        .args(["env", "deploy", "busy", "--cloud", s(&cloud)])
        .env("MURANO_DB", &db)
        .env_remove("MURANO_CATALOG")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("already being deployed"),
        "{}",
        text(&refused.stderr)
    );
}
