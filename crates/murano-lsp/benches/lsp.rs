//! The server's speed on a large workspace: every package tree of the
//! shared corpus plus a generated package with a 2,000-line class.
//!
//! - `index_corpus`: reading and indexing the whole workspace;
//! - `diagnostics_after_change`: a change to the 2,000-line class until
//!   its diagnostics are published (the corpus as the checker's catalog);
//! - `hover`, `definition`, `completion` on that class.
//!
//! Resident memory after loading is printed. Skipped (saying so) without
//! the shared corpus (MURANO_SHARED, or ../shared beside the workspace).

#![allow(missing_docs)] // criterion_group! generates undocumented items

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use murano_lsp::{ServerOptions, Workspace};
use serde_json::{json, Value};

fn corpus() -> Option<PathBuf> {
    let shared = std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let corpus = shared.join("corpus");
    corpus.is_dir().then_some(corpus)
}

/// A package whose class file has about 2,000 lines: properties, and
/// methods using them and each other.
fn big_package(root: &Path) -> PathBuf {
    let dir = root.join("big");
    std::fs::create_dir_all(dir.join("Classes")).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        "Format: MuranoPL/1.4\nType: Application\nFullName: bench.Big\nDescription: d\n\
Classes:\n  bench.Big: Big.yaml\n",
    )
    .unwrap();
    std::fs::write(dir.join("LICENSE"), "Apache-2.0").unwrap();
    let mut text = String::from(
        "Namespaces:\n  =: bench\n  std: io.murano\n  res: io.murano.resources\n\
Name: Big\nExtends: std:Application\nProperties:\n",
    );
    for i in 0..185 {
        text.push_str(&format!(
            "  prop{i}:\n    Contract: $.string().notNull()\n    Default: value{i}\n"
        ));
    }
    text.push_str("Methods:\n");
    for i in 0..185 {
        text.push_str(&format!(
            "  method{i}:\n    Arguments:\n      - count:\n          Contract: $.int().check($ >= 0)\n    Body:\n      - $x: $.prop{i}.toUpper()\n      - $this.method{}($count + 1)\n      - Return: format('{{0}}-{{1}}', $x, len($.prop{}))\n",
            (i + 1) % 185,
            (i + 7) % 185
        ));
    }
    std::fs::write(dir.join("Classes/Big.yaml"), &text).unwrap();
    dir
}

fn rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

struct Client {
    conn: Connection,
    next: i32,
}

impl Client {
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        self.conn
            .sender
            .send(Request::new(id.clone(), method.into(), params).into())
            .unwrap();
        loop {
            match self.conn.receiver.recv().unwrap() {
                Message::Response(r) if r.id == id => return r.result.unwrap_or(Value::Null),
                _ => {}
            }
        }
    }
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn position(text: &str, needle: &str, shift: usize) -> Value {
    let at = text.find(needle).unwrap() + shift;
    let line = text[..at].matches('\n').count();
    json!({"line": line, "character": at - text[..at].rfind('\n').map_or(0, |i| i + 1)})
}

fn bench(c: &mut Criterion) {
    let Some(corpus) = corpus() else {
        eprintln!("shared corpus absent: lsp benchmarks SKIPPED");
        return;
    };
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lsp-bench");
    let _ = std::fs::remove_dir_all(&tmp);
    let big = big_package(&tmp);
    let class = big.join("Classes/Big.yaml");
    let text = std::fs::read_to_string(&class).unwrap();
    println!("class file: {} lines", text.lines().count());

    let mut group = c.benchmark_group("lsp");
    group.sample_size(10);
    group.bench_function("index_corpus", |b| {
        b.iter(|| Workspace::load(&[corpus.clone(), tmp.clone()], ServerOptions::default()))
    });
    let ws = Workspace::load(&[corpus.clone(), tmp.clone()], ServerOptions::default());
    println!(
        "workspace: {} packages, {} classes; resident memory {:.0} MiB",
        ws.package_count(),
        ws.class_count(),
        rss_mib().unwrap_or(f64::NAN)
    );
    drop(ws);

    // The server: the big package checked, the corpus as its catalog.
    let (server, conn) = Connection::memory();
    let mut options = ServerOptions::default();
    options.catalog = vec![corpus.clone()];
    let thread = std::thread::spawn(move || murano_lsp::run(server, options));
    let mut client = Client { conn, next: 0 };
    client.request(
        "initialize",
        json!({"capabilities": {}, "rootUri": uri(&tmp)}),
    );
    client
        .conn
        .sender
        .send(Notification::new("initialized".into(), json!({})).into())
        .unwrap();
    let doc = json!({"uri": uri(&class)});
    let edited = text.replace("Default: value3\n", "Default: value3\n    Defualt: 1\n");
    let mut version = 1;
    group.bench_function("diagnostics_after_change", |b| {
        b.iter(|| {
            version += 1;
            let new = if version % 2 == 0 { &edited } else { &text };
            client
                .conn
                .sender
                .send(
                    Notification::new(
                        "textDocument/didChange".into(),
                        json!({"textDocument": {"uri": uri(&class), "version": version},
                               "contentChanges": [{"text": new}]}),
                    )
                    .into(),
                )
                .unwrap();
            // Wait for the file's diagnostics.
            loop {
                if let Message::Notification(n) = client.conn.receiver.recv().unwrap() {
                    if n.params["uri"] == json!(uri(&class)) {
                        break;
                    }
                }
            }
        })
    });
    let hover_at = position(&text, "$.prop42.toUpper", 3);
    group.bench_function("hover", |b| {
        b.iter(|| {
            client.request(
                "textDocument/hover",
                json!({"textDocument": doc, "position": hover_at}),
            )
        })
    });
    let def_at = position(&text, "$this.method99(", 7);
    group.bench_function("definition", |b| {
        b.iter(|| {
            client.request(
                "textDocument/definition",
                json!({"textDocument": doc, "position": def_at}),
            )
        })
    });
    let completion_at = position(&text, "$.prop42.toUpper", 2);
    group.bench_function("completion", |b| {
        b.iter(|| {
            client.request(
                "textDocument/completion",
                json!({"textDocument": doc, "position": completion_at}),
            )
        })
    });
    group.finish();
    println!(
        "resident memory with the server: {:.0} MiB",
        rss_mib().unwrap_or(f64::NAN)
    );
    client.request("shutdown", Value::Null);
    let _ = client
        .conn
        .sender
        .send(Notification::new("exit".into(), Value::Null).into());
    let _ = thread.join();
}

criterion_group!(benches, bench);
criterion_main!(benches);
