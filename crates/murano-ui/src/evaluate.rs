//! Evaluation of templates and the application into an object model, with
//! the dashboard's YAQL functions (`repeat`, `generateHostname`, `ref`,
//! `name`, `encryptData`).
//!
//! ```
//! use murano_ui::evaluate::{int2base, template_value, Walker};
//! use murano_yaml::{load_ui_file, LoadOptions};
//!
//! assert_eq!(int2base(1_500_000_000_000, 36), "j5399reo");
//! let node = load_ui_file(b"a: $.x + 1\n", &LoadOptions::default())?.unwrap();
//! let v = template_value(&node);
//! let walker = Walker::plain();
//! let ctx = walker.context().with("$", murano_yaql::eval::Value::dict([(
//!     murano_yaql::eval::Value::str("x"),
//!     murano_yaql::eval::Value::Int(1),
//! )]));
//! let out = walker.walk(&v, &ctx).map_err(|e| e.to_string())?;
//! assert_eq!(murano_ui::evaluate::to_json(&out, false).to_string(), r#"{"a":2}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use murano_yaml::convert::{self, ToJson};
use murano_yaml::{Int, Node, Value as Y};
use murano_yaql::eval::{
    Context, Engine, Error as YError, ErrorKind, FunctionDef, HostObject, Library, Options, Value,
};
use murano_yaql::Grammar;

use crate::host::{Entropy, Host};

/// Converts a YAML node to a template value: constants become plain
/// values, expressions opaque host objects that [`Walker::walk`]
/// evaluates.
pub fn template_value(node: &Node) -> Value {
    match &node.value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(*b),
        Y::Int(Int::Small(n)) => Value::Int(*n),
        Y::Int(Int::Big(s)) => Value::str(s),
        Y::Float(f) => Value::Float(*f),
        Y::Str(s) => Value::str(s),
        Y::Yaql(y) => Value::Object(Arc::new(Expr(y.text().to_owned()))),
        Y::Seq(items) | Y::Set(items) => {
            Value::List(Arc::new(items.iter().map(template_value).collect()))
        }
        Y::Map(pairs) | Y::Pairs(pairs) => Value::dict(
            pairs
                .iter()
                .map(|(k, v)| (template_value(k), template_value(v))),
        ),
        other => Value::str(&other.python_str()),
    }
}

/// The expression object used in template values.
#[derive(Debug)]
struct Expr(String);

impl HostObject for Expr {
    fn type_name(&self) -> &str {
        "YaqlExpression"
    }
    fn property(&self, name: &str) -> Result<Option<Value>, murano_yaql::eval::Error> {
        Ok((name == "\u{0}text").then(|| Value::str(&self.0)))
    }
}

fn object_id_of(v: &Value) -> Option<String> {
    match v {
        Value::Object(o) if o.type_name() == "ObjectID" => o
            .property("\u{0}id")
            .ok()
            .flatten()
            .and_then(|v| v.as_str().map(str::to_owned)),
        _ => None,
    }
}

#[derive(Debug)]
struct Oid(String);

impl HostObject for Oid {
    fn type_name(&self) -> &str {
        "ObjectID"
    }
    fn property(&self, name: &str) -> Result<Option<Value>, murano_yaql::eval::Error> {
        Ok((name == "\u{0}id").then(|| Value::str(&self.0)))
    }
    fn host_eq(&self, other: &dyn HostObject) -> bool {
        other.type_name() == "ObjectID"
            && other
                .property("\u{0}id")
                .ok()
                .flatten()
                .and_then(|v| v.as_str().map(str::to_owned))
                == Some(self.0.clone())
    }
    fn host_hash(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.0.hash(&mut h);
        h.finish()
    }
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::Object(o) if o.type_name() == "YaqlExpression" => o
            .property("\u{0}text")
            .ok()
            .flatten()
            .and_then(|v| v.as_str().map(str::to_owned)),
        _ => None,
    }
}

/// Murano's base conversion, shared with the engine's `randomName()`.
pub use murano_dsl::functions::int2base;

/// Mutable state shared by the dashboard functions during one submission.
pub struct Session {
    /// The host.
    pub host: Option<Arc<dyn Host + Send + Sync>>,
    /// Randomness.
    pub entropy: Box<dyn Entropy + Send>,
    /// `generateHostname` counter.
    pub counter: u64,
    /// `ref()` store.
    pub refs: HashMap<String, Value>,
    /// Templates (unevaluated).
    pub templates: Vec<(String, Value)>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("counter", &self.counter)
            .finish()
    }
}

/// Evaluations that may be under way inside one another (a template's
/// `ref()` walks another template, whose expressions may call `ref()`
/// again): the dashboard recurses until Python's `RecursionError`; here
/// the walk ends with that error before the stack does.
pub const MAX_NESTED_EVALUATIONS: usize = 32;

/// Evaluates template values in a context; knows the dashboard engine.
#[derive(Clone)]
pub struct Walker {
    engine: Engine,
    library: Arc<Library>,
    /// Evaluations under way, shared by the walkers of one session.
    nesting: Arc<AtomicUsize>,
}

impl std::fmt::Debug for Walker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Walker")
    }
}

/// The dashboard's engine: standard grammar, iterator limit 10000.
pub fn dashboard_engine() -> Engine {
    let options = Options {
        limit_iterators: Some(10_000),
        memory_quota: Some(1_000_000),
        ..Options::default()
    };
    Engine::new(Grammar::standard(), options)
}

fn host_err(kind: ErrorKind, msg: impl Into<String>) -> YError {
    YError::new(kind, msg)
}

impl Walker {
    /// Standard + legacy functions only (field-level validators).
    pub fn plain() -> Walker {
        Walker {
            engine: dashboard_engine(),
            library: Arc::new(Library::legacy()),
            nesting: Arc::default(),
        }
    }

    /// With the dashboard functions bound to `session`. `with_ref`: whether
    /// `ref()` can reach the service (false in form validators).
    pub fn dashboard(session: Arc<Mutex<Session>>, with_ref: bool) -> Walker {
        let engine = dashboard_engine();
        let mut lib = Library::legacy();
        lib.push_layer();
        let base = Arc::new(Library::legacy());
        let nesting = Arc::new(AtomicUsize::new(0));
        let walker_base = Walker {
            engine: engine.clone(),
            library: base,
            nesting: nesting.clone(),
        };
        // repeat
        let w = walker_base.clone();
        lib.register(FunctionDef::native(
            "repeat",
            "template, times",
            move |call| {
                let template = call.value(0)?.clone();
                let times = match call.value(1)? {
                    Value::Int(n) => *n,
                    _ => return Err(YError::mismatch()),
                };
                let mut out = Vec::new();
                let mut ctx = call.context().child();
                for i in 0..times.max(0) {
                    ctx.set("index", Value::Int(i + 1));
                    out.push(w.walk_with_library(&template, &ctx)?);
                }
                Ok(Value::List(Arc::new(out)))
            },
        ));
        // generateHostname
        let s = session.clone();
        lib.register(FunctionDef::native(
            "generateHostname",
            "pattern, number",
            move |call| {
                let pattern = match call.value(0)? {
                    Value::Str(p) => p.to_string(),
                    _ => return Err(YError::mismatch()),
                };
                let number = match call.value(1)? {
                    Value::Int(n) => *n,
                    _ => return Err(YError::mismatch()),
                };
                if !pattern.is_empty() {
                    return Ok(Value::str(&pattern.replace('#', &number.to_string())));
                }
                let mut st = s
                    .lock()
                    .map_err(|_| host_err(ErrorKind::Host, "session poisoned"))?;
                let counter = if st.counter == 0 { 1 } else { st.counter };
                let prefix: String = (0..5).map(|_| st.entropy.random_lowercase()).collect();
                let millis = st.entropy.now_millis();
                let name = murano_dsl::functions::random_name(&prefix, millis, counter);
                st.counter = (counter + 1) % 1296;
                Ok(Value::str(&name))
            },
        ));
        // name
        lib.register(FunctionDef::native("name", "", |_call| {
            Err(host_err(
                ErrorKind::TypeError,
                "'method' object is not subscriptable",
            ))
        }));
        // encryptData
        let s = session.clone();
        lib.register(FunctionDef::native("encryptData", "data", move |call| {
            let data = match call.value(0)? {
                Value::Str(p) => p.to_string(),
                _ => return Err(YError::mismatch()),
            };
            let host = s
                .lock()
                .map_err(|_| host_err(ErrorKind::Host, "session poisoned"))?
                .host
                .clone();
            match host {
                Some(h) => h
                    .encrypt_data(&data)
                    .map(|r| Value::str(&r))
                    .map_err(|e| host_err(ErrorKind::Host, e)),
                None => Err(host_err(ErrorKind::Host, "no key manager")),
            }
        }));
        // ref
        let s = session;
        let w = walker_base;
        lib.register(FunctionDef::native(
            "ref",
            "templateName, parameterName=, idOnly=",
            move |call| {
                let template_name = match call.value(0)? {
                    Value::Str(p) => p.to_string(),
                    _ => return Err(YError::mismatch()),
                };
                let parameter_name = match call.opt(1)? {
                    None | Some(Value::Null) => None,
                    Some(Value::Str(p)) => Some(p.to_string()),
                    _ => return Err(YError::mismatch()),
                };
                let id_only = match call.opt(2)? {
                    None | Some(Value::Null) => None,
                    Some(Value::Bool(b)) => Some(*b),
                    _ => return Err(YError::mismatch()),
                };
                if !with_ref {
                    return Err(host_err(ErrorKind::KeyError, "'?service'"));
                }
                let key = format!(
                    "#{}",
                    parameter_name
                        .filter(|p| !p.is_empty())
                        .unwrap_or_else(|| template_name.clone())
                );
                let (stored, template) = {
                    let st = s
                        .lock()
                        .map_err(|_| host_err(ErrorKind::Host, "session poisoned"))?;
                    (
                        st.refs.get(&key).cloned(),
                        st.templates
                            .iter()
                            .find(|(n, _)| *n == template_name)
                            .map(|(_, t)| t.clone()),
                    )
                };
                let data = match (stored, template) {
                    (Some(d), _) => d,
                    (None, Some(t)) => {
                        let d = w.walk_with_library(&t, call.context())?;
                        s.lock()
                            .map_err(|_| host_err(ErrorKind::Host, "session poisoned"))?
                            .refs
                            .insert(key.clone(), d.clone());
                        d
                    }
                    (None, None) => Value::Null,
                };
                let Value::Dict(d) = &data else {
                    return Ok(Value::Null);
                };
                let existing = d.get(&Value::str("?")).and_then(|sys| match sys {
                    Value::Dict(sys) => sys.get(&Value::str("id")).and_then(object_id_of),
                    _ => None,
                });
                match existing {
                    Some(id) => {
                        if id_only.unwrap_or(true) {
                            Ok(Value::Object(Arc::new(Oid(id))))
                        } else {
                            Ok(data.clone())
                        }
                    }
                    None => {
                        let mut st = s
                            .lock()
                            .map_err(|_| host_err(ErrorKind::Host, "session poisoned"))?;
                        let id = st.entropy.uuid4();
                        let oid = Value::Object(Arc::new(Oid(id)));
                        let mut dict = (**d).clone();
                        let mut sys = match dict.get(&Value::str("?")) {
                            Some(Value::Dict(sys)) => (**sys).clone(),
                            _ => Default::default(),
                        };
                        sys.insert(Value::str("id"), oid.clone());
                        dict.insert(Value::str("?"), Value::Dict(Arc::new(sys)));
                        let data = Value::Dict(Arc::new(dict));
                        st.refs.insert(key, data.clone());
                        if id_only.unwrap_or(false) {
                            Ok(oid)
                        } else {
                            Ok(data)
                        }
                    }
                }
            },
        ));
        Walker {
            engine,
            library: Arc::new(lib),
            nesting,
        }
    }

    /// A fresh context over this walker's library.
    pub fn context(&self) -> Context {
        Context::new(self.library.clone())
    }

    /// Evaluates one expression text.
    pub fn eval_text(&self, text: &str, ctx: &Context) -> Result<Value, YError> {
        let q = self
            .engine
            .compile(text)
            .map_err(|e| host_err(ErrorKind::Host, e.to_string()))?;
        q.evaluate(ctx)
    }

    fn walk_with_library(&self, v: &Value, ctx: &Context) -> Result<Value, YError> {
        self.walk(v, ctx)
    }

    /// Walks a template value: expressions are evaluated (and their results
    /// walked again), mappings and lists rebuilt in order.
    pub fn walk(&self, v: &Value, ctx: &Context) -> Result<Value, YError> {
        if let Some(text) = text_of(v) {
            let depth = self.nesting.fetch_add(1, Ordering::Relaxed);
            let out = if depth >= MAX_NESTED_EVALUATIONS {
                Err(host_err(
                    ErrorKind::RecursionLimit,
                    "maximum recursion depth exceeded",
                ))
            } else {
                self.eval_text(&text, ctx).and_then(|r| self.walk(&r, ctx))
            };
            self.nesting.fetch_sub(1, Ordering::Relaxed);
            return out;
        }
        match v {
            Value::Dict(d) => {
                let mut out = murano_yaql::eval::Dict::default();
                for (k, x) in d.iter() {
                    let k = self.walk(k, ctx)?;
                    let x = self.walk(x, ctx)?;
                    out.insert(k, x);
                }
                Ok(Value::Dict(Arc::new(out)))
            }
            Value::List(items) => Ok(Value::List(Arc::new(
                items
                    .iter()
                    .map(|x| self.walk(x, ctx))
                    .collect::<Result<_, _>>()?,
            ))),
            Value::Tuple(items) => Ok(Value::Tuple(Arc::new(
                items
                    .iter()
                    .map(|x| self.walk(x, ctx))
                    .collect::<Result<_, _>>()?,
            ))),
            other => Ok(other.clone()),
        }
    }
}

/// The dashboard's `insert_hidden_ids`: every `?` mapping without a
/// `ref()` id gets a fresh one; `ref()` ids become text.
pub fn insert_hidden_ids(v: &Value, entropy: &mut dyn Entropy) -> Value {
    match v {
        Value::Dict(d) => {
            let mut out = murano_yaql::eval::Dict::default();
            for (k, x) in d.iter() {
                if k.as_str() == Some("?") {
                    if let Value::Dict(sys) = x {
                        let has_ref = sys.get(&Value::str("id")).and_then(object_id_of).is_some();
                        if !has_ref {
                            let mut sys = (**sys).clone();
                            sys.insert(Value::str("id"), Value::str(&entropy.uuid4()));
                            out.insert(k.clone(), Value::Dict(Arc::new(sys)));
                            continue;
                        }
                    }
                }
                out.insert(insert_hidden_ids(k, entropy), insert_hidden_ids(x, entropy));
            }
            Value::Dict(Arc::new(out))
        }
        Value::List(items) | Value::Tuple(items) => Value::List(Arc::new(
            items
                .iter()
                .map(|x| insert_hidden_ids(x, entropy))
                .collect(),
        )),
        other => match object_id_of(other) {
            Some(id) => Value::str(&id),
            None => other.clone(),
        },
    }
}

/// A YAQL value as JSON ([`murano_yaml::convert::to_json`]); `tag_tuples`
/// writes tuples `{"tuple": [...]}`; the dashboard's object ids are
/// written as their id.
pub fn to_json(v: &Value, tag_tuples: bool) -> serde_json::Value {
    let options = ToJson::default()
        .with_tagged_tuples(tag_tuples)
        .with_host_text(object_id_of);
    convert::to_json(v, &options)
}

/// JSON (from the host) as a YAQL value
/// ([`murano_yaml::convert::from_json`]).
pub fn from_json(v: &serde_json::Value) -> Value {
    convert::from_json(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::SequentialEntropy;
    use murano_yaml::{load_ui_file, LoadOptions};

    #[test]
    fn a_template_that_refs_itself_ends_with_a_recursion_error() {
        // `ref(t)` inside template `t` walks `t` again: the dashboard
        // recurses until Python's RecursionError; this overflowed the
        // stack before the nesting limit.
        let template = load_ui_file(b"?: {type: T}\nnext: ref(t)\n", &LoadOptions::default())
            .unwrap()
            .unwrap();
        let session = Arc::new(Mutex::new(Session {
            host: None,
            entropy: Box::new(SequentialEntropy::default()),
            counter: 0,
            refs: HashMap::new(),
            templates: vec![("t".to_owned(), template_value(&template))],
        }));
        let walker = Walker::dashboard(session, true);
        let app = load_ui_file(b"t: ref(t)\n", &LoadOptions::default())
            .unwrap()
            .unwrap();
        let err = walker
            .walk(&template_value(&app), &walker.context())
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::RecursionLimit);
    }
}
