//! Method resolution over the MRO, argument binding through contracts, invocation of MuranoPL and native bodies.

use super::*;

impl Core {
    /// Whether `class` has a method `name` (anywhere in its hierarchy).
    pub(crate) fn has_method(&self, class: ClassId, name: &str) -> bool {
        self.classes
            .registry()
            .find_method(class, name)
            .is_ok_and(|m| !m.is_empty())
    }

    /// Resolves and calls `name` on `this` (or statically on `class`).
    pub(crate) fn invoke(
        &self,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        external: bool,
    ) -> Result<Value, EngineError> {
        let classes = self.classes.clone();
        let found = classes
            .registry()
            .find_method(class, name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        let m = match found.as_slice() {
            [] => {
                return Err(EngineError::dsl(
                    "NoMethodFound",
                    format!("Method \"{name}\" is not found"),
                ))
            }
            [m] => *m,
            _ => {
                return Err(EngineError::dsl(
                    "AmbiguousMethodName",
                    format!("Found more that one method \"{name}\""),
                ))
            }
        };
        let method = m.member;
        if let Some(o) = this {
            if o.is_destroyed() {
                return Err(EngineError::dsl(
                    "ObjectDestroyedError",
                    format!("Object {} is destroyed", o.id),
                ));
            }
        }
        let is_static = matches!(method.usage, MethodUsage::Static | MethodUsage::Extension);
        if this.is_none() && !is_static {
            return Err(EngineError::dsl(
                "DslInvalidOperationError",
                format!("Method \"{name}\" is not static"),
            ));
        }
        if external && method.scope != MethodScope::Public && method.usage != MethodUsage::Action {
            return Err(EngineError::dsl(
                "MethodNotExposed",
                format!("Method \"{name}\" is not exposed"),
            ));
        }
        lock(&self.state).static_receiver = if is_static { this.cloned() } else { None };
        let this = if is_static { None } else { this };
        self.run_method(this, m.class, m.index, args, kwargs)
    }

    /// Whether the receiver (first) argument of an extension method
    /// accepts a value (its contract's `check_type`; no contract accepts
    /// anything).
    pub(crate) fn accepts_receiver(
        &self,
        class: ClassId,
        index: usize,
        value: &Value,
    ) -> Result<bool, EngineError> {
        let classes = self.classes.clone();
        let Some(arg) = classes
            .definition(class)
            .and_then(|d| d.methods.get(index))
            .and_then(|m| m.arguments.first())
        else {
            return Ok(false);
        };
        let Some(node) = &arg.contract else {
            return Ok(true);
        };
        let ctx = self.method_context(class, None);
        let scope = self.scope(&ctx, None, class);
        let contract = Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
        contract
            .check_type(&scope, Some(value), None)
            .map_err(|e| self.unpark_contract(e))
    }

    /// Binds arguments, applies their contracts and runs the body.
    pub(crate) fn run_method(
        &self,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        index: usize,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, EngineError> {
        self.run_method_with(this, class, index, args, kwargs, false)
    }

    /// [`Core::run_method`]; `lenient`: a missing argument is "no value"
    /// (its default or null through its contract), as for `.init`.
    pub(crate) fn run_method_with(
        &self,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        index: usize,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        lenient: bool,
    ) -> Result<Value, EngineError> {
        let classes = self.classes.clone();
        let Some(method) = classes.definition(class).and_then(|d| d.methods.get(index)) else {
            return Err(EngineError::dsl("NoMethodFound", "method vanished"));
        };
        let static_receiver = lock(&self.state).static_receiver.take();
        self.spend()?;
        // The frame to come counts while the arguments bind: their
        // defaults and contracts may call this method again.
        let binding = self.enter()?;
        let ctx = self.method_context(class, this);
        let bound = self.bind_arguments(method, &ctx, this, class, args, kwargs, lenient)?;
        let mut ctx = ctx;
        for (n, v) in bound.values {
            ctx.set(&n, v);
        }
        lock(&self.state).stack.push(Frame {
            class,
            method: method.name.clone(),
            this: this.cloned(),
            at: method.start,
            instruction: None,
            allow_writes: method.name == ".init",
            locals: Vec::new(),
        });
        drop(binding);
        let bound_args: Vec<(String, Value)> = method
            .arguments
            .iter()
            .filter_map(|a| ctx.get(&a.name).map(|v| (a.name.clone(), v.clone())))
            .collect();
        let held = match self.acquire_method_lock(this, class, index, &bound_args) {
            Ok(h) => h,
            Err(e) => {
                lock(&self.state).stack.pop();
                return Err(e);
            }
        };
        let native = self
            .natives
            .get(&(class, method.name.clone()))
            .map(|n| (n.body.clone(), n.thaw_args));
        let result = match native {
            Some((body, thaw_args)) => {
                let receiver = match this {
                    Some(o) => Some(Value::Object(o.clone())),
                    None => static_receiver.map(|o| Value::Object(o) as Value),
                };
                // Murano's native stubs pass `to_mutable` arguments.
                let args: Vec<(String, Value)> = method
                    .arguments
                    .iter()
                    .filter_map(|a| {
                        ctx.get(&a.name).map(|v| {
                            let v = if thaw_args {
                                crate::mutable::to_mutable(v)
                            } else {
                                v.clone()
                            };
                            (a.name.clone(), v)
                        })
                    })
                    .collect();
                // Always there: `self` lives in the `Arc` the engine holds.
                match self.self_ref.upgrade().map(Engine::from_core) {
                    Some(engine) => body(&crate::NativeCall {
                        engine: &engine,
                        method: &method.name,
                        receiver: receiver.as_ref(),
                        class: classes.name(class),
                        args: &args,
                    }),
                    None => Err(EngineError::dsl(
                        "DslInvalidOperationError",
                        "the engine is gone",
                    )),
                }
            }
            None => crate::exec::run_body(self, &method.body, &mut ctx),
        };
        self.release_method_lock(held);
        lock(&self.state).stack.pop();
        result
    }

    /// An error of argument `name`'s contract or default that recorded no
    /// frames (raised by the contract or its expression, not by a method
    /// it called) records where it arose, as Murano's traceback shows the
    /// method whose arguments were bound: a frame of `method` at the
    /// argument's declaration, above the caller's frames.
    pub(crate) fn argument_frame(
        &self,
        mut e: EngineError,
        class: ClassId,
        method: &murano_dsl::model::Method,
        name: &str,
    ) -> EngineError {
        // A contract violation names them in its message already.
        let violation = matches!(&e.kind, ErrorKind::Engine { type_name, .. } if type_name == "ContractViolationException");
        if !e.frames.is_empty() || violation {
            return e;
        }
        let at = method
            .arguments
            .iter()
            .find(|a| a.name == name)
            .map_or(method.start, |a| a.start);
        let mut frames = vec![StackFrame {
            file: self.classes.file(class).map(str::to_owned),
            line: at.line + 1,
            column: at.column + 1,
            method: method.name.clone(),
            class: self.classes.name(class).to_owned(),
            instruction: Some(format!("Contract of argument {name}")),
        }];
        frames.extend(crate::trace::capture(self));
        e.frames = frames;
        e
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind_arguments(
        &self,
        method: &murano_dsl::model::Method,
        ctx: &Context,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        lenient: bool,
    ) -> Result<Bound, EngineError> {
        let mismatch = || {
            EngineError::new(
                ErrorKind::Yaql(YaqlErrorKind::NoMatchingMethod),
                format!("No method \"{}\" matches supplied arguments", method.name),
            )
        };
        let mut positional = args.into_iter();
        let mut kwargs: IndexMap<String, Value> = kwargs.into_iter().collect();
        let mut values = Vec::new();
        // Objects created from models by argument contracts are owned by
        // the object only for `.init` (Murano's CTX_ARGUMENT_OWNER).
        let mut scope = self.scope(ctx, this, class);
        if !lenient {
            scope.owner = None;
        }
        let mut rest_pos: Option<(String, Option<&murano_dsl::yaml::Node>)> = None;
        let mut rest_kw: Option<(String, Option<&murano_dsl::yaml::Node>)> = None;
        let apply = |name: &str,
                     contract: Option<&murano_dsl::yaml::Node>,
                     data: Option<&Value>,
                     default: Option<&murano_dsl::yaml::Node>|
         -> Result<Value, EngineError> {
            match contract {
                Some(node) => {
                    let contract =
                        Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
                    contract
                        .transform(&scope, data, default)
                        .map(|t| t.value)
                        .map_err(|e| {
                            // MuranoMethodArgument.transform: the method,
                            // the argument and the path inside its value.
                            let path = e.path.clone();
                            let mut e = self.unpark_contract(e);
                            if matches!(&e.kind, ErrorKind::Engine { type_name, .. } if type_name == "ContractViolationException")
                            {
                                e.message = format!(
                                    "[{}::{}({name}{path})] {}",
                                    self.classes.name(class),
                                    method.name,
                                    e.message
                                );
                            }
                            self.argument_frame(e, class, method, name)
                        })
                }
                None => match (data, default) {
                    (Some(v), _) => Ok(v.clone()),
                    (None, Some(d)) => crate::exec::eval_node(self, d, ctx)
                        .map_err(|e| self.argument_frame(e, class, method, name)),
                    (None, None) => Ok(Value::Null),
                },
            }
        };
        for a in &method.arguments {
            match a.usage {
                ArgumentUsage::Standard => {
                    // A missing argument is "no value": its default, or
                    // null, through its contract.
                    let given = match positional.next() {
                        Some(v) => {
                            if kwargs.contains_key(&a.name) {
                                return Err(mismatch());
                            }
                            Some(v)
                        }
                        None => kwargs.shift_remove(&a.name),
                    };
                    let v = apply(
                        &a.name,
                        a.contract.as_ref(),
                        given.as_ref(),
                        a.default.as_ref(),
                    )?;
                    values.push((a.name.clone(), v));
                }
                ArgumentUsage::VarArgs => rest_pos = Some((a.name.clone(), a.contract.as_ref())),
                ArgumentUsage::KwArgs => rest_kw = Some((a.name.clone(), a.contract.as_ref())),
            }
        }
        let extra: Vec<Value> = positional.collect();
        match rest_pos {
            Some((name, contract)) => {
                let mut items = Vec::new();
                for v in extra {
                    items.push(apply(&name, contract, Some(&v), None)?);
                }
                values.push((name, Value::tuple(items)));
            }
            None if !extra.is_empty() => return Err(mismatch()),
            None => {}
        }
        match rest_kw {
            Some((name, contract)) => {
                let mut d = Dict::default();
                for (k, v) in kwargs {
                    let v = apply(&name, contract, Some(&v), None)?;
                    d.insert(Value::str(&k), v);
                }
                values.push((name, Value::Dict(Arc::new(d))));
            }
            None if !kwargs.is_empty() => return Err(mismatch()),
            None => {}
        }
        Ok(Bound { values })
    }
}

/// Binds call arguments to a method's declared arguments.
pub(super) struct Bound {
    values: Vec<(String, Value)>,
}
