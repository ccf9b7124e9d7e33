//! `GET /catalog/packages`: Murano's package search (filters, `search`
//! ranking, `order_by`, `sort_dir`, `marker`, `limit`): column filters,
//! sorting and paging in SQL; filters on linked names and the ranking over
//! the filtered rows in memory.

use std::cmp::Ordering;

use serde_json::{json, Value};

use super::categories::validate_limit;
use super::packages::package_dict_with;
use crate::app::{App, Outcome, Reply, Req};
use crate::fault::ApiError;
use crate::store::{key, Db, PackageFilter, PackagePage, PackageScope, Row};

const SUPPORTED: &[&str] = &[
    "id",
    "order_by",
    "category",
    "marker",
    "tag",
    "class_name",
    "limit",
    "type",
    "fqn",
    "owned",
    "search",
    "include_disabled",
    "sort_dir",
    "name",
];
const LISTS: &[&str] = &["id", "category", "tag", "class", "order_by"];
const IN_OPERATOR: &[&str] = &["id", "category", "tag"];
/// The fields `search` looks in, by priority; other text columns rank after.
const SEARCH_FIELDS: &[&str] = &[
    "name",
    "fully_qualified_name",
    "description",
    "categories",
    "tags",
    "class_definitions",
    "author",
];
/// The other text columns of a package (`dir(Package)` order).
const OTHER_TEXT: &[&str] = &["id", "owner_id", "type", "ui_definition"];

/// A package that passed the filters: its search rank, its row and dict.
type Candidate = (Option<usize>, Row, Value);

#[derive(Default)]
struct Filters {
    lists: Vec<(String, Vec<String>)>,
    single: Vec<(String, String)>,
}

impl Filters {
    fn list(&self, k: &str) -> Option<&Vec<String>> {
        self.lists.iter().find(|(n, _)| n == k).map(|(_, v)| v)
    }
    fn one(&self, k: &str) -> Option<&str> {
        self.single
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    }
}

/// Murano's `validate_quotes`: a quote (not escaped by an odd run of
/// backslashes; the run is not reset by a quote) opens only at the start or
/// after a comma, closes only at the end or before one, and is closed.
fn quotes_valid(s: &str) -> bool {
    let b = s.as_bytes();
    let (mut open, mut backslashes) = (true, 0usize);
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'"' => {
                if backslashes % 2 == 1 {
                    continue;
                }
                if open && i > 0 && b[i - 1] != b',' {
                    return false;
                }
                if !open && i + 1 != b.len() && b[i + 1] != b',' {
                    return false;
                }
                open = !open;
            }
            b'\\' => backslashes += 1,
            _ => backslashes = 0,
        }
    }
    open
}

/// Murano's `split_for_quotes`: comma-separated values, double quotes
/// keeping commas inside (`\"` a quote), empty values kept; `None` when
/// the quotes are invalid (Murano then skips the filter).
fn split_for_quotes(s: &str) -> Option<Vec<String>> {
    if !quotes_valid(s) {
        return None;
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '"' {
            // `"` then non-quote characters or backslash escapes, `"`, `,`?
            let mut j = i + 1;
            let mut closed = None;
            while j < chars.len() {
                match chars[j] {
                    '"' => {
                        closed = Some(j);
                        break;
                    }
                    '\\' if j + 1 < chars.len() && chars[j + 1] != '\n' => j += 2,
                    '\\' => break,
                    _ => j += 1,
                }
            }
            if let Some(end) = closed {
                out.push(chars[i + 1..end].iter().collect::<String>());
                i = end + 1;
                if chars.get(i) == Some(&',') {
                    i += 1;
                }
                continue;
            }
        }
        if chars[i] == ',' {
            out.push(String::new());
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i] != ',' {
            i += 1;
        }
        out.push(chars[start..i].iter().collect());
        if i < chars.len() {
            i += 1;
        }
    }
    Some(out.into_iter().map(|v| v.replace("\\\"", "\"")).collect())
}

fn parse(query: &[(String, String)]) -> Filters {
    let mut f = Filters::default();
    for (k, v) in query {
        if !SUPPORTED.contains(&k.as_str()) {
            continue;
        }
        if LISTS.contains(&k.as_str()) {
            if let Some(rest) = v
                .strip_prefix("in:")
                .filter(|_| IN_OPERATOR.contains(&k.as_str()))
            {
                // Murano logs invalid quoting and skips the filter.
                if let Some(values) = split_for_quotes(rest) {
                    f.lists.retain(|(n, _)| n != k);
                    f.lists.push((k.clone(), values));
                }
            } else {
                match f.lists.iter_mut().find(|(n, _)| n == k) {
                    Some((_, l)) => l.push(v.clone()),
                    None => f.lists.push((k.clone(), vec![v.clone()])),
                }
            }
        } else {
            f.single.push((k.clone(), v.clone()));
        }
    }
    if let Some((_, order)) = f.lists.iter_mut().find(|(n, _)| n == "order_by") {
        order.retain(|o| ["fqn", "name", "created"].contains(&o.as_str()));
    }
    f
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or("").to_owned()
}

fn title(s: &str) -> String {
    let mut out = String::new();
    let mut start = true;
    for c in s.chars() {
        if c.is_alphabetic() {
            if start {
                out.extend(c.to_uppercase());
            } else {
                out.extend(c.to_lowercase());
            }
            start = false;
        } else {
            out.push(c);
            start = true;
        }
    }
    out
}

/// SQL `LIKE '%w%'` as SQLite does it: ASCII case-insensitive.
fn like(hay: &str, word: &str) -> bool {
    hay.to_ascii_lowercase()
        .contains(&word.to_ascii_lowercase())
}

/// The rank of a package for `search` (lower first), `None` if no match.
fn search_rank(p: &Row, d: &Value, words: &[String]) -> Option<usize> {
    for (i, field) in SEARCH_FIELDS.iter().enumerate() {
        let hit = match *field {
            "categories" | "tags" | "class_definitions" => d[field]
                .as_array()
                .into_iter()
                .flatten()
                .any(|n| words.iter().any(|w| like(&text(n), w))),
            f => words.iter().any(|w| like(&text(&p[f]), w)),
        };
        if hit {
            return Some(i);
        }
    }
    OTHER_TEXT
        .iter()
        .any(|f| words.iter().any(|w| like(&text(&p[*f]), w)))
        .then_some(SEARCH_FIELDS.len())
}

/// The package columns a listing never shows (binaries, UI definition).
const UNSHOWN: &[&str] = &["archive", "logo", "supplier_logo", "ui_definition"];

/// `GET /catalog/packages`.
pub fn search(app: &App, req: &Req) -> Outcome {
    app.check("get_package", &req.ctx, json!({}))?;
    let manage_public = app
        .check("manage_public_package", &req.ctx, json!({}))
        .is_ok();
    let f = parse(&req.query);
    let limit = validate_limit(f.one("limit"))?
        .unwrap_or(app.limits.limit_default)
        .min(app.limits.limit_max);
    let catalog = req
        .param("catalog")
        .is_some_and(|c| c.eq_ignore_ascii_case("true"));
    let is_true = |k: &str| f.one(k).is_some_and(|v| v.eq_ignore_ascii_case("true"));
    // The visibility and column filters run in SQL (bound values only).
    let filter = PackageFilter {
        tenant: req.ctx.tenant.clone().unwrap_or_default(),
        scope: if catalog || (!req.ctx.is_admin && manage_public) {
            PackageScope::OwnOrPublic
        } else if req.ctx.is_admin {
            PackageScope::All
        } else {
            PackageScope::Own
        },
        include_disabled: is_true("include_disabled"),
        owned: is_true("owned"),
        type_name: f.one("type").map(title),
        ids: f.list("id").cloned(),
        fqn: f.one("fqn").map(str::to_owned),
        name: f.one("name").map(str::to_owned),
    };
    // An `order_by` whose values were all invalid (and dropped) sorts by
    // `id` alone, as Murano's search does.
    let mut keys: Vec<&str> = f
        .list("order_by")
        .map(|o| {
            o.iter()
                .map(|k| match k.as_str() {
                    "fqn" => "fully_qualified_name",
                    "created" => "created",
                    _ => "name",
                })
                .collect()
        })
        .unwrap_or_else(|| vec!["name"]);
    keys.push("id");
    let desc = f.one("sort_dir") == Some("desc");
    // A read-only connection, and one snapshot for the page and its links.
    app.read_db()
        .transaction(|db| page(db, &f, &filter, &keys, desc, limit))
}

/// The listing's answer from `db`.
fn page(
    db: &Db,
    f: &Filters,
    filter: &PackageFilter,
    keys: &[&str],
    desc: bool,
    limit: usize,
) -> Outcome {
    let marker = match f.one("marker") {
        Some(m) => Some(
            db.select_except("package", &key("id", m), "", UNSHOWN)?
                .into_iter()
                .next()
                .ok_or_else(|| ApiError::not_found(format!("Package id '{m}' not found")))?,
        ),
        None => None,
    };
    // Category, tag and class filters and the `search` ranking read each
    // package's links: they run over the rows SQL filtered, with every
    // link read at once. Without them SQL sorts and pages too.
    let needs_dict = f.list("category").is_some()
        || f.list("tag").is_some()
        || f.one("class_name").is_some()
        || f.one("search").is_some();
    let page: Vec<Value> = if needs_dict {
        linked_page(db, f, filter, keys, desc, marker.as_ref(), limit)?
    } else {
        let rows = db.package_rows(
            filter,
            &PackagePage {
                keys,
                desc,
                after: marker.as_ref(),
                limit: Some(limit),
            },
            UNSHOWN,
        )?;
        let ids: Vec<String> = rows.iter().map(|p| text(&p["id"])).collect();
        let mut links = db.package_links(Some(&ids))?;
        rows.iter()
            .zip(&ids)
            .map(|(p, id)| package_dict_with(p, links.remove(id).unwrap_or_default()))
            .collect()
    };
    let mut result = json!({});
    if page.len() == limit {
        result["next_marker"] = page.last().map(|d| d["id"].clone()).unwrap_or(Value::Null);
    }
    result["packages"] = Value::Array(page);
    Ok(Reply::Json(result))
}

/// The page of a listing filtered by linked names or ranked by `search`:
/// the dicts of the packages after `marker`, at most `limit`.
fn linked_page(
    db: &Db,
    f: &Filters,
    filter: &PackageFilter,
    keys: &[&str],
    desc: bool,
    marker: Option<&Row>,
    limit: usize,
) -> Result<Vec<Value>, ApiError> {
    let all = PackagePage {
        keys: &[],
        desc: false,
        after: None,
        limit: None,
    };
    let mut links = db.package_links(None)?;
    let words: Option<Vec<String>> = f
        .one("search")
        .map(|s| s.split([';', ',']).map(str::to_owned).collect());
    let mut rows: Vec<Candidate> = Vec::new();
    for p in db.package_rows(filter, &all, &["archive", "logo", "supplier_logo"])? {
        let d = package_dict_with(&p, links.remove(&text(&p["id"])).unwrap_or_default());
        let any_in = |field: &str, wanted: Option<&Vec<String>>| {
            wanted.is_none_or(|w| {
                d[field]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|n| w.contains(&text(n)))
            })
        };
        if !any_in("categories", f.list("category")) || !any_in("tags", f.list("tag")) {
            continue;
        }
        if let Some(c) = f.one("class_name") {
            if !d["class_definitions"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|n| n == c)
            {
                continue;
            }
        }
        let rank = match &words {
            Some(words) => match search_rank(&p, &d, words) {
                Some(r) => Some(r),
                None => continue,
            },
            None => None,
        };
        rows.push((rank, p, d));
    }
    let cmp_keys = |a: &Row, b: &Row| -> Ordering {
        let o = keys
            .iter()
            .map(|k| text(&a[*k]).cmp(&text(&b[*k])))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal);
        if desc {
            o.reverse()
        } else {
            o
        }
    };
    // The keys' texts once per row, not once per comparison.
    let sort_key = |p: &Row| -> Vec<String> { keys.iter().map(|k| text(&p[*k])).collect() };
    let mut keyed: Vec<(Vec<String>, Candidate)> =
        rows.into_iter().map(|r| (sort_key(&r.1), r)).collect();
    keyed.sort_by(|a, b| {
        a.1 .0.cmp(&b.1 .0).then_with(|| {
            let o = a.0.cmp(&b.0);
            if desc {
                o.reverse()
            } else {
                o
            }
        })
    });
    Ok(keyed
        .into_iter()
        .map(|(_, r)| r)
        .filter(|(_, p, _)| marker.is_none_or(|m| cmp_keys(p, m) == Ordering::Greater))
        .take(limit)
        .map(|(_, _, d)| d)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_and_quotes() {
        let split = |s: &str| split_for_quotes(s).map(|v| v.join("|"));
        for (input, want) in [
            (r#"a,"b,c",d"#, Some("a|b,c|d")),
            ("a,,b", Some("a||b")),
            ("a,", Some("a")),
            (",", Some("")),
            (" a , b ", Some(" a | b ")),
            (r#""a\"b",c"#, Some(r#"a"b|c"#)),
            (r#"a\"b"#, Some(r#"a"b"#)),
            (r#""a"#, None),
            (r#"a"b"#, None),
            (r#""a"b"#, None),
        ] {
            assert_eq!(split(input).as_deref(), want, "{input}");
        }
        // Invalid quoting: the filter is skipped.
        assert!(parse(&[("tag".into(), r#"in:"t1,t3"#.into())])
            .list("tag")
            .is_none());
        assert_eq!(title("library"), "Library");
        let f = parse(&[
            ("tag".into(), "in:x,y".into()),
            ("bogus".into(), "1".into()),
        ]);
        assert_eq!(
            f.list("tag").unwrap(),
            &vec!["x".to_owned(), "y".to_owned()]
        );
        assert!(f.one("bogus").is_none());
    }
}
