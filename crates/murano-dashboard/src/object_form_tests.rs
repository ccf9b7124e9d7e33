//! The MuranoPL form of a package without a UI definition, over an
//! engine giving canned schemas and a model builder: `muranoObject`
//! choices by inheritance and ownership, the chosen class's form nested,
//! errors tied to nested fields, the model builder's model filled back,
//! and editing through the same form.

use std::sync::Arc;

use murano_api::engine::{Engine, RemoteError};
use murano_api::policy::Policy;
use murano_api::store::Db;
use murano_api::{App, Limits};
use serde_json::{json, Value};

use crate::calls::{api_req, existing_session, json_of};
use crate::object_form::{ClassCatalog, ClassInfo};
use crate::page_tests::{create_env, html, import, redirect, JsonLoader};
use crate::{local_context, Dashboard, PageRequest};

/// Schemas of a blog, its storage and two implementations; the builder
/// `quick` sets the title and picks a bucket.
struct Canned;

impl Engine for Canned {
    fn handle_task(&self, _task: Value) {}

    fn call_static_action(&self, task: Value) -> Result<Value, RemoteError> {
        let args = &task["action"]["args"];
        let mut model = args["model"].clone();
        model["title"] = args["name"].clone();
        model["storage"] = json!({"?": {"type": "t.Bucket"}, "bucket": "b1"});
        Ok(model)
    }

    fn generate_schema(
        &self,
        _credentials: Value,
        class_name: &str,
        methods: Vec<String>,
        _version: Option<String>,
        _package: Option<String>,
    ) -> Result<Value, RemoteError> {
        let props = |p: Value| json!({"type": "object", "properties": p});
        if methods == ["resize"] {
            return Ok(
                json!({"resize": props(json!({"size": {"type": "integer", "title": "New size"}}))}),
            );
        }
        Ok(match class_name {
            "t.Blog" => json!({
                "": props(json!({
                    "title": {"type": "string", "title": "Title <b>"},
                    "storage": {"type": "muranoObject", "muranoType": "t.Storage"},
                    "backup": {"type": ["muranoObject", "null"], "muranoType": "t.Storage", "owned": true},
                })),
                "quick": props(json!({"model": {}, "name": {"type": "string"}})),
            }),
            "t.Files" => json!({"": props(json!({"path": {"type": "string", "default": "/srv"}}))}),
            "t.Bucket" => json!({"": props(json!({"bucket": {"type": "string"}}))}),
            "t.Storage" => json!({"": props(json!({}))}),
            _ => {
                return Err(RemoteError {
                    exc_type: "NoClassFound".into(),
                    value: class_name.into(),
                })
            }
        })
    }
}

struct Fixed;

impl ClassCatalog for Fixed {
    fn classes(&self, _app: &App, _tenant: Option<&str>) -> Result<Vec<ClassInfo>, String> {
        let c = |n: &str, a: &[&str]| ClassInfo {
            name: n.into(),
            ancestors: a.iter().map(|s| (*s).to_owned()).collect(),
        };
        Ok(vec![
            c("t.Blog", &["io.murano.Application"]),
            c("t.Files", &["t.Storage"]),
            c("t.Bucket", &["t.Storage"]),
            c("t.Other", &[]),
        ])
    }
}

fn blog_dashboard() -> (Dashboard, String, String) {
    let app = App::new(
        Db::in_memory().unwrap(),
        Policy::default(),
        Arc::new(Canned),
        Limits::default(),
    )
    .with_loader(Arc::new(JsonLoader));
    let mut d = Dashboard::new(Arc::new(app));
    d.classes = Arc::new(Fixed);
    let pid = import(
        &d,
        json!({"fqn": "t.Blog", "name": "Blog", "classes": ["t.Blog", "t.Files", "t.Bucket"]}),
    );
    let eid = create_env(&d, "e");
    (d, pid, eid)
}

fn services(d: &Dashboard, eid: &str) -> Value {
    let ctx = local_context();
    let sid = existing_session(&d.app, &ctx, eid).unwrap();
    json_of(murano_api::handlers::services::get(
        &d.app,
        &api_req(&ctx, sid.as_deref(), &[], None),
        eid,
        None,
    ))
    .unwrap()
}

#[test]
fn a_package_without_ui_is_added_through_its_class_form() {
    let (d, pid, eid) = blog_dashboard();
    // The add page offers it; starting it goes to the class's form.
    let (_, choose) = html(d.dispatch(&PageRequest::get(&format!("/environments/{eid}/add"))));
    assert!(choose.contains("data-fqn=\"t.Blog\""), "{choose}");
    let to = redirect(d.dispatch(&PageRequest::post(
        &format!("/environments/{eid}/add/{pid}"),
        &[],
    )));
    assert_eq!(to, format!("/environments/{eid}/form/{pid}"));
    let (status, page) = html(d.dispatch(&PageRequest::get(&to)));
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Title &lt;b&gt;"), "texts escaped: {page}");
    // Inheritors of t.Storage, never t.Other; the first one's form nested.
    assert!(page.contains("value=\"new:t.Bucket\" selected"), "{page}");
    assert!(page.contains("value=\"new:t.Files\""), "{page}");
    assert!(!page.contains("new:t.Other"), "{page}");
    assert!(page.contains("name=\"storage.bucket\""), "{page}");
    assert!(page.contains("id=\"run_quick\""), "{page}");
    assert!(
        !page.contains("name=\"@quick.model\""),
        "the model argument is the form's"
    );
    // Choosing the files re-renders with their form and its defaults.
    let (_, page) = html(d.dispatch(&PageRequest::post(
        &to,
        &[
            ("__do", "refresh"),
            ("title", "T"),
            ("storage", "new:t.Files"),
            ("storage.?class", "t.Bucket"),
            ("storage.bucket", "old"),
        ],
    )));
    assert!(
        page.contains("name=\"storage.path\" id=\"id_storage.path\" value=\"/srv\""),
        "{page}"
    );
    assert!(!page.contains("name=\"storage.bucket\""), "{page}");
    // A missing nested value is an error tied to its field.
    let (status, page) = html(d.dispatch(&PageRequest::post(
        &to,
        &[
            ("__do", "save"),
            ("title", "T"),
            ("storage", "new:t.Bucket"),
        ],
    )));
    assert_eq!(status, 422, "{page}");
    assert!(
        page.contains("aria-describedby=\"err_storage.bucket\""),
        "{page}"
    );
    // Saved: the nested object in the model.
    redirect(d.dispatch(&PageRequest::post(
        &to,
        &[
            ("__do", "save"),
            ("title", "T"),
            ("storage", "new:t.Files"),
            ("storage.path", "/p"),
        ],
    )));
    let list = services(&d, &eid);
    let blog = &list[0];
    assert_eq!(blog["?"]["type"], "t.Blog", "{list}");
    assert_eq!(blog["title"], "T");
    assert_eq!(blog["storage"]["?"]["type"], "t.Files");
    assert_eq!(blog["storage"]["path"], "/p");
    assert_eq!(blog["backup"], Value::Null);
    // A second blog may point at the first's ... only not-owned fields
    // offer existing objects; a forged choice is refused.
    let (_, page) = html(d.dispatch(&PageRequest::get(&to)));
    assert!(
        !page.contains("ref:"),
        "no existing Storage in the environment: {page}"
    );
    let (status, _) = html(d.dispatch(&PageRequest::post(
        &to,
        &[("__do", "save"), ("title", "T"), ("storage", "new:t.Other")],
    )));
    assert_eq!(status, 422);
}

#[test]
fn a_model_builder_fills_the_form_and_editing_shows_current_values() {
    let (d, pid, eid) = blog_dashboard();
    let to = format!("/environments/{eid}/form/{pid}");
    let (status, page) = html(d.dispatch(&PageRequest::post(
        &to,
        &[
            ("__do", "build:quick"),
            ("@quick.name", "Built"),
            ("storage", "new:t.Files"),
        ],
    )));
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("id=\"built-model\""), "{page}");
    assert!(
        page.contains("name=\"title\" id=\"id_title\" value=\"Built\""),
        "{page}"
    );
    assert!(page.contains("value=\"new:t.Bucket\" selected"), "{page}");
    assert!(
        page.contains("name=\"storage.bucket\" id=\"id_storage.bucket\" value=\"b1\""),
        "{page}"
    );
    redirect(d.dispatch(&PageRequest::post(
        &to,
        &[
            ("__do", "save"),
            ("title", "Built"),
            ("storage", "new:t.Bucket"),
            ("storage.bucket", "b1"),
        ],
    )));
    let list = services(&d, &eid);
    let aid = list[0]["?"]["id"].as_str().unwrap().to_owned();
    let sid = list[0]["storage"]["?"]["id"].as_str().unwrap().to_owned();
    // Edit: the form of its class, filled; the nested object keeps its id.
    let edit = format!("/environments/{eid}/apps/{aid}/form");
    let (_, page) = html(d.dispatch(&PageRequest::get(&edit)));
    assert!(page.contains("value=\"Built\""), "{page}");
    assert!(page.contains(&format!("value=\"{sid}\"")), "{page}");
    redirect(d.dispatch(&PageRequest::post(
        &edit,
        &[
            ("__do", "save"),
            ("?id", &aid),
            ("title", "Renamed"),
            ("storage", "new:t.Bucket"),
            ("storage.?id", &sid),
            ("storage.bucket", "b2"),
        ],
    )));
    let list = services(&d, &eid);
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["title"], "Renamed");
    assert_eq!(list[0]["storage"]["bucket"], "b2");
    assert_eq!(list[0]["storage"]["?"]["id"], json!(sid));
    // An existing t.Files of the environment is offered to the not-owned
    // field only, and picking it stores its id.
    let ctx = local_context();
    let sid2 = crate::calls::open_session(&d.app, &ctx, &eid).unwrap();
    json_of(murano_api::handlers::services::post(
        &d.app,
        &api_req(
            &ctx,
            Some(&sid2),
            &[],
            Some(&json!({"?": {"type": "t.Files", "id": "f1"}, "path": "/x"})),
        ),
        &eid,
        None,
    ))
    .unwrap();
    let (_, page) = html(d.dispatch(&PageRequest::get(&to)));
    assert_eq!(page.matches("value=\"ref:f1\"").count(), 1, "{page}");
    let (status, _) = html(d.dispatch(&PageRequest::post(
        &to,
        &[
            ("__do", "save"),
            ("title", "Linked"),
            ("storage", "ref:f1"),
            ("backup", "ref:f1"),
        ],
    )));
    assert_eq!(status, 422, "an owned field takes no existing object");
    redirect(d.dispatch(&PageRequest::post(
        &to,
        &[("__do", "save"), ("title", "Linked"), ("storage", "ref:f1")],
    )));
    let list = services(&d, &eid);
    let linked = list
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Linked")
        .unwrap();
    assert_eq!(linked["storage"], "f1", "{list}");
}

#[test]
fn an_actions_arguments_are_a_form_from_its_contracts() {
    let (d, _, eid) = blog_dashboard();
    let desc = json!({"Objects": {"?": {"id": eid, "type": "io.murano.Environment"}, "services": [
        {"?": {"id": "b1", "type": "t.Blog/1.0.0@t.Blog", "_actions": {
            "b1_resize": {"name": "resize", "enabled": true}}}}]}});
    {
        let db = d.app.db();
        let set: murano_api::store::Row = [("description".to_owned(), desc)].into_iter().collect();
        db.update(
            "environment",
            &murano_api::store::key("id", eid.as_str()),
            &set,
        )
        .unwrap();
    }
    let (_, env) = html(d.dispatch(&PageRequest::get(&format!("/environments/{eid}"))));
    let url = format!("/environments/{eid}/actions/b1_resize");
    assert!(env.contains(&format!("href=\"{url}\"")), "{env}");
    let (status, page) = html(d.dispatch(&PageRequest::get(&url)));
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<label for=\"id_size\">New size"), "{page}");
    let (status, page) = html(d.dispatch(&PageRequest::post(
        &url,
        &[("__form", "1"), ("size", "big")],
    )));
    assert_eq!(status, 422, "{page}");
    assert!(page.contains("aria-describedby=\"err_size\""), "{page}");
    let task = redirect(d.dispatch(&PageRequest::post(&url, &[("__form", "1"), ("size", "3")])));
    assert!(task.contains("/tasks/"), "{task}");
    let (status, _) = html(d.dispatch(&PageRequest::get(&format!(
        "/environments/{eid}/actions/nope"
    ))));
    assert_eq!(status, 404);
}

#[test]
fn the_add_form_opens_the_class_named_in_its_address() {
    let (d, pid, eid) = blog_dashboard();
    let to = format!("/environments/{eid}/form/{pid}?class=t.Files");
    let (status, page) = html(d.dispatch(&PageRequest::get(&to)));
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("name=\"path\""), "{page}");
    assert!(!page.contains("name=\"title\""), "{page}");
    // It posts back to the same class.
    assert!(page.contains("?class=t.Files\""), "{page}");
    redirect(d.dispatch(&PageRequest::post(
        &to,
        &[("__do", "save"), ("path", "/data")],
    )));
    let list = services(&d, &eid);
    assert_eq!(list[0]["?"]["type"], "t.Files", "{list}");
    assert_eq!(list[0]["path"], "/data");
    // The environment's page shows the application's object model.
    let (_, env) = html(d.dispatch(&PageRequest::get(&format!("/environments/{eid}"))));
    assert!(env.contains("class=\"object-model\""), "{env}");
    assert!(env.contains("&quot;path&quot;: &quot;/data&quot;"), "{env}");
    // A class the package does not have: 404, named.
    let (status, page) = html(d.dispatch(&PageRequest::get(&format!(
        "/environments/{eid}/form/{pid}?class=t.Nothing"
    ))));
    assert_eq!(status, 404);
    assert!(page.contains("t.Nothing"), "{page}");
}
