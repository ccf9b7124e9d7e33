//! The standard library: yaql's modules (system, common, boolean,
//! branching, math, strings, collections, queries, regex, datetime) and the
//! legacy (yaql 0.2) layer. Each function's doc comment is its registration
//! site; names and semantics follow yaql 3.2.

use std::sync::{Arc, OnceLock};

use super::context::Library;
use super::error::Error;
use super::value::{Value, ValueIter};

mod collections;
mod core;
mod datetime;
mod legacy;
mod math;
mod queries;
mod regex;
mod strings;

impl Library {
    /// yaql's standard library (`yaql.create_context()`), with `#call` and
    /// `lambda` when `delegates` is true: the property fallback in an outer
    /// layer, everything else above it.
    ///
    /// Built once per process; each call returns a cheap clone.
    pub fn standard(delegates: bool) -> Library {
        static WITH: OnceLock<Library> = OnceLock::new();
        static WITHOUT: OnceLock<Library> = OnceLock::new();
        let cell = if delegates { &WITH } else { &WITHOUT };
        cell.get_or_init(|| Library::build_standard(delegates))
            .clone()
    }

    fn build_standard(delegates: bool) -> Library {
        let mut lib = Library::empty();
        core::register_fallbacks(&mut lib);
        lib.push_layer();
        core::register(&mut lib, delegates);
        math::register(&mut lib);
        strings::register(&mut lib);
        collections::register(&mut lib);
        queries::register(&mut lib);
        for (name, alias) in [
            ("where", "filter"),
            ("select", "map"),
            ("aggregate", "reduce"),
        ] {
            lib.register_alias(name, alias);
        }
        regex::register(&mut lib);
        datetime::register(&mut lib);
        lib
    }

    /// yaql's legacy library: the standard library plus the yaql 0.2
    /// compatibility layer (`yaql.legacy.create_context()`).
    ///
    /// Built once per process; each call returns a cheap clone.
    pub fn legacy() -> Library {
        static LEGACY: OnceLock<Library> = OnceLock::new();
        LEGACY.get_or_init(Library::build_legacy).clone()
    }

    fn build_legacy() -> Library {
        let mut lib = Library::standard(false);
        lib.push_layer();
        lib.legacy = true;
        legacy::register(&mut lib);
        lib
    }
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
