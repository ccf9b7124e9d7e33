//! `murano ui serve --preview` and `murano forms serve --preview` over
//! plain HTTP (no browser needed): loopback only, redirects after posts,
//! errors with their status, bounded request bodies. The dashboard these
//! commands open by default is served by the same server (its limits are
//! checked in `dashboard_serve.rs`).

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

mod common;
use common::{murano_limited, serve, serve_in, workspace, Running};

/// Serves under an address-space limit (`prlimit`, when util-linux has
/// it), so that what each connection costs shows.
fn serve_limited(bytes: u64, args: &[&std::ffi::OsStr]) -> (Running, String) {
    let Some(command) = murano_limited(bytes) else {
        println!("prlimit absent: serving without a memory limit");
        return serve(args);
    };
    serve_in(command, args)
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
        "--preview".as_ref(),
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
        "--preview".as_ref(),
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
        "--preview".as_ref(),
        package.as_os_str(),
        "--cloud".as_ref(),
        cloud.as_os_str(),
        "--catalog".as_ref(),
        examples.as_os_str(),
        "--catalog".as_ref(),
        core.as_os_str(),
    ]);
    // Before the wizard is finished there is nothing to deploy.
    assert_eq!(post(&format!("{url}/deploy"), "").1, "/step/0");
    post(
        &format!("{url}/step/0"),
        "name=my-shop&port=80&currencies=EUR&flavor=m1.small&image=img-ubuntu&__action=next",
    );
    post(
        &format!("{url}/step/1"),
        "application_name=shop&__action=next",
    );
    let (_, _, page) = get(&format!("{url}/done"));
    // A button that posts: following a link (or a page elsewhere loading
    // it) runs nothing.
    assert!(
        page.contains("<form method=\"post\" action=\"/deploy\">"),
        "{page}"
    );
    assert!(!page.contains("href=\"/deploy\""), "{page}");
    let (status, location, page) = get(&format!("{url}/deploy"));
    assert_eq!((status, location.as_str()), (303, "/done"), "{page}");
    // Another origin cannot run it either.
    let (status, answer) = raw(
        &url,
        &format!(
            "POST /deploy HTTP/1.1\r\nHost: {}\r\nOrigin: http://evil.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            authority(&url)
        ),
    );
    assert_eq!(status, 403, "{answer}");
    assert!(!answer.contains("Heat operations"), "{answer}");
    let (status, _, page) = post(&format!("{url}/deploy"), "");
    assert_eq!(status, 200);
    assert!(page.contains("The deployment succeeded."), "{page}");
    assert!(page.contains("Heat operations"), "{page}");
    assert!(page.contains("Hello, my-shop!"), "{page}");
}

/// The `host:port` part of a served address.
fn authority(url: &str) -> &str {
    url.trim_start_matches("http://")
}

/// Sends `request` as written on a new loopback connection and reads the
/// answer until the server closes it (bounded by a generous timeout):
/// the status and the whole answer.
fn raw(url: &str, request: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(authority(url)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    // A reset after the answer (the server closing early) still counts.
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status in {answer:?}"));
    (status, answer)
}

fn wizard() -> (Running, String) {
    let package = workspace().join("examples/packages/shop");
    let cloud = workspace().join("examples/ui/cloud.yaml");
    serve(&[
        "ui".as_ref(),
        "serve".as_ref(),
        "--preview".as_ref(),
        package.as_os_str(),
        "--cloud".as_ref(),
        cloud.as_os_str(),
    ])
}

#[test]
fn a_host_header_that_does_not_name_the_server_is_refused() {
    let (_server, url) = wizard();
    let port = url.rsplit(':').next().unwrap().to_owned();
    // What a DNS-rebinding page sends: its own name, the server's port.
    for host in [
        format!("evil.example:{port}"),
        format!("127.0.0.1.evil.example:{port}"),
        "127.0.0.1".to_owned(),
        format!("localhost:{}", port.parse::<u32>().unwrap() + 1),
    ] {
        let (status, answer) = raw(
            &url,
            &format!("GET /step/0 HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        );
        assert_eq!(status, 421, "{host}: {answer}");
        assert!(answer.contains("Host"), "{answer}");
        assert!(!answer.contains("id_name"), "{answer}");
    }
    // No Host at all, or two.
    let (status, _) = raw(&url, "GET /step/0 HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 400);
    let (status, _) = raw(
        &url,
        &format!(
            "GET /step/0 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
        ),
    );
    assert_eq!(status, 400);
    // The names of the server itself are answered.
    for host in [format!("127.0.0.1:{port}"), format!("LocalHost:{port}")] {
        let (status, answer) = raw(
            &url,
            &format!("GET /step/0 HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        );
        assert_eq!(status, 200, "{host}: {answer}");
        assert!(answer.contains("id_name"), "{answer}");
    }
}

#[test]
fn a_cross_origin_post_is_refused_and_changes_nothing() {
    let (_server, url) = wizard();
    let host = authority(&url).to_owned();
    let body = "name=my-shop&port=80&currencies=EUR&flavor=m1.small&image=img-ubuntu&__action=next";
    let post_with = |extra: &str| {
        raw(
            &url,
            &format!(
                "POST /step/0 HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
                 Content-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    for extra in [
        "Origin: http://evil.example\r\n".to_owned(),
        "Origin: null\r\n".to_owned(),
        format!("Origin: https://{host}\r\n"),
        "Sec-Fetch-Site: cross-site\r\n".to_owned(),
        "Sec-Fetch-Site: same-site\r\n".to_owned(),
        "Referer: http://evil.example/page\r\n".to_owned(),
        format!("Referer: http://{host}.evil.example/\r\n"),
    ] {
        let (status, answer) = post_with(&extra);
        assert_eq!(status, 403, "{extra}: {answer}");
        assert!(answer.contains("origin"), "{answer}");
    }
    // Nothing was kept: the next step is still out of reach.
    assert_eq!(get(&format!("{url}/step/1")).1, "/step/0");
    // The page's own origin (as a browser sends it) is accepted.
    for extra in [
        format!("Origin: http://{host}\r\n"),
        format!(
            "Origin: http://{}\r\n",
            host.replace("127.0.0.1", "localhost")
        ),
        "Sec-Fetch-Site: same-origin\r\n".to_owned(),
        format!("Referer: http://{host}/step/0\r\n"),
    ] {
        let (status, answer) = post_with(&extra);
        assert_eq!(status, 303, "{extra}: {answer}");
        assert!(answer.contains("Location: /step/1"), "{answer}");
    }
}

#[test]
fn idle_connections_do_not_starve_a_request() {
    let package = workspace().join("examples/packages/shop");
    // Under 1 GiB of address space: a thread per connection ran out
    // after about 80 of them (each thread reserves tens of MiB).
    let (mut server, url) = serve_limited(
        1 << 30,
        &[
            "ui".as_ref(),
            "serve".as_ref(),
            "--preview".as_ref(),
            package.as_os_str(),
        ],
    );
    // Far more idle connections than the server keeps.
    let mut idle = Vec::new();
    for _ in 0..200 {
        if let Ok(stream) = std::net::TcpStream::connect(authority(&url)) {
            idle.push(stream);
        }
    }
    assert!(idle.len() > 150, "{} connections opened", idle.len());
    let (status, answer) = raw(
        &url,
        &format!(
            "GET /step/0 HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            authority(&url)
        ),
    );
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("id_name"), "{answer}");
    drop(idle);
    assert!(server.0.try_wait().unwrap().is_none(), "the server ended");
}

#[test]
fn an_idle_connection_is_closed_after_the_idle_timeout() {
    use std::io::Read;
    let package = workspace().join("examples/packages/shop");
    let (_server, url) = serve(&[
        "ui".as_ref(),
        "serve".as_ref(),
        "--preview".as_ref(),
        package.as_os_str(),
        "--idle-timeout".as_ref(),
        "1".as_ref(),
    ]);
    let mut stream = std::net::TcpStream::connect(authority(&url)).unwrap();
    // Far longer than the idle timeout: a read that times out here means
    // the server kept the connection.
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut byte = [0u8; 1];
    match stream.read(&mut byte) {
        Ok(0) => {}
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        other => panic!("the idle connection was kept: {other:?}"),
    }
    // Blank lines (allowed before a request) do not keep it open either:
    // a write of ours fails once the server has let it go.
    let mut stream = std::net::TcpStream::connect(authority(&url)).unwrap();
    let mut dropped = false;
    for _ in 0..300 {
        std::thread::sleep(Duration::from_millis(200));
        if std::io::Write::write_all(&mut stream, b"\r\n").is_err() {
            dropped = true;
            break;
        }
    }
    assert!(dropped, "blank lines kept the connection open");
}

#[test]
fn a_request_sent_too_slowly_is_answered_with_a_timeout() {
    use std::io::{Read, Write};
    let package = workspace().join("examples/packages/shop");
    let (_server, url) = serve(&[
        "ui".as_ref(),
        "serve".as_ref(),
        "--preview".as_ref(),
        package.as_os_str(),
        "--read-timeout".as_ref(),
        "1".as_ref(),
    ]);
    let mut stream = std::net::TcpStream::connect(authority(&url)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    // Half a head, then nothing (what a "slowloris" client does).
    stream.write_all(b"GET /step/0 HTTP/1.1\r\nHost: ").unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer:?}");
}

#[test]
fn a_client_that_does_not_read_its_answers_is_dropped_after_the_write_timeout() {
    use std::io::Write;
    let package = workspace().join("examples/packages/shop");
    let cloud = workspace().join("examples/ui/cloud.yaml");
    let (_server, url) = serve(&[
        "ui".as_ref(),
        "serve".as_ref(),
        "--preview".as_ref(),
        package.as_os_str(),
        "--cloud".as_ref(),
        cloud.as_os_str(),
        "--write-timeout".as_ref(),
        "1".as_ref(),
    ]);
    // A large value typed into the first step is shown again on each load.
    let big = "x".repeat(900 << 10);
    let (status, _, _) = post(
        &format!("{url}/step/0"),
        &format!("name={big}&__action=back"),
    );
    assert_eq!(status, 303);
    let mut stream = std::net::TcpStream::connect(authority(&url)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    // Many pipelined loads (each answer ~1 MB) and no reading: the socket
    // buffers fill and the server's write blocks. The server lets the
    // connection go when its write times out, and then a write of ours
    // fails (the connection was reset); one that stays open takes the
    // blank lines (allowed between requests) for ever.
    let count = 64;
    let one = format!("GET /step/0 HTTP/1.1\r\nHost: {}\r\n\r\n", authority(&url));
    stream.write_all(one.repeat(count).as_bytes()).unwrap();
    let mut dropped = false;
    for _ in 0..240 {
        std::thread::sleep(Duration::from_millis(250));
        if stream.write_all(b"\r\n").is_err() {
            dropped = true;
            break;
        }
    }
    assert!(
        dropped,
        "the server still holds a connection that reads nothing"
    );
}

#[test]
fn oversized_heads_are_refused() {
    let (_server, url) = wizard();
    let host = authority(&url).to_owned();
    let (status, _) = raw(
        &url,
        &format!(
            "GET /step/0 HTTP/1.1\r\nHost: {host}\r\nX-Big: {}\r\nConnection: close\r\n\r\n",
            "a".repeat(64 << 10)
        ),
    );
    assert_eq!(status, 431);
    let many: String = (0..500).map(|i| format!("X-{i}: 1\r\n")).collect();
    let (status, _) = raw(
        &url,
        &format!("GET /step/0 HTTP/1.1\r\nHost: {host}\r\n{many}Connection: close\r\n\r\n"),
    );
    assert_eq!(status, 431);
    // Bodies in chunks are not read.
    let (status, _) = raw(
        &url,
        &format!(
            "POST /step/0 HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nname=\r\n0\r\n\r\n"
        ),
    );
    assert_eq!(status, 501);
    // And the server still answers.
    assert_eq!(get(&format!("{url}/step/0")).0, 200);
}

#[test]
fn the_connection_idle_longest_gives_way_when_all_are_taken() {
    use std::io::Read;
    let package = workspace().join("examples/packages/shop");
    // Two connections at most, and no idle timeout to speak of: only the
    // cap can close a connection here.
    let (_server, url) = serve(&[
        "ui".as_ref(),
        "serve".as_ref(),
        "--preview".as_ref(),
        package.as_os_str(),
        "--max-connections".as_ref(),
        "2".as_ref(),
        "--idle-timeout".as_ref(),
        "3600".as_ref(),
    ]);
    let mut oldest = std::net::TcpStream::connect(authority(&url)).unwrap();
    // The first connection is held by the server before the second comes.
    let (status, _) = raw(
        &url,
        &format!(
            "GET /style.css HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            authority(&url)
        ),
    );
    assert_eq!(status, 200);
    let _second = std::net::TcpStream::connect(authority(&url)).unwrap();
    let (status, answer) = raw(
        &url,
        &format!(
            "GET /step/0 HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            authority(&url)
        ),
    );
    assert_eq!(status, 200, "{answer}");
    oldest
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut byte = [0u8; 1];
    match oldest.read(&mut byte) {
        Ok(0) => {}
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        other => panic!("the oldest idle connection was kept: {other:?}"),
    }
}

#[test]
fn the_server_limits_are_options_with_checked_values() {
    for sub in [&["ui", "serve"][..], &["forms", "serve"][..]] {
        let help = Command::new(env!("CARGO_BIN_EXE_murano"))
            .args(sub)
            .arg("--help")
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&help.stdout);
        for option in [
            "--max-connections <N>",
            "--read-timeout <SECONDS>",
            "--write-timeout <SECONDS>",
            "--idle-timeout <SECONDS>",
        ] {
            assert!(help.contains(option), "{sub:?} {option}: {help}");
        }
    }
    for bad in [
        &["--max-connections", "0"][..],
        &["--max-connections", "100000"][..],
        &["--idle-timeout", "0"][..],
        &["--read-timeout", "-1"][..],
        &["--write-timeout", "NaN"][..],
        &["--idle-timeout", "inf"][..],
        &["--read-timeout", "1e9"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_murano"))
            .args(["ui", "serve", "examples/packages/shop"])
            .args(bad)
            .current_dir(workspace())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn a_client_that_expects_100_continue_gets_it_before_sending_its_body() {
    use std::io::{Read, Write};
    let (_server, url) = wizard();
    let body = "name=my-shop&port=80&currencies=EUR&flavor=m1.small&image=img-ubuntu&__action=next";
    let mut stream = std::net::TcpStream::connect(authority(&url)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "POST /step/0 HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
        authority(&url),
        body.len()
    )
    .unwrap();
    // The interim answer, then the body, then the real answer.
    let mut interim = Vec::new();
    let mut byte = [0u8; 1];
    while !interim.ends_with(b"\r\n\r\n") && interim.len() < 4096 {
        match stream.read(&mut byte) {
            Ok(1) => interim.push(byte[0]),
            other => panic!("no interim answer: {other:?} after {interim:?}"),
        }
    }
    assert_eq!(
        String::from_utf8_lossy(&interim),
        "HTTP/1.1 100 Continue\r\n\r\n"
    );
    stream.write_all(body.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 303 "), "{answer}");
    assert!(answer.contains("Location: /step/1"), "{answer}");
}
