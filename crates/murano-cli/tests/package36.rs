//! `murano package`: reproducible zips Murano's own loader imports, and
//! hostile folders refused.

mod pkg36_common;

use std::path::{Path, PathBuf};
use std::process::Command;

use pkg36_common::*;

fn package(dir: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    murano()
        .arg("package")
        .arg(dir)
        .arg("-o")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn two_builds_give_the_same_bytes_whatever_the_file_times() {
    let s = Scratch::new("repro");
    let pkg = s.join("shop");
    copy_dir(&examples().join("shop"), &pkg);
    let first = package(&pkg, &s.join("a.zip"), &[]);
    assert!(first.status.success(), "{:?}", texts(&first));
    // Move the files' times years ahead; the zip must not change.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3 * 365 * 86400);
    for rel in ["manifest.yaml", "Classes/Shop.yaml", "UI/ui.yaml"] {
        let file = std::fs::File::options()
            .write(true)
            .open(pkg.join(rel))
            .unwrap();
        file.set_modified(later).unwrap();
    }
    let second = package(&pkg, &s.join("b.zip"), &[]);
    assert!(second.status.success(), "{:?}", texts(&second));
    let a = std::fs::read(s.join("a.zip")).unwrap();
    let b = std::fs::read(s.join("b.zip")).unwrap();
    assert_eq!(a, b);
    // The printed hash is the file's.
    let (out, _) = texts(&first);
    let (out2, _) = texts(&second);
    let hash = |o: &str| o.rsplit("sha256 ").next().unwrap().trim().to_owned();
    assert_eq!(hash(&out), hash(&out2));
    assert_eq!(hash(&out).len(), 64);
    // A changed file changes the hash.
    std::fs::write(pkg.join("LICENSE"), b"changed\n").unwrap();
    let third = package(&pkg, &s.join("c.zip"), &[]);
    assert_ne!(hash(&texts(&third).0), hash(&out));
}

#[test]
fn the_default_name_is_the_full_name() {
    let s = Scratch::new("default-name");
    let out = murano()
        .current_dir(&s.0)
        .arg("package")
        .arg(examples().join("hello-hot"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", texts(&out));
    assert!(s.join("com.example.HelloHot.zip").is_file());
}

#[test]
fn a_package_with_check_errors_is_refused_unless_forced() {
    let s = Scratch::new("force");
    let pkg = s.join("p");
    copy_dir(&examples().join("greetings"), &pkg);
    std::fs::write(pkg.join("Classes/Greeter.yaml"), "Name: [unclosed\n").unwrap();
    let refused = package(&pkg, &s.join("p.zip"), &[]);
    let (_, err) = texts(&refused);
    assert_eq!(refused.status.code(), Some(1), "{err}");
    assert!(err.contains("--force"), "{err}");
    assert!(err.contains("Classes/Greeter.yaml"), "{err}");
    assert!(!s.join("p.zip").exists());
    let forced = package(&pkg, &s.join("p.zip"), &["--force"]);
    assert!(forced.status.success(), "{:?}", texts(&forced));
    assert!(s.join("p.zip").is_file());
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_out_of_the_package_is_refused() {
    let s = Scratch::new("link-out");
    let pkg = s.join("p");
    copy_dir(&examples().join("greetings"), &pkg);
    std::fs::write(s.join("secret"), b"secret").unwrap();
    std::os::unix::fs::symlink(s.join("secret"), pkg.join("Resources")).unwrap();
    let out = package(&pkg, &s.join("p.zip"), &[]);
    let (_, err) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("symbolic link out of the package"), "{err}");
    assert!(!s.join("p.zip").exists());
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_inside_the_package_is_stored_as_its_file() {
    let s = Scratch::new("link-in");
    let pkg = s.join("p");
    copy_dir(&examples().join("greetings"), &pkg);
    std::os::unix::fs::symlink("LICENSE", pkg.join("COPYING")).unwrap();
    let out = package(&pkg, &s.join("p.zip"), &[]);
    assert!(out.status.success(), "{:?}", texts(&out));
    let file = std::fs::File::open(s.join("p.zip")).unwrap();
    let mut archive = zip::ZipArchive::new(file).unwrap();
    let mut copying = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("COPYING").unwrap(), &mut copying).unwrap();
    let license = std::fs::read_to_string(pkg.join("LICENSE")).unwrap();
    assert_eq!(copying, license);
    // Stored as a file, not as a link.
    assert_eq!(
        archive.by_name("COPYING").unwrap().unix_mode(),
        Some(0o100644)
    );
}

#[cfg(unix)]
#[test]
fn a_backslash_name_is_refused() {
    let s = Scratch::new("backslash");
    let pkg = s.join("p");
    copy_dir(&examples().join("greetings"), &pkg);
    std::fs::write(pkg.join("..\\evil"), b"x").unwrap();
    let out = package(&pkg, &s.join("p.zip"), &[]);
    let (_, err) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("could leave the package"), "{err}");
}

#[test]
fn files_over_the_limits_are_refused() {
    let s = Scratch::new("limits");
    let pkg = s.join("p");
    copy_dir(&examples().join("greetings"), &pkg);
    std::fs::write(pkg.join("big.bin"), vec![0u8; 5000]).unwrap();
    let out = package(&pkg, &s.join("p.zip"), &["--max-file-size", "4096"]);
    let (_, err) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("big.bin: larger than 4096 bytes (--max-file-size)"),
        "{err}"
    );
    let out = package(&pkg, &s.join("p.zip"), &["--max-package-size", "6000"]);
    let (_, err) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--max-package-size"), "{err}");
    // The defaults take the same folder.
    let out = package(&pkg, &s.join("p.zip"), &[]);
    assert!(out.status.success(), "{:?}", texts(&out));
}

#[test]
fn the_output_may_not_be_inside_the_package() {
    let s = Scratch::new("inside");
    let pkg = s.join("p");
    copy_dir(&examples().join("greetings"), &pkg);
    let out = package(&pkg, &pkg.join("p.zip"), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(texts(&out).1.contains("inside the package folder"));
}

/// Interpreters that may have Debian's python3-murano.
fn interpreters() -> Vec<PathBuf> {
    let mut list = Vec::new();
    if let Some(p) = std::env::var_os("MURANO_PYTHON") {
        list.push(PathBuf::from(p));
    }
    list.push(PathBuf::from("/usr/bin/python3"));
    list.push(PathBuf::from("python3"));
    list
}

const LOAD: &str = r#"
import json, sys
from murano.packages import load_utils
out = []
for path in sys.argv[1:]:
    with load_utils.load_from_file(path, drop_dir=True) as pkg:
        classes = sorted(pkg.classes)
        for c in classes:
            pkg.get_class(c)
        out.append({"name": pkg.full_name, "format": pkg.format_name,
                    "type": pkg.package_type, "classes": classes,
                    "ui": pkg.ui is not None, "logo": pkg.logo is not None})
print(json.dumps(out))
"#;

#[test]
fn murano_s_own_loader_imports_the_zips() {
    let Some(python) = python_with(
        "murano.packages.load_utils",
        &interpreters(),
        "MURANO_REQUIRE_PYTHON_MURANO",
    ) else {
        return;
    };
    let s = Scratch::new("python-murano");
    let mut zips = Vec::new();
    for name in ["shop", "greetings", "hello-hot"] {
        let zip = s.join(&format!("{name}.zip"));
        let out = package(&examples().join(name), &zip, &[]);
        assert!(out.status.success(), "{name}: {:?}", texts(&out));
        zips.push(zip);
    }
    let out = Command::new(python)
        .args(["-c", LOAD])
        .args(&zips)
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let loaded: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let expect = serde_json::json!([
        {"name": "com.example.Shop", "format": "MuranoPL", "type": "Application",
         "classes": ["com.example.Database", "com.example.Shop"], "ui": true, "logo": true},
        {"name": "com.example.Greetings", "format": "MuranoPL", "type": "Library",
         "classes": ["com.example.Greeter", "com.example.GreeterTests"], "ui": false, "logo": true},
        {"name": "com.example.HelloHot", "format": "Heat.HOT", "type": "Application",
         "classes": ["com.example.HelloHot"], "ui": true, "logo": true},
    ]);
    assert_eq!(loaded, expect);
}

/// murano-pkg-check 0.3.0's findings for a zip and for the folder zipped
/// as muranoclient zips a folder (Python's zipfile, file system order):
/// its own folder loader fails on Python 3 (it reads text as bytes).
const PKGCHECK: &str = r#"
import json, os, sys, tempfile, zipfile
from muranopkgcheck import manager
def findings(path):
    m = manager.Manager(path)
    m.load_plugins()
    return manager.PlainTextFormatter().format(m.validate())
folder, ours = sys.argv[1], sys.argv[2]
fd, ref = tempfile.mkstemp(suffix='.zip')
os.close(fd)
with zipfile.ZipFile(ref, 'w', zipfile.ZIP_DEFLATED) as z:
    for root, dirs, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            z.write(p, os.path.relpath(p, folder))
try:
    print(json.dumps({"ours": findings(ours), "folder": findings(ref)}))
finally:
    os.unlink(ref)
"#;

#[test]
fn murano_pkg_check_finds_the_same_in_the_zip_as_in_the_folder() {
    let mut interpreters = Vec::new();
    if let Some(p) = std::env::var_os("MURANOCLIENT_PYTHON") {
        interpreters.push(PathBuf::from(p));
    }
    interpreters.push(PathBuf::from("python3"));
    let Some(python) = python_with(
        "muranopkgcheck.manager",
        &interpreters,
        "MURANO_REQUIRE_MURANOCLIENT",
    ) else {
        return;
    };
    let s = Scratch::new("pkgcheck");
    let bad = s.join("bad");
    copy_dir(&examples().join("greetings"), &bad);
    let manifest = std::fs::read_to_string(bad.join("manifest.yaml")).unwrap();
    std::fs::write(
        bad.join("manifest.yaml"),
        manifest.replace("Version: 1.2.0", "Version: x") + "Foo: 1\n",
    )
    .unwrap();
    let mut sources: Vec<PathBuf> = ["shop", "greetings", "hello-hot"]
        .iter()
        .map(|n| examples().join(n))
        .collect();
    sources.push(bad);
    for (i, dir) in sources.iter().enumerate() {
        let zip = s.join(&format!("{i}.zip"));
        let out = package(dir, &zip, &["--force"]);
        assert!(out.status.success(), "{:?}", texts(&out));
        let out = Command::new(&python)
            .args(["-c", PKGCHECK])
            .arg(dir)
            .arg(&zip)
            .output()
            .unwrap();
        let (stdout, stderr) = texts(&out);
        assert!(out.status.success(), "{stderr}");
        let got: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(got["ours"], got["folder"], "{}", dir.display());
        if i == 3 {
            let text = got["ours"].as_str().unwrap();
            assert!(text.contains("E071") && text.contains("W010"), "{text}");
        }
    }
}

/// 0 done, 1 refused (findings, a hostile or broken input), 2 usage or
/// I/O error, for each command of issue 36.
#[test]
fn the_new_commands_follow_the_exit_code_convention() {
    let s = Scratch::new("exit36");
    let broken = s.join("broken");
    copy_dir(&examples().join("greetings"), &broken);
    std::fs::write(broken.join("Classes/Greeter.yaml"), "Name: [unclosed\n").unwrap();
    let missing = s.join("missing");
    let st = |p: &Path| p.to_str().unwrap().to_owned();
    let greetings = st(&examples().join("greetings"));
    let cases: Vec<(Vec<String>, i32)> = vec![
        (vec!["init".into(), st(&s.join("new"))], 0),
        (vec!["init".into(), st(&s.join("new"))], 2),
        (
            vec![
                "package".into(),
                greetings.clone(),
                "-o".into(),
                st(&s.join("g.zip")),
            ],
            0,
        ),
        (
            vec![
                "package".into(),
                st(&broken),
                "-o".into(),
                st(&s.join("b.zip")),
            ],
            1,
        ),
        (vec!["package".into(), st(&missing)], 2),
        (
            vec![
                "repo".into(),
                "build".into(),
                greetings.clone(),
                "-o".into(),
                st(&s.join("r")),
            ],
            0,
        ),
        (
            vec![
                "repo".into(),
                "build".into(),
                st(&broken),
                "-o".into(),
                st(&s.join("r2")),
            ],
            1,
        ),
        (
            vec![
                "repo".into(),
                "build".into(),
                st(&missing),
                "-o".into(),
                st(&s.join("r3")),
            ],
            2,
        ),
        (
            vec![
                "repo".into(),
                "bundle".into(),
                greetings.clone(),
                "-o".into(),
                st(&s.join("x.bundle")),
            ],
            0,
        ),
        (
            vec![
                "repo".into(),
                "bundle".into(),
                greetings.clone(),
                "-o".into(),
                st(&missing.join("x.bundle")),
            ],
            2,
        ),
        (vec!["catalog".into(), "list".into(), greetings.clone()], 0),
        (vec!["catalog".into(), "list".into(), st(&missing)], 2),
        (vec!["docs".into(), greetings.clone()], 0),
        (vec!["docs".into(), st(&missing)], 2),
        (
            vec!["docs".into(), greetings, "--format".into(), "pdf".into()],
            2,
        ),
    ];
    for (args, code) in cases {
        let out = murano().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{args:?}: {:?}", texts(&out));
    }
}

#[test]
fn a_package_is_composed_from_class_files_as_package_create_does() {
    let s = Scratch::new("compose");
    let shop = examples().join("shop");
    let compose = |out: &Path, extra: &[&str]| {
        murano()
            .arg("package")
            .arg("--classes-dir")
            .arg(shop.join("Classes"))
            .args(extra)
            .arg("-o")
            .arg(out)
            .output()
            .unwrap()
    };
    // An application needs its UI definition, as in muranoclient.
    let out = compose(&s.join("x.zip"), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(texts(&out).1.contains("--ui"), "{:?}", texts(&out));
    let ui = shop.join("UI/ui.yaml");
    let ui = ui.to_str().unwrap();
    let args = [
        "--ui",
        ui,
        "--full-name",
        "com.example.Shop",
        "--format-version",
        "1.4",
        "--tags",
        "shop,example",
    ];
    let out = compose(&s.join("a.zip"), &args);
    assert!(out.status.success(), "{:?}", texts(&out));
    let again = compose(&s.join("b.zip"), &args);
    assert!(again.status.success());
    let zip = std::fs::read(s.join("a.zip")).unwrap();
    assert_eq!(zip, std::fs::read(s.join("b.zip")).unwrap());
    // The composed package checks without an error (as with muranoclient,
    // there is no LICENSE: that one warning).
    let out = murano().arg("check").arg(s.join("a.zip")).output().unwrap();
    assert!(out.status.success(), "{:?}", texts(&out));
    let findings = texts(&out).0;
    assert!(!findings.contains("error"), "{findings}");
    assert_eq!(findings.matches("warning[").count(), 1, "{findings}");
    assert!(findings.contains("W121"), "{findings}");
    // Murano's loader reads the manifest written for it.
    let Some(python) = python_with(
        "murano.packages.load_utils",
        &interpreters(),
        "MURANO_REQUIRE_PYTHON_MURANO",
    ) else {
        return;
    };
    let out = Command::new(python)
        .args(["-c", LOAD])
        .arg(s.join("a.zip"))
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let loaded: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(loaded[0]["name"], "com.example.Shop");
    assert_eq!(
        loaded[0]["classes"],
        serde_json::json!(["com.example.Database", "com.example.Shop"])
    );
    assert_eq!(loaded[0]["ui"], true);
}
