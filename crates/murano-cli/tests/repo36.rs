//! `murano repo build` and `murano repo bundle`: the repository layout,
//! its index, the Require closure checks, and muranoclient reading it.

mod pkg36_common;

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::Digest;

use pkg36_common::*;

/// Three packages: org.acme.Web requires org.acme.Lib '0.1.0', which
/// requires org.acme.Base '0'; Web lists an image.
fn three_packages(s: &Scratch) -> PathBuf {
    let src = s.join("src");
    init_package(
        &src.join("base"),
        &["--type", "library", "--name", "org.acme.Base"],
        "",
    );
    init_package(
        &src.join("lib"),
        &["--type", "library", "--name", "org.acme.Lib"],
        "Require:\n  org.acme.Base: '0'\n",
    );
    init_package(
        &src.join("web"),
        &["--name", "org.acme.Web"],
        "Require:\n  org.acme.Lib: '0.1.0'\n",
    );
    std::fs::write(
        src.join("web/images.lst"),
        "Images:\n  - Name: demo.qcow2\n    Url: demo.qcow2\n",
    )
    .unwrap();
    src
}

fn build(args: &[&dyn AsRef<std::ffi::OsStr>]) -> std::process::Output {
    let mut cmd = murano();
    cmd.args(["repo", "build"]);
    for a in args {
        cmd.arg(a);
    }
    cmd.output().unwrap()
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn the_layout_and_index_describe_every_package() {
    let s = Scratch::new("repo-layout");
    let src = three_packages(&s);
    let images = s.join("images");
    std::fs::create_dir_all(&images).unwrap();
    std::fs::write(images.join("demo.qcow2"), b"not really an image").unwrap();
    let bundle = s.join("web.bundle");
    let out = murano()
        .args(["repo", "bundle"])
        .arg(src.join("web"))
        .arg("org.acme.Lib")
        .arg("-o")
        .arg(&bundle)
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", texts(&out));
    let repo = s.join("repo");
    let out = build(&[&src, &bundle, &"--images", &images, &"-o", &repo]);
    assert!(out.status.success(), "{:?}", texts(&out));
    for file in [
        "apps/org.acme.Web.zip",
        "apps/org.acme.Web.0.1.0.zip",
        "apps/org.acme.Lib.zip",
        "apps/org.acme.Lib.0.1.0.zip",
        "apps/org.acme.Base.zip",
        "apps/org.acme.Base.0.zip",
        "bundles/web.bundle",
        "images/demo.qcow2",
    ] {
        assert!(repo.join(file).is_file(), "{file}");
    }
    let index = read_json(&repo.join("index.json"));
    let packages = index["packages"].as_array().unwrap();
    let names: Vec<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["org.acme.Base", "org.acme.Lib", "org.acme.Web"]);
    let web = &packages[2];
    assert_eq!(web["version"], "0.1.0");
    assert_eq!(web["type"], "Application");
    assert_eq!(web["classes"], serde_json::json!(["org.acme.Web"]));
    assert_eq!(
        web["requires"],
        serde_json::json!({"org.acme.Lib": "0.1.0"})
    );
    assert_eq!(web["images"], serde_json::json!(["demo.qcow2"]));
    assert_eq!(web["tags"], serde_json::json!(["application"]));
    for p in packages {
        for file in p["files"].as_array().unwrap() {
            let bytes = std::fs::read(repo.join(file.as_str().unwrap())).unwrap();
            assert_eq!(bytes.len() as u64, p["size"].as_u64().unwrap());
            let hash: String = sha2::Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(p["sha256"], hash.as_str(), "{file}");
        }
    }
    // The hash is the one `murano package` prints for the same folder.
    let out = murano()
        .arg("package")
        .arg(src.join("web"))
        .arg("-o")
        .arg(s.join("web.zip"))
        .output()
        .unwrap();
    let printed = texts(&out).0;
    assert!(
        printed
            .trim_end()
            .ends_with(web["sha256"].as_str().unwrap()),
        "{printed} vs {}",
        web["sha256"]
    );
    assert_eq!(
        std::fs::read(s.join("web.zip")).unwrap(),
        std::fs::read(repo.join("apps/org.acme.Web.zip")).unwrap()
    );
    assert_eq!(index["images"][0]["name"], "demo.qcow2");
    assert_eq!(index["bundles"][0]["name"], "web");
    let written = read_json(&repo.join("bundles/web.bundle"));
    assert_eq!(
        written,
        serde_json::json!({"Packages": [
            {"Name": "org.acme.Web", "Version": "0.1.0"},
            {"Name": "org.acme.Lib"},
        ]})
    );
    // Building again gives the same index, byte for byte.
    let again = s.join("repo2");
    let out = build(&[&src, &bundle, &"--images", &images, &"-o", &again]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read(repo.join("index.json")).unwrap(),
        std::fs::read(again.join("index.json")).unwrap()
    );
}

fn expect_refused(src: &Path, out_dir: &Path, needle: &str, extra: &[&str]) {
    let mut cmd = murano();
    cmd.args(["repo", "build"])
        .arg(src)
        .arg("-o")
        .arg(out_dir)
        .args(extra);
    let out = cmd.output().unwrap();
    let (_, err) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(needle), "{needle:?} not in {err}");
    assert!(!out_dir.join("index.json").exists());
}

#[test]
fn a_missing_requirement_is_refused() {
    let s = Scratch::new("repo-missing");
    let src = s.join("src");
    init_package(
        &src.join("web"),
        &["--name", "org.acme.Web"],
        "Require:\n  org.acme.Nowhere: '1.0'\n",
    );
    expect_refused(
        &src,
        &s.join("repo"),
        "org.acme.Web requires org.acme.Nowhere, which is not in the repository",
        &[],
    );
}

#[test]
fn conflicting_versions_are_refused() {
    let s = Scratch::new("repo-conflict");
    let src = three_packages(&s);
    // Web now also wants Base 1.x, while Lib wants Base 0.x.
    let manifest = src.join("web/manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}  org.acme.Base: '1'\n")).unwrap();
    expect_refused(
        &src,
        &s.join("repo"),
        "no version of org.acme.Base satisfies every requirement",
        &[],
    );
}

#[test]
fn a_require_cycle_is_refused_unless_allowed() {
    let s = Scratch::new("repo-cycle");
    let src = s.join("src");
    init_package(
        &src.join("a"),
        &["--type", "library", "--name", "org.acme.A"],
        "Require:\n  org.acme.B: '0'\n",
    );
    init_package(
        &src.join("b"),
        &["--type", "library", "--name", "org.acme.B"],
        "Require:\n  org.acme.A: '0'\n",
    );
    expect_refused(
        &src,
        &s.join("repo"),
        "Require cycle: org.acme.A -> org.acme.B -> org.acme.A",
        &[],
    );
    let out = build(&[&src, &"-o", &s.join("repo"), &"--allow-cycles"]);
    assert!(out.status.success(), "{:?}", texts(&out));
}

#[test]
fn a_bundle_naming_a_package_not_in_the_repository_is_refused() {
    let s = Scratch::new("repo-bundle");
    let src = three_packages(&s);
    let bundle = s.join("x.bundle");
    std::fs::write(&bundle, r#"{"Packages": [{"Name": "org.acme.Other"}]}"#).unwrap();
    let out = build(&[&src, &bundle, &"-o", &s.join("repo")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(texts(&out)
        .1
        .contains("names org.acme.Other, which is not in the repository"));
    // A bundle entry that is no name is refused by `repo bundle`.
    let out = murano()
        .args(["repo", "bundle", "../evil", "-o"])
        .arg(s.join("y.bundle"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(texts(&out)
        .1
        .contains("neither a package path nor FullName"));
}

/// Interpreters that may have python-muranoclient 2.8.0.
fn interpreters() -> Vec<PathBuf> {
    let mut list = Vec::new();
    if let Some(p) = std::env::var_os("MURANOCLIENT_PYTHON") {
        list.push(PathBuf::from(p));
    }
    list.push(PathBuf::from("python3"));
    list
}

const FETCH: &str = r#"
import json, sys
from muranoclient.common import utils
base, name, bundle = sys.argv[1], sys.argv[2], sys.argv[3]
pkg = utils.Package.from_location(name, base_url=base)
reqs = pkg.requirements(base_url=base)
b = utils.Bundle.from_file(
    utils.to_url(bundle, base_url=base, path='bundles/', extension='.bundle'))
print(json.dumps({
    "order": list(reqs),
    "classes": {n: sorted(p.classes) for n, p in reqs.items()},
    "images": [i["Name"] for i in pkg.images()],
    "bundle": [p.manifest["FullName"] for p in b.packages(base_url=base)],
}))
"#;

#[test]
fn muranoclient_fetches_a_package_and_its_requirements() {
    let Some(python) = python_with(
        "muranoclient.common.utils",
        &interpreters(),
        "MURANO_REQUIRE_MURANOCLIENT",
    ) else {
        return;
    };
    let s = Scratch::new("repo-muranoclient");
    let src = three_packages(&s);
    let bundle = s.join("web.bundle");
    let out = murano()
        .args(["repo", "bundle"])
        .arg(src.join("web"))
        .arg(src.join("base"))
        .arg("-o")
        .arg(&bundle)
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", texts(&out));
    let repo = s.join("repo");
    let out = build(&[&src, &bundle, &"-o", &repo]);
    assert!(out.status.success(), "{:?}", texts(&out));
    let base = serve_folder(&repo);
    let out = Command::new(python)
        .args(["-c", FETCH, &base, "org.acme.Web", "web"])
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    // muranoclient logs a failed requirement and goes on: none may fail.
    assert!(!stderr.contains("Error"), "{stderr}");
    let got: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        got,
        serde_json::json!({
            "order": ["org.acme.Base", "org.acme.Lib", "org.acme.Web"],
            "classes": {
                "org.acme.Base": ["org.acme.Base"],
                "org.acme.Lib": ["org.acme.Lib"],
                "org.acme.Web": ["org.acme.Web"],
            },
            "images": ["demo.qcow2"],
            "bundle": ["org.acme.Web", "org.acme.Base"],
        })
    );
}

#[test]
fn a_zip_with_an_entry_leaving_the_package_is_refused() {
    use std::io::Write;
    let s = Scratch::new("repo-zipslip");
    let zip_path = s.join("evil.zip");
    {
        let file = std::fs::File::create(&zip_path).unwrap();
        let mut zip = zip::ZipWriter::new(file);
        let options = zip::write::SimpleFileOptions::default();
        zip.start_file("manifest.yaml", options).unwrap();
        zip.write_all(b"Format: MuranoPL/1.4\nType: Library\nFullName: a.B\nClasses: {}\n")
            .unwrap();
        zip.start_file("../evil", options).unwrap();
        zip.write_all(b"x").unwrap();
        zip.finish().unwrap();
    }
    let out = build(&[&zip_path, &"-o", &s.join("repo")]);
    let (_, err) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("outside the package"), "{err}");
    assert!(!s.join("repo").exists());
    let out = murano()
        .args(["catalog", "list"])
        .arg(&zip_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(texts(&out).1.contains("outside the package"));
}
