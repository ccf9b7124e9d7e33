//! WebDriver helpers shared by the browser tests (`browser.rs`,
//! `dashboard_browser.rs`): a chromedriver process, sessions of a
//! headless Chromium, the elements of a page, screenshots, and the
//! runner that prints `browser tests: N/N passed, M skipped`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use serde_json::{json, Value as Json};

use super::{workspace, Running};

/// The WebDriver key of an element reference.
pub(crate) const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The target folder (the murano binary is in target/<profile>/).
pub(crate) fn target_dir() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_murano"));
    exe.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| workspace().join("target"))
}

pub(crate) fn find_program(env: &str, default: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env) {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    if Path::new(default).is_file() {
        return Some(default.into());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

pub(crate) fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

/// A chromedriver process on a loopback port.
pub(crate) struct Driver {
    _process: Running,
    pub(crate) url: String,
    chromium: PathBuf,
    pub(crate) agent: ureq::Agent,
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl Driver {
    pub(crate) fn start(chromedriver: &Path, chromium: PathBuf) -> Driver {
        let port = free_port();
        let process = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let driver = Driver {
            _process: Running(process),
            url: format!("http://127.0.0.1:{port}"),
            chromium,
            agent: agent(),
        };
        // Wait until it answers (bounded; not a timing assertion).
        for _ in 0..200 {
            if let Ok(mut r) = driver.agent.get(format!("{}/status", driver.url)).call() {
                let body = r.body_mut().read_to_string().unwrap_or_default();
                if body.contains("\"ready\":true") {
                    return driver;
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("chromedriver did not become ready on port {port}");
    }

    pub(crate) fn session(&self) -> Session<'_> {
        self.session_with(&[])
    }

    /// A session whose Chromium gets `extra` arguments too.
    pub(crate) fn session_with(&self, extra: &[&str]) -> Session<'_> {
        let mut args = vec![
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--window-size=1100,1000",
        ];
        args.extend_from_slice(extra);
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": self.chromium,
                "args": args,
            },
        }}});
        let value = call(
            &self.agent,
            "POST",
            &format!("{}/session", self.url),
            Some(&capabilities),
        );
        let id = value["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {value}"))
            .to_owned();
        Session {
            driver: self,
            base: format!("{}/session/{id}", self.url),
        }
    }
}

/// One WebDriver command; the answer's `value`, or a panic with the
/// driver's error.
pub(crate) fn call(agent: &ureq::Agent, method: &str, url: &str, body: Option<&Json>) -> Json {
    let response = match method {
        "GET" => agent.get(url).call(),
        "DELETE" => agent.delete(url).call(),
        _ => agent
            .post(url)
            .header("Content-Type", "application/json")
            .send(body.unwrap_or(&json!({})).to_string()),
    };
    let mut response = response.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = response.status();
    let text = response
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let parsed: Json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{url}: {e}: {text}"));
    if !status.is_success() {
        panic!("{method} {url} answered {status}: {}", parsed["value"]);
    }
    parsed["value"].clone()
}

pub(crate) struct Session<'a> {
    driver: &'a Driver,
    base: String,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = self.driver.agent.delete(&self.base).call();
    }
}

impl Session<'_> {
    pub(crate) fn cmd(&self, method: &str, path: &str, body: Option<Json>) -> Json {
        call(
            &self.driver.agent,
            method,
            &format!("{}{path}", self.base),
            body.as_ref(),
        )
    }

    pub(crate) fn go(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    pub(crate) fn url(&self) -> String {
        self.cmd("GET", "/url", None)
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    pub(crate) fn find_all(&self, css: &str) -> Vec<String> {
        let found = self.cmd(
            "POST",
            "/elements",
            Some(json!({"using": "css selector", "value": css})),
        );
        found
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e[ELEMENT].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn find(&self, css: &str) -> String {
        match self.find_all(css).into_iter().next() {
            Some(e) => e,
            None => panic!(
                "no element {css:?} on {}:\n{}",
                self.url(),
                self.cmd("GET", "/source", None)
            ),
        }
    }

    pub(crate) fn text(&self, css: &str) -> String {
        let e = self.find(css);
        self.cmd("GET", &format!("/element/{e}/text"), None)
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    pub(crate) fn value(&self, css: &str) -> String {
        let e = self.find(css);
        self.cmd("GET", &format!("/element/{e}/property/value"), None)
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    pub(crate) fn attribute(&self, css: &str, name: &str) -> String {
        let e = self.find(css);
        self.cmd("GET", &format!("/element/{e}/attribute/{name}"), None)
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    pub(crate) fn click(&self, css: &str) {
        let e = self.find(css);
        self.cmd("POST", &format!("/element/{e}/click"), Some(json!({})));
    }

    pub(crate) fn script(&self, script: &str) -> Json {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Clicks a button or link that loads a new page, and waits (bounded)
    /// until the new page has replaced the old one.
    pub(crate) fn submit(&self, css: &str) {
        self.script("window.__muranoOldPage = true;");
        self.click(css);
        for _ in 0..600 {
            let state = self.script("return window.__muranoOldPage ? 'old' : document.readyState;");
            if state == json!("complete") {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("clicking {css} loaded no new page");
    }

    pub(crate) fn type_into(&self, css: &str, text: &str) {
        let e = self.find(css);
        self.cmd("POST", &format!("/element/{e}/clear"), Some(json!({})));
        self.cmd(
            "POST",
            &format!("/element/{e}/value"),
            Some(json!({ "text": text })),
        );
    }

    /// Sets a field as a person would: types into text inputs, chooses an
    /// option of a select, ticks or clears a checkbox.
    pub(crate) fn fill(&self, name: &str, value: &str) {
        let css = format!("[name=\"{name}\"]");
        let e = self.find(&css);
        let tag = self.cmd("GET", &format!("/element/{e}/name"), None);
        let kind = self.attribute(&css, "type");
        match (tag.as_str().unwrap_or(""), kind.as_str()) {
            ("select", _) => {
                let options = self.find_all(&format!("{css} option"));
                let chosen = options.into_iter().find(|o| {
                    self.cmd("GET", &format!("/element/{o}/property/value"), None) == json!(value)
                });
                let Some(option) = chosen else {
                    panic!("select {name} has no option {value:?}");
                };
                self.cmd("POST", &format!("/element/{option}/click"), Some(json!({})));
                assert_eq!(self.value(&css), value, "select {name}");
            }
            ("input", "checkbox") => {
                let want = !matches!(value, "" | "False" | "false" | "off" | "0");
                let checked = self.cmd("GET", &format!("/element/{e}/selected"), None);
                if checked != json!(want) {
                    self.click(&css);
                }
            }
            ("input", "hidden") => panic!("{name} is hidden: a person cannot set it"),
            _ => self.type_into(&css, value),
        }
    }

    /// Writes a PNG of the page.
    pub(crate) fn screenshot(&self, path: &Path) {
        let data = self.cmd("GET", "/screenshot", None);
        let png = base64_decode(data.as_str().unwrap_or(""));
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("screenshot folder");
        }
        std::fs::write(path, png).expect("screenshot written");
    }
}

pub(crate) fn base64_decode(text: &str) -> Vec<u8> {
    let digit = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for d in text.bytes().filter_map(digit) {
        acc = (acc << 6) | u32::from(d);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// A test that ran (its assertions panic), or why it could not run.
pub(crate) type Outcome = Result<(), String>;

/// One browser test, given the running chromedriver.
pub(crate) type BrowserTest = fn(&Driver) -> Outcome;

/// Runs `tests` (those whose names contain a command-line filter, if
/// any) in one chromedriver and prints `browser tests: P/R passed, S
/// skipped`. Without chromedriver or Chromium it says the tests were
/// SKIPPED, a failure when MURANO_REQUIRE_BROWSER=1 (as CI sets it).
pub(crate) fn run_browser_tests(tests: &[(&str, BrowserTest)]) -> ExitCode {
    let require = std::env::var("MURANO_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    let chromedriver = find_program(
        "MURANO_CHROMEDRIVER",
        "/usr/bin/chromedriver",
        &["chromedriver"],
    );
    let chromium = find_program(
        "MURANO_CHROMIUM",
        "/usr/bin/chromium",
        &["chromium", "chromium-browser", "google-chrome"],
    );
    let (Some(chromedriver), Some(chromium)) = (chromedriver, chromium) else {
        let why = "browser tests SKIPPED: chromedriver or Chromium not found \
                   (install chromium and chromium-driver, or set MURANO_CHROMEDRIVER \
                   and MURANO_CHROMIUM)";
        if require {
            eprintln!("{why}; MURANO_REQUIRE_BROWSER=1 makes this a failure");
            return ExitCode::FAILURE;
        }
        println!("{why}");
        return ExitCode::SUCCESS;
    };
    let driver = Driver::start(&chromedriver, chromium);
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut failed = Vec::new();
    let (mut ran, mut passed, mut skipped) = (0, 0, 0);
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(&driver))) {
            Ok(Ok(())) => {
                ran += 1;
                passed += 1;
                println!("test {name} ... ok");
            }
            Ok(Err(why)) => {
                skipped += 1;
                println!("test {name} ... SKIPPED ({why})");
                if require {
                    failed.push(name);
                }
            }
            Err(_) => {
                ran += 1;
                println!("test {name} ... FAILED");
                failed.push(name);
            }
        }
    }
    println!("browser tests: {passed}/{ran} passed, {skipped} skipped");
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
