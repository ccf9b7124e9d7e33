//! The catalog: packages with logos, categories, tags and search, and a
//! package's page (description, classes, requirements, versions, its UI
//! definition, and the environments to add it to).

use murano_api::handlers::{categories, environments as envs, package_search, packages};
use murano_packages::archive::ArchiveLimits;
use murano_packages::source::FileMap;
use murano_packages::{Package, PluginRegistry};
use serde_json::Value;

use crate::calls::{api_req, json_of, message};
use crate::html::{escape, escape_lines, page, url_encode, Section};
use crate::{Dashboard, Page, PageRequest};

/// How many packages one catalog page lists.
pub const PAGE_SIZE: usize = 100;

/// A JSON value as display text (strings bare, null empty).
pub fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(text).collect())
        .unwrap_or_default()
}

/// The search form: text, category, tag and type, all labelled.
fn search_form(req: &PageRequest, categories: &[String]) -> String {
    let value = |k: &str| escape(req.param(k).unwrap_or(""));
    let mut out = String::from(
        "<form method=\"get\" action=\"/catalog\" role=\"search\" class=\"search\">\n<div class=\"columns\">\n",
    );
    out.push_str(&format!(
        "<div class=\"field left\"><label for=\"id_search\">Search</label>\n\
         <input type=\"search\" name=\"search\" id=\"id_search\" value=\"{}\"></div>\n",
        value("search")
    ));
    out.push_str("<div class=\"field right\"><label for=\"id_category\">Category</label>\n<select name=\"category\" id=\"id_category\">\n<option value=\"\">All categories</option>\n");
    for c in categories {
        let sel = if req.param("category") == Some(c.as_str()) {
            " selected"
        } else {
            ""
        };
        out.push_str(&format!(
            "<option value=\"{0}\"{sel}>{0}</option>\n",
            escape(c)
        ));
    }
    out.push_str("</select></div>\n");
    out.push_str(&format!(
        "<div class=\"field right\"><label for=\"id_tag\">Tag</label>\n\
         <input type=\"text\" name=\"tag\" id=\"id_tag\" value=\"{}\"></div>\n",
        value("tag")
    ));
    out.push_str("<div class=\"field right\"><label for=\"id_type\">Type</label>\n<select name=\"type\" id=\"id_type\">\n");
    for (v, l) in [
        ("", "All types"),
        ("Application", "Applications"),
        ("Library", "Libraries"),
    ] {
        let sel = if req.param("type").unwrap_or("") == v {
            " selected"
        } else {
            ""
        };
        out.push_str(&format!("<option value=\"{v}\"{sel}>{l}</option>\n"));
    }
    out.push_str("</select></div>\n</div>\n<div class=\"buttons\"><button type=\"submit\" class=\"primary\">Search</button> <a href=\"/catalog\">Clear</a></div>\n</form>\n");
    out
}

/// One package of the list.
fn package_item(p: &Value) -> String {
    let id = text(&p["id"]);
    let mut out = format!(
        "<li data-fqn=\"{}\"><img class=\"logo\" src=\"/catalog/{}/logo\" alt=\"\">\n<div>\n\
         <a href=\"/catalog/{}\"><strong>{}</strong></a><br>\n<span class=\"muted\">{}</span>\n",
        escape(&text(&p["fully_qualified_name"])),
        url_encode(&id),
        url_encode(&id),
        escape(&text(&p["name"])),
        escape(&text(&p["fully_qualified_name"])),
    );
    let desc = text(&p["description"]);
    if !desc.is_empty() {
        let short: String = desc.chars().take(160).collect();
        let more = if short.len() < desc.len() { "…" } else { "" };
        out.push_str(&format!("<p>{}{more}</p>\n", escape(&short)));
    }
    let cats = names(&p["categories"]);
    if !cats.is_empty() {
        out.push_str(&format!(
            "<p class=\"muted\">Categories: {}</p>\n",
            escape(&cats.join(", "))
        ));
    }
    let tags = names(&p["tags"]);
    if !tags.is_empty() {
        out.push_str("<p class=\"tags\">");
        for t in tags {
            out.push_str(&format!(
                "<a class=\"tag\" href=\"/catalog?tag={}\">{}</a> ",
                url_encode(&t),
                escape(&t)
            ));
        }
        out.push_str("</p>\n");
    }
    out.push_str("</div></li>\n");
    out
}

/// `GET /catalog`: the packages the user may see, filtered.
pub fn list(d: &Dashboard, req: &PageRequest) -> Page {
    let mut query: Vec<(&str, &str)> = vec![("catalog", "true")];
    let limit = PAGE_SIZE.to_string();
    query.push(("limit", &limit));
    for k in ["search", "category", "tag", "type", "marker"] {
        if let Some(v) = req.param(k).filter(|v| !v.is_empty()) {
            query.push((k, v));
        }
    }
    let result = json_of(package_search::search(
        &d.app,
        &api_req(&req.ctx, None, &query, None),
    ));
    let cats: Vec<String> = json_of(categories::index(
        &d.app,
        &api_req(&req.ctx, None, &[], None),
    ))
    .map(|c| {
        c["categories"]
            .as_array()
            .map(|a| a.iter().map(|c| text(&c["name"])).collect())
            .unwrap_or_default()
    })
    .unwrap_or_default();
    let mut body = String::from("<h1>Catalog</h1>\n");
    body.push_str(&search_form(req, &cats));
    let result = match result {
        Ok(r) => r,
        Err(e) => {
            body.push_str(&format!(
                "<div class=\"alert\" role=\"alert\">{}</div>\n",
                escape(&message(&e))
            ));
            return Page::Html(e.status, page("Catalog", Section::Catalog, &body));
        }
    };
    let pkgs = result["packages"].as_array().cloned().unwrap_or_default();
    body.push_str(&format!(
        "<h2 id=\"results\">{} package{}</h2>\n",
        pkgs.len(),
        if pkgs.len() == 1 { "" } else { "s" }
    ));
    if pkgs.is_empty() {
        body.push_str("<p>No package matches. Import packages with the API (<code>murano package-import</code> against this server).</p>\n");
    } else {
        body.push_str("<ul class=\"packages\" aria-labelledby=\"results\">\n");
        for p in &pkgs {
            body.push_str(&package_item(p));
        }
        body.push_str("</ul>\n");
    }
    if let Some(marker) = result["next_marker"].as_str() {
        let mut q: Vec<String> = req
            .query
            .iter()
            .filter(|(k, _)| k != "marker")
            .map(|(k, v)| format!("{}={}", url_encode(k), url_encode(v)))
            .collect();
        q.push(format!("marker={}", url_encode(marker)));
        body.push_str(&format!(
            "<p><a href=\"/catalog?{}\" id=\"next-page\">Next page</a></p>\n",
            escape(&q.join("&"))
        ));
    }
    Page::Html(200, page("Catalog", Section::Catalog, &body))
}

/// What a package's archive tells beyond its catalog row.
#[derive(Debug, Default)]
struct ArchiveFacts {
    version: String,
    format: String,
    requirements: Vec<(String, String)>,
}

/// The package in archive `archive` (a `$hex` column), if it reads.
pub fn archive_package(archive: &Value) -> Option<Box<dyn Package + Send + Sync>> {
    let bytes = archive
        .get("$hex")
        .and_then(Value::as_str)
        .map(murano_api::store::unhex)?;
    let files = FileMap::from_zip(&bytes, &ArchiveLimits::default()).ok()?;
    PluginRegistry::with_builtins().load(files).ok()
}

fn archive_facts(archive: &Value) -> Option<ArchiveFacts> {
    facts_of(archive_package(archive)?.as_ref())
}

fn facts_of(pkg: &dyn Package) -> Option<ArchiveFacts> {
    let mut requirements = Vec::new();
    if let murano_yaml::Value::Map(m) = &pkg.requirements().value {
        for (k, v) in m.iter() {
            requirements.push((k.value.python_str(), v.value.python_str()));
        }
    }
    Some(ArchiveFacts {
        version: pkg.version().to_string(),
        format: pkg.format_name().to_owned(),
        requirements,
    })
}

/// The version of the package archive `archive` (a `$hex` column).
pub fn archive_version(archive: &Value) -> Option<String> {
    archive_facts(archive).map(|f| f.version)
}

/// `GET /catalog/{id}`: one package.
pub fn show(d: &Dashboard, req: &PageRequest, pid: &str) -> Page {
    let p = match json_of(packages::show(
        &d.app,
        &api_req(&req.ctx, None, &[], None),
        pid,
    )) {
        Ok(p) => p,
        Err(e) => {
            return Page::Html(
                e.status,
                crate::html::error_page("Package not available", Section::Catalog, &message(&e)),
            )
        }
    };
    let row = crate::calls::package_row(&d.app, &req.ctx, pid).ok();
    let package = row.as_ref().and_then(|r| archive_package(&r["archive"]));
    let facts = package
        .as_deref()
        .and_then(|p| facts_of(p))
        .unwrap_or_default();
    let static_actions = package
        .as_deref()
        .map(|p| crate::static_actions::declared(p))
        .unwrap_or_default();
    let name = text(&p["name"]);
    let fqn = text(&p["fully_qualified_name"]);
    let mut body = format!(
        "<div class=\"columns\"><div class=\"left\">\n<h1><img class=\"logo\" src=\"/catalog/{}/logo\" alt=\"\"> {}</h1>\n\
         <p class=\"muted\" id=\"fqn\">{}</p>\n<p id=\"description\">{}</p>\n",
        url_encode(pid),
        escape(&name),
        escape(&fqn),
        escape_lines(&text(&p["description"]))
    );
    body.push_str("<dl>\n");
    let mut dt = |k: &str, v: &str| {
        if !v.is_empty() {
            body.push_str(&format!("<dt>{k}</dt><dd>{}</dd>\n", escape(v)));
        }
    };
    dt("Type", &text(&p["type"]));
    dt("Format", &facts.format);
    dt("Author", &text(&p["author"]));
    dt("Categories", &names(&p["categories"]).join(", "));
    dt("Tags", &names(&p["tags"]).join(", "));
    dt(
        "Public",
        if p["is_public"] == Value::Bool(true) {
            "yes"
        } else {
            "no"
        },
    );
    body.push_str("</dl>\n<h2>Versions</h2>\n<ul id=\"versions\">\n");
    // Every package of this name the user may see (one per owner).
    let mut versions = Vec::new();
    let same_name = d
        .app
        .db()
        .select_columns(
            "package",
            &murano_api::store::key("fully_qualified_name", fqn.as_str()),
            &["id", "is_public", "owner_id"],
            "",
        )
        .unwrap_or_default();
    {
        let visible = same_name.iter().filter(|p| {
            req.ctx.is_admin
                || p["is_public"] == Value::Bool(true)
                || p["owner_id"].as_str() == req.ctx.tenant.as_deref()
        });
        for other in visible {
            let oid = text(&other["id"]);
            let version = if oid == pid {
                facts.version.clone()
            } else {
                crate::calls::package_row(&d.app, &req.ctx, &oid)
                    .ok()
                    .and_then(|r| archive_version(&r["archive"]))
                    .unwrap_or_default()
            };
            versions.push((oid, version));
        }
    }
    for (oid, v) in &versions {
        let v = if v.is_empty() { "unknown" } else { v.as_str() };
        if oid == pid {
            body.push_str(&format!(
                "<li aria-current=\"true\">{} (this one)</li>\n",
                escape(v)
            ));
        } else {
            body.push_str(&format!(
                "<li><a href=\"/catalog/{}\">{}</a></li>\n",
                url_encode(oid),
                escape(v)
            ));
        }
    }
    body.push_str("</ul>\n<h2>Classes</h2>\n<ul id=\"classes\">\n");
    for c in names(&p["class_definitions"]) {
        body.push_str(&format!("<li><code>{}</code></li>\n", escape(&c)));
    }
    body.push_str("</ul>\n<h2>Requirements</h2>\n");
    if facts.requirements.is_empty() {
        body.push_str("<p id=\"requirements\">None.</p>\n");
    } else {
        body.push_str("<ul id=\"requirements\">\n");
        for (k, v) in &facts.requirements {
            body.push_str(&format!(
                "<li><code>{}</code> {}</li>\n",
                escape(k),
                escape(v)
            ));
        }
        body.push_str("</ul>\n");
    }
    body.push_str(&crate::static_actions::section(pid, &static_actions));
    body.push_str("</div>\n<div class=\"right\">\n<h2>Add to an environment</h2>\n");
    let has_ui = row.as_ref().is_some_and(|r| r["ui_definition"].is_string());
    if text(&p["type"]) != "Application" {
        body.push_str("<p>A library: applications use it; it is not added on its own.</p>\n");
    } else if !has_ui {
        body.push_str("<p>This package has no UI definition.</p>\n");
    } else {
        let envs = json_of(envs::index(&d.app, &api_req(&req.ctx, None, &[], None)))
            .ok()
            .and_then(|v| v["environments"].as_array().cloned())
            .unwrap_or_default();
        if envs.is_empty() {
            body.push_str("<p>No environment yet: <a href=\"/environments\">create one</a>.</p>\n");
        }
        for e in envs {
            body.push_str(&format!(
                "<form method=\"post\" action=\"/environments/{}/add/{}\" class=\"inline\">\
                 <button type=\"submit\" class=\"add-to\">Add to {}</button></form>\n",
                url_encode(&text(&e["id"])),
                url_encode(pid),
                escape(&text(&e["name"]))
            ));
        }
    }
    if let Some(ui) = row.as_ref().and_then(|r| r["ui_definition"].as_str()) {
        body.push_str(&format!(
            "<details><summary>UI definition</summary>\n<pre id=\"ui-definition\" tabindex=\"0\">{}</pre></details>\n",
            escape(ui)
        ));
    }
    body.push_str("</div></div>\n");
    Page::Html(200, page(&name, Section::Catalog, &body))
}

/// A placeholder logo for packages that have none.
const NO_LOGO: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"48\" height=\"48\"><rect width=\"48\" height=\"48\" rx=\"6\" fill=\"#e7e9ed\"/></svg>";

/// The content type of image bytes, by their signature.
pub fn image_type(bytes: &[u8]) -> &'static str {
    if bytes.starts_with(b"\x89PNG") {
        "image/png"
    } else if bytes.starts_with(b"\xff\xd8") {
        "image/jpeg"
    } else if bytes.starts_with(b"GIF8") {
        "image/gif"
    } else if bytes.windows(4).take(512).any(|w| w == b"<svg") {
        "image/svg+xml"
    } else {
        "application/octet-stream"
    }
}

/// `GET /catalog/{id}/logo`: the package's logo, or a placeholder.
pub fn logo(d: &Dashboard, req: &PageRequest, pid: &str) -> Page {
    let mut r = api_req(&req.ctx, None, &[], None);
    r.accept = Some("application/octet-stream".into());
    match packages::logo(&d.app, &r, pid) {
        Ok(murano_api::app::Reply::Bytes(_, b)) if !b.is_empty() => Page::Bytes(image_type(&b), b),
        _ => Page::Bytes("image/svg+xml", NO_LOGO.as_bytes().to_vec()),
    }
}
