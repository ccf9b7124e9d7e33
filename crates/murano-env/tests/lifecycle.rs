//! Conformance of whole environment lifecycles (suite `lifecycle`):
//! Murano's engine deploying, acting on, redeploying and deleting
//! environments against a stateful offline cloud, with murano-api's steps
//! between the tasks (`conformance/lifecycle/`, see its README). Each
//! lifecycle is replayed whole (README §6): task 0 from its model, every
//! later engine task from this crate's own stored description, edits and
//! cloud state. A lifecycle passes when every task matches: outcome,
//! host calls, Heat operations, agent plans, reports, log, final model,
//! the cloud's stacks after the task and murano-api's reaction, generated
//! ids compared modulo one consistent renaming across the lifecycle.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use murano_engine::deploy::{DeployOptions, PackageFiles};
use murano_engine::host::OfflineOptions;
use murano_env::model::{self, ApiReaction};
use murano_env::{run_static_task, run_task, CloudState, TaskRecord};
use murano_testkit::{conclude, read_json, read_jsonl, Suite};
use serde_json::{json, Value as Json};

fn main() {
    let Some((root, known)) = murano_testkit::conformance_setup(
        env!("CARGO_MANIFEST_DIR"),
        "lifecycle-known-failures.txt",
    ) else {
        return;
    };
    let dir = root.join("conformance/lifecycle");
    let cases = read_jsonl(&dir.join("cases.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let mut cache: HashMap<PathBuf, PackageFiles> = HashMap::new();
    let mut suite = Suite::new("lifecycle", &known);
    let filter = std::env::var("LIFECYCLE_CASE").ok();
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?");
        if filter.as_deref().is_some_and(|f| !id.contains(f)) {
            continue;
        }
        let result = run_lifecycle(&root, &dir, case, &mut cache);
        suite.record(id, result);
    }
    conclude(vec![suite.finish()]);
}

fn packages(
    root: &Path,
    dir: &Path,
    case: &Json,
    cache: &mut HashMap<PathBuf, PackageFiles>,
) -> Result<Vec<PackageFiles>, String> {
    let mut list: Vec<(PathBuf, String)> = case["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let d = p["dir"].as_str().unwrap_or("");
            match d.strip_prefix("packages/") {
                Some(rest) => (root.join("corpus/packages").join(rest), rest.to_owned()),
                None => (dir.join(d), d.to_owned()),
            }
        })
        .collect();
    list.push((
        root.join("conformance/engine/meta/io.murano"),
        "io.murano".to_owned(),
    ));
    list.push((
        root.join("corpus/packages/murano/meta/io.murano.applications"),
        "io.murano.applications".to_owned(),
    ));
    let mut out = Vec::new();
    for (path, name) in list {
        if let Some(p) = cache.get(&path) {
            out.push(p.clone());
            continue;
        }
        let p = murano_testkit::deploy_case::read_package(&path, &name)?;
        cache.insert(path, p.clone());
        out.push(p);
    }
    Ok(out)
}

fn run_lifecycle(
    root: &Path,
    dir: &Path,
    case: &Json,
    cache: &mut HashMap<PathBuf, PackageFiles>,
) -> Result<(), String> {
    let packages = packages(root, dir, case, cache)?;
    let env_id = case["environment"]["id"].as_str().unwrap_or("");
    let project = case["environment"]["project_id"].as_str().unwrap_or("");
    let user = case["environment"]["user_id"].as_str().unwrap_or("");
    let offline = OfflineOptions::default();
    let options = DeployOptions::default();
    let mut cloud = CloudState::default();
    let mut description: Option<Json> = None;
    let mut built: HashMap<String, Json> = HashMap::new();
    let mut expected_ids = Canon::default();
    let mut actual_ids = Canon::default();
    let mut recorded_uuid = 0;
    for t in case["tasks"].as_array().into_iter().flatten() {
        // README §6: the id counter continues from the previous task's
        // `cloud_after.counters.uuid` (Murano's plumbing draws ids that
        // never show, so the recorded count can be ahead of ours); ids
        // hidden in base64 text (agent configuration in boot scripts)
        // only match that way.
        cloud.counters.uuid = cloud.counters.uuid.max(recorded_uuid);
        recorded_uuid = t["cloud_after"]["counters"]["uuid"].as_u64().unwrap_or(0);
        let index = t["index"].as_u64().unwrap_or(0);
        let kind = t["kind"].as_str().unwrap_or("");
        let at = |m: String| format!("task {index} ({kind}, {}): {m}", t["label"]);
        if t["engine"] == json!(false) {
            // A deletion murano-api did alone.
            let gone = description
                .as_ref()
                .is_some_and(|d| model::deletion_model(d, env_id).is_none());
            let api = if gone {
                ApiReaction::Removed.to_json()
            } else {
                json!({"engine": "would run"})
            };
            if api["environment"] != t["api"]["environment"] {
                return Err(at(format!("api: expected {}, got {api}", t["api"])));
            }
            description = None;
            continue;
        }
        let (record, api) = match kind {
            "static_action" | "model_builder" => {
                let mut task = t["task"].clone();
                if let (Some(arg), Some(d)) = (t["model_arg"].as_str(), description.as_ref()) {
                    let args = model::model_builder_args(d, arg, &task["action"]["args"]);
                    task["action"]["args"] = args;
                }
                let r = run_static_task(&packages, &cloud, &offline, &task, &options);
                if r.outcome.get("ok").is_some() {
                    if let Some(label) = t["label"].as_str() {
                        built.insert(label.to_owned(), r.outcome["result"].clone());
                    }
                }
                let api = json!({"http_status": model::static_http_status(&r.outcome)});
                (r, api)
            }
            _ => {
                let task =
                    engine_task(t, kind, dir, description.as_ref(), &built, env_id).map_err(at)?;
                let task = model::engine_task(
                    task.0,
                    task.1.as_ref().map(|(o, m, a)| (o.as_str(), m.as_str(), a)),
                    env_id,
                    project,
                    user,
                );
                let r = run_task(&packages, &cloud, &offline, &task, &options);
                let reaction = model::process_result(&r.final_model, r.raised(), r.report_levels());
                let api = reaction.to_json();
                description = match reaction {
                    ApiReaction::Stored { description, .. } => Some(description),
                    ApiReaction::Removed => None,
                };
                (r, api)
            }
        };
        cloud = record.cloud_after.clone();
        if let Some(dump) = std::env::var_os("LIFECYCLE_DUMP") {
            let path = Path::new(&dump).join(format!("{index}.json"));
            let got = json!({"host_calls": record.recording.host_calls, "final_model": record.final_model});
            let _ = std::fs::write(path, got.to_string());
        }
        if std::env::var_os("LIFECYCLE_COUNTERS").is_some() {
            println!(
                "task {index}: counters expected {} got {}",
                t["cloud_after"]["counters"],
                cloud.to_json()["counters"]
            );
        }
        compare(t, &record, &api, &mut expected_ids, &mut actual_ids).map_err(at)?;
    }
    Ok(())
}

type Action = (String, String, Json);

/// The model and action of an engine task, built as murano-api builds
/// them (README §2.3).
fn engine_task(
    t: &Json,
    kind: &str,
    dir: &Path,
    description: Option<&Json>,
    built: &HashMap<String, Json>,
    env_id: &str,
) -> Result<(Json, Option<Action>), String> {
    let recorded = &t["task"]["action"];
    let model = match (t["derivation"]["from"].as_str(), description) {
        (Some("initial"), _) => read_json(&dir.join(t["model"].as_str().unwrap_or("")))?,
        (_, Some(d)) if kind == "delete" => model::deletion_model(d, env_id)
            .ok_or("a deletion task for a description without ObjectsCopy")?,
        (_, Some(d)) => {
            let mut m = model::task_model(d, env_id);
            for edit in t["derivation"]["edits"].as_array().into_iter().flatten() {
                let mut edit = edit.clone();
                if let Some(label) = edit["value_from"]["label"].as_str() {
                    if let Some(v) = built.get(label) {
                        edit["value"] = v.clone();
                    }
                }
                model::apply_edit(&mut m, &edit).map_err(|e| e.to_string())?;
            }
            m
        }
        (_, None) => return Err("no stored environment".into()),
    };
    let action = match kind {
        "delete" => None,
        "action" => {
            let id = t["action_id"].as_str().unwrap_or("");
            let d = description.ok_or("no stored environment")?;
            let found = model::find_action(d, id).map_err(|e| e.to_string())?;
            if found.object_id != recorded["object_id"] || found.method != recorded["method"] {
                return Err(format!(
                    "action {id}: found {}.{}, recorded {}",
                    found.object_id, found.method, recorded
                ));
            }
            Some((found.object_id, found.method, recorded["args"].clone()))
        }
        _ => Some((
            env_id.to_owned(),
            "deploy".to_owned(),
            recorded.get("args").cloned().unwrap_or_else(|| json!({})),
        )),
    };
    Ok((model, action))
}

/// Generated ids renamed by order of first appearance (README §6): the
/// n-th distinct id met becomes `@n` (`@n-` in its dashed form).
#[derive(Default)]
struct Canon {
    seen: BTreeMap<u64, usize>,
}

const DASHED: &str = "feed0000-0000-0000-0000-";
const HEX: &str = "feed0000000000000000";

impl Canon {
    fn number(&mut self, digits: &str) -> Option<usize> {
        let n = u64::from_str_radix(digits, 16).ok()?;
        let next = self.seen.len() + 1;
        Some(*self.seen.entry(n).or_insert(next))
    }

    fn string(&mut self, s: &str) -> String {
        if !s.contains("feed0000") {
            return s.to_owned();
        }
        let mut out = String::new();
        let mut rest = s;
        while let Some(i) = rest.find("feed0000") {
            out.push_str(&rest[..i]);
            let tail = &rest[i..];
            let hex12 = |t: &str| t.len() >= 12 && t[..12].bytes().all(|b| b.is_ascii_hexdigit());
            if let Some(d) = tail.strip_prefix(DASHED).filter(|d| hex12(d)) {
                if let Some(n) = self.number(&d[..12]) {
                    out.push_str(&format!("@{n}-"));
                    rest = &d[12..];
                    continue;
                }
            }
            if let Some(d) = tail.strip_prefix(HEX).filter(|d| hex12(d)) {
                if let Some(n) = self.number(&d[..12]) {
                    out.push_str(&format!("@{n}"));
                    rest = &d[12..];
                    continue;
                }
            }
            out.push_str("feed0000");
            rest = &tail[8..];
        }
        out.push_str(rest);
        out
    }

    fn value(&mut self, v: &Json) -> Json {
        match v {
            Json::String(s) => Json::String(self.string(s)),
            Json::Array(a) => Json::Array(a.iter().map(|x| self.value(x)).collect()),
            Json::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort_by_key(|k| (mask(k), (*k).clone()));
                let mut out = serde_json::Map::new();
                for k in keys {
                    let ck = self.string(k);
                    let cv = self.value(&m[k]);
                    out.insert(ck, cv);
                }
                Json::Object(out)
            }
            other => other.clone(),
        }
    }
}

/// A key with its generated ids masked (a renaming-independent order).
fn mask(k: &str) -> String {
    let mut c = Canon::default();
    let s = c.string(k);
    s.chars().filter(|ch| !ch.is_ascii_digit()).collect()
}

fn short(v: &Json) -> String {
    let text = v.to_string();
    match text.char_indices().nth(400) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// The first difference of two values (canonical forms), with its path.
fn diff(e: &Json, a: &Json, path: &str) -> Option<String> {
    match (e, a) {
        (Json::Object(x), Json::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    None => return Some(format!("{path}: missing key {k}")),
                    Some(w) => {
                        if let Some(d) = diff(v, w, &format!("{path}.{k}")) {
                            return Some(d);
                        }
                    }
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{path}: unexpected key {k}"))
        }
        (Json::Array(x), Json::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if let Some(d) = diff(v, w, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| {
                format!(
                    "{path}: expected {} items, got {} (next: {})",
                    x.len(),
                    y.len(),
                    short(
                        x.get(y.len())
                            .or_else(|| y.get(x.len()))
                            .unwrap_or(&Json::Null)
                    )
                )
            })
        }
        (Json::Number(x), Json::Number(y)) if x.as_f64() == y.as_f64() => None,
        _ if e == a => None,
        _ => Some(format!("{path}: expected {}, got {}", short(e), short(a))),
    }
}

fn outcome_view(o: &Json) -> Json {
    match o.get("raised") {
        None => json!({"ok": o.get("result").cloned().unwrap_or(Json::Null)}),
        Some(r) => {
            let frames: Vec<Json> = r["frames"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|f| json!([f["file"], f["line"], f["method"], f["class"]]))
                .collect();
            json!({"stage": r["stage"], "type": r["type"],
                   "murano_names": r.get("murano_names").cloned().unwrap_or(Json::Null),
                   "frames": frames})
        }
    }
}

fn calls_view(calls: &Json) -> Json {
    Json::Array(
        calls
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                let mut v = json!({"class": c["class"], "method": c["method"],
                                   "receiver": c["receiver"], "args": c["args"],
                                   "kwargs": c["kwargs"]});
                if let Some(r) = c.get("raised") {
                    v["raised"] = r["type"].clone();
                } else if c["class"] != "io.murano.system.Resources" {
                    v["result"] = c.get("result").cloned().unwrap_or(Json::Null);
                }
                v
            })
            .collect(),
    )
}

/// Reports with the task's own error report text blanked (its wording is
/// informative, README §6 rule 1).
fn reports_view(reports: &Json, raised: bool) -> Json {
    let mut r = reports.clone();
    if raised {
        if let Some(last) = r.as_array_mut().and_then(|a| a.last_mut()) {
            if last["level"] == "error" {
                last["text"] = Json::Null;
            }
        }
    }
    r
}

fn model_view(m: &Json) -> Json {
    if m.is_null() {
        return Json::Null;
    }
    let mut out = serde_json::Map::new();
    for key in [
        "Objects",
        "ObjectsCopy",
        "Attributes",
        "project_id",
        "user_id",
    ] {
        out.insert(key.into(), m.get(key).cloned().unwrap_or(Json::Null));
    }
    Json::Object(out)
}

fn compare(
    t: &Json,
    r: &TaskRecord,
    api: &Json,
    expected_ids: &mut Canon,
    actual_ids: &mut Canon,
) -> Result<(), String> {
    let raised_e = t["outcome"].get("raised").is_some();
    let cloud = r.cloud_after.to_json();
    let fields: Vec<(&str, Json, Json)> = vec![
        (
            "outcome",
            outcome_view(&t["outcome"]),
            outcome_view(&r.outcome),
        ),
        (
            "host_calls",
            calls_view(&t["host_calls"]),
            calls_view(&json!(r.recording.host_calls)),
        ),
        ("heat", t["heat"].clone(), json!(r.recording.heat)),
        (
            "agent_plans",
            t["agent_plans"].clone(),
            json!(r.recording.agent_plans),
        ),
        (
            "reports",
            reports_view(&t["reports"], raised_e),
            reports_view(&json!(r.recording.reports), r.raised()),
        ),
        ("log", t["log"].clone(), json!(r.log)),
        (
            "final_model",
            model_view(&t["final_model"]),
            model_view(&r.final_model),
        ),
        (
            "cloud_after.heat",
            t["cloud_after"]["heat"].clone(),
            cloud["heat"].clone(),
        ),
        ("api", t["api"].clone(), api.clone()),
    ];
    for (name, e, a) in fields {
        let ce = expected_ids.value(&e);
        let ca = actual_ids.value(&a);
        if let Some(d) = diff(&ce, &ca, name) {
            if std::env::var_os("LIFECYCLE_VERBOSE").is_some() {
                println!("expected {name}: {ce:#}\nactual {name}: {ca:#}");
                println!("actual outcome: {}", r.outcome);
            }
            return Err(d);
        }
    }
    Ok(())
}
