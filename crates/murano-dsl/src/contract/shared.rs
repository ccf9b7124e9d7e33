//! Runtimes built once per process: building one registers a whole
//! YAQL library, which engines would otherwise repeat for every run.

use std::sync::{Arc, Mutex};

use super::Runtime;

/// Runtimes built so far, by version.
type Built = Vec<((u32, u32), Arc<Runtime>)>;

/// At most this many versions are kept (a handful exist).
const MAX_KEPT: usize = 16;

impl Runtime {
    /// The runtime of a package format `major.minor`, built once per
    /// process and shared.
    ///
    /// ```
    /// use murano_dsl::contract::Runtime;
    /// let a = Runtime::shared(1, 0);
    /// assert!(std::sync::Arc::ptr_eq(&a, &Runtime::shared(1, 0)));
    /// ```
    pub fn shared(major: u32, minor: u32) -> Arc<Runtime> {
        static BUILT: Mutex<Built> = Mutex::new(Vec::new());
        let mut built = match BUILT.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if let Some((_, rt)) = built.iter().find(|(v, _)| *v == (major, minor)) {
            return rt.clone();
        }
        let rt = Arc::new(Runtime::new(major, minor));
        if built.len() < MAX_KEPT {
            built.push(((major, minor), rt.clone()));
        }
        rt
    }
}
