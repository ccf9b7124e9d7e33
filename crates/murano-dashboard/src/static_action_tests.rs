//! A package's static actions on its page: listed from its class files
//! (public static methods only), each a form of its arguments from the
//! engine's method schema, checked, called through the API's `POST
//! /actions`, the result (or the error) shown escaped.

use std::sync::Arc;

use murano_api::engine::{Engine, RemoteError};
use murano_api::policy::Policy;
use murano_api::store::Db;
use murano_api::{App, Limits};
use murano_packages::source::FileMap;
use serde_json::{json, Value};

use crate::calls::{api_req, json_of};
use crate::page_tests::html;
use crate::{local_context, Dashboard, PageRequest};

/// Gives `slug`'s schema and runs it (upper-cased `<title>`; `boom`
/// raises).
struct Slugger;

impl Engine for Slugger {
    fn handle_task(&self, _task: Value) {}

    fn call_static_action(&self, task: Value) -> Result<Value, RemoteError> {
        assert_eq!(task["action"]["class_name"], "t.Tools");
        assert_eq!(task["action"]["pkg_name"], "t.Tools");
        assert_eq!(task["action"]["class_version"], "=1.2.0");
        let title = task["action"]["args"]["title"].as_str().unwrap_or("");
        if title == "boom" {
            return Err(RemoteError {
                exc_type: "RuntimeError".into(),
                value: "no <slug>".into(),
            });
        }
        Ok(json!(format!("<{}>", title.to_uppercase())))
    }

    fn generate_schema(
        &self,
        _credentials: Value,
        class_name: &str,
        methods: Vec<String>,
        _version: Option<String>,
        _package: Option<String>,
    ) -> Result<Value, RemoteError> {
        if class_name == "t.Tools" && methods == ["slug"] {
            return Ok(json!({"slug": {"type": "object", "properties": {
                "title": {"type": "string", "title": "Title"}}, "required": ["title"]}}));
        }
        Err(RemoteError {
            exc_type: "NoMethodFound".into(),
            value: methods.join(","),
        })
    }
}

const TOOLS: &str = "Name: t.Tools\nMethods:\n  slug:\n    Usage: Static\n    Scope: Public\n    Arguments:\n      - title: {Contract: $.string().notNull()}\n    Body:\n      - Return: $title\n  hidden:\n    Usage: Static\n    Body:\n      - Return: 1\n  act:\n    Usage: Action\n    Body:\n      - Return: 2\n";

fn tools() -> (Dashboard, String) {
    let app = App::new(
        Db::in_memory().unwrap(),
        Policy::default(),
        Arc::new(Slugger),
        Limits::default(),
    );
    let d = Dashboard::new(Arc::new(app));
    let mut files = FileMap::new();
    files
        .insert(
            "manifest.yaml",
            b"Format: MuranoPL/1.4\nType: Library\nFullName: t.Tools\nName: Tools\nVersion: 1.2.0\nClasses:\n  t.Tools: Tools.yaml\n".to_vec(),
        )
        .unwrap();
    files
        .insert("Classes/Tools.yaml", TOOLS.as_bytes().to_vec())
        .unwrap();
    let zip = murano_packages::pack::write_zip(&files).unwrap();
    let mut body =
        b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"p.zip\"\r\n\r\n"
            .to_vec();
    body.extend_from_slice(&zip);
    body.extend_from_slice(b"\r\n--B--\r\n");
    let mut req = api_req(&local_context(), None, &[], None);
    req.body = body;
    req.content_type = Some("multipart/form-data; boundary=B".into());
    let p = json_of(murano_api::handlers::packages::upload(&d.app, &req)).unwrap();
    let pid = p["id"].as_str().unwrap().to_owned();
    (d, pid)
}

#[test]
fn public_static_methods_are_listed_on_the_package_page() {
    let (d, pid) = tools();
    let (status, page) = html(d.dispatch(&PageRequest::get(&format!("/catalog/{pid}"))));
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("id=\"static-actions\""), "{page}");
    assert!(
        page.contains(&format!("action=\"/catalog/{pid}/static/t.Tools/slug\"")),
        "{page}"
    );
    // Private static methods and instance actions are not static actions.
    assert!(!page.contains("/static/t.Tools/hidden"), "{page}");
    assert!(!page.contains("/static/t.Tools/act"), "{page}");
    let hidden = d.dispatch(&PageRequest::get(&format!(
        "/catalog/{pid}/static/t.Tools/hidden"
    )));
    assert_eq!(html(hidden).0, 404);
}

#[test]
fn a_static_action_runs_from_its_form_and_shows_its_result() {
    let (d, pid) = tools();
    let url = format!("/catalog/{pid}/static/t.Tools/slug");
    let (status, form) = html(d.dispatch(&PageRequest::get(&url)));
    assert_eq!(status, 200, "{form}");
    assert!(form.contains("<label for=\"id_title\""), "{form}");
    assert!(form.contains("id=\"run-action\""), "{form}");
    // A missing required argument is an error at its field; nothing runs.
    let (status, refused) =
        html(d.dispatch(&PageRequest::post(&url, &[("__form", "1"), ("title", "")])));
    assert_eq!(status, 422, "{refused}");
    assert!(refused.contains("id=\"err_title\""), "{refused}");
    assert!(!refused.contains("id=\"action-result\""), "{refused}");
    let (status, done) = html(d.dispatch(&PageRequest::post(
        &url,
        &[("__form", "1"), ("title", "hi")],
    )));
    assert_eq!(status, 200, "{done}");
    assert!(done.contains("The action succeeded"), "{done}");
    assert!(done.contains("&quot;&lt;HI&gt;&quot;"), "{done}");
    // The engine's error is shown, escaped, with the API's status.
    let (status, failed) = html(d.dispatch(&PageRequest::post(
        &url,
        &[("__form", "1"), ("title", "boom")],
    )));
    assert_eq!(status, 503, "{failed}");
    assert!(failed.contains("The action failed"), "{failed}");
    assert!(!failed.contains("<slug>"), "{failed}");
}
