//! Contexts: variables and functions visible to an evaluation.

use std::collections::HashMap;
use std::sync::Arc;

use super::func::FunctionDef;
use super::value::Value;

/// A set of functions, grouped in layers (yaql resolves overloads layer by
/// layer: the first layer with a matching overload wins).
///
/// This module only holds the container; the libraries themselves
/// ([`Library::standard`], [`Library::legacy`]) are built by the standard
/// library, which stands on the interpreter rather than inside it.
/// Cloning is cheap: layers are shared until one is changed (an engine
/// clones a standard library and adds its own layers on top).
#[derive(Default, Clone)]
pub struct Library {
    /// Layers, innermost first, each shared until written to.
    layers: Vec<Arc<Layer>>,
    /// Legacy (yaql 0.2 compatible) behaviour of the built-in operators.
    pub(crate) legacy: bool,
}

/// One layer of a [`Library`]: overloads by name.
type Layer = HashMap<Box<str>, Vec<Arc<FunctionDef>>>;

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library")
            .field("layers", &self.layers.len())
            .field("legacy", &self.legacy)
            .finish()
    }
}

impl Library {
    /// An empty library with one layer.
    pub fn empty() -> Library {
        Library {
            layers: vec![Arc::new(HashMap::new())],
            legacy: false,
        }
    }

    /// Starts a new innermost layer: functions registered from now on hide
    /// (rather than compete with) those registered before.
    pub fn push_layer(&mut self) {
        self.layers.insert(0, Arc::new(HashMap::new()));
    }

    /// Adds `inner`'s layers as the innermost ones, shared rather than
    /// copied: a prebuilt library stacked on another.
    pub fn push_library(&mut self, inner: &Library) {
        let mut layers = inner.layers.clone();
        layers.append(&mut self.layers);
        self.layers = layers;
    }

    /// Registers a function in the innermost layer.
    pub fn register(&mut self, def: FunctionDef) {
        Arc::make_mut(&mut self.layers[0])
            .entry(def.name.clone())
            .or_default()
            .push(Arc::new(def));
    }

    /// Removes every overload of `name` from every layer.
    pub fn unregister(&mut self, name: &str) {
        for layer in &mut self.layers {
            if layer.contains_key(name) {
                Arc::make_mut(layer).remove(name);
            }
        }
    }

    /// Overloads of `name`, one slice per layer (innermost first).
    pub(crate) fn lookup<'a>(&'a self, name: &str, out: &mut Vec<&'a [Arc<FunctionDef>]>) {
        for layer in &self.layers {
            if let Some(defs) = layer.get(name) {
                out.push(defs);
            }
        }
    }

    /// Registers every overload of `name` once more under `alias`, as
    /// yaql's `register_function(f, name=alias)` does (`filter` for
    /// `where`, `map` for `select`, `reduce` for `aggregate`).
    pub fn register_alias(&mut self, name: &str, alias: &str) {
        let copies: Vec<FunctionDef> = self
            .overloads_of(name)
            .map(|d| {
                let mut c = d.duplicate();
                c.name = alias.into();
                c
            })
            .collect();
        for c in copies {
            self.register(c);
        }
    }

    /// Makes every overload of `name` callable both as a function and as a
    /// method (yaql's `utils.to_extension_method`), in new innermost copies.
    pub fn make_extension(&mut self, name: &str) {
        let mut copies = Vec::new();
        for layer in &self.layers {
            if let Some(defs) = layer.get(name) {
                for d in defs {
                    let mut c = d.duplicate();
                    c.method = true;
                    c.function = true;
                    copies.push(c);
                }
            }
        }
        for c in copies {
            self.register(c);
        }
    }

    /// Every registered overload with the index of its layer (0 is the
    /// innermost), for introspection: what a library offers and with which
    /// parameters and calling forms. Order within a layer is unspecified.
    pub fn overloads(&self) -> impl Iterator<Item = (usize, &FunctionDef)> + '_ {
        self.layers
            .iter()
            .enumerate()
            .flat_map(|(i, l)| l.values().flatten().map(move |d| (i, &**d)))
    }

    /// The overloads of `name`, innermost layer first.
    pub fn overloads_of<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a FunctionDef> + 'a {
        self.layers
            .iter()
            .filter_map(move |l| l.get(name))
            .flatten()
            .map(|d| &**d)
    }

    /// Names of all registered functions.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .layers
            .iter()
            .flat_map(|l| l.keys().map(|k| &**k))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

struct Frame {
    parent: Option<Context>,
    vars: Vec<(Arc<str>, Value)>,
    functions: Vec<Arc<FunctionDef>>,
    library: Arc<Library>,
}

/// A context: variables and functions, with a parent chain. Immutable once
/// shared; "setting" a variable on a shared context makes a child.
#[derive(Clone)]
pub struct Context(Arc<Frame>);

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<context>")
    }
}

/// A weak handle on a context.
#[derive(Clone)]
pub(crate) struct WeakContext(std::sync::Weak<Frame>);

impl WeakContext {
    pub(crate) fn upgrade(&self) -> Option<Context> {
        self.0.upgrade().map(Context)
    }
}

/// Normalises a variable name the way yaql does: a leading `$` is added
/// when missing and `$` means `$1`.
pub(crate) fn normalize_var(name: &str) -> Arc<str> {
    if name == "$" || name.is_empty() {
        "$1".into()
    } else if name.starts_with('$') {
        name.into()
    } else {
        format!("${name}").into()
    }
}

impl Context {
    /// A root context over a library.
    pub fn new(library: Arc<Library>) -> Context {
        Context(Arc::new(Frame {
            parent: None,
            vars: Vec::new(),
            functions: Vec::new(),
            library,
        }))
    }

    /// An empty child context.
    pub fn child(&self) -> Context {
        Context(Arc::new(Frame {
            parent: Some(self.clone()),
            vars: Vec::new(),
            functions: Vec::new(),
            library: self.0.library.clone(),
        }))
    }

    /// A child with these variables (names normalised as yaql does).
    pub(crate) fn child_with(&self, vars: Vec<(Arc<str>, Value)>) -> Context {
        Context(Arc::new(Frame {
            parent: Some(self.clone()),
            vars,
            functions: Vec::new(),
            library: self.0.library.clone(),
        }))
    }

    /// Binds a variable (`"$"`, `"$name"` or `"name"`). When this context is
    /// shared, it is copied first (copy on write).
    pub fn set(&mut self, name: &str, value: Value) {
        let name = normalize_var(name);
        let frame = self.frame_mut();
        if let Some(slot) = frame.vars.iter_mut().find(|(n, _)| *n == name) {
            slot.1 = value;
        } else {
            frame.vars.push((name, value));
        }
    }

    /// Builder form of [`Context::set`].
    pub fn with(mut self, name: &str, value: Value) -> Context {
        self.set(name, value);
        self
    }

    /// Registers a function in this context (it hides library functions of
    /// the same name that are not more specific).
    pub fn register(&mut self, def: FunctionDef) {
        self.frame_mut().functions.push(Arc::new(def));
    }

    fn frame_mut(&mut self) -> &mut Frame {
        if Arc::get_mut(&mut self.0).is_none() {
            let f = &*self.0;
            self.0 = Arc::new(Frame {
                parent: f.parent.clone(),
                vars: f.vars.clone(),
                functions: f.functions.clone(),
                library: f.library.clone(),
            });
        }
        match Arc::get_mut(&mut self.0) {
            Some(f) => f,
            None => unreachable!("just made unique"),
        }
    }

    /// The value of a variable, searching parents.
    pub fn get(&self, name: &str) -> Option<&Value> {
        let name = normalize_var(name);
        self.lookup(&name)
    }

    /// Lookup of an already normalised name.
    pub(crate) fn lookup(&self, name: &str) -> Option<&Value> {
        let mut frame = &*self.0;
        loop {
            for (n, v) in frame.vars.iter().rev() {
                if &**n == name {
                    return Some(v);
                }
            }
            match &frame.parent {
                Some(p) => frame = &p.0,
                None => return None,
            }
        }
    }

    /// Every variable binding visible from this context, innermost context
    /// first (bindings a child shadows are listed too): what the context
    /// keeps alive, for a host's garbage collector.
    pub fn bindings(&self) -> Vec<(&str, &Value)> {
        let mut out = Vec::new();
        let mut frame = &*self.0;
        loop {
            out.extend(frame.vars.iter().rev().map(|(n, v)| (&**n, v)));
            match &frame.parent {
                Some(p) => frame = &p.0,
                None => return out,
            }
        }
    }

    /// The library.
    pub fn library(&self) -> &Arc<Library> {
        &self.0.library
    }

    /// Overload layers for `name`: context-defined functions first (one
    /// layer per context that defines any), then the library's layers.
    pub(crate) fn collect<'a>(&'a self, name: &str, out: &mut Vec<&'a [Arc<FunctionDef>]>) {
        let mut frame = &*self.0;
        loop {
            if !frame.functions.is_empty() {
                // A frame usually defines one function; store per-name runs.
                let defs = &frame.functions[..];
                if defs.iter().any(|d| &*d.name == name) {
                    out.push(defs);
                }
            }
            match &frame.parent {
                Some(p) => frame = &p.0,
                None => break,
            }
        }
        self.0.library.lookup(name, out);
    }

    /// A child context defining one function, built from a weak handle on
    /// that child itself (so the function can see its own definition
    /// without a reference cycle).
    pub(crate) fn child_with_def(&self, make: impl FnOnce(WeakContext) -> FunctionDef) -> Context {
        let parent = self.clone();
        let library = self.0.library.clone();
        Context(Arc::new_cyclic(|weak| {
            let def = make(WeakContext(weak.clone()));
            Frame {
                parent: Some(parent),
                vars: Vec::new(),
                functions: vec![Arc::new(def)],
                library,
            }
        }))
    }

    /// Identity comparison.
    pub fn ptr_eq(&self, other: &Context) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// An address that identifies this context (for hashing consistently
    /// with [`Context::ptr_eq`]).
    pub(crate) fn identity(&self) -> usize {
        Arc::as_ptr(&self.0) as *const u8 as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Engine;

    fn eval(lib: Library, expr: &str) -> Value {
        let ctx = Context::new(Arc::new(lib));
        let q = Engine::standard()
            .compile(expr)
            .unwrap_or_else(|e| panic!("{expr}: {e}"));
        q.evaluate(&ctx).unwrap_or_else(|e| panic!("{expr}: {e}"))
    }

    #[test]
    fn aliases_are_registered_like_yaql() {
        let lib = || Library::standard(false);
        assert_eq!(
            eval(lib(), "[1, 2, 3].filter($ > 1).map($ * 10)"),
            eval(lib(), "[20, 30]")
        );
        assert_eq!(eval(lib(), "[1, 2, 3].reduce($1 + $2)"), Value::Int(6));
        // The alias keeps the original's forms: `filter` is method-only.
        let ctx = Context::new(Arc::new(lib()));
        let err = Engine::standard()
            .compile("filter([1], true)")
            .unwrap()
            .evaluate(&ctx)
            .unwrap_err();
        assert_eq!(err.python_name(), "NoFunctionRegisteredException");
    }

    #[test]
    fn a_property_nobody_defines_is_an_unknown_function() {
        // yaql's `get_property` delegates to `#property#name`: with no such
        // function that is `NoFunctionRegisteredException` (null, numbers,
        // strings alike), not a mismatch of `#operator_.`.
        let ctx = Context::new(Arc::new(Library::standard(false)));
        for expr in ["null.stdout", "1.stdout", "'a'.stdout"] {
            let err = Engine::standard()
                .compile(expr)
                .unwrap()
                .evaluate(&ctx)
                .unwrap_err();
            assert_eq!(err.python_name(), "NoFunctionRegisteredException", "{expr}");
            assert_eq!(
                err.message(),
                "Unknown function \"#property#stdout\"",
                "{expr}"
            );
        }
    }

    #[test]
    fn overloads_are_listed_with_their_signatures() {
        let lib = Library::standard(false);
        let set: Vec<Vec<&str>> = lib
            .overloads_of("set")
            .filter(|d| d.is_method())
            .map(|d| d.param_names().collect())
            .collect();
        assert!(set.contains(&vec!["dict", "key", "value"]));
        assert!(set.contains(&vec!["dict", "replacements"]));
        assert!(lib.overloads().any(|(_, d)| d.name() == "#operator_."));
        let where_ = lib.overloads_of("where").next().unwrap();
        assert!(where_.is_lazy_param(1) && !where_.is_lazy_param(0));
    }

    #[test]
    fn dict_set_overloads() {
        let lib = || Library::standard(false);
        assert_eq!(
            eval(lib(), "{a => 1}.set(b, 2)"),
            eval(lib(), "{a => 1, b => 2}")
        );
        assert_eq!(
            eval(lib(), "{a => 1}.set({b => 2})"),
            eval(lib(), "{a => 1, b => 2}")
        );
        assert_eq!(
            eval(lib(), "{a => 1}.set(b => 2, a => 3)"),
            eval(lib(), "{a => 3, b => 2}")
        );
    }

    #[test]
    fn dot_operator_is_callable_by_name() {
        let lib = Arc::new(Library::standard(false));
        let ctx = Context::new(lib);
        let d = Value::dict([(Value::str("k"), Value::Int(5))]);
        let i = crate::eval::Interp::new(crate::eval::Options::default());
        let got = i
            .call_values(
                "#operator_.",
                &ctx,
                vec![d, Value::str("k")],
                Vec::new(),
                false,
            )
            .unwrap();
        assert_eq!(got, Value::Int(5));
        let got = i
            .call_values(
                "#operator_?.",
                &ctx,
                vec![Value::Null, Value::str("k")],
                Vec::new(),
                false,
            )
            .unwrap();
        assert_eq!(got, Value::Null);
    }

    #[derive(Debug)]
    struct Counter;

    impl crate::eval::HostObject for Counter {
        fn type_name(&self) -> &str {
            "Counter"
        }
        fn property(&self, name: &str) -> Result<Option<Value>, crate::eval::Error> {
            if name == "broken" {
                return Err(crate::eval::Error::host(std::fmt::Error));
            }
            Ok((name == "size").then_some(Value::Int(3)))
        }
        fn item(&self, key: &Value) -> Option<Value> {
            key.as_int().map(|i| Value::Int(i * 10))
        }
        fn has_methods(&self) -> bool {
            true
        }
        fn call_method(
            &self,
            name: &str,
            args: &[Value],
            kwargs: &[(Arc<str>, Value)],
        ) -> Result<Value, crate::eval::Error> {
            match name {
                "add" => {
                    let by = kwargs.iter().find(|(k, _)| &**k == "by").map(|(_, v)| v);
                    let n = args.first().and_then(Value::as_int).unwrap_or(0);
                    Ok(Value::Int(n + by.and_then(Value::as_int).unwrap_or(1)))
                }
                _ => Err(crate::eval::Error::new(
                    crate::eval::ErrorKind::AttributeError,
                    format!("no {name}"),
                )),
            }
        }
    }

    #[test]
    fn host_objects_have_attributes_items_and_methods() {
        let ctx = Context::new(Arc::new(Library::standard(false)))
            .with("$", Value::Object(Arc::new(Counter)));
        let run = |e: &str| Engine::standard().compile(e).unwrap().evaluate(&ctx);
        assert_eq!(run("$.size").unwrap(), Value::Int(3));
        assert_eq!(run("$[4]").unwrap(), Value::Int(40));
        assert_eq!(run("$.add(1)").unwrap(), Value::Int(2));
        assert_eq!(run("$.add(1, by => 5)").unwrap(), Value::Int(6));
        // Its own methods replace YAQL's: `len` is not one of them.
        assert_eq!(run("$.len()").unwrap_err().python_name(), "AttributeError");
        assert_eq!(run("$?.add(2)").unwrap(), Value::Int(3));
    }

    #[test]
    fn a_failed_property_read_raises_its_own_error() {
        let ctx = Context::new(Arc::new(Library::standard(false)))
            .with("$", Value::Object(Arc::new(Counter)));
        let run = |e: &str| Engine::standard().compile(e).unwrap().evaluate(&ctx);
        let e = run("[$.size, $.broken]").unwrap_err();
        assert!(e.downcast_ref::<std::fmt::Error>().is_some(), "{e}");
        // A property the object does not have is yaql's AttributeError.
        assert_eq!(run("$.other").unwrap_err().python_name(), "AttributeError");
    }

    #[test]
    fn bindings_list_every_visible_variable_innermost_first() {
        let root = Context::new(Arc::new(Library::empty())).with("a", Value::Int(1));
        let mut child = root.child();
        child.set("b", Value::Int(2));
        child.set("a", Value::Int(3));
        let names: Vec<(&str, Value)> = child
            .bindings()
            .into_iter()
            .map(|(n, v)| (n, v.clone()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("$a", Value::Int(3)),
                ("$b", Value::Int(2)),
                ("$a", Value::Int(1))
            ]
        );
        assert!(Context::new(Arc::new(Library::empty()))
            .bindings()
            .is_empty());
    }
}
