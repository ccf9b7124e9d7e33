//! Helpers shared by the packaging tests (`murano package`, `init`,
//! `repo`, `catalog`, `docs`); to fold into `tests/common/` once that
//! exists on main.

#![allow(dead_code, unreachable_pub, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The built `murano` binary.
pub fn murano() -> Command {
    Command::new(env!("CARGO_BIN_EXE_murano"))
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The bundled example packages.
pub fn examples() -> PathBuf {
    workspace().join("examples/packages")
}

/// Runs `murano ARGS`, returning the output.
pub fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut cmd = murano();
    for a in args {
        cmd.arg(a);
    }
    cmd.output().expect("the murano binary runs")
}

/// Standard output and error as text, for messages.
pub fn texts(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Copies a folder tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A scratch folder removed at the end of the test.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A fresh, empty folder named after the test.
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("murano-pkg36-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// A path inside.
    pub fn join(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The shared data folder (`MURANO_SHARED`), when present.
pub fn shared() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("MURANO_SHARED")?);
    dir.is_dir().then_some(dir)
}

/// Murano's core library from the shared data, when present.
pub fn core_library() -> Option<PathBuf> {
    let core = shared()?.join("conformance/engine/meta/io.murano");
    core.is_dir().then_some(core)
}

/// A Python interpreter that imports `module`: `$var_python` when set,
/// else Debian's `/usr/bin/python3`, else `python3` on the PATH. `None`
/// (after saying so) when there is none, unless `require_var` is `1`, in
/// which case the test fails.
pub fn python_with(module: &str, interpreters: &[PathBuf], require_var: &str) -> Option<PathBuf> {
    for python in interpreters {
        let ok = Command::new(python)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(python.clone());
        }
    }
    if std::env::var(require_var).as_deref() == Ok("1") {
        panic!("{require_var}=1 but no Python imports {module} (tried {interpreters:?})");
    }
    eprintln!("skipping: no Python imports {module} (tried {interpreters:?}); set {require_var}=1 to require it");
    None
}

/// Serves the files under `root` over HTTP on a loopback port, for the
/// rest of the test process: GET only, one request per connection, paths
/// with `..` refused. Returns the base URL (`http://127.0.0.1:PORT/`).
pub fn serve_folder(root: &Path) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let root = root.to_owned();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            // Skip the headers.
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/");
            let rel = path.trim_start_matches('/').split('?').next().unwrap_or("");
            let file = (!rel.split('/').any(|p| p == ".."))
                .then(|| root.join(rel))
                .filter(|p| p.is_file());
            let mut stream = &stream;
            let _ = match file.and_then(|p| std::fs::read(p).ok()) {
                Some(body) => stream
                    .write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        )
                        .as_bytes(),
                    )
                    .and_then(|()| stream.write_all(&body)),
                None => stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                ),
            };
        }
    });
    format!("http://127.0.0.1:{port}/")
}

/// Scaffolds a package with `murano init ARGS DIR` and appends `extra` to
/// its manifest.
pub fn init_package(dir: &Path, args: &[&str], extra: &str) {
    let out = murano().arg("init").args(args).arg(dir).output().unwrap();
    assert!(out.status.success(), "{:?}", texts(&out));
    if !extra.is_empty() {
        let manifest = dir.join("manifest.yaml");
        let mut text = std::fs::read_to_string(&manifest).unwrap();
        text.push_str(extra);
        std::fs::write(manifest, text).unwrap();
    }
}
