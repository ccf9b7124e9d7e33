//! `murano init`: scaffolded packages check clean, deploy and pass their
//! tests.

mod pkg36_common;

use pkg36_common::*;

fn check_is_clean(dir: &std::path::Path) {
    let out = murano().arg("check").arg(dir).output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert_eq!(stdout, "", "findings: {stdout}");
    assert!(stderr.contains("0 errors, 0 warnings"), "{stderr}");
}

#[test]
fn every_kind_checks_clean() {
    let s = Scratch::new("init-check");
    for (i, args) in [
        vec![],
        vec!["--ui", "--tests"],
        vec!["--type", "library"],
        vec!["--type", "library", "--tests", "--ui"],
    ]
    .into_iter()
    .enumerate()
    {
        let dir = s.join(&format!("pkg-{i}"));
        let out = murano().arg("init").args(&args).arg(&dir).output().unwrap();
        assert!(out.status.success(), "{args:?}: {:?}", texts(&out));
        assert!(dir.join("manifest.yaml").is_file());
        check_is_clean(&dir);
        let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
        assert!(
            manifest.contains(&format!("FullName: com.example.Pkg{i}")),
            "{manifest}"
        );
        assert_eq!(
            dir.join(format!("Classes/Pkg{i}Tests.yaml")).is_file(),
            args.contains(&"--tests")
        );
        assert_eq!(
            dir.join("UI/ui.yaml").is_file(),
            args.contains(&"--ui") || !args.contains(&"library")
        );
    }
}

#[test]
fn an_application_deploys_and_its_tests_pass() {
    let Some(core) = core_library() else {
        eprintln!("skipping: MURANO_SHARED has no core library (io.murano)");
        return;
    };
    let s = Scratch::new("init-deploy");
    let dir = s.join("web-shop");
    let out = murano()
        .args(["init", "--tests", "--name", "org.acme.WebShop"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", texts(&out));
    check_is_clean(&dir);

    let out = murano()
        .arg("test")
        .arg(&dir)
        .arg("--catalog")
        .arg(&core)
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("org.acme.WebShopTests.testGreeting ... ok"),
        "{stdout}"
    );
    assert!(stdout.contains("1 passed, 0 failed"), "{stdout}");

    let model = s.join("model.json");
    std::fs::write(
        &model,
        r#"{"?": {"type": "org.acme.WebShop", "id": "app"}, "name": "shop"}"#,
    )
    .unwrap();
    let out = murano()
        .args(["deploy", "--dry-run", "--format", "json"])
        .arg(&model)
        .arg("--catalog")
        .arg(&dir)
        .arg("--catalog")
        .arg(&core)
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let plan: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(plan["outcome"]["ok"], true, "{stdout}");
    let reports = plan["reports"].as_array().unwrap();
    assert!(
        reports.iter().any(|r| r["text"] == "Hello from shop"),
        "{reports:?}"
    );
}

#[test]
fn a_library_s_tests_pass() {
    let Some(core) = core_library() else {
        eprintln!("skipping: MURANO_SHARED has no core library (io.murano)");
        return;
    };
    let s = Scratch::new("init-lib");
    let dir = s.join("tools");
    let out = murano()
        .args(["init", "--type", "library", "--tests"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", texts(&out));
    let out = murano()
        .arg("test")
        .arg(&dir)
        .arg("--catalog")
        .arg(&core)
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("com.example.ToolsTests.testGreeting ... ok"),
        "{stdout}"
    );
}

#[test]
fn a_folder_with_files_or_a_bad_name_is_refused() {
    let s = Scratch::new("init-refuse");
    std::fs::write(s.join("keep.txt"), "x").unwrap();
    let out = murano().arg("init").arg(&s.0).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(texts(&out).1.contains("not an empty folder"));
    assert_eq!(std::fs::read_dir(&s.0).unwrap().count(), 1);

    let out = murano()
        .args(["init", "--name", "../evil"])
        .arg(s.join("x"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(texts(&out).1.contains("no package name"));
    assert!(!s.join("x").exists());
}
