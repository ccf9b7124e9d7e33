//! Method mocks: Murano's test-runner `MockContextManager`
//! (`murano/engine/mock_context_manager.py`).
//!
//! `inject(target, method, mockObject, mockMethod)` and
//! `inject(target, method, expression)` replace a method of a class for
//! the rest of the engine's life. As in Murano the mock is keyed by the
//! **class name** of the target (an object target mocks its class), and
//! it applies to method calls made from YAQL (method syntax on an object
//! or a class, or function syntax inside a method) whose receiver's class
//! is exactly that class; calls the engine makes itself (`.init`, the
//! runner's calls, native code) run the original. The method must exist
//! (`NoMethodFound` otherwise). A later mock of the same method replaces
//! an earlier one.
//!
//! * The two-object form calls `mockMethod`, resolved from the class of
//!   the method that called `inject`, on `mockObject` with the call's
//!   arguments.
//! * The expression form evaluates the expression in the context of the
//!   `inject` call with `$` (and `$1`) the object that called `inject`,
//!   `$2`… the call's positional arguments, `$name` its keyword
//!   arguments; `originalMethod()` calls the original with the same
//!   arguments, and `withOriginal(name => expr, ...)` evaluates each
//!   `expr` in the calling context of the mocked call and returns a
//!   context with `$name` bound, for `->`.
//!
//! The hook is [`invoke`], which the YAQL method dispatch calls instead of
//! `Core::invoke`. The mocks are not the engine's: the test runner owns
//! them, a [`MethodMocks`] it hands to each engine it builds
//! (`EngineBuilder::method_mocks`); an engine without one runs every
//! method as it is.

use std::collections::HashMap;
use std::sync::Arc;

use murano_yaql::eval::{Arg, Context, Error as YaqlError, FunctionDef, Lambda, Value};

use crate::engine::{Core, Frame};
use crate::error::EngineError;
use crate::object::{lock, Obj};
use murano_dsl::registry::ClassId;

/// The mocks of one engine, and the calling contexts of the mocked calls
/// running now (innermost last, for `withOriginal`).
#[derive(Default)]
pub(crate) struct Mocks {
    by_method: HashMap<(String, String), Arc<Mock>>,
    originals: Vec<Context>,
}

/// The method mocks of an engine: the test runner's interceptor, which
/// the engine consults on every method call made from YAQL. Set through
/// `EngineBuilder::method_mocks` (`testing::fixture::install` gives each
/// engine a new one: mocks never leak from one test to the next).
#[derive(Default)]
pub struct MethodMocks(std::sync::Mutex<Mocks>);

impl std::fmt::Debug for MethodMocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MethodMocks")
    }
}

impl MethodMocks {
    /// No mocks yet.
    pub fn new() -> MethodMocks {
        MethodMocks::default()
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Mocks> {
        lock(&self.0)
    }
}

/// The engine's mock table, or `inject`'s error without one.
fn mocks_of(core: &Core) -> Result<&Arc<MethodMocks>, EngineError> {
    core.method_mocks.get().ok_or_else(|| {
        EngineError::dsl(
            "RuntimeError",
            "method mocks are for engines built with a mock table",
        )
    })
}

enum Mock {
    /// `inject(target, method, mockObject, mockMethod)`.
    Method {
        object: Value,
        /// The class `mockMethod` is resolved from.
        class: ClassId,
        method: String,
    },
    /// `inject(target, method, expression)`.
    Expr {
        lambda: Lambda,
        /// The context of the `inject` call.
        ctx: Context,
        /// `$this` there.
        this: Value,
        /// The frame that called `inject`.
        frame: Option<Frame>,
    },
}

/// Calls method `name` of `class` on `this` from YAQL: the mock of
/// `class`'s `name` when there is one, else the method itself.
pub(crate) fn invoke(
    core: &Core,
    caller: &Context,
    this: Option<&Arc<Obj>>,
    class: ClassId,
    name: &str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value, EngineError> {
    let mock = core.method_mocks.get().and_then(|mocks| {
        let table = mocks.table();
        if table.by_method.is_empty() {
            None
        } else {
            table
                .by_method
                .get(&(core.classes.name(class).to_owned(), name.to_owned()))
                .cloned()
        }
    });
    let Some(mock) = mock else {
        return core.invoke(this, class, name, args, kwargs, false);
    };
    match &*mock {
        Mock::Method {
            object,
            class: from,
            method,
        } => {
            let obj = core.obj_of(object).ok_or_else(|| {
                EngineError::dsl("NoObjectFoundError", "the mock object is not an object")
            })?;
            core.invoke(Some(&obj), *from, method, args, kwargs, false)
        }
        Mock::Expr {
            lambda,
            ctx,
            this: mock_this,
            frame,
        } => {
            // A mock expression calling its own mocked method recurses
            // without a method call in between: count it as one.
            core.spend()?;
            let _nesting = core.enter()?;
            let mut eval_ctx = ctx.child();
            eval_ctx.set("$", mock_this.clone());
            eval_ctx.set("$1", mock_this.clone());
            for (i, a) in args.iter().enumerate() {
                eval_ctx.set(&format!("${}", i + 2), a.clone());
            }
            for (k, v) in &kwargs {
                eval_ctx.set(&format!("${k}"), v.clone());
            }
            let weak = core.self_ref.clone();
            let original = (
                this.cloned(),
                class,
                name.to_owned(),
                args.clone(),
                kwargs.clone(),
            );
            eval_ctx.register(FunctionDef::native("originalMethod", "", move |_| {
                let core = weak.upgrade().ok_or_else(|| {
                    crate::host_exception("RuntimeError", "builtins", "engine gone")
                })?;
                let (this, class, name, args, kwargs) = original.clone();
                core.invoke(this.as_ref(), class, &name, args, kwargs, false)
                    .map_err(|e| core.park(e))
            }));
            if let Some(mocks) = core.method_mocks.get() {
                mocks.table().originals.push(caller.clone());
            }
            if let Some(f) = frame {
                lock(&core.state).stack.push(f.clone());
            }
            let r = lambda.call_in(&eval_ctx).map_err(|e| core.unpark_yaql(&e));
            if let Some(mocks) = core.method_mocks.get() {
                mocks.table().originals.pop();
            }
            if frame.is_some() {
                lock(&core.state).stack.pop();
            }
            r
        }
    }
}

/// The class a mock target names: an object's class, a class value, or a
/// class name resolved in the calling method's class.
fn target_class(core: &Core, target: &Value) -> Result<ClassId, EngineError> {
    if let Some((_, class)) = core.cast_of(target) {
        return Ok(class);
    }
    if let Some(obj) = core.obj_of(target) {
        return Ok(obj.class);
    }
    if let Some(t) = core.type_of_value(target) {
        return Ok(t.class);
    }
    if let Value::Str(s) = target {
        let from = core.current_frame().map(|f| f.class);
        return core.classes.resolve(from, s);
    }
    Err(EngineError::new(
        crate::ErrorKind::Yaql(murano_yaql::eval::ErrorKind::NoMatchingFunction),
        "inject: the target is not a class or an object",
    ))
}

/// `inject` and `withOriginal`, the functions Murano's mock context
/// manager adds to the root context of a test run.
pub(crate) fn functions() -> Vec<FunctionDef> {
    let inject = FunctionDef::native(
        "inject",
        "target, target_method, ~mock, mock_name=",
        move |call| {
            let core = crate::engine::core_of(call)?;
            let target = call.value(0)?.clone();
            let method = call.string(1)?.to_owned();
            let mock_name = match call.opt(3)? {
                None => None,
                Some(Value::Str(s)) => Some(s.to_string()),
                Some(_) => return Err(YaqlError::mismatch()),
            };
            let class = target_class(&core, &target).map_err(|e| core.park(e))?;
            if !core.has_method(class, &method) {
                return Err(core.park(EngineError::dsl(
                    "NoMethodFound",
                    format!("Method \"{method}\" is not found"),
                )));
            }
            let frame = core.current_frame();
            let mock = match mock_name {
                Some(mock_method) => {
                    let object = match call.arg(2) {
                        Some(a) => call.force(a)?,
                        None => return Err(YaqlError::mismatch()),
                    };
                    if core.obj_of(&object).is_none() {
                        return Err(YaqlError::mismatch());
                    }
                    let from = frame
                        .as_ref()
                        .map(|f| f.class)
                        .ok_or_else(YaqlError::mismatch)?;
                    if !core.has_method(from, &mock_method) {
                        return Err(core.park(EngineError::dsl(
                            "NoMethodFound",
                            format!("Method \"{mock_method}\" is not found"),
                        )));
                    }
                    Mock::Method {
                        object,
                        class: from,
                        method: mock_method,
                    }
                }
                None => {
                    let lambda = call.need_lambda(2)?;
                    let ctx = call.context().clone();
                    let this = ctx.get("$this").cloned().unwrap_or_default();
                    Mock::Expr {
                        lambda,
                        ctx,
                        this,
                        frame,
                    }
                }
            };
            let key = (core.classes.name(class).to_owned(), method);
            mocks_of(&core)
                .map_err(|e| core.park(e))?
                .table()
                .by_method
                .insert(key, Arc::new(mock));
            Ok(Value::Null)
        },
    );
    let with_original = FunctionDef::native("withOriginal", "*args", move |call| {
        let core = crate::engine::core_of(call)?;
        let original = core
            .method_mocks
            .get()
            .and_then(|m| m.table().originals.last().cloned());
        let Some(original) = original else {
            return Err(crate::host_exception(
                "KeyError",
                "builtins",
                "'$?originalContext'",
            ));
        };
        let mut out = call.context().child();
        for a in call.rest(0) {
            let Arg::Mapping(key, value) = a else {
                return Err(YaqlError::mismatch());
            };
            let key = call.force(&Arg::Lazy(key.clone()))?;
            let Value::Str(key) = key else {
                return Err(YaqlError::mismatch());
            };
            let v = call.lazy_lambda(value).call_in(&original)?;
            out.set(&format!("${key}"), v);
        }
        Ok(Value::Context(out))
    })
    .no_kwargs();
    vec![inject, with_original]
}
