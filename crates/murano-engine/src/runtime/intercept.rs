//! A hook in the dispatch of method calls made from YAQL: before method
//! `M` of class `C` runs, the interceptor the engine was built with may
//! answer the call or run something else (as Murano's test runner hooks
//! its `MockContextManager` into the YAQL method dispatch). The runtime
//! knows no interceptor by name; the test runner's mocks are one
//! (`testing/mock.rs`).

use std::any::Any;
use std::sync::{Arc, Weak};

use murano_dsl::registry::ClassId;
use murano_yaql::eval::{Context, Error as YaqlError, Value};

use crate::engine::{Core, Frame};
use crate::error::EngineError;
use crate::object::{lock, Obj};
use crate::Engine;

/// Intercepts the method calls made from YAQL (method syntax on an
/// object or a class, function syntax inside a method); calls the engine
/// makes itself (`.init`, a caller's [`Engine::call`], native code) are
/// not intercepted. Installed with `EngineBuilder::interceptor`.
pub trait MethodInterceptor: Send + Sync {
    /// Runs `call`: answers it, or runs the method as it is with
    /// [`InterceptedCall::proceed`].
    fn intercept(&self, call: InterceptedCall<'_>) -> Result<Value, EngineError>;
}

/// The interceptor an engine was built with, also as `Any` for its
/// owner to find it again ([`Engine::interceptor`]).
#[derive(Clone)]
pub(crate) struct Installed {
    pub(crate) hook: Arc<dyn MethodInterceptor>,
    any: Arc<dyn Any + Send + Sync>,
}

impl Installed {
    pub(crate) fn new<T: MethodInterceptor + 'static>(interceptor: Arc<T>) -> Installed {
        Installed {
            hook: interceptor.clone(),
            any: interceptor,
        }
    }
}

/// A method call made from YAQL, before it runs.
pub struct InterceptedCall<'a> {
    core: &'a Arc<Core>,
    caller: &'a Context,
    this: Option<&'a Arc<Obj>>,
    class: ClassId,
    name: &'a str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
}

impl std::fmt::Debug for InterceptedCall<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InterceptedCall({}::{})", self.class_name(), self.name)
    }
}

/// Where a MuranoPL method is running (its frame), kept to run code as
/// if from there later ([`Engine::call_site`],
/// [`InterceptedCall::run_nested`]).
#[derive(Clone)]
pub struct CallSite(Frame);

impl std::fmt::Debug for CallSite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CallSite({})", self.0.method)
    }
}

/// The method an [`InterceptedCall`] would have run, with its arguments,
/// to run later ([`InterceptedCall::original`]).
#[derive(Clone)]
pub struct OriginalCall {
    core: Weak<Core>,
    this: Option<Arc<Obj>>,
    class: ClassId,
    name: String,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
}

impl std::fmt::Debug for OriginalCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OriginalCall({})", self.name)
    }
}

impl OriginalCall {
    /// Runs the method (`None`: the engine is gone).
    pub fn call(&self) -> Option<Result<Value, EngineError>> {
        let core = self.core.upgrade()?;
        Some(core.invoke(
            self.this.as_ref(),
            self.class,
            &self.name,
            self.args.clone(),
            self.kwargs.clone(),
            false,
        ))
    }
}

impl<'a> InterceptedCall<'a> {
    /// The call of method `name` of `class` on `this` (none: a static
    /// call) that `caller`'s expression makes.
    pub(crate) fn new(
        core: &'a Arc<Core>,
        caller: &'a Context,
        this: Option<&'a Arc<Obj>>,
        class: ClassId,
        name: &'a str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> InterceptedCall<'a> {
        InterceptedCall {
            core,
            caller,
            this,
            class,
            name,
            args,
            kwargs,
        }
    }

    /// The engine.
    pub fn engine(&self) -> Engine {
        Engine::from_core(self.core.clone())
    }

    /// The class the method is resolved from (the receiver's).
    pub fn class(&self) -> ClassId {
        self.class
    }

    /// That class's full name.
    pub fn class_name(&self) -> &str {
        self.core.classes.name(self.class)
    }

    /// The method's name.
    pub fn method(&self) -> &str {
        self.name
    }

    /// The positional arguments.
    pub fn args(&self) -> &[Value] {
        &self.args
    }

    /// The keyword arguments.
    pub fn kwargs(&self) -> &[(String, Value)] {
        &self.kwargs
    }

    /// The context of the expression that makes the call.
    pub fn caller(&self) -> &Context {
        self.caller
    }

    /// Runs the method as it is.
    pub fn proceed(self) -> Result<Value, EngineError> {
        self.core.invoke(
            self.this,
            self.class,
            self.name,
            self.args,
            self.kwargs,
            false,
        )
    }

    /// The method as it is, to run later (as often as wanted).
    pub fn original(&self) -> OriginalCall {
        OriginalCall {
            core: Arc::downgrade(self.core),
            this: self.this.cloned(),
            class: self.class,
            name: self.name.to_owned(),
            args: self.args.clone(),
            kwargs: self.kwargs.clone(),
        }
    }

    /// Runs method `method`, resolved from `class`, on `object` instead,
    /// with the call's arguments.
    pub fn redirect(
        self,
        object: &Value,
        class: ClassId,
        method: &str,
    ) -> Result<Value, EngineError> {
        let obj = self.core.obj_of(object).ok_or_else(|| {
            EngineError::dsl("NoObjectFoundError", "the receiver is not an object")
        })?;
        self.core
            .invoke(Some(&obj), class, method, self.args, self.kwargs, false)
    }

    /// Runs `body` (YAQL the interceptor evaluates instead of the method)
    /// as one more level of calls: it spends fuel and counts against the
    /// call depth as a method call does, and with `site`'s frame on the
    /// stack (as if running there); its error is the engine error it
    /// carries.
    pub fn run_nested(
        &self,
        site: Option<&CallSite>,
        body: impl FnOnce() -> Result<Value, YaqlError>,
    ) -> Result<Value, EngineError> {
        // An interceptor calling its own intercepted method recurses
        // without a method call in between: count it as one.
        self.core.spend()?;
        let _nesting = self.core.enter()?;
        if let Some(site) = site {
            lock(&self.core.state).stack.push(site.0.clone());
        }
        let r = body().map_err(|e| self.core.unpark_yaql(&e));
        if site.is_some() {
            lock(&self.core.state).stack.pop();
        }
        r
    }
}

impl Engine {
    /// The engine a YAQL function runs in (from its call's context), for
    /// host functions registered before the engine existed.
    pub fn of_call(call: &murano_yaql::eval::Call<'_>) -> Option<Engine> {
        crate::engine::core_of(call).ok().map(Engine::from_core)
    }

    /// Where the innermost MuranoPL method is running (none outside any).
    pub fn call_site(&self) -> Option<CallSite> {
        self.core().current_frame().map(CallSite)
    }

    /// The class a cast value (`$.cast(X)`) sees its object as.
    pub fn cast_class(&self, value: &Value) -> Option<ClassId> {
        self.core().cast_of(value).map(|(_, class)| class)
    }

    /// The interceptor the engine was built with, when it is a `T`.
    pub fn interceptor<T: MethodInterceptor + 'static>(&self) -> Option<Arc<T>> {
        let installed = self.core().interceptor.get()?;
        installed.any.clone().downcast::<T>().ok()
    }

    /// Installs the interceptor (once; see `EngineBuilder::interceptor`).
    pub(crate) fn set_interceptor(&self, interceptor: Installed) {
        let _ = self.core().interceptor.set(interceptor);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use murano_dsl::version::Version;

    use super::*;
    use crate::{ClassSetBuilder, EngineBuilder, Receiver};

    const CLASSES: &str = "Name: io.murano.Object
---
Name: Greeter
Methods:
  greet:
    Scope: Public
    Arguments: [{who: {Contract: $.string()}}]
    Body:
      - Return: format('hello {0}', $who)
  viaYaql:
    Scope: Public
    Body:
      - Return: $.greet(world)
";

    /// Answers `greet` itself and lets everything else run, noting every
    /// call it sees.
    #[derive(Default)]
    struct Answering {
        seen: Mutex<Vec<String>>,
        proceed: bool,
    }

    impl MethodInterceptor for Answering {
        fn intercept(&self, call: InterceptedCall<'_>) -> Result<Value, EngineError> {
            crate::base::sync::lock(&self.seen).push(format!(
                "{}.{}({:?})",
                call.class_name(),
                call.method(),
                call.args()
            ));
            if call.method() == "greet" && !self.proceed {
                return Ok(Value::str("intercepted"));
            }
            call.proceed()
        }
    }

    fn engine(interceptor: Option<Arc<Answering>>) -> (Engine, Receiver) {
        let mut b = ClassSetBuilder::new();
        let pkg = b.add_package("io.murano", Version::new(0, 0, 0)).unwrap();
        for def in ClassSetBuilder::parse_file(CLASSES.as_bytes(), "G.yaml").unwrap() {
            b.add_class(pkg, "G.yaml", def).unwrap();
        }
        let mut builder = EngineBuilder::new(Arc::new(b.build()));
        if let Some(i) = interceptor {
            builder = builder.interceptor(i);
        }
        let engine = builder.build();
        let root = engine
            .load_json_text(r#"{"Objects": {"?": {"id": "g", "type": "Greeter"}}}"#)
            .unwrap()
            .unwrap();
        (engine, Receiver::Object(root))
    }

    #[test]
    fn an_interceptor_answers_the_calls_made_from_yaql_only() {
        let (plain, g) = engine(None);
        let out = plain.call(&g, "viaYaql", vec![], vec![]).unwrap();
        assert_eq!(out, Value::str("hello world"));
        assert!(plain.interceptor::<Answering>().is_none());

        let hook = Arc::new(Answering::default());
        let (engine, g) = engine(Some(hook.clone()));
        let out = engine.call(&g, "viaYaql", vec![], vec![]).unwrap();
        assert_eq!(out, Value::str("intercepted"));
        // A caller's own call is not made from YAQL: it runs as it is.
        let out = engine
            .call(&g, "greet", vec![Value::str("you")], vec![])
            .unwrap();
        assert_eq!(out, Value::str("hello you"));
        assert_eq!(
            *crate::base::sync::lock(&hook.seen),
            ["Greeter.greet(['world'])"]
        );
        // The builder's interceptor is the one the engine hands back.
        assert!(Arc::ptr_eq(
            &engine.interceptor::<Answering>().unwrap(),
            &hook
        ));
    }

    #[test]
    fn an_interceptor_that_proceeds_changes_nothing() {
        let hook = Arc::new(Answering {
            proceed: true,
            ..Answering::default()
        });
        let (engine, g) = engine(Some(hook.clone()));
        let out = engine.call(&g, "viaYaql", vec![], vec![]).unwrap();
        assert_eq!(out, Value::str("hello world"));
        assert_eq!(crate::base::sync::lock(&hook.seen).len(), 1);
    }
}
