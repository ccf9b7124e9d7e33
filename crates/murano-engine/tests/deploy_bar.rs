//! The robustness bar of `murano deploy --dry-run` (issue 19): every
//! object model the dashboard oracle (`conformance/ui`) expects from the
//! UI forms of real packages, wrapped in an environment, deploys against
//! the offline host without a panic or a hang (the engine's limits bound
//! every run), and every failure is a typed error: at load time Murano's
//! engine exception, during `deploy` a MuranoPL exception with its stack
//! trace.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use murano_engine::deploy::{dry_run, wrap_applications, PackageFiles};
use serde_json::Value as Json;

fn main() {
    let Some(root) = murano_testkit::data_root(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
    else {
        return;
    };
    let corpus = root.join("corpus/packages");
    // Package trees by FullName (the first in path order wins).
    let mut index: BTreeMap<String, PathBuf> = BTreeMap::new();
    for dir in package_dirs(&corpus) {
        if let Ok(p) = load(&dir, "x", true) {
            index.entry(p.name).or_insert(dir);
        }
    }
    let mut cache: HashMap<PathBuf, PackageFiles> = HashMap::new();
    let core = load(
        &root.join("conformance/engine/meta/io.murano"),
        "io.murano",
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let apps = load(
        &corpus.join("murano/meta/io.murano.applications"),
        "io.murano.applications",
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let cases =
        murano_testkit::files_ending(&root.join("conformance/ui/cases/object_model"), ".json");
    let (mut total, mut ok, mut thrown, mut load_errors) = (0, 0, 0, 0);
    let mut violations = Vec::new();
    for path in cases {
        let case = murano_testkit::read_json(&path).unwrap_or_else(|e| panic!("{e}"));
        let Some(model) = case["expected"]
            .get("object_model")
            .filter(|m| m.is_object())
        else {
            continue;
        };
        let id = case["id"].as_str().unwrap_or("?").to_owned();
        total += 1;
        let mut packages = Vec::new();
        let mut todo: Vec<String> = case["package"]["fqn"]
            .as_str()
            .map(str::to_owned)
            .into_iter()
            .collect();
        let mut seen = Vec::new();
        while let Some(name) = todo.pop() {
            if seen.contains(&name) || name.starts_with("io.murano") {
                continue;
            }
            seen.push(name.clone());
            let Some(dir) = index.get(&name) else {
                continue;
            };
            let p = match cache.get(dir) {
                Some(p) => p.clone(),
                None => {
                    let rel = dir
                        .strip_prefix(&corpus)
                        .unwrap_or(dir)
                        .to_string_lossy()
                        .into_owned();
                    let Ok(p) = load(dir, &rel, false) else {
                        continue;
                    };
                    cache.insert(dir.clone(), p.clone());
                    p
                }
            };
            todo.extend(p.requirements.iter().map(|(n, _)| n.clone()));
            packages.push(p);
        }
        packages.push(core.clone());
        packages.push(apps.clone());
        let env = wrap_applications(vec![with_ids(model)]);
        let run = std::panic::catch_unwind(|| dry_run(&packages, &env));
        let plan = match run {
            Ok(plan) => plan,
            Err(_) => {
                violations.push(format!("{id}: panicked"));
                continue;
            }
        };
        match plan.outcome.get("raised") {
            None => ok += 1,
            Some(r) if r["stage"] == "deploy" => {
                thrown += 1;
                let frames = r["frames"].as_array().map_or(0, Vec::len);
                if r["type"] != "MuranoPlException" || frames == 0 {
                    violations.push(format!(
                        "{id}: deploy failed without a MuranoPL stack trace: {r}"
                    ));
                }
            }
            Some(r) => {
                load_errors += 1;
                if !r["type"].is_string() || r["type"] == "NotSupported" {
                    violations.push(format!("{id}: untyped load failure: {r}"));
                }
            }
        }
    }
    println!(
        "deploy bar: {total} object models: {ok} deployed, {thrown} MuranoPL exceptions with a stack trace, {load_errors} load errors, {} violations",
        violations.len()
    );
    for v in &violations {
        println!("  {v}");
    }
    if !violations.is_empty() {
        std::process::exit(1);
    }
}

/// `<id:N>` placeholders of the dashboard oracle as the deploy oracle
/// writes them (`00000000-0000-4000-8000-` + N on 12 digits).
fn with_ids(v: &Json) -> Json {
    match v {
        Json::String(s) => {
            let mut out = String::new();
            let mut rest = s.as_str();
            while let Some(i) = rest.find("<id:") {
                out.push_str(&rest[..i]);
                let after = &rest[i + 4..];
                match after.find('>') {
                    Some(j) if after[..j].chars().all(|c| c.is_ascii_digit()) => {
                        out.push_str(&format!("00000000-0000-4000-8000-{:0>12}", &after[..j]));
                        rest = &after[j + 1..];
                    }
                    _ => {
                        out.push_str("<id:");
                        rest = after;
                    }
                }
            }
            out.push_str(rest);
            Json::String(out)
        }
        Json::Array(a) => Json::Array(a.iter().map(with_ids).collect()),
        Json::Object(m) => Json::Object(m.iter().map(|(k, v)| (k.clone(), with_ids(v))).collect()),
        other => other.clone(),
    }
}

/// Folders holding a `manifest.yaml` (not looking inside a package).
fn package_dirs(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(d) = stack.pop() {
        if d.join("manifest.yaml").is_file() {
            out.push(d);
            continue;
        }
        if let Ok(rd) = std::fs::read_dir(&d) {
            for e in rd.flatten() {
                if e.path().is_dir() {
                    stack.push(e.path());
                }
            }
        }
    }
    out.sort();
    out
}

fn load(dir: &Path, root: &str, manifest_only: bool) -> Result<PackageFiles, String> {
    let mut files = BTreeMap::new();
    if manifest_only {
        let bytes = std::fs::read(dir.join("manifest.yaml")).map_err(|e| e.to_string())?;
        files.insert("manifest.yaml".to_owned(), Arc::new(bytes));
    } else {
        for (rel, full) in murano_testkit::files_below(dir) {
            let bytes = std::fs::read(&full).map_err(|e| format!("{}: {e}", full.display()))?;
            files.insert(rel, Arc::new(bytes));
        }
    }
    PackageFiles::from_files(root, files).map_err(|e| e.to_string())
}
