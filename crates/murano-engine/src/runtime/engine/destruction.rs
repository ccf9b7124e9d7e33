//! Destruction: collecting the objects the model no longer reaches.

use super::*;

impl Core {
    /// Destroys the objects not reachable from the root (the model load's
    /// and the finalisation's collection; see [`crate::gc::collect`]).
    pub(crate) fn collect_garbage(&self) -> Result<(), EngineError> {
        crate::gc::collect(self, false).map(|_| ())
    }
}
