//! Leaf types every other layer uses: errors, Python's set order, frozen
//! and mutable values, the lock helper. Nothing here knows about classes
//! or the runtime.

pub mod error;
pub(crate) mod mutable;
pub(crate) mod pyset;
pub(crate) mod sync;
