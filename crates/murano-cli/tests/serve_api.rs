//! `murano serve`: the v1 API served by the binary, and its refusal to
//! listen off loopback without a token.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn refuses_a_public_address_without_a_token() {
    let dir = std::env::temp_dir().join(format!("murano-serve-refuse-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_murano"))
        .args(["serve", "--listen", "0.0.0.0:0", "--db"])
        .arg(dir.join("api.db"))
        .env_remove("MURANO_API_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("requires a token"), "{err}");
    assert!(!dir.join("api.db").exists());
}

#[test]
fn serves_environments_over_http() {
    let dir = std::env::temp_dir().join(format!("murano-serve-ok-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_murano"))
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(dir.join("api.db"))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let post = ureq::http::Request::builder()
        .method("POST")
        .uri(format!("{url}/environments"))
        .header("X-Project-Id", "p")
        .header("X-User-Id", "u")
        .header("Content-Type", "application/json")
        .body(br#"{"name": "demo"}"#.to_vec())
        .unwrap();
    let mut resp = agent.run(post).unwrap();
    let status = resp.status().as_u16();
    let body = resp.body_mut().read_to_string().unwrap();
    let list = ureq::http::Request::builder()
        .uri(format!("{url}/environments"))
        .header("X-Project-Id", "p")
        .body(Vec::new())
        .unwrap();
    let listed = agent
        .run(list)
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"name\":\"demo\""), "{body}");
    assert!(listed.contains("\"status\":\"ready\""), "{listed}");
}
