//! The one registry of the YAQL functions Murano's engine adds to yaql's
//! library (`murano/engine/system/yaql_functions.py`) that depend on
//! nothing outside the expression: contracts (`crate::contract`) and the
//! MuranoPL engine register them through [`register`], gated by package
//! format as Murano gates them. What differs between the two (where
//! `randomName()` takes its names, how `pselect` runs its branches) is
//! a [`Services`] value; functions that need a deployment (`config`,
//! `logger`, `id`, ...) belong to the engine.
//!
//! ```
//! use std::sync::Arc;
//! use murano_dsl::functions::{register, Standalone};
//! use murano_yaql::eval::{Context, Engine, Library};
//!
//! let mut lib = Library::legacy();
//! register(&mut lib, (1, 0), Arc::new(Standalone));
//! let query = Engine::murano(false).compile("substr(base64decode('YWJj'), 1)")?;
//! let value = query.evaluate(&Context::new(Arc::new(lib)))?;
//! assert_eq!(value.py_str(), "bc");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use murano_yaql::eval::{Call, Dict, Error, ErrorKind, FunctionDef, Lambda, Library, Value};

/// What the functions of [`register`] take from the program that runs
/// them.
pub trait Services: Send + Sync {
    /// The next name of `randomName()` (see [`random_name`] for its
    /// shape).
    fn random_name(&self, call: &Call<'_>) -> Result<String, Error>;

    /// `composer` applied to each of `items`, results in order: Murano's
    /// `parallel_select`, which runs the items as green threads. The
    /// default runs them one after the other.
    fn parallel_select(
        &self,
        call: &Call<'_>,
        items: Vec<Value>,
        composer: Lambda,
    ) -> Result<Vec<Value>, Error> {
        let _ = call;
        items.into_iter().map(|item| composer.call1(item)).collect()
    }

    /// The error standing for the Python exception `module.type_name`
    /// with `message` that a function raises. The default is an
    /// [`Error::host`] of a [`PythonException`].
    fn exception(&self, module: &str, type_name: &str, message: &str) -> Error {
        Error::host(PythonException {
            module: module.to_owned(),
            type_name: type_name.to_owned(),
            message: message.to_owned(),
        })
    }
}

/// [`Services`] of an expression evaluated on its own (contracts outside
/// an engine): random names from the clock, branches one after another.
#[derive(Debug, Clone, Copy, Default)]
pub struct Standalone;

impl Services for Standalone {
    fn random_name(&self, _call: &Call<'_>) -> Result<String, Error> {
        Ok(fresh_random_name())
    }
}

/// A Python exception a function raised: the cause of the
/// [`Error::host`] values [`Services::exception`] makes by default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonException {
    /// Module of the exception class (`builtins` for Python's own).
    pub module: String,
    /// Exception class name.
    pub type_name: String,
    /// The exception's message.
    pub message: String,
}

impl std::fmt::Display for PythonException {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PythonException {}

/// The string and collection functions that format 1.0 and 1.1 (yaql's
/// legacy mode) can also call as methods.
const LEGACY_EXTENSIONS: [&str; 10] = [
    "toLower",
    "toUpper",
    "trim",
    "join",
    "split",
    "startsWith",
    "endsWith",
    "matches",
    "replace",
    "flatten",
];

/// Registers Murano's functions for package format `version`
/// (`major.minor`) in a new innermost layer of `lib`: `base64encode`,
/// `base64decode`, `pselect`, `bind`, `randomName`, and for format 1.1
/// and earlier `substr`, `firstOrDefault` and the string and collection
/// functions as methods, as Murano's `get_context(runtime_version)`.
pub fn register(lib: &mut Library, version: (u32, u32), services: Arc<dyn Services>) {
    lib.push_layer();
    lib.register(
        FunctionDef::native("base64encode", "value", |call| {
            let text = call.string(0)?;
            // Four bytes out for every three in: refused before encoding
            // when past the string limit.
            let limit = call.interp().options().max_string_len;
            if text.len().div_ceil(3).saturating_mul(4) > limit {
                return Err(string_too_long(limit));
            }
            Ok(Value::str(&murano_yaml::base64::encode(text.as_bytes())))
        })
        .extension(),
    );
    let s = services.clone();
    lib.register(
        FunctionDef::native("base64decode", "value", move |call| {
            let bytes = murano_yaml::base64::decode(call.string(0)?).map_err(|e| match e {
                murano_yaml::base64::DecodeError::NotAscii => {
                    s.exception("builtins", "ValueError", &e.to_string())
                }
                _ => s.exception("binascii", "Error", &e.to_string()),
            })?;
            let text = String::from_utf8(bytes).map_err(|_| {
                s.exception(
                    "builtins",
                    "UnicodeDecodeError",
                    "'utf-8' codec can't decode the data",
                )
            })?;
            Ok(Value::str(&text))
        })
        .extension(),
    );
    let s = services.clone();
    lib.register(
        FunctionDef::native("pselect", "collection, ~composer", move |call| {
            let items: Vec<Value> = call.iterable(0)?.collect::<Result<_, _>>()?;
            let composer = call.need_lambda(1)?;
            let results = s.parallel_select(call, items, composer)?;
            Ok(Value::List(Arc::new(results)))
        })
        .extension(),
    );
    // bind(template, mappings): `$name` strings replaced by mapping values
    // (`$text-{name}` formats them in), recursively.
    lib.register(
        FunctionDef::native("bind", "object, mappings", |call| {
            let Value::Dict(m) = call.value(1)? else {
                return Err(Error::mismatch());
            };
            let m = m.clone();
            bind(call.value(0)?, &m, 0)
        })
        .extension(),
    );
    let s = services;
    lib.register(random_name_function(move |call| s.random_name(call)));
    if version <= (1, 1) {
        // substr(string, start, length = -1): `substring` as a function.
        lib.register(
            FunctionDef::native("substr", "string, start, length=", |call| {
                let s = call.string(0)?;
                let start = call.int(1)?;
                let length = call.int_or(2, -1)?;
                call.call_method(
                    "substring",
                    Value::str(s),
                    vec![Value::Int(start), Value::Int(length)],
                )
            })
            .extension(),
        );
        lib.register(
            FunctionDef::native("firstOrDefault", "collection, default=", |call| {
                let default = call.opt(1)?.cloned().unwrap_or_default();
                Ok(call.iterable(0)?.next().transpose()?.unwrap_or(default))
            })
            .extension(),
        );
        for name in LEGACY_EXTENSIONS {
            lib.make_extension(name);
        }
    }
}

/// `randomName()` with its names from `names`: what [`register`]
/// registers, for a host that brings its own names as a function of a
/// later layer.
pub fn random_name_function(
    names: impl Fn(&Call<'_>) -> Result<String, Error> + Send + Sync + 'static,
) -> FunctionDef {
    FunctionDef::native("randomName", "", move |call| {
        names(call).map(|name| Value::str(&name))
    })
}

/// The error of a string that would pass `limit` bytes (yaql's memory
/// quota).
pub fn string_too_long(limit: usize) -> Error {
    Error::new(
        ErrorKind::MemoryQuotaExceeded,
        format!("Expression consumed too much memory: a string passes the limit of {limit} bytes"),
    )
}

/// `x` in `base` (2 to 36, lowercase digits), as Murano's `_int2base`
/// writes non-negative numbers. A base outside 2..=36 is taken as 36.
///
/// ```
/// assert_eq!(murano_dsl::functions::int2base(1_500_000_000_000, 36), "j5399reo");
/// assert_eq!(murano_dsl::functions::int2base(0, 36), "0");
/// ```
pub fn int2base(mut x: u64, base: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let base = if (2..=36).contains(&base) {
        u64::from(base)
    } else {
        36
    };
    if x == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while x > 0 {
        out.push(DIGITS[(x % base) as usize]);
        x /= base;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// A name of Murano's `randomName()` shape: the five letters of
/// `prefix`, the clock `millis` in base 36 (its first 8 digits) and
/// `counter` in base 36.
///
/// ```
/// use murano_dsl::functions::random_name;
/// assert_eq!(random_name("abcde", 1_500_000_000_000, 1), "abcdej5399reo1");
/// ```
pub fn random_name(prefix: &str, millis: u64, counter: u64) -> String {
    let stamp: String = int2base(millis, 36).chars().take(8).collect();
    format!("{prefix}{stamp}{}", int2base(counter, 36))
}

/// Murano's counter of random names: 1 to 1295, then 0, 1, ... again.
static COUNTER: AtomicU64 = AtomicU64::new(1);

/// A random name as Murano draws one: random letters, the clock, and a
/// process-wide counter.
fn fresh_random_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    let counter = COUNTER
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
            Some((c + 1) % 1296)
        })
        .unwrap_or(1);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(millis);
    let mut r = h.finish();
    let prefix: String = (0..5)
        .map(|_| {
            let ch = char::from(b'a' + (r % 26) as u8);
            r /= 26;
            ch
        })
        .collect();
    random_name(&prefix, millis, counter.max(1))
}

/// `bind()` (`murano/engine/system/yaql_functions.py`).
fn bind(v: &Value, mappings: &Dict, depth: usize) -> Result<Value, Error> {
    if depth > 200 {
        return Err(Error::new(
            ErrorKind::RecursionLimit,
            "bind(): value nested too deeply",
        ));
    }
    Ok(match v {
        Value::Str(s) if s.starts_with('$') => {
            let r = bind_macro(&s[1..], mappings)?;
            if r.is_null() {
                v.clone()
            } else {
                r
            }
        }
        Value::List(items) | Value::Tuple(items) => Value::List(Arc::new(
            items
                .iter()
                .map(|x| bind(x, mappings, depth + 1))
                .collect::<Result<_, _>>()?,
        )),
        Value::Dict(d) => {
            let mut out = Dict::default();
            for (k, x) in d.iter() {
                out.insert(bind(k, mappings, depth + 1)?, bind(x, mappings, depth + 1)?);
            }
            Value::Dict(Arc::new(out))
        }
        other => other.clone(),
    })
}

/// `_convert_macro_parameter`: `{name}` parts replaced by `str()` of
/// their mapping; without any, the whole name looked up (KeyError when
/// missing).
fn bind_macro(text: &str, mappings: &Dict) -> Result<Value, Error> {
    let mut out = String::new();
    let mut replaced = false;
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let name_len = after
            .char_indices()
            .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
            .map(|(i, c)| i + c.len_utf8())
            .last()
            .unwrap_or(0);
        if name_len > 0 && after[name_len..].starts_with('}') {
            out.push_str(&rest[..open]);
            let name = &after[..name_len];
            let value = mappings.get(&Value::str(name)).cloned().unwrap_or_default();
            out.push_str(&value.py_str());
            replaced = true;
            rest = &after[name_len + 1..];
        } else {
            out.push_str(&rest[..=open]);
            rest = after;
        }
    }
    out.push_str(rest);
    if replaced {
        return Ok(Value::str(&out));
    }
    mappings
        .get(&Value::str(text))
        .cloned()
        .ok_or_else(|| Error::new(ErrorKind::KeyError, Value::str(text).repr()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_names_have_murano_shape() {
        let a = fresh_random_name();
        assert!(a.len() >= 7 && a.chars().all(|c| c.is_ascii_alphanumeric()));
        assert!(a[..5].chars().all(|c| c.is_ascii_lowercase()));
    }

    #[test]
    fn int2base_writes_other_bases_too() {
        assert_eq!(int2base(255, 16), "ff");
        assert_eq!(int2base(5, 2), "101");
        assert_eq!(int2base(35, 36), "z");
        assert_eq!(int2base(36, 36), "10");
        assert_eq!(int2base(1295, 36), "zz");
    }

    fn eval(version: (u32, u32), text: &str) -> Result<Value, Error> {
        let mut lib = if version <= (1, 1) {
            Library::legacy()
        } else {
            Library::standard(false)
        };
        register(&mut lib, version, Arc::new(Standalone));
        let query = murano_yaql::eval::Engine::murano(version > (1, 1))
            .compile(text)
            .map_err(|e| Error::new(ErrorKind::ValueError, e.to_string()))?;
        query.evaluate(&murano_yaql::eval::Context::new(Arc::new(lib)))
    }

    #[test]
    fn legacy_functions_are_for_format_1_1_and_earlier() {
        assert_eq!(
            eval((1, 1), "substr('abcdef', 2, 3)").unwrap().py_str(),
            "cde"
        );
        assert_eq!(eval((1, 0), "[].firstOrDefault(7)").unwrap(), Value::Int(7));
        let e = eval((1, 2), "substr('abcdef', 2, 3)").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoFunctionRegistered, "{e}");
    }

    #[test]
    fn base64decode_raises_python_s_exceptions() {
        let e = eval((1, 4), "base64decode('abc')").unwrap_err();
        let cause = e
            .cause()
            .and_then(|c| c.downcast_ref::<PythonException>())
            .expect("a Python exception");
        assert_eq!(
            (cause.module.as_str(), cause.type_name.as_str()),
            ("binascii", "Error")
        );
        let e = eval((1, 4), "base64decode('é')").unwrap_err();
        let cause = e.cause().and_then(|c| c.downcast_ref::<PythonException>());
        assert_eq!(cause.map(|c| c.type_name.as_str()), Some("ValueError"));
    }

    #[test]
    fn bind_fills_macros_and_misses_with_key_error() {
        let v = eval((1, 4), "bind(['$a', '$x-{a}'], {a => 1})").unwrap();
        assert_eq!(v.py_str(), "[1, 'x-1']");
        let e = eval((1, 4), "bind('$nope', {a => 1})").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::KeyError);
    }
}
