//! Function definitions and the calling convention of native functions.

use std::sync::Arc;

use super::context::Context;
use super::error::Error;
use super::interp::{Interp, Lambda, Node};
use super::value::{Value, ValueIter};
use crate::span::Span;

/// The body of a native function.
pub type NativeFn = dyn Fn(&mut Call<'_>) -> Result<Value, Error> + Send + Sync;

/// A parameter type check, as yaql's smart types do it; used by typed
/// functions ([`FunctionDef::typed`]) to pick an overload before calling.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ParamType {
    /// Anything, `null` included.
    Any,
    /// Anything but `null`.
    NotNull,
    /// An integer (`bool` too, as Python's `int` check accepts it).
    Int,
    /// An `int` or `float`, never a `bool` (yaql's `Number`).
    Number,
    /// A string.
    String,
    /// A boolean.
    Bool,
    /// A list or tuple (yaql's `Sequence`).
    Sequence,
    /// A collection other than a string or dict (yaql's `Iterable`).
    Iterable,
    /// A dictionary.
    Dict,
    /// A lazily evaluated argument (yaql's `Lambda`): never checked.
    Lazy,
    /// `null` or the inner type.
    Nullable(Box<ParamType>),
    /// Does not match values of the inner type (yaql's `NotOfType`).
    Not(Box<ParamType>),
    /// Matches when any inner type matches (yaql's `AnyOf`).
    AnyOf(Vec<ParamType>),
    /// Matches when every inner type matches (yaql's `Chain`).
    AllOf(Vec<ParamType>),
    /// An integer, never a `bool` (yaql's `Integer`).
    Integer,
    /// A lazy iterator, not a materialised collection (yaql's `Iterator`).
    Iterator,
    /// The argument is written as a literal in the expression: a number,
    /// string, `true`/`false`, a bare identifier, and `null` when
    /// `nullable` (yaql's `Constant`). Checked on the expression, passed
    /// lazily: the body reads it with [`Call::force`].
    Constant {
        /// `null` is accepted.
        nullable: bool,
    },
    /// A literal string or bare identifier (yaql's `StringConstant`).
    StringConstant,
    /// A bare identifier (yaql's `Keyword`).
    Keyword,
    /// A literal `true` or `false` (yaql's `BooleanConstant`).
    BooleanConstant,
    /// A literal number (yaql's `NumericConstant`).
    NumericConstant,
}

impl ParamType {
    /// Whether a value passes the check.
    pub fn check(&self, v: &Value) -> bool {
        match self {
            ParamType::Any | ParamType::Lazy => true,
            ParamType::NotNull => !v.is_null(),
            ParamType::Int => matches!(v, Value::Int(_) | Value::Bool(_)),
            ParamType::Number => v.is_number(),
            ParamType::String => matches!(v, Value::Str(_)),
            ParamType::Bool => matches!(v, Value::Bool(_)),
            ParamType::Sequence => v.is_sequence(),
            ParamType::Iterable => v.is_iterable(),
            ParamType::Dict => matches!(v, Value::Dict(_)),
            ParamType::Nullable(t) => v.is_null() || t.check(v),
            ParamType::Not(t) => !t.check(v),
            ParamType::AnyOf(ts) => ts.iter().any(|t| t.check(v)),
            ParamType::AllOf(ts) => ts.iter().all(|t| t.check(v)),
            ParamType::Integer => matches!(v, Value::Int(_)),
            ParamType::Iterator => matches!(v, Value::Iter(_)),
            // Evaluated values are not expressions written as literals.
            ParamType::Constant { .. }
            | ParamType::StringConstant
            | ParamType::Keyword
            | ParamType::BooleanConstant
            | ParamType::NumericConstant => false,
        }
    }

    /// True for the types checked on the unevaluated expression.
    pub fn is_constant(&self) -> bool {
        matches!(
            self,
            ParamType::Constant { .. }
                | ParamType::StringConstant
                | ParamType::Keyword
                | ParamType::BooleanConstant
                | ParamType::NumericConstant
        )
    }

    /// Whether an unevaluated argument passes a constant type check (other
    /// types accept any expression: they are checked on the value).
    pub(crate) fn check_node(&self, node: &Node) -> bool {
        // A parenthesised literal is not a constant expression (yaql's
        // `Wrap` node).
        match (self, node) {
            (ParamType::Constant { nullable }, Node::Const(v)) => *nullable || !v.is_null(),
            (ParamType::Constant { .. }, Node::Keyword(_)) => true,
            (ParamType::StringConstant, Node::Const(Value::Str(_)) | Node::Keyword(_)) => true,
            (ParamType::Keyword, Node::Keyword(_)) => true,
            (ParamType::BooleanConstant, Node::Const(Value::Bool(_))) => true,
            (ParamType::NumericConstant, Node::Const(Value::Int(_) | Value::Float(_))) => true,
            (t, _) => !t.is_constant(),
        }
    }
}

/// One overload of a function.
pub struct FunctionDef {
    pub(crate) name: Box<str>,
    pub(crate) method: bool,
    pub(crate) function: bool,
    /// Parameter names in positional order (receiver first for methods).
    pub(crate) params: Vec<Box<str>>,
    /// Number of leading parameters without defaults.
    pub(crate) required: usize,
    /// Accepts any number of extra positional arguments.
    pub(crate) varargs: bool,
    /// Accepts keyword arguments with any name.
    pub(crate) any_kwargs: bool,
    /// Bit i: parameter i is lazy; bit 63: extra positional args are lazy.
    pub(crate) lazy: u64,
    /// `a => b` arguments are passed as positional mapping pairs.
    pub(crate) no_kwargs: bool,
    /// Typed parameters (checked before the call) for typed overloads.
    pub(crate) types: Option<Vec<ParamType>>,
    pub(crate) body: Arc<NativeFn>,
}

impl Clone for FunctionDef {
    fn clone(&self) -> FunctionDef {
        self.duplicate()
    }
}

impl std::fmt::Debug for FunctionDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionDef")
            .field("name", &self.name)
            .field("params", &self.params)
            .finish()
    }
}

/// Parameter list description: `"a, b, c=, *args, **kwargs"` where a
/// trailing `=` marks an optional parameter and a leading `~` a lazy one.
fn parse_params(spec: &str) -> (Vec<Box<str>>, usize, bool, bool, u64) {
    let mut params = Vec::new();
    let mut required = 0;
    let mut varargs = false;
    let mut kwargs = false;
    let mut lazy = 0u64;
    let mut optional_seen = false;
    for raw in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (is_lazy, raw) = match raw.strip_prefix('~') {
            Some(r) => (true, r),
            None => (false, raw),
        };
        if raw.starts_with("**") {
            kwargs = true;
        } else if let Some(_name) = raw.strip_prefix('*') {
            varargs = true;
            if is_lazy {
                lazy |= 1 << 63;
            }
        } else {
            let (name, optional) = match raw.strip_suffix('=') {
                Some(n) => (n, true),
                None => (raw, false),
            };
            if is_lazy {
                lazy |= 1 << params.len().min(62);
            }
            if !optional && !optional_seen {
                required += 1;
            } else {
                optional_seen = true;
            }
            params.push(name.into());
        }
    }
    (params, required, varargs, kwargs, lazy)
}

impl FunctionDef {
    /// A native function whose body checks its own arguments and returns
    /// [`Error::mismatch`] when they do not fit (the resolver then tries the
    /// next overload). `params` lists parameter names: `"string, chars="`;
    /// `=` marks optional ones, `~` lazy ones, `*args` varargs and
    /// `**kwargs` free keyword arguments. Callable with function syntax.
    pub fn native(
        name: &str,
        params: &str,
        body: impl Fn(&mut Call<'_>) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> FunctionDef {
        let (params, required, varargs, any_kwargs, lazy) = parse_params(params);
        FunctionDef {
            name: name.into(),
            method: false,
            function: true,
            params,
            required,
            varargs,
            any_kwargs,
            lazy,
            no_kwargs: false,
            types: None,
            body: Arc::new(body),
        }
    }

    /// A function whose parameters carry types: the resolver checks them
    /// before calling, and two typed overloads of one layer that both match
    /// are ambiguous. `types` has one entry per named parameter.
    pub fn typed(
        name: &str,
        params: &str,
        types: Vec<ParamType>,
        body: impl Fn(&mut Call<'_>) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> FunctionDef {
        let mut def = FunctionDef::native(name, params, body);
        for (i, t) in types.iter().enumerate() {
            if (matches!(t, ParamType::Lazy) || t.is_constant()) && i < 63 {
                def.lazy |= 1 << i;
            }
        }
        def.types = Some(types);
        def
    }

    /// Callable only with method syntax (`$.f()`), yaql's `@specs.method`.
    pub fn method(mut self) -> FunctionDef {
        self.method = true;
        self.function = false;
        self
    }

    /// Callable both ways, yaql's `@specs.extension_method`.
    pub fn extension(mut self) -> FunctionDef {
        self.method = true;
        self.function = true;
        self
    }

    /// `a => b` arguments are passed as mapping pairs instead of keyword
    /// arguments (yaql's `@specs.no_kwargs`).
    pub fn no_kwargs(mut self) -> FunctionDef {
        self.no_kwargs = true;
        self
    }

    /// A copy of this overload (same body), e.g. to register it in a
    /// second library.
    pub fn duplicate(&self) -> FunctionDef {
        FunctionDef {
            name: self.name.clone(),
            method: self.method,
            function: self.function,
            params: self.params.clone(),
            required: self.required,
            varargs: self.varargs,
            any_kwargs: self.any_kwargs,
            lazy: self.lazy,
            no_kwargs: self.no_kwargs,
            types: self.types.clone(),
            body: self.body.clone(),
        }
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Callable with method syntax (`$x.f()`).
    pub fn is_method(&self) -> bool {
        self.method
    }

    /// Callable with function syntax (`f($x)`).
    pub fn is_function(&self) -> bool {
        self.function
    }

    /// Named parameters in positional order (the receiver first for
    /// methods); each is also the keyword a caller uses.
    pub fn param_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.params.iter().map(|p| &**p)
    }

    /// Number of leading parameters a caller must give.
    pub fn required_params(&self) -> usize {
        self.required
    }

    /// Accepts any number of extra positional arguments (`*args`).
    pub fn has_varargs(&self) -> bool {
        self.varargs
    }

    /// Accepts keyword arguments of any name (`**kwargs`).
    pub fn has_any_kwargs(&self) -> bool {
        self.any_kwargs
    }

    /// Whether the argument at positional index `index` is passed lazily
    /// (as an expression, yaql's `Lambda`); indexes past the named
    /// parameters ask about the extra positional arguments.
    pub fn is_lazy_param(&self, index: usize) -> bool {
        self.is_lazy(index)
    }

    pub(crate) fn is_lazy(&self, index: usize) -> bool {
        if index < self.params.len() {
            index < 63 && self.lazy & (1 << index) != 0
        } else {
            self.lazy & (1 << 63) != 0
        }
    }

    pub(crate) fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| &**p == name)
    }
}

/// An argument expression that has not been evaluated: what a lazy
/// parameter (`~name`) or an `a => b` pair receives.
///
/// Opaque on purpose: the compiled tree is private to this crate. Host
/// functions evaluate it through [`Call::lambda`], [`Call::need_lambda`] or
/// [`Call::force`].
#[derive(Debug, Clone)]
pub struct LazyExpr(pub(crate) Arc<Node>);

/// An argument as a function receives it.
#[derive(Debug, Clone)]
pub enum Arg {
    /// An evaluated value.
    Value(Value),
    /// A lazy argument: the expression, evaluated on demand.
    Lazy(LazyExpr),
    /// `a => b` passed to a function that takes mapping pairs.
    Mapping(LazyExpr, LazyExpr),
    /// An omitted argument (`f(, x)`).
    Missing,
}

/// A call in progress: the arguments and what a function may use.
pub struct Call<'a> {
    pub(crate) interp: &'a Interp,
    pub(crate) ctx: &'a Context,
    pub(crate) def: &'a FunctionDef,
    /// Positional arguments (the receiver first in method syntax).
    pub(crate) args: &'a [Arg],
    pub(crate) kwargs: &'a [(Arc<str>, Arg)],
    pub(crate) method: bool,
    pub(crate) span: Span,
}

impl<'a> Call<'a> {
    /// The interpreter.
    pub fn interp(&self) -> &Interp {
        self.interp
    }

    /// The calling context.
    pub fn context(&self) -> &Context {
        self.ctx
    }

    /// True when called with method syntax.
    pub fn is_method_call(&self) -> bool {
        self.method
    }

    /// The span of the call node.
    pub fn span(&self) -> Span {
        self.span
    }

    /// Number of positional arguments.
    pub fn len(&self) -> usize {
        self.args.len()
    }

    /// True when there are no positional arguments.
    pub fn is_empty(&self) -> bool {
        self.args.is_empty()
    }

    /// Argument `i` by position or by its parameter name.
    pub fn arg(&self, i: usize) -> Option<&'a Arg> {
        if let Some(a) = self.args.get(i) {
            if !matches!(a, Arg::Missing) {
                return Some(a);
            }
        }
        let name = self.def.params.get(i)?;
        self.kwargs
            .iter()
            .find(|(k, _)| **k == **name)
            .map(|(_, a)| a)
    }

    /// The value of argument `i`, `None` when absent; a mismatch when lazy.
    pub fn opt(&self, i: usize) -> Result<Option<&'a Value>, Error> {
        match self.arg(i) {
            None | Some(Arg::Missing) => Ok(None),
            Some(Arg::Value(v)) => Ok(Some(v)),
            Some(_) => Err(Error::mismatch()),
        }
    }

    /// The value of argument `i`; a mismatch when absent.
    pub fn value(&self, i: usize) -> Result<&'a Value, Error> {
        self.opt(i)?.ok_or_else(Error::mismatch)
    }

    /// Extra positional arguments from index `from` (varargs).
    pub fn rest(&self, from: usize) -> &'a [Arg] {
        self.args.get(from..).unwrap_or(&[])
    }

    /// Keyword arguments.
    pub fn kwargs(&self) -> &'a [(Arc<str>, Arg)] {
        self.kwargs
    }

    /// Argument `i` as an integer (`bool` accepted, as Python's `int`).
    pub fn int(&self, i: usize) -> Result<i64, Error> {
        match self.value(i)? {
            Value::Int(n) => Ok(*n),
            Value::Bool(b) => Ok(i64::from(*b)),
            _ => Err(Error::mismatch()),
        }
    }

    /// Optional integer argument with a default.
    pub fn int_or(&self, i: usize, default: i64) -> Result<i64, Error> {
        match self.opt(i)? {
            None => Ok(default),
            Some(Value::Int(n)) => Ok(*n),
            Some(Value::Bool(b)) => Ok(i64::from(*b)),
            Some(_) => Err(Error::mismatch()),
        }
    }

    /// Argument `i` as a string.
    pub fn string(&self, i: usize) -> Result<&'a str, Error> {
        match self.value(i)? {
            Value::Str(s) => Ok(s),
            _ => Err(Error::mismatch()),
        }
    }

    /// Optional nullable string argument.
    pub fn opt_string(&self, i: usize) -> Result<Option<&'a str>, Error> {
        match self.opt(i)? {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s)),
            Some(_) => Err(Error::mismatch()),
        }
    }

    /// Argument `i` as a number (not bool).
    pub fn number(&self, i: usize) -> Result<&'a Value, Error> {
        let v = self.value(i)?;
        if v.is_number() {
            Ok(v)
        } else {
            Err(Error::mismatch())
        }
    }

    /// Argument `i` checked as yaql's `Iterable` and turned into an
    /// iterator limited by `yaql.limitIterators`.
    pub fn iterable(&self, i: usize) -> Result<ValueIter, Error> {
        let v = self.value(i)?;
        if !self.interp.is_iterable(v) {
            return Err(Error::mismatch());
        }
        self.interp.limited_iter(v)
    }

    /// Checks that argument `i` is an `Iterable` without consuming it.
    pub fn check_iterable(&self, i: usize) -> Result<&'a Value, Error> {
        let v = self.value(i)?;
        if self.interp.is_iterable(v) {
            Ok(v)
        } else {
            Err(Error::mismatch())
        }
    }

    /// Lazy argument `i` as a lambda, `None` when absent.
    pub fn lambda(&self, i: usize) -> Result<Option<Lambda>, Error> {
        match self.arg(i) {
            None | Some(Arg::Missing) => Ok(None),
            Some(Arg::Lazy(LazyExpr(node))) => Ok(Some(self.interp.lambda(node.clone(), self.ctx))),
            // A callable value (a host function, a compiled expression, a
            // delegate) is used as the function; any other value is a
            // constant function.
            Some(Arg::Value(Value::Lambda(f))) => Ok(Some(f.duplicate())),
            Some(Arg::Value(v)) => Ok(Some(self.interp.const_lambda(v.clone(), self.ctx))),
            Some(Arg::Mapping(..)) => Err(Error::mismatch()),
        }
    }

    /// A lazy expression (a lazy argument, either side of an `a => b`
    /// pair) as a lambda over the calling context; [`Lambda::call_in`]
    /// evaluates it in another context.
    pub fn lazy_lambda(&self, expr: &LazyExpr) -> Lambda {
        self.interp.lambda(expr.0.clone(), self.ctx)
    }

    /// Lazy argument `i` as a lambda; a mismatch when absent.
    pub fn need_lambda(&self, i: usize) -> Result<Lambda, Error> {
        self.lambda(i)?.ok_or_else(Error::mismatch)
    }

    /// Evaluates a lazy or plain argument in the calling context.
    pub fn force(&self, arg: &Arg) -> Result<Value, Error> {
        match arg {
            Arg::Value(v) => Ok(v.clone()),
            Arg::Lazy(LazyExpr(node)) => self.interp.eval(node, self.ctx, None),
            Arg::Missing => Ok(Value::Null),
            Arg::Mapping(..) => Err(Error::mismatch()),
        }
    }

    /// Calls the function `name` with values (function syntax).
    pub fn call_function(&self, name: &str, args: Vec<Value>) -> Result<Value, Error> {
        self.interp
            .call_values(name, self.ctx, args, Vec::new(), false)
    }

    /// A callable value running a host function (what a Python callable
    /// passed to a yaql function is), for function-valued arguments such as
    /// a `where` predicate.
    pub fn native_lambda(
        &self,
        f: impl Fn(&[Value]) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> Value {
        Value::Lambda(Arc::new(Lambda::native(
            self.interp.clone(),
            self.ctx.clone(),
            Arc::new(f),
        )))
    }

    /// A callable value evaluating a compiled expression in the calling
    /// context with its arguments as `$1`, `$2`… (`$` is `$1`), as yaql's
    /// `engine(expression)` passed as a function argument.
    pub fn query_lambda(&self, query: &crate::eval::Query) -> Result<Value, Error> {
        let node = query.root()?.clone();
        Ok(Value::Lambda(Arc::new(self.interp.lambda(node, self.ctx))))
    }

    /// Evaluates a compiled expression from inside a function (yaql's
    /// `yaql_interface(expression, data, **vars)`): in a child of the calling
    /// context with `data` as `$` and `vars` bound by name, on this
    /// evaluation's interpreter (its fuel and depth limits), with output
    /// conversion.
    pub fn evaluate(
        &self,
        query: &crate::eval::Query,
        data: Option<Value>,
        vars: &[(&str, Value)],
    ) -> Result<Value, Error> {
        let mut bound: Vec<(Arc<str>, Value)> = vars
            .iter()
            .map(|(k, v)| (super::context::normalize_var(k), v.clone()))
            .collect();
        if let Some(d) = data {
            bound.push(("$1".into(), d));
        }
        let ctx = self.ctx.child_with(bound);
        let v = self.interp.eval(query.root()?, &ctx, None)?;
        crate::eval::convert_output(self.interp, &v)
    }

    /// Calls the method `name` on `receiver`.
    pub fn call_method(
        &self,
        name: &str,
        receiver: Value,
        mut args: Vec<Value>,
    ) -> Result<Value, Error> {
        args.insert(0, receiver);
        self.interp
            .call_values(name, self.ctx, args, Vec::new(), true)
    }
}
