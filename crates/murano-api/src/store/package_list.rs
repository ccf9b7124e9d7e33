//! Package listings in SQL: Murano's visibility and column filters,
//! sorting and `marker`/`limit` paging as one statement with bound
//! parameters, and the names linked to a page of packages (categories,
//! tags, classes) in one query each instead of one per package.

use std::collections::HashMap;

use rusqlite::types::Value as SqlValue;
use serde_json::Value;

use super::{from_sql, quoted, table, Db, Row, StoreError};
use crate::schema::{Column, Kind};

/// Which packages a listing may show before its filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageScope {
    /// Every package (an administrator's listing).
    All,
    /// The tenant's own packages.
    Own,
    /// The tenant's own and every public package.
    OwnOrPublic,
}

/// The filters of a package listing that are plain column tests (Murano's
/// `package_search` before its category, tag, class and text filters).
#[derive(Debug, Clone)]
pub struct PackageFilter {
    /// The tenant asking (`""` when none: it owns nothing).
    pub tenant: String,
    /// Which packages it may see.
    pub scope: PackageScope,
    /// Keep disabled packages.
    pub include_disabled: bool,
    /// Only the tenant's own packages (`owned=true`).
    pub owned: bool,
    /// The package type (`Application`, `Library`), compared exactly.
    pub type_name: Option<String>,
    /// Only these ids.
    pub ids: Option<Vec<String>>,
    /// Only this `FullName`.
    pub fqn: Option<String>,
    /// Only this name.
    pub name: Option<String>,
}

/// The order and page of a listing.
#[derive(Debug, Clone)]
pub struct PackagePage<'a> {
    /// Sort columns in priority order (package columns; `id` should come
    /// last so that the order is total). Each compares as text, a
    /// non-text value as `""`.
    pub keys: &'a [&'a str],
    /// Descending (every key).
    pub desc: bool,
    /// Only the packages after this one in that order (its row).
    pub after: Option<&'a Row>,
    /// At most this many.
    pub limit: Option<usize>,
}

/// The names linked to one package, in link order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackageLinks {
    /// Its categories' names.
    pub categories: Vec<Value>,
    /// Its tags' names.
    pub tags: Vec<Value>,
    /// Its classes' names.
    pub classes: Vec<Value>,
}

/// A column as the text it sorts and compares as (`""` unless text),
/// so that SQL orders exactly as a byte-wise sort of those strings.
fn as_text(col: &str) -> String {
    let q = quoted(col);
    format!("(CASE WHEN typeof({q}) = 'text' THEN {q} ELSE '' END)")
}

/// Indexes on each listing order of one key (then `id`), in the very
/// expressions the listings sort by, so that a page is read by walking an
/// index and stopping at its end instead of sorting every package.
pub(super) fn sort_indexes() -> String {
    ["name", "fully_qualified_name", "created"]
        .iter()
        .map(|k| {
            format!(
                "CREATE INDEX IF NOT EXISTS \"ix_package_sort_{k}\" ON package ({}, {});\n",
                as_text(k),
                as_text("id")
            )
        })
        .collect()
}

/// A JSON value as the text a key compares as.
fn text_of(v: Option<&Value>) -> String {
    v.and_then(Value::as_str).unwrap_or("").to_owned()
}

/// The statement of [`Db::package_rows`], its bound values and the
/// columns it reads.
fn listing_sql(
    filter: &PackageFilter,
    page: &PackagePage<'_>,
    skip: &[&str],
) -> Result<(String, Vec<SqlValue>, Vec<&'static Column>), StoreError> {
    let t = table("package")?;
    let mut conds: Vec<String> = Vec::new();
    let mut vals: Vec<SqlValue> = Vec::new();
    let bind = |v: String, vals: &mut Vec<SqlValue>| {
        vals.push(SqlValue::Text(v));
        format!("?{}", vals.len())
    };
    // A boolean column as the rows decode it: an integer, non-zero true.
    let is_true = |c: &str| format!("(typeof({0}) = 'integer' AND {0} <> 0)", quoted(c));
    let is_false = |c: &str| format!("(typeof({0}) = 'integer' AND {0} = 0)", quoted(c));
    let own =
        |vals: &mut Vec<SqlValue>| format!("owner_id = {}", bind(filter.tenant.clone(), vals));
    match filter.scope {
        PackageScope::All => {}
        PackageScope::Own => conds.push(own(&mut vals)),
        PackageScope::OwnOrPublic => {
            conds.push(format!("({} OR {})", own(&mut vals), is_true("is_public")))
        }
    }
    if !filter.include_disabled {
        conds.push(format!("NOT {}", is_false("enabled")));
    }
    if filter.owned {
        conds.push(own(&mut vals));
    }
    for (col, want) in [
        ("type", &filter.type_name),
        ("fully_qualified_name", &filter.fqn),
        ("name", &filter.name),
    ] {
        if let Some(w) = want {
            conds.push(format!("{} = {}", as_text(col), bind(w.clone(), &mut vals)));
        }
    }
    if let Some(ids) = &filter.ids {
        let list = serde_json::to_string(ids).map_err(|e| StoreError::Sql(e.to_string()))?;
        conds.push(format!(
            "{} IN (SELECT value FROM json_each({}))",
            as_text("id"),
            bind(list, &mut vals)
        ));
    }
    let keys: Vec<String> = page.keys.iter().map(|k| as_text(k)).collect();
    if let Some(after) = page.after.filter(|_| !keys.is_empty()) {
        let marks: Vec<String> = page
            .keys
            .iter()
            .map(|k| bind(text_of(after.get(*k)), &mut vals))
            .collect();
        conds.push(format!(
            "({}) {} ({})",
            keys.join(", "),
            if page.desc { "<" } else { ">" },
            marks.join(", ")
        ));
    }
    let cols: Vec<&Column> = t
        .columns
        .iter()
        .filter(|c| !skip.contains(&c.name))
        .collect();
    let order = if keys.is_empty() {
        "rowid".to_owned()
    } else {
        let dir = if page.desc { " DESC" } else { "" };
        keys.iter()
            .map(|k| format!("{k}{dir}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut sql = format!(
        "SELECT {} FROM package WHERE {} ORDER BY {order}",
        cols.iter()
            .map(|c| quoted(c.name))
            .collect::<Vec<_>>()
            .join(", "),
        if conds.is_empty() {
            "1".to_owned()
        } else {
            conds.join(" AND ")
        }
    );
    if let Some(n) = page.limit {
        vals.push(SqlValue::Integer(i64::try_from(n).unwrap_or(i64::MAX)));
        sql.push_str(&format!(" LIMIT ?{}", vals.len()));
    }
    Ok((sql, vals, cols))
}

impl Db {
    /// The packages passing `filter`, ordered and paged by `page` (in
    /// `rowid` order without keys), each row without the columns `skip`.
    pub fn package_rows(
        &self,
        filter: &PackageFilter,
        page: &PackagePage<'_>,
        skip: &[&str],
    ) -> Result<Vec<Row>, StoreError> {
        let (sql, vals, cols) = listing_sql(filter, page, skip)?;
        self.query_rows(&sql, vals, &cols)
    }

    /// The names linked to the packages `ids` (to every package when
    /// `None`), by package id; a package without links has no entry.
    pub fn package_links(
        &self,
        ids: Option<&[String]>,
    ) -> Result<HashMap<String, PackageLinks>, StoreError> {
        let mut out: HashMap<String, PackageLinks> = HashMap::new();
        let list = ids
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| StoreError::Sql(e.to_string()))?;
        let only = if list.is_some() {
            "WHERE l.package_id IN (SELECT value FROM json_each(?1))"
        } else {
            ""
        };
        let queries = [
            (
                0,
                format!(
                    "SELECT l.package_id, n.name FROM package_to_category l \
                     JOIN category n ON n.id = l.category_id {only} ORDER BY l.rowid"
                ),
            ),
            (
                1,
                format!(
                    "SELECT l.package_id, n.name FROM package_to_tag l \
                     JOIN tag n ON n.id = l.tag_id {only} ORDER BY l.rowid"
                ),
            ),
            (
                2,
                format!(
                    "SELECT l.package_id, l.name FROM class_definition l {only} ORDER BY l.rowid"
                ),
            ),
        ];
        for (which, sql) in queries {
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let mut rows = match &list {
                Some(l) => stmt.query([l])?,
                None => stmt.query([])?,
            };
            while let Some(r) = rows.next()? {
                let Some(pkg) = r.get::<_, Option<String>>(0)? else {
                    continue;
                };
                let name = from_sql(Kind::Text, r.get_ref(1)?);
                let links = out.entry(pkg).or_default();
                match which {
                    0 => links.categories.push(name),
                    1 => links.tags.push(name),
                    _ => links.classes.push(name),
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn db() -> Db {
        let db = Db::in_memory().unwrap();
        for (id, owner, public, enabled, name) in [
            ("a", "p", false, true, "Zed"),
            ("b", "q", true, true, "alpha"),
            ("c", "q", false, true, "Beta"),
            ("d", "p", false, false, "Beta"),
        ] {
            let row = json!({"id": id, "owner_id": owner, "is_public": public,
                "enabled": enabled, "name": name, "type": "Application",
                "fully_qualified_name": format!("x.{id}")});
            db.insert("package", row.as_object().unwrap()).unwrap();
        }
        db
    }

    fn ids(rows: &[Row]) -> Vec<&str> {
        rows.iter().map(|r| r["id"].as_str().unwrap()).collect()
    }

    #[test]
    fn scope_filters_order_and_marker() {
        let db = db();
        let mut f = PackageFilter {
            tenant: "p".into(),
            scope: PackageScope::OwnOrPublic,
            include_disabled: false,
            owned: false,
            type_name: None,
            ids: None,
            fqn: None,
            name: None,
        };
        let keys = ["name", "id"];
        let mut page = PackagePage {
            keys: &keys,
            desc: false,
            after: None,
            limit: None,
        };
        // Byte order: upper case before lower case.
        assert_eq!(ids(&db.package_rows(&f, &page, &[]).unwrap()), ["a", "b"]);
        f.include_disabled = true;
        assert_eq!(
            ids(&db.package_rows(&f, &page, &[]).unwrap()),
            ["d", "a", "b"]
        );
        f.scope = PackageScope::All;
        let all = db.package_rows(&f, &page, &["archive"]).unwrap();
        assert_eq!(ids(&all), ["c", "d", "a", "b"]);
        assert!(!all[0].contains_key("archive"));
        page.after = Some(&all[1]);
        page.limit = Some(1);
        assert_eq!(ids(&db.package_rows(&f, &page, &[]).unwrap()), ["a"]);
        page.desc = true;
        assert_eq!(ids(&db.package_rows(&f, &page, &[]).unwrap()), ["c"]);
        f.ids = Some(vec!["b".into(), "c".into(), "x'); --".into()]);
        page.after = None;
        page.limit = None;
        assert_eq!(ids(&db.package_rows(&f, &page, &[]).unwrap()), ["b", "c"]);
        f.owned = true;
        assert!(db.package_rows(&f, &page, &[]).unwrap().is_empty());
    }

    #[test]
    fn a_page_walks_an_index_instead_of_sorting() {
        let db = db();
        let filter = PackageFilter {
            tenant: "p".into(),
            scope: PackageScope::OwnOrPublic,
            include_disabled: false,
            owned: false,
            type_name: None,
            ids: None,
            fqn: None,
            name: None,
        };
        let marker = db
            .package_rows(
                &filter,
                &PackagePage {
                    keys: &[],
                    desc: false,
                    after: None,
                    limit: None,
                },
                &[],
            )
            .unwrap();
        for key in ["name", "fully_qualified_name", "created"] {
            for desc in [false, true] {
                let keys = [key, "id"];
                let page = PackagePage {
                    keys: &keys,
                    desc,
                    after: Some(&marker[0]),
                    limit: Some(20),
                };
                let (sql, vals, _) = listing_sql(&filter, &page, &[]).unwrap();
                let mut stmt = db
                    .conn
                    .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                    .unwrap();
                let plan: Vec<String> = stmt
                    .query_map(rusqlite::params_from_iter(vals), |r| r.get::<_, String>(3))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                let plan = plan.join("; ");
                assert!(plan.contains(&format!("ix_package_sort_{key}")), "{plan}");
                assert!(!plan.contains("TEMP B-TREE"), "{plan}");
            }
        }
    }

    #[test]
    fn links_in_link_order() {
        let db = db();
        for (t, row) in [
            ("tag", json!({"id": "t1", "name": "one"})),
            ("tag", json!({"id": "t2", "name": "two"})),
            ("package_to_tag", json!({"package_id": "a", "tag_id": "t2"})),
            ("package_to_tag", json!({"package_id": "a", "tag_id": "t1"})),
            (
                "package_to_tag",
                json!({"package_id": "b", "tag_id": "gone"}),
            ),
            (
                "class_definition",
                json!({"id": "k", "name": "x.A", "package_id": "a"}),
            ),
        ] {
            db.insert(t, row.as_object().unwrap()).unwrap();
        }
        let all = db.package_links(None).unwrap();
        assert_eq!(all["a"].tags, [json!("two"), json!("one")]);
        assert_eq!(all["a"].classes, [json!("x.A")]);
        assert!(!all.contains_key("b"));
        let some = db.package_links(Some(&["b".to_owned()])).unwrap();
        assert!(some.is_empty());
    }
}
