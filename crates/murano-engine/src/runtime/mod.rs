//! The interpreter: state, frames, object-model loading, properties,
//! method invocation, destruction and serialisation. The one layer whose
//! files may import each other in a circle; everything above reaches it
//! through [`crate::Engine`].

pub(crate) mod call;
pub(crate) mod engine;
pub(crate) mod exec;
pub(crate) mod gc;
pub(crate) mod handle;
pub(crate) mod hooks;
pub(crate) mod ids;
pub(crate) mod intercept;
pub(crate) mod locks;
pub(crate) mod memory;
pub(crate) mod object;
pub(crate) mod parallel;
pub(crate) mod serialize;
pub(crate) mod settings;
pub(crate) mod store;
pub(crate) mod trace;
pub(crate) mod unreached;
