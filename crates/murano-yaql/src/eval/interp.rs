//! The interpreter: compiled nodes, evaluation, overload resolution.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering as AtOrd};
use std::sync::Arc;

use super::context::{normalize_var, Context};
use super::error::{Error, ErrorKind};
use super::func::{Arg, Call, FunctionDef, LazyExpr};
use super::memory::{same_allocation, shallow_bytes, MemoryBudget};
use super::value::{Value, ValueIter};
use super::Options;
use crate::ast::{Constant, Expr, ExprKind, Number};
use crate::span::Span;

/// A compiled node: the syntax tree with names normalised, constants turned
/// into values and children shared, so that lazy arguments can keep them.
#[derive(Debug)]
pub(crate) enum Node {
    /// A constant value.
    Const(Value),
    /// A bare identifier used as a string.
    Keyword(Arc<str>),
    /// A variable, name normalised (`$` is `$1`).
    Var(Arc<str>),
    /// A function call, operator or built-in list/map/index/call form.
    Call {
        /// Function name (`#operator_+`, `#list`…).
        name: Arc<str>,
        /// Arguments.
        args: Box<[ArgNode]>,
        /// Where.
        span: Span,
    },
    /// `a.b` / `a?.b`.
    Dot {
        /// Receiver.
        left: Arc<Node>,
        /// Member: a call, keyword or other expression.
        right: Arc<Node>,
        /// `?.`.
        elvis: bool,
        /// Where.
        span: Span,
    },
    /// Parentheses (stop receiver use).
    Wrap(Arc<Node>),
}

/// An argument node.
#[derive(Debug)]
pub(crate) enum ArgNode {
    /// A positional argument.
    Pos(Arc<Node>),
    /// `f(, x)`.
    NoValue,
    /// `name => value`: the source node, its keyword name if it is one, and
    /// the destination.
    Mapping(Arc<Node>, Option<Arc<str>>, Arc<Node>),
}

/// Compiles a parsed tree.
pub(crate) fn compile(expr: &Expr) -> Result<Arc<Node>, Error> {
    Ok(Arc::new(compile_node(expr)?))
}

fn compile_args(args: &[Expr]) -> Result<Box<[ArgNode]>, Error> {
    args.iter().map(compile_arg).collect()
}

fn compile_arg(e: &Expr) -> Result<ArgNode, Error> {
    Ok(match &e.kind {
        ExprKind::NoValue => ArgNode::NoValue,
        ExprKind::MappingRule {
            source,
            destination,
        } => {
            let kw = match &source.kind {
                ExprKind::Keyword(k) => Some(Arc::from(&**k)),
                _ => None,
            };
            ArgNode::Mapping(compile(source)?, kw, compile(destination)?)
        }
        _ => ArgNode::Pos(compile(e)?),
    })
}

fn compile_node(e: &Expr) -> Result<Node, Error> {
    let span = e.span;
    Ok(match &e.kind {
        ExprKind::Constant(c) => Node::Const(match c {
            Constant::Null => Value::Null,
            Constant::Bool(b) => Value::Bool(*b),
            Constant::String(s) => Value::Str(Arc::from(&**s)),
            Constant::Number(Number::Int(n)) => Value::Int(*n),
            Constant::Number(Number::Float(f)) => Value::Float(*f),
            Constant::Number(Number::BigInt(d)) => {
                return Err(Error::new(
                    ErrorKind::Overflow,
                    format!("integer literal {d} does not fit in 64 bits"),
                )
                .at(span))
            }
        }),
        ExprKind::Keyword(k) => Node::Keyword(Arc::from(&**k)),
        ExprKind::Variable(v) => Node::Var(normalize_var(v)),
        ExprKind::Wrap(inner) => Node::Wrap(compile(inner)?),
        ExprKind::Binary { op, operands }
            if matches!(op.function(), "#operator_." | "#operator_?.") =>
        {
            Node::Dot {
                left: compile(&operands[0])?,
                right: compile(&operands[1])?,
                elvis: op.function() == "#operator_?.",
                span,
            }
        }
        ExprKind::Binary { op, operands } => Node::Call {
            name: op.function().into(),
            args: compile_args(&operands[..])?,
            span,
        },
        ExprKind::Unary { op, operand, .. } => Node::Call {
            name: op.function().into(),
            args: compile_args(std::slice::from_ref(&**operand))?,
            span,
        },
        ExprKind::Call { name, args } => Node::Call {
            name: Arc::from(&**name),
            args: compile_args(args)?,
            span,
        },
        ExprKind::CallValue { callee, args } => {
            let mut all = vec![ArgNode::Pos(compile(callee)?)];
            all.extend(compile_args(args)?.into_vec());
            Node::Call {
                name: "#call".into(),
                args: all.into_boxed_slice(),
                span,
            }
        }
        ExprKind::Index { target, args } => {
            let mut all = vec![ArgNode::Pos(compile(target)?)];
            all.extend(compile_args(args)?.into_vec());
            Node::Call {
                name: "#indexer".into(),
                args: all.into_boxed_slice(),
                span,
            }
        }
        ExprKind::List(args) => Node::Call {
            name: "#list".into(),
            args: compile_args(args)?,
            span,
        },
        ExprKind::Map(args) => Node::Call {
            name: "#map".into(),
            args: compile_args(args)?,
            span,
        },
        ExprKind::MappingRule {
            source,
            destination,
        } => {
            // Outside an argument list (legacy grammar makes `=>` an operator,
            // so this only happens in custom grammars): a pair.
            Node::Call {
                name: "#operator_=>".into(),
                args: vec![
                    ArgNode::Pos(compile(source)?),
                    ArgNode::Pos(compile(destination)?),
                ]
                .into_boxed_slice(),
                span,
            }
        }
        ExprKind::NoValue => Node::Const(Value::Null),
    })
}

/// Per-evaluation state shared by lazy iterators: options, fuel, depth.
#[derive(Debug)]
pub(crate) struct Runtime {
    pub(crate) options: Options,
    fuel: AtomicU64,
    depth: AtomicU32,
    /// Bytes charged to the memory budget by this evaluation, given back
    /// as in flight when it ends (see `MemoryBudget::settle`).
    built: AtomicU64,
}

impl Runtime {
    fn new(options: Options, fuel: u64) -> Runtime {
        Runtime {
            options,
            fuel: AtomicU64::new(fuel),
            depth: AtomicU32::new(0),
            built: AtomicU64::new(0),
        }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(m) = &self.options.memory {
            m.settle(*self.built.get_mut());
        }
    }
}

/// A handle on a running evaluation. Cheap to clone; lazy iterators keep one.
#[derive(Debug, Clone)]
pub struct Interp {
    rt: Arc<Runtime>,
}

/// A lambda: an expression with the context it closes over (yaql's
/// `Lambda` parameters and `lambda()` values), or a native delegate.
pub struct Lambda {
    interp: Interp,
    ctx: Context,
    body: LambdaBody,
}

/// A host function used as a lambda.
pub(crate) type NativeLambda = dyn Fn(&[Value]) -> Result<Value, Error> + Send + Sync;

#[derive(Clone)]
enum LambdaBody {
    Expr(Arc<Node>),
    Const(Value),
    /// A function name called with the arguments (yaql `Delegate`).
    Function(Arc<str>),
    /// A host function (a Python callable passed to yaql).
    Native(Arc<NativeLambda>),
}

impl std::fmt::Debug for Lambda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<lambda>")
    }
}

impl Lambda {
    pub(crate) fn duplicate(&self) -> Lambda {
        Lambda {
            interp: self.interp.clone(),
            ctx: self.ctx.clone(),
            body: self.body.clone(),
        }
    }

    pub(crate) fn native(interp: Interp, ctx: Context, f: Arc<NativeLambda>) -> Lambda {
        Lambda {
            interp,
            ctx,
            body: LambdaBody::Native(f),
        }
    }

    /// The same lambda for calls made on another thread's stack (a host's
    /// green threads): the evaluation depth, which guards the stack, starts
    /// again from zero; the fuel is what the evaluation has left.
    pub fn on_new_stack(&self) -> Lambda {
        let rt = &self.interp.rt;
        Lambda {
            interp: Interp {
                rt: Arc::new(Runtime::new(
                    rt.options.clone(),
                    rt.fuel.load(AtOrd::Relaxed),
                )),
            },
            ctx: self.ctx.clone(),
            body: self.body.clone(),
        }
    }

    /// Calls with positional arguments: they become `$1`, `$2`… (`$` is `$1`).
    pub fn call(&self, args: &[Value]) -> Result<Value, Error> {
        match &self.body {
            LambdaBody::Native(f) => f(args),
            LambdaBody::Const(v) => Ok(v.clone()),
            LambdaBody::Expr(node) => {
                if args.is_empty() {
                    return self.interp.eval(node, &self.ctx, None);
                }
                let vars = args
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (index_var(i + 1), v.clone()))
                    .collect();
                let ctx = self.ctx.child_with(vars);
                self.interp.eval(node, &ctx, None)
            }
            LambdaBody::Function(name) => {
                self.interp
                    .call_values(name, &self.ctx, args.to_vec(), Vec::new(), false)
            }
        }
    }

    /// Calls with one argument.
    pub fn call1(&self, arg: Value) -> Result<Value, Error> {
        self.call(std::slice::from_ref(&arg))
    }

    /// Calls with positional and keyword arguments (`$name` for `name`).
    pub fn call_kw(&self, args: &[Value], kwargs: &[(Arc<str>, Value)]) -> Result<Value, Error> {
        match &self.body {
            LambdaBody::Expr(node) => {
                let mut vars: Vec<(Arc<str>, Value)> = args
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (index_var(i + 1), v.clone()))
                    .collect();
                for (k, v) in kwargs {
                    vars.push((normalize_var(k), v.clone()));
                }
                let ctx = self.ctx.child_with(vars);
                self.interp.eval(node, &ctx, None)
            }
            LambdaBody::Function(name) => {
                self.interp
                    .call_values(name, &self.ctx, args.to_vec(), kwargs.to_vec(), false)
            }
            LambdaBody::Const(v) => Ok(v.clone()),
            LambdaBody::Native(f) => f(args),
        }
    }

    /// Evaluates the body in the given context (yaql's `with_context`).
    pub fn call_in(&self, ctx: &Context) -> Result<Value, Error> {
        match &self.body {
            LambdaBody::Native(f) => f(&[]),
            LambdaBody::Expr(node) => self.interp.eval(node, ctx, None),
            LambdaBody::Const(v) => Ok(v.clone()),
            LambdaBody::Function(name) => {
                self.interp
                    .call_values(name, ctx, Vec::new(), Vec::new(), false)
            }
        }
    }

    /// The interpreter this lambda runs on.
    pub fn interp(&self) -> &Interp {
        &self.interp
    }
}

fn index_var(i: usize) -> Arc<str> {
    const NAMES: [&str; 6] = ["$0", "$1", "$2", "$3", "$4", "$5"];
    match NAMES.get(i) {
        Some(n) => Arc::from(*n),
        None => format!("${i}").into(),
    }
}

const DOT: &str = "#operator_.";

impl Interp {
    pub(crate) fn new(mut options: Options) -> Interp {
        if options.memory.is_none() {
            options.memory = super::memory::ambient();
        }
        let fuel = options.fuel.unwrap_or(u64::MAX);
        Interp {
            rt: Arc::new(Runtime::new(options, fuel)),
        }
    }

    /// The engine options in effect.
    pub fn options(&self) -> &Options {
        &self.rt.options
    }

    /// Charges one step of fuel.
    #[inline]
    pub(crate) fn step(&self) -> Result<(), Error> {
        let left = self.rt.fuel.fetch_sub(1, AtOrd::Relaxed);
        if left == 0 {
            self.rt.fuel.store(0, AtOrd::Relaxed);
            return Err(Error::new(
                ErrorKind::OutOfFuel,
                "evaluation step budget exhausted",
            ));
        }
        Ok(())
    }

    /// Charges `steps` steps of fuel at once, for work proportional to the
    /// size of a value (copying, scanning, comparing).
    #[inline]
    pub(crate) fn charge(&self, steps: u64) -> Result<(), Error> {
        if steps == 0 {
            return Ok(());
        }
        let left = self.rt.fuel.load(AtOrd::Relaxed);
        if left < steps {
            self.rt.fuel.store(0, AtOrd::Relaxed);
            return Err(Error::new(
                ErrorKind::OutOfFuel,
                "evaluation step budget exhausted",
            ));
        }
        self.rt.fuel.fetch_sub(steps, AtOrd::Relaxed);
        Ok(())
    }

    /// Charges for the values a function receives and returns: work in a
    /// native function grows with the size of its collections and strings,
    /// so a cheap-looking step over a huge value pays in proportion.
    fn charge_for_values<'v>(
        &self,
        values: impl IntoIterator<Item = &'v Value>,
    ) -> Result<(), Error> {
        let steps = values
            .into_iter()
            .map(size_cost)
            .fold(0u64, u64::saturating_add);
        self.charge(steps)
    }

    /// Charges the run's memory budget for a function's result, unless it
    /// is one of the arguments handed back (nothing was built).
    fn charge_built(
        &self,
        memory: &MemoryBudget,
        out: &Value,
        args: &[Arg],
        kwargs: &[(Arc<str>, Arg)],
    ) -> Result<(), Error> {
        let bytes = shallow_bytes(out);
        if bytes == 0 {
            return Ok(());
        }
        let passed_back = args
            .iter()
            .chain(kwargs.iter().map(|(_, a)| a))
            .any(|a| matches!(a, Arg::Value(v) if same_allocation(v, out)));
        if passed_back {
            return Ok(());
        }
        self.rt.built.fetch_add(bytes, AtOrd::Relaxed);
        memory.charge_in_flight(bytes)
    }

    pub(crate) fn lambda(&self, node: Arc<Node>, ctx: &Context) -> Lambda {
        Lambda {
            interp: self.clone(),
            ctx: ctx.clone(),
            body: LambdaBody::Expr(node),
        }
    }

    pub(crate) fn const_lambda(&self, v: Value, ctx: &Context) -> Lambda {
        Lambda {
            interp: self.clone(),
            ctx: ctx.clone(),
            body: LambdaBody::Const(v),
        }
    }

    /// A delegate calling the function `name`.
    pub fn delegate(&self, name: &str, ctx: &Context) -> Lambda {
        Lambda {
            interp: self.clone(),
            ctx: ctx.clone(),
            body: LambdaBody::Function(name.into()),
        }
    }

    /// yaql's `Iterable` check under the current options.
    pub fn is_iterable(&self, v: &Value) -> bool {
        v.is_iterable() || (self.rt.options.iterable_dicts && matches!(v, Value::Dict(_)))
    }

    /// Iterates an iterable value, enforcing `yaql.limitIterators`.
    pub fn limited_iter(&self, v: &Value) -> Result<ValueIter, Error> {
        let limit = self.rt.options.limit_iterators;
        let too_large = move || {
            Error::new(
                ErrorKind::CollectionTooLarge,
                format!("Collection length exceeds {} elements", limit.unwrap_or(0)),
            )
        };
        let len = match v {
            Value::List(x) | Value::Tuple(x) => Some(x.len()),
            Value::Set(s) => Some(s.len()),
            Value::Dict(d) => Some(d.len()),
            _ => None,
        };
        if let (Some(n), Some(l)) = (len, limit) {
            if n > l {
                return Err(too_large());
            }
        }
        let it = raw_iter(v)?;
        match (len, limit) {
            (None, Some(l)) => {
                let interp = self.clone();
                let mut i = 0usize;
                Ok(Box::new(it.map(move |item| {
                    if i >= l {
                        return Err(too_large());
                    }
                    i += 1;
                    interp.step()?;
                    item
                })))
            }
            (None, None) => {
                // No iterator limit: fuel alone ends an endless iterator.
                let interp = self.clone();
                Ok(Box::new(it.map(move |item| {
                    interp.step()?;
                    item
                })))
            }
            (Some(n), _) => {
                self.charge(n as u64 / COST_ITEMS_PER_STEP)?;
                Ok(it)
            }
        }
    }

    /// Evaluates a node. `receiver` is set when the node is the right side
    /// of `.` (method syntax).
    pub(crate) fn eval(
        &self,
        node: &Node,
        ctx: &Context,
        receiver: Option<&Value>,
    ) -> Result<Value, Error> {
        match node {
            Node::Const(v) => Ok(v.clone()),
            Node::Keyword(k) => Ok(Value::Str(k.clone())),
            Node::Var(name) => Ok(ctx.lookup(name).cloned().unwrap_or(Value::Null)),
            Node::Wrap(inner) => self.eval(inner, ctx, None),
            Node::Call { name, args, span } => {
                self.step().map_err(|e| e.at(*span))?;
                let depth = self.rt.depth.fetch_add(1, AtOrd::Relaxed);
                let r = if depth as usize >= self.rt.options.max_depth || crate::stack::exhausted()
                {
                    Err(Error::new(
                        ErrorKind::RecursionLimit,
                        "evaluation nested too deeply",
                    ))
                } else {
                    self.eval_call(name, args, ctx, receiver, *span)
                };
                self.rt.depth.fetch_sub(1, AtOrd::Relaxed);
                r.map_err(|e| e.at(*span))
            }
            Node::Dot {
                left,
                right,
                elvis,
                span,
            } => {
                self.step().map_err(|e| e.at(*span))?;
                let recv = self.eval(left, ctx, None)?;
                if *elvis && recv.is_null() {
                    return Ok(Value::Null);
                }
                self.dot(recv, right, ctx).map_err(|e| e.at(*span))
            }
        }
    }

    pub(crate) fn dot(&self, recv: Value, right: &Node, ctx: &Context) -> Result<Value, Error> {
        // yaql's legacy library adds a `#operator_.` for context objects:
        // the right side works on the context's `$0` inside that context.
        if let Value::Context(inner) = &recv {
            if ctx.library().legacy {
                let receiver = inner.get("$0").cloned().unwrap_or_default();
                return self.dot(receiver, right, inner);
            }
        }
        // A host object with methods of its own (yaql's yaqlized objects):
        // `obj.name(args)` calls its method.
        if let (Value::Object(o), Node::Call { name, args, .. }) = (&recv, right) {
            if o.has_methods() {
                let mut positional = Vec::new();
                let mut keywords: Vec<(Arc<str>, Value)> = Vec::new();
                for a in args.iter() {
                    match a {
                        ArgNode::Pos(n) => positional.push(self.eval(n, ctx, None)?),
                        ArgNode::NoValue => positional.push(Value::Null),
                        ArgNode::Mapping(_, Some(k), v) => {
                            keywords.push((k.clone(), self.eval(v, ctx, None)?));
                        }
                        ArgNode::Mapping(..) => {
                            return Err(Error::new(
                                ErrorKind::MappingTranslation,
                                "Cannot convert mapping to keyword argument",
                            ))
                        }
                    }
                }
                return o.call_method(name, &positional, &keywords);
            }
        }
        match right {
            Node::Call { .. } => self.eval(right, ctx, Some(&recv)),
            Node::Keyword(name) => self.property(recv, name, ctx),
            _ => Err(Error::new(
                ErrorKind::NoMatchingFunction,
                format!("No function \"{DOT}\" matches supplied arguments"),
            )),
        }
    }

    /// `obj.name` where `name` is a keyword.
    pub(crate) fn property(
        &self,
        recv: Value,
        name: &Arc<str>,
        ctx: &Context,
    ) -> Result<Value, Error> {
        // Functions registered by the host under `#operator_.` are not
        // consulted; properties go through `#property#name` functions and
        // host objects.
        match &recv {
            Value::Dict(d) => {
                let key = Value::Str(name.clone());
                match d.get(&key) {
                    Some(v) => Ok(v.clone()),
                    None if ctx.library().legacy => Ok(Value::Null),
                    None => Err(Error::new(ErrorKind::KeyError, key.repr())),
                }
            }
            Value::Object(o) => match o.property(name)? {
                Some(v) => Ok(v),
                None => Err(Error::new(
                    ErrorKind::AttributeError,
                    format!("'{}' object has no attribute '{name}'", o.type_name()),
                )),
            },
            v if self.is_iterable(v) && !matches!(v, Value::Dict(_)) => {
                // queries: collection attribution maps over the items.
                let it = self.limited_iter(v)?;
                let interp = self.clone();
                let ctx = ctx.clone();
                let name = name.clone();
                Ok(Value::iter(Box::new(
                    it.map(move |item| interp.property(item?, &name, &ctx)),
                )))
            }
            _ => {
                // yaql's `get_property` calls `#property#name` through a
                // delegate: with no such function registered that is
                // `NoFunctionRegisteredException` (`Unknown function
                // "#property#name"`), in yaql 2.0 as in 3.2.
                let fname = format!("#property#{name}");
                self.call_values(&fname, ctx, vec![recv], Vec::new(), false)
            }
        }
    }

    fn eval_call(
        &self,
        name: &str,
        arg_nodes: &[ArgNode],
        ctx: &Context,
        receiver: Option<&Value>,
        span: Span,
    ) -> Result<Value, Error> {
        let method = receiver.is_some();
        let mut levels = Vec::new();
        ctx.collect(name, &mut levels);
        let is_kind =
            |d: &&Arc<FunctionDef>| &*d.name == name && if method { d.method } else { d.function };
        let n_pos = arg_nodes.len() + usize::from(method);
        let n_kw = arg_nodes
            .iter()
            .filter(|a| matches!(a, ArgNode::Mapping(_, Some(_), _)))
            .count();
        let first = levels
            .iter()
            .flat_map(|l| l.iter())
            .filter(is_kind)
            .find(|d| (n_pos <= d.params.len() || d.varargs) && n_pos + n_kw >= d.required)
            .or_else(|| levels.iter().flat_map(|l| l.iter()).find(is_kind));
        let Some(first) = first else {
            return Err(not_registered(name, method));
        };
        let first = first.clone();
        if lazy_conflict(&levels, &is_kind, arg_nodes, n_pos) {
            return Err(ambiguous(name, method));
        }
        // Translate arguments.
        let mut args: Vec<Arg> = Vec::with_capacity(arg_nodes.len() + 1);
        let mut kwargs: Vec<(Arc<str>, Arg)> = Vec::new();
        if let Some(r) = receiver {
            args.push(Arg::Value(r.clone()));
        }
        for a in arg_nodes {
            match a {
                ArgNode::Pos(n) => {
                    let i = args.len();
                    if first.is_lazy(i) {
                        args.push(Arg::Lazy(LazyExpr(n.clone())));
                    } else {
                        args.push(Arg::Value(self.eval(n, ctx, None)?));
                    }
                }
                ArgNode::NoValue => args.push(Arg::Missing),
                ArgNode::Mapping(src, kw, dst) => {
                    if first.no_kwargs {
                        args.push(Arg::Mapping(LazyExpr(src.clone()), LazyExpr(dst.clone())));
                        continue;
                    }
                    let Some(kw) = kw else {
                        return Err(Error::new(
                            ErrorKind::MappingTranslation,
                            "Cannot convert mapping to keyword argument",
                        ));
                    };
                    if kwargs.iter().any(|(k, _)| k == kw) {
                        return Err(Error::new(
                            ErrorKind::MappingTranslation,
                            "Cannot convert mapping to keyword argument",
                        ));
                    }
                    let lazy = first.param_index(kw).is_some_and(|i| first.is_lazy(i));
                    let v = if lazy {
                        Arg::Lazy(LazyExpr(dst.clone()))
                    } else {
                        Arg::Value(self.eval(dst, ctx, None)?)
                    };
                    kwargs.push((kw.clone(), v));
                }
            }
        }
        self.dispatch(name, &levels, ctx, &args, &kwargs, method, span)
    }

    /// Calls `name` with evaluated arguments (`args[0]` is the receiver for
    /// method syntax).
    pub fn call_values(
        &self,
        name: &str,
        ctx: &Context,
        args: Vec<Value>,
        kwargs: Vec<(Arc<str>, Value)>,
        method: bool,
    ) -> Result<Value, Error> {
        let mut levels = Vec::new();
        ctx.collect(name, &mut levels);
        let any = levels
            .iter()
            .flat_map(|l| l.iter())
            .any(|d| &*d.name == name && if method { d.method } else { d.function });
        if !any {
            return Err(not_registered(name, method));
        }
        let args: Vec<Arg> = args.into_iter().map(Arg::Value).collect();
        let kwargs: Vec<(Arc<str>, Arg)> = kwargs
            .into_iter()
            .map(|(k, v)| (k, Arg::Value(v)))
            .collect();
        self.dispatch(name, &levels, ctx, &args, &kwargs, method, Span::default())
    }

    /// Calls the overload of `name` that accepts the arguments, charging
    /// fuel for the values passed in and the value returned.
    #[allow(clippy::too_many_arguments)]
    fn dispatch(
        &self,
        name: &str,
        levels: &[&[Arc<FunctionDef>]],
        ctx: &Context,
        args: &[Arg],
        kwargs: &[(Arc<str>, Arg)],
        method: bool,
        span: Span,
    ) -> Result<Value, Error> {
        let passed = args
            .iter()
            .chain(kwargs.iter().map(|(_, a)| a))
            .filter_map(|a| match a {
                Arg::Value(v) => Some(v),
                _ => None,
            });
        self.charge_for_values(passed)?;
        let charged = |r: Result<Value, Error>| {
            let out = r?;
            self.charge_for_values([&out])?;
            if let Some(memory) = &self.rt.options.memory {
                self.charge_built(memory, &out, args, kwargs)?;
            }
            Ok(out)
        };
        for level in levels {
            let mut typed_winner: Option<&FunctionDef> = None;
            for def in level.iter() {
                if &*def.name != name || !(if method { def.method } else { def.function }) {
                    continue;
                }
                if !arity_ok(def, args, kwargs) {
                    continue;
                }
                if let Some(types) = &def.types {
                    if !types_ok(def, types, args, kwargs) {
                        continue;
                    }
                    if typed_winner.is_some() {
                        return Err(ambiguous(name, method));
                    }
                    typed_winner = Some(def);
                    continue;
                }
                let mut call = Call {
                    interp: self,
                    ctx,
                    def,
                    args,
                    kwargs,
                    method,
                    span,
                };
                match (def.body)(&mut call) {
                    Err(e) if e.kind() == ErrorKind::Mismatch => continue,
                    r => return charged(r),
                }
            }
            if let Some(def) = typed_winner {
                let mut call = Call {
                    interp: self,
                    ctx,
                    def,
                    args,
                    kwargs,
                    method,
                    span,
                };
                return match (def.body)(&mut call) {
                    Err(e) if e.kind() == ErrorKind::Mismatch => Err(no_match(name, method)),
                    r => charged(r),
                };
            }
        }
        Err(no_match(name, method))
    }
}

/// Collection items that cost one step when a function receives, returns
/// or iterates them (cloning a handle is far cheaper than an evaluation
/// step).
const COST_ITEMS_PER_STEP: u64 = 16;

/// String bytes that cost one step.
const COST_BYTES_PER_STEP: u64 = 256;

/// The fuel a value costs to pass through a function: its length (not
/// nested values, which are charged when something works on them).
fn size_cost(v: &Value) -> u64 {
    let items = match v {
        Value::Str(s) => return s.len() as u64 / COST_BYTES_PER_STEP,
        Value::List(x) | Value::Tuple(x) => x.len(),
        Value::Set(x) => x.len(),
        Value::Dict(x) => x.len(),
        _ => return 0,
    };
    items as u64 / COST_ITEMS_PER_STEP
}

/// yaql's rule that every overload accepting the arguments must agree on
/// which of them are passed lazily (otherwise the call is ambiguous: the
/// arguments cannot be prepared before an overload is chosen).
fn lazy_conflict(
    levels: &[&[Arc<FunctionDef>]],
    is_kind: &dyn Fn(&&Arc<FunctionDef>) -> bool,
    arg_nodes: &[ArgNode],
    n_pos: usize,
) -> bool {
    let keywords: Vec<&Arc<str>> = arg_nodes
        .iter()
        .filter_map(|a| match a {
            ArgNode::Mapping(_, Some(k), _) => Some(k),
            _ => None,
        })
        .collect();
    let n_plain = n_pos - keywords.len();
    let mut seen: Option<Vec<bool>> = None;
    for d in levels.iter().flat_map(|l| l.iter()).filter(|d| is_kind(d)) {
        if d.no_kwargs {
            return false;
        }
        let fits = (n_plain <= d.params.len() || d.varargs)
            && n_pos >= d.required
            && keywords
                .iter()
                .all(|k| d.any_kwargs || d.param_index(k).is_some_and(|i| i >= n_plain));
        if !fits {
            continue;
        }
        let lazy: Vec<bool> = (0..n_plain)
            .map(|i| d.is_lazy(i))
            .chain(
                keywords
                    .iter()
                    .map(|k| d.param_index(k).is_some_and(|i| d.is_lazy(i))),
            )
            .collect();
        match &seen {
            None => seen = Some(lazy),
            Some(s) if *s != lazy => return true,
            Some(_) => {}
        }
    }
    false
}

fn arity_ok(def: &FunctionDef, args: &[Arg], kwargs: &[(Arc<str>, Arg)]) -> bool {
    if args.len() > def.params.len() && !def.varargs {
        return false;
    }
    for (k, _) in kwargs {
        match def.param_index(k) {
            Some(i) => {
                if i < args.len() {
                    return false;
                }
            }
            None if def.any_kwargs => {}
            None => return false,
        }
    }
    for i in 0..def.required {
        let given = args.get(i).is_some_and(|a| !matches!(a, Arg::Missing))
            || kwargs.iter().any(|(k, _)| **k == *def.params[i]);
        if !given {
            return false;
        }
    }
    // Skipped arguments may only stand for optional parameters.
    for (i, a) in args.iter().enumerate() {
        if matches!(a, Arg::Missing) && (i < def.required || i >= def.params.len()) {
            let by_kw = def
                .params
                .get(i)
                .is_some_and(|p| kwargs.iter().any(|(k, _)| **k == **p));
            if !by_kw {
                return false;
            }
        }
    }
    true
}

fn types_ok(
    def: &FunctionDef,
    types: &[super::func::ParamType],
    args: &[Arg],
    kwargs: &[(Arc<str>, Arg)],
) -> bool {
    for (i, t) in types.iter().enumerate() {
        let arg = match args.get(i) {
            Some(Arg::Missing) | None => def
                .params
                .get(i)
                .and_then(|p| kwargs.iter().find(|(k, _)| **k == **p))
                .map(|(_, a)| a),
            Some(a) => Some(a),
        };
        match arg {
            Some(Arg::Value(v)) if !t.check(v) => return false,
            Some(Arg::Lazy(super::func::LazyExpr(node))) if !t.check_node(node) => return false,
            _ => {}
        }
    }
    true
}

fn not_registered(name: &str, method: bool) -> Error {
    if method {
        Error::new(
            ErrorKind::NoMethodRegistered,
            format!("Unknown method \"{name}\""),
        )
    } else {
        Error::new(
            ErrorKind::NoFunctionRegistered,
            format!("Unknown function \"{name}\""),
        )
    }
}

fn no_match(name: &str, method: bool) -> Error {
    if method {
        Error::new(
            ErrorKind::NoMatchingMethod,
            format!("No method \"{name}\" matches supplied arguments"),
        )
    } else {
        Error::new(
            ErrorKind::NoMatchingFunction,
            format!("No function \"{name}\" matches supplied arguments"),
        )
    }
}

fn ambiguous(name: &str, method: bool) -> Error {
    if method {
        Error::new(
            ErrorKind::AmbiguousMethod,
            format!("Ambiguous method \"{name}\""),
        )
    } else {
        Error::new(
            ErrorKind::AmbiguousFunction,
            format!("Ambiguous function \"{name}\""),
        )
    }
}

/// Iterates any iterable value without limits (dicts yield keys).
pub(crate) fn raw_iter(v: &Value) -> Result<ValueIter, Error> {
    Ok(match v {
        Value::List(x) | Value::Tuple(x) => {
            let x = x.clone();
            Box::new((0..x.len()).map(move |i| Ok(x[i].clone())))
        }
        Value::Set(s) => {
            let s = s.clone();
            Box::new((0..s.len()).map(move |i| Ok(s[i].clone())))
        }
        Value::Dict(d) => {
            let d = d.clone();
            Box::new(
                (0..d.len())
                    .map(move |i| Ok(d.get_index(i).map(|(k, _)| k.clone()).unwrap_or_default())),
            )
        }
        Value::Iter(it) => it.take(),
        other => {
            return Err(Error::new(
                ErrorKind::TypeError,
                format!("'{}' object is not iterable", other.type_name()),
            ))
        }
    })
}
