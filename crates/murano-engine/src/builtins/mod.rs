//! What the engine brings with it: Murano's YAQL functions, reflection,
//! the `io.murano.system` principal natives, `format` and `patch`.

pub(crate) mod format;
pub(crate) mod functions;
pub(crate) mod patch;
pub(crate) mod principal;
pub(crate) mod reflection;
