//! Conformance of dry-run deployments (suite `deploy`): Murano's engine
//! deploying environments against the offline host
//! (`conformance/deploy/`, see its README). A case passes when every
//! decisive field of README §6 matches: the outcome (stage, type, MuranoPL
//! names, frames), the host calls, Heat operations, agent plans, reports,
//! log lines and the final model, generated ids compared modulo a
//! consistent renaming. Exception messages are informative (rule 1), also
//! as the text of the task's own error report. Where branches may
//! interleave (several applications, `Parallel`/`pselect` in a package)
//! and the exact sequences differ, §6's fallback compares them restricted
//! to each application.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use murano_engine::deploy::{DeployOptions, DeployPlan, PackageFiles};
use murano_engine::host::OfflineHost;
use murano_engine::task::{run_engine_task, TaskAction};
use murano_testkit::{conclude, read_json, read_jsonl, Suite};
use serde_json::Value as Json;

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "deploy-known-failures.txt")
    else {
        return;
    };
    let dir = root.join("conformance/deploy");
    let cases = read_jsonl(&dir.join("cases.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let mut cache: HashMap<PathBuf, PackageFiles> = HashMap::new();
    let mut suite = Suite::new("deploy", &known);
    let filter = std::env::var("DEPLOY_CASE").ok();
    let verbose = std::env::var_os("DEPLOY_VERBOSE").is_some();
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?");
        if filter.as_deref().is_some_and(|f| !id.contains(f)) {
            continue;
        }
        let result = run_case(&root, &dir, case, &mut cache, verbose);
        suite.record(id, result);
    }
    conclude(vec![suite.finish()]);
}

fn load_package(
    cache: &mut HashMap<PathBuf, PackageFiles>,
    path: &Path,
    root_name: &str,
) -> Result<PackageFiles, String> {
    if let Some(p) = cache.get(path) {
        return Ok(p.clone());
    }
    let p = murano_testkit::deploy_case::read_package(path, root_name)?;
    cache.insert(path.to_owned(), p.clone());
    Ok(p)
}

fn run_case(
    root: &Path,
    dir: &Path,
    case: &Json,
    cache: &mut HashMap<PathBuf, PackageFiles>,
    verbose: bool,
) -> Result<(), String> {
    let mut packages = Vec::new();
    for (path, name) in murano_testkit::deploy_case::case_packages(root, case) {
        packages.push(load_package(cache, &path, &name)?);
    }
    let model_path = dir.join(case["model"].as_str().unwrap_or(""));
    let model = read_json(&model_path)?;
    let action = &case["task"]["action"];
    // Through the engine-task path environments use (murano-env).
    let env_id = action["object_id"]
        .as_str()
        .or_else(|| model.pointer("/Objects/?/id").and_then(Json::as_str))
        .unwrap_or("")
        .to_owned();
    let task_action = TaskAction {
        object_id: env_id.clone(),
        method: action["method"].as_str().unwrap_or("deploy").to_owned(),
        args: action
            .get("args")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({})),
    };
    let plan = run_engine_task(
        &packages,
        Arc::new(OfflineHost::default()),
        &env_id,
        &model,
        Some(&task_action),
        &DeployOptions::default(),
    );
    if verbose {
        println!(
            "{}",
            serde_json::to_string_pretty(&plan.to_json()).unwrap_or_default()
        );
    }
    compare(case, &plan, interleaving(case, &packages))
}

/// Generated ids bound to placeholders (`@N`).
#[derive(Default, Clone)]
struct Ids {
    bound: HashMap<String, String>,
    taken: HashMap<String, String>,
}

impl Ids {
    fn bind(&mut self, placeholder: &str, actual: &str) -> bool {
        if placeholder == "@addr" {
            return true;
        }
        match self.bound.get(placeholder) {
            Some(a) => a == actual,
            None => {
                if self.taken.contains_key(actual) {
                    return false;
                }
                self.bound.insert(placeholder.to_owned(), actual.to_owned());
                self.taken.insert(actual.to_owned(), placeholder.to_owned());
                true
            }
        }
    }

    /// `expected` (with placeholders) against `actual`.
    fn string(&mut self, expected: &str, actual: &str) -> bool {
        if !expected.contains('@') {
            return expected == actual;
        }
        let mut trial = self.clone();
        let ok = trial.string_at(expected, actual);
        if ok {
            *self = trial;
        }
        ok
    }

    fn string_at(&mut self, expected: &str, actual: &str) -> bool {
        let Some(at) = expected.find('@') else {
            return expected == actual;
        };
        let (lit, rest) = expected.split_at(at);
        let Some(actual_rest) = actual.strip_prefix(lit) else {
            return false;
        };
        let token_len = rest[1..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(rest.len(), |i| i + 1);
        let placeholder = if rest[1..].starts_with("addr") {
            "@addr"
        } else if token_len > 1 {
            &rest[..token_len]
        } else {
            // A plain `@`.
            return match actual_rest.strip_prefix('@') {
                Some(a) => self.string_at(&rest[1..], a),
                None => false,
            };
        };
        let after = &rest[placeholder.len()..];
        let id_len = id_token_len(actual_rest);
        if id_len == 0 {
            // Literal text that looks like a placeholder (`plugin="ldap@1.12"`
            // in a resource file): no generated id there.
            return match actual_rest.strip_prefix(placeholder) {
                Some(a) => self.string_at(after, a),
                None => false,
            };
        }
        let (id, tail) = actual_rest.split_at(id_len);
        self.bind(placeholder, id) && self.string_at(after, tail)
    }

    fn value(&mut self, expected: &Json, actual: &Json, path: &str) -> Result<(), String> {
        let mismatch = || {
            Err(format!(
                "{path}: expected {}, got {}",
                short(expected),
                short(actual)
            ))
        };
        match (expected, actual) {
            (Json::String(e), Json::String(a)) => {
                if self.string(e, a) {
                    Ok(())
                } else {
                    mismatch()
                }
            }
            (Json::Number(e), Json::Number(a)) => {
                if e.as_f64() == a.as_f64() {
                    Ok(())
                } else {
                    mismatch()
                }
            }
            (Json::Array(e), Json::Array(a)) => {
                if e.len() != a.len() {
                    return Err(format!(
                        "{path}: expected {} items, got {} ({} vs {})",
                        e.len(),
                        a.len(),
                        short(expected),
                        short(actual)
                    ));
                }
                for (i, (x, y)) in e.iter().zip(a).enumerate() {
                    self.value(x, y, &format!("{path}[{i}]"))?;
                }
                Ok(())
            }
            (Json::Object(e), Json::Object(a)) => {
                if e.len() != a.len() {
                    let ek: Vec<&String> = e.keys().collect();
                    let ak: Vec<&String> = a.keys().collect();
                    return Err(format!("{path}: keys {ek:?} vs {ak:?}"));
                }
                let mut used: Vec<&String> = Vec::new();
                for (k, v) in e {
                    if !k.contains('@') {
                        let Some(av) = a.get(k) else {
                            return Err(format!("{path}: missing key {k}"));
                        };
                        used.push(k);
                        self.value(v, av, &format!("{path}.{k}"))?;
                        continue;
                    }
                    let mut found = false;
                    let mut last_err = format!("{path}: no key matches {k}");
                    for (ak, av) in a {
                        if used.contains(&ak) {
                            continue;
                        }
                        let mut trial = self.clone();
                        if !trial.string(k, ak) {
                            continue;
                        }
                        match trial.value(v, av, &format!("{path}.{k}")) {
                            Ok(()) => {
                                *self = trial;
                                used.push(ak);
                                found = true;
                                break;
                            }
                            Err(e) => last_err = e,
                        }
                    }
                    if !found {
                        return Err(last_err);
                    }
                }
                Ok(())
            }
            (e, a) if e == a => Ok(()),
            _ => mismatch(),
        }
    }
}

/// The length of the generated id `text` starts with: 32 hex digits, or
/// a dashed UUID (8-4-4-4-12).
fn id_token_len(text: &str) -> usize {
    let b = text.as_bytes();
    let hex = |r: std::ops::Range<usize>| {
        r.clone()
            .all(|i| b.get(i).is_some_and(u8::is_ascii_hexdigit))
    };
    if hex(0..8)
        && b.get(8) == Some(&b'-')
        && hex(9..13)
        && b.get(13) == Some(&b'-')
        && hex(14..18)
        && b.get(18) == Some(&b'-')
        && hex(19..23)
        && b.get(23) == Some(&b'-')
        && hex(24..36)
    {
        return 36;
    }
    if hex(0..32) {
        return 32;
    }
    text.find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(text.len())
}

fn short(v: &Json) -> String {
    let text = v.to_string();
    if text.len() > 300 {
        format!("{}…", &text[..text.floor_char_boundary_compat(300)])
    } else {
        text
    }
}

trait FloorBoundary {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}

impl FloorBoundary for String {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        while i > 0 && !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

fn compare(case: &Json, plan: &DeployPlan, interleaving: bool) -> Result<(), String> {
    let mut ids = Ids::default();
    let got = plan.to_json();
    // 1. outcome
    let exp = &case["outcome"];
    match (exp.get("raised"), got["outcome"].get("raised")) {
        (None, None) => {}
        (Some(_), None) => {
            return Err(format!(
                "outcome: expected {}, got ok",
                short(&exp["raised"])
            ))
        }
        (None, Some(r)) => return Err(format!("outcome: expected ok, got {}", short(r))),
        (Some(e), Some(a)) => {
            for key in ["stage", "type", "murano_names"] {
                if let Some(ev) = e.get(key) {
                    ids.value(ev, &a[key], &format!("outcome.{key}"))
                        .map_err(|m| format!("{m} (message {})", short(&a["message"])))?;
                }
            }
            if let Some(frames) = e.get("frames").and_then(Json::as_array) {
                let got_frames = a["frames"].as_array().cloned().unwrap_or_default();
                let pick =
                    |f: &Json| serde_json::json!([f["file"], f["line"], f["method"], f["class"]]);
                let ef: Vec<Json> = frames.iter().map(pick).collect();
                let af: Vec<Json> = got_frames.iter().map(pick).collect();
                if ef != af {
                    return Err(format!(
                        "outcome.frames: expected {}, got {} (message {})",
                        short(&Json::Array(ef)),
                        short(&Json::Array(af)),
                        short(&a["message"])
                    ));
                }
            }
        }
    }
    // 2.-3. the sequences: exactly, or where branches interleave (§6)
    // restricted to each application.
    let exact = {
        let mut trial = ids.clone();
        sequences(&mut trial, case, &got).map(|()| trial)
    };
    ids = match exact {
        Ok(t) => t,
        Err(e) if interleaving => {
            let mut trial = ids.clone();
            per_application(&mut trial, case, &got)
                .map_err(|f| format!("{e} (per application: {f})"))?;
            trial
        }
        Err(e) => return Err(e),
    };
    // 4. final model
    let ef = &case["final_model"];
    let af = &got["final_model"];
    if ef.is_null() || af.is_null() {
        if ef.is_null() != af.is_null() {
            return Err(format!(
                "final_model: expected {}, got {}",
                short(ef),
                short(af)
            ));
        }
        return Ok(());
    }
    for key in ["Objects", "ObjectsCopy", "Attributes"] {
        ids.value(&ef[key], &af[key], &format!("final_model.{key}"))?;
    }
    Ok(())
}

/// Exact comparison of host calls, Heat operations, agent plans, reports
/// and log lines (§6 rules 2 and 3).
fn sequences(ids: &mut Ids, case: &Json, got: &Json) -> Result<(), String> {
    // 2. host calls
    let ec = case["host_calls"].as_array().cloned().unwrap_or_default();
    let ac = got["host_calls"].as_array().cloned().unwrap_or_default();
    for (i, (e, a)) in ec.iter().zip(&ac).enumerate() {
        let path = format!(
            "host_calls[{i}] {}.{}",
            e["class"].as_str().unwrap_or("?"),
            e["method"].as_str().unwrap_or("?")
        );
        for key in ["class", "method", "receiver", "args", "kwargs"] {
            ids.value(&e[key], &a[key], &format!("{path}.{key}"))?;
        }
        let resources = e["class"] == "io.murano.system.Resources";
        match (e.get("raised"), a.get("raised")) {
            (Some(er), Some(ar)) => {
                ids.value(&er["type"], &ar["type"], &format!("{path}.raised"))?
            }
            (None, None) if resources => {}
            (None, None) => ids.value(&e["result"], &a["result"], &format!("{path}.result"))?,
            _ => return Err(format!("{path}: expected {} got {}", short(e), short(a))),
        }
    }
    if ec.len() != ac.len() {
        let next = ec
            .get(ac.len())
            .or_else(|| ac.get(ec.len()))
            .map(short)
            .unwrap_or_default();
        return Err(format!(
            "host_calls: expected {} calls, got {} (first extra/missing: {next})",
            ec.len(),
            ac.len()
        ));
    }
    // 3. heat, agent plans, reports, log. The task's own error report
    // carries str(exception), whose wording rule 1 makes informative: its
    // text is not compared.
    let task_error = case["outcome"]["raised"]["message"].as_str();
    let mut reports = case["reports"].clone();
    let mut got_reports = got["reports"].clone();
    if let (Some(msg), Some(er), Some(ar)) = (
        task_error,
        reports.as_array_mut(),
        got_reports.as_array_mut(),
    ) {
        if let (Some(e), Some(a)) = (er.last_mut(), ar.last_mut()) {
            if e["level"] == "error" && e["text"] == msg && a["level"] == "error" {
                e["text"] = Json::Null;
                a["text"] = Json::Null;
            }
        }
    }
    ids.value(&reports, &got_reports, "reports")?;
    for key in ["heat", "agent_plans", "log"] {
        ids.value(&case[key], &got[key], key)?;
    }
    Ok(())
}

/// Whether branches of the case may interleave (§1.3): several
/// applications, or packages with `Parallel` or `pselect`.
fn interleaving(case: &Json, packages: &[PackageFiles]) -> bool {
    let apps = case["final_model"]["Objects"]["applications"]
        .as_array()
        .map_or(0, Vec::len);
    apps > 1
        || packages
            .iter()
            .filter(|p| !p.name.starts_with("io.murano"))
            .any(|p| {
                p.files.iter().any(|(path, bytes)| {
                    path.starts_with("Classes/") && {
                        let text = String::from_utf8_lossy(bytes);
                        text.contains("Parallel:") || text.contains("pselect(")
                    }
                })
            })
}

/// Object ids → the index of the application whose subtree holds them
/// (in the model `Objects`), and Agent objects → their host's
/// application.
fn owners(objects: &Json, calls: &[Json]) -> HashMap<String, usize> {
    fn walk(v: &Json, app: usize, out: &mut HashMap<String, usize>, depth: usize) {
        if depth > 200 {
            return;
        }
        match v {
            Json::Object(m) => {
                if let Some(id) = m.get("?").and_then(|h| h.get("id")).and_then(Json::as_str) {
                    out.entry(id.to_owned()).or_insert(app);
                }
                for x in m.values() {
                    walk(x, app, out, depth + 1);
                }
            }
            Json::Array(a) => {
                for x in a {
                    walk(x, app, out, depth + 1);
                }
            }
            _ => {}
        }
    }
    let mut out = HashMap::new();
    for (i, app) in objects["applications"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        walk(app, i, &mut out, 0);
    }
    for c in calls {
        if c["class"] == "io.murano.system.Agent" && c["method"] == "__init__" {
            let host = c["kwargs"]["host"]["$object"].as_str().unwrap_or("");
            if let (Some(&app), Some(r)) = (out.get(host), c["receiver"].as_str()) {
                out.insert(r.to_owned(), app);
            }
        }
    }
    out
}

/// The application a record is about: its receiver, or the first
/// application object among its arguments.
fn about(v: &Json, keys: &[&str], owners: &HashMap<String, usize>) -> Option<usize> {
    fn find(v: &Json, owners: &HashMap<String, usize>, depth: usize) -> Option<usize> {
        if depth > 50 {
            return None;
        }
        match v {
            Json::Object(m) => {
                if let Some(id) = m.get("$object").and_then(Json::as_str) {
                    if let Some(&a) = owners.get(id) {
                        return Some(a);
                    }
                }
                m.values().find_map(|x| find(x, owners, depth + 1))
            }
            Json::Array(a) => a.iter().find_map(|x| find(x, owners, depth + 1)),
            _ => None,
        }
    }
    for k in keys {
        if let Some(id) = v[*k].as_str() {
            if let Some(&a) = owners.get(id) {
                return Some(a);
            }
        }
    }
    find(&v["args"], owners, 0).or_else(|| find(&v["kwargs"], owners, 0))
}

/// §6's fallback: host calls, Heat operations, agent plans and reports
/// restricted to each application's subtree, compared in order.
fn per_application(ids: &mut Ids, case: &Json, got: &Json) -> Result<(), String> {
    let apps = case["final_model"]["Objects"]["applications"]
        .as_array()
        .map_or(0, Vec::len);
    let empty = Vec::new();
    let ec = case["host_calls"].as_array().unwrap_or(&empty);
    let ac = got["host_calls"].as_array().unwrap_or(&empty);
    let eo = owners(&case["final_model"]["Objects"], ec);
    let ao = owners(&got["final_model"]["Objects"], ac);
    let call_app = |calls: &[Json], owners: &HashMap<String, usize>| -> Vec<Option<usize>> {
        calls
            .iter()
            .map(|c| about(c, &["receiver"], owners))
            .collect()
    };
    let ecall = call_app(ec, &eo);
    let acall = call_app(ac, &ao);
    for app in 0..apps {
        let pick = |items: &[Json], which: &dyn Fn(&Json) -> Option<usize>| -> Vec<Json> {
            items
                .iter()
                .filter(|x| which(x) == Some(app))
                .cloned()
                .collect()
        };
        let e_calls = pick(ec, &|c| {
            ec.iter()
                .position(|x| std::ptr::eq(x, c))
                .and_then(|i| ecall[i])
        });
        let a_calls = pick(ac, &|c| {
            ac.iter()
                .position(|x| std::ptr::eq(x, c))
                .and_then(|i| acall[i])
        });
        let strip = |calls: Vec<Json>| -> Vec<Json> {
            calls
                .into_iter()
                .map(|mut c| {
                    if c["class"] == "io.murano.system.Resources" {
                        if let Some(m) = c.as_object_mut() {
                            m.remove("result");
                        }
                    }
                    c
                })
                .collect()
        };
        ids.value(
            &Json::Array(strip(e_calls)),
            &Json::Array(strip(a_calls)),
            &format!("application {app} host_calls"),
        )?;
        let heat_app = |ops: &Json, calls: &[Option<usize>]| -> Vec<Json> {
            ops.as_array()
                .into_iter()
                .flatten()
                .filter(|h| {
                    h["call_index"]
                        .as_u64()
                        .and_then(|i| calls.get(i as usize).copied().flatten())
                        == Some(app)
                })
                .map(|h| {
                    let mut h = h.clone();
                    if let Some(m) = h.as_object_mut() {
                        m.remove("call_index");
                    }
                    h
                })
                .collect()
        };
        ids.value(
            &Json::Array(heat_app(&case["heat"], &ecall)),
            &Json::Array(heat_app(&got["heat"], &acall)),
            &format!("application {app} heat"),
        )?;
        let plans = |ps: &Json, owners: &HashMap<String, usize>| -> Vec<Json> {
            ps.as_array()
                .into_iter()
                .flatten()
                .filter(|p| about(p, &["host"], owners) == Some(app))
                .map(|p| {
                    let mut p = p.clone();
                    if let Some(m) = p.as_object_mut() {
                        m.remove("call_index");
                    }
                    p
                })
                .collect()
        };
        ids.value(
            &Json::Array(plans(&case["agent_plans"], &eo)),
            &Json::Array(plans(&got["agent_plans"], &ao)),
            &format!("application {app} agent_plans"),
        )?;
        let reports = |rs: &Json, owners: &HashMap<String, usize>| -> Vec<Json> {
            rs.as_array()
                .into_iter()
                .flatten()
                .filter(|r| {
                    let id = r["id"]
                        .as_str()
                        .or_else(|| r["payload"]["instance"].as_str());
                    id.and_then(|i| owners.get(i)).copied() == Some(app)
                })
                .cloned()
                .collect()
        };
        ids.value(
            &Json::Array(reports(&case["reports"], &eo)),
            &Json::Array(reports(&got["reports"], &ao)),
            &format!("application {app} reports"),
        )?;
    }
    Ok(())
}
