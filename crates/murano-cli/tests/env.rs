//! `murano catalog` (store), `murano env` and `murano static-action`:
//! a whole WordPress + MySQL + Apache lifecycle from the shared corpus'
//! package trees, a process killed in the middle of a deployment, two
//! deployments of one environment at once, and store files that are not
//! the store's. Murano's core library comes from the shared data; tests
//! that need it skip when it is absent.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value as Json;

fn shared() -> Option<PathBuf> {
    let shared = std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    shared
        .join("conformance/engine/meta/io.murano")
        .is_dir()
        .then_some(shared)
}

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("murano-env-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn murano(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_murano"));
    c.env("MURANO_DB", db).env_remove("MURANO_CATALOG");
    c
}

fn ok(db: &Path, args: &[&str]) -> String {
    let out = murano(db).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "murano {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_of(db: &Path, args: &[&str]) -> Json {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    serde_json::from_str(&ok(db, &all)).unwrap()
}

const INSTANCE: &str = r#"instance={"?": {"type": "io.murano.resources.LinuxMuranoInstance"}, "flavor": "m1.small", "image": "img-ubuntu", "keyname": "k", "name": "VM", "assignFloatingIp": true, "availabilityZone": "nova"}"#;

#[test]
fn wordpress_mysql_and_apache_live_a_whole_lifecycle() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = scratch("wordpress");
    let db = dir.join("m.db");
    let apps = shared.join("corpus/packages/murano-apps");
    let mut import: Vec<String> = vec!["catalog".into(), "import".into()];
    for p in [
        shared.join("conformance/engine/meta/io.murano"),
        shared.join("corpus/packages/murano/meta/io.murano.applications"),
        apps.join("WordPress/package"),
        apps.join("MySQL/package"),
        apps.join("ApacheHTTPServer/package/v0"),
        apps.join("ZabbixAgent/package"),
        apps.join("SQLDatabaseLibrary/package"),
        apps.join("ZabbixServer/package"),
    ] {
        import.push(p.display().to_string());
    }
    let import: Vec<&str> = import.iter().map(String::as_str).collect();
    ok(&db, &import);
    let names: Vec<String> = json_of(&db, &["catalog", "list"])
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        names.contains(&"com.example.WordPress".to_owned()),
        "{names:?}"
    );
    ok(&db, &["env", "create", "shop"]);
    let db_vm = INSTANCE.replace("\"VM\"", "\"db-vm\"");
    let web_vm = INSTANCE.replace("\"VM\"", "\"web-vm\"");
    ok(
        &db,
        &[
            "env",
            "add",
            "shop",
            "com.example.databases.MySql",
            "--name",
            "db",
            "--set",
            "database=wp",
            "--set",
            "username=wp_user",
            "--set",
            "password=Passw0rd!",
            "--set",
            &db_vm,
        ],
    );
    ok(
        &db,
        &[
            "env",
            "add",
            "shop",
            "com.example.apache.ApacheHttpServer",
            "--name",
            "web",
            "--set",
            "enablePHP=true",
            "--set",
            &web_vm,
        ],
    );
    // The WordPress form's application fields point at the other two.
    ok(
        &db,
        &[
            "env",
            "add",
            "shop",
            "com.example.WordPress",
            "--name",
            "wp",
            "--set",
            "database=@db",
            "--set",
            "server=@web",
            "--set",
            "dbName=wordpress",
            "--set",
            "dbUser=wp_user",
            "--set",
            "dbPassword=Passw0rd!",
        ],
    );
    assert_eq!(json_of(&db, &["env", "show", "shop"])["status"], "pending");
    // The cloud description `murano ui --cloud` reads, with the offline
    // host's addresses.
    let cloud = dir.join("cloud.yaml");
    std::fs::write(
        &cloud,
        "flavors: [{name: m1.small}]\nhost:\n  floating_ip: 172.24.4.99\n",
    )
    .unwrap();
    let cloud_arg = cloud.to_str().unwrap();
    let d = json_of(&db, &["env", "deploy", "shop", "--cloud", cloud_arg]);
    assert_eq!(d["status"], "Deployment finished", "{d}");
    let texts: Vec<&str> = d["reports"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["text"].as_str())
        .collect();
    assert!(
        texts.contains(&"Running at http://172.24.4.99/wordpress"),
        "{texts:?}"
    );
    assert_eq!(json_of(&db, &["env", "show", "shop"])["status"], "ready");
    // An action of the deployed environment.
    let actions = json_of(&db, &["env", "actions", "shop"]);
    let deploy = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "deploy")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = json_of(&db, &["env", "action", "shop", &deploy]);
    assert!(a["outcome"].get("ok").is_some(), "{a}");
    // Edit, redeploy; remove WordPress, redeploy; delete.
    ok(
        &db,
        &[
            "env",
            "edit",
            "shop",
            "web",
            r#"[{"op": "replace", "path": "/instance/flavor", "value": "m1.medium"}]"#,
        ],
    );
    assert_eq!(
        json_of(&db, &["env", "deploy", "shop"])["status"],
        "Deployment finished"
    );
    ok(&db, &["env", "remove", "shop", "wp"]);
    assert_eq!(
        json_of(&db, &["env", "deploy", "shop"])["status"],
        "Deployment finished"
    );
    let gone = json_of(&db, &["env", "delete", "shop"]);
    assert_eq!(gone["api"]["environment"], "removed", "{gone}");
    assert_eq!(json_of(&db, &["env", "list"]), Json::Array(vec![]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A package whose deployment counts for a while (to be caught running).
fn slow_package(dir: &Path) -> PathBuf {
    let pkg = dir.join("slow");
    std::fs::create_dir_all(pkg.join("Classes")).unwrap();
    std::fs::write(
        pkg.join("manifest.yaml"),
        "Format: 1.0\nType: Application\nFullName: io.example.Slow\nName: Slow\nClasses:\n  io.example.Slow: Slow.yaml\n",
    )
    .unwrap();
    std::fs::write(
        pkg.join("Classes/Slow.yaml"),
        "Namespaces:\n  =: io.example\n  std: io.murano\nName: Slow\nExtends: std:Application\n\
         Properties:\n  rounds:\n    Contract: $.int().notNull()\n\
         Methods:\n  deploy:\n    Body:\n      - $i: 0\n      - While: $i < $.rounds\n        Do:\n          - $i: $i + 1\n",
    )
    .unwrap();
    pkg
}

/// A store with environments `quick` (deployed) and `slow` (pending).
fn two_environments(shared: &Path, dir: &Path) -> PathBuf {
    let db = dir.join("m.db");
    let core = shared.join("conformance/engine/meta/io.murano");
    let pkg = slow_package(dir);
    ok(
        &db,
        &[
            "catalog",
            "import",
            core.to_str().unwrap(),
            pkg.to_str().unwrap(),
        ],
    );
    ok(&db, &["env", "create", "quick"]);
    ok(
        &db,
        &[
            "env",
            "add",
            "quick",
            "io.example.Slow",
            "--name",
            "q",
            "--set",
            "rounds=1",
        ],
    );
    ok(&db, &["env", "deploy", "quick"]);
    ok(&db, &["env", "create", "slow"]);
    ok(
        &db,
        &[
            "env",
            "add",
            "slow",
            "io.example.Slow",
            "--name",
            "s",
            "--set",
            "rounds=100000000",
        ],
    );
    db
}

fn spawn_deploy(db: &Path, env: &str) -> Child {
    murano(db)
        .args(["env", "deploy", env])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits until `env` shows `status` (the deployment is committed as
/// running before the engine starts).
fn wait_status(db: &Path, env: &str, status: &str) {
    for _ in 0..600 {
        if json_of(db, &["env", "show", env])["status"] == status {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{env} never became {status}");
}

#[test]
fn a_killed_deployment_is_marked_failed_and_nothing_committed_is_lost() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = scratch("kill");
    let db = two_environments(&shared, &dir);
    let mut child = spawn_deploy(&db, "slow");
    wait_status(&db, "slow", "deploying");
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert!(!status.success());
    // The next start marks it failed; the other environment is intact.
    let list = json_of(&db, &["env", "list"]);
    let by_name = |n: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == n)
            .cloned()
            .unwrap()
    };
    assert_eq!(by_name("slow")["status"], "deploy failure");
    assert_eq!(by_name("quick")["status"], "ready");
    let deps = json_of(&db, &["env", "deployments", "slow"]);
    assert_eq!(deps[0]["state"], "interrupted", "{deps}");
    assert_eq!(
        json_of(&db, &["env", "deployments", "quick"])[0]["state"],
        "success"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_deployments_of_one_environment_exactly_one_runs() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = scratch("twice");
    let db = two_environments(&shared, &dir);
    let mut first = spawn_deploy(&db, "slow");
    wait_status(&db, "slow", "deploying");
    let second: Output = murano(&db)
        .args(["env", "deploy", "slow"])
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(2));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("already being deployed"), "{err}");
    // Another environment deploys meanwhile.
    ok(&db, &["env", "deploy", "quick"]);
    first.kill().unwrap();
    first.wait().unwrap();
    let deps = json_of(&db, &["env", "deployments", "slow"]);
    assert_eq!(deps.as_array().unwrap().len(), 1, "{deps}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn foreign_and_corrupt_store_files_are_refused_untouched() {
    let dir = scratch("corrupt");
    let text = dir.join("notes.db");
    std::fs::write(&text, "not a database\n").unwrap();
    let out = murano(&text).args(["env", "list"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an SQLite database"));
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "not a database\n");
    // An SQLite header over garbage.
    let broken = dir.join("broken.db");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(std::iter::repeat_n(0xa5u8, 8192));
    std::fs::write(&broken, &bytes).unwrap();
    let out = murano(&broken).args(["catalog", "list"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refusing"), "{err}");
    assert_eq!(std::fs::read(&broken).unwrap(), bytes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_environment_is_a_clear_error() {
    let dir = scratch("missing");
    let db = dir.join("m.db");
    let out = murano(&db).args(["env", "show", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no environment nope"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_bundled_notes_examples_live_a_lifecycle() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = scratch("notes");
    let db = dir.join("m.db");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/packages");
    let core = shared.join("conformance/engine/meta/io.murano");
    let (notes_db, notes) = (examples.join("notes-db"), examples.join("notes"));
    ok(
        &db,
        &[
            "catalog",
            "import",
            core.to_str().unwrap(),
            notes_db.to_str().unwrap(),
            notes.to_str().unwrap(),
        ],
    );
    assert_eq!(
        json_of(&db, &["catalog", "show", "com.example.Notes"])["classes"][0],
        "com.example.Notes"
    );
    ok(&db, &["env", "create", "demo"]);
    let vm = INSTANCE.replace("\"VM\"", "\"db-vm\"");
    ok(
        &db,
        &[
            "env",
            "add",
            "demo",
            "com.example.NotesDb",
            "--set",
            "name=notes-db",
            "--set",
            &vm,
        ],
    );
    let vm = INSTANCE.replace("\"VM\"", "\"web-vm\"");
    ok(
        &db,
        &[
            "env",
            "add",
            "demo",
            "com.example.Notes",
            "--set",
            "name=notes",
            "--set",
            "database=@notes-db",
            "--set",
            &vm,
        ],
    );
    let d = json_of(&db, &["env", "deploy", "demo"]);
    assert_eq!(d["status"], "Deployment finished", "{d}");
    let backup = json_of(&db, &["env", "actions", "demo"])
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "backup")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        json_of(&db, &["env", "action", "demo", &backup])["outcome"]["result"],
        1
    );
    // The action's property change was stored: the next one counts on.
    assert_eq!(
        json_of(&db, &["env", "action", "demo", &backup])["outcome"]["result"],
        2
    );
    ok(&db, &["env", "remove", "demo", "notes"]);
    let d = json_of(&db, &["env", "deploy", "demo"]);
    let texts: Vec<&str> = d["reports"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["text"].as_str())
        .collect();
    assert!(texts.contains(&"Notes notes removed"), "{texts:?}");
    assert_eq!(
        json_of(&db, &["env", "delete", "demo"])["api"]["environment"],
        "removed"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn static_actions_run_from_the_catalog() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = scratch("static");
    let db = dir.join("m.db");
    let core = shared.join("conformance/engine/meta/io.murano");
    let pkg = shared.join("conformance/lifecycle/handwritten/pkg/io.oracle.lifecycle");
    ok(
        &db,
        &[
            "catalog",
            "import",
            core.to_str().unwrap(),
            pkg.to_str().unwrap(),
        ],
    );
    let out = json_of(
        &db,
        &[
            "static-action",
            "io.oracle.lifecycle.Tools",
            "greet",
            "--package",
            "io.oracle.lifecycle",
            "--arg",
            "name=oracle",
            "--arg",
            "times=2",
            "--arg",
            "shout=true",
        ],
    );
    assert_eq!(
        out["outcome"]["result"],
        serde_json::json!(["HELLO ORACLE", "HELLO ORACLE"])
    );
    let out = murano(&db)
        .args(["static-action", "io.oracle.lifecycle.Tools", "internalOnly"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_model_builder_adds_an_application() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = scratch("builder");
    let db = dir.join("m.db");
    let core = shared.join("conformance/engine/meta/io.murano");
    let pkg = shared.join("conformance/lifecycle/handwritten/pkg/io.oracle.lifecycle");
    ok(
        &db,
        &[
            "catalog",
            "import",
            core.to_str().unwrap(),
            pkg.to_str().unwrap(),
        ],
    );
    ok(&db, &["env", "create", "lab"]);
    let added = json_of(
        &db,
        &[
            "env",
            "add",
            "lab",
            "--builder",
            "io.oracle.lifecycle.Tools.buildCounter",
            "--arg",
            "appId=built-1",
            "--arg",
            "name=first",
            "--arg",
            "start=5",
        ],
    );
    assert_eq!(added["added"], "built-1");
    let show = json_of(&db, &["env", "show", "lab"]);
    assert_eq!(
        show["applications"][0]["type"], "io.oracle.lifecycle.Counter",
        "{show}"
    );
    // The builder saw the environment's model: its name, no applications.
    assert_eq!(show["applications"][0]["name"], "lab/first");
    let d = json_of(&db, &["env", "deploy", "lab"]);
    assert_eq!(d["status"], "Deployment finished", "{d}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_application_from_its_forms_names_the_environments_applications() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = scratch("forms");
    let db = dir.join("m.db");
    let apps = shared.join("corpus/packages/murano-apps");
    let wordpress = apps.join("WordPress/package");
    let mut import: Vec<String> = vec!["catalog".into(), "import".into()];
    for p in [
        shared.join("conformance/engine/meta/io.murano"),
        wordpress.clone(),
        apps.join("MySQL/package"),
        apps.join("ApacheHTTPServer/package/v0"),
    ] {
        import.push(p.display().to_string());
    }
    let import: Vec<&str> = import.iter().map(String::as_str).collect();
    ok(&db, &import);
    ok(&db, &["env", "create", "shop"]);
    let added = |class: &str, name: &str| -> String {
        json_of(&db, &["env", "add", "shop", class, "--name", name])["added"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let mysql = added("com.example.databases.MySql", "db");
    let apache = added("com.example.apache.ApacheHttpServer", "web");
    let values = dir.join("values.yaml");
    // The database by its name, the server by its id.
    std::fs::write(
        &values,
        format!(
            "appConfiguration:\n  database: db\n  server: {apache}\n\
             dbConfiguration:\n  password: Passw0rd!\n  password-clone: Passw0rd!\n"
        ),
    )
    .unwrap();
    let wordpress = wordpress.display().to_string();
    let values = values.display().to_string();
    let out = json_of(
        &db,
        &[
            "env",
            "add",
            "shop",
            "--package",
            &wordpress,
            "--values",
            &values,
        ],
    );
    let app = &out["application"];
    assert_eq!(app["?"]["type"], "com.example.WordPress", "{out}");
    assert_eq!(app["database"], mysql.as_str(), "{out}");
    assert_eq!(app["server"], apache.as_str(), "{out}");
    assert_eq!(app["dbPassword"], "Passw0rd!", "{out}");
    let shown = json_of(&db, &["env", "show", "shop"]);
    assert_eq!(
        shown["applications"].as_array().unwrap().len(),
        3,
        "{shown}"
    );
    // An application the environment does not have is an error of the field.
    std::fs::write(
        &values,
        "appConfiguration:\n  database: nosuch\n  server: web\n\
         dbConfiguration:\n  password: Passw0rd!\n  password-clone: Passw0rd!\n",
    )
    .unwrap();
    let out = murano(&db)
        .args([
            "env",
            "add",
            "shop",
            "--package",
            &wordpress,
            "--values",
            &values,
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("database"), "{err}");
}

#[test]
fn an_application_from_the_forms_of_a_catalog_package_by_name() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = scratch("forms-by-name");
    let db = dir.join("m.db");
    let apps = shared.join("corpus/packages/murano-apps");
    let mut import: Vec<String> = vec!["catalog".into(), "import".into()];
    for p in [
        shared.join("conformance/engine/meta/io.murano"),
        apps.join("WordPress/package"),
        apps.join("MySQL/package"),
        apps.join("ApacheHTTPServer/package/v0"),
    ] {
        import.push(p.display().to_string());
    }
    let import: Vec<&str> = import.iter().map(String::as_str).collect();
    ok(&db, &import);
    ok(&db, &["env", "create", "shop"]);
    ok(
        &db,
        &[
            "env",
            "add",
            "shop",
            "com.example.databases.MySql",
            "--name",
            "db",
        ],
    );
    ok(
        &db,
        &[
            "env",
            "add",
            "shop",
            "com.example.apache.ApacheHttpServer",
            "--name",
            "web",
        ],
    );
    let values = dir.join("values.yaml");
    std::fs::write(
        &values,
        "appConfiguration:\n  database: db\n  server: web\n\
         dbConfiguration:\n  password: Passw0rd!\n  password-clone: Passw0rd!\n",
    )
    .unwrap();
    let values = values.display().to_string();
    // Run where no folder has the package's name: only the catalog has it.
    let add = |package: &str| {
        murano(&db)
            .current_dir(&dir)
            .args([
                "env",
                "add",
                "shop",
                "--package",
                package,
                "--values",
                &values,
            ])
            .args(["--format", "json"])
            .output()
            .unwrap()
    };
    let out = add("com.example.WordPress");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out: Json = serde_json::from_slice(&out.stdout).unwrap();
    let app = &out["application"];
    assert_eq!(app["?"]["type"], "com.example.WordPress", "{out}");
    assert_eq!(app["dbPassword"], "Passw0rd!", "{out}");
    let shown = json_of(&db, &["env", "show", "shop"]);
    assert_eq!(
        shown["applications"].as_array().unwrap().len(),
        3,
        "{shown}"
    );
    // A name neither a path nor in the catalog says both.
    let out = add("com.example.NoSuchPackage");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("com.example.NoSuchPackage") && err.contains("catalog"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_heat_hot_package_of_the_catalog_deploys_through_its_generated_class() {
    let Some(shared) = shared() else {
        eprintln!("shared data absent: skipping");
        return;
    };
    let dir = scratch("hot");
    let db = dir.join("m.db");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let hot = root.join("examples/packages/hello-hot");
    let core = shared.join("conformance/engine/meta/io.murano");
    ok(
        &db,
        &[
            "catalog",
            "import",
            core.to_str().unwrap(),
            hot.to_str().unwrap(),
        ],
    );
    // The catalog lists the class the Heat.HOT plug-in generates.
    assert_eq!(
        json_of(&db, &["catalog", "show", "com.example.HelloHot"])["classes"][0],
        "com.example.HelloHot"
    );
    ok(&db, &["env", "create", "stack"]);
    let values = dir.join("values.yaml");
    std::fs::write(
        &values,
        "group0: {name: web}\ngroup1: {image: img-ubuntu}\n",
    )
    .unwrap();
    let cloud = root.join("examples/ui/cloud.yaml");
    ok(
        &db,
        &[
            "env",
            "add",
            "stack",
            "--package",
            "com.example.HelloHot",
            "--values",
            values.to_str().unwrap(),
            "--cloud",
            cloud.to_str().unwrap(),
        ],
    );
    let out = json_of(&db, &["env", "deploy", "stack"]);
    assert!(out["outcome"].get("raised").is_none(), "{out}");
    assert_eq!(out["status"], "Deployment finished", "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_store_defaults_to_the_users_xdg_data_directory() {
    let dir = scratch("xdg");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_murano"))
            .env_remove("MURANO_DB")
            .env_remove("MURANO_CATALOG")
            .env("XDG_DATA_HOME", dir.join("data"))
            .env("HOME", dir.join("home"))
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["env", "create", "shop"]);
    assert!(out.status.success(), "{out:?}");
    assert!(dir.join("data/murano/murano.db").is_file());
    assert!(!dir.join("home").exists());
    let out = run(&["env", "list", "--format", "json"]);
    let list: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list[0]["name"], "shop", "{list}");
    let _ = std::fs::remove_dir_all(&dir);
}
