//! Catalog categories: `/catalog/categories[/{id}]` (Murano's `catalog.py`
//! category actions and `db/catalog/api.py`).

use serde_json::{json, Value};

use super::render;
use crate::app::{App, Outcome, Reply, Req};
use crate::clock;
use crate::fault::ApiError;
use crate::store::{key, Db, Row, StoreError};

const SORT_KEYS: &[&str] = &["name", "created", "updated", "package_count", "id"];

/// Packages linked to a category: their id, name and full name.
fn packages_of(db: &Db, id: &str) -> Result<Vec<Value>, ApiError> {
    let mut out = Vec::new();
    for link in db.select("package_to_category", &key("category_id", id), "")? {
        if let Some(p) = db.get("package", link["package_id"].as_str().unwrap_or(""))? {
            out.push(json!({"id": p["id"], "name": p["name"], "fully_qualified_name": p["fully_qualified_name"]}));
        }
    }
    Ok(out)
}

fn category_dict(db: &Db, row: &Row) -> Result<Value, ApiError> {
    let mut d = render("category", row, &[]);
    let n = db
        .select(
            "package_to_category",
            &key("category_id", row["id"].clone()),
            "",
        )?
        .len();
    d["package_count"] = json!(n);
    Ok(d)
}

fn get_row(db: &Db, id: &str) -> Result<Row, ApiError> {
    db.get("category", id)?
        .ok_or_else(|| ApiError::detail(404, format!("Category id '{id}' not found")))
}

/// Murano's `_validate_limit`: absent, or a positive integer.
pub fn validate_limit(v: Option<&str>) -> Result<Option<usize>, ApiError> {
    let Some(v) = v else { return Ok(None) };
    let n: i64 = v
        .trim()
        .parse()
        .map_err(|_| ApiError::bad_request("Limit param must be an integer"))?;
    if n <= 0 {
        return Err(ApiError::bad_request("Limit param must be positive"));
    }
    Ok(Some(usize::try_from(n).unwrap_or(usize::MAX)))
}

/// `GET /catalog/categories` (`sort_keys`, `sort_dir`, `limit`, `marker`).
pub fn index(app: &App, req: &Req) -> Outcome {
    app.check("get_category", &req.ctx, json!({}))?;
    let mut sort_keys = vec!["name".to_owned()];
    let mut dir = "asc".to_owned();
    let (mut limit, mut marker) = (None, None);
    for (k, v) in &req.query {
        match k.as_str() {
            "sort_keys" => {
                sort_keys = v.split(',').map(|s| s.trim().to_owned()).collect();
                if let Some(bad) = sort_keys.iter().find(|k| !SORT_KEYS.contains(&k.as_str())) {
                    return Err(ApiError::bad_request(format!(
                        "Invalid sort key: {bad}. Must be one of the following: {}",
                        SORT_KEYS.join(", ")
                    )));
                }
            }
            "sort_dir" => {
                if v != "asc" && v != "desc" {
                    return Err(ApiError::bad_request(format!("Invalid sort direction: {v}")));
                }
                dir = v.clone();
            }
            "limit" => limit = Some(v.clone()),
            "marker" => marker = Some(v.clone()),
            other => {
                return Err(ApiError::detail(
                    400,
                    format!("Bad value passed to filter. Got {other}, expected:sort_keys, sort_dir, limit, marker"),
                ))
            }
        }
    }
    let limit = validate_limit(limit.as_deref())?;
    let db = app.db();
    let mut all = Vec::new();
    for row in db.select("category", &Row::new(), "")? {
        let mut d = category_dict(&db, &row)?;
        // Sort on the stored times (microseconds), not the rendered ones.
        for k in ["created", "updated"] {
            if let Some(t) = row.get(k) {
                d[format!("_{k}")] = t.clone();
            }
        }
        all.push(d);
    }
    let sort_keys: Vec<String> = sort_keys
        .into_iter()
        .map(|k| match k.as_str() {
            "created" | "updated" => format!("_{k}"),
            _ => k,
        })
        .collect();
    let cmp_key = |v: &Value, k: &str| match &v[k] {
        Value::Number(n) => format!("{:020}", n.as_u64().unwrap_or(0)),
        v => v.as_str().unwrap_or("").to_owned(),
    };
    all.sort_by(|a, b| {
        let ka: Vec<String> = sort_keys.iter().map(|k| cmp_key(a, k)).collect();
        let kb: Vec<String> = sort_keys.iter().map(|k| cmp_key(b, k)).collect();
        let o = ka.cmp(&kb);
        if dir == "desc" {
            o.reverse()
        } else {
            o
        }
    });
    if let Some(m) = marker {
        get_row(&db, &m)?;
        if let Some(i) = all.iter().position(|c| c["id"] == m.as_str()) {
            all.drain(..=i);
        }
    }
    for d in all.iter_mut().filter_map(Value::as_object_mut) {
        d.remove("_created");
        d.remove("_updated");
    }
    if let Some(l) = limit {
        all.truncate(l);
    }
    let mut result = json!({});
    if limit.is_some_and(|l| all.len() == l) {
        result["next_marker"] = all.last().map(|c| c["id"].clone()).unwrap_or(Value::Null);
    }
    result["categories"] = json!(all);
    Ok(Reply::Json(result))
}

/// `GET /catalog/categories/{id}`: with its packages.
pub fn show(app: &App, req: &Req, id: &str) -> Outcome {
    app.check("get_category", &req.ctx, json!({}))?;
    let db = app.db();
    let row = get_row(&db, id)?;
    let mut d = category_dict(&db, &row)?;
    d["packages"] = json!(packages_of(&db, id)?);
    Ok(Reply::Json(d))
}

/// `POST /catalog/categories`.
pub fn create(app: &App, req: &Req) -> Outcome {
    let body = req.json()?.unwrap_or(json!({}));
    app.check("add_category", &req.ctx, json!({}))?;
    let name = body.get("name").and_then(Value::as_str).unwrap_or("");
    if name.is_empty() {
        return Err(ApiError::bad_request(
            "Please, specify a name of the category to create",
        ));
    }
    if name.chars().count() > 80 {
        return Err(ApiError::bad_request(
            "Category name should be 80 characters maximum",
        ));
    }
    let now = clock::now();
    let row: Row = [
        ("id".to_owned(), json!(clock::new_id())),
        ("name".to_owned(), json!(name)),
        ("created".to_owned(), json!(now)),
        ("updated".to_owned(), json!(now)),
    ]
    .into_iter()
    .collect();
    let db = app.db();
    db.insert("category", &row).map_err(|e| match e {
        StoreError::Duplicate => {
            ApiError::new(409, "Category with specified name is already exist")
        }
        e => e.into(),
    })?;
    Ok(Reply::Json(category_dict(&db, &row)?))
}

/// `DELETE /catalog/categories/{id}`: refused while packages use it.
pub fn delete(app: &App, req: &Req, id: &str) -> Outcome {
    app.check("delete_category", &req.ctx, json!({"category_id": id}))?;
    let db = app.db();
    get_row(&db, id)?;
    if !packages_of(&db, id)?.is_empty() {
        return Err(ApiError::forbidden(
            "It's impossible to delete categories assigned to the package, uploaded to the catalog",
        ));
    }
    db.delete("category", &key("id", id))?;
    Ok(Reply::Empty)
}
