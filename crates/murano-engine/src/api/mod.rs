//! The public API: how an engine is built (`EngineBuilder`), its
//! packages, JSON and stack traces (calls take `CallOptions`, which sits
//! beside `Engine::call_with` in the runtime). Hosts, the test runner and
//! deploy are clients of this layer.

mod assemble;
pub(crate) mod builder;
pub(crate) mod json;
pub(crate) mod package;
pub(crate) mod trace;

#[cfg(test)]
mod tests;
