//! Catalog packages already in the store: show, logo, supplier logo, UI
//! definition, download, JSON-patch update and delete (Murano's
//! `catalog.py` and `db/catalog/api.py`). Upload and search are not
//! served yet.

use serde_json::{json, Value};

use super::render;
use crate::app::{App, Outcome, Reply, Req};
use crate::clock;
use crate::fault::ApiError;
use crate::store::{key, unhex, Db, Row};

/// A package as `to_dict` shows it: no binary columns, with its category
/// and tag names and class names.
pub fn package_dict(db: &Db, p: &Row) -> Result<Value, ApiError> {
    let id = p["id"].as_str().unwrap_or("").to_owned();
    let links = db
        .package_links(Some(std::slice::from_ref(&id)))?
        .remove(&id)
        .unwrap_or_default();
    Ok(package_dict_with(p, links))
}

/// [`package_dict`] with the package's linked names already read (a
/// listing reads them for its whole page at once).
pub fn package_dict_with(p: &Row, links: crate::store::PackageLinks) -> Value {
    let mut d = render(
        "package",
        p,
        &["archive", "logo", "ui_definition", "supplier_logo"],
    );
    d["categories"] = Value::Array(links.categories);
    d["tags"] = Value::Array(links.tags);
    d["class_definitions"] = Value::Array(links.classes);
    d
}

fn linked_names(
    db: &Db,
    link: &str,
    col: &str,
    table: &str,
    pkg: &Value,
) -> Result<Vec<Value>, ApiError> {
    let mut out = Vec::new();
    for l in db.select(link, &key("package_id", pkg.clone()), "")? {
        if let Some(r) = db.get(table, l[col].as_str().unwrap_or(""))? {
            out.push(r["name"].clone());
        }
    }
    Ok(out)
}

/// Murano's `package_get`: 404, else 403 unless the package is the
/// tenant's or public (admins see all).
fn package_get(db: &Db, req: &Req, id: &str) -> Result<Row, ApiError> {
    let p = db
        .get("package", id)?
        .ok_or_else(|| ApiError::not_found(format!("Package id '{id}' not found")))?;
    if !req.ctx.is_admin {
        authorize(&p, req, true)?;
    }
    Ok(p)
}

fn authorize(p: &Row, req: &Req, allow_public: bool) -> Result<(), ApiError> {
    if p["owner_id"].as_str() == req.ctx.tenant.as_deref() {
        return Ok(());
    }
    let tenant = req.ctx.tenant.as_deref().unwrap_or("None");
    let id = p["id"].as_str().unwrap_or("");
    if !allow_public {
        return Err(ApiError::forbidden(format!(
            "Package '{id}' is not owned by tenant '{tenant}'"
        )));
    }
    if p["is_public"] != json!(true) {
        return Err(ApiError::forbidden(format!(
            "Package '{id}' is not public and not owned by tenant '{tenant}' "
        )));
    }
    Ok(())
}

/// Whether `Accept` admits `ctype` (absent, `*/*`, `type/*` or exact).
fn accepts(req: &Req, ctype: &str) -> Result<(), ApiError> {
    let Some(accept) = req.accept.as_deref().filter(|a| !a.trim().is_empty()) else {
        return Ok(());
    };
    let major = ctype.split('/').next().unwrap_or("");
    let ok = accept
        .split(',')
        .map(|a| a.split(';').next().unwrap_or("").trim())
        .any(|a| a == "*/*" || a == ctype || a.strip_suffix("/*") == Some(major));
    if ok {
        Ok(())
    } else {
        Err(ApiError::not_acceptable(accept))
    }
}

fn bytes_of(v: &Value) -> Vec<u8> {
    v.get("$hex")
        .and_then(Value::as_str)
        .map(unhex)
        .unwrap_or_default()
}

/// `GET /catalog/packages/{id}`.
pub fn show(app: &App, req: &Req, id: &str) -> Outcome {
    app.check("get_package", &req.ctx, json!({"package_id": id}))?;
    let db = app.db();
    let p = package_get(&db, req, id)?;
    Ok(Reply::Json(package_dict(&db, &p)?))
}

fn binary(app: &App, req: &Req, id: &str, col: &str, rule: Option<&str>) -> Outcome {
    accepts(req, "application/octet-stream")?;
    if let Some(rule) = rule {
        app.check(rule, &req.ctx, json!({"package_id": id}))?;
    }
    let db = app.db();
    let p = package_get(&db, req, id)?;
    Ok(Reply::Bytes("application/octet-stream", bytes_of(&p[col])))
}

/// `GET /catalog/packages/{id}/logo`.
pub fn logo(app: &App, req: &Req, id: &str) -> Outcome {
    binary(app, req, id, "logo", Some("get_package"))
}

/// `GET /catalog/packages/{id}/supplier_logo`.
pub fn supplier_logo(app: &App, req: &Req, id: &str) -> Outcome {
    binary(app, req, id, "supplier_logo", None)
}

/// `GET /catalog/packages/{id}/download`.
pub fn download(app: &App, req: &Req, id: &str) -> Outcome {
    binary(app, req, id, "archive", Some("download_package"))
}

/// `GET /catalog/packages/{id}/ui`.
pub fn ui(app: &App, req: &Req, id: &str) -> Outcome {
    accepts(req, "text/plain")?;
    app.check("get_package", &req.ctx, json!({"package_id": id}))?;
    let db = app.db();
    let p = package_get(&db, req, id)?;
    let text = p["ui_definition"]
        .as_str()
        .unwrap_or("")
        .as_bytes()
        .to_vec();
    Ok(Reply::Bytes("text/plain", text))
}

/// `DELETE /catalog/packages/{id}`.
pub fn delete(app: &App, req: &Req, id: &str) -> Outcome {
    let target = json!({"package_id": id});
    app.check("delete_package", &req.ctx, target.clone())?;
    let db = app.db();
    let p = package_get(&db, req, id)?;
    if p["is_public"] == json!(true) {
        app.check("manage_public_package", &req.ctx, target)?;
    }
    if !req.ctx.is_admin {
        authorize(&p, req, false)?;
    }
    db.transaction(|db| {
        remove_package(db, id)?;
        Ok::<_, ApiError>(())
    })?;
    Ok(Reply::Empty)
}

/// Remove package `id` and what hangs off it (its classes, links, and
/// the source `murano catalog import` recorded).
pub fn remove_package(db: &Db, id: &str) -> Result<(), ApiError> {
    for t in ["package_to_category", "package_to_tag", "class_definition"] {
        db.delete(t, &key("package_id", id))?;
    }
    db.delete("package", &key("id", id))?;
    db.connection()
        .execute("DELETE FROM package_source WHERE package_id = ?1", [id])
        .map_err(crate::store::StoreError::from)?;
    Ok(())
}

/// The id of the tag named `name`, created when missing.
fn tag_id(db: &Db, name: &str) -> Result<String, ApiError> {
    if let Some(t) = db.select("tag", &key("name", name), "")?.into_iter().next() {
        return Ok(t["id"].as_str().unwrap_or("").to_owned());
    }
    let id = clock::new_id();
    let now = clock::now();
    let row: Row = [
        ("id".to_owned(), json!(id)),
        ("name".to_owned(), json!(name)),
        ("created".to_owned(), json!(now)),
        ("updated".to_owned(), json!(now)),
    ]
    .into_iter()
    .collect();
    db.insert("tag", &row)?;
    Ok(id)
}

fn category_id(db: &Db, name: &str) -> Result<String, ApiError> {
    db.select("category", &key("name", name), "")?
        .into_iter()
        .next()
        .and_then(|c| c["id"].as_str().map(str::to_owned))
        .ok_or_else(|| ApiError::bad_request(format!("Category '{name}' doesn't exist")))
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str().map(str::to_owned))
        .collect()
}

fn link(db: &Db, pkg: &str, what: &str, name: &str) -> Result<(), ApiError> {
    let (table, col, id) = if what == "tags" {
        ("package_to_tag", "tag_id", tag_id(db, name)?)
    } else {
        ("package_to_category", "category_id", category_id(db, name)?)
    };
    let mut row = key("package_id", pkg);
    row.insert(col.into(), json!(id));
    if db.select(table, &row, "")?.is_empty() {
        db.insert(table, &row)?;
    }
    Ok(())
}

fn unlink(db: &Db, pkg: &str, what: &str, name: &str) -> Result<bool, ApiError> {
    let (table, col, src) = if what == "tags" {
        ("package_to_tag", "tag_id", "tag")
    } else {
        ("package_to_category", "category_id", "category")
    };
    for l in db.select(table, &key("package_id", pkg), "")? {
        if db
            .get(src, l[col].as_str().unwrap_or(""))?
            .is_some_and(|r| r["name"] == name)
        {
            db.delete(table, &l)?;
            return Ok(true);
        }
    }
    Ok(false)
}

/// `PATCH /catalog/packages/{id}` (`application/murano-packages-json-patch`).
pub fn update(app: &App, req: &Req, id: &str) -> Outcome {
    let body = req.required_json()?;
    app.check("modify_package", &req.ctx, json!({"package_id": id}))?;
    let db = app.db();
    let p = package_get(&db, req, id)?;
    if p["is_public"] == json!(true) {
        app.check("manage_public_package", &req.ctx, json!({}))?;
    }
    let ct = req.content_type.as_deref().unwrap_or("");
    if ct.split(';').next().map(str::trim) != Some("application/murano-packages-json-patch") {
        return Err(ApiError::plain(415));
    }
    let changes = body
        .as_array()
        .ok_or_else(|| {
            ApiError::bad_request("Request body must be a JSON array of operation objects.")
        })?
        .clone();
    let path_of = |c: &Value| -> String {
        match &c["path"] {
            Value::Array(a) => a.first().and_then(Value::as_str).unwrap_or("").to_owned(),
            Value::String(s) => s
                .trim_start_matches('/')
                .split('/')
                .next()
                .unwrap_or("")
                .to_owned(),
            _ => String::new(),
        }
    };
    for c in &changes {
        let path = path_of(c);
        if path == "is_public" && c["value"] == json!(true) && p["is_public"] != json!(true) {
            app.check("publicize_package", &req.ctx, json!({}))?;
        }
        if path == "name" && c["value"].as_str().is_some_and(|n| n.chars().count() > 80) {
            return Err(ApiError::bad_request(
                "Package name should be 80 characters maximum",
            ));
        }
    }
    if !req.ctx.is_admin {
        authorize(&p, req, false)?;
    }
    db.transaction(|db| {
        for c in &changes {
            let path = path_of(c);
            let op = c["op"].as_str().unwrap_or("");
            match (op, path.as_str()) {
                ("add", "tags" | "categories") => {
                    for n in names(&c["value"]) {
                        link(db, id, &path, &n)?;
                    }
                }
                ("remove", "tags" | "categories") => {
                    for n in names(&c["value"]) {
                        if !unlink(db, id, &path, &n)? {
                            return Err(ApiError::not_found(format!(
                                "Value '{n}' of property '{path}' does not exist."
                            )));
                        }
                    }
                }
                ("replace", "tags" | "categories") => {
                    let wanted = names(&c["value"]);
                    let table = if path == "tags" {
                        "package_to_tag"
                    } else {
                        "package_to_category"
                    };
                    let current: Vec<String> = linked_names(
                        db,
                        table,
                        if path == "tags" {
                            "tag_id"
                        } else {
                            "category_id"
                        },
                        if path == "tags" { "tag" } else { "category" },
                        &json!(id),
                    )?
                    .into_iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect();
                    for n in current.iter().filter(|n| !wanted.contains(n)) {
                        unlink(db, id, &path, n)?;
                    }
                    for n in wanted.iter().filter(|n| !current.contains(n)) {
                        link(db, id, &path, n)?;
                    }
                }
                ("replace", col @ ("name" | "description" | "is_public" | "enabled")) => {
                    let set: Row = [(col.to_owned(), c["value"].clone())].into_iter().collect();
                    db.update("package", &key("id", id), &set)?;
                }
                _ => return Err(ApiError::plain(400)),
            }
        }
        let set: Row = [("updated".to_owned(), json!(clock::now()))]
            .into_iter()
            .collect();
        db.update("package", &key("id", id), &set)?;
        Ok::<_, ApiError>(())
    })?;
    let p = db.get("package", id)?.ok_or_else(|| ApiError::plain(404))?;
    Ok(Reply::Json(package_dict(&db, &p)?))
}

fn meta_names(meta: &Value, key: &str) -> Vec<String> {
    names(meta.get(key).unwrap_or(&Value::Null))
}

/// Body types Murano's deserializer reads as JSON before its upload
/// controller sees them.
const JSON_BODY_TYPES: [&str; 3] = [
    "application/json",
    "application/murano-packages-json-patch",
    "application/env-model-json-patch",
];

/// `POST /catalog/packages`: a `multipart/form-data` body with the archive
/// and optional JSON metadata (`is_public`, `tags`, `categories`, ...).
pub fn upload(app: &App, req: &Req) -> Outcome {
    app.check("upload_package", &req.ctx, json!({}))?;
    let ct = req.content_type.as_deref().unwrap_or("");
    let media = ct.split(';').next().unwrap_or("").trim();
    // Murano deserializes the other body types it knows, then its
    // controller refuses them with a 400 (others get the 415 below).
    if JSON_BODY_TYPES.contains(&media) {
        req.json()?;
        return Err(ApiError::bad_request(
            "Content-Type must be 'multipart/form-data'",
        ));
    }
    let boundary = crate::upload::boundary(ct).ok_or_else(|| ApiError::plain(415))?;
    let parts = crate::upload::parse_multipart(&req.body, &boundary)
        .ok_or_else(|| ApiError::bad_request("Malformed multipart/form-data body"))?;
    if parts.len() > 2 {
        return Err(ApiError::bad_request(format!(
            "'multipart/form-data' request body should contain 1 or 2 parts: json string and zip archive. Current body consists of {} part(s)",
            parts.len()
        )));
    }
    let file = parts.iter().find(|p| p.filename.is_some()).ok_or_else(|| {
        ApiError::bad_request("There is no file package with application description")
    })?;
    let mut meta = json!({});
    for p in parts.iter().filter(|p| p.filename.is_none()) {
        // Murano's form deserializer keeps a part that is not JSON as
        // text, and only an object counts as the package's metadata.
        if let Ok(v @ Value::Object(_)) = serde_json::from_slice::<Value>(&p.content) {
            meta = v;
        }
    }
    if let Some(m) = meta.as_object().filter(|m| !m.is_empty()) {
        crate::upload_schema::validate(m).map_err(|reason| {
            ApiError::bad_request(format!("Package schema is not valid: {reason}"))
        })?;
    }
    if meta.get("is_public") == Some(&json!(true)) {
        app.check("publicize_package", &req.ctx, json!({}))?;
    }
    if file.content.is_empty() {
        return Err(ApiError::bad_request("Uploading file can't be empty"));
    }
    let pkg = app
        .loader
        .load(&file.content)
        .map_err(|e| ApiError::bad_request(format!("Couldn't load package from file: {e}")))?;
    let mut tags = pkg.tags.clone();
    for t in meta_names(&meta, "tags") {
        if !tags.contains(&t) {
            tags.push(t);
        }
    }
    let name = meta
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or(pkg.name.clone());
    let name = if pkg.name.is_empty() {
        name
    } else {
        pkg.name.clone()
    };
    if name.chars().count() > 80 {
        return Err(ApiError::bad_request(
            "Package name should be 80 characters maximum",
        ));
    }
    let db = app.db();
    let tenant = req.ctx.tenant.clone().unwrap_or_default();
    let mut k = key("fully_qualified_name", pkg.full_name.as_str());
    k.insert("owner_id".into(), json!(tenant));
    if !db.select("package", &k, "")?.is_empty() {
        return Err(ApiError::detail(
            409,
            "Package with specified full name is already registered",
        ));
    }
    let is_public = meta.get("is_public").cloned().unwrap_or(json!(false));
    let enabled = meta.get("enabled").cloned().unwrap_or(json!(true));
    let stored = NewPackage {
        archive: &file.content,
        loaded: &pkg,
        name: &name,
        owner: &tenant,
        is_public,
        enabled,
        tags: &tags,
        categories: &meta_names(&meta, "categories"),
    };
    let id = db.transaction(|db| insert_package(db, &stored))?;
    let p = db
        .get("package", &id)?
        .ok_or_else(|| ApiError::plain(404))?;
    Ok(Reply::Json(package_dict(&db, &p)?))
}

/// A package to store in the catalog: its archive and what was read from
/// it, with the catalog's settings.
#[derive(Debug)]
pub struct NewPackage<'a> {
    /// The zip archive.
    pub archive: &'a [u8],
    /// What the loader read from it.
    pub loaded: &'a crate::upload::LoadedPackage,
    /// The display name.
    pub name: &'a str,
    /// The owning tenant.
    pub owner: &'a str,
    /// `is_public` (JSON, as the upload's metadata gives it).
    pub is_public: Value,
    /// `enabled` (JSON).
    pub enabled: Value,
    /// Its tags.
    pub tags: &'a [String],
    /// Its categories (which must exist).
    pub categories: &'a [String],
}

/// Store `p` as a new package (its row, classes, tags and categories),
/// as an upload does; its id. Run it in a transaction.
pub fn insert_package(db: &Db, p: &NewPackage<'_>) -> Result<String, ApiError> {
    let pkg = p.loaded;
    let id = clock::new_id();
    let now = clock::now();
    let hexed = |b: &Option<Vec<u8>>| {
        b.as_ref()
            .map_or(Value::Null, |b| json!({"$hex": crate::store::hex(b)}))
    };
    let row: Row = [
        ("id", json!(id)),
        ("created", json!(now)),
        ("updated", json!(now)),
        ("fully_qualified_name", json!(pkg.full_name)),
        ("type", json!(pkg.package_type)),
        ("author", pkg.author.clone()),
        ("supplier", pkg.supplier.clone()),
        ("name", json!(p.name)),
        ("enabled", p.enabled.clone()),
        ("description", pkg.description.clone()),
        ("is_public", p.is_public.clone()),
        ("logo", hexed(&pkg.logo)),
        ("owner_id", json!(p.owner)),
        (
            "ui_definition",
            pkg.ui.clone().map_or(Value::Null, Value::String),
        ),
        ("supplier_logo", hexed(&pkg.supplier_logo)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    db.insert_with_blobs("package", &row, &[("archive", p.archive)])?;
    for c in &pkg.classes {
        let class: Row = [
            ("id".to_owned(), json!(clock::new_id())),
            ("name".to_owned(), json!(c)),
            ("package_id".to_owned(), json!(id)),
            ("created".to_owned(), json!(now)),
            ("updated".to_owned(), json!(now)),
        ]
        .into_iter()
        .collect();
        db.insert("class_definition", &class)?;
    }
    for t in p.tags {
        link(db, &id, "tags", t)?;
    }
    for c in p.categories {
        link(db, &id, "categories", c)?;
    }
    Ok(id)
}
