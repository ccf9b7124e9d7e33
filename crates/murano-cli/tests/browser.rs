//! `murano ui serve` and `murano forms serve` in a real browser: a headless
//! Chromium driven through WebDriver (chromedriver) walks the wizards and
//! forms of the dashboard they open (and, with `--preview`, the older
//! preview that reloads an edited package), and the object models made
//! through the browser are compared with `murano ui --values` for the
//! same values.
//!
//! A test binary without libtest's harness, so that it can say plainly
//! when it did not run: without chromedriver and Chromium it prints that
//! the browser tests were SKIPPED, and fails instead when
//! MURANO_REQUIRE_BROWSER=1 (as CI sets it). MURANO_CHROMEDRIVER and
//! MURANO_CHROMIUM name the programs when they are not in
//! /usr/bin/chromedriver and /usr/bin/chromium (or on PATH).
//! Screenshots of each step go to target/ui-screenshots/ and
//! target/forms-screenshots/.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Duration;

use serde_json::{json, Value as Json};

mod common;
use common::webdriver::{run_browser_tests, target_dir, BrowserTest, Driver, Outcome, Session};
use common::{shared, workspace, Running};

/// A `murano … serve` process and the address it printed.
struct Server {
    _process: Running,
    url: String,
}

fn serve(args: &[&std::ffi::OsStr]) -> Server {
    let (process, url) = common::serve(args);
    Server {
        _process: process,
        url,
    }
}

/// The values of a `murano ui --values` file: forms in order, each with
/// its fields' values in order.
fn read_values(path: &Path) -> Vec<(String, Vec<(String, String)>)> {
    use murano_yaml::{load_single, Flavor, LoadOptions};
    let bytes = std::fs::read(path).expect("values file");
    let doc = load_single(&bytes, Flavor::Plain, &LoadOptions::default())
        .expect("values YAML")
        .expect("values");
    doc.value
        .as_map()
        .unwrap_or(&[])
        .iter()
        .map(|(form, fields)| {
            let fields = fields
                .value
                .as_map()
                .unwrap_or(&[])
                .iter()
                .map(|(k, v)| (k.value.python_str(), v.value.python_str()))
                .collect();
            (form.value.python_str(), fields)
        })
        .collect()
}

/// `murano ui PACKAGE --values VALUES --cloud CLOUD`, parsed.
fn ui_values(package: &Path, values: &Path, cloud: &Path) -> Json {
    let out = Command::new(env!("CARGO_BIN_EXE_murano"))
        .arg("ui")
        .arg(package)
        .arg("--values")
        .arg(values)
        .arg("--cloud")
        .arg(cloud)
        .output()
        .expect("murano ui runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "murano ui failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).expect("murano ui prints JSON")
}

fn is_uuid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts
            .iter()
            .all(|p| p.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The ids of new objects are random on every run: number them by order
/// of appearance, so two models compare by their structure.
fn normalize_ids(v: &Json, seen: &mut Vec<String>) -> Json {
    match v {
        Json::String(s) if is_uuid(s) => {
            let n = match seen.iter().position(|x| x == s) {
                Some(n) => n,
                None => {
                    seen.push(s.clone());
                    seen.len() - 1
                }
            };
            Json::String(format!("<id {n}>"))
        }
        Json::Array(items) => Json::Array(items.iter().map(|x| normalize_ids(x, seen)).collect()),
        Json::Object(m) => Json::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), normalize_ids(x, seen)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn normalized(v: &Json) -> Json {
    normalize_ids(v, &mut Vec::new())
}

/// The object model of the application added last, as the environment
/// page shows it (folded: read from the page, not from what is visible).
/// The API adds the application's status to its header; the wizard does
/// not make it, so it is left out.
fn added_model(s: &Session<'_>) -> Json {
    assert!(
        s.url().contains("/environments/") && !s.url().contains("/add/"),
        "not on an environment page: {}",
        s.url()
    );
    let text = s.script(
        "var m = document.querySelectorAll('.object-model'); return m.length ? m[m.length - 1].textContent : '';",
    );
    let text = text.as_str().unwrap_or("");
    let mut model: Json = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    if let Some(header) = model["?"].as_object_mut() {
        header.remove("status");
    }
    model
}

/// Whether the page is a step of a wizard (a draft's).
fn on_a_step(s: &Session<'_>) -> bool {
    s.url().contains("/drafts/")
}

/// Walks a wizard with `values` (fields left out keep what the page
/// shows, as for `murano ui --values`), a screenshot per step when
/// `shots` is given; returns the object model of the last page.
fn walk(
    s: &Session<'_>,
    server: &Server,
    values: &[(String, Vec<(String, String)>)],
    shots: Option<(&Path, &str)>,
) -> Json {
    s.go(&server.url);
    for step in 0..32 {
        if !on_a_step(s) {
            return added_model(s);
        }
        let form = s.attribute("form[data-form]", "data-form");
        if let Some((_, fields)) = values.iter().find(|(f, _)| *f == form) {
            for (name, value) in fields {
                s.fill(name, value);
            }
        }
        if let Some((dir, prefix)) = shots {
            s.screenshot(&dir.join(format!("{prefix}-{step}-{form}.png")));
        }
        s.submit("#next");
        assert!(
            s.find_all(".errors, #form-errors, #load-error").is_empty(),
            "step {form} is not valid:\n{}",
            s.text("main")
        );
    }
    panic!("the wizard did not end")
}

fn wizard_walk_of_the_example_shop(driver: &Driver) -> Outcome {
    let s = driver.session();
    let package = workspace().join("examples/packages/shop");
    let cloud = workspace().join("examples/ui/cloud.yaml");
    let values = workspace().join("examples/ui/shop-values.yaml");
    let examples = workspace().join("examples/packages");
    let core = shared().join("conformance/engine/meta/io.murano");
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "ui".as_ref(),
        "serve".as_ref(),
        package.as_os_str(),
        "--cloud".as_ref(),
        cloud.as_os_str(),
        "--catalog".as_ref(),
        examples.as_os_str(),
    ];
    if core.is_dir() {
        args.extend(["--catalog".as_ref(), core.as_os_str()]);
    }
    let server = serve(&args);
    let shots = target_dir().join("ui-screenshots");
    // The printed address starts the wizard in an environment made for
    // the package.
    s.go(&server.url);
    assert!(on_a_step(&s) && s.url().ends_with("/step/0"), "{}", s.url());
    // Labels are bound to their inputs, required fields are marked, the
    // description stands beside the form, initial values are filled in.
    assert_eq!(s.attribute("label[for=id_name]", "for"), "id_name");
    assert!(s.text("label[for=id_name]").starts_with("Shop name"));
    assert_eq!(s.text("label[for=id_name] .required"), "*");
    assert!(s.text(".right").contains("A name for the shop"));
    assert_eq!(s.value("#id_port"), "8080");
    assert_eq!(s.value("#id_unitNamingPattern"), "shop-#");
    assert_eq!(s.attribute("#id_port", "max"), "65535");
    // The cloud's lists: Linux images only, flavors by name.
    let images: Vec<String> = s
        .find_all("#id_image option")
        .iter()
        .map(|o| {
            s.cmd("GET", &format!("/element/{o}/text"), None)
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    assert_eq!(images, ["ubuntu-22.04"]);
    s.screenshot(&shots.join("1-settings.png"));

    // An invalid value: the error stands next to its field and what was
    // typed stays.
    s.fill("name", "ab");
    s.fill("currencies", "eur");
    s.submit("#next");
    assert!(s.url().ends_with("/step/0"), "{}", s.url());
    assert_eq!(
        s.text("[data-field=name] .errors"),
        "Ensure this value has at least 3 characters (it has 2)."
    );
    assert_eq!(
        s.text("[data-field=currencies] .errors"),
        "Three-letter currency codes separated by commas"
    );
    assert!(s.find_all("[data-field=port] .errors").is_empty());
    assert_eq!(s.value("#id_name"), "ab");
    assert_eq!(s.value("#id_currencies"), "eur");
    s.screenshot(&shots.join("2-settings-invalid.png"));

    // Valid values, then Back: the first step keeps them.
    for (form, fields) in read_values(&values) {
        assert_eq!(form, "settings");
        for (name, value) in fields {
            s.fill(&name, &value);
        }
    }
    s.submit("#next");
    assert!(s.url().ends_with("/step/1"), "{}", s.url());
    assert_eq!(s.value("#id_application_name"), "Shop");
    assert_eq!(s.text("#next"), "Create");
    s.screenshot(&shots.join("3-workflow-management.png"));
    s.fill("application_name", "my-shop-app");
    s.submit("#back");
    assert!(s.url().ends_with("/step/0"), "{}", s.url());
    assert_eq!(s.value("#id_name"), "my-shop");
    assert_eq!(s.value("#id_currencies"), "EUR,USD");
    assert_eq!(s.value("#id_flavor"), "m1.small");
    s.submit("#next");
    assert_eq!(s.value("#id_application_name"), "my-shop-app");
    s.fill("application_name", "Shop");
    s.submit("#next");
    // Finished: the application is in the environment, its object model
    // on the environment's page.
    assert!(!on_a_step(&s), "{}", s.url());
    s.script(
        "document.querySelectorAll('details.app-model').forEach(function (d) { d.open = true; });",
    );
    s.screenshot(&shots.join("4-object-model.png"));
    let model = added_model(&s);
    assert_eq!(model["name"], "my-shop");
    let expected = ui_values(&package, &values, &cloud);
    assert_eq!(normalized(&model), normalized(&expected));

    // Deploying is a button that posts (no link runs it), on the offline
    // engine; its reports show on the page.
    let env_url = s.url();
    assert!(s.find_all("a[href$=\"/deploy\"]").is_empty());
    let deploy_form = format!(
        "{}/deploy",
        env_url.split_once("/environments/").map_or("", |(_, p)| p)
    );
    assert_eq!(
        s.attribute(
            &format!("form[action=\"/environments/{deploy_form}\"]"),
            "method"
        ),
        "post"
    );
    s.submit("#deploy");
    let finished = |s: &Session<'_>| {
        let state = latest_state(s);
        !state.is_empty() && state != "running"
    };
    assert!(
        wait_for(&s, &env_url, finished),
        "the deployment did not end"
    );
    let state = latest_state(&s);
    if core.is_dir() {
        assert_eq!(state, "success", "{}", s.text("main"));
        assert!(
            s.text("#latest-reports").contains("Hello, my-shop!"),
            "{}",
            s.text("main")
        );
    } else {
        println!("  (no core library in the shared data: the deployment fails, as it must)");
        assert_ne!(state, "success");
    }
    s.screenshot(&shots.join("5-deploy.png"));
    Ok(())
}

/// Reloads `url` until `done` holds (bounded: the engine deploys in the
/// background), returning whether it did.
fn wait_for(s: &Session<'_>, url: &str, done: impl Fn(&Session<'_>) -> bool) -> bool {
    for _ in 0..240 {
        s.go(url);
        if done(s) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    false
}

/// The state of the environment's latest deployment ("" before any).
fn latest_state(s: &Session<'_>) -> String {
    s.find_all("tr[data-deployment]")
        .first()
        .map(|e| {
            s.cmd("GET", &format!("/element/{e}/attribute/data-state"), None)
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .unwrap_or_default()
}

/// A web server on a loopback port standing for another site: every
/// request gets `page`. Ends with the test process.
fn foreign_site(page: String) -> u16 {
    use std::io::{Read, Write};
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
            // The request head (bounded), then the page.
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while head.len() < 65536 && !head.ends_with(b"\r\n\r\n") {
                match stream.read(&mut byte) {
                    Ok(1) => head.push(byte[0]),
                    _ => break,
                }
            }
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
        }
    });
    port
}

/// Pages of other sites cannot use the dashboard `ui serve` opens: a
/// form posted from one is refused (and changes nothing), and a name of
/// theirs that resolves to 127.0.0.1 (DNS rebinding) reads no page.
fn foreign_pages_cannot_use_the_dashboard(driver: &Driver) -> Outcome {
    let package = workspace().join("examples/packages/shop");
    let cloud = workspace().join("examples/ui/cloud.yaml");
    let server = serve(&[
        "ui".as_ref(),
        "serve".as_ref(),
        package.as_os_str(),
        "--cloud".as_ref(),
        cloud.as_os_str(),
    ]);
    let (base, rest) = server
        .url
        .split_once("/environments/")
        .expect("the address of a page of an environment");
    let eid = rest.split('/').next().unwrap_or("");
    let port = base.rsplit(':').next().unwrap_or("");
    let attack = format!(
        "<!DOCTYPE html><html><body><form method=\"post\" action=\"{base}/environments\">\
         <input type=\"hidden\" name=\"name\" value=\"pwned\">\
         <button type=\"submit\" id=\"go\">Win</button>\
         </form><form method=\"post\" action=\"{base}/environments/{eid}/deploy\">\
         <button type=\"submit\" id=\"deploy\">Deploy</button></form></body></html>"
    );
    let site = foreign_site(attack);
    // Chromium resolves these names to 127.0.0.1, as a rebinding DNS would.
    let s = driver.session_with(&["--host-resolver-rules=MAP *.evil.test 127.0.0.1"]);
    for button in ["#go", "#deploy"] {
        s.go(&format!("http://www.evil.test:{site}/"));
        s.submit(button);
        let text = s.text("main");
        assert!(text.contains("Forbidden"), "{button}: {text}");
        assert!(text.contains("another origin"), "{button}: {text}");
    }
    s.go(&format!("{base}/environments"));
    assert!(
        !s.text("main").contains("pwned"),
        "the foreign post was kept: {}",
        s.text("main")
    );
    s.go(&format!("{base}/environments/{eid}"));
    assert_eq!(latest_state(&s), "", "the foreign deploy ran");
    // The dashboard's pages under a name of the other site.
    s.go(&format!("http://rebound.evil.test:{port}/environments"));
    let text = s.text("main");
    assert!(text.contains("Misdirected request"), "{text}");
    assert!(s.find_all("#id_name").is_empty());
    // And the dashboard's own pages still post.
    s.go(&format!("{base}/environments"));
    s.fill("name", "mine");
    s.submit("#create");
    assert!(s.url().contains("/environments/"), "{}", s.url());
    s.go(&server.url);
    s.fill("name", "my-shop");
    s.submit("#next");
    assert!(s.url().ends_with("/step/1"), "{}", s.url());
    Ok(())
}

/// `--preview`: the older preview reads the package again on every page
/// load (the dashboard imports it once), for editing a package.
fn edited_definitions_show_on_reload(driver: &Driver) -> Outcome {
    let s = driver.session();
    // A copy of the example to edit (the server itself writes nothing).
    let dir = target_dir().join("tmp/browser-edit-shop");
    let _ = std::fs::remove_dir_all(&dir);
    let source = workspace().join("examples/packages/shop");
    for file in [
        "manifest.yaml",
        "UI/ui.yaml",
        "Classes/Shop.yaml",
        "Classes/Database.yaml",
    ] {
        let to = dir.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(source.join(file), &to).unwrap();
    }
    let server = serve(&[
        "ui".as_ref(),
        "serve".as_ref(),
        dir.as_os_str(),
        "--preview".as_ref(),
    ]);
    s.go(&format!("{}/", server.url));
    assert!(s.text("label[for=id_name]").starts_with("Shop name"));
    let ui = dir.join("UI/ui.yaml");
    let text = std::fs::read_to_string(&ui).unwrap();
    std::fs::write(&ui, text.replace("label: Shop name", "label: Store name")).unwrap();
    s.go(&format!("{}/step/0", server.url));
    assert!(s.text("label[for=id_name]").starts_with("Store name"));
    // A definition that no longer loads: its error with file:line:column.
    std::fs::write(
        &ui,
        text.replace("minLength: 3", "minLength: 3\n          maxValue: 4"),
    )
    .unwrap();
    s.go(&format!("{}/step/0", server.url));
    let error = s.text("#load-error");
    assert!(
        error.contains("UI/ui.yaml:26:11: field \"name\":"),
        "{error}"
    );
    assert!(
        error.contains("unexpected keyword argument 'max_value'"),
        "{error}"
    );
    s.screenshot(&target_dir().join("ui-screenshots/5-load-error.png"));
    std::fs::write(&ui, &text).unwrap();
    s.go(&format!("{}/step/0", server.url));
    assert!(s.find_all("#load-error").is_empty());
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// The texts of the elements `css` selects.
fn texts(s: &Session<'_>, css: &str) -> Vec<String> {
    s.find_all(css)
        .iter()
        .map(|e| {
            s.cmd("GET", &format!("/element/{e}/text"), None)
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .collect()
}

fn forms_walk_of_the_example_shop_class(driver: &Driver) -> Outcome {
    let core = shared().join("corpus/packages/murano/meta/io.murano");
    if !core.is_dir() {
        return Err(format!("shared data absent: no {}", core.display()));
    }
    let s = driver.session();
    let package = workspace().join("examples/packages/shop");
    let server = serve(&[
        "forms".as_ref(),
        "serve".as_ref(),
        package.as_os_str(),
        "com.example.Shop".as_ref(),
        "--catalog".as_ref(),
        core.as_os_str(),
    ]);
    let shots = target_dir().join("forms-screenshots");
    s.go(&server.url);
    // Sections in their order, titles and descriptions from meta.
    assert_eq!(
        texts(&s, "#object-form > fieldset:not(.builder) > legend"),
        ["Shop settings", "Storage"]
    );
    assert!(s.text("label[for=id_name]").starts_with("Shop name"));
    assert_eq!(s.text("#help_port"), "TCP port the shop listens on");
    assert_eq!(s.value("#id_port"), "8080");
    // The object property offers the catalog's classes of its type.
    let choices: Vec<String> = s
        .find_all("#id_instance option")
        .iter()
        .map(|o| {
            s.cmd("GET", &format!("/element/{o}/property/value"), None)
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    assert!(
        choices.contains(&"new:io.murano.resources.LinuxMuranoInstance".to_owned()),
        "{choices:?}"
    );
    s.screenshot(&shots.join("1-form.png"));
    // Invalid values: errors next to their fields, values kept.
    s.fill("port", "0");
    s.submit("#save");
    assert_eq!(s.text("#err_name"), "This field is required.");
    assert_eq!(s.text("#err_port"), "Ensure this value is greater than 0.");
    assert_eq!(s.value("#id_port"), "0");
    s.screenshot(&shots.join("2-form-invalid.png"));
    // The instance: a class chosen, its own form nested.
    s.fill("instance", "new:io.murano.resources.LinuxMuranoInstance");
    s.submit("[data-field=instance] > button.choose");
    assert_eq!(
        s.attribute("[data-field=instance] > fieldset.nested", "data-class"),
        "io.murano.resources.LinuxMuranoInstance"
    );
    s.fill("name", "my-shop");
    s.fill("port", "8443");
    for (name, value) in [
        ("instance.name", "shop-1"),
        ("instance.flavor", "m1.small"),
        ("instance.sharedIps", "[]"),
        ("instance.volumes", "{}"),
    ] {
        s.fill(name, value);
    }
    // A model builder runs on the engine and fills the form; what it
    // returned shows above it.
    s.fill("@fromCatalogue.catalogue", "spring");
    s.fill("@fromCatalogue.size", "0");
    s.submit("#run_fromCatalogue");
    assert_eq!(
        s.text("[id=\"err_@fromCatalogue.size\"]"),
        "Ensure this value is greater than or equal to 1."
    );
    s.fill("@fromCatalogue.size", "3");
    s.submit("#run_fromCatalogue");
    let built: Json = serde_json::from_str(&s.text("#built-model")).expect("the built model");
    assert_eq!(built["name"], "spring");
    assert_eq!(built["port"], 8003);
    assert_eq!(s.value("#id_name"), "spring");
    assert_eq!(s.value("#id_port"), "8003");
    s.screenshot(&shots.join("3-model-builder.png"));
    // Back to our own values, then added to the environment: its page
    // shows the object model.
    s.fill("name", "my-shop");
    s.fill("port", "8443");
    s.fill("instance", "new:io.murano.resources.LinuxMuranoInstance");
    s.submit("[data-field=instance] > button.choose");
    for (name, value) in [
        ("instance.name", "shop-1"),
        ("instance.flavor", "m1.small"),
        ("instance.sharedIps", "[]"),
        ("instance.volumes", "{}"),
    ] {
        s.fill(name, value);
    }
    s.submit("#save");
    assert!(
        s.find_all(".errors").is_empty(),
        "the form is not valid:\n{}",
        s.text("main")
    );
    let model = added_model(&s);
    s.script(
        "document.querySelectorAll('details.app-model').forEach(function (d) { d.open = true; });",
    );
    s.screenshot(&shots.join("4-object-model.png"));
    let id = model["?"]["id"].as_str().unwrap_or("").to_owned();
    assert!(is_uuid(&id), "{model}");
    assert_eq!(model["?"]["type"], "com.example.Shop");
    assert_eq!(model["name"], "my-shop");
    assert_eq!(model["port"], 8443);
    assert_eq!(model["currencies"], json!(["EUR"]));
    assert_eq!(model["database"], Json::Null);
    assert_eq!(
        model["instance"]["?"]["type"],
        "io.murano.resources.LinuxMuranoInstance"
    );
    assert_eq!(model["instance"]["name"], "shop-1");
    assert_eq!(model["instance"]["flavor"], "m1.small");
    Ok(())
}

/// Five packages of the corpus whose forms fill without a cloud service
/// (the cloud comes from the example's cloud file).
const CORPUS: [&str; 5] = ["MySQL", "PostgreSQL", "MongoDB", "Tomcat", "BIND"];

fn corpus_object_models_match_murano_ui_values(driver: &Driver) -> Outcome {
    let corpus = shared().join("corpus/packages/murano-apps");
    if !corpus.is_dir() {
        return Err(format!("shared data absent: no {}", corpus.display()));
    }
    let s = driver.session();
    let mut cases = vec![(
        "shop".to_owned(),
        workspace().join("examples/packages/shop"),
        workspace().join("examples/ui/shop-values.yaml"),
        workspace().join("examples/ui/cloud.yaml"),
    )];
    for name in CORPUS {
        let package = shared().join(format!("corpus/packages/murano-apps/{name}/package"));
        assert!(
            package.is_dir(),
            "missing corpus package {}",
            package.display()
        );
        let values =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/browser/{name}.yaml"));
        let cloud = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/cloud.yaml");
        cases.push((name.to_owned(), package, values, cloud));
    }
    for (name, package, values, cloud) in cases {
        let server = serve(&[
            "ui".as_ref(),
            "serve".as_ref(),
            package.as_os_str(),
            "--cloud".as_ref(),
            cloud.as_os_str(),
        ]);
        let dir = target_dir().join("ui-screenshots/corpus");
        let browser = walk(&s, &server, &read_values(&values), Some((&dir, &name)));
        let expected = ui_values(&package, &values, &cloud);
        assert_eq!(
            normalized(&browser),
            normalized(&expected),
            "{name}: the browser's object model differs from murano ui --values"
        );
        println!("  {name}: the object model through the browser equals murano ui --values");
    }
    Ok(())
}

fn main() -> ExitCode {
    let tests: [(&str, BrowserTest); 5] = [
        (
            "wizard_walk_of_the_example_shop",
            wizard_walk_of_the_example_shop,
        ),
        (
            "edited_definitions_show_on_reload",
            edited_definitions_show_on_reload,
        ),
        (
            "foreign_pages_cannot_use_the_dashboard",
            foreign_pages_cannot_use_the_dashboard,
        ),
        (
            "forms_walk_of_the_example_shop_class",
            forms_walk_of_the_example_shop_class,
        ),
        (
            "corpus_object_models_match_murano_ui_values",
            corpus_object_models_match_murano_ui_values,
        ),
    ];
    run_browser_tests(&tests)
}
