//! The real `murano` binary on the bundled examples and on broken copies
//! of them. Rendered diagnostics are compared with golden files in
//! tests/golden/ (set UPDATE_GOLDEN=1 to rewrite them after a deliberate
//! change, then review the diff).

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{copy_dir, core_library, golden, murano, workspace, Scratch};

fn examples() -> PathBuf {
    workspace().join("examples/packages")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The bundled library and application check clean.
#[test]
fn examples_check_clean() {
    let out = murano()
        .arg("check")
        .arg(examples().join("shop"))
        .arg(examples().join("greetings"))
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("checked 2 packages: 0 errors, 0 warnings"),
        "{stderr}"
    );
}

/// A broken copy of the shop: each kind of mistake, rendered like rustc,
/// as JSON and as SARIF.
#[test]
fn broken_copy_diagnostics() {
    let scratch = Scratch::new("broken");
    let pkg = scratch.0.join("shop");
    copy_dir(&examples().join("shop"), &pkg);
    std::fs::remove_file(pkg.join("LICENSE")).unwrap();
    let manifest = std::fs::read_to_string(pkg.join("manifest.yaml")).unwrap();
    std::fs::write(
        pkg.join("manifest.yaml"),
        manifest
            .replace("Type: Application", "Type: Aplication")
            .replace("Database.yaml", "Db.yaml"),
    )
    .unwrap();
    let class = std::fs::read_to_string(pkg.join("Classes/Shop.yaml")).unwrap();
    std::fs::write(
        pkg.join("Classes/Shop.yaml"),
        class.replace("    Usage: Out", "    Usage: Outt").replace(
            "  deploy:\n    Body:",
            "  deploy:\n    Bodyy:\n      - $.x()\n    Body:",
        ),
    )
    .unwrap();

    let run = |format: &str| {
        let out = murano()
            .current_dir(&scratch.0)
            .args(["check", "shop", "--format", format])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        text(&out).0
    };
    golden("broken.txt", &run("text"));
    golden("broken.json", &run("json"));
    // The run's base URI is the scratch folder: written as <ROOT>.
    let root = scratch.0.canonicalize().unwrap_or(scratch.0.clone());
    let sarif = run("sarif")
        .replace(&format!("file://{}", root.display()), "file://<ROOT>")
        .replace(&format!("file://{}", scratch.0.display()), "file://<ROOT>");
    golden("broken.sarif", &sarif);

    let out = murano()
        .current_dir(&scratch.0)
        .args(["check", "shop", "--deny", "warnings", "--pkgcheck-only"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// Usage and I/O errors exit with 2.
#[test]
fn usage_errors() {
    let out = murano()
        .args(["check", "/nonexistent/package"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = murano().args(["check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn yaql_evaluates_with_data() {
    let scratch = Scratch::new("yaql");
    let data = scratch.0.join("data.yaml");
    std::fs::write(
        &data,
        "people:\n  - {name: a, age: 40}\n  - {name: b, age: 20}\n",
    )
    .unwrap();
    let out = murano()
        .args([
            "yaql",
            "$.people.where($.age > 30).select($.name)",
            "--data",
        ])
        .arg(&data)
        .output()
        .unwrap();
    assert_eq!(text(&out).0, "[\n  \"a\"\n]\n");
    let out = murano()
        .args(["yaql", "sequence().len()"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).1.contains("Collection length exceeds"));
}

#[test]
fn parse_prints_canonical_trees() {
    let out = murano()
        .args(["parse", "--grammar", "murano", "-f"])
        .arg(workspace().join("examples/expressions/murano.yaql"))
        .output()
        .unwrap();
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout.starts_with("#operator_.($, name)\n"), "{stdout}");
}

#[test]
fn hot_builds_a_package_that_inspect_and_check_read() {
    let scratch = Scratch::new("hot");
    let zip = scratch.0.join("hello.zip");
    let out = murano()
        .arg("hot")
        .arg(examples().join("hello-hot/template.yaml"))
        .arg("-o")
        .arg(&zip)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let out = murano().arg("inspect").arg(&zip).output().unwrap();
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains("io.murano.apps.generated.Template"),
        "{stdout}"
    );
    assert!(
        stdout.contains("$.int().check($ >= 1 and $ <= 65535)"),
        "{stdout}"
    );
    let out = murano().arg("check").arg(&zip).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn completions_are_generated() {
    let out = murano().args(["completions", "bash"]).output().unwrap();
    assert!(text(&out).0.contains("murano"));
}

#[test]
fn ui_fills_the_forms_offline() {
    let ui_examples = workspace().join("examples/ui");
    let out = murano()
        .arg("ui")
        .arg(examples().join("shop"))
        .arg("--values")
        .arg(ui_examples.join("shop-values.yaml"))
        .arg("--cloud")
        .arg(ui_examples.join("cloud.yaml"))
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let body: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(body["?"]["type"], "com.example.Shop");
    assert_eq!(body["name"], "my-shop");
    assert_eq!(body["port"], 8080);
    assert_eq!(body["currencies"], serde_json::json!(["EUR", "USD"]));
    assert_eq!(body["instance"]["image"], "img-ubuntu");
    assert_eq!(body["instance"]["name"], "shop-1");

    let scratch = Scratch::new("ui-invalid");
    let values = scratch.0.join("values.yaml");
    std::fs::write(
        &values,
        "settings: {name: ab, port: '0', currencies: eur, flavor: m1.small, image: img-windows}\n",
    )
    .unwrap();
    let out = murano()
        .arg("ui")
        .arg(examples().join("shop"))
        .arg("--values")
        .arg(&values)
        .arg("--cloud")
        .arg(ui_examples.join("cloud.yaml"))
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("step \"settings\" is not valid:"),
        "{stdout}"
    );
    for field in ["name:", "port:", "currencies:", "image:"] {
        assert!(stdout.contains(field), "{field} missing in {stdout}");
    }
    assert!(stdout.contains("Three-letter currency codes"), "{stdout}");

    // A HOT package's UI is generated from its template parameters.
    let empty = scratch.0.join("empty.yaml");
    std::fs::write(&empty, "{}\n").unwrap();
    let out = murano()
        .arg("ui")
        .arg(examples().join("hello-hot"))
        .arg("--values")
        .arg(&empty)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("step \"group0\" is not valid:"), "{stdout}");
    assert!(stdout.contains("name: This field is required."), "{stdout}");
}

#[test]
fn ui_reports_missing_or_unknown_flavors_per_field() {
    let ui_examples = workspace().join("examples/ui");
    let scratch = Scratch::new("ui-flavor");
    for (flavor, want) in [
        ("", "flavor: This field is required. (required)"),
        (
            "flavor: m9.huge",
            "flavor: Select a valid choice. m9.huge is not one of the available choices. (invalid_choice)",
        ),
    ] {
        let values = scratch.0.join("values.yaml");
        std::fs::write(
            &values,
            format!("settings:\n  name: my-shop\n  port: '8080'\n  currencies: EUR\n  image: img-ubuntu\n  {flavor}\n"),
        )
        .unwrap();
        let out = murano()
            .arg("ui")
            .arg(examples().join("shop"))
            .arg("--values")
            .arg(&values)
            .arg("--cloud")
            .arg(ui_examples.join("cloud.yaml"))
            .output()
            .unwrap();
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
        assert!(stdout.contains(want), "{stdout}");
        assert!(stderr.is_empty(), "{stderr}");
    }
}

#[test]
fn check_reads_hot_packages_as_hot() {
    let out = murano()
        .arg("check")
        .arg(examples().join("hello-hot"))
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    let out = murano()
        .arg("check")
        .arg("--pkgcheck-only")
        .arg(examples().join("hello-hot"))
        .output()
        .unwrap();
    let (stdout, _) = text(&out);
    assert!(stdout.contains("W030"), "{stdout}");
}

#[test]
fn schema_needs_the_classes_it_uses() {
    // Without a catalog, and with no core library installed where Debian's
    // murano-common puts it, the error says how to get it.
    if !Path::new("/usr/share/murano-common").is_dir() {
        let out = murano()
            .env_remove("MURANO_CATALOG")
            .arg("schema")
            .arg(examples().join("shop"))
            .arg("com.example.Shop")
            .output()
            .unwrap();
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
        assert!(
            stderr.contains("not found: NoPackageFound: Package \"io.murano\" is not found"),
            "{stderr}"
        );
        assert!(
            stderr.contains("core library (io.murano) was not found")
                && stderr.contains("murano-common"),
            "{stderr}"
        );
    }

    // With Murano's core library from the shared data, when present.
    let shared = std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared"));
    let core = shared.join("corpus/packages/murano/meta/io.murano");
    if !core.is_dir() {
        eprintln!("shared core library absent: skipping the schema output check");
        return;
    }
    let out = murano()
        .arg("schema")
        .arg(examples().join("shop"))
        .arg("com.example.Shop")
        .arg("--catalog")
        .arg(&core)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let schemas: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let class = &schemas[""];
    assert_eq!(class["properties"]["name"]["title"], "Shop name");
    assert_eq!(class["properties"]["port"]["default"], 8080);
    assert_eq!(class["formSections"]["main"]["title"], "Shop settings");
    assert!(schemas.get("fromCatalogue").is_some(), "{stdout}");
}

/// Writes every file below `dir` into a zip archive at `zip_path`.
fn zip_dir(dir: &Path, zip_path: &Path) {
    use std::io::Write;
    let mut writer = zip::ZipWriter::new(std::fs::File::create(zip_path).unwrap());
    let mut stack = vec![dir.to_owned()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            writer
                .start_file(name, zip::write::SimpleFileOptions::default())
                .unwrap();
            writer.write_all(&std::fs::read(&path).unwrap()).unwrap();
        }
    }
    writer.finish().unwrap();
}

#[test]
fn the_core_library_comes_from_a_zip_or_murano_catalog() {
    let shared = std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared"));
    let core = shared.join("corpus/packages/murano/meta/io.murano");
    if !core.is_dir() {
        eprintln!("shared core library absent: skipping");
        return;
    }
    let schema = |catalog: Option<&Path>, env: Option<&std::ffi::OsStr>| {
        let mut command = murano();
        command.env_remove("MURANO_CATALOG");
        if let Some(list) = env {
            command.env("MURANO_CATALOG", list);
        }
        command
            .arg("schema")
            .arg(examples().join("shop"))
            .arg("com.example.Shop");
        if let Some(catalog) = catalog {
            command.arg("--catalog").arg(catalog);
        }
        let out = command.output().unwrap();
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
        stdout
    };
    let from_folder = schema(Some(&core), None);
    let scratch = Scratch::new("core-zip");
    let zip_path = scratch.0.join("io.murano.zip");
    zip_dir(&core, &zip_path);
    // A package zip given directly is a catalog of one package.
    assert_eq!(schema(Some(&zip_path), None), from_folder);
    // MURANO_CATALOG is a path list, searched after --catalog.
    let list = std::env::join_paths([scratch.0.join("missing"), core.clone()]).unwrap();
    assert_eq!(schema(None, Some(&list)), from_folder);
}

/// `murano hot validate`: 0 valid, 1 findings (with file:line:column), 2
/// I/O; with --params the values and the outputs.
#[test]
fn hot_validate_reports_as_heat() {
    let scratch = Scratch::new("hot-validate");
    let good = scratch.0.join("good.yaml");
    let bad = scratch.0.join("bad.yaml");
    let params = scratch.0.join("params.yaml");
    let base = "heat_template_version: 2016-10-14\nparameters:\n  port: {type: number, default: 80, constraints: [{range: {min: 1, max: 65535}}]}\nresources:\n  r:\n    type: OS::Heat::None\n";
    std::fs::write(
        &good,
        format!("{base}outputs:\n  url: {{value: {{str_replace: {{template: 'http://h:P/', params: {{P: {{get_param: port}}}}}}}}}}\n"),
    )
    .unwrap();
    std::fs::write(
        &bad,
        format!("{base}    properties:\n      a: {{get_attr: [nothere, x]}}\n"),
    )
    .unwrap();
    std::fs::write(&params, "port: '8080'\n").unwrap();

    let out = murano()
        .args(["hot", "validate"])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));

    let out = murano()
        .args(["hot", "validate"])
        .arg(&bad)
        .output()
        .unwrap();
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("error[heat.common.exception.InvalidTemplateReference]: The specified reference \"nothere\" (in r.Properties.a) is incorrect.\n  --> "),
        "{stdout}"
    );
    assert!(stdout.contains("bad.yaml:8:7\n"), "{stdout}");

    let out = murano()
        .args(["hot", "validate"])
        .arg(&good)
        .arg("--params")
        .arg(&params)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["parameters"]["port"], 8080);
    assert_eq!(json["outputs"]["url"]["value"], "http://h:8080/");

    std::fs::write(&params, "port: 0\n").unwrap();
    let out = murano()
        .args(["hot", "validate"])
        .arg(&good)
        .arg("--params")
        .arg(&params)
        .output()
        .unwrap();
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout.contains("error[heat.common.exception.StackValidationFailed]: Parameter 'port' is invalid: 0 is out of range (min: 1, max: 65535)\n  --> "),
        "{stdout}"
    );
    assert!(stdout.contains("good.yaml:3:3\n"), "{stdout}");

    let out = murano()
        .args(["hot", "validate"])
        .arg(scratch.0.join("missing.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Writes a package of text files under `dir`.
fn write_package(dir: &Path, files: &[(&str, &str)]) {
    for (path, body) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
}

#[test]
fn check_keeps_package_level_checks_of_hot_packages() {
    let scratch = Scratch::new("hot-package-level");
    let pkg = scratch.0.join("hello-hot");
    copy_dir(&examples().join("hello-hot"), &pkg);
    std::fs::remove_file(pkg.join("LICENSE")).unwrap();
    // The manifest names logo.png: Murano refuses the package without it.
    std::fs::remove_file(pkg.join("logo.png")).unwrap();
    let out = murano().arg("check").arg(&pkg).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    for code in ["W121", "W074", "H110"] {
        assert!(stdout.contains(code), "{code} missing in {stdout}");
    }
    assert!(stdout.contains("\"LICENSE\" is missing"), "{stdout}");
    assert!(stdout.contains("logo"), "{stdout}");
}

/// A package with one field of type `network`.
fn network_package(dir: &Path) -> PathBuf {
    let pkg = dir.join("net");
    write_package(
        &pkg,
        &[
            (
                "manifest.yaml",
                "Format: MuranoPL/1.0\nType: Application\nFullName: com.example.Net\n\
                 Name: Net\nDescription: d\nClasses: {com.example.Net: Net.yaml}\n",
            ),
            ("Classes/Net.yaml", "Name: com.example.Net\n"),
            (
                "UI/ui.yaml",
                "Version: 2.2\nApplication:\n  ?: {type: com.example.Net}\n  net: $.s.net\n  \
                 name: $.s.name\nForms:\n  - s:\n      fields:\n        - {name: net, type: network, label: Network}\n        \
                 - {name: name, type: string, label: Name, minLength: 3}\n",
            ),
        ],
    );
    pkg
}

#[test]
fn ui_network_values_that_are_no_tuple_are_field_errors() {
    let scratch = Scratch::new("ui-network");
    let pkg = network_package(&scratch.0);
    let cloud = workspace().join("examples/ui/cloud.yaml");
    let values = scratch.0.join("values.yaml");
    let ui = |body: &str| {
        std::fs::write(&values, body).unwrap();
        let out = murano()
            .arg("ui")
            .arg(&pkg)
            .arg("--values")
            .arg(&values)
            .arg("--cloud")
            .arg(&cloud)
            .output()
            .unwrap();
        let (stdout, stderr) = text(&out);
        (out.status.code(), stdout, stderr)
    };
    // A bare network name: an error of the field, with the other fields'
    // errors of the step, and the accepted forms.
    let (code, stdout, stderr) = ui("s: {net: private, name: ab}\n");
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(stdout.starts_with("step \"s\" is not valid:"), "{stdout}");
    assert!(stdout.contains("  net: "), "{stdout}");
    assert!(stdout.contains("private"), "{stdout}");
    assert!(stdout.contains("('net-1', None)"), "{stdout}");
    assert!(stdout.contains("values.yaml"), "{stdout}");
    assert!(stdout.contains("  name: "), "{stdout}");
    assert!(!stderr.contains("ui.yaml"), "{stderr}");
    // The accepted forms.
    for net in ["\"('net-1', None)\"", "''", "\"(None, None)\""] {
        let (code, stdout, stderr) = ui(&format!("s: {{net: {net}, name: abc}}\n"));
        assert_eq!(code, Some(0), "{net}: {stdout}{stderr}");
    }
    // Documented in the help.
    let out = murano().args(["ui", "--help"]).output().unwrap();
    let (help, _) = text(&out);
    assert!(help.contains("('NETWORK_ID', None)"), "{help}");
}

/// A package whose classes Murano and the engine run, but murano-pkg-check
/// refuses (`Do:` inside `Parallel:`, a `!yaql` tag).
fn parity_package(dir: &Path, extra_body: &str) -> PathBuf {
    let pkg = dir.join("parity");
    write_package(
        &pkg,
        &[
            (
                "manifest.yaml",
                "Format: MuranoPL/1.4\nType: Library\nFullName: com.example.Parity\n\
                 Description: d\nClasses:\n  com.example.App: App.yaml\n  com.example.Tagged: Tagged.yaml\n",
            ),
            ("LICENSE", "Apache-2.0"),
            (
                "Classes/App.yaml",
                &format!(
                    "Namespaces: {{=: com.example}}\nName: App\nMethods:\n  run:\n    Body:\n      \
                     - Parallel:\n          - Do:\n              - $x: 1\n          - Do:\n              - $y: 2\n{extra_body}"
                ),
            ),
            (
                "Classes/Tagged.yaml",
                "Namespaces: {=: com.example}\nName: Tagged\nMethods:\n  run:\n    Body:\n      - Return: !yaql '1 + 1'\n",
            ),
        ],
    );
    pkg
}

#[test]
fn parity_only_findings_do_not_fail_check_unless_denied() {
    let scratch = Scratch::new("parity");
    let pkg = parity_package(&scratch.0, "");
    let out = murano().arg("check").arg(&pkg).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    for code in ["E201", "E002"] {
        assert!(stdout.contains(code), "{code} missing in {stdout}");
    }
    assert_eq!(stdout.matches("Murano accepts this").count(), 3, "{stdout}");
    // Asked for: a parity finding fails the run.
    let out = murano()
        .args(["check", "--deny", "parity"])
        .arg(&pkg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    let out = murano()
        .args(["check", "--deny", "warnings,parity"])
        .arg(&pkg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    // murano-pkg-check's view: its errors are errors.
    let out = murano()
        .args(["check", "--pkgcheck-only"])
        .arg(&pkg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    // A body item Murano refuses too still fails the run.
    let scratch = Scratch::new("parity-real");
    let pkg = parity_package(&scratch.0, "      - x: 1\n");
    let out = murano().arg("check").arg(&pkg).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("\"x\" is not a valid variable name"),
        "{stdout}"
    );
}

#[test]
fn check_finds_ui_types_defined_nowhere() {
    let Some(core) = core_library() else {
        return;
    };
    let scratch = Scratch::new("ui-types");
    let pkg = scratch.0.join("app");
    let ui = |app: &str, instance: &str, field: &str| {
        format!(
            "Version: 2.2\nTemplates:\n  vm:\n    ?: {{type: {instance}}}\n    name: x\n\
             Application:\n  ?:\n    type: {app}\n  peer: $.s.peer\n  vm: $vm\n\
             Forms:\n  - s:\n      fields:\n        - {{name: peer, type: {field}, label: Peer}}\n"
        )
    };
    let write = |ui_text: &str| {
        write_package(
            &pkg,
            &[
                (
                    "manifest.yaml",
                    "Format: MuranoPL/1.4\nType: Application\nFullName: com.example.App\n\
                     Description: d\nRequire: {io.murano: }\nClasses: {com.example.App: App.yaml}\n",
                ),
                ("LICENSE", "Apache-2.0"),
                ("logo.png", "png"),
                (
                    "Classes/App.yaml",
                    "Namespaces: {=: com.example, std: io.murano}\nName: App\nExtends: std:Application\n",
                ),
                ("UI/ui.yaml", ui_text),
            ],
        );
    };
    let check = || {
        let out = murano()
            .arg("check")
            .arg(&pkg)
            .arg("--catalog")
            .arg(&core)
            .output()
            .unwrap();
        text(&out).0
    };
    write(&ui(
        "com.example.Ap",
        "io.murano.resources.LinuxMuranoInstanc",
        "com.example.Peer",
    ));
    let stdout = check();
    assert_eq!(stdout.matches("M423").count(), 3, "{stdout}");
    for name in [
        "com.example.Ap",
        "io.murano.resources.LinuxMuranoInstanc",
        "com.example.Peer",
    ] {
        assert!(stdout.contains(name), "{name} missing in {stdout}");
    }
    write(&ui(
        "com.example.App",
        "io.murano.resources.LinuxMuranoInstance",
        "io.murano.Application",
    ));
    let stdout = check();
    assert!(!stdout.contains("M423"), "{stdout}");
    // Without a catalog nothing outside the package is known: not checked.
    let out = murano().arg("check").arg(&pkg).output().unwrap();
    assert!(!text(&out).0.contains("M423"));
}

#[test]
fn yaql_murano_grammar_has_the_engine_functions() {
    for (expression, want) in [
        ("format('{0}-{1}', 1, 2)", "\"1-2\""),
        ("'{0}:{p}'.format(5, p => 8)", "\"5:8\""),
        ("base64encode('a')", "\"YQ==\""),
        ("substr('abcdef', 2, 3)", "\"cde\""),
    ] {
        let out = murano()
            .args(["yaql", "--grammar", "murano", expression])
            .output()
            .unwrap();
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{expression}: {stdout}{stderr}");
        assert_eq!(stdout.trim(), want, "{expression}");
    }
    // A function that needs an object model is known but does not apply.
    let out = murano()
        .args(["yaql", "--grammar", "murano", "id($)"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        !text(&out).1.contains("Unknown function"),
        "{:?}",
        text(&out)
    );
}
