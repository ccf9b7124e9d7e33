//! The server over an in-memory connection, on copies of the bundled
//! example packages: each feature answered as an editor asks for it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use murano_lsp::ServerOptions;
use serde_json::{json, Value};

/// Longest wait for one message: a hang guard, not a timing check.
const WAIT: Duration = Duration::from_secs(120);

struct TestServer {
    client: Connection,
    thread: Option<std::thread::JoinHandle<Result<(), murano_lsp::ServerError>>>,
    next_id: std::cell::Cell<i32>,
    root: PathBuf,
}

impl TestServer {
    fn start(root: &Path, options: ServerOptions) -> (TestServer, Vec<Notification>) {
        let (server, client) = Connection::memory();
        let thread = std::thread::spawn(move || murano_lsp::run(server, options));
        let s = TestServer {
            client,
            thread: Some(thread),
            next_id: std::cell::Cell::new(0),
            root: root.to_owned(),
        };
        let (result, _) = s.request(
            "initialize",
            json!({"capabilities": {}, "rootUri": uri(root), "processId": null}),
        );
        assert!(result.unwrap()["capabilities"]["hoverProvider"] == json!(true));
        s.notify("initialized", json!({}));
        // A request answered means the initial diagnostics went out.
        let (_, notes) = s.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": "file:///nowhere.yaml"}}),
        );
        (s, notes)
    }

    fn notify(&self, method: &str, params: Value) {
        self.client
            .sender
            .send(Notification::new(method.to_owned(), params).into())
            .unwrap();
    }

    /// Sends a request; its result (or error message) and the
    /// notifications that came before the answer.
    fn request(&self, method: &str, params: Value) -> (Result<Value, String>, Vec<Notification>) {
        self.next_id.set(self.next_id.get() + 1);
        let id = RequestId::from(self.next_id.get());
        self.client
            .sender
            .send(Request::new(id.clone(), method.to_owned(), params).into())
            .unwrap();
        let mut notes = Vec::new();
        loop {
            match self
                .client
                .receiver
                .recv_timeout(WAIT)
                .expect("the server answers")
            {
                Message::Notification(n) => notes.push(n),
                Message::Response(Response {
                    id: rid,
                    result,
                    error,
                }) if rid == id => {
                    return (
                        match error {
                            Some(e) => Err(format!("{}: {}", e.code, e.message)),
                            None => Ok(result.unwrap_or(Value::Null)),
                        },
                        notes,
                    );
                }
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn at(&self, rel: &str, needle: &str, nth: usize, shift: usize) -> Value {
        let text = std::fs::read_to_string(self.path(rel)).unwrap();
        let at = text.match_indices(needle).nth(nth).expect(needle).0 + shift;
        let line = text[..at].matches('\n').count();
        let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
        json!({"textDocument": {"uri": uri(&self.path(rel))}, "position": {"line": line, "character": col}})
    }

    fn change(&self, rel: &str, text: &str) -> Vec<Notification> {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(&self.path(rel)), "version": 2},
                   "contentChanges": [{"text": text}]}),
        );
        self.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri(&self.path(rel))}}),
        )
        .1
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = self
            .client
            .sender
            .send(Request::new(RequestId::from(-1), "shutdown".into(), Value::Null).into());
        let _ = self
            .client
            .sender
            .send(Notification::new("exit".into(), Value::Null).into());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A fresh workspace holding copies of the example packages.
fn workspace(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("murano-lsp")
        .join(name);
    let _ = std::fs::remove_dir_all(&root);
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/packages");
    for package in ["shop", "greetings"] {
        copy_dir(&examples.join(package), &root.join(package));
    }
    root
}

/// The diagnostics last published for `path`: (code, severity, line,
/// character).
fn published(notes: &[Notification], path: &Path) -> Option<Vec<(String, u64, u64, u64)>> {
    let uri = uri(path);
    notes
        .iter()
        .filter(|n| n.method == lsp_types::notification::PublishDiagnostics::METHOD)
        .rfind(|n| n.params["uri"] == json!(uri))
        .map(|n| {
            n.params["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| {
                    (
                        d["code"].as_str().unwrap().to_owned(),
                        d["severity"].as_u64().unwrap(),
                        d["range"]["start"]["line"].as_u64().unwrap(),
                        d["range"]["start"]["character"].as_u64().unwrap(),
                    )
                })
                .collect()
        })
}

/// What `murano check`'s library reports on a package folder, as
/// (file, code, severity as LSP numbers it, 0-based line, column).
fn checker(package: &Path) -> Vec<(String, String, u64, u64, u64)> {
    use murano_packages::check::{check_package, CheckOptions, Severity};
    let mut files = murano_packages::source::FileMap::new();
    fn add(files: &mut murano_packages::source::FileMap, root: &Path, dir: &Path) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                add(files, root, &entry.path());
            } else {
                let rel = entry
                    .path()
                    .strip_prefix(root)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_owned();
                files
                    .insert(&rel, std::fs::read(entry.path()).unwrap())
                    .unwrap();
            }
        }
    }
    add(&mut files, package, package);
    check_package(&files, &CheckOptions::default())
        .into_iter()
        .map(|d| {
            let at = d.start.unwrap_or_default();
            (
                d.file.clone().unwrap_or_else(|| "manifest.yaml".into()),
                d.code.to_owned(),
                if d.severity == Severity::Error { 1 } else { 2 },
                u64::from(at.line.saturating_sub(1)),
                u64::from(at.column.saturating_sub(1)),
            )
        })
        .collect()
}

#[test]
fn diagnostics_are_the_checkers_and_follow_edits() {
    let root = workspace("diagnostics");
    let class = root.join("shop/Classes/Database.yaml");
    let original = std::fs::read_to_string(&class).unwrap();
    // A property with an unknown key and a method with an undeclared
    // prefix: two findings `murano check` reports.
    let broken = original
        .replace("    Default: []\n", "    Default: []\n    Contrat: 1\n")
        .replace("$.instance.deploy()", "$.instance.deploy(zz:Thing)");
    std::fs::write(&class, &broken).unwrap();
    let expected: Vec<_> = checker(&root.join("shop"))
        .into_iter()
        .filter(|d| d.0 == "Classes/Database.yaml")
        .map(|(_, c, s, l, col)| (c, s, l, col))
        .collect();
    assert!(expected.len() >= 2, "{expected:?}");
    let (server, notes) = TestServer::start(&root, ServerOptions::default());
    let got = published(&notes, &class).expect("diagnostics for the class file");
    let mut got_sorted = got.clone();
    got_sorted.sort();
    let mut expected_sorted = expected.clone();
    expected_sorted.sort();
    assert_eq!(got_sorted, expected_sorted);

    // Fixing the file in the editor clears what was fixed.
    let notes = server.change("shop/Classes/Database.yaml", &original);
    let now = published(&notes, &class).expect("republished");
    assert!(now.len() < got.len(), "{now:?}");
    assert!(
        !now.iter().any(|d| d.0 == "M204" || d.0 == "M401"),
        "{now:?}"
    );
}

#[test]
fn files_changed_on_disk_are_read_again() {
    let root = workspace("watched");
    let (s, notes) = TestServer::start(&root, ServerOptions::default());
    let db = root.join("shop/Classes/Database.yaml");
    let before = published(&notes, &db).unwrap_or_default();
    assert!(!before.iter().any(|d| d.0 == "M204"));
    let text = std::fs::read_to_string(&db).unwrap();
    std::fs::write(
        &db,
        text.replace("    Default: []\n", "    Default: []\n    Defualt: 1\n"),
    )
    .unwrap();
    s.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&db), "type": 2}]}),
    );
    let (_, notes) = s.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&db)}}),
    );
    let after = published(&notes, &db).expect("checked again");
    assert!(after.iter().any(|d| d.0 == "M204"), "{after:?}");
}

#[test]
fn a_change_in_one_package_is_reported_in_another() {
    let root = workspace("cross");
    // A class of another package that uses a property its parent (in
    // the greetings package) declares.
    let greeter = root.join("greetings/Classes/Greeter.yaml");
    let text = std::fs::read_to_string(&greeter).unwrap();
    let with_property = text.replace(
        "\nMethods:",
        "\nProperties:\n  motto:\n    Contract: $.string()\n\nMethods:",
    );
    std::fs::write(&greeter, &with_property).unwrap();
    std::fs::create_dir_all(root.join("kids/Classes")).unwrap();
    std::fs::write(
        root.join("kids/manifest.yaml"),
        "Format: MuranoPL/1.4\nType: Library\nFullName: com.example.Kids\nDescription: d\n\
Classes:\n  com.example.Kid: Kid.yaml\nRequire:\n  com.example.Greetings: 1\n",
    )
    .unwrap();
    std::fs::write(root.join("kids/LICENSE"), "Apache-2.0").unwrap();
    let kid = root.join("kids/Classes/Kid.yaml");
    std::fs::write(
        &kid,
        "Namespaces:\n  =: com.example\nName: Kid\nExtends: Greeter\nMethods:\n  count:\n    Body:\n      - Return: len($.motto)\n",
    )
    .unwrap();
    // With a catalog, the checker knows the classes of every package.
    let options = {
        let mut o = ServerOptions::default();
        o.catalog = vec![root.join("greetings")];
        o
    };
    let (server, notes) = TestServer::start(&root, options);
    let count = |notes: &[Notification]| {
        published(notes, &kid)
            .unwrap_or_default()
            .iter()
            .filter(|d| d.0 == "M421")
            .count()
    };
    assert_eq!(count(&notes), 0);
    let notes = server.change(
        "greetings/Classes/Greeter.yaml",
        &with_property.replace("  motto:", "  slogan:"),
    );
    assert_eq!(
        count(&notes),
        1,
        "the other package's file is checked again"
    );
}

fn hover_text(server: &TestServer, at: Value) -> String {
    let (result, _) = server.request("textDocument/hover", at);
    result.unwrap()["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn hover_explains_properties_methods_classes_and_functions() {
    let root = workspace("hover");
    let (s, _) = TestServer::start(&root, ServerOptions::default());
    let shop = "shop/Classes/Shop.yaml";
    // `$.database` in `$.database.deploy()`: contract and declaring class.
    let text = hover_text(&s, s.at(shop, "$.database.deploy", 0, 3));
    assert!(
        text.contains("$.class(Database)") && text.contains("com.example.Shop"),
        "{text}"
    );
    let text = hover_text(&s, s.at(shop, "$.database.deploy", 0, 13));
    assert!(text.contains("com.example.Database::deploy"), "{text}");
    let text = hover_text(&s, s.at(shop, "enableCurrency($currency)", 0, 1));
    assert!(
        text.contains("currency") && text.contains("method"),
        "{text}"
    );
    let text = hover_text(&s, s.at(shop, "class(Database)", 0, 7));
    assert!(
        text.contains("com.example.Database") && text.contains("io.murano.Application"),
        "{text}"
    );
    let text = hover_text(&s, s.at(shop, "dict(", 0, 1));
    assert!(
        text.contains("YAQL function") && text.contains("dict("),
        "{text}"
    );
    let text = hover_text(&s, s.at(shop, ".notNull()", 0, 2));
    assert!(text.contains("contract"), "{text}");
    let text = hover_text(&s, s.at("shop/UI/ui.yaml", "type: flavor", 0, 7));
    assert!(text.contains("FlavorChoiceField"), "{text}");
    let text = hover_text(&s, s.at("shop/manifest.yaml", "FullName", 0, 1));
    assert!(text.contains("unique name"), "{text}");
    // The UI template's keys are the properties of the class it names.
    let text = hover_text(&s, s.at("shop/UI/ui.yaml", "  port: $.settings", 0, 3));
    assert!(text.contains("Default: 8080"), "{text}");
}

fn location(v: &Value) -> (String, u64, u64) {
    (
        v["uri"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()
            .to_owned(),
        v["range"]["start"]["line"].as_u64().unwrap(),
        v["range"]["start"]["character"].as_u64().unwrap(),
    )
}

fn line_of(path: &Path, needle: &str) -> u64 {
    let text = std::fs::read_to_string(path).unwrap();
    text[..text.find(needle).unwrap()].matches('\n').count() as u64
}

#[test]
fn definitions_and_references_cross_files() {
    let root = workspace("navigate");
    std::fs::create_dir_all(root.join("shop/Resources")).unwrap();
    std::fs::write(root.join("shop/Resources/setup.sh"), "echo\n").unwrap();
    let (s, _) = TestServer::start(&root, ServerOptions::default());
    let shop = "shop/Classes/Shop.yaml";
    let db = root.join("shop/Classes/Database.yaml");
    // `$.database.deploy()`: the receiver's class from its contract.
    let (r, _) = s.request(
        "textDocument/definition",
        s.at(shop, "$.database.deploy", 0, 13),
    );
    assert_eq!(
        location(&r.unwrap()),
        ("Database.yaml".into(), line_of(&db, "  deploy:"), 2)
    );
    // A class name in a contract.
    let (r, _) = s.request(
        "textDocument/definition",
        s.at(shop, "class(Database)", 0, 7),
    );
    assert_eq!(
        location(&r.unwrap()),
        ("Database.yaml".into(), line_of(&db, "Name: Database"), 6)
    );
    // `$this.m()`.
    let (r, _) = s.request(
        "textDocument/definition",
        s.at(shop, "$this.enableCurrency", 0, 7),
    );
    let shop_path = s.path(shop);
    assert_eq!(
        location(&r.unwrap()).1,
        line_of(&shop_path, "  enableCurrency:")
    );
    // An extension method called on a string, declared in another package.
    let (r, _) = s.request(
        "textDocument/definition",
        s.at("greetings/Classes/GreeterTests.yaml", "greeting()", 0, 1),
    );
    assert_eq!(location(&r.unwrap()).0, "Greeter.yaml");
    // A file of Resources/ named in a string: the file.
    let db_text = std::fs::read_to_string(&db).unwrap();
    s.change(
        "shop/Classes/Database.yaml",
        &db_text.replace(
            "$.instance.deploy()",
            "$.instance.deploy($res.string('setup.sh'))",
        ),
    );
    let mut at = s.at("shop/Classes/Database.yaml", "$.instance.deploy()", 0, 0);
    let line = line_of(&db, "$.instance.deploy()");
    let col = std::fs::read_to_string(&db)
        .unwrap()
        .lines()
        .nth(line as usize)
        .unwrap()
        .find("$.instance")
        .unwrap()
        + 32;
    at["position"] = json!({"line": line, "character": col});
    let (r, _) = s.request("textDocument/definition", at);
    assert_eq!(location(&r.unwrap()), ("setup.sh".into(), 0, 0));
    // A UI field used in the Application template: its declaration.
    let ui = s.path("shop/UI/ui.yaml");
    let (r, _) = s.request(
        "textDocument/definition",
        s.at("shop/UI/ui.yaml", "$.settings.port", 0, 12),
    );
    assert_eq!(
        location(&r.unwrap()),
        ("ui.yaml".into(), line_of(&ui, "- name: port"), 16)
    );
    // The references of a property: declaration, uses, the UI template.
    let mut at = s.at(shop, "  port:", 0, 3);
    at["context"] = json!({"includeDeclaration": true});
    let (r, _) = s.request("textDocument/references", at);
    let files: Vec<String> = r
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|l| location(l).0)
        .collect();
    assert!(
        files.contains(&"ui.yaml".to_owned()) && files.contains(&"Shop.yaml".to_owned()),
        "{files:?}"
    );
    // The references of a class: its name, a contract, the manifest.
    let mut at = s.at("shop/Classes/Database.yaml", "Name: Database", 0, 7);
    at["context"] = json!({"includeDeclaration": true});
    let (r, _) = s.request("textDocument/references", at);
    let files: Vec<String> = r
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|l| location(l).0)
        .collect();
    for f in ["manifest.yaml", "Shop.yaml", "Database.yaml"] {
        assert!(files.contains(&f.to_owned()), "{f} in {files:?}");
    }
}

fn edits(result: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (uri, list) in result["changes"].as_object().unwrap() {
        for e in list.as_array().unwrap() {
            out.push((
                uri.rsplit('/').next().unwrap().to_owned(),
                e["newText"].as_str().unwrap().to_owned(),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn rename_covers_the_workspace_or_refuses() {
    let root = workspace("rename");
    let (s, _) = TestServer::start(&root, ServerOptions::default());
    // A method: its declaration and `$this.createUser(...)`.
    let mut at = s.at("shop/Classes/Database.yaml", "  createUser:", 0, 3);
    at["newName"] = json!("addUser");
    let (r, _) = s.request("textDocument/rename", at);
    assert_eq!(
        edits(&r.unwrap()),
        [
            ("Database.yaml".into(), "addUser".into()),
            ("Database.yaml".into(), "addUser".into())
        ]
    );
    // A class: the short name, the manifest's full name, the contract.
    let mut at = s.at("shop/Classes/Database.yaml", "Name: Database", 0, 7);
    at["newName"] = json!("Store");
    let (r, _) = s.request("textDocument/rename", at);
    let e = edits(&r.unwrap());
    assert!(
        e.contains(&("manifest.yaml".into(), "com.example.Store".into())),
        "{e:?}"
    );
    assert!(e.contains(&("Shop.yaml".into(), "Store".into())), "{e:?}");
    assert!(
        e.contains(&("Database.yaml".into(), "Store".into())),
        "{e:?}"
    );
    // A property also used as `$user.name` (class unknown) is refused.
    let mut at = s.at("shop/Classes/Shop.yaml", "\n  name:", 0, 4);
    at["newName"] = json!("title");
    let (r, _) = s.request("textDocument/rename", at);
    let message = r.unwrap_err();
    assert!(
        message.contains("Database.yaml") && message.contains("unknown"),
        "{message}"
    );
    // A property renamed in its class, its uses and the UI template.
    let mut at = s.at("shop/Classes/Shop.yaml", "  port:", 0, 3);
    at["newName"] = json!("listenPort");
    let (r, _) = s.request("textDocument/rename", at);
    let e = edits(&r.unwrap());
    assert!(
        e.contains(&("ui.yaml".into(), "listenPort".into())),
        "{e:?}"
    );
    assert!(
        e.contains(&("Shop.yaml".into(), "listenPort".into())),
        "{e:?}"
    );
}

fn labels(result: Value) -> Vec<String> {
    result
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn completion_offers_members_functions_and_classes() {
    let root = workspace("complete");
    let (s, _) = TestServer::start(&root, ServerOptions::default());
    let shop = "shop/Classes/Shop.yaml";
    let (r, _) = s.request(
        "textDocument/completion",
        s.at(shop, "$.database.deploy", 0, 2),
    );
    let l = labels(r.unwrap());
    for want in ["port", "database", "deploy", "enableCurrency", "join"] {
        assert!(l.contains(&want.to_owned()), "{want}");
    }
    // After `$.database.`: Database's members.
    let (r, _) = s.request(
        "textDocument/completion",
        s.at(shop, "$.database.deploy", 0, 11),
    );
    let l = labels(r.unwrap());
    assert!(l.contains(&"createUser".to_owned()) && !l.contains(&"enableCurrency".to_owned()));
    let (r, _) = s.request("textDocument/completion", s.at(shop, "dict(", 0, 0));
    let l = labels(r.unwrap());
    assert!(l.contains(&"format".to_owned()) && l.contains(&"Database".to_owned()));
    let (r, _) = s.request(
        "textDocument/completion",
        s.at("shop/UI/ui.yaml", "type: flavor", 0, 6),
    );
    assert!(labels(r.unwrap()).contains(&"keypair".to_owned()));
    let (r, _) = s.request(
        "textDocument/completion",
        s.at("shop/manifest.yaml", "Tags", 0, 0),
    );
    assert!(labels(r.unwrap()).contains(&"Require".to_owned()));
}

#[test]
fn document_symbols_outline_a_class() {
    let root = workspace("symbols");
    let (s, _) = TestServer::start(&root, ServerOptions::default());
    let (r, _) = s.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&s.path("shop/Classes/Database.yaml"))}}),
    );
    let r = r.unwrap();
    assert_eq!(r[0]["name"], json!("com.example.Database"));
    let children: Vec<_> = r[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(children, ["instance", "users", "deploy", "createUser"]);
}

#[test]
fn bad_requests_get_error_answers() {
    let root = workspace("errors");
    let (s, _) = TestServer::start(&root, ServerOptions::default());
    let (r, _) = s.request("textDocument/hover", json!({"nonsense": 1}));
    assert!(r.unwrap_err().starts_with("-32602"));
    let (r, _) = s.request("murano/unknown", json!({}));
    assert!(r.unwrap_err().starts_with("-32601"));
    // A position far past the end of a file is no error.
    let (r, _) = s.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&s.path("shop/manifest.yaml"))}, "position": {"line": 99999, "character": 99999}}),
    );
    assert_eq!(r.unwrap(), Value::Null);
}

/// A package folder with one class.
fn write_package(dir: &Path, n: usize) {
    std::fs::create_dir_all(dir.join("Classes")).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        format!("Format: MuranoPL/1.4\nType: Library\nFullName: p.P{n}\nDescription: d\nClasses:\n  p.C{n}: C.yaml\n"),
    )
    .unwrap();
    std::fs::write(dir.join("Classes/C.yaml"), format!("Name: p.C{n}\n")).unwrap();
}

#[test]
fn hostile_workspaces_stay_within_the_limits() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("murano-lsp/hostile");
    let _ = std::fs::remove_dir_all(&root);
    for n in 0..30 {
        write_package(&root.join(format!("many/p{n}")), n);
    }
    // A package below the walk's depth limit is not looked for.
    let mut deep = root.join("deep");
    for i in 0..20 {
        deep = deep.join(format!("d{i}"));
    }
    write_package(&deep, 99);
    // A link back to the root: a loop if links were followed.
    #[cfg(unix)]
    std::os::unix::fs::symlink(&root, root.join("many/loop")).unwrap();
    let mut options = ServerOptions::default();
    options.max_packages = 10;
    let ws = murano_lsp::Workspace::load(std::slice::from_ref(&root), options.clone());
    assert_eq!(ws.package_count(), 10);
    options.max_packages = 1000;
    let ws = murano_lsp::Workspace::load(std::slice::from_ref(&root), options.clone());
    assert_eq!(
        ws.package_count(),
        30,
        "the loop adds nothing, the deep package is too deep"
    );
    options.max_walk_depth = 30;
    let ws = murano_lsp::Workspace::load(std::slice::from_ref(&root), options.clone());
    assert_eq!(ws.package_count(), 31);
}

#[test]
fn huge_and_deep_files_do_not_stop_the_server() {
    let root = workspace("huge");
    let mut options = ServerOptions::default();
    options.max_file_size = 64 << 10;
    // A file over the limit on disk is left out...
    let big = root.join("shop/Classes/Big.yaml");
    std::fs::write(&big, format!("Name: Big\n# {}\n", "x".repeat(100 << 10))).unwrap();
    let (s, _) = TestServer::start(&root, options);
    let (r, _) = s.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&big)}}),
    );
    assert_eq!(r.unwrap(), Value::Null, "not indexed");
    // ...and so is an editor's text over it.
    let notes = s.change("shop/Classes/Shop.yaml", &"a".repeat(100 << 10));
    assert!(published(&notes, &s.path("shop/Classes/Shop.yaml")).is_none());
    // YAML nested far deeper than any limit: a finding, no crash.
    let deep = format!(
        "Name: Shop\nProperties: {}{}\n",
        "[".repeat(20_000),
        "]".repeat(20_000)
    );
    let notes = s.change("shop/Classes/Shop.yaml", &deep);
    let found = published(&notes, &s.path("shop/Classes/Shop.yaml")).expect("checked");
    assert!(!found.is_empty());
    let (r, _) = s.request(
        "textDocument/hover",
        s.at("shop/Classes/Database.yaml", "class(res:Instance)", 0, 1),
    );
    assert!(r.is_ok());
    let (r, _) = s.request("textDocument/completion", json!({"textDocument": {"uri": uri(&s.path("shop/Classes/Shop.yaml"))}, "position": {"line": 1, "character": 20}}));
    assert!(r.is_ok());
}

#[test]
fn semantic_tokens_mark_yaql_in_scalars() {
    let root = workspace("tokens");
    let (s, _) = TestServer::start(&root, ServerOptions::default());
    let (r, _) = s.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri(&s.path("shop/Classes/Database.yaml"))}}),
    );
    let data: Vec<u64> = r.unwrap()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(data.len() % 5, 0);
    // Decode: absolute (line, column, length, type).
    let (mut line, mut col) = (0, 0);
    let mut tokens = Vec::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            col = 0;
        }
        line += t[0];
        col += t[1];
        tokens.push((line, col, t[2], t[3]));
    }
    let text = std::fs::read_to_string(s.path("shop/Classes/Database.yaml")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let word = |t: &(u64, u64, u64, u64)| {
        lines[t.0 as usize][t.1 as usize..(t.1 + t.2) as usize].to_owned()
    };
    let of_type = |ty: u64| {
        tokens
            .iter()
            .filter(|t| t.3 == ty)
            .map(word)
            .collect::<Vec<_>>()
    };
    assert!(
        of_type(0).contains(&"$user".to_owned()),
        "variables {:?}",
        of_type(0)
    );
    assert!(
        of_type(1).contains(&"len".to_owned()),
        "functions {:?}",
        of_type(1)
    );
    assert!(
        of_type(2).contains(&"createUser".to_owned()),
        "methods {:?}",
        of_type(2)
    );
    assert!(
        of_type(3).contains(&"instance".to_owned()),
        "properties {:?}",
        of_type(3)
    );
}

#[test]
fn quick_fixes_for_a_near_miss_key_and_an_undeclared_prefix() {
    let root = workspace("actions");
    let db = root.join("shop/Classes/Database.yaml");
    let text = std::fs::read_to_string(&db)
        .unwrap()
        .replace("    Default: []\n", "    Defualt: []\n")
        .replace("$.instance.deploy()", "$.instance.deploy(new(conf:Linux))");
    std::fs::write(&db, &text).unwrap();
    let (s, notes) = TestServer::start(&root, ServerOptions::default());
    let diagnostics: Vec<Value> = notes
        .iter()
        .filter(|n| n.params["uri"] == json!(uri(&db)))
        .flat_map(|n| n.params["diagnostics"].as_array().unwrap().clone())
        .filter(|d| d["code"] == "M204" || d["code"] == "M401")
        .collect();
    assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
    let (r, _) = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&db)}, "range": diagnostics[0]["range"],
               "context": {"diagnostics": diagnostics}}),
    );
    let actions = r.unwrap();
    let new_texts: Vec<String> = actions
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a["edit"]["changes"][uri(&db)].as_array().unwrap().clone())
        .map(|e| e["newText"].as_str().unwrap().to_owned())
        .collect();
    assert!(new_texts.contains(&"Default".to_owned()), "{new_texts:?}");
    assert!(
        new_texts.contains(&"  conf: io.murano.configuration\n".to_owned()),
        "{new_texts:?}"
    );
}

#[test]
fn a_code_lens_runs_a_test_method() {
    let root = workspace("lens");
    // The runner needs Murano's core library: the shared data's copy.
    let shared = std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let core = shared.join("conformance/engine/meta/io.murano");
    if !core.is_dir() {
        eprintln!("shared core library absent: skipping");
        return;
    }
    let mut options = ServerOptions::default();
    options.catalog = vec![core];
    let (s, _) = TestServer::start(&root, options);
    let tests = s.path("greetings/Classes/GreeterTests.yaml");
    let (r, _) = s.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri(&tests)}}),
    );
    let lenses = r.unwrap();
    let titles: Vec<&str> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles.len(), 3, "{titles:?}");
    let command = lenses[0]["command"].clone();
    let (r, notes) = s.request(
        "workspace/executeCommand",
        json!({"command": command["command"], "arguments": command["arguments"]}),
    );
    let r = r.unwrap();
    assert_eq!(r["passed"], json!(true), "{r}");
    assert!(notes.iter().any(|n| n.method == "window/showMessage"));
    // Broken in the editor (not saved): the run sees the editor's text.
    let text = std::fs::read_to_string(&tests)
        .unwrap()
        .replace("'Hello, Ada!'", "'Bye, Ada!'");
    s.change("greetings/Classes/GreeterTests.yaml", &text);
    let (r, _) = s.request(
        "workspace/executeCommand",
        json!({"command": command["command"], "arguments": [uri(&tests), "com.example.GreeterTests", "testGreeting"]}),
    );
    let r = r.unwrap();
    assert_eq!(r["passed"], json!(false), "{r}");
}
