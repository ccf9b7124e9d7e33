//! Issue 37's checks and papercuts, through the real `murano` binary.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{copy_dir, examples, murano, run, Scratch};

/// JSON diagnostics say `null` where there is no position, not line 0.
#[test]
fn json_diagnostics_without_a_position_have_null_line_and_column() {
    let dir = Scratch::new("json-null");
    let pkg = dir.0.join("greetings");
    copy_dir(&examples().join("packages/greetings"), &pkg);
    std::fs::remove_file(pkg.join("LICENSE")).unwrap();
    let (_, out, err) = run(&["check", pkg.to_str().unwrap(), "--format", "json"]);
    let items: serde_json::Value = serde_json::from_str(&out).expect(&err);
    let w121 = items
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "W121")
        .unwrap_or_else(|| panic!("{out}"));
    assert!(w121["line"].is_null(), "{w121}");
    assert!(w121["column"].is_null(), "{w121}");
}

/// `hot validate` names the version as the template writes it, not by
/// Heat's internal class.
#[test]
fn hot_validate_names_the_version_as_written() {
    let dir = Scratch::new("hot-version");
    let path = dir.0.join("stack.yaml");
    std::fs::write(&path, "heat_template_version: 2021-04-16\nresources: {}\n").unwrap();
    let (code, out, err) = run(&["hot", "validate", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("heat_template_version: 2021-04-16"), "{out}");
    assert!(!out.contains("HOTemplate"), "{out}");
    let (_, out, _) = run(&[
        "hot",
        "validate",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        json["version"], "heat_template_version: 2021-04-16",
        "{out}"
    );
}

/// `inspect` shows no Python `None`: a Require entry without a version
/// is any version, a missing Name is said so.
#[test]
fn inspect_shows_no_python_none() {
    let dir = Scratch::new("inspect-none");
    let pkg = dir.0.join("greetings");
    copy_dir(&examples().join("packages/greetings"), &pkg);
    let manifest = std::fs::read_to_string(pkg.join("manifest.yaml")).unwrap();
    let manifest: String = manifest
        .lines()
        .filter(|l| {
            !["Name:", "Require:", "Tags:"]
                .iter()
                .any(|k| l.starts_with(k))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(
        pkg.join("manifest.yaml"),
        format!("{manifest}Require:\n  com.example.other:\nTags: [a, ~]\n"),
    )
    .unwrap();
    let (code, out, err) = run(&["inspect", pkg.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("None"), "{out}");
    assert!(out.contains("com.example.other: any version"), "{out}");
}

/// `schema` with a misspelt class name suggests the package's class.
#[test]
fn schema_suggests_a_close_class_name() {
    let shop = examples().join("packages/shop");
    let (code, out, err) = run(&["schema", shop.to_str().unwrap(), "com.example.Shopp"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("did you mean \"com.example.Shop\"?"), "{err}");
}

/// The README's crate table names every subcommand `murano --help` lists.
#[test]
fn the_readme_crate_table_lists_every_subcommand() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| `murano-cli` |"))
        .expect("a murano-cli row");
    let (_, help, _) = run(&["--help"]);
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() > 5, "{help}");
    for command in commands {
        assert!(
            row.contains(&format!("`{command}`")),
            "{command} is not in: {row}"
        );
    }
}

/// `murano ui` reports the errors of every step in one run, not only
/// the first invalid step's.
#[test]
fn ui_reports_every_invalid_step() {
    let dir = Scratch::new("ui-steps");
    let pkg = dir.0.join("shop");
    copy_dir(&examples().join("packages/shop"), &pkg);
    let ui = std::fs::read_to_string(pkg.join("UI/ui.yaml")).unwrap();
    std::fs::write(
        pkg.join("UI/ui.yaml"),
        format!("{ui}  - extra:\n      fields:\n        - name: note\n          type: string\n          label: Note\n"),
    )
    .unwrap();
    let values = dir.0.join("values.yaml");
    std::fs::write(
        &values,
        "settings: {name: my-shop, port: '0', flavor: m1.small, image: img-ubuntu}\nextra: {}\n",
    )
    .unwrap();
    let cloud = examples().join("ui/cloud.yaml");
    let (code, out, err) = run(&[
        "ui",
        pkg.to_str().unwrap(),
        "--values",
        values.to_str().unwrap(),
        "--cloud",
        cloud.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("step \"settings\" is not valid:"), "{out}");
    assert!(out.contains("port:"), "{out}");
    assert!(out.contains("step \"extra\" is not valid:"), "{out}");
    assert!(out.contains("note: This field is required."), "{out}");
}

/// `ui --help` says how to confirm a password, what `__all__` is and how
/// to leave a field empty.
#[test]
fn ui_help_explains_clone_keys_form_errors_and_empty_fields() {
    let (code, out, _) = run(&["ui", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("-clone"), "{out}");
    assert!(out.contains("__all__"), "{out}");
    assert!(out.contains("''"), "{out}");
}

/// The README's main job is one short command that runs the walkthrough
/// script kept in the repository.
#[test]
fn the_main_job_is_a_short_command_running_the_walkthrough() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .unwrap();
    assert_eq!(block.lines().count(), 1, "{block}");
    assert!(block.len() < 80, "{block}");
    assert!(block.contains("examples/walkthrough.sh"), "{block}");
}

/// The walkthrough runs every step, each under a heading, with this
/// binary and the core library of the shared data (no build, no fetch).
#[test]
fn the_walkthrough_runs_every_step_with_headings() {
    let Some(shared) = std::env::var_os("MURANO_SHARED") else {
        eprintln!("MURANO_SHARED not set: walkthrough not run");
        return;
    };
    let core = Path::new(&shared).join("corpus/packages/murano/meta/io.murano");
    if !core.exists() {
        eprintln!("{}: missing, walkthrough not run", core.display());
        return;
    }
    let dir = Scratch::new("walkthrough");
    let out = Command::new("bash")
        .arg(examples().join("walkthrough.sh"))
        .env("MURANO", env!("CARGO_BIN_EXE_murano"))
        .env("MURANO_CORE", &core)
        .env("WORK", &dir.0)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    let headings: Vec<&str> = stdout.lines().filter(|l| l.starts_with("=== ")).collect();
    assert_eq!(headings.len(), 8, "{headings:#?}");
    for command in [
        "check", "schema", "inspect", "ui", "test", "deploy", "catalog", "env",
    ] {
        assert!(
            headings
                .iter()
                .any(|h| h.contains(&format!("murano {command}"))),
            "{command}: {headings:#?}"
        );
    }
    assert!(dir.0.join("shop-model.json").exists());
    // The environment lifecycle ran to its deletion.
    assert!(
        stdout.contains("Deletion finished; environment removed"),
        "{stdout}"
    );
}

/// A deployment of the shop (its model from `murano ui`) with the given
/// agent replies: exit status and standard output. `None` without the
/// shared data.
fn deploy_shop(dir: &Path, agent_results: Option<&str>) -> Option<(i32, String)> {
    let shared = std::env::var_os("MURANO_SHARED")?;
    let core = Path::new(&shared).join("conformance/engine/meta/io.murano");
    if !core.exists() {
        return None;
    }
    let app = dir.join("app.json");
    let ui = murano()
        .arg("ui")
        .arg(examples().join("packages/shop"))
        .arg("--values")
        .arg(examples().join("ui/shop-values.yaml"))
        .arg("--cloud")
        .arg(examples().join("ui/cloud.yaml"))
        .output()
        .unwrap();
    std::fs::write(&app, &ui.stdout).unwrap();
    let mut cmd = murano();
    cmd.args(["deploy", "--dry-run"])
        .arg(&app)
        .arg("--catalog")
        .arg(examples().join("packages"))
        .arg("--catalog")
        .arg(&core);
    if let Some(results) = agent_results {
        let path = dir.join("agent-results.json");
        std::fs::write(&path, results).unwrap();
        cmd.arg("--agent-results").arg(path);
    }
    let out = cmd.output().unwrap();
    Some((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

/// Deploy traces name frames by package and file, and show the source
/// line with a caret under the column, as `test` and `run` do.
#[test]
fn deploy_traces_name_the_package_and_show_the_source_line() {
    let dir = Scratch::new("deploy-trace");
    let Some((code, text)) = deploy_shop(
        &dir.0,
        Some(r#"[{"FormatVersion": "2.0.0", "ErrorCode": 1, "Body": {"message": "boom"}}]"#),
    ) else {
        eprintln!("shared data absent: skipping");
        return;
    };
    assert_eq!(code, 1, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| {
            l.contains("com.example.Shop/Classes/Shop.yaml\", line 101:9 in method enableCurrency")
        })
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        lines[at + 1].trim(),
        "- $.instance.agent.call(dict(command => enable, currency => $currency), new(sys:Resources))",
        "{text}"
    );
    // The caret under column 9 (`$`), below the line's first character.
    assert_eq!(lines[at + 2].trim(), "^", "{text}");
    let indent = |l: &str| l.len() - l.trim_start().len();
    assert_eq!(indent(lines[at + 2]), indent(lines[at + 1]) + 2, "{text}");
}

/// A deployment shows no test-oracle names (`oracle-env`, `feed000…`
/// ids, `abcdej…` random names): they come from the application; the
/// oracle's names stay available with `--oracle-names`.
#[test]
fn deploy_names_come_from_the_application_not_the_oracle() {
    let dir = Scratch::new("deploy-names");
    let Some((code, text)) = deploy_shop(&dir.0, None) else {
        eprintln!("shared data absent: skipping");
        return;
    };
    assert_eq!(code, 0, "{text}");
    for oracle in ["oracle-env", "feed0000", "abcdej"] {
        assert!(!text.contains(oracle), "{oracle} in {text}");
    }
    // The shop's application is named my-shop (its `name` field).
    assert!(text.contains("environment my-shop"), "{text}");
    assert!(text.contains("create stack murano--my-shop1"), "{text}");
}

/// The shop, copied to `dir` with `enableCurrency` changed by `edit`.
fn edited_shop(dir: &Path, edit: &dyn Fn(String) -> String) -> PathBuf {
    let packages = dir.join("packages");
    copy_dir(&examples().join("packages"), &packages);
    let class = packages.join("shop/Classes/Shop.yaml");
    let text = std::fs::read_to_string(&class).unwrap();
    let edited = edit(text.clone());
    assert_ne!(edited, text);
    std::fs::write(&class, edited).unwrap();
    packages
}

/// A deployment of `packages`' shop with the model of `murano ui`.
fn deploy_packages(dir: &Path, packages: &Path) -> Option<(i32, String)> {
    let shared = std::env::var_os("MURANO_SHARED")?;
    let core = Path::new(&shared).join("conformance/engine/meta/io.murano");
    if !core.exists() {
        return None;
    }
    let app = dir.join("app.json");
    let ui = murano()
        .arg("ui")
        .arg(packages.join("shop"))
        .arg("--values")
        .arg(examples().join("ui/shop-values.yaml"))
        .arg("--cloud")
        .arg(examples().join("ui/cloud.yaml"))
        .output()
        .unwrap();
    std::fs::write(&app, &ui.stdout).unwrap();
    let out = murano()
        .args(["deploy", "--dry-run"])
        .arg(&app)
        .arg("--catalog")
        .arg(packages)
        .arg("--catalog")
        .arg(&core)
        .output()
        .unwrap();
    Some((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

const CALL: &str =
    "- $.instance.agent.call(dict(command => enable, currency => $currency), new(sys:Resources))";

/// A contract that fails on the null an agent answers by default says so
/// and points at --agent-results.
#[test]
fn a_contract_failing_on_a_default_agent_reply_points_at_agent_results() {
    let dir = Scratch::new("agent-null");
    let packages = edited_shop(&dir.0, &|text| {
        format!(
            "{}  useReply:\n    Arguments:\n      - reply:\n          Contract: $.string().notNull()\n    Body:\n      - Return: $reply\n",
            text.replace(CALL, &format!("- $.useReply({})", &CALL[2..]))
        )
    });
    let Some((code, text)) = deploy_packages(&dir.0, &packages) else {
        eprintln!("shared data absent: skipping");
        return;
    };
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("--agent-results"), "{text}");
    assert!(text.contains("null"), "{text}");
}

/// `[StopIteration]: ` with nothing after it says what was not found.
#[test]
fn stop_iteration_without_a_message_says_what_was_not_found() {
    let dir = Scratch::new("stop-iteration");
    let packages = edited_shop(&dir.0, &|text| text.replace(CALL, "- $x: list().first()"));
    let Some((code, text)) = deploy_packages(&dir.0, &packages) else {
        eprintln!("shared data absent: skipping");
        return;
    };
    assert_eq!(code, 1, "{text}");
    let line = text.lines().next().unwrap_or_default();
    assert!(line.contains("StopIteration"), "{text}");
    assert!(line.contains("empty collection"), "{line}");
}

/// `murano check --catalog` follows the hierarchy into the catalog's
/// classes for M421: with the core library (where the shop's parent,
/// io.murano.Application, is) a misspelt property of the shop is found;
/// without it the ancestors are unknown and nothing is reported.
#[test]
fn check_reports_undeclared_properties_through_the_catalog() {
    let Some(shared) = std::env::var_os("MURANO_SHARED") else {
        eprintln!("MURANO_SHARED not set: skipping");
        return;
    };
    let core = Path::new(&shared).join("conformance/engine/meta/io.murano");
    if !core.exists() {
        eprintln!("{}: missing, skipping", core.display());
        return;
    }
    let dir = Scratch::new("m421");
    let packages = edited_shop(&dir.0, &|text| {
        text.replace(CALL, "- $x: [$.instance, $.instanse, $.name]")
    });
    let shop = packages.join("shop");
    let (_, out, err) = run(&[
        "check",
        shop.to_str().unwrap(),
        "--catalog",
        core.to_str().unwrap(),
    ]);
    let hits: Vec<&str> = out.lines().filter(|l| l.contains("[M421]")).collect();
    assert_eq!(hits.len(), 1, "{out}{err}");
    assert!(hits[0].contains("\"instanse\""), "{out}");
    let (_, out, _) = run(&["check", shop.to_str().unwrap()]);
    assert!(!out.contains("[M421]"), "{out}");
}
