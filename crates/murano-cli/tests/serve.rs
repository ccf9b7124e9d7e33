//! `murano ui serve` and `murano forms serve` over plain HTTP (no browser
//! needed): loopback only, redirects after posts, errors with their
//! status, bounded request bodies.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(args: &[&std::ffi::OsStr]) -> (Running, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_murano"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let running = Running(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("{line:?}"))
        .trim_end_matches('/')
        .to_owned();
    (running, url)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

fn get(url: &str) -> (u16, String, String) {
    let mut r = agent().get(url).call().unwrap();
    let location = r
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    (
        r.status().as_u16(),
        location,
        r.body_mut().read_to_string().unwrap(),
    )
}

fn post(url: &str, body: &str) -> (u16, String, String) {
    let mut r = agent()
        .post(url)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .send(body)
        .unwrap();
    let location = r
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let text = r.body_mut().read_to_string().unwrap_or_default();
    (r.status().as_u16(), location, text)
}

#[test]
fn the_wizard_answers_on_loopback_with_redirects_and_errors() {
    let package = workspace().join("examples/packages/shop");
    let cloud = workspace().join("examples/ui/cloud.yaml");
    let (_server, url) = serve(&[
        "ui".as_ref(),
        "serve".as_ref(),
        package.as_os_str(),
        "--cloud".as_ref(),
        cloud.as_os_str(),
    ]);
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    assert_eq!(get(&format!("{url}/")).1, "/step/0");
    let (status, _, css) = get(&format!("{url}/style.css"));
    assert_eq!(status, 200);
    assert!(css.contains("body"));
    let (status, _, page) = get(&format!("{url}/step/0"));
    assert_eq!(status, 200);
    assert!(page.contains("<label for=\"id_name\">Shop name"), "{page}");
    assert!(!page.contains("<script"), "no script: {page}");
    // An invalid step: 422 with the errors, what was typed kept.
    let (status, _, page) = post(
        &format!("{url}/step/0"),
        "name=ab&port=70000&currencies=EUR&flavor=m1.small&image=img-ubuntu&__action=next",
    );
    assert_eq!(status, 422);
    assert!(page.contains("id=\"err_port\""), "{page}");
    assert!(
        page.contains("Ensure this value is less than or equal to 65535."),
        "{page}"
    );
    assert!(page.contains("value=\"70000\""), "{page}");
    // A later step cannot be reached before the earlier ones are valid.
    assert_eq!(get(&format!("{url}/step/1")).1, "/step/0");
    assert_eq!(get(&format!("{url}/done")).1, "/step/0");
    let (status, location, _) = post(
        &format!("{url}/step/0"),
        "name=my-shop&port=80&currencies=EUR&flavor=m1.small&image=img-ubuntu&__action=next",
    );
    assert_eq!((status, location.as_str()), (303, "/step/1"));
    let (status, location, _) = post(
        &format!("{url}/step/1"),
        "application_name=shop&__action=next",
    );
    assert_eq!((status, location.as_str()), (303, "/done"));
    let (status, _, page) = get(&format!("{url}/done"));
    assert_eq!(status, 200);
    assert!(page.contains("id=\"object-model\""), "{page}");
    // Starting over forgets what was typed.
    let (_, location, _) = post(&format!("{url}/step/1"), "__action=restart");
    assert_eq!(location, "/step/0");
    assert_eq!(get(&format!("{url}/done")).1, "/step/0");
    // Request bodies are bounded.
    let big = format!("name={}", "x".repeat(2 << 20));
    let answer = agent()
        .post(format!("{url}/step/0"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .send(big.as_str());
    // Refused: a 413, or the connection closed before the body was sent.
    if let Ok(r) = answer {
        assert_eq!(r.status().as_u16(), 413);
    }
    // And the server still answers.
    assert_eq!(get(&format!("{url}/step/0")).0, 200);
    assert_eq!(get(&format!("{url}/nothing")).0, 404);
}

#[test]
fn the_forms_server_refuses_an_unknown_class_with_its_reason() {
    let shared = std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared"));
    let core = shared.join("corpus/packages/murano/meta/io.murano");
    let package = workspace().join("examples/packages/shop");
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "forms".as_ref(),
        "serve".as_ref(),
        package.as_os_str(),
        "com.example.Nothing".as_ref(),
    ];
    if core.is_dir() {
        args.extend(["--catalog".as_ref(), core.as_os_str()]);
    }
    let (_server, url) = serve(&args);
    let (status, _, page) = get(&format!("{url}/"));
    assert_eq!(status, 500);
    assert!(page.contains("id=\"load-error\""), "{page}");
    assert!(page.contains("com.example.Nothing"), "{page}");
    assert_eq!(get(&format!("{url}/method/")).0, 404);
}

#[test]
fn serving_a_missing_package_is_a_usage_error() {
    for args in [
        &["ui", "serve", "no/such/package"][..],
        &["forms", "serve", "no/such/package", "a.B"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_murano"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("no such file or folder"), "{stderr}");
    }
    // `murano ui` still needs its values without the subcommand.
    let out = Command::new(env!("CARGO_BIN_EXE_murano"))
        .args(["ui", "examples/packages/shop"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let help = Command::new(env!("CARGO_BIN_EXE_murano"))
        .args(["ui", "serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("127.0.0.1"), "{help}");
}

#[test]
fn the_last_page_links_a_dry_run_deploy_of_its_model() {
    let shared = std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared"));
    let core = shared.join("conformance/engine/meta/io.murano");
    if !core.is_dir() {
        println!("SKIPPED: shared data absent ({})", core.display());
        return;
    }
    let package = workspace().join("examples/packages/shop");
    let cloud = workspace().join("examples/ui/cloud.yaml");
    let examples = workspace().join("examples/packages");
    let (_server, url) = serve(&[
        "ui".as_ref(),
        "serve".as_ref(),
        package.as_os_str(),
        "--cloud".as_ref(),
        cloud.as_os_str(),
        "--catalog".as_ref(),
        examples.as_os_str(),
        "--catalog".as_ref(),
        core.as_os_str(),
    ]);
    // Before the wizard is finished there is nothing to deploy.
    assert_eq!(get(&format!("{url}/deploy")).1, "/step/0");
    post(
        &format!("{url}/step/0"),
        "name=my-shop&port=80&currencies=EUR&flavor=m1.small&image=img-ubuntu&__action=next",
    );
    post(
        &format!("{url}/step/1"),
        "application_name=shop&__action=next",
    );
    let (_, _, page) = get(&format!("{url}/done"));
    assert!(page.contains("href=\"/deploy\""), "{page}");
    let (status, _, page) = get(&format!("{url}/deploy"));
    assert_eq!(status, 200);
    assert!(page.contains("The deployment succeeded."), "{page}");
    assert!(page.contains("Heat operations"), "{page}");
    assert!(page.contains("Hello, my-shop!"), "{page}");
}
