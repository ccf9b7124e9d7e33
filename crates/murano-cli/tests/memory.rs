//! Memory bounds of the third hardening round (issue 38): runs of the
//! `murano` binary under an address-space limit (`prlimit --as`, from
//! util-linux), which end with their result or a typed error, never with
//! an allocation failure that aborts the process.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{core_library, murano_limited, Scratch};

/// One GiB: what deploying a thousand applications must fit in.
const ONE_GIB: u64 = 1 << 30;

/// `murano args…` under an address-space limit of `bytes`.
fn limited(bytes: u64, args: &[&std::ffi::OsStr]) -> Output {
    murano_limited(bytes)
        .expect("prlimit (util-linux) runs")
        .args(args)
        .output()
        .unwrap()
}

/// A package of one class `test.<name>` (`head`: its `Extends` and
/// `Properties`, if any) with
/// `methods` (YAML, indented by four).
fn package(root: &Path, name: &str, head: &str, methods: &str) -> PathBuf {
    let write = |rel: &str, text: String| {
        let path = root.join(name).join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "manifest.yaml",
        format!(
            "Format: MuranoPL/1.4\nType: Application\nFullName: test.{name}\nName: {name}\n\
             Description: x\nAuthor: x\nClasses:\n  test.{name}: {name}.yaml\n"
        ),
    );
    write(
        &format!("Classes/{name}.yaml"),
        format!(
            "Namespaces:\n  =: test\n  std: io.murano\nName: {name}\n{head}Methods:\n{methods}"
        ),
    );
    root.join(name)
}

/// Item 2: each green thread held an OS thread (a stack and allocator
/// arenas) from the start of its `pselect`, so an environment of a
/// thousand trivial applications aborted under 1 GiB: a green thread now
/// gets its OS thread when it first runs, and reuses the one of a branch
/// that ends.
#[test]
fn a_thousand_applications_deploy_within_one_gib() {
    let Some(core) = core_library() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = Scratch::new("deploy");
    let pkgs = dir.0.join("pkgs");
    package(
        &pkgs,
        "Trivial",
        "Extends: std:Application\nProperties:\n  deployed:\n    Contract: $.bool()\n    \
         Usage: Out\n",
        "  deploy:\n    Body:\n      - $.deployed: true\n",
    );
    let apps: Vec<serde_json::Value> = (0..1000)
        .map(|i| {
            serde_json::json!({
                "?": {"type": "test.Trivial", "id": format!("{:032x}", i + 1)},
                "name": format!("app-{i}")
            })
        })
        .collect();
    let model = dir.write("apps.json", serde_json::to_vec(&apps).unwrap());
    let out = limited(
        ONE_GIB,
        &[
            "deploy".as_ref(),
            "--dry-run".as_ref(),
            model.as_os_str(),
            "--format".as_ref(),
            "json".as_ref(),
            "--catalog".as_ref(),
            pkgs.as_os_str(),
            "--catalog".as_ref(),
            core.as_os_str(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let objects = plan["final_model"]["Objects"]["applications"]
        .as_array()
        .expect("the applications of the final model");
    assert_eq!(objects.len(), 1000);
    assert!(objects.iter().all(|a| a["deployed"] == true), "{stderr}");
}

/// Item 2: a `Parallel` of a hundred branches under 1 GiB.
#[test]
fn a_parallel_of_a_hundred_branches_runs_within_one_gib() {
    let Some(core) = core_library() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = Scratch::new("parallel");
    let branches: String = (0..100)
        .map(|i| format!("          - $.seen: $.seen + [{i}]\n"))
        .collect();
    let pkg = package(
        &dir.0,
        "Par",
        "",
        &format!(
            "  go:\n    Body:\n      - $.seen: []\n      - Parallel:\n{branches}      \
             - Return: $.seen.sum()\n"
        ),
    );
    let out = limited(
        ONE_GIB,
        &[
            "run".as_ref(),
            pkg.as_os_str(),
            "test.Par.go".as_ref(),
            "--catalog".as_ref(),
            core.as_os_str(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "4950");
}
