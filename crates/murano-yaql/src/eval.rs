//! The YAQL evaluator: values, contexts, overload resolution, the standard
//! library (and yaql 0.2 legacy mode), engine options and limits.
//!
//! ```
//! use std::sync::Arc;
//! use murano_yaql::eval::{Context, Engine, Library, Value};
//!
//! let engine = Engine::standard();
//! let ctx = Context::new(Arc::new(Library::standard(true)))
//!     .with("$", Value::tuple(vec![Value::Int(1), Value::Int(2), Value::Int(3)]));
//! let query = engine.compile("$.where($ > 1).select($ * 10)")?;
//! let out = query.evaluate(&ctx)?;
//! assert_eq!(out, Value::List(Arc::new(vec![Value::Int(20), Value::Int(30)])));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Layers
//!
//! The interpreter (values, contexts, functions, overload resolution) knows
//! nothing of the standard library: the `stdlib` modules stand on it, as
//! jaq-std stands on jaq-core, and build the libraries
//! ([`Library::standard`], [`Library::legacy`]). Dates are printed by a
//! calendar module below the values, which the datetime functions use too.
//! A unit test (`layering`) keeps the interpreter's sources free of
//! `stdlib` references.
//!
//! Host functions register through [`FunctionDef`]: plain closures over a
//! [`Call`], which gives typed access to arguments, lazy arguments as
//! [`Lambda`]s, the receiver (argument 0 in method syntax), keyword
//! arguments and the calling [`Context`].
//!
//! ```
//! use std::sync::Arc;
//! use murano_yaql::eval::{Context, Engine, FunctionDef, Library, Value};
//!
//! let mut lib = Library::standard(false);
//! lib.push_layer();
//! lib.register(FunctionDef::native("twice", "x", |call| {
//!     let n = call.int(0)?; // a non-integer makes this overload not match
//!     Ok(Value::Int(n * 2))
//! }).extension());
//! let ctx = Context::new(Arc::new(lib));
//! let out = Engine::standard().compile("21.twice() + twice(0)")?.evaluate(&ctx)?;
//! assert_eq!(out, Value::Int(42));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

mod context;
mod error;
mod func;
mod interp;
mod memory;
mod stdlib;
mod value;

pub use context::{Context, Library};
pub use error::{Cause, Error, ErrorKind};
pub use func::{Arg, Call, FunctionDef, LazyExpr, NativeFn, ParamType};
use interp::Node;
pub use interp::{Interp, Lambda};
pub use memory::{shallow_bytes, MemoryBudget, Recount, ENTRY_BYTES, ITEM_BYTES};
pub use value::{
    py_cmp, DateTime, Dict, HostObject, KeyBuild, KeyHasher, LazyIter, MatchValue, RegexValue, Set,
    Value, ValueIter, MAX_PRINT_DEPTH,
};

use crate::{Grammar, ParseError};

/// Engine options, as yaql's `engine.options` define them, plus the limits
/// of this implementation.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// `yaql.limitIterators`: longest collection an iteration may visit
    /// (`None` = unlimited).
    pub limit_iterators: Option<usize>,
    /// `yaql.memoryQuota` (bytes). Recorded but only approximated: see the
    /// crate's compatibility notes.
    pub memory_quota: Option<usize>,
    /// `yaql.convertSetsToLists` (output conversion).
    pub convert_sets_to_lists: bool,
    /// `yaql.convertTuplesToLists` (output conversion).
    pub convert_tuples_to_lists: bool,
    /// `yaql.iterableDicts`: dicts are iterable (over keys).
    pub iterable_dicts: bool,
    /// `yaql.convertOutputData`: apply output conversion at all.
    pub convert_output: bool,
    /// Step budget per evaluation (`None` = unlimited). A step is one
    /// call or `.`; each item of an iteration, and the length of every
    /// collection or string a function receives or returns (one step per
    /// 16 items or 256 bytes), costs steps too, so work on huge values
    /// pays in proportion.
    pub fuel: Option<u64>,
    /// Deepest nesting of calls during evaluation.
    pub max_depth: usize,
    /// Longest string, in bytes, that a function may build: `str()`,
    /// `join()`, concatenation, repetition and every other printing of a
    /// value. Values that share structure (`[$1, $1]` repeated) are small
    /// in memory but exponentially long as text; their printing stops
    /// here with [`ErrorKind::MemoryQuotaExceeded`]. Default
    /// [`DEFAULT_MAX_STRING_LEN`].
    pub max_string_len: usize,
    /// The memory budget of the run this evaluation belongs to (`None`:
    /// none): every new string or collection a function returns is
    /// charged to it, and passing it is a
    /// [`ErrorKind::MemoryQuotaExceeded`] error (see [`MemoryBudget`]).
    pub memory: Option<Arc<MemoryBudget>>,
}

/// The string length limit of [`Options::default`]: 64 MiB.
pub const DEFAULT_MAX_STRING_LEN: usize = 64 * 1024 * 1024;

/// The iterator limit of [`Options::default`].
pub const DEFAULT_LIMIT_ITERATORS: usize = 1_000_000;

/// The fuel of [`Options::default`]: about a second of evaluation.
pub const DEFAULT_FUEL: u64 = 10_000_000;

impl Default for Options {
    /// yaql's defaults (tuples become lists, sets stay sets) with safe
    /// limits, which yaql does not have: at most
    /// [`DEFAULT_LIMIT_ITERATORS`] items per iteration (so `sequence()`
    /// ends), [`DEFAULT_FUEL`] steps, and a recursion limit of 200. Set
    /// `limit_iterators` and `fuel` to `None` for yaql's unbounded
    /// behaviour on trusted input.
    fn default() -> Options {
        Options {
            limit_iterators: Some(DEFAULT_LIMIT_ITERATORS),
            memory_quota: None,
            convert_sets_to_lists: false,
            convert_tuples_to_lists: true,
            iterable_dicts: false,
            convert_output: true,
            fuel: Some(DEFAULT_FUEL),
            max_depth: 200,
            max_string_len: DEFAULT_MAX_STRING_LEN,
            memory: None,
        }
    }
}

impl Options {
    /// The options of Murano's `ENGINE_10` (format 1.0/1.1 packages):
    /// iterator limit 2000, memory quota 512 KiB, sets and tuples become
    /// lists, dicts are iterable.
    pub fn murano_engine_10() -> Options {
        Options {
            limit_iterators: Some(2000),
            memory_quota: Some(512 * 1024),
            convert_sets_to_lists: true,
            convert_tuples_to_lists: true,
            iterable_dicts: true,
            ..Options::default()
        }
    }

    /// The options of Murano's `ENGINE_12` (format 1.2 and later): as
    /// [`Options::murano_engine_10`] without iterable dicts.
    pub fn murano_engine_12() -> Options {
        Options {
            iterable_dicts: false,
            ..Options::murano_engine_10()
        }
    }

    /// Sets `yaql.*` options by their yaql names; unknown names are ignored.
    pub fn set_yaql_option(&mut self, name: &str, value: &Value) {
        let as_usize = |v: &Value| match v {
            Value::Int(n) if *n >= 0 => Some(*n as usize),
            _ => None,
        };
        match name {
            "yaql.limitIterators" => self.limit_iterators = as_usize(value),
            "yaql.memoryQuota" => self.memory_quota = as_usize(value),
            "yaql.convertSetsToLists" => self.convert_sets_to_lists = value.truthy(),
            "yaql.convertTuplesToLists" => self.convert_tuples_to_lists = value.truthy(),
            "yaql.iterableDicts" => self.iterable_dicts = value.truthy(),
            "yaql.convertOutputData" => self.convert_output = value.truthy(),
            _ => {}
        }
    }
}

/// An engine: a grammar and options (yaql's `YaqlFactory(...).create()`).
#[derive(Debug, Clone)]
pub struct Engine {
    grammar: Grammar,
    options: Options,
}

impl Engine {
    /// An engine from a grammar and options.
    pub fn new(grammar: Grammar, options: Options) -> Engine {
        Engine { grammar, options }
    }

    /// The standard grammar with delegates and default options.
    pub fn standard() -> Engine {
        Engine::new(Grammar::standard_with_delegates(), Options::default())
    }

    /// yaql's legacy engine: legacy grammar, tuples kept, iterable dicts.
    pub fn legacy() -> Engine {
        Engine::new(
            Grammar::legacy(),
            Options {
                convert_tuples_to_lists: false,
                iterable_dicts: true,
                ..Options::default()
            },
        )
    }

    /// Murano's engine for a package format: `ENGINE_10` options up to
    /// runtime 1.1, `ENGINE_12` after, both with Murano's grammar.
    pub fn murano(format_1_2_or_later: bool) -> Engine {
        let options = if format_1_2_or_later {
            Options::murano_engine_12()
        } else {
            Options::murano_engine_10()
        };
        Engine::new(Grammar::murano(), options)
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Mutable options.
    pub fn options_mut(&mut self) -> &mut Options {
        &mut self.options
    }

    /// The grammar.
    pub fn grammar(&self) -> &Grammar {
        &self.grammar
    }

    /// Parses and compiles an expression.
    pub fn compile(&self, source: &str) -> Result<Query, ParseError> {
        let expr = self.grammar.parse(source)?;
        Ok(self.compile_parsed(&expr))
    }

    /// Compiles an already parsed expression.
    pub fn compile_parsed(&self, expr: &crate::Expression) -> Query {
        Query {
            root: interp::compile(expr.root()),
            options: self.options.clone(),
        }
    }

    /// Compiles one node of a parsed tree, for instance a sub-expression
    /// (the index of an assignment target `$x[$i + 1]`).
    pub fn compile_expr(&self, expr: &crate::Expr) -> Query {
        Query {
            root: interp::compile(expr),
            options: self.options.clone(),
        }
    }
}

/// A compiled expression bound to engine options.
#[derive(Debug, Clone)]
pub struct Query {
    root: Result<Arc<Node>, Error>,
    options: Options,
}

impl Query {
    /// The compiled tree (or the error compiling it gave).
    pub(crate) fn root(&self) -> Result<&Arc<Node>, Error> {
        self.root.as_ref().map_err(Clone::clone)
    }

    /// Evaluates and applies output conversion (yaql's `#finalize`):
    /// iterators become lists, tuples and sets as the options say.
    pub fn evaluate(&self, ctx: &Context) -> Result<Value, Error> {
        let interp = Interp::new(self.options.clone());
        let v = self.run(&interp, ctx)?;
        if self.options.convert_output {
            convert_output(&interp, &v)
        } else {
            Ok(v)
        }
    }

    /// [`Query::evaluate`] with tuples kept as tuples whatever the options
    /// say, for a caller that makes every list a tuple afterwards anyway
    /// (MuranoPL freezes each result): a value already in that form then
    /// comes back as it is, its sharing kept, instead of being copied
    /// into lists and back at each evaluation.
    pub fn evaluate_keeping_tuples(&self, ctx: &Context) -> Result<Value, Error> {
        self.evaluate_keeping_tuples_within(ctx, None)
    }

    /// [`Query::evaluate_keeping_tuples`] charging what it builds to
    /// `memory` (a run's [`MemoryBudget`]) instead of the budget the
    /// options name.
    pub fn evaluate_keeping_tuples_within(
        &self,
        ctx: &Context,
        memory: Option<&Arc<MemoryBudget>>,
    ) -> Result<Value, Error> {
        let options = Options {
            convert_tuples_to_lists: false,
            memory: memory.cloned().or_else(|| self.options.memory.clone()),
            ..self.options.clone()
        };
        let interp = Interp::new(options);
        let v = self.run(&interp, ctx)?;
        if self.options.convert_output {
            convert_output(&interp, &v)
        } else {
            Ok(v)
        }
    }

    /// Evaluates without output conversion (the result may be lazy).
    pub fn evaluate_raw(&self, ctx: &Context) -> Result<Value, Error> {
        let interp = Interp::new(self.options.clone());
        self.run(&interp, ctx)
    }

    fn run(&self, interp: &Interp, ctx: &Context) -> Result<Value, Error> {
        match &self.root {
            Ok(root) => interp.eval(root, ctx, None),
            Err(e) => Err(e.clone()),
        }
    }
}

/// yaql's output conversion (`utils.convert_output_data`).
///
/// A collection met again (the same shared node, as `[$1, $1]` builds)
/// is converted once and shared in the result, so the work is linear in
/// the value's size in memory, not in its printed size; each node costs a
/// step of fuel.
pub fn convert_output(interp: &Interp, v: &Value) -> Result<Value, Error> {
    convert_output_shared(interp, v, &mut std::collections::HashMap::new(), 0)
}

fn convert_output_shared(
    interp: &Interp,
    v: &Value,
    seen: &mut std::collections::HashMap<usize, (Value, Value)>,
    depth: usize,
) -> Result<Value, Error> {
    let address = v.collection_address();
    if let Some((_, done)) = address.and_then(|a| seen.get(&a)) {
        return Ok(done.clone());
    }
    let depth = depth + 1;
    if depth > value::MAX_PRINT_DEPTH && address.is_some() {
        return Err(value::too_deep());
    }
    interp.step()?;
    let opts = interp.options();
    let out = match v {
        Value::Dict(d) => {
            if let Some(l) = opts.limit_iterators {
                if d.len() > l {
                    return Err(Error::new(
                        ErrorKind::CollectionTooLarge,
                        format!("Collection length exceeds {l} elements"),
                    ));
                }
            }
            let mut pairs = Vec::with_capacity(d.len());
            let mut unchanged = true;
            for (k, x) in d.iter() {
                let (k2, x2) = (
                    convert_output_shared(interp, k, seen, depth)?,
                    convert_output_shared(interp, x, seen, depth)?,
                );
                unchanged &= same_node(k, &k2) && same_node(x, &x2);
                pairs.push((k2, x2));
            }
            if unchanged {
                v.clone()
            } else {
                Value::Dict(Arc::new(pairs.into_iter().collect()))
            }
        }
        Value::Set(_) => {
            let items = collect_converted(interp, v, seen, depth)?;
            if opts.convert_sets_to_lists {
                Value::List(Arc::new(items))
            } else {
                Value::Set(Arc::new(items.into_iter().collect()))
            }
        }
        Value::Tuple(old) | Value::List(old) => {
            let items = collect_converted(interp, v, seen, depth)?;
            // Items unchanged: the same vector serves (converting it again
            // at every evaluation copied shared values apart).
            let same =
                items.len() == old.len() && old.iter().zip(&items).all(|(a, b)| same_node(a, b));
            let items = if same { old.clone() } else { Arc::new(items) };
            if opts.convert_tuples_to_lists || matches!(v, Value::List(_)) {
                Value::List(items)
            } else {
                Value::Tuple(items)
            }
        }
        Value::Iter(_) => Value::List(Arc::new(collect_converted(interp, v, seen, depth)?)),
        other => other.clone(),
    };
    if let Some(a) = address {
        // The input is kept too: an item of a lazy iterator would
        // otherwise be freed, and its address reused by another one.
        seen.insert(a, (v.clone(), out.clone()));
    }
    Ok(out)
}

/// Whether a conversion gave `before` back as it was: the same collection
/// in the same form, or a scalar (scalars are copied as they are).
fn same_node(before: &Value, after: &Value) -> bool {
    match (before, after) {
        (Value::List(a), Value::List(b)) | (Value::Tuple(a), Value::Tuple(b)) => Arc::ptr_eq(a, b),
        (Value::Dict(a), Value::Dict(b)) => Arc::ptr_eq(a, b),
        (Value::Set(a), Value::Set(b)) => Arc::ptr_eq(a, b),
        (a, _) => a.collection_address().is_none() && !matches!(a, Value::Iter(_)),
    }
}

fn collect_converted(
    interp: &Interp,
    v: &Value,
    seen: &mut std::collections::HashMap<usize, (Value, Value)>,
    depth: usize,
) -> Result<Vec<Value>, Error> {
    let mut out = Vec::new();
    for item in interp.limited_iter(v)? {
        out.push(convert_output_shared(interp, &item?, seen, depth)?);
    }
    Ok(out)
}

/// yaql's input conversion (`utils.convert_input_data`): lists become
/// tuples, sets frozen sets (already the case for [`Value`]), recursively.
pub fn convert_input(v: Value) -> Value {
    match v {
        Value::List(items) | Value::Tuple(items) => {
            Value::Tuple(Arc::new(items.iter().cloned().map(convert_input).collect()))
        }
        Value::Dict(d) => Value::Dict(Arc::new(
            d.iter()
                .map(|(k, x)| (convert_input(k.clone()), convert_input(x.clone())))
                .collect(),
        )),
        Value::Set(s) => Value::Set(Arc::new(s.iter().cloned().map(convert_input).collect())),
        other => other,
    }
}

#[cfg(test)]
mod layering {
    /// The interpreter's modules, which must not reach up into the
    /// standard library.
    const INTERPRETER: [(&str, &str); 6] = [
        ("eval/context.rs", include_str!("eval/context.rs")),
        ("eval/error.rs", include_str!("eval/error.rs")),
        ("eval/func.rs", include_str!("eval/func.rs")),
        ("eval/interp.rs", include_str!("eval/interp.rs")),
        ("eval/value.rs", include_str!("eval/value.rs")),
        (
            "eval/value/calendar.rs",
            include_str!("eval/value/calendar.rs"),
        ),
    ];

    /// Code lines (comments dropped) of a source file.
    fn code(source: &str) -> impl Iterator<Item = (usize, &str)> {
        source
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.split("//").next().unwrap_or("")))
    }

    #[test]
    fn the_interpreter_does_not_import_the_standard_library() {
        for (file, source) in INTERPRETER {
            for (line, text) in code(source) {
                assert!(
                    !text.contains("stdlib"),
                    "{file}:{line} reaches into the standard library: {text}"
                );
            }
        }
        // The evaluator's root only declares the module (this test, at
        // its end, is left out).
        let root = include_str!("eval.rs");
        let root = root.split("mod layering {").next().unwrap_or(root);
        for (line, text) in code(root) {
            if text.contains("stdlib") {
                assert_eq!(text.trim(), "mod stdlib;", "eval.rs:{line}");
            }
        }
    }

    #[test]
    fn the_calendar_stands_alone() {
        for (line, text) in code(include_str!("eval/value/calendar.rs")) {
            for upward in ["super::", "crate::eval"] {
                assert!(
                    !text.contains(upward),
                    "eval/value/calendar.rs:{line} imports {upward}: {text}"
                );
            }
        }
    }

    #[test]
    fn the_grammar_does_not_import_the_lexer() {
        for (line, text) in code(include_str!("grammar.rs")) {
            assert!(
                !text.contains("lexer"),
                "grammar.rs:{line} imports the lexer: {text}"
            );
        }
    }
}
