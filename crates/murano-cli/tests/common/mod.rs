//! Helpers shared by the CLI's test files: the `murano` binary and ways
//! to run it, the workspace's folders, scratch folders, golden files and
//! served processes. A test file uses it with `mod common;` and takes
//! what it needs (each test file is its own crate, hence the
//! `dead_code` allowance: no file uses every helper).

#![allow(dead_code)]

pub(crate) mod webdriver;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The `murano` binary built for these tests.
pub(crate) fn murano() -> Command {
    Command::new(env!("CARGO_BIN_EXE_murano"))
}

/// Runs `murano args…`, returning (exit code, stdout, stderr).
pub(crate) fn run(args: &[&str]) -> (i32, String, String) {
    let out = murano().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// Runs `murano args… --catalog core` with no catalog from the
/// environment.
pub(crate) fn with_core(args: &[&str], core: &Path) -> Output {
    murano()
        .args(args)
        .arg("--catalog")
        .arg(core)
        .env_remove("MURANO_CATALOG")
        .output()
        .unwrap()
}

/// Whether `prlimit` (util-linux) is there to bound the address space.
pub(crate) fn have_prlimit() -> bool {
    Command::new("prlimit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `murano` under an address-space limit of `bytes` (`prlimit --as`),
/// `None` when prlimit is not there.
pub(crate) fn murano_limited(bytes: u64) -> Option<Command> {
    if !have_prlimit() {
        return None;
    }
    let mut command = Command::new("prlimit");
    command
        .arg(format!("--as={bytes}"))
        .arg(env!("CARGO_BIN_EXE_murano"));
    Some(command)
}

/// Bytes a program wrote, as text.
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A path as an argument.
pub(crate) fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The workspace's root folder.
pub(crate) fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The workspace's `examples/` folder.
pub(crate) fn examples() -> PathBuf {
    workspace().join("examples")
}

/// The shared data: `MURANO_SHARED`, else `../shared` beside the
/// checkout.
pub(crate) fn shared() -> PathBuf {
    std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared"))
}

/// Murano's core library from the shared data (not part of the
/// project), `None` (skip, and say so) when it is absent.
pub(crate) fn core_library() -> Option<PathBuf> {
    let core = shared().join("conformance/engine/meta/io.murano");
    if core.is_dir() {
        Some(core)
    } else {
        eprintln!("shared core library absent: skipping");
        None
    }
}

/// Copies a folder tree.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
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

/// Compares `actual` with `tests/golden/<name>` (UPDATE_GOLDEN=1
/// rewrites the file; review the diff).
pub(crate) fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(actual, expected, "output differs from tests/golden/{name}");
}

/// Replaces a path prefix so golden files do not depend on the machine.
pub(crate) fn scrub(s: &str, path: &Path) -> String {
    s.replace(&path.display().to_string(), "<dir>")
}

/// A scratch folder removed at the end of the test.
pub(crate) struct Scratch(pub(crate) PathBuf);

impl Scratch {
    /// An empty folder named after the test file's process and `name`.
    pub(crate) fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("murano-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// A path inside the folder.
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    /// Writes a file (and its folders) inside the folder.
    pub(crate) fn write(&self, rel: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A MuranoPL 1.4 package `name` in the subfolder `name`, its
    /// `classes` all in one file `Classes/classes.yaml` of text `yaml`.
    pub(crate) fn package(&self, name: &str, classes: &[&str], yaml: &str) -> PathBuf {
        let mut manifest = format!(
            "Format: MuranoPL/1.4\nType: Application\nFullName: {name}\nName: {name}\nClasses:\n"
        );
        for class in classes {
            manifest.push_str(&format!("  {class}: classes.yaml\n"));
        }
        self.write(&format!("{name}/manifest.yaml"), manifest);
        self.write(&format!("{name}/Classes/classes.yaml"), yaml);
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A child process killed when dropped.
pub(crate) struct Running(pub(crate) Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `command args…` (a `murano … serve`) and returns the process
/// with the loopback address it printed on its first line.
pub(crate) fn serve_in(mut command: Command, args: &[&std::ffi::OsStr]) -> (Running, String) {
    let mut child = command
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("murano runs");
    let stdout = child.stdout.take().expect("stdout");
    let running = Running(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the server prints its address");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no loopback address in {line:?}"))
        .trim_end_matches('/')
        .to_owned();
    (running, url)
}

/// Starts `murano args…` (a `… serve`); see [`serve_in`].
pub(crate) fn serve(args: &[&std::ffi::OsStr]) -> (Running, String) {
    serve_in(murano(), args)
}
