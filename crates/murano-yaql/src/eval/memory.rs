//! One memory budget for the bytes a run holds ([`MemoryBudget`]).
//!
//! Values are immutable and shared (`Arc`), so what a run holds cannot be
//! known from where values are built alone: a string built and dropped
//! costs nothing afterwards. The budget therefore charges in bulk where
//! values are built (every function result that is a new string or
//! collection, and whatever the host charges itself) and keeps an
//! estimate that only grows; when the estimate passes the limit, the host
//! recounts what its roots really hold (a walk that counts shared values
//! once, see [`MemoryBudget::set_recount`]) and the values the running
//! evaluations built meanwhile are added to that. Only when the recount
//! is still over the limit does the charge fail. Recounts happen at most
//! once per [`RECOUNT_DIVISOR`]th of the limit charged, so a run whose
//! live data sits near the limit stops rather than walking its roots at
//! every step.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

use super::{Error, ErrorKind, Value};

/// A recount is allowed once this fraction of the limit was charged since
/// the previous one.
const RECOUNT_DIVISOR: u64 = 64;

/// Bytes a list or set item is counted for (a value's size).
pub const ITEM_BYTES: u64 = std::mem::size_of::<Value>() as u64;

/// Bytes a dict entry is counted for (key, value and the index slot).
pub const ENTRY_BYTES: u64 = 2 * ITEM_BYTES + 8;

/// What a recount returns: the bytes the host's roots hold, or `None`
/// when it cannot tell now (the estimate is then kept).
pub type Recount = dyn Fn() -> Option<u64> + Send + Sync;

/// The bytes one run may hold, shared by all its evaluations (see the
/// module documentation). Give it to evaluations through
/// [`Options::memory`](crate::eval::Options::memory).
pub struct MemoryBudget {
    limit: u64,
    /// Estimate of the bytes held: the last recount plus every charge
    /// since.
    held: AtomicU64,
    /// Charged since the last recount.
    since: AtomicU64,
    /// Charged by evaluations still running (their temporaries are
    /// invisible to a recount of the host's roots).
    in_flight: AtomicU64,
    /// Set by the first failed charge: every later charge fails too.
    exceeded: AtomicBool,
    recount: OnceLock<Box<Recount>>,
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> MemoryBudget {
        MemoryBudget {
            limit,
            held: AtomicU64::new(0),
            since: AtomicU64::new(0),
            in_flight: AtomicU64::new(0),
            exceeded: AtomicBool::new(false),
            recount: OnceLock::new(),
        }
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The current estimate of the bytes held (never below the truth by
    /// more than what the host's recount misses).
    pub fn held(&self) -> u64 {
        self.held.load(Ordering::Relaxed)
    }

    /// Whether a charge failed: the run is over its budget.
    pub fn exceeded(&self) -> bool {
        self.exceeded.load(Ordering::Relaxed)
    }

    /// How to recount the bytes held when the estimate passes the limit
    /// (set once; later calls are ignored).
    pub fn set_recount(&self, recount: Box<Recount>) {
        let _ = self.recount.set(recount);
    }

    /// Charges `bytes` just built; a
    /// [`ErrorKind::MemoryQuotaExceeded`] error when the run would hold
    /// more than the limit.
    pub fn charge(&self, bytes: u64) -> Result<(), Error> {
        if self.exceeded() {
            return Err(self.error());
        }
        if bytes == 0 {
            return Ok(());
        }
        let held = self
            .held
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes);
        let since = self
            .since
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes);
        if held <= self.limit {
            return Ok(());
        }
        if since >= self.limit / RECOUNT_DIVISOR {
            if let Some(walked) = self.recount.get().and_then(|f| f()) {
                let now = walked.saturating_add(self.in_flight.load(Ordering::Relaxed));
                self.held.store(now, Ordering::Relaxed);
                self.since.store(0, Ordering::Relaxed);
                if now <= self.limit {
                    return Ok(());
                }
            }
        }
        self.exceeded.store(true, Ordering::Relaxed);
        Err(self.error())
    }

    /// [`MemoryBudget::charge`] for an evaluation still running, whose
    /// temporaries a recount cannot see until [`MemoryBudget::settle`].
    pub(crate) fn charge_in_flight(&self, bytes: u64) -> Result<(), Error> {
        self.in_flight.fetch_add(bytes, Ordering::Relaxed);
        self.charge(bytes)
    }

    /// An evaluation that charged `bytes` in flight ended: what it still
    /// holds is now reachable from the host's roots (or gone).
    pub(crate) fn settle(&self, bytes: u64) {
        let _ = self
            .in_flight
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                Some(v.saturating_sub(bytes))
            });
    }

    fn error(&self) -> Error {
        Error::new(
            ErrorKind::MemoryQuotaExceeded,
            format!("the run would hold more than {} bytes", self.limit),
        )
    }
}

impl fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryBudget")
            .field("limit", &self.limit)
            .field("held", &self.held())
            .finish()
    }
}

impl PartialEq for MemoryBudget {
    /// The same budget (budgets are shared, never compared by content).
    fn eq(&self, other: &MemoryBudget) -> bool {
        std::ptr::eq(self, other)
    }
}

/// The bytes a value built just now takes itself (its string, or its
/// items' slots; the items are charged where they were built).
pub fn shallow_bytes(v: &Value) -> u64 {
    match v {
        Value::Str(s) => s.len() as u64,
        Value::List(x) | Value::Tuple(x) => x.len() as u64 * ITEM_BYTES,
        Value::Set(x) => x.len() as u64 * (ITEM_BYTES + 8),
        Value::Dict(x) => x.len() as u64 * ENTRY_BYTES,
        _ => 0,
    }
}

/// Whether two values are the same allocation (a function that returns
/// one of its arguments built nothing).
pub(crate) fn same_allocation(a: &Value, b: &Value) -> bool {
    use std::sync::Arc;
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Arc::ptr_eq(x, y),
        (Value::List(x), Value::List(y))
        | (Value::Tuple(x), Value::Tuple(y))
        | (Value::List(x), Value::Tuple(y))
        | (Value::Tuple(x), Value::List(y)) => Arc::ptr_eq(x, y),
        (Value::Dict(x), Value::Dict(y)) => Arc::ptr_eq(x, y),
        (Value::Set(x), Value::Set(y)) => Arc::ptr_eq(x, y),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn charges_pass_until_the_limit() {
        let b = MemoryBudget::new(100);
        assert!(b.charge(60).is_ok());
        assert!(b.charge(40).is_ok());
        let e = b.charge(1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::MemoryQuotaExceeded);
        assert!(b.exceeded());
        // Sticky: the run is over.
        assert!(b.charge(0).is_err());
    }

    #[test]
    fn a_recount_forgets_what_was_dropped() {
        let b = MemoryBudget::new(1 << 20);
        b.set_recount(Box::new(|| Some(10)));
        for _ in 0..100 {
            b.charge(100_000).unwrap();
        }
        assert!(b.held() < 1 << 20);
        assert!(!b.exceeded());
    }

    #[test]
    fn a_recount_counts_what_evaluations_hold_in_flight() {
        let b = MemoryBudget::new(1000);
        b.set_recount(Box::new(|| Some(0)));
        b.charge_in_flight(900).unwrap();
        assert!(b.charge_in_flight(200).is_err());
    }

    #[test]
    fn settled_charges_are_recounted() {
        let b = MemoryBudget::new(1000);
        b.set_recount(Box::new(|| Some(0)));
        b.charge_in_flight(900).unwrap();
        b.settle(900);
        b.charge_in_flight(200).unwrap();
        assert_eq!(b.held(), 200);
    }

    #[test]
    fn sizes_are_shallow() {
        let s = Value::Str(Arc::from("abcd"));
        assert_eq!(shallow_bytes(&s), 4);
        let l = Value::Tuple(Arc::new(vec![s.clone(), s.clone()]));
        assert_eq!(shallow_bytes(&l), 2 * ITEM_BYTES);
        assert!(same_allocation(&s, &s.clone()));
        assert!(!same_allocation(&s, &Value::Str(Arc::from("abcd"))));
    }
}
