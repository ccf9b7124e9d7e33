//! `GET /catalog/packages` as SQL answers it: pages walked by `marker`
//! give the whole listing in the order a plain sort of the rows gives
//! (ties, missing names, both directions), tenants see only their own and
//! public packages, and a server over a file answers from its read-only
//! connections with every committed write.

use std::sync::Arc;

use murano_api::app::{Reply, Req};
use murano_api::context::RequestContext;
use murano_api::engine::QueueOnlyEngine;
use murano_api::handlers::package_search::search;
use murano_api::policy::Policy;
use murano_api::store::{Db, Row};
use murano_api::{App, Limits};
use serde_json::{json, Value};

fn app(db: Db) -> App {
    App::new(
        db,
        Policy::default(),
        Arc::new(QueueOnlyEngine::default()),
        Limits::default(),
    )
}

/// Packages of tenants `p` and `q`: names with ties, upper and lower case,
/// one without a name; some public, one disabled.
fn fill(a: &App) -> Vec<Row> {
    let names = ["b", "B", "a", "", "b", "ä", "a"];
    let mut rows = Vec::new();
    for i in 0..21 {
        let mut row = json!({
            "id": format!("id-{:02}", (i * 8) % 21),
            "owner_id": if i % 3 == 0 { "q" } else { "p" },
            "is_public": i % 4 == 0,
            "enabled": i != 5,
            "type": if i % 2 == 0 { "Application" } else { "Library" },
            "fully_qualified_name": format!("com.x.{}{}", names[(i * 3) % 7], i % 10),
            "name": names[i % 7],
            "created": format!("2020-01-01T00:00:{:02}.000000", 20 - i),
        });
        if i == 3 {
            row["name"] = Value::Null;
        }
        let row = row.as_object().unwrap().clone();
        a.db().insert("package", &row).unwrap();
        rows.push(row);
    }
    rows
}

fn req(tenant: &str, query: &[(&str, &str)]) -> Req {
    Req {
        ctx: RequestContext {
            tenant: Some(tenant.into()),
            user: Some(format!("u-{tenant}")),
            roles: vec!["member".into()],
            ..RequestContext::default()
        },
        query: query
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        ..Req::default()
    }
}

fn list(a: &App, tenant: &str, query: &[(&str, &str)]) -> Value {
    match search(a, &req(tenant, query)) {
        Ok(Reply::Json(v)) => v,
        other => panic!("{query:?}: {other:?}"),
    }
}

fn ids(v: &Value) -> Vec<String> {
    v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Walk the pages of `limit` from the start; every id in order.
fn walk(a: &App, tenant: &str, query: &[(&str, &str)], limit: usize) -> Vec<String> {
    let limit = limit.to_string();
    let mut out = Vec::new();
    let mut marker: Option<String> = None;
    for _ in 0..30 {
        let mut q = query.to_vec();
        q.push(("limit", &limit));
        if let Some(m) = &marker {
            q.push(("marker", m));
        }
        let page = list(a, tenant, &q);
        out.extend(ids(&page));
        match page["next_marker"].as_str() {
            Some(m) => marker = Some(m.to_owned()),
            None => return out,
        }
    }
    panic!("paging did not end");
}

/// The listing a plain sort gives: visible to `tenant` (own or public),
/// enabled, by the text of `keys` then id.
fn expected(rows: &[Row], tenant: &str, keys: &[&str], desc: bool) -> Vec<String> {
    let text = |r: &Row, k: &str| r[k].as_str().unwrap_or("").to_owned();
    let mut v: Vec<&Row> = rows
        .iter()
        .filter(|r| r["owner_id"] == json!(tenant) || r["is_public"] == json!(true))
        .filter(|r| r["enabled"] != json!(false))
        .collect();
    v.sort_by_key(|r| {
        let mut k: Vec<String> = keys.iter().map(|k| text(r, k)).collect();
        k.push(text(r, "id"));
        k
    });
    if desc {
        v.reverse();
    }
    v.iter().map(|r| text(r, "id")).collect()
}

#[test]
fn pages_walk_the_whole_sorted_listing() {
    let a = app(Db::in_memory().unwrap());
    let rows = fill(&a);
    for (order, keys) in [
        (None, vec!["name"]),
        (Some("fqn"), vec!["fully_qualified_name"]),
        (Some("created"), vec!["created"]),
        (Some("fqn,name"), vec!["fully_qualified_name", "name"]),
    ] {
        for desc in [false, true] {
            let mut q: Vec<(&str, &str)> = vec![("catalog", "true")];
            if let Some(o) = order {
                for o in o.split(',') {
                    q.push(("order_by", o));
                }
            }
            if desc {
                q.push(("sort_dir", "desc"));
            }
            let want = expected(&rows, "p", &keys, desc);
            assert!(want.len() > 10);
            for limit in [1, 4, 100] {
                assert_eq!(walk(&a, "p", &q, limit), want, "{q:?} limit {limit}");
            }
        }
    }
}

#[test]
fn filters_and_tenants() {
    let a = app(Db::in_memory().unwrap());
    let rows = fill(&a);
    // Under the default policy a member may manage public packages: its
    // listing holds its own and the public ones, never another's private.
    let seen = ids(&list(&a, "q", &[("limit", "100")]));
    assert_eq!(seen, expected(&rows, "q", &["name"], false));
    assert!(seen.iter().any(|id| {
        let r = rows.iter().find(|r| r["id"] == json!(id)).unwrap();
        r["owner_id"] == json!("p")
    }));
    // A tenant owning nothing sees only public packages in the catalog.
    let public = ids(&list(&a, "z", &[("catalog", "true"), ("limit", "100")]));
    assert_eq!(public, expected(&rows, "z", &["name"], false));
    assert!(!public.is_empty());
    // Column filters, an `in:` id list with a quoted comma, type by title.
    let q = [
        ("catalog", "true"),
        ("type", "library"),
        ("id", r#"in:id-01,"id-02,x",id-08,id-04"#),
    ];
    let got = ids(&list(&a, "p", &q));
    let mut want: Vec<String> = rows
        .iter()
        .filter(|r| {
            ["id-01", "id-08", "id-04"].contains(&r["id"].as_str().unwrap())
                && r["type"] == json!("Library")
        })
        .filter(|r| r["owner_id"] == json!("p") || r["is_public"] == json!(true))
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    want.sort_by_key(|id| {
        let r = rows.iter().find(|r| r["id"] == json!(id)).unwrap();
        (r["name"].as_str().unwrap_or("").to_owned(), id.clone())
    });
    assert_eq!(got, want);
    assert!(!got.is_empty());
    // A marker naming no package: Murano's 404.
    let err = search(&a, &req("p", &[("marker", "nope")])).unwrap_err();
    assert_eq!(err.status, 404);
}

#[test]
fn a_server_over_a_file_reads_its_own_writes() {
    let dir = std::env::temp_dir().join(format!("murano-api-pkglist-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = Db::open(&dir.join("api.db")).unwrap();
    // A reader of the file cannot write to it.
    let reader = db.reader().unwrap().expect("a file has readers");
    let row = json!({"id": "x"}).as_object().unwrap().clone();
    assert!(reader.insert("package", &row).is_err());
    let a = app(db);
    for n in 0..3 {
        let row = json!({"id": format!("p{n}"), "owner_id": "p", "name": format!("n{n}")});
        a.db().insert("package", row.as_object().unwrap()).unwrap();
        // Every listing sees every package written before it.
        assert_eq!(ids(&list(&a, "p", &[])).len(), n + 1);
    }
    // A listing held open on one reader does not stop another request.
    let held = a.read_db();
    assert_eq!(ids(&list(&a, "p", &[])).len(), 3);
    drop(held);
    let _ = std::fs::remove_dir_all(&dir);
}
