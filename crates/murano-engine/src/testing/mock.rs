//! Method mocks: Murano's test-runner `MockContextManager`
//! (`murano/engine/mock_context_manager.py`), the test runner's
//! interceptor of method calls made from YAQL.
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
//! The table is a [`MethodMocks`], the [`MethodInterceptor`] the runner
//! gives each engine it builds ([`crate::EngineBuilder::method_mocks`]);
//! an engine without one runs every method as it is.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use murano_dsl::registry::ClassId;
use murano_yaql::eval::{Arg, Context, Error as YaqlError, FunctionDef, Lambda, Value};

use crate::error::EngineError;
use crate::{CallSite, Engine, EngineBuilder, InterceptedCall, MethodInterceptor};

/// The mocks of one engine, and the calling contexts of the mocked calls
/// running now (innermost last, for `withOriginal`).
#[derive(Default)]
struct Mocks {
    by_method: HashMap<(String, String), Arc<Mock>>,
    originals: Vec<Context>,
}

/// The method mocks of an engine: the test runner's interceptor, which
/// the engine consults on every method call made from YAQL. Set through
/// [`EngineBuilder::method_mocks`] (`testing::fixture::install` gives each
/// engine a new one: mocks never leak from one test to the next).
#[derive(Default)]
pub struct MethodMocks(Mutex<Mocks>);

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

    fn table(&self) -> MutexGuard<'_, Mocks> {
        crate::base::sync::lock(&self.0)
    }
}

impl EngineBuilder {
    /// The method mocks the engine consults on every method call made
    /// from YAQL (the test runner's interceptor, which `inject` fills; see
    /// [`crate::testing::fixture::install`]). Without them every method
    /// runs as it is.
    pub fn method_mocks(self, mocks: Arc<MethodMocks>) -> EngineBuilder {
        self.interceptor(mocks)
    }
}

/// The engine's mock table, or `inject`'s error without one.
fn mocks_of(engine: &Engine) -> Result<Arc<MethodMocks>, EngineError> {
    engine.interceptor::<MethodMocks>().ok_or_else(|| {
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
        /// Where `inject` was called.
        site: Option<CallSite>,
    },
}

impl MethodInterceptor for MethodMocks {
    /// The mock of the call's class's method when there is one, else the
    /// method itself.
    fn intercept(&self, call: InterceptedCall<'_>) -> Result<Value, EngineError> {
        let mock = {
            let table = self.table();
            if table.by_method.is_empty() {
                None
            } else {
                table
                    .by_method
                    .get(&(call.class_name().to_owned(), call.method().to_owned()))
                    .cloned()
            }
        };
        let Some(mock) = mock else {
            return call.proceed();
        };
        match &*mock {
            Mock::Method {
                object,
                class: from,
                method,
            } => {
                if !call.engine().is_object(object) {
                    return Err(EngineError::dsl(
                        "NoObjectFoundError",
                        "the mock object is not an object",
                    ));
                }
                call.redirect(object, *from, method)
            }
            Mock::Expr {
                lambda,
                ctx,
                this: mock_this,
                site,
            } => {
                call.run_nested(site.as_ref(), || {
                    let mut eval_ctx = ctx.child();
                    eval_ctx.set("$", mock_this.clone());
                    eval_ctx.set("$1", mock_this.clone());
                    for (i, a) in call.args().iter().enumerate() {
                        eval_ctx.set(&format!("${}", i + 2), a.clone());
                    }
                    for (k, v) in call.kwargs() {
                        eval_ctx.set(&format!("${k}"), v.clone());
                    }
                    let original = call.original();
                    eval_ctx.register(FunctionDef::native("originalMethod", "", move |_| {
                        match original.call() {
                            None => Err(crate::host_exception(
                                "RuntimeError",
                                "builtins",
                                "engine gone",
                            )),
                            Some(r) => r.map_err(YaqlError::host),
                        }
                    }));
                    self.table().originals.push(call.caller().clone());
                    let r = lambda.call_in(&eval_ctx);
                    self.table().originals.pop();
                    r
                })
            }
        }
    }
}

/// The class a mock target names: an object's class (or a cast's), a
/// class value, or a class name resolved in the calling method's class.
fn target_class(engine: &Engine, target: &Value) -> Result<ClassId, EngineError> {
    if let Some(class) = engine.cast_class(target) {
        return Ok(class);
    }
    if let Some(class) = engine.class_of(target) {
        return Ok(class);
    }
    if let Value::Str(s) = target {
        return engine.resolve_class(s);
    }
    Err(EngineError::new(
        crate::ErrorKind::Yaql(murano_yaql::eval::ErrorKind::NoMatchingFunction),
        "inject: the target is not a class or an object",
    ))
}

/// Whether `class` has a method `name` (its own or inherited).
fn has_method(engine: &Engine, class: ClassId, name: &str) -> bool {
    engine
        .classes()
        .registry()
        .find_method(class, name)
        .is_ok_and(|m| !m.is_empty())
}

/// The engine a mock function runs in.
fn engine_of(call: &murano_yaql::eval::Call<'_>) -> Result<Engine, YaqlError> {
    Engine::of_call(call).ok_or_else(YaqlError::mismatch)
}

/// `inject` and `withOriginal`, the functions Murano's mock context
/// manager adds to the root context of a test run.
pub(crate) fn functions() -> Vec<FunctionDef> {
    let inject = FunctionDef::native(
        "inject",
        "target, target_method, ~mock, mock_name=",
        move |call| {
            let engine = engine_of(call)?;
            let target = call.value(0)?.clone();
            let method = call.string(1)?.to_owned();
            let mock_name = match call.opt(3)? {
                None => None,
                Some(Value::Str(s)) => Some(s.to_string()),
                Some(_) => return Err(YaqlError::mismatch()),
            };
            let class = target_class(&engine, &target).map_err(YaqlError::host)?;
            if !has_method(&engine, class, &method) {
                return Err(YaqlError::host(EngineError::dsl(
                    "NoMethodFound",
                    format!("Method \"{method}\" is not found"),
                )));
            }
            let site = engine.call_site();
            let mock = match mock_name {
                Some(mock_method) => {
                    let object = match call.arg(2) {
                        Some(a) => call.force(a)?,
                        None => return Err(YaqlError::mismatch()),
                    };
                    if !engine.is_object(&object) {
                        return Err(YaqlError::mismatch());
                    }
                    let from = engine.frame_class(0).ok_or_else(YaqlError::mismatch)?;
                    if !has_method(&engine, from, &mock_method) {
                        return Err(YaqlError::host(EngineError::dsl(
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
                        site,
                    }
                }
            };
            let key = (engine.classes().name(class).to_owned(), method);
            mocks_of(&engine)
                .map_err(YaqlError::host)?
                .table()
                .by_method
                .insert(key, Arc::new(mock));
            Ok(Value::Null)
        },
    );
    let with_original = FunctionDef::native("withOriginal", "*args", move |call| {
        let engine = engine_of(call)?;
        let original = mocks_of(&engine)
            .ok()
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
