//! `GET /stats` (Murano's `request_statistics.py` controller): the rows of
//! the `apistats` table, one per API host. Murano's stats service writes
//! its host's row every few minutes; this server writes it when asked, so
//! the row is current.

use serde_json::{json, Value};

use crate::app::{App, Outcome, Reply, Req};
use crate::clock;
use crate::handlers::render;
use crate::store::{key, Row};

/// The host name the row is kept under.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_owned())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// `GET /stats`: no policy rule guards it in Murano.
pub fn get(app: &App, _req: &Req) -> Outcome {
    let (counts, rates) = app.stats.report();
    let host = host_name();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_tenant = serde_json::to_string(&counts.requests_per_tenant).unwrap_or_default();
    let db = app.db();
    let existing = db.select("apistats", &key("host", host.as_str()), "")?;
    let now = clock::now();
    let mut row: Row = [
        ("request_count", json!(counts.request_count)),
        ("error_count", json!(counts.error_count)),
        ("average_response_time", json!(counts.average_time)),
        ("requests_per_tenant", json!(per_tenant)),
        ("cpu_count", json!(cpus)),
        // Murano samples psutil's CPU load; this server does not.
        ("cpu_percent", json!(0.0)),
        ("updated", json!(now)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    if existing.is_empty() {
        row.insert("host".into(), json!(host));
        row.insert("created".into(), json!(now));
        row.insert("requests_per_second".into(), json!(0.0));
        row.insert("errors_per_second".into(), json!(0.0));
        db.insert("apistats", &row)?;
    } else {
        let (rps, eps) = rates.unwrap_or((0.0, 0.0));
        row.insert("requests_per_second".into(), json!(rps));
        row.insert("errors_per_second".into(), json!(eps));
        db.update("apistats", &key("host", host.as_str()), &row)?;
    }
    let out: Vec<Value> = db
        .select("apistats", &Row::new(), "")?
        .iter()
        .map(|r| render("apistats", r, &[]))
        .collect();
    Ok(Reply::Json(json!(out)))
}
