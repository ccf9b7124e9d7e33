//! A bounded load test of `murano serve`'s v1 API on loopback (issue 33):
//! 1,000 packages imported, then 64 concurrent clients for a fixed time on
//! package list, environment show and service edits (each client edits
//! an application in its own environment's session), while 8 deployments
//! are in flight (each deployer redeploys as soon as its last deployment
//! ends; with an engine that leaves them running, they stay in flight).
//! Prints requests per second, latency percentiles, the process's peak
//! memory (`VmHWM`, server and clients together) and the failures, which
//! must be none (exit 1 otherwise).
//!
//! ```sh
//! cargo run --release -p murano-benches --example api_load
//! cargo run --release -p murano-benches --example api_load -- --seconds 5 --clients 16
//! # Another server speaking the same API (benches/compare/api.sh does so
//! # for Python's murano-api), with the same workload:
//! cargo run --release -p murano-benches --example api_load -- --url http://127.0.0.1:8082
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use murano_api::engine::QueueOnlyEngine;
use murano_api::policy::Policy;
use murano_api::store::Db;
use murano_api::{App, Limits, Shared};
use murano_packages::pack::write_zip;
use murano_packages::source::FileMap;
use serde_json::{json, Value};

struct Options {
    url: Option<String>,
    packages: usize,
    clients: usize,
    deployments: usize,
    seconds: u64,
    /// The request kinds the clients send, in turn.
    ops: Vec<Op>,
}

/// A kind of client request.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// `GET /catalog/packages`.
    List,
    /// `GET /environments/{id}`.
    Show,
    /// `PUT /environments/{id}/services/{app}/name` in the client's
    /// session (Murano replaces values inside an application, not the
    /// application by its id).
    Edit,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        url: None,
        packages: 1000,
        clients: 64,
        deployments: 8,
        seconds: 10,
        ops: vec![Op::List, Op::Show, Op::Edit],
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{a}: {e}"));
        match a.as_str() {
            "--url" => o.url = Some(value()?.trim_end_matches('/').to_owned()),
            "--packages" => o.packages = number(value()?)?,
            "--clients" => o.clients = number(value()?)?.max(1),
            "--deployments" => o.deployments = number(value()?)?,
            "--seconds" => o.seconds = number(value()?)?.clamp(1, 600) as u64,
            "--ops" => {
                o.ops = value()?
                    .split(',')
                    .map(|op| match op {
                        "list" => Ok(Op::List),
                        "show" => Ok(Op::Show),
                        "edit" => Ok(Op::Edit),
                        _ => Err(format!("--ops: unknown {op} (list, show, edit)")),
                    })
                    .collect::<Result<_, _>>()?;
                if o.ops.is_empty() {
                    return Err("--ops: none given".into());
                }
            }
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    Ok(o)
}

/// One HTTP client (keep-alive) speaking as tenant `bench`.
#[derive(Clone)]
struct Client {
    base: String,
    agent: ureq::Agent,
}

impl Client {
    fn new(base: &str) -> Client {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        Client {
            base: base.to_owned(),
            agent,
        }
    }

    /// Status and body of one request.
    fn call(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> Result<(u16, Vec<u8>), String> {
        let mut b = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{}/v1{path}", self.base))
            .header("X-Tenant-Id", "bench")
            .header("X-Project-Id", "bench")
            .header("X-User-Id", "bench-user")
            .header("X-Roles", "member")
            .header("X-Auth-Token", "bench-token");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        let req = b.body(body).map_err(|e| e.to_string())?;
        let mut resp = self.agent.run(req).map_err(|e| e.to_string())?;
        let status = resp.status().as_u16();
        let body = resp
            .body_mut()
            .with_config()
            .limit(64 * 1024 * 1024)
            .read_to_vec()
            .map_err(|e| e.to_string())?;
        Ok((status, body))
    }

    /// A JSON request that must answer 200; its JSON body (null if empty).
    fn json(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Value>,
    ) -> Result<Value, String> {
        let mut h = headers.to_vec();
        h.push(("Content-Type", "application/json"));
        let bytes = body.map(|b| b.to_string().into_bytes()).unwrap_or_default();
        let (status, out) = self.call(method, path, &h, bytes)?;
        if status != 200 {
            return Err(format!(
                "{method} {path}: {status} {}",
                String::from_utf8_lossy(&out)
            ));
        }
        if out.is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&out).map_err(|e| format!("{method} {path}: {e}"))
    }
}

/// A small application package `com.bench.PkgN`, as a zip.
fn package_zip(n: usize) -> Vec<u8> {
    let name = format!("com.bench.Pkg{n:04}");
    let mut files = FileMap::new();
    let manifest = format!(
        "Format: MuranoPL/1.4\nType: Application\nFullName: {name}\nName: Bench package {n}\n\
         Description: A package of the API load test.\nAuthor: bench\nTags: [bench, t{}]\n\
         Classes:\n  {name}: App.yaml\n",
        n % 10
    );
    let class = format!(
        "Namespaces:\n  =: com.bench\n  std: io.murano\nName: {name}\nExtends: std:Application\n\
         Properties:\n  name:\n    Contract: $.string().notNull()\n\
         Methods:\n  deploy:\n    Body:\n      - Return: $.name\n"
    );
    files
        .insert("manifest.yaml", manifest.into_bytes())
        .expect("a path");
    files
        .insert("Classes/App.yaml", class.into_bytes())
        .expect("a path");
    write_zip(&files).expect("a zip")
}

fn upload(c: &Client, n: usize) -> Result<(), String> {
    let boundary = "bench-boundary-7c1f";
    let mut body = Vec::new();
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"__metadata__\"\r\n\r\n\
             {{\"is_public\": false}}\r\n--{boundary}\r\nContent-Disposition: form-data; \
             name=\"pkg{n}\"; filename=\"pkg{n}.zip\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(&package_zip(n));
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let ct = format!("multipart/form-data; boundary={boundary}");
    let (status, out) = c.call(
        "POST",
        "/catalog/packages",
        &[("Content-Type", ct.as_str())],
        body,
    )?;
    if status != 200 {
        return Err(format!(
            "upload {n}: {status} {}",
            String::from_utf8_lossy(&out)
        ));
    }
    Ok(())
}

fn app_object(id: &str, name: &str) -> Value {
    json!({"?": {"id": id, "type": "com.bench.Pkg0000"}, "name": name})
}

/// An environment with an open session holding one application:
/// (environment id, session id, application id).
fn environment(c: &Client, name: &str) -> Result<(String, String, String), String> {
    let env = c.json("POST", "/environments", &[], Some(json!({"name": name})))?;
    let env = env["id"].as_str().ok_or("no environment id")?.to_owned();
    let (sid, app) = session_with_app(c, &env, name)?;
    Ok((env, sid, app))
}

fn session_with_app(c: &Client, env: &str, name: &str) -> Result<(String, String), String> {
    let s = c.json("POST", &format!("/environments/{env}/configure"), &[], None)?;
    let sid = s["id"].as_str().ok_or("no session id")?.to_owned();
    let app = format!("{:032x}", fxhash(name));
    c.json(
        "POST",
        &format!("/environments/{env}/services"),
        &[("X-Configuration-Session", sid.as_str())],
        Some(app_object(&app, name)),
    )?;
    Ok((sid, app))
}

/// A stable id from a name (no randomness: runs are comparable).
fn fxhash(s: &str) -> u128 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325_u128, |h, b| {
        (h ^ u128::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Keep one deployment of `env` in flight until `stop`: deploy, wait for
/// the environment to leave `deploying`, open a new session, deploy again.
fn deployer(c: Client, env: String, sid: String, stop: Arc<AtomicBool>, done: Arc<AtomicU64>) {
    let mut sid = sid;
    let mut round = 0u64;
    while !stop.load(Ordering::Relaxed) {
        if let Err(e) = c.json(
            "POST",
            &format!("/environments/{env}/sessions/{sid}/deploy"),
            &[],
            None,
        ) {
            eprintln!("deployer: {e}");
            return;
        }
        loop {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
            match c.json("GET", &format!("/environments/{env}"), &[], None) {
                Ok(v) if v["status"] == json!("deploying") => continue,
                Ok(_) => break,
                Err(e) => {
                    eprintln!("deployer: {e}");
                    return;
                }
            }
        }
        done.fetch_add(1, Ordering::Relaxed);
        round += 1;
        match session_with_app(&c, &env, &format!("{env}-{round}")) {
            Ok((s, _)) => sid = s,
            Err(e) => {
                eprintln!("deployer: {e}");
                return;
            }
        }
    }
}

/// What one client measured.
#[derive(Default)]
struct Tally {
    latencies_us: Vec<u32>,
    failures: u64,
    first_failure: Option<String>,
}

fn client_loop(
    c: Client,
    i: usize,
    env: (String, String, String),
    ops: &[Op],
    until: Instant,
) -> Tally {
    let (env, sid, app) = env;
    let mut t = Tally::default();
    let mut n = 0usize;
    while Instant::now() < until {
        let started = Instant::now();
        let r = match ops[(n + i) % ops.len()] {
            Op::List => c.json("GET", "/catalog/packages", &[], None).map(drop),
            Op::Show => c
                .json("GET", &format!("/environments/{env}"), &[], None)
                .map(drop),
            Op::Edit => c
                .json(
                    "PUT",
                    &format!("/environments/{env}/services/{app}/name"),
                    &[("X-Configuration-Session", sid.as_str())],
                    Some(json!(format!("edit-{n}"))),
                )
                .map(drop),
        };
        let us = started.elapsed().as_micros().min(u128::from(u32::MAX)) as u32;
        t.latencies_us.push(us);
        if let Err(e) = r {
            t.failures += 1;
            t.first_failure.get_or_insert(e);
        }
        n += 1;
    }
    t
}

/// The process's peak resident memory in KiB (`VmHWM`).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted[i.min(sorted.len() - 1)]) / 1000.0
}

/// Start the API in this process on a loopback port, over a database in
/// a temporary file; the runtime serving it and the base URL.
fn start_in_process(db: &std::path::Path) -> (tokio::runtime::Runtime, String) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max_blocking_threads(murano_api::server::MAX_BLOCKING)
        .enable_all()
        .build()
        .expect("a runtime");
    let app = App::new(
        Db::open(db).expect("the database"),
        Policy::default(),
        Arc::new(QueueOnlyEngine::default()),
        Limits::default(),
    );
    let shared = Shared {
        app: Arc::new(app),
        token: None,
    };
    let (listener, addr) = rt
        .block_on(murano_api::bind(
            "127.0.0.1:0".parse().expect("an address"),
            None,
        ))
        .expect("a port");
    rt.spawn(murano_api::serve(listener, shared));
    (rt, format!("http://{addr}"))
}

fn main() -> std::process::ExitCode {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("api_load: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let tmp = std::env::temp_dir().join(format!("murano-api-load-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);
    let (_rt, base) = match &o.url {
        Some(u) => (None, u.clone()),
        None => {
            let (rt, base) = start_in_process(&tmp.join("api.db"));
            (Some(rt), base)
        }
    };
    let setup = Client::new(&base);
    let t0 = Instant::now();
    for n in 0..o.packages {
        if let Err(e) = upload(&setup, n) {
            eprintln!("api_load: {e}");
            return std::process::ExitCode::FAILURE;
        }
    }
    let import_s = t0.elapsed().as_secs_f64();
    let tag = std::process::id();
    let mut envs = Vec::new();
    for i in 0..o.clients {
        match environment(&setup, &format!("load-{tag}-{i}")) {
            Ok(e) => envs.push(e),
            Err(e) => {
                eprintln!("api_load: {e}");
                return std::process::ExitCode::FAILURE;
            }
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let deployed = Arc::new(AtomicU64::new(0));
    let mut deployers = Vec::new();
    for i in 0..o.deployments {
        let (env, sid, _) = match environment(&setup, &format!("deploy-{tag}-{i}")) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("api_load: {e}");
                return std::process::ExitCode::FAILURE;
            }
        };
        let (c, stop, done) = (Client::new(&base), stop.clone(), deployed.clone());
        deployers.push(std::thread::spawn(move || {
            deployer(c, env, sid, stop, done)
        }));
    }
    // Let the deployments start before the clients do.
    std::thread::sleep(Duration::from_millis(200));
    let until = Instant::now() + Duration::from_secs(o.seconds);
    let started = Instant::now();
    let workers: Vec<_> = envs
        .into_iter()
        .enumerate()
        .map(|(i, env)| {
            let c = Client::new(&base);
            let ops = o.ops.clone();
            std::thread::spawn(move || client_loop(c, i, env, &ops, until))
        })
        .collect();
    let mut all = Vec::new();
    let mut failures = 0;
    let mut first_failure = None;
    for w in workers {
        let t = w.join().unwrap_or_default();
        all.extend(t.latencies_us);
        failures += t.failures;
        if first_failure.is_none() {
            first_failure = t.first_failure;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for d in deployers {
        let _ = d.join();
    }
    all.sort_unstable();
    let requests = all.len();
    println!(
        "api load: {} ({} packages imported in {import_s:.1} s, {} clients, {} deployments in flight, {} finished)",
        if o.url.is_some() { base.as_str() } else { "murano serve, in process" },
        o.packages,
        o.clients,
        o.deployments,
        deployed.load(Ordering::Relaxed),
    );
    println!("requests sent in turn: {:?}", o.ops);
    println!(
        "requests: {requests} in {elapsed:.1} s = {:.0} requests/s",
        requests as f64 / elapsed
    );
    println!(
        "latency ms: p50 {:.2}  p90 {:.2}  p99 {:.2}  max {:.2}",
        percentile(&all, 0.50),
        percentile(&all, 0.90),
        percentile(&all, 0.99),
        percentile(&all, 1.0)
    );
    match peak_rss_kib() {
        Some(k) if o.url.is_none() => println!(
            "peak memory (VmHWM, server and clients): {:.1} MiB",
            k as f64 / 1024.0
        ),
        _ => println!("peak memory: not measured (the server is another process)"),
    }
    println!("failures: {failures}");
    let _ = std::fs::remove_dir_all(&tmp);
    if let Some(f) = first_failure {
        eprintln!("first failure: {f}");
    }
    if failures > 0 {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}
