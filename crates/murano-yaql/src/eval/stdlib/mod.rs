//! The standard library: yaql's modules (system, common, boolean,
//! branching, math, strings, collections, queries, regex, datetime) and the
//! legacy (yaql 0.2) layer. Each function's doc comment is its registration
//! site; names and semantics follow yaql 3.2.

use std::sync::Arc;

use super::context::Library;
use super::error::Error;
use super::value::{Value, ValueIter};

mod collections;
mod core;
pub(crate) mod datetime;
pub(crate) mod legacy;
mod math;
mod queries;
mod regex;
mod strings;

/// Registers the standard library the way `yaql.create_context()` does:
/// the property fallback in an outer layer, everything else above it.
pub(crate) fn register_standard(lib: &mut Library, delegates: bool) {
    core::register_fallbacks(lib);
    lib.push_layer();
    core::register(lib, delegates);
    math::register(lib);
    strings::register(lib);
    collections::register(lib);
    queries::register(lib);
    regex::register(lib);
    datetime::register(lib);
}

/// A tuple (yaql's usual sequence).
pub(crate) fn seq(v: Vec<Value>) -> Value {
    Value::Tuple(Arc::new(v))
}

/// A Python list.
pub(crate) fn pylist(v: Vec<Value>) -> Value {
    Value::List(Arc::new(v))
}

/// Drains an iterator.
pub(crate) fn collect(it: ValueIter) -> Result<Vec<Value>, Error> {
    it.collect()
}

/// A lazy iterator value.
pub(crate) fn lazy(it: impl Iterator<Item = Result<Value, Error>> + Send + 'static) -> Value {
    Value::iter(Box::new(it))
}
