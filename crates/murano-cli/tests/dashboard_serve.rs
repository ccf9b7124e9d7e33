//! The dashboard's pages on `murano serve`'s port over HTTP: the token
//! gate (sign in once, then a cookie), posts from other sites refused, the
//! form body limit, and the pages next to the API; `murano ui serve` and
//! `murano forms serve` as shortcuts into these pages for one package,
//! with the previews' server limits (Host checked, posts from other
//! origins refused, bounded connections).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

mod common;

struct Server(Child, String);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(name: &str, token: Option<&str>) -> Server {
    let dir = std::env::temp_dir().join(format!("murano-dash-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_murano"));
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(dir.join("api.db"))
        .env_remove("MURANO_API_TOKEN")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(t) = token {
        cmd.args(["--token", t]);
    }
    let mut child = cmd.spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let url = line
        .trim()
        .rsplit(' ')
        .next()
        .unwrap()
        .trim_end_matches("/v1")
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    Server(child, url)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into()
}

/// (status, Set-Cookie, body) of a request.
fn send(method: &str, url: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String, String) {
    let mut b = ureq::http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let mut resp = agent().run(b.body(body.to_vec()).unwrap()).unwrap();
    let cookie = resp
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap_or_default();
    (status, cookie, text)
}

const FORM: (&str, &str) = ("Content-Type", "application/x-www-form-urlencoded");

#[test]
fn pages_and_the_api_share_the_port() {
    let s = serve("port", None);
    let (status, _, page) = send("GET", &format!("{}/catalog", s.1), &[], b"");
    assert_eq!(status, 200);
    assert!(page.contains("<h1>Catalog</h1>"), "{page}");
    let (status, _, body) = send(
        "GET",
        &format!("{}/v1/environments", s.1),
        &[("X-Project-Id", "local")],
        b"",
    );
    assert_eq!(status, 200, "{body}");
    // Unknown paths stay the API's 404.
    assert_eq!(send("GET", &format!("{}/nowhere", s.1), &[], b"").0, 404);
    // An environment made in the pages is the API's, for the local tenant.
    let (status, _, _) = send(
        "POST",
        &format!("{}/environments", s.1),
        &[FORM],
        b"name=web",
    );
    assert_eq!(status, 303);
    let (_, _, listed) = send(
        "GET",
        &format!("{}/v1/environments", s.1),
        &[("X-Project-Id", "local")],
        b"",
    );
    assert!(listed.contains("\"name\":\"web\""), "{listed}");
    let (_, _, other) = send(
        "GET",
        &format!("{}/v1/environments", s.1),
        &[("X-Project-Id", "other")],
        b"",
    );
    assert!(!other.contains("\"name\":\"web\""), "{other}");
}

#[test]
fn posts_from_other_sites_and_oversized_forms_are_refused() {
    let s = serve("origin", None);
    let foreign = send(
        "POST",
        &format!("{}/environments", s.1),
        &[FORM, ("Origin", "http://evil.example")],
        b"name=x",
    );
    assert_eq!(foreign.0, 403);
    let big = vec![b'a'; murano_dashboard::MAX_FORM + 1];
    assert_eq!(
        send("POST", &format!("{}/environments", s.1), &[FORM], &big).0,
        413
    );
    let (_, _, listed) = send(
        "GET",
        &format!("{}/v1/environments", s.1),
        &[("X-Project-Id", "local")],
        b"",
    );
    assert!(
        listed.contains("\"environments\":[]"),
        "nothing was created: {listed}"
    );
}

#[test]
fn with_a_token_the_browser_signs_in_once() {
    let s = serve("token", Some("s3cret"));
    let (status, _, page) = send("GET", &format!("{}/catalog", s.1), &[], b"");
    assert_eq!(status, 401);
    assert!(
        page.contains("<label for=\"id_token\">Token</label>"),
        "{page}"
    );
    assert_eq!(
        send("POST", &format!("{}/login", s.1), &[FORM], b"token=wrong").0,
        401
    );
    let (status, cookie, _) = send("POST", &format!("{}/login", s.1), &[FORM], b"token=s3cret");
    assert_eq!(status, 303);
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let pair = cookie.split(';').next().unwrap().to_owned();
    assert_eq!(
        send(
            "GET",
            &format!("{}/catalog", s.1),
            &[("Cookie", &pair)],
            b""
        )
        .0,
        200
    );
    // The API still wants its header.
    assert_eq!(
        send(
            "GET",
            &format!("{}/v1/environments", s.1),
            &[("Cookie", &pair)],
            b""
        )
        .0,
        401
    );
}

/// Where a GET of `url` redirects to (it must).
fn redirected(url: &str) -> String {
    let req = ureq::http::Request::builder()
        .method("GET")
        .uri(url)
        .body(Vec::new())
        .unwrap();
    let resp = agent().run(req).unwrap();
    assert_eq!(resp.status().as_u16(), 303, "{url}");
    resp.headers()["location"].to_str().unwrap().to_owned()
}

#[test]
fn ui_serve_opens_the_packages_wizard_in_an_environment_made_for_it() {
    let shop = common::examples().join("packages/shop");
    let scratch = common::Scratch::new("ui-dashboard");
    let cloud = scratch.write(
        "cloud.yaml",
        "flavors:\n  - {name: m9.custom, vcpus: 1, ram: 512, disk: 1}\nimages:\n  - {id: img-1, name: distro-1, type: linux}\n",
    );
    let (_server, url) = common::serve(&[
        "ui".as_ref(),
        "serve".as_ref(),
        shop.as_os_str(),
        "--cloud".as_ref(),
        cloud.as_os_str(),
    ]);
    let base = url.split("/environments/").next().unwrap().to_owned();
    assert!(
        url.contains("/environments/") && url.contains("/add/"),
        "{url}"
    );
    // The package is in the catalog, the environment in the list.
    let (status, _, catalog) = send("GET", &format!("{base}/catalog"), &[], b"");
    assert_eq!(status, 200);
    assert!(
        catalog.contains("data-fqn=\"com.example.Shop\""),
        "{catalog}"
    );
    let (_, _, envs) = send("GET", &format!("{base}/environments"), &[], b"");
    let eid = url
        .split("/environments/")
        .nth(1)
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    assert!(envs.contains(eid), "{envs}");
    // The printed address opens the wizard's first step, with the
    // --cloud file's resources among its choices.
    let step_url = format!("{base}{}", redirected(&url));
    let (status, _, step) = send("GET", &step_url, &[], b"");
    assert_eq!(status, 200, "{step}");
    assert!(step.contains("data-form=\"settings\""), "{step}");
    assert!(step.contains("m9.custom"), "{step}");
    assert!(step.contains("distro-1"), "{step}");
}

#[test]
fn forms_serve_opens_the_class_form_of_the_package() {
    let Some(core) = common::core_library() else {
        return;
    };
    let blog = common::examples().join("packages/blog");
    let (_server, url) = common::serve(&[
        "forms".as_ref(),
        "serve".as_ref(),
        blog.as_os_str(),
        "com.example.Blog".as_ref(),
        "--catalog".as_ref(),
        core.as_os_str(),
        "--dashboard".as_ref(),
    ]);
    assert!(
        url.contains("/environments/") && url.contains("/form/"),
        "{url}"
    );
    let (status, _, form) = send("GET", &url, &[], b"");
    assert_eq!(status, 200, "{form}");
    // The class's form: its muranoObject property offers both storages.
    assert!(form.contains("new:com.example.FileStorage"), "{form}");
    assert!(form.contains("new:com.example.BucketStorage"), "{form}");
}

#[test]
fn forms_serve_opens_the_form_of_the_class_it_names() {
    let Some(core) = common::core_library() else {
        return;
    };
    let blog = common::examples().join("packages/blog");
    let (_server, url) = common::serve(&[
        "forms".as_ref(),
        "serve".as_ref(),
        blog.as_os_str(),
        "com.example.BucketStorage".as_ref(),
        "--catalog".as_ref(),
        core.as_os_str(),
    ]);
    assert!(url.ends_with("?class=com.example.BucketStorage"), "{url}");
    let (status, _, form) = send("GET", &url, &[], b"");
    assert_eq!(status, 200, "{form}");
    assert!(form.contains("com.example.BucketStorage"), "{form}");
    // The form posts back to the same class.
    assert!(
        form.contains("?class=com.example.BucketStorage\""),
        "{form}"
    );
    assert!(!form.contains("new:com.example.FileStorage"), "{form}");
    // A class the package does not have: 404 with its name.
    let other = url.replace("BucketStorage", "Nothing");
    let (status, _, page) = send("GET", &other, &[], b"");
    assert_eq!(status, 404, "{page}");
    assert!(page.contains("com.example.Nothing"), "{page}");
}

/// A raw HTTP/1.1 exchange: the status of the answer.
fn raw_status(authority: &str, request: &str) -> u16 {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

#[test]
fn the_shortcut_answers_only_its_own_pages_within_its_limits() {
    let shop = common::examples().join("packages/shop");
    let (_server, url) = common::serve(&[
        "ui".as_ref(),
        "serve".as_ref(),
        shop.as_os_str(),
        "--max-connections".as_ref(),
        "1".as_ref(),
        "--idle-timeout".as_ref(),
        "30".as_ref(),
    ]);
    let authority = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let get = |host: &str| {
        raw_status(
            &authority,
            &format!("GET /catalog HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        )
    };
    assert_eq!(get(&authority), 200);
    // A name that is not the server's (DNS rebinding): 421.
    assert_eq!(get("evil.example"), 421);
    // A post from another origin: 403, and no environment made.
    let post = format!(
        "POST /environments HTTP/1.1\r\nHost: {authority}\r\nOrigin: http://evil.example\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10\r\n\
         Connection: close\r\n\r\nname=pwned"
    );
    assert_eq!(raw_status(&authority, &post), 403);
    let (_, _, envs) = send("GET", &format!("http://{authority}/environments"), &[], b"");
    assert!(!envs.contains("pwned"), "{envs}");
    // One connection at most: an idle one gives way to a new request
    // (the idle timeout is far longer than this test).
    let idle = std::net::TcpStream::connect(&authority).unwrap();
    assert_eq!(get(&authority), 200);
    drop(idle);
}

#[test]
fn idle_connections_do_not_starve_the_dashboard_of_ui_serve() {
    let shop = common::examples().join("packages/shop");
    let args: [&std::ffi::OsStr; 3] = ["ui".as_ref(), "serve".as_ref(), shop.as_os_str()];
    // Under 1 GiB of address space, as the preview's test (serve.rs):
    // idle connections beyond --max-connections are closed, not served
    // by a thread each.
    let (_server, url) = match common::murano_limited(1 << 30) {
        Some(command) => common::serve_in(command, &args),
        None => {
            println!("prlimit absent: serving without a memory limit");
            common::serve(&args)
        }
    };
    let authority = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let mut idle = Vec::new();
    for _ in 0..200 {
        if let Ok(stream) = std::net::TcpStream::connect(&authority) {
            idle.push(stream);
        }
    }
    assert!(idle.len() > 150, "{} connections opened", idle.len());
    let status = raw_status(
        &authority,
        &format!("GET /catalog HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"),
    );
    assert_eq!(status, 200);
    drop(idle);
}
