//! Pages rendered over an in-memory store: catalog, environments, the
//! wizard with an application-typed field (pick and create new), deploy,
//! actions, tenant isolation, escaping.

use std::sync::Arc;

use murano_api::engine::QueueOnlyEngine;
use murano_api::handlers::packages;
use murano_api::policy::Policy;
use murano_api::store::{key, Db};
use murano_api::upload::{LoadedPackage, PackageLoader};
use murano_api::{App, Limits};
use serde_json::{json, Value};

use crate::calls::{api_req, json_of};
use crate::{local_context, Dashboard, Page, PageRequest};

/// Reads a test "archive": the package's catalog entry as JSON.
pub(crate) struct JsonLoader;

impl PackageLoader for JsonLoader {
    fn load(&self, archive: &[u8]) -> Result<LoadedPackage, String> {
        let v: Value = serde_json::from_slice(archive).map_err(|e| e.to_string())?;
        let strings = |k: &str| -> Vec<String> {
            v[k].as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        Ok(LoadedPackage {
            full_name: v["fqn"].as_str().unwrap_or("").to_owned(),
            name: v["name"].as_str().unwrap_or("").to_owned(),
            package_type: v["type"].as_str().unwrap_or("Application").to_owned(),
            description: v["description"].clone(),
            author: json!("tests"),
            supplier: json!({}),
            tags: strings("tags"),
            classes: strings("classes"),
            logo: v["logo"].as_str().map(|s| s.as_bytes().to_vec()),
            supplier_logo: None,
            ui: v["ui"].as_str().map(str::to_owned),
        })
    }
}

/// A dashboard over an empty in-memory store.
pub(crate) fn dashboard() -> Dashboard {
    let app = App::new(
        Db::in_memory().unwrap(),
        Policy::default(),
        Arc::new(QueueOnlyEngine::default()),
        Limits::default(),
    )
    .with_loader(Arc::new(JsonLoader));
    Dashboard::new(Arc::new(app))
}

/// Imports a package described by `entry` as the local tenant; its id.
pub(crate) fn import(d: &Dashboard, entry: Value) -> String {
    let mut body =
        b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"p.zip\"\r\n\r\n"
            .to_vec();
    body.extend_from_slice(entry.to_string().as_bytes());
    body.extend_from_slice(b"\r\n--B--\r\n");
    let mut req = api_req(&local_context(), None, &[], None);
    req.body = body;
    req.content_type = Some("multipart/form-data; boundary=B".into());
    let p = json_of(packages::upload(&d.app, &req)).unwrap();
    p["id"].as_str().unwrap().to_owned()
}

const DB_UI: &str = "Version: 2.2\nApplication:\n  ?:\n    type: com.example.Db\n  size: $.main.size\nForms:\n  - main:\n      fields:\n        - name: size\n          type: integer\n          label: Size <GB>\n          initial: 10\n";
const WEB_UI: &str = "Version: 2.2\nApplication:\n  ?:\n    type: com.example.Web\n  database: $.main.database\nForms:\n  - main:\n      fields:\n        - name: database\n          type: com.example.Db\n          label: Database\n";

pub(crate) fn html(p: Page) -> (u16, String) {
    match p {
        Page::Html(s, h) => (s, h),
        other => panic!("not a page: {other:?}"),
    }
}

pub(crate) fn redirect(p: Page) -> String {
    match p {
        Page::Redirect(to) => to,
        Page::Html(s, h) => panic!("{s}: {h}"),
        other => panic!("{other:?}"),
    }
}

fn two_packages(d: &Dashboard) -> (String, String) {
    let db = import(
        d,
        json!({"fqn": "com.example.Db", "name": "Db <script>x</script>", "classes": ["com.example.Db"],
               "tags": ["SQL"], "description": "Stores & serves", "ui": DB_UI, "logo": "GIF89alogo"}),
    );
    let web = import(
        d,
        json!({"fqn": "com.example.Web", "name": "Web", "classes": ["com.example.Web"], "ui": WEB_UI}),
    );
    (db, web)
}

pub(crate) fn create_env(d: &Dashboard, name: &str) -> String {
    let to = redirect(d.dispatch(&PageRequest::post("/environments", &[("name", name)])));
    to.rsplit('/').next().unwrap().to_owned()
}

#[test]
fn the_catalog_lists_searches_and_escapes_package_texts() {
    let d = dashboard();
    two_packages(&d);
    let (status, page) = html(d.dispatch(&PageRequest::get("/catalog")));
    assert_eq!(status, 200);
    assert!(page.contains("2 packages"), "{page}");
    assert!(page.contains("Db &lt;script&gt;x&lt;/script&gt;"), "{page}");
    assert!(
        !page.contains("<script>x"),
        "package texts are escaped: {page}"
    );
    assert!(page.contains("Stores &amp; serves"), "{page}");
    assert!(page.contains("href=\"/catalog?tag=SQL\""), "{page}");
    let (_, found) = html(d.dispatch(&PageRequest::get("/catalog?search=web")));
    assert!(found.contains("1 package<"), "{found}");
    assert!(found.contains("data-fqn=\"com.example.Web\""), "{found}");
    let (_, tagged) = html(d.dispatch(&PageRequest::get("/catalog?tag=SQL")));
    assert!(
        tagged.contains("data-fqn=\"com.example.Db\"")
            && !tagged.contains("data-fqn=\"com.example.Web\""),
        "{tagged}"
    );
}

#[test]
fn a_package_page_shows_its_classes_and_where_to_add_it() {
    let d = dashboard();
    let (db, _) = two_packages(&d);
    create_env(&d, "prod");
    let (status, page) = html(d.dispatch(&PageRequest::get(&format!("/catalog/{db}"))));
    assert_eq!(status, 200);
    assert!(
        page.contains("<li><code>com.example.Db</code></li>"),
        "{page}"
    );
    assert!(page.contains(">Add to prod</button>"), "{page}");
    assert!(page.contains("id=\"ui-definition\""), "{page}");
    assert_eq!(d.dispatch(&PageRequest::get("/catalog/nope")), {
        let (s, _) = html(d.dispatch(&PageRequest::get("/catalog/nope")));
        assert_eq!(s, 404);
        d.dispatch(&PageRequest::get("/catalog/nope"))
    });
}

#[test]
fn logos_come_from_the_package_or_a_placeholder() {
    let d = dashboard();
    let (db, web) = two_packages(&d);
    match d.dispatch(&PageRequest::get(&format!("/catalog/{db}/logo"))) {
        Page::Bytes(ct, b) => {
            assert_eq!(ct, "image/gif");
            assert!(b.ends_with(b"logo"));
        }
        other => panic!("{other:?}"),
    }
    match d.dispatch(&PageRequest::get(&format!("/catalog/{web}/logo"))) {
        Page::Bytes(ct, b) => {
            assert_eq!(ct, "image/svg+xml");
            assert!(b.starts_with(b"<svg"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn environments_are_created_with_errors_tied_to_the_field_and_deleted() {
    let d = dashboard();
    let (status, page) = html(d.dispatch(&PageRequest::post("/environments", &[("name", "  ")])));
    assert_eq!(status, 400);
    assert!(
        page.contains("aria-describedby=\"err_name\" aria-invalid=\"true\""),
        "{page}"
    );
    assert!(
        page.contains("<ul class=\"errors\" id=\"err_name\"><li>Please, specify a name"),
        "{page}"
    );
    let eid = create_env(&d, "a <b> env");
    let (_, list) = html(d.dispatch(&PageRequest::get("/environments")));
    assert!(list.contains("a &lt;b&gt; env"), "{list}");
    let (_, shown) = html(d.dispatch(&PageRequest::get(&format!("/environments/{eid}"))));
    assert!(shown.contains("id=\"no-apps\""), "{shown}");
    assert!(
        !shown.contains("<script>"),
        "no script while nothing runs: {shown}"
    );
    // Never deployed: deleting removes it at once.
    redirect(d.dispatch(&PageRequest::post(
        &format!("/environments/{eid}/delete"),
        &[],
    )));
    let (_, list) = html(d.dispatch(&PageRequest::get("/environments")));
    assert!(list.contains("id=\"no-environments\""), "{list}");
}

/// The draft id of a wizard address.
fn draft_of(url: &str) -> String {
    url.split('/').nth(2).unwrap().to_owned()
}

#[test]
fn an_application_field_creates_its_application_and_returns_with_it_selected() {
    let d = dashboard();
    let (db, web) = two_packages(&d);
    let eid = create_env(&d, "shop");
    let step = redirect(d.dispatch(&PageRequest::post(
        &format!("/environments/{eid}/add/{web}"),
        &[],
    )));
    let (_, page) = html(d.dispatch(&PageRequest::get(&step)));
    assert!(
        page.contains("<option value=\"\" selected>Select Application</option>"),
        "{page}"
    );
    let new = format!("new:database:{db}");
    assert!(page.contains(&format!("value=\"{new}\"")), "{page}");
    assert!(page.contains("aria-describedby=\"new_database\""), "{page}");
    // An empty required field: the error is tied to it.
    let (status, invalid) = html(d.dispatch(&PageRequest::post(
        &step,
        &[("database", ""), ("__action", "next")],
    )));
    assert_eq!(status, 422);
    assert!(
        invalid.contains("aria-describedby=\"err_database new_database\" aria-invalid=\"true\""),
        "{invalid}"
    );
    // Create new: the Db wizard, then back with it selected.
    let child = redirect(d.dispatch(&PageRequest::post(
        &step,
        &[("database", ""), ("__action", &new)],
    )));
    assert_ne!(draft_of(&child), draft_of(&step));
    let (_, child_page) = html(d.dispatch(&PageRequest::get(&child)));
    assert!(child_page.contains("id=\"child-notice\""), "{child_page}");
    assert!(child_page.contains("Size &lt;GB&gt;"), "{child_page}");
    let mut back = redirect(d.dispatch(&PageRequest::post(
        &child,
        &[("size", "20"), ("__action", "next")],
    )));
    // Version 2.2 adds the management step (the application's name).
    if back.starts_with(&format!("/drafts/{}", draft_of(&child))) {
        back = redirect(d.dispatch(&PageRequest::post(
            &back,
            &[("application_name", "db1"), ("__action", "next")],
        )));
    }
    assert_eq!(back, step);
    let (_, returned) = html(d.dispatch(&PageRequest::get(&step)));
    let apps = crate::calls::json_of(murano_api::handlers::environments::show(
        &d.app,
        &api_req(
            &local_context(),
            crate::calls::existing_session(&d.app, &local_context(), &eid)
                .unwrap()
                .as_deref(),
            &[],
            None,
        ),
        &eid,
    ))
    .unwrap();
    let db_id = apps["services"][0]["?"]["id"].as_str().unwrap().to_owned();
    assert_eq!(apps["services"][0]["size"], 20);
    assert!(
        returned.contains(&format!("<option value=\"{db_id}\" selected>db1</option>")),
        "{returned}"
    );
    // Finish Web: its model references the Db by id.
    let mut next = redirect(d.dispatch(&PageRequest::post(
        &step,
        &[("database", &db_id), ("__action", "next")],
    )));
    if next.starts_with("/drafts/") {
        next = redirect(d.dispatch(&PageRequest::post(
            &next,
            &[("application_name", "web1"), ("__action", "next")],
        )));
    }
    assert_eq!(next, format!("/environments/{eid}"));
    let (_, env_page) = html(d.dispatch(&PageRequest::get(&next)));
    assert!(env_page.contains("id=\"pending\""), "{env_page}");
    assert!(
        env_page.contains("data-type=\"com.example.Web"),
        "{env_page}"
    );
    // Deploy: the deployment carries the model, and the page polls.
    redirect(d.dispatch(&PageRequest::post(
        &format!("/environments/{eid}/deploy"),
        &[],
    )));
    let deps = json_of(murano_api::handlers::deployments::index(
        &d.app,
        &api_req(&local_context(), None, &[], None),
        Some(&eid),
    ))
    .unwrap();
    let services = &deps["deployments"][0]["description"]["services"];
    let web_model = services
        .as_array()
        .unwrap()
        .iter()
        .find(|s| {
            s["?"]["type"]
                .as_str()
                .unwrap()
                .starts_with("com.example.Web")
        })
        .unwrap();
    assert_eq!(web_model["database"], json!(db_id));
    let (_, running) = html(d.dispatch(&PageRequest::get(&next)));
    assert!(running.contains("id=\"live\""), "{running}");
    assert!(running.contains("<script>"), "{running}");
    assert!(
        running.contains("data-type=\"com.example.Web"),
        "the running deployment's model: {running}"
    );
    assert!(running.contains("Action deploy is scheduled"), "{running}");
}

#[test]
fn cancel_returns_and_drafts_are_the_tenants_own() {
    let d = dashboard();
    let (_, web) = two_packages(&d);
    let eid = create_env(&d, "shop");
    let step = redirect(d.dispatch(&PageRequest::post(
        &format!("/environments/{eid}/add/{web}"),
        &[],
    )));
    let mut other = PageRequest::get(&step);
    other.ctx.tenant = Some("someone-else".into());
    assert_eq!(html(d.dispatch(&other)).0, 404);
    let mut env_other = PageRequest::get(&format!("/environments/{eid}"));
    env_other.ctx.tenant = Some("someone-else".into());
    assert_eq!(html(d.dispatch(&env_other)).0, 403);
    let to = redirect(d.dispatch(&PageRequest::post(&step, &[("__action", "cancel")])));
    assert_eq!(to, format!("/environments/{eid}"));
    assert_eq!(html(d.dispatch(&PageRequest::get(&step))).0, 404);
}

#[test]
fn deployed_actions_are_buttons_and_their_results_show() {
    let d = dashboard();
    let eid = create_env(&d, "acts");
    let desc = json!({"Objects": {"?": {"id": eid, "type": "io.murano.Environment"}, "services": [
        {"?": {"id": "app1", "type": "com.example.Web", "_actions": {
            "app1_restart": {"name": "restart", "title": "Restart <now>", "enabled": true}}},
         "name": "web"}]}});
    {
        let db = d.app.db();
        let set: murano_api::store::Row = [("description".to_owned(), desc)].into_iter().collect();
        db.update("environment", &key("id", eid.as_str()), &set)
            .unwrap();
    }
    let (_, page) = html(d.dispatch(&PageRequest::get(&format!("/environments/{eid}"))));
    assert!(
        page.contains("action=\"/environments/") && page.contains("/actions/app1_restart\""),
        "{page}"
    );
    assert!(page.contains(">Run Restart &lt;now&gt;</button>"), "{page}");
    assert!(page.contains("<label for=\"args_app1_restart\">"), "{page}");
    let bad = d.dispatch(&PageRequest::post(
        &format!("/environments/{eid}/actions/app1_restart"),
        &[("args", "[1]")],
    ));
    assert_eq!(html(bad).0, 400);
    let task = redirect(d.dispatch(&PageRequest::post(
        &format!("/environments/{eid}/actions/app1_restart"),
        &[("args", "{\"delay\": 1}")],
    )));
    let (_, waiting) = html(d.dispatch(&PageRequest::get(&task)));
    assert!(waiting.contains("The action runs"), "{waiting}");
    let tid = task.rsplit('/').next().unwrap();
    {
        let db = d.app.db();
        let set: murano_api::store::Row = [(
            "result".to_owned(),
            json!({"isException": false, "result": "<done>"}),
        )]
        .into_iter()
        .collect();
        db.update("task", &key("id", tid), &set).unwrap();
    }
    let (_, done) = html(d.dispatch(&PageRequest::get(&task)));
    assert!(done.contains("The action succeeded"), "{done}");
    assert!(done.contains("&quot;&lt;done&gt;&quot;"), "{done}");
}

#[test]
fn unknown_pages_are_not_found_and_the_root_goes_to_the_catalog() {
    let d = dashboard();
    assert_eq!(
        d.dispatch(&PageRequest::get("/")),
        Page::Redirect("/catalog".into())
    );
    assert_eq!(html(d.dispatch(&PageRequest::get("/nothing/here"))).0, 404);
    assert_eq!(
        html(d.dispatch(&PageRequest::get("/drafts/x/step/y"))).0,
        404
    );
    assert!(matches!(
        d.dispatch(&PageRequest::get("/style.css")),
        Page::Bytes("text/css; charset=utf-8", _)
    ));
}

/// Adds package `pid` to `eid` through its wizard with `values` and the
/// application name `name`; the new application's id.
fn add(d: &Dashboard, eid: &str, pid: &str, values: &[(&str, &str)], name: &str) -> String {
    let mut at = redirect(d.dispatch(&PageRequest::post(
        &format!("/environments/{eid}/add/{pid}"),
        &[],
    )));
    while at.starts_with("/drafts/") {
        let mut form: Vec<(&str, &str)> = values.to_vec();
        form.push(("application_name", name));
        form.push(("__action", "next"));
        at = redirect(d.dispatch(&PageRequest::post(&at, &form)));
    }
    let sid = crate::calls::existing_session(&d.app, &local_context(), eid).unwrap();
    let env = json_of(murano_api::handlers::environments::show(
        &d.app,
        &api_req(&local_context(), sid.as_deref(), &[], None),
        eid,
    ))
    .unwrap();
    env["services"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["?"]["name"] == name)
        .map(|s| s["?"]["id"].as_str().unwrap().to_owned())
        .unwrap()
}

#[test]
fn an_application_is_edited_with_its_current_values() {
    let d = dashboard();
    let (db, web) = two_packages(&d);
    let eid = create_env(&d, "edit");
    let db_id = add(&d, &eid, &db, &[("size", "20")], "db1");
    let other = add(&d, &eid, &db, &[("size", "5")], "db2");
    let web_id = add(&d, &eid, &web, &[("database", &db_id)], "web1");
    let (_, env_page) = html(d.dispatch(&PageRequest::get(&format!("/environments/{eid}"))));
    assert!(
        env_page.contains(&format!("/apps/{web_id}/edit\"")),
        "{env_page}"
    );
    // A reference is a select of the other applications, the current one chosen.
    let (_, web_edit) = html(d.dispatch(&PageRequest::get(&format!(
        "/environments/{eid}/apps/{web_id}/edit"
    ))));
    assert!(
        web_edit.contains(&format!(
            "<option value=\"{db_id}\" selected>db1 (com.example.Db"
        )),
        "{web_edit}"
    );
    assert!(
        web_edit.contains("<label for=\"id_database\">database</label>"),
        "{web_edit}"
    );
    let edit = format!("/environments/{eid}/apps/{db_id}/edit");
    let (_, db_edit) = html(d.dispatch(&PageRequest::get(&edit)));
    assert!(
        db_edit.contains("name=\"size\" id=\"id_size\" value=\"20\""),
        "{db_edit}"
    );
    // A number that is not one: the error is tied to its field, the value kept.
    let (status, bad) = html(d.dispatch(&PageRequest::post(&edit, &[("size", "big")])));
    assert_eq!(status, 400);
    assert!(
        bad.contains("aria-describedby=\"err_size\" aria-invalid=\"true\""),
        "{bad}"
    );
    assert!(bad.contains("value=\"big\""), "{bad}");
    redirect(d.dispatch(&PageRequest::post(&edit, &[("size", "30")])));
    redirect(d.dispatch(&PageRequest::post(
        &format!("/environments/{eid}/apps/{web_id}/edit"),
        &[("database", &other)],
    )));
    let sid = crate::calls::existing_session(&d.app, &local_context(), &eid).unwrap();
    let model = json_of(murano_api::handlers::services::get(
        &d.app,
        &api_req(&local_context(), sid.as_deref(), &[], None),
        &eid,
        None,
    ))
    .unwrap();
    let find = |id: &str| {
        model
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["?"]["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(find(&db_id)["size"], 30);
    assert_eq!(find(&web_id)["database"], json!(other));
}

#[test]
fn a_deployment_shows_the_heat_templates_and_agent_plans_it_sent() {
    let d = dashboard();
    let eid = create_env(&d, "sent");
    let t = "2020-01-01T00:00:00.000000";
    for tid in ["kept", "older"] {
        let task: murano_api::store::Row = json!({"id": tid, "environment_id": eid,
            "created": t, "updated": t, "started": t, "finished": t,
            "description": {"Objects": null}, "result": {}})
        .as_object()
        .unwrap()
        .clone();
        d.app.db().insert("task", &task).unwrap();
    }
    let sent = murano_api::store::TaskArtifacts {
        heat: vec![
            json!({"op": "push", "stack": "murano-<env>", "region": null,
                "template": {"resources": {"vm": {"type": "OS::Nova::Server",
                    "properties": {"name": "</pre><script>x</script>"}}}},
                "parameters": {}, "files": {}, "environment": ""}),
            json!({"op": "delete", "stack": "old", "region": "r1"}),
            json!({"omitted": 3}),
        ],
        agent_plans: vec![
            json!({"queue": "e1-agent", "host": "vm-1", "wait_results": true,
            "plan": {"Body": "return deploy(args.x)", "Parameters": {"x": "<b>"}}}),
        ],
    };
    d.app.db().set_task_artifacts("kept", &eid, &sent).unwrap();
    let (status, page) = html(d.dispatch(&PageRequest::get(&format!(
        "/environments/{eid}/deployments/kept"
    ))));
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<h3>Heat templates (2)</h3>"), "{page}");
    assert!(
        page.contains("1. push of stack murano-&lt;env&gt; (region )"),
        "{page}"
    );
    assert!(page.contains("OS::Nova::Server"), "{page}");
    assert!(
        page.contains("&lt;/pre&gt;&lt;script&gt;x&lt;/script&gt;") && !page.contains("<script>x"),
        "templates are escaped: {page}"
    );
    assert!(page.contains("data-op=\"delete\""), "{page}");
    assert!(
        page.contains("3 more Heat operations were not kept"),
        "{page}"
    );
    assert!(page.contains("<h3>Agent plans (1)</h3>"), "{page}");
    assert!(
        page.contains("To vm-1 (queue e1-agent), waiting for the result"),
        "{page}"
    );
    assert!(page.contains("return deploy(args.x)"), "{page}");
    assert!(page.contains("&quot;&lt;b&gt;&quot;"), "{page}");
    assert!(!page.contains("id=\"not-kept\""), "{page}");
    // A deployment with no record says so instead.
    let (_, older) = html(d.dispatch(&PageRequest::get(&format!(
        "/environments/{eid}/deployments/older"
    ))));
    assert!(older.contains("id=\"not-kept\""), "{older}");
    assert!(!older.contains("class=\"agent_plans\""), "{older}");
}
