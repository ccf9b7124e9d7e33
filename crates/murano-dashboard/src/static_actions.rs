//! Static actions of a package's classes (public static methods, which
//! Murano's `POST /v1/actions` calls without an object): listed on the
//! package page, each with the form of its arguments (from the contracts
//! of its method), called through the API's static action controller,
//! its result shown below the form.

use murano_api::handlers::actions;
use murano_dsl::model::{ClassDefinition, MethodScope, MethodUsage};
use murano_packages::Package;
use murano_yaml::{load_class_file, LoadOptions};
use serde_json::{json, Value as Json};

use crate::action_form::{method_schema, posted_args, ArgsForm};
use crate::calls::{api_req, json_of, message, package_row};
use crate::catalog::archive_package;
use crate::html::{error_page, escape, page, url_encode, Section};
use crate::schema_form::fields::defaults;
use crate::{Dashboard, Page, PageRequest};

/// One static action: its class and method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticAction {
    /// The class's full name.
    pub class: String,
    /// The method's name.
    pub method: String,
}

/// The static actions `package`'s classes declare (`Usage: Static`,
/// `Scope: Public`), in class then declaration order. A class file that
/// does not read adds none.
pub fn declared(package: &dyn Package) -> Vec<StaticAction> {
    let mut out = Vec::new();
    for class in package.classes().unwrap_or_default() {
        let Ok(source) = package.get_class(&class) else {
            continue;
        };
        let Ok(file) = load_class_file(&source.bytes, &LoadOptions::default()) else {
            continue;
        };
        let defs = ClassDefinition::from_documents(&file.documents, None);
        let Some(def) = defs
            .iter()
            .find(|c| c.full_name.as_deref() == Some(class.as_str()))
        else {
            continue;
        };
        for m in &def.methods {
            if m.usage == MethodUsage::Static && m.scope == MethodScope::Public {
                out.push(StaticAction {
                    class: class.clone(),
                    method: m.name.clone(),
                });
            }
        }
    }
    out
}

/// The package page's list of static actions: a button per action that
/// opens its form.
pub fn section(pid: &str, listed: &[StaticAction]) -> String {
    if listed.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<h2 id=\"static-title\">Static actions</h2>\n<ul id=\"static-actions\" aria-labelledby=\"static-title\">\n",
    );
    for a in listed {
        out.push_str(&format!(
            "<li><form method=\"get\" action=\"{}\" class=\"inline\"><button type=\"submit\" class=\"static-action\">{}</button></form> <code>{}</code></li>\n",
            static_url(pid, a),
            escape(&a.method),
            escape(&a.class),
        ));
    }
    out.push_str("</ul>\n");
    out
}

fn static_url(pid: &str, a: &StaticAction) -> String {
    format!(
        "/catalog/{}/static/{}/{}",
        url_encode(pid),
        url_encode(&a.class),
        url_encode(&a.method)
    )
}

/// The package, its version and its static action `class`.`method`, or
/// the page saying why not.
fn find(
    d: &Dashboard,
    req: &PageRequest,
    pid: &str,
    class: &str,
    method: &str,
) -> Result<(String, String), Page> {
    let row = package_row(&d.app, &req.ctx, pid).map_err(|e| {
        Page::Html(
            e.status,
            error_page("Package not available", Section::Catalog, &message(&e)),
        )
    })?;
    let package = archive_package(&row["archive"]).ok_or_else(crate::not_found)?;
    let wanted = StaticAction {
        class: class.to_owned(),
        method: method.to_owned(),
    };
    if !declared(package.as_ref()).contains(&wanted) {
        return Err(crate::not_found());
    }
    Ok((
        package.full_name().to_owned(),
        package.version().to_string(),
    ))
}

fn form_page(
    pid: &str,
    a: &StaticAction,
    schema: &Json,
    posted: &crate::schema_form::clean::Posted,
    errors: &[(String, String)],
    after: &str,
) -> String {
    let title = format!("{}.{}", a.class, a.method);
    let back = format!("/catalog/{}", url_encode(pid));
    let form = ArgsForm {
        action: &static_url(pid, a),
        back: &back,
        back_label: "Back to the package",
        title: &title,
        schema,
    };
    page(
        &title,
        Section::Catalog,
        &form.render(posted, errors, after),
    )
}

/// `GET /catalog/{id}/static/{class}/{method}`: the form of the static
/// action's arguments with their defaults.
pub fn show(d: &Dashboard, req: &PageRequest, pid: &str, class: &str, method: &str) -> Page {
    if let Err(p) = find(d, req, pid, class, method) {
        return p;
    }
    let schema = match method_schema(d, req, class, method) {
        Ok(s) => s,
        Err(p) => return p,
    };
    let a = StaticAction {
        class: class.to_owned(),
        method: method.to_owned(),
    };
    Page::Html(
        200,
        form_page(pid, &a, &schema, &defaults(&schema), &[], ""),
    )
}

/// `POST /catalog/{id}/static/{class}/{method}`: check the arguments, call
/// the static action as `POST /v1/actions` does, show its result (or its
/// error) below the form.
pub fn call(d: &Dashboard, req: &PageRequest, pid: &str, class: &str, method: &str) -> Page {
    let (package, version) = match find(d, req, pid, class, method) {
        Ok(found) => found,
        Err(p) => return p,
    };
    let schema = match method_schema(d, req, class, method) {
        Ok(s) => s,
        Err(p) => return p,
    };
    let a = StaticAction {
        class: class.to_owned(),
        method: method.to_owned(),
    };
    let posted = posted_args(req);
    let args = match crate::schema_form::clean::clean(&schema, &posted) {
        Ok(args) => args,
        Err(errors) => {
            return Page::Html(422, form_page(pid, &a, &schema, &posted, &errors, ""));
        }
    };
    let body = json!({
        "className": class, "methodName": method, "packageName": package,
        "classVersion": format!("={version}"), "parameters": Json::Object(args),
    });
    let (status, after) = match json_of(actions::static_action(
        &d.app,
        &api_req(&req.ctx, None, &[], Some(&body)),
    )) {
        Ok(v) => (
            200,
            format!(
                "<h2>Result</h2>\n<p id=\"action-state\" class=\"status status-success\">The action succeeded</p>\n<pre id=\"action-result\" tabindex=\"0\">{}</pre>\n",
                escape(&serde_json::to_string_pretty(&v).unwrap_or_default())
            ),
        ),
        Err(e) => (
            e.status,
            format!(
                "<h2>Result</h2>\n<p id=\"action-state\" class=\"status status-failure\" role=\"alert\">The action failed</p>\n<pre id=\"action-result\" tabindex=\"0\">{}</pre>\n",
                escape(&message(&e))
            ),
        ),
    };
    Page::Html(status, form_page(pid, &a, &schema, &posted, &[], &after))
}
