//! Request statistics (Murano's `request_statistics.py`): how many
//! requests the controllers served and failed, their average time, and
//! the requests per tenant; `GET /v1/stats` reports them.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The counters of one server process.
#[derive(Debug, Default)]
pub struct RequestStats {
    inner: Mutex<Counts>,
}

/// A snapshot of the counters.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Counts {
    /// Requests served (failed ones included, as Murano counts them).
    pub request_count: u64,
    /// Requests that ended in an error.
    pub error_count: u64,
    /// Mean time of a request, in seconds.
    pub average_time: f64,
    /// Requests per tenant (failed ones not included, as in Murano).
    pub requests_per_tenant: BTreeMap<String, u64>,
    /// Failed requests per tenant.
    pub errors_per_tenant: BTreeMap<String, u64>,
    /// When the last report was made, and the counts it reported (for
    /// the rates between two reports).
    last_report: Option<(Instant, u64, u64)>,
}

impl RequestStats {
    /// Count one request of `tenant` that took `took`; `failed` when it
    /// ended in an error.
    pub fn record(&self, tenant: Option<&str>, took: Duration, failed: bool) {
        let mut c = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let n = c.request_count as f64;
        // Murano counts a failure's time as zero (its `te - te`).
        let t = if failed { 0.0 } else { took.as_secs_f64() };
        c.average_time = (c.average_time * n + t) / (n + 1.0);
        c.request_count = c.request_count.saturating_add(1);
        let per_tenant = if failed {
            c.error_count = c.error_count.saturating_add(1);
            &mut c.errors_per_tenant
        } else {
            &mut c.requests_per_tenant
        };
        if let Some(t) = tenant.filter(|t| !t.is_empty()) {
            let e = per_tenant.entry(t.to_owned()).or_default();
            *e = e.saturating_add(1);
        }
    }

    /// The counters now.
    pub fn snapshot(&self) -> Counts {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The counters, and the requests and errors per second since the
    /// previous call (`None` the first time).
    pub fn report(&self) -> (Counts, Option<(f64, f64)>) {
        let mut c = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let rates = c.last_report.map(|(at, req, err)| {
            let dt = now.duration_since(at).as_secs_f64().max(1e-9);
            (
                c.request_count.saturating_sub(req) as f64 / dt,
                c.error_count.saturating_sub(err) as f64 / dt,
            )
        });
        c.last_report = Some((now, c.request_count, c.error_count));
        (c.clone(), rates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_requests_errors_and_tenants() {
        let s = RequestStats::default();
        s.record(Some("a"), Duration::from_millis(10), false);
        s.record(Some("a"), Duration::from_millis(30), false);
        s.record(Some("b"), Duration::from_millis(50), true);
        s.record(None, Duration::from_millis(20), false);
        let c = s.snapshot();
        assert_eq!((c.request_count, c.error_count), (4, 1));
        assert_eq!(c.requests_per_tenant.get("a"), Some(&2));
        assert_eq!(c.requests_per_tenant.get("b"), None);
        assert_eq!(c.errors_per_tenant.get("b"), Some(&1));
        assert!((c.average_time - 0.015).abs() < 1e-9, "{}", c.average_time);
        let (_, first) = s.report();
        assert!(first.is_none());
        let (_, second) = s.report();
        assert_eq!(second.map(|r| r.0), Some(0.0));
    }
}
