//! The lock helper every layer uses.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, recovering from poisoning (the data stays consistent:
/// every critical section is a plain read or write).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}
