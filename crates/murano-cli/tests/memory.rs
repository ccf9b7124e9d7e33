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

/// `murano run <pkg> test.<class>.<method>` under 1 GiB, with Murano's
/// core library.
fn run_limited(core: &Path, pkg: &Path, method: &str) -> Output {
    limited(
        ONE_GIB,
        &[
            "run".as_ref(),
            pkg.as_os_str(),
            method.as_ref(),
            "--catalog".as_ref(),
            core.as_os_str(),
        ],
    )
}

/// Item 2: a green thread waiting in `sleep()` keeps its OS thread (its
/// stack holds where it stopped), so many waiting at once must each cost
/// little: smaller branch stacks, and an allocator without per-thread
/// segments or the system allocator's per-thread arenas.
#[test]
fn two_hundred_branches_sleeping_at_once_fit_in_one_gib() {
    let Some(core) = core_library() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = Scratch::new("sleepers");
    let branches: String = (0..200)
        .map(|i| format!("          - $.step({i})\n"))
        .collect();
    let pkg = package(
        &dir.0,
        "Sleepers",
        "",
        &format!(
            "  step:\n    Arguments: [{{i: {{Contract: $.int()}}}}]\n    Body:\n      \
             - sleep(0.05)\n      - $.seen: $.seen + [$i]\n  \
             go:\n    Body:\n      - $.seen: []\n      - Parallel:\n{branches}      \
             - Return: [len($.seen), $.seen.sum()]\n"
        ),
    );
    let out = run_limited(&core, &pkg, "test.Sleepers.go");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed, serde_json::json!([200, 19900]));
}

/// Item 2: a thousand applications whose `deploy` sleeps (every one of
/// them waiting at once) deploy within 1 GiB.
#[test]
fn a_thousand_sleeping_deployments_fit_in_one_gib() {
    let Some(core) = core_library() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = Scratch::new("deploy-sleep");
    let pkgs = dir.0.join("pkgs");
    package(
        &pkgs,
        "Sleeper",
        "Extends: std:Application\nProperties:\n  deployed:\n    Contract: $.bool()\n    \
         Usage: Out\n",
        "  deploy:\n    Body:\n      - sleep(1)\n      - $.deployed: true\n",
    );
    let apps: Vec<serde_json::Value> = (0..1000)
        .map(|i| {
            serde_json::json!({
                "?": {"type": "test.Sleeper", "id": format!("{:032x}", i + 1)},
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

/// Item 2: branch stacks (2.5 MiB) are smaller than the main thread's;
/// recursion inside a branch, through methods or through a property's
/// `class()` contract and default, still ends with the call-depth error
/// rather than overflowing the stack.
#[test]
fn recursion_inside_a_branch_is_a_depth_error() {
    let Some(core) = core_library() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = Scratch::new("branch-depth");
    let pkg = package(
        &dir.0,
        "Deep",
        "",
        "  recurse:\n    Arguments: [{n: {Contract: $.int()}}]\n    Body:\n      \
         - $x: [$n, str($n), {$n => $n}]\n      - Return: $.recurse($n + 1)\n  \
         viaMethod:\n    Body:\n      - Parallel:\n          - sleep(0.01)\n          \
         - $.recurse(0)\n  \
         viaDefault:\n    Body:\n      - Parallel:\n          - sleep(0.01)\n          \
         - new(Loop)\n",
    );
    let classes = pkg.join("Classes/Deep.yaml");
    let mut text = std::fs::read_to_string(&classes).unwrap();
    text.push_str(
        "---\nNamespaces:\n  =: test\nName: Loop\nProperties:\n  p:\n    \
         Contract: $.class(Loop)\n    Default: {}\n",
    );
    std::fs::write(&classes, text).unwrap();
    let manifest = pkg.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap() + "  test.Loop: Deep.yaml\n";
    std::fs::write(&manifest, text).unwrap();
    for method in ["viaMethod", "viaDefault"] {
        let out = run_limited(&core, &pkg, &format!("test.Deep.{method}"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{method}: {stderr}");
        assert!(stderr.contains("call depth exceeds"), "{method}: {stderr}");
    }
}

/// A run whose output is a memory error (`error`: the run's budget, or the
/// string limit): exit 1 (not an abort) and a position in the package.
fn assert_memory_error(out: &Output, what: &str, error: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
    assert!(stderr.contains(error), "{what}: {stderr}");
    assert!(stderr.contains("Hog.yaml:"), "{what}: {stderr}");
}

/// Item 3: the attacks on memory end with a typed error within 1 GiB.
#[test]
fn memory_attacks_end_with_a_limit_error_within_one_gib() {
    let Some(core) = core_library() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = Scratch::new("hog");
    let pkg = package(
        &dir.0,
        "Hog",
        "",
        "  padded:\n    Body:\n      - Return: format('{0:>9999}' * 400000, 1)\n  \
         chained:\n    Body:\n      - $s: str(1) * 1000000\n      - For: i\n        \
         In: range(0, 40)\n        Do:\n          - $s: base64encode($s)\n      \
         - Return: len($s)\n  \
         strings:\n    Body:\n      - $l: []\n      - For: i\n        In: range(0, 100)\n        \
         Do:\n          - $l: $l + [str($i) * 30000000]\n      - Return: len($l)\n  \
         oneExpression:\n    Body:\n      - Return: len(range(0, 100).select(str($) * 30000000).toList())\n  \
         dict:\n    Body:\n      - $d: {}\n      - For: i\n        In: range(0, 2000)\n        \
         Do:\n          - $d: $d.set(str($i), str($i) * 1000000)\n      - Return: len($d)\n",
    );
    // One string past 64 MiB: the string limit, a YAQL error.
    for method in ["padded", "chained"] {
        let out = run_limited(&core, &pkg, &format!("test.Hog.{method}"));
        assert_memory_error(&out, method, "MemoryQuotaExceededException");
    }
    // Many strings within it: the run's budget, a limit error.
    for method in ["strings", "oneExpression", "dict"] {
        let out = run_limited(&core, &pkg, &format!("test.Hog.{method}"));
        assert_memory_error(&out, method, "LimitExceeded: the run would hold more than");
    }
}

/// Item 3: `--max-memory` sets the run's budget.
#[test]
fn max_memory_sets_the_budget() {
    let Some(core) = core_library() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = Scratch::new("budget");
    let pkg = package(
        &dir.0,
        "Hog",
        "",
        "  keep:\n    Body:\n      - $l: []\n      - For: i\n        In: range(0, 10)\n        \
         Do:\n          - $l: $l + [str($i) * 1000000]\n      - Return: len($l)\n",
    );
    let run = |extra: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "run".as_ref(),
            pkg.as_os_str(),
            "test.Hog.keep".as_ref(),
            "--catalog".as_ref(),
            core.as_os_str(),
        ];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        limited(ONE_GIB, &args)
    };
    let out = run(&[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "10");
    let out = run(&["--max-memory", "4000000"]);
    assert_memory_error(&out, "--max-memory", "more than 4000000 bytes");
}
