//! `murano deploy --dry-run` on a hand-written environment of the deploy
//! oracle and on the bundled shop (when the shared data is beside the
//! checkout: Murano's core library is not part of the project).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use murano_engine::deploy::{dry_run_task, DeployOptions, PackageFiles};
use murano_engine::host::OfflineHost;
use murano_testkit::deploy_case::{case_packages, read_package};
use serde_json::Value as Json;

mod common;
use common::{murano, workspace};

fn shared() -> Option<PathBuf> {
    let shared = std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared"));
    shared.join("conformance/deploy").is_dir().then_some(shared)
}

#[test]
fn deploy_needs_dry_run() {
    let out = murano().args(["deploy", "model.json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--dry-run"));
}

#[test]
fn a_hand_written_environment_deploys() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let id = "deploy.hand.mysql-security-group";
    let model = shared.join(format!("conformance/deploy/models/{id}.json"));
    // The packages the case loads (the application's Require closure).
    let cases = std::fs::read_to_string(shared.join("conformance/deploy/cases.jsonl")).unwrap();
    let case: serde_json::Value = cases
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|c| c["id"] == id)
        .unwrap();
    let dirs: Vec<PathBuf> = case["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| shared.join("corpus").join(p["dir"].as_str().unwrap()))
        .collect();
    let run = |format: &str| {
        let mut cmd = murano();
        cmd.args(["deploy", "--dry-run", "--oracle-names", "--format", format])
            .arg(&model);
        for d in &dirs {
            cmd.arg("--catalog").arg(d);
        }
        cmd.arg("--catalog")
            .arg(shared.join("conformance/engine/meta/io.murano"))
            .output()
            .unwrap()
    };
    let out = run("human");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("Deployment: ok"), "{text}");
    assert!(
        text.contains("[1] create stack murano--abcdej5399reo1"),
        "{text}"
    );
    let out = run("json");
    assert_eq!(out.status.code(), Some(0));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["heat"][0]["op"], "create");
    assert_eq!(plan["agent_plans"].as_array().map(Vec::len), Some(4));
    assert_eq!(plan["outcome"]["ok"], true);
}

/// An outcome with each frame's file cut to its path inside the package.
fn without_folders(outcome: &Json) -> Json {
    let mut outcome = outcome.clone();
    if let Some(frames) = outcome
        .pointer_mut("/raised/frames")
        .and_then(Json::as_array_mut)
    {
        for frame in frames {
            if let Some(file) = frame["file"].as_str() {
                let inner = file.find("Classes/").map_or(file, |i| &file[i..]);
                frame["file"] = Json::from(inner);
            }
        }
    }
    outcome
}

/// The issue's bar: `murano deploy --dry-run` of every public hand-written
/// model prints the Heat templates and agent plans of the library's plan,
/// and the `deploy` conformance suite compares that plan with Murano's
/// recording of the case (the cases that still differ there are listed,
/// with the first difference, in murano-engine's
/// tests/deploy-known-failures.txt).
#[test]
fn every_hand_written_model_prints_the_plan_the_suite_compares() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let cases = std::fs::read_to_string(shared.join("conformance/deploy/cases.jsonl")).unwrap();
    let hand: Vec<Json> = cases
        .lines()
        .filter_map(|l| serde_json::from_str::<Json>(l).ok())
        .filter(|c| {
            c["id"]
                .as_str()
                .is_some_and(|id| id.starts_with("deploy.hand."))
        })
        .collect();
    assert!(hand.len() >= 6, "{} hand-written cases", hand.len());
    for case in &hand {
        let id = case["id"].as_str().unwrap();
        let packages = case_packages(&shared, case);
        let model_path = shared
            .join("conformance/deploy")
            .join(case["model"].as_str().unwrap());
        // The library, as the conformance suite runs it.
        let files: Vec<PackageFiles> = packages
            .iter()
            .map(|(dir, name)| read_package(dir, name).unwrap())
            .collect();
        let model: Json = serde_json::from_slice(&std::fs::read(&model_path).unwrap()).unwrap();
        let action = &case["task"]["action"];
        let plan = dry_run_task(
            &files,
            Arc::new(OfflineHost::default()),
            &model,
            action["object_id"].as_str(),
            action["method"].as_str().unwrap_or("deploy"),
            &DeployOptions::default(),
        )
        .to_json();
        // The command.
        let mut cmd = murano();
        cmd.args(["deploy", "--dry-run", "--oracle-names", "--format", "json"])
            .arg(&model_path);
        for (dir, _) in &packages {
            cmd.arg("--catalog").arg(dir);
        }
        let out = cmd.output().unwrap();
        let printed: Json = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{id}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        for key in ["heat", "agent_plans"] {
            assert_eq!(printed[key], plan[key], "{id}: {key}");
        }
        // Frames name files by the package's folder, which the command
        // takes from the catalog and the suite from the case.
        assert_eq!(
            without_folders(&printed["outcome"]),
            without_folders(&plan["outcome"]),
            "{id}: outcome"
        );
        let recorded = |key: &str| case[key].as_array().map_or(0, Vec::len);
        assert_eq!(
            printed["heat"].as_array().map(Vec::len),
            Some(recorded("heat")),
            "{id}"
        );
        assert_eq!(
            printed["agent_plans"].as_array().map(Vec::len),
            Some(recorded("agent_plans")),
            "{id}"
        );
    }
}

#[test]
fn a_failing_deployment_prints_the_muranopl_stack_trace() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = std::env::temp_dir().join(format!("murano-deploy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let app = dir.join("app.json");
    let ui = murano()
        .arg("ui")
        .arg(workspace().join("examples/packages/shop"))
        .arg("--values")
        .arg(workspace().join("examples/ui/shop-values.yaml"))
        .arg("--cloud")
        .arg(workspace().join("examples/ui/cloud.yaml"))
        .output()
        .unwrap();
    assert_eq!(ui.status.code(), Some(0));
    std::fs::write(&app, &ui.stdout).unwrap();
    let deploy = |agent_results: Option<&std::path::Path>| {
        let mut cmd = murano();
        cmd.args(["deploy", "--dry-run"])
            .arg(&app)
            .arg("--catalog")
            .arg(workspace().join("examples/packages"))
            .arg("--catalog")
            .arg(shared.join("conformance/engine/meta/io.murano"));
        if let Some(path) = agent_results {
            cmd.arg("--agent-results").arg(path);
        }
        cmd.output().unwrap()
    };
    // As written, the shop deploys.
    let ok = deploy(None);
    let text = String::from_utf8_lossy(&ok.stdout);
    assert_eq!(ok.status.code(), Some(0), "{text}");
    assert!(text.contains("Hello, my-shop!"), "{text}");
    // An agent that reports an error fails the deployment with a trace.
    let results = dir.join("agent-results.json");
    std::fs::write(
        &results,
        r#"[{"FormatVersion": "2.0.0", "ErrorCode": 1, "Body": {"message": "boom"}}]"#,
    )
    .unwrap();
    let out = deploy(Some(&results));
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("Traceback (most recent call last):"),
        "{text}"
    );
    assert!(
        text.contains("com.example.Shop/Classes/Shop.yaml\", line 101:9 in method enableCurrency"),
        "{text}"
    );
}

/// The object model `murano ui` makes of a package, with the example cloud.
fn ui_model(package: &Path, values: &str, dir: &Path) -> PathBuf {
    let values_path = dir.join("values.yaml");
    std::fs::write(&values_path, values).unwrap();
    let ui = murano()
        .arg("ui")
        .arg(package)
        .arg("--values")
        .arg(&values_path)
        .arg("--cloud")
        .arg(workspace().join("examples/ui/cloud.yaml"))
        .output()
        .unwrap();
    assert_eq!(
        ui.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ui.stdout)
    );
    let model = dir.join("model.json");
    std::fs::write(&model, &ui.stdout).unwrap();
    model
}

#[test]
fn heat_hot_packages_deploy_through_their_generated_class() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = std::env::temp_dir().join(format!("murano-deploy-hot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let core = shared.join("conformance/engine/meta/io.murano");
    let values = "group0: {name: web}\ngroup1: {image: img-ubuntu}\n";
    // The bundled example, and the package `murano hot` builds of its
    // template.
    let built = dir.join("built.zip");
    let hot = murano()
        .arg("hot")
        .arg(workspace().join("examples/packages/hello-hot/template.yaml"))
        .arg("-o")
        .arg(&built)
        .output()
        .unwrap();
    assert_eq!(hot.status.code(), Some(0));
    for package in [workspace().join("examples/packages/hello-hot"), built] {
        let model = ui_model(&package, values, &dir);
        let out = murano()
            .args(["deploy", "--dry-run"])
            .arg(&model)
            .arg("--catalog")
            .arg(&package)
            .arg("--catalog")
            .arg(&core)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}: {text}", package.display());
        assert!(text.contains("Deployment: ok"), "{text}");
        // The template of the package is what the generated class pushes.
        assert!(text.contains("[1] create stack"), "{text}");
        assert!(text.contains("OS::Nova::Server"), "{text}");
        assert!(text.contains("img-ubuntu"), "{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_model_without_a_typed_object_is_a_warning() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = std::env::temp_dir().join(format!("murano-deploy-untyped-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let core = shared.join("conformance/engine/meta/io.murano");
    let deploy = |model: &str| {
        let path = dir.join("model.json");
        std::fs::write(&path, model).unwrap();
        murano()
            .args(["deploy", "--dry-run"])
            .arg(&path)
            .arg("--catalog")
            .arg(&core)
            .output()
            .unwrap()
    };
    for model in [
        r#"{"name": "web", "type": "com.example.App"}"#,
        r#"[{"name": "web"}, {"name": "db"}]"#,
    ] {
        let out = deploy(model);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("warning"), "{model}: {stderr}");
        assert!(stderr.contains("no typed object"), "{model}: {stderr}");
    }
    // A typed application: no warning.
    let out = deploy(r#"{"?": {"type": "io.murano.Object", "id": "a1"}}"#);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("no typed object"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--cloud` reads the cloud description `murano ui` and `murano env`
/// read: its `host` mapping sets the offline host's answers, as `--host`
/// does.
#[test]
fn the_cloud_description_sets_the_offline_hosts_answers() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let id = "deploy.hand.mysql-security-group";
    let model = shared.join(format!("conformance/deploy/models/{id}.json"));
    let dir = std::env::temp_dir().join(format!("murano-deploy-cloud-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cloud = dir.join("cloud.yaml");
    std::fs::write(
        &cloud,
        "flavors: [{name: m1.small}]\nhost:\n  fixed_ip: 10.9.8.7\n  floating_ip: 198.51.100.9\n",
    )
    .unwrap();
    let host = dir.join("host.json");
    std::fs::write(
        &host,
        r#"{"fixed_ip": "10.9.8.7", "floating_ip": "198.51.100.9"}"#,
    )
    .unwrap();
    let cases = std::fs::read_to_string(shared.join("conformance/deploy/cases.jsonl")).unwrap();
    let case: Json = cases
        .lines()
        .filter_map(|l| serde_json::from_str::<Json>(l).ok())
        .find(|c| c["id"] == id)
        .unwrap();
    let run = |flag: &str, file: &Path| {
        let mut cmd = murano();
        cmd.args([
            "deploy",
            "--dry-run",
            "--oracle-names",
            "--format",
            "json",
            flag,
        ])
        .arg(file)
        .arg(&model);
        for p in case["packages"].as_array().unwrap() {
            cmd.arg("--catalog")
                .arg(shared.join("corpus").join(p["dir"].as_str().unwrap()));
        }
        cmd.arg("--catalog")
            .arg(shared.join("conformance/engine/meta/io.murano"));
        cmd.output().unwrap()
    };
    let by_cloud = run("--cloud", &cloud);
    let text = String::from_utf8_lossy(&by_cloud.stdout).into_owned();
    assert_eq!(by_cloud.status.code(), Some(0), "{text}");
    assert!(text.contains("10.9.8.7"), "{text}");
    let by_host = run("--host", &host);
    assert_eq!(String::from_utf8_lossy(&by_host.stdout), text);
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "host:\n  fixed_ips: 1.2.3.4\n").unwrap();
    let out = run("--cloud", &bad);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fixed_ips"));
}
