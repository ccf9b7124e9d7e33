//! Conformance of `murano serve` (suite `api`): Murano's own v1 API unit
//! tests (`conformance/api/`, see its README §1) replayed over HTTP
//! against a fresh server per test: an empty database, the recorded
//! `setup_db` rows and policy rules, every request sent with its context
//! as Murano's context middleware reads headers, and each response (status,
//! content type, body) and each engine call compared modulo the README §7
//! placeholders. Tests of category `mocked` and those not replayable over
//! HTTP are not counted. Suite `api-client` replays the recorded
//! python-muranoclient session (`client/`) the same way, under Murano's
//! default policy, with its engine results. Known failures:
//! `tests/api-known-failures.txt` (`<suite> <test-id> <reason>`); an
//! unlisted failure or a listed pass fails.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use murano_api::engine::{Engine, RemoteError};
use murano_api::policy::Policy;
use murano_api::store::{hex, Db};
use murano_api::upload::{LoadedPackage, PackageLoader, ZipLoader};
use murano_api::{App, Limits, Shared};
use serde_json::{json, Map, Value};

fn main() {
    // `$MURANO_SHARED`, by default `../shared` beside the workspace, as
    // every other suite finds it.
    let Some(root) = murano_testkit::data_root(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
    else {
        return;
    };
    let known_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/api-known-failures.txt");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let dir = root.join("conformance/api");
    let mut ok = run_suite(&rt, "api", &dir, &load_known(&known_file, "api"), false);
    // The recorded python-muranoclient session (client/README.md): Murano's
    // default policy, its engine results replayed.
    let client = dir.join("client");
    if client.is_dir() {
        ok &= run_suite(
            &rt,
            "api-client",
            &client,
            &load_known(&known_file, "api-client"),
            true,
        );
    }
    if !ok {
        println!("conformance: unlisted failures or stale known-failure entries (see above)");
        std::process::exit(1);
    }
}

/// Replay one case set; whether its failures are exactly the listed ones.
fn run_suite(
    rt: &tokio::runtime::Runtime,
    name: &str,
    dir: &Path,
    known: &BTreeMap<String, String>,
    default_policy: bool,
) -> bool {
    let tests = read_jsonl(&dir.join("tests.jsonl"));
    let cases = read_jsonl(&dir.join("cases.jsonl"));
    let mut by_test: HashMap<String, Vec<Value>> = HashMap::new();
    for c in cases {
        by_test
            .entry(c["test"].as_str().unwrap_or("").to_owned())
            .or_default()
            .push(c);
    }
    let filter = std::env::var("API_CASE").ok();
    let (mut total, mut passed) = (0, 0);
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    for t in &tests {
        let id = t["test"].as_str().unwrap_or("?");
        if t["category"] == "mocked" || t["replayable_over_http"] == json!(false) {
            continue;
        }
        if filter.as_deref().is_some_and(|f| !id.contains(f)) {
            continue;
        }
        let mut steps = by_test.remove(id).unwrap_or_default();
        steps.sort_by_key(|s| s["step"].as_u64());
        total += 1;
        seen.insert(id.to_owned());
        match run_test(rt, dir, t, &steps, default_policy) {
            Ok(()) => passed += 1,
            Err(why) => failures.push((id.to_owned(), why)),
        }
    }
    println!("conformance {name}: {passed}/{total} passed");
    let mut ok = true;
    let failed: BTreeSet<&String> = failures.iter().map(|(i, _)| i).collect();
    for (id, why) in &failures {
        if !known.contains_key(id) {
            ok = false;
            println!("  FAIL {id}: {}", why.replace('\n', "\\n"));
        }
    }
    for id in known.keys() {
        if seen.contains(id) && !failed.contains(id) {
            ok = false;
            println!("  NOW PASSES (remove from known failures): {id}");
        }
    }
    ok
}

fn load_known(path: &Path, suite: &str) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let mut p = line.splitn(3, char::is_whitespace);
        if let (Some(s), Some(id), Some(why)) = (p.next(), p.next(), p.next()) {
            if s != suite {
                continue;
            }
            out.insert(id.to_owned(), why.trim().to_owned());
        }
    }
    out
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// The engine stub: returns what the test's stub returned, records calls.
#[derive(Default)]
struct Stub {
    calls: Mutex<Vec<Value>>,
    returns: Mutex<Vec<Value>>,
}

impl Stub {
    fn record(&self, method: &str, args: Value) -> Value {
        self.calls
            .lock()
            .unwrap()
            .push(json!({"method": method, "args": args}));
        let mut r = self.returns.lock().unwrap();
        if r.is_empty() {
            Value::Null
        } else {
            r.remove(0)
        }
    }
}

fn stub_result(stub: Value) -> Result<Value, RemoteError> {
    if let Some(e) = stub.get("raises") {
        return Err(RemoteError {
            exc_type: e["exc_type"]
                .as_str()
                .or(e["type"].as_str())
                .unwrap_or("")
                .to_owned(),
            value: e["value"]
                .as_str()
                .or(e["message"].as_str())
                .unwrap_or("")
                .to_owned(),
        });
    }
    Ok(stub.get("returns").cloned().unwrap_or(Value::Null))
}

impl Engine for Stub {
    fn handle_task(&self, task: Value) {
        self.record("handle_task", json!([task]));
    }
    fn call_static_action(&self, task: Value) -> Result<Value, RemoteError> {
        stub_result(self.record("call_static_action", json!([task])))
    }
    fn generate_schema(
        &self,
        credentials: Value,
        class_name: &str,
        method_names: Vec<String>,
        class_version: Option<String>,
        package_name: Option<String>,
    ) -> Result<Value, RemoteError> {
        stub_result(self.record(
            "generate_schema",
            json!([
                credentials,
                class_name,
                method_names,
                class_version,
                package_name
            ]),
        ))
    }
}

/// The test's package-loader override (README §6): whatever the upload
/// carries, the package read is the recorded archive.
struct Override(Vec<u8>);

impl PackageLoader for Override {
    fn load(&self, _archive: &[u8]) -> Result<LoadedPackage, String> {
        ZipLoader.load(&self.0)
    }
}

fn run_test(
    rt: &tokio::runtime::Runtime,
    dir: &Path,
    test: &Value,
    steps: &[Value],
    default_policy: bool,
) -> Result<(), String> {
    let stub = Arc::new(Stub::default());
    let deny: BTreeMap<String, String> = [("default".to_owned(), "!".to_owned())]
        .into_iter()
        .collect();
    let policy = if default_policy {
        Policy::default()
    } else {
        Policy::new(deny, "default")
    };
    let mut app = App::new(
        Db::in_memory().map_err(|e| e.to_string())?,
        policy,
        stub.clone(),
        Limits::default(),
    );
    if test
        .get("package_loader_archive")
        .is_some_and(|a| !a.is_null())
    {
        let archive = load_bytes(dir, &test["package_loader_archive"])?;
        app = app.with_loader(Arc::new(Override(archive)));
    }
    let app = Arc::new(app);
    let shared = Shared {
        app: app.clone(),
        token: None,
    };
    let (listener, addr) = rt
        .block_on(murano_api::bind("127.0.0.1:0".parse().unwrap(), None))
        .map_err(|e| e.to_string())?;
    let server = rt.spawn(murano_api::serve(listener, shared));
    let mut binds = Binds::default();
    let result = (|| {
        for step in steps {
            match step["kind"].as_str() {
                Some("policy") => app.set_policy(policy_of(step)),
                Some("engine_result") => {
                    let env = binds.substitute(&step["environment_id"]);
                    let result = binds.substitute(&step["result"]);
                    murano_api::handlers::results::process_result(
                        &app.db(),
                        env.as_str().unwrap_or(""),
                        &result,
                    )
                    .map_err(|e| format!("step {}: engine result: {}", step["step"], e.body()))?;
                }
                Some("setup_db") => setup_db(&app, dir, step, &mut binds)?,
                Some("http") => http_step(&app, &stub, dir, addr, step, &mut binds)
                    .map_err(|e| format!("step {}: {e}", step["step"]))?,
                Some("controller_call") => {
                    let eq = step
                        .get("http_equivalent")
                        .ok_or("controller call without an HTTP form")?;
                    http_step(&app, &stub, dir, addr, eq, &mut binds)
                        .map_err(|e| format!("step {}: {e}", step["step"]))?
                }
                other => return Err(format!("unknown step kind {other:?}")),
            }
        }
        Ok(())
    })();
    server.abort();
    result
}

fn policy_of(step: &Value) -> Policy {
    if step["mocked"] == json!(true) {
        let all: BTreeMap<String, String> = [("default".to_owned(), "@".to_owned())]
            .into_iter()
            .collect();
        return Policy::new(all, "default");
    }
    let rules = step["rules"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("!").to_owned()))
                .collect()
        })
        .unwrap_or_default();
    Policy::new(rules, step["default_rule"].as_str().unwrap_or("default"))
}

fn load_bytes(dir: &Path, v: &Value) -> Result<Vec<u8>, String> {
    let rel = v["$bytes"].as_str().ok_or("no $bytes")?;
    std::fs::read(dir.join(rel)).map_err(|e| format!("{rel}: {e}"))
}

/// A set-up value as the store wants it: placeholders substituted, binary
/// values read and hex-encoded.
fn store_value(dir: &Path, v: &Value, binds: &mut Binds) -> Result<Value, String> {
    if v.get("$bytes").is_some() {
        return Ok(json!({"$hex": hex(&load_bytes(dir, v)?)}));
    }
    Ok(binds.substitute(v))
}

fn setup_db(app: &App, dir: &Path, step: &Value, binds: &mut Binds) -> Result<(), String> {
    let db = app.db();
    let changes = step["changes"].as_array().cloned().unwrap_or_default();
    let (deletes, rest): (Vec<_>, Vec<_>) = changes.into_iter().partition(|c| c["op"] == "delete");
    for c in deletes.iter().chain(rest.iter()) {
        let table = c["table"].as_str().unwrap_or("");
        let conv = |m: &Value, binds: &mut Binds| -> Result<Map<String, Value>, String> {
            let mut out = Map::new();
            for (k, v) in m.as_object().into_iter().flatten() {
                out.insert(k.clone(), store_value(dir, v, binds)?);
            }
            Ok(out)
        };
        let r = match c["op"].as_str() {
            Some("insert") => db.insert(table, &conv(&c["row"], binds)?).map(|_| ()),
            Some("update") => db
                .update(table, &conv(&c["key"], binds)?, &conv(&c["set"], binds)?)
                .map(|_| ()),
            Some("delete") => {
                let k = if c.get("key").is_some() {
                    &c["key"]
                } else {
                    &c["row"]
                };
                db.delete(table, &conv(k, binds)?).map(|_| ())
            }
            op => return Err(format!("unknown set-up op {op:?}")),
        };
        r.map_err(|e| format!("set-up {table}: {e}"))?;
    }
    Ok(())
}

fn http_step(
    app: &App,
    stub: &Stub,
    dir: &Path,
    addr: std::net::SocketAddr,
    step: &Value,
    binds: &mut Binds,
) -> Result<(), String> {
    let _ = app;
    let req = &step["request"];
    let expected_rpc = step["rpc"].as_array().cloned().unwrap_or_default();
    *stub.returns.lock().unwrap() = expected_rpc.iter().map(|r| r["stub"].clone()).collect();
    stub.calls.lock().unwrap().clear();
    let path = binds.substitute(&req["path"]);
    let qs = binds.substitute(&req["query_string"]);
    let mut url = format!("http://{addr}/v1{}", path.as_str().unwrap_or(""));
    if let Some(q) = qs.as_str().filter(|q| !q.is_empty()) {
        url.push('?');
        url.push_str(q);
    }
    let method = req["method"].as_str().unwrap_or("GET");
    let mut headers: Vec<(String, String)> = Vec::new();
    for (k, v) in req["headers"].as_object().into_iter().flatten() {
        if k.eq_ignore_ascii_case("content-length") {
            continue;
        }
        if let Some(s) = binds.substitute(v).as_str() {
            headers.push((k.clone(), s.to_owned()));
        }
    }
    let ctx = binds.substitute(&req["context"]);
    if let Some(u) = ctx["user"].as_str() {
        headers.push(("X-User-Id".into(), u.into()));
    }
    if let Some(t) = ctx["tenant"].as_str() {
        headers.push(("X-Tenant-Id".into(), t.into()));
    }
    let mut roles: Vec<String> = ctx["roles"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str().map(str::to_owned))
        .collect();
    if ctx["is_admin"] == json!(true) && !roles.iter().any(|r| r == "admin") {
        roles.push("admin".into());
    }
    if !roles.is_empty() {
        headers.push(("X-Roles".into(), roles.join(",")));
    }
    if let Some(t) = ctx["auth_token"].as_str() {
        headers.push(("X-Auth-Token".into(), t.into()));
    }
    if let Some(s) = ctx["session"].as_str() {
        if !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("x-configuration-session"))
        {
            headers.push(("X-Configuration-Session".into(), s.into()));
        }
    }
    let body: Option<Vec<u8>> = match &req["body"] {
        Value::Null => None,
        b if b.get("json").is_some() => Some(binds.substitute(&b["json"]).to_string().into_bytes()),
        b if b.get("text").is_some() => Some(
            binds
                .substitute(&b["text"])
                .as_str()
                .unwrap_or("")
                .as_bytes()
                .to_vec(),
        ),
        b if b.get("bytes").is_some() => Some(load_bytes(dir, &b["bytes"])?),
        b if b.get("raw").is_some() => Some(load_bytes(dir, &b["raw"])?),
        b => return Err(format!("unknown request body {b}")),
    };
    let (status, ctype, got) = send(method, &url, &headers, body)?;
    let resp = &step["response"];
    if resp["status"].as_u64() != Some(u64::from(status)) {
        return Err(format!(
            "{method} {url}: status {status}, expected {}; body {}",
            resp["status"],
            String::from_utf8_lossy(&got)
        ));
    }
    let want_ct = resp["content_type"].as_str().unwrap_or("");
    let got_ct = ctype.split(';').next().unwrap_or("").trim();
    if !want_ct.is_empty() && want_ct != got_ct {
        return Err(format!(
            "{method} {url}: content type {got_ct}, expected {want_ct}"
        ));
    }
    match &resp["body"] {
        Value::Null => {
            if !got.is_empty() {
                return Err(format!(
                    "{method} {url}: body {}, expected none",
                    String::from_utf8_lossy(&got)
                ));
            }
        }
        b if b.get("json").is_some() => {
            let v: Value = serde_json::from_slice(&got)
                .map_err(|e| format!("{method} {url}: not JSON ({e})"))?;
            binds
                .matches(&b["json"], &v, "")
                .map_err(|e| format!("{method} {url}: body {e}"))?;
        }
        b if b.get("text").is_some() => {
            binds
                .matches(&b["text"], &json!(String::from_utf8_lossy(&got)), "")
                .map_err(|e| format!("{method} {url}: body {e}"))?;
        }
        b if b.get("bytes").is_some() => {
            if load_bytes(dir, &b["bytes"])? != got {
                return Err(format!("{method} {url}: bytes differ"));
            }
        }
        b => return Err(format!("unknown response body {b}")),
    }
    let calls = stub.calls.lock().unwrap().clone();
    if calls.len() != expected_rpc.len() {
        return Err(format!(
            "{method} {url}: {} engine calls, expected {}: {calls:?}",
            calls.len(),
            expected_rpc.len()
        ));
    }
    for (c, e) in calls.iter().zip(&expected_rpc) {
        if c["method"] != e["method"] {
            return Err(format!(
                "engine call {}, expected {}",
                c["method"], e["method"]
            ));
        }
        binds
            .matches(&e["args"], &c["args"], "")
            .map_err(|m| format!("{method} {url}: engine call {m}"))?;
    }
    Ok(())
}

fn send(
    method: &str,
    url: &str,
    headers: &[(String, String)],
    body: Option<Vec<u8>>,
) -> Result<(u16, String, Vec<u8>), String> {
    // Only the recorded headers: no automatic `Accept: */*` (webob answers
    // errors in HTML to a client that accepts anything).
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .accept(ureq::config::AutoHeaderValue::None)
        .http_status_as_error(false)
        .build()
        .into();
    let mut b = ureq::http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        b = b.header(k.as_str(), v.as_str());
    }
    let req = b
        .body(body.unwrap_or_default())
        .map_err(|e| e.to_string())?;
    let mut resp = agent.run(req).map_err(|e| format!("{method} {url}: {e}"))?;
    let status = resp.status().as_u16();
    let ct = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let body = resp.body_mut().read_to_vec().map_err(|e| e.to_string())?;
    Ok((status, ct, body))
}

/// Placeholder bindings (README §7): `<id:N>` / `<uuid:N>` to a generated
/// id (kept as 32 hex digits), each value bound at most once.
#[derive(Default)]
struct Binds {
    ids: HashMap<String, String>,
}

fn dashed(h: &str) -> String {
    if h.len() == 32 {
        format!(
            "{}-{}-{}-{}-{}",
            &h[..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..]
        )
    } else {
        h.to_owned()
    }
}

enum Piece {
    Lit(String),
    Id(String, bool),
    Time(String),
}

fn pieces(s: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        let tail = &rest[i..];
        let close = tail.find('>');
        let ph = close.map(|c| &tail[1..c]);
        let parsed = ph.and_then(|p| {
            if let Some(n) = p
                .strip_prefix("id:")
                .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
            {
                Some(Piece::Id(n.to_owned(), false))
            } else if let Some(n) = p
                .strip_prefix("uuid:")
                .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
            {
                Some(Piece::Id(n.to_owned(), true))
            } else {
                p.strip_prefix("time:").map(|f| Piece::Time(f.to_owned()))
            }
        });
        match (parsed, close) {
            (Some(p), Some(c)) => {
                out.push(Piece::Lit(rest[..i].to_owned()));
                out.push(p);
                rest = &tail[c + 1..];
            }
            _ => {
                out.push(Piece::Lit(rest[..=i].to_owned()));
                rest = &rest[i + 1..];
            }
        }
    }
    out.push(Piece::Lit(rest.to_owned()));
    out
}

fn time_len(fmt: &str) -> usize {
    fmt.replace("%Y", "YYYY")
        .replace("%m", "mm")
        .replace("%d", "dd")
        .replace("%H", "HH")
        .replace("%M", "MM")
        .replace("%S", "SS")
        .replace("%f", "ffffff")
        .len()
}

impl Binds {
    fn substitute(&mut self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.subst_str(s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.substitute(x)).collect()),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, x)| (self.subst_str(k), self.substitute(x)))
                    .collect(),
            ),
            v => v.clone(),
        }
    }

    fn subst_str(&mut self, s: &str) -> String {
        if !s.contains('<') {
            return s.to_owned();
        }
        let mut out = String::new();
        for p in pieces(s) {
            match p {
                Piece::Lit(l) => out.push_str(&l),
                Piece::Id(n, dash) => {
                    let v = self
                        .ids
                        .entry(n)
                        .or_insert_with(murano_api::clock::new_id)
                        .clone();
                    out.push_str(&if dash { dashed(&v) } else { v });
                }
                Piece::Time(f) => out.push_str(&f),
            }
        }
        out
    }

    /// Match a string with placeholders against `got`, binding on success.
    fn match_str(&mut self, want: &str, got: &str) -> bool {
        let ps = pieces(want);
        let mut new = Vec::new();
        if self.match_pieces(&ps, got, &mut new) {
            for (n, v) in new {
                self.ids.insert(n, v);
            }
            true
        } else {
            false
        }
    }

    fn match_pieces(&self, ps: &[Piece], got: &str, new: &mut Vec<(String, String)>) -> bool {
        let Some((first, rest)) = ps.split_first() else {
            return got.is_empty();
        };
        match first {
            Piece::Lit(l) => got
                .strip_prefix(l.as_str())
                .is_some_and(|g| self.match_pieces(rest, g, new)),
            Piece::Time(f) => {
                let n = time_len(f);
                got.get(..n)
                    .is_some_and(|t| t.bytes().any(|b| b.is_ascii_digit()))
                    && got.is_char_boundary(n)
                    && self.match_pieces(rest, &got[n..], new)
            }
            Piece::Id(n, dash) => {
                let bound = self
                    .ids
                    .get(n)
                    .cloned()
                    .or_else(|| new.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()));
                if let Some(b) = bound {
                    let lit = if *dash { dashed(&b) } else { b };
                    return got
                        .strip_prefix(lit.as_str())
                        .is_some_and(|g| self.match_pieces(rest, g, new));
                }
                let len = if *dash { 36 } else { 32 };
                let Some(cand) = got.get(..len) else {
                    return false;
                };
                let hexed: String = cand.chars().filter(|c| *c != '-').collect();
                if hexed.len() != 32 || !hexed.chars().all(|c| c.is_ascii_hexdigit()) {
                    return false;
                }
                if self.ids.values().any(|v| *v == hexed) || new.iter().any(|(_, v)| *v == hexed) {
                    return false;
                }
                new.push((n.clone(), hexed));
                let ok = self.match_pieces(rest, &got[len..], new);
                if !ok {
                    new.pop();
                }
                ok
            }
        }
    }

    fn matches(&mut self, want: &Value, got: &Value, at: &str) -> Result<(), String> {
        let fail = || format!("at {at:?}: got {}, expected {}", short(got), short(want));
        match (want, got) {
            (Value::String(w), Value::String(g)) => {
                if self.match_str(w, g) {
                    Ok(())
                } else {
                    Err(fail())
                }
            }
            (Value::Array(w), Value::Array(g)) => {
                if w.len() != g.len() {
                    return Err(fail());
                }
                // A package's names built from Python sets; not the list of
                // category objects `GET /catalog/categories` answers.
                let unordered = ["tags", "categories", "class_definitions"]
                    .iter()
                    .any(|k| at.ends_with(k))
                    && w.iter().all(Value::is_string);
                if unordered {
                    let mut ws: Vec<String> = w.iter().map(Value::to_string).collect();
                    let mut gs: Vec<String> = g.iter().map(Value::to_string).collect();
                    ws.sort();
                    gs.sort();
                    return if ws == gs { Ok(()) } else { Err(fail()) };
                }
                for (i, (a, b)) in w.iter().zip(g).enumerate() {
                    self.matches(a, b, &format!("{at}/{i}"))?;
                }
                Ok(())
            }
            (Value::Object(w), Value::Object(g)) => {
                if w.len() != g.len() {
                    let wk: Vec<_> = w.keys().collect();
                    let gk: Vec<_> = g.keys().collect();
                    return Err(format!("at {at:?}: keys {gk:?}, expected {wk:?}"));
                }
                let mut used = BTreeSet::new();
                for (k, wv) in w {
                    let gk = if g.contains_key(k) && !k.contains('<') {
                        k.clone()
                    } else {
                        let mut found = None;
                        for cand in g
                            .keys()
                            .filter(|c| !w.contains_key(*c) && !used.contains(*c))
                        {
                            if self.match_str(k, cand) {
                                found = Some(cand.clone());
                                break;
                            }
                        }
                        found.ok_or_else(|| {
                            format!(
                                "at {at:?}: no key {k:?} in {:?}",
                                g.keys().collect::<Vec<_>>()
                            )
                        })?
                    };
                    used.insert(gk.clone());
                    self.matches(wv, &g[&gk], &format!("{at}/{k}"))?;
                }
                Ok(())
            }
            (w, g) if w == g => Ok(()),
            _ => Err(fail()),
        }
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 300 {
        format!(
            "{}…",
            &s[..s.char_indices().nth(300).map_or(s.len(), |(i, _)| i)]
        )
    } else {
        s
    }
}
