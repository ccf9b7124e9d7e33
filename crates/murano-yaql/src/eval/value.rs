//! Runtime values.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::{Arc, Mutex};

use indexmap::{IndexMap, IndexSet};

use super::context::Context;
use super::error::{Error, ErrorKind};
use super::interp::Lambda;

pub(crate) mod calendar;

pub use calendar::DateTime;

/// The hasher used by dictionaries and sets: a small FNV-style hasher, fast on
/// the short keys YAQL handles.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

/// Builds [`KeyHasher`]s.
pub type KeyBuild = BuildHasherDefault<KeyHasher>;
/// A dictionary: keys keep insertion order, like Python's `dict`.
pub type Dict = IndexMap<Value, Value, KeyBuild>;
/// A set (Python `frozenset`); iteration follows insertion order.
pub type Set = IndexSet<Value, KeyBuild>;

/// Something that yields values: the item type of lazy iterators.
pub type ValueIter = Box<dyn Iterator<Item = Result<Value, Error>> + Send>;

/// A one-shot lazy iterator (a Python generator): consuming it twice yields
/// nothing the second time.
pub struct LazyIter {
    inner: Mutex<Option<ValueIter>>,
}

impl LazyIter {
    /// Wraps a Rust iterator.
    pub fn new(it: ValueIter) -> LazyIter {
        LazyIter {
            inner: Mutex::new(Some(it)),
        }
    }

    /// Takes the iterator out; later takers get an empty one.
    pub fn take(&self) -> ValueIter {
        let mut guard = match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        guard.take().unwrap_or_else(|| Box::new(std::iter::empty()))
    }
}

impl fmt::Debug for LazyIter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<iterator>")
    }
}

/// A compiled regular expression (Python `re` pattern object).
#[derive(Debug)]
pub struct RegexValue {
    /// The pattern source.
    pub source: String,
    /// The compiled form.
    pub regex: fancy_regex::Regex,
    /// Python `re` flags given when compiling.
    pub flags: i64,
}

/// Objects a host exposes to YAQL (for instance MuranoPL objects).
pub trait HostObject: fmt::Debug + Send + Sync {
    /// A type name, used in messages.
    fn type_name(&self) -> &str;
    /// The value of a property, `Ok(None)` when it has none by that name
    /// (yaql's `AttributeError`). A failed read is an error the
    /// evaluation raises as it is (a host's own error as
    /// [`Error::host`](crate::eval::Error::host), which the host reads back
    /// with `downcast_ref`).
    fn property(&self, name: &str) -> Result<Option<Value>, crate::eval::Error> {
        let _ = name;
        Ok(None)
    }
    /// Whether `obj.name(...)` calls the object's own methods
    /// ([`HostObject::call_method`]) instead of YAQL functions, as for a
    /// yaql-yaqlized Python object with `yaqlize_methods`. False by default.
    fn has_methods(&self) -> bool {
        false
    }
    /// Calls the object's method `name` with evaluated arguments (only when
    /// [`HostObject::has_methods`]); an unknown name should be an
    /// `AttributeError`, as yaql raises.
    fn call_method(
        &self,
        name: &str,
        args: &[Value],
        kwargs: &[(std::sync::Arc<str>, Value)],
    ) -> Result<Value, crate::eval::Error> {
        let _ = (args, kwargs);
        Err(crate::eval::Error::new(
            crate::eval::ErrorKind::AttributeError,
            format!("'{}' object has no attribute '{name}'", self.type_name()),
        ))
    }
    /// The item under `key` (`obj[key]`), `None` when the object has no
    /// such item or no items at all (then no `#indexer` overload matches).
    fn item(&self, key: &Value) -> Option<Value> {
        let _ = key;
        None
    }
    /// Python's `str()` of the object when its class defines `__str__`
    /// (a version's text); `None` (the default) prints `<type object>`.
    fn py_str(&self) -> Option<String> {
        None
    }
    /// The object as `Any`, so a host can find its own objects' concrete
    /// type again (`None` by default).
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
    /// Equality with another host object (identity by default).
    fn host_eq(&self, other: &dyn HostObject) -> bool {
        std::ptr::eq(
            self as *const Self as *const u8,
            other as *const dyn HostObject as *const u8,
        )
    }
    /// A hash consistent with [`HostObject::host_eq`]: objects that are
    /// equal must hash the same. The default (the object's address) fits
    /// the default identity equality; override both together.
    fn host_hash(&self) -> u64 {
        self as *const Self as *const u8 as usize as u64
    }
}

/// A YAQL value.
///
/// Cloning is cheap: composite values are reference counted.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Value {
    /// `null` (Python `None`).
    #[default]
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer. Python integers are unbounded; here arithmetic that leaves
    /// 64 bits is an [`ErrorKind::Overflow`] error.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(Arc<str>),
    /// A Python `list` (mutable sequence produced by some functions).
    List(Arc<Vec<Value>>),
    /// A Python `tuple`: what YAQL list literals and most sequences are.
    Tuple(Arc<Vec<Value>>),
    /// A dictionary.
    Dict(Arc<Dict>),
    /// A set (`frozenset`).
    Set(Arc<Set>),
    /// A date and time.
    DateTime(DateTime),
    /// A time span in microseconds (Python `timedelta`).
    TimeSpan(i64),
    /// A lazy one-shot iterator.
    Iter(Arc<LazyIter>),
    /// A callable: a lambda or a function delegate.
    Lambda(Arc<Lambda>),
    /// A context object (what `let`, `with`, `def` return).
    Context(Context),
    /// A compiled regular expression.
    Regex(Arc<RegexValue>),
    /// A regular expression match object.
    Match(Arc<MatchValue>),
    /// A host object.
    Object(Arc<dyn HostObject>),
}

/// A regular expression match (Python `re.Match`).
#[derive(Debug, Clone)]
pub struct MatchValue {
    /// Groups: (text, start, end) in code points, `None` when unmatched.
    pub groups: Vec<Option<(Arc<str>, i64, i64)>>,
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.repr())
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Int(n)
    }
}
impl From<f64> for Value {
    fn from(n: f64) -> Value {
        Value::Float(n)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.into())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s.into())
    }
}
impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Value {
        Value::Tuple(Arc::new(v))
    }
}

impl Value {
    /// A string value.
    pub fn str(s: &str) -> Value {
        Value::Str(s.into())
    }

    /// A tuple (YAQL's usual sequence) from values.
    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Arc::new(items))
    }

    /// A dictionary from pairs.
    pub fn dict(pairs: impl IntoIterator<Item = (Value, Value)>) -> Value {
        Value::Dict(Arc::new(pairs.into_iter().collect()))
    }

    /// A lazy iterator value.
    pub fn iter(it: ValueIter) -> Value {
        Value::Iter(Arc::new(LazyIter::new(it)))
    }

    /// Python's type name of the value, for messages.
    pub fn type_name(&self) -> &str {
        match self {
            Value::Null => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Dict(_) => "dict",
            Value::Set(_) => "frozenset",
            Value::DateTime(_) => "datetime",
            Value::TimeSpan(_) => "timedelta",
            Value::Iter(_) => "generator",
            Value::Lambda(_) => "function",
            Value::Context(_) => "Context",
            Value::Regex(_) => "Pattern",
            Value::Match(_) => "Match",
            Value::Object(o) => o.type_name(),
        }
    }

    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(n) => *n != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(v) | Value::Tuple(v) => !v.is_empty(),
            Value::Dict(d) => !d.is_empty(),
            Value::Set(s) => !s.is_empty(),
            Value::TimeSpan(t) => *t != 0,
            _ => true,
        }
    }

    /// True for `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer (not a boolean), if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// True for an `int` or `float` (never a boolean): yaql's `Number`.
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Int(_) | Value::Float(_))
    }

    /// True for a list or a tuple: yaql's `Sequence`.
    pub fn is_sequence(&self) -> bool {
        matches!(self, Value::List(_) | Value::Tuple(_))
    }

    /// True for values yaql's `Iterable` accepts (not strings or dicts).
    pub fn is_iterable(&self) -> bool {
        matches!(
            self,
            Value::List(_) | Value::Tuple(_) | Value::Set(_) | Value::Iter(_)
        )
    }

    /// The items of a list or tuple.
    pub fn as_slice(&self) -> Option<&[Value]> {
        match self {
            Value::List(v) | Value::Tuple(v) => Some(v),
            _ => None,
        }
    }

    /// Python `repr()`-like text, for messages. Values that share
    /// structure can print exponentially long: the text stops at
    /// [`DEFAULT_MAX_STRING_LEN`](crate::eval::DEFAULT_MAX_STRING_LEN)
    /// bytes and ends with `...` there. [`Value::repr_within`] gives an
    /// error instead. Strings are quoted as Python quotes them:
    ///
    /// ```
    /// use murano_yaql::eval::Value;
    /// assert_eq!(Value::str("abc").repr(), "'abc'");
    /// assert_eq!(Value::str("it's").repr(), "\"it's\"");
    /// assert_eq!(Value::str("a'b\"c").repr(), "'a\\'b\"c'");
    /// ```
    pub fn repr(&self) -> String {
        let mut out = Printer::new(crate::eval::DEFAULT_MAX_STRING_LEN);
        match self.write_repr(&mut out) {
            Ok(()) => out.text,
            Err(_) => out.truncated(),
        }
    }

    /// Python `repr()`-like text of at most `limit` bytes, or
    /// [`ErrorKind::MemoryQuotaExceeded`] as soon as the text would be
    /// longer: the time and memory taken are bounded by `limit`, whatever
    /// the value shares.
    ///
    /// ```
    /// use murano_yaql::eval::{ErrorKind, Value};
    /// let mut v = Value::Int(1);
    /// for _ in 0..64 {
    ///     v = Value::tuple(vec![v.clone(), v]); // 2^64 leaves, 64 nodes
    /// }
    /// let err = v.repr_within(1 << 20).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::MemoryQuotaExceeded);
    /// assert_eq!(Value::tuple(vec![Value::Int(1)]).repr_within(4).unwrap(), "(1,)");
    /// ```
    pub fn repr_within(&self, limit: usize) -> Result<String, Error> {
        // Measure first: a node that is shared is measured once, so a value
        // far longer than the limit is refused in time linear in its size
        // in memory, before any text is made.
        self.check_printed_len(limit)?;
        let mut out = Printer::new(limit);
        self.write_repr(&mut out)?;
        Ok(out.text)
    }

    fn write_repr(&self, out: &mut Printer) -> Result<(), Error> {
        if matches!(
            self,
            Value::List(_) | Value::Tuple(_) | Value::Set(_) | Value::Dict(_)
        ) {
            out.depth += 1;
            if out.depth > MAX_PRINT_DEPTH {
                return Err(too_deep());
            }
        }
        self.write_repr_inner(out)?;
        if matches!(
            self,
            Value::List(_) | Value::Tuple(_) | Value::Set(_) | Value::Dict(_)
        ) {
            out.depth -= 1;
        }
        Ok(())
    }

    fn write_repr_inner(&self, out: &mut Printer) -> Result<(), Error> {
        match self {
            Value::Str(s) => {
                let quote = repr_quote(s);
                out.push(quote)?;
                for c in s.chars() {
                    match c {
                        c if c == quote => {
                            out.push('\\')?;
                            out.push(c)?;
                        }
                        '\\' => out.push_str("\\\\")?,
                        '\n' => out.push_str("\\n")?,
                        '\t' => out.push_str("\\t")?,
                        '\r' => out.push_str("\\r")?,
                        c => out.push(c)?,
                    }
                }
                out.push(quote)?;
            }
            Value::Null => out.push_str("None")?,
            Value::Bool(true) => out.push_str("True")?,
            Value::Bool(false) => out.push_str("False")?,
            Value::List(v) => {
                out.push('[')?;
                join_repr(v.iter(), out)?;
                out.push(']')?;
            }
            Value::Tuple(v) => {
                out.push('(')?;
                join_repr(v.iter(), out)?;
                if v.len() == 1 {
                    out.push(',')?;
                }
                out.push(')')?;
            }
            Value::Set(s) => {
                out.push_str("frozenset({")?;
                join_repr(s.iter(), out)?;
                out.push_str("})")?;
            }
            Value::Dict(d) => {
                out.push('{')?;
                for (i, (k, v)) in d.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ")?;
                    }
                    k.write_repr(out)?;
                    out.push_str(": ")?;
                    v.write_repr(out)?;
                }
                out.push('}')?;
            }
            other => out.push_str(&other.scalar_str())?,
        }
        Ok(())
    }

    /// Python `str()` of the value (yaql's `str()` adds the
    /// `null`/`true`/`false` spelling on top, see the strings library).
    /// Collections print as [`Value::repr`] does, so the text of a value
    /// that shares structure stops at
    /// [`DEFAULT_MAX_STRING_LEN`](crate::eval::DEFAULT_MAX_STRING_LEN)
    /// bytes; [`Value::py_str_within`] gives an error instead.
    pub fn py_str(&self) -> String {
        match self {
            Value::Str(s) => s.to_string(),
            Value::List(_) | Value::Tuple(_) | Value::Set(_) | Value::Dict(_) => self.repr(),
            _ => self.scalar_str(),
        }
    }

    /// Python `str()` of at most `limit` bytes, or
    /// [`ErrorKind::MemoryQuotaExceeded`] as soon as the text would be
    /// longer.
    pub fn py_str_within(&self, limit: usize) -> Result<String, Error> {
        match self {
            Value::Str(s) if s.len() <= limit => Ok(s.to_string()),
            Value::Str(_) => Err(too_long(limit)),
            Value::List(_) | Value::Tuple(_) | Value::Set(_) | Value::Dict(_) => {
                self.repr_within(limit)
            }
            _ => {
                let text = self.scalar_str();
                if text.len() > limit {
                    return Err(too_long(limit));
                }
                Ok(text)
            }
        }
    }

    /// Whether the value prints (as [`Value::repr`], or as JSON, which
    /// takes about as many bytes) in at most `limit` bytes, found in time
    /// linear in the value's size in memory (a shared collection is
    /// measured once): a value that shares structure is small in memory
    /// but can be exponentially long as text or as a JSON tree. Hosts call
    /// it before they convert a result.
    ///
    /// ```
    /// use murano_yaql::eval::Value;
    /// let mut v = Value::Int(1);
    /// for _ in 0..64 {
    ///     v = Value::tuple(vec![v.clone(), v]);
    /// }
    /// assert!(v.check_printed_len(1 << 20).is_err());
    /// assert!(Value::tuple(vec![Value::Int(1), Value::str("ab")]).check_printed_len(16).is_ok());
    /// ```
    pub fn check_printed_len(&self, limit: usize) -> Result<(), Error> {
        let mut memo = std::collections::HashMap::new();
        let len = self.printed_len(&mut memo, 0, limit)?;
        if len > limit {
            return Err(too_long(limit));
        }
        Ok(())
    }

    /// The length of [`Value::repr`]'s text in bytes (saturating), each
    /// shared collection and long string measured once (`memo`, by
    /// address); collections nested deeper than [`MAX_PRINT_DEPTH`] are
    /// `RecursionError`. Once the length passes `limit` the walk stops: a
    /// result above `limit` is only known to be above it.
    fn printed_len(
        &self,
        memo: &mut std::collections::HashMap<usize, usize>,
        depth: usize,
        limit: usize,
    ) -> Result<usize, Error> {
        let address = match self {
            // A long string shared many times is scanned once.
            Value::Str(s) if s.len() > 64 => Some(Arc::as_ptr(s) as *const u8 as usize),
            _ => self.collection_address(),
        };
        if let Some(len) = address.and_then(|a| memo.get(&a)) {
            return Ok(*len);
        }
        if self.collection_address().is_some() && depth >= MAX_PRINT_DEPTH {
            return Err(too_deep());
        }
        let items = |v: &mut dyn Iterator<Item = &Value>,
                     memo: &mut std::collections::HashMap<usize, usize>|
         -> Result<(usize, usize), Error> {
            let mut total = 0usize;
            let mut count = 0usize;
            for x in v {
                total = total.saturating_add(x.printed_len(memo, depth + 1, limit)?);
                count += 1;
                if total > limit {
                    break;
                }
            }
            // ", " between items.
            Ok((total.saturating_add(2 * count.saturating_sub(1)), count))
        };
        let len = match self {
            Value::Str(s) => {
                let quote = repr_quote(s) as u8;
                let escapes = s
                    .bytes()
                    .filter(|&b| b == quote || matches!(b, b'\\' | b'\n' | b'\t' | b'\r'))
                    .count();
                s.len() + escapes + 2
            }
            Value::Null => 4,
            Value::Bool(true) => 4,
            Value::Bool(false) => 5,
            Value::List(v) => items(&mut v.iter(), memo)?.0.saturating_add(2),
            Value::Tuple(v) => {
                let (len, count) = items(&mut v.iter(), memo)?;
                len.saturating_add(2 + usize::from(count == 1))
            }
            Value::Set(v) => items(&mut v.iter(), memo)?.0.saturating_add(13),
            Value::Dict(d) => {
                let mut total = 2usize;
                for (i, (k, x)) in d.iter().enumerate() {
                    let pair = k
                        .printed_len(memo, depth + 1, limit)?
                        .saturating_add(x.printed_len(memo, depth + 1, limit)?)
                        .saturating_add(if i > 0 { 4 } else { 2 });
                    total = total.saturating_add(pair);
                    if total > limit {
                        break;
                    }
                }
                total
            }
            other => other.scalar_str().len(),
        };
        if let Some(a) = address {
            memo.insert(a, len);
        }
        Ok(len)
    }

    /// The address of a collection's shared storage (`None` for other
    /// values): the same address is the same node while a value holds it.
    pub(crate) fn collection_address(&self) -> Option<usize> {
        match self {
            Value::Dict(d) => Some(Arc::as_ptr(d) as *const u8 as usize),
            Value::Set(s) => Some(Arc::as_ptr(s) as *const u8 as usize),
            Value::Tuple(t) | Value::List(t) => Some(Arc::as_ptr(t) as *const u8 as usize),
            _ => None,
        }
    }

    /// `str()` of a value that is not a collection (nor a string).
    fn scalar_str(&self) -> String {
        match self {
            Value::Null => "None".into(),
            Value::Bool(true) => "True".into(),
            Value::Bool(false) => "False".into(),
            Value::Int(n) => n.to_string(),
            Value::Float(f) => crate::python_float_repr(*f),
            Value::Str(s) => s.to_string(),
            Value::DateTime(dt) => calendar::format_datetime(*dt, ' '),
            Value::TimeSpan(t) => calendar::format_timespan(*t),
            Value::Iter(_) => "<generator object>".into(),
            Value::Lambda(_) => "<function>".into(),
            Value::Context(_) => "<yaql.language.contexts.Context object>".into(),
            Value::Regex(r) => format!("re.compile({})", Value::str(&r.source).repr()),
            Value::Match(_) => "<re.Match object>".into(),
            Value::Object(o) => o
                .py_str()
                .unwrap_or_else(|| format!("<{} object>", o.type_name())),
            Value::List(_) | Value::Tuple(_) | Value::Set(_) | Value::Dict(_) => self.repr(),
        }
    }
}

/// How deeply collections may nest in a value that is printed, measured
/// or converted for output: Python's recursion limit (1000) stops its
/// `repr()` about there with `RecursionError`, and the walks here recurse
/// too.
pub const MAX_PRINT_DEPTH: usize = 1000;

/// The error of a value nested deeper than [`MAX_PRINT_DEPTH`].
pub(crate) fn too_deep() -> Error {
    Error::new(
        ErrorKind::RecursionLimit,
        format!("maximum recursion depth exceeded: collections nest deeper than {MAX_PRINT_DEPTH}"),
    )
}

/// The error of a text that would pass `limit` bytes.
fn too_long(limit: usize) -> Error {
    Error::new(
        ErrorKind::MemoryQuotaExceeded,
        format!("Expression consumed too much memory: its text passes the limit of {limit} bytes"),
    )
}

/// Text under construction that refuses to grow past a limit.
struct Printer {
    text: String,
    limit: usize,
    depth: usize,
}

impl Printer {
    fn new(limit: usize) -> Printer {
        Printer {
            text: String::new(),
            limit,
            depth: 0,
        }
    }

    fn push_str(&mut self, s: &str) -> Result<(), Error> {
        if self.text.len().saturating_add(s.len()) > self.limit {
            return Err(too_long(self.limit));
        }
        self.text.push_str(s);
        Ok(())
    }

    fn push(&mut self, c: char) -> Result<(), Error> {
        self.push_str(c.encode_utf8(&mut [0; 4]))
    }

    /// The text so far, marked as cut.
    fn truncated(mut self) -> String {
        self.text.push_str("...");
        self.text
    }
}

fn join_repr<'a>(items: impl Iterator<Item = &'a Value>, out: &mut Printer) -> Result<(), Error> {
    for (i, v) in items.enumerate() {
        if i > 0 {
            out.push_str(", ")?;
        }
        v.write_repr(out)?;
    }
    Ok(())
}

/// Numeric view used by equality, hashing and ordering.
fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Int(n) => Some(*n as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn int_like(v: &Value) -> Option<i64> {
    match v {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Int(n) => Some(*n),
        _ => None,
    }
}

/// Python `==`.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (Null, Null) => true,
            (Str(a), Str(b)) => a == b,
            (List(a), List(b)) | (Tuple(a), Tuple(b)) => a == b,
            (Dict(a), Dict(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v == w))
            }
            (Set(a), Set(b)) => a.len() == b.len() && a.iter().all(|k| b.contains(k)),
            (DateTime(a), DateTime(b)) => a.micros == b.micros,
            (TimeSpan(a), TimeSpan(b)) => a == b,
            (Lambda(a), Lambda(b)) => Arc::ptr_eq(a, b),
            (Iter(a), Iter(b)) => Arc::ptr_eq(a, b),
            (Regex(a), Regex(b)) => a.source == b.source && a.flags == b.flags,
            (Match(a), Match(b)) => Arc::ptr_eq(a, b),
            (Context(a), Context(b)) => a.ptr_eq(b),
            (Object(a), Object(b)) => a.host_eq(&**b),
            (a, b) => match (int_like(a), int_like(b)) {
                (Some(x), Some(y)) => x == y,
                _ => match (num(a), num(b)) {
                    (Some(x), Some(y)) => x == y,
                    _ => false,
                },
            },
        }
    }
}

impl Eq for Value {}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Value::Null => state.write_u64(0x9e1),
            Value::Bool(_) | Value::Int(_) => state.write_u64(int_like(self).unwrap_or(0) as u64),
            Value::Float(f) => {
                if f.fract() == 0.0 && f.abs() < 9.0e18 {
                    state.write_u64(*f as i64 as u64)
                } else {
                    state.write_u64(f.to_bits())
                }
            }
            Value::Str(s) => s.hash(state),
            Value::List(v) | Value::Tuple(v) => {
                state.write_u64(v.len() as u64);
                for x in v.iter() {
                    x.hash(state);
                }
            }
            Value::Dict(d) => {
                let mut acc = 0u64;
                for (k, v) in d.iter() {
                    let mut h = KeyHasher::default();
                    k.hash(&mut h);
                    v.hash(&mut h);
                    acc ^= h.finish();
                }
                state.write_u64(acc);
            }
            Value::Set(s) => {
                let mut acc = 0u64;
                for k in s.iter() {
                    let mut h = KeyHasher::default();
                    k.hash(&mut h);
                    acc ^= h.finish();
                }
                state.write_u64(acc);
            }
            Value::DateTime(d) => state.write_u64(d.micros as u64),
            Value::TimeSpan(t) => state.write_u64(*t as u64),
            Value::Regex(r) => r.source.hash(state),
            // Values equal only to themselves hash by identity, so that
            // many of them in one set or dict do not all collide (a
            // quadratic blow-up on hostile input).
            Value::Iter(a) => state.write_usize(Arc::as_ptr(a) as usize),
            Value::Lambda(a) => state.write_usize(Arc::as_ptr(a) as *const u8 as usize),
            Value::Match(a) => state.write_usize(Arc::as_ptr(a) as *const u8 as usize),
            Value::Context(c) => state.write_usize(c.identity()),
            Value::Object(o) => state.write_u64(o.host_hash()),
        }
    }
}

/// Python's `<` family for two values of comparable types; a `TypeError`
/// otherwise (as Python 3 raises when sorting mixed types).
pub fn py_cmp(a: &Value, b: &Value) -> Result<Ordering, Error> {
    use Value::*;
    match (a, b) {
        (Str(x), Str(y)) => Ok(x.cmp(y)),
        (List(x), List(y)) | (Tuple(x), Tuple(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                if p != q {
                    return py_cmp(p, q);
                }
            }
            Ok(x.len().cmp(&y.len()))
        }
        (DateTime(x), DateTime(y)) => Ok(x.micros.cmp(&y.micros)),
        (TimeSpan(x), TimeSpan(y)) => Ok(x.cmp(y)),
        _ => match (int_like(a), int_like(b)) {
            (Some(x), Some(y)) => Ok(x.cmp(&y)),
            _ => match (num(a), num(b)) {
                (Some(x), Some(y)) => Ok(x.partial_cmp(&y).unwrap_or(Ordering::Equal)),
                _ => Err(Error::new(
                    ErrorKind::TypeError,
                    format!(
                        "'<' not supported between instances of '{}' and '{}'",
                        a.type_name(),
                        b.type_name()
                    ),
                )),
            },
        },
    }
}

/// The quote Python's `repr` puts around a string: `"` when the text has
/// a `'` and no `"`, else `'` (and that quote is escaped inside).
fn repr_quote(s: &str) -> char {
    if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash_of(v: &Value) -> u64 {
        let mut h = KeyHasher::default();
        v.hash(&mut h);
        h.finish()
    }

    #[test]
    fn identity_values_hash_apart() {
        // Values equal only to themselves must not share one hash bucket:
        // a set of a hundred thousand generators was quadratic.
        let iters: Vec<Value> = (0..64)
            .map(|_| Value::iter(Box::new(std::iter::empty())))
            .collect();
        let hashes: std::collections::HashSet<u64> = iters.iter().map(hash_of).collect();
        assert_eq!(hashes.len(), iters.len());
        let set: Set = iters.iter().cloned().collect();
        assert_eq!(set.len(), iters.len());
        assert_eq!(hash_of(&iters[0]), hash_of(&iters[0].clone()));
    }

    #[test]
    fn value_is_small() {
        assert!(std::mem::size_of::<Value>() <= 24);
    }

    #[test]
    fn python_equality() {
        assert_eq!(Value::Int(1), Value::Float(1.0));
        assert_eq!(Value::Bool(true), Value::Int(1));
        assert_ne!(Value::tuple(vec![]), Value::List(Arc::new(vec![])));
    }
}
