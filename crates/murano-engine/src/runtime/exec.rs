//! The instruction executor: method bodies, block constructs, assignments
//! and expression evaluation.

use std::sync::Arc;

use murano_dsl::model::{
    AssignTarget, Block, Instruction, InstructionKind, TargetRoot, TargetStep,
};
use murano_dsl::yaml::convert::{self, ToYaql};
use murano_dsl::yaml::{Node, Value as YamlValue};
use murano_yaql::eval::{Context, Dict, Value};

use crate::engine::Core;
use crate::error::{EngineError, ErrorKind, LimitKind};

/// How a block ended.
enum Flow {
    Normal,
    Break,
    Continue,
    Return(Value),
}

/// Runs a method body; the value of its `Return` (null without one).
pub(crate) fn run_body(core: &Core, body: &Block, ctx: &mut Context) -> Result<Value, EngineError> {
    let mut ex = Executor {
        core,
        handling: Vec::new(),
        shared: None,
    };
    match ex.block(body, ctx)? {
        Flow::Return(v) => Ok(v),
        // The frame still stands at the `Break`/`Continue`: the error
        // records it as any instruction's error does.
        Flow::Break | Flow::Continue => Err(with_frames(
            core,
            EngineError::dsl(
                "DslInvalidOperationError",
                "Break or Continue outside of a loop",
            ),
        )),
        Flow::Normal => Ok(Value::Null),
    }
}

/// The latest shared variables of a `Parallel`'s branches.
fn ctx_of(shared: &std::sync::Mutex<Context>) -> Context {
    crate::object::lock(shared).clone()
}

/// Sets on `shared` the variables `now` binds differently from `start`
/// (what a `Parallel` branch assigned).
fn publish_assignments(shared: &mut Context, start: &Context, now: &Context) {
    let mut seen = std::collections::HashSet::new();
    for (name, value) in now.bindings() {
        if !seen.insert(name) {
            continue;
        }
        let unchanged = start.get(name).is_some_and(|old| {
            std::mem::discriminant(old) == std::mem::discriminant(value) && old == value
        });
        if !unchanged {
            shared.set(name, value.clone());
        }
    }
}

/// Evaluates a compiled expression in `ctx`, which the current frame keeps
/// as live locals meanwhile (Python holds the frame's context: the
/// objects its variables name are reachable for `GC.collect()`).
pub(crate) fn evaluate(
    core: &Core,
    query: &murano_yaql::eval::Query,
    ctx: &Context,
) -> Result<Value, EngineError> {
    let pushed = match crate::object::lock(&core.state).stack.last_mut() {
        Some(frame) => {
            frame.locals.push(ctx.clone());
            true
        }
        None => false,
    };
    // Tuples stay tuples: the result is frozen below (see
    // `Query::evaluate_keeping_tuples`).
    let r = query
        .evaluate_keeping_tuples_within(ctx, Some(&core.memory.budget))
        .map_err(|e| {
            if core.memory.budget.exceeded() {
                // Whatever the expression made of it, the run is over.
                return EngineError::limit(
                    LimitKind::Memory,
                    format!(
                        "the run would hold more than {} bytes",
                        core.memory.budget.limit()
                    ),
                );
            }
            core.unpark_yaql(&e)
        });
    if pushed {
        if let Some(frame) = crate::object::lock(&core.state).stack.last_mut() {
            frame.locals.pop();
        }
    }
    r.map(|v| crate::mutable::freeze(&v))
}

/// Murano's `helpers.evaluate` of a YAML value: expressions evaluated,
/// collections evaluated item by item.
pub(crate) fn eval_node(core: &Core, node: &Node, ctx: &Context) -> Result<Value, EngineError> {
    Ok(match &node.value {
        YamlValue::Yaql(y) => {
            // A frame is where its YAQL expression is (Murano's
            // `CTX_CURRENT_INSTRUCTION`).
            core.set_position(node.start, Some(&y.expression));
            let query = core.current_yaql().compile_parsed(&y.expression);
            evaluate(core, &query, ctx)?
        }
        YamlValue::Seq(items) => Value::List(Arc::new(
            items
                .iter()
                .map(|n| eval_node(core, n, ctx))
                .collect::<Result<_, _>>()?,
        )),
        YamlValue::Set(items) => Value::Set(Arc::new(
            items
                .iter()
                .map(|n| eval_node(core, n, ctx))
                .collect::<Result<_, _>>()?,
        )),
        YamlValue::Map(pairs) | YamlValue::Pairs(pairs) => {
            let mut out = Dict::default();
            for (k, v) in pairs {
                out.insert(eval_node(core, k, ctx)?, eval_node(core, v, ctx)?);
            }
            Value::Dict(Arc::new(out))
        }
        // Scalars as contracts read them (the one conversion module): no
        // integers beyond 64 bits, binary data or recursive aliases.
        _ => convert::to_yaql(node, &ToYaql::contracts())
            .map_err(|e| EngineError::not_supported(e.what))?,
    })
}

struct Executor<'a> {
    core: &'a Core,
    /// Exceptions being handled by enclosing `Catch` blocks (for `Rethrow`).
    handling: Vec<EngineError>,
    /// In a `Parallel` branch: the method's variables, which its branches
    /// share (Murano assigns in the method's variable scope). Each
    /// instruction starts from them and publishes what it assigned, so a
    /// branch sees what others assigned before it last switched.
    shared: Option<&'a std::sync::Mutex<Context>>,
}

/// Attaches the MuranoPL stack to an error raised here: the running call
/// chain (see `crate::trace`), innermost first, each frame at the
/// instruction it is running (Murano takes the trace where the exception
/// is thrown or a host error wrapped, so a rethrown exception keeps the
/// frames of its throw).
fn with_frames(core: &Core, mut e: EngineError) -> EngineError {
    e.frames = crate::trace::capture(core);
    e
}

impl Executor<'_> {
    fn eval(&self, node: &Node, ctx: &Context) -> Result<Value, EngineError> {
        eval_node(self.core, node, ctx)
    }

    fn block(&mut self, block: &Block, ctx: &mut Context) -> Result<Flow, EngineError> {
        for ins in block {
            match self.step(ins, ctx)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    /// Runs one instruction of a block; in a `Parallel` branch, on the
    /// latest shared variables, publishing its assignments.
    fn step(&mut self, ins: &Instruction, ctx: &mut Context) -> Result<Flow, EngineError> {
        let Some(shared) = self.shared else {
            return self.instruction(ins, ctx);
        };
        let start = ctx_of(shared);
        *ctx = start.clone();
        let flow = self.instruction(ins, ctx);
        publish_assignments(&mut crate::object::lock(shared), &start, ctx);
        flow
    }

    fn instruction(&mut self, ins: &Instruction, ctx: &mut Context) -> Result<Flow, EngineError> {
        self.core.spend()?;
        // A block construct is the current instruction until it evaluates
        // an expression (`eval_node`), which then is.
        let expression = match &ins.kind {
            InstructionKind::Expression(y) => Some(&y.expression),
            _ => None,
        };
        self.core.set_position(ins.start, expression);
        let r = self.run(ins, ctx);
        r.map_err(|e| {
            if e.frames.is_empty() {
                with_frames(self.core, e)
            } else {
                e
            }
        })
    }

    fn run(&mut self, ins: &Instruction, ctx: &mut Context) -> Result<Flow, EngineError> {
        match &ins.kind {
            InstructionKind::Expression(y) => {
                let query = self.core.current_yaql().compile_parsed(&y.expression);
                evaluate(self.core, &query, ctx)?;
                Ok(Flow::Normal)
            }
            InstructionKind::Assignment { target, value } => {
                let v = self.eval(value, ctx)?;
                self.assign(target, v, ctx)?;
                Ok(Flow::Normal)
            }
            InstructionKind::Return(v) => Ok(Flow::Return(match v {
                Some(n) => self.eval(n, ctx)?,
                None => Value::Null,
            })),
            InstructionKind::Break => Ok(Flow::Break),
            InstructionKind::Continue => Ok(Flow::Continue),
            InstructionKind::Do(b) => self.block(b, ctx),
            InstructionKind::If {
                condition,
                then,
                otherwise,
            } => {
                if self.eval(condition, ctx)?.truthy() {
                    self.block(then, ctx)
                } else if let Some(o) = otherwise {
                    self.block(o, ctx)
                } else {
                    Ok(Flow::Normal)
                }
            }
            InstructionKind::While { condition, body } => {
                loop {
                    self.core.spend()?;
                    let query = self
                        .core
                        .current_yaql()
                        .compile_parsed(&condition.expression);
                    let c = evaluate(self.core, &query, ctx)?;
                    if !c.truthy() {
                        break;
                    }
                    match self.block(body, ctx)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        Flow::Continue | Flow::Normal => {}
                    }
                }
                Ok(Flow::Normal)
            }
            InstructionKind::For {
                variable,
                collection,
                body,
            } => {
                let coll = self.eval(collection, ctx)?;
                let items: Vec<Value> = match &coll {
                    Value::List(v) | Value::Tuple(v) => v.to_vec(),
                    Value::Set(s) => s.iter().cloned().collect(),
                    Value::Dict(d) => d.keys().cloned().collect(),
                    Value::Str(_) => {
                        return Err(EngineError::dsl(
                            "DslInvalidOperationError",
                            "For: cannot iterate over a string",
                        ))
                    }
                    Value::Null => Vec::new(),
                    other => {
                        return Err(EngineError::dsl(
                            "DslInvalidOperationError",
                            format!("For: {} is not iterable", other.type_name()),
                        ))
                    }
                };
                for item in items {
                    self.core.spend()?;
                    ctx.set(variable, item);
                    match self.block(body, ctx)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        Flow::Continue | Flow::Normal => {}
                    }
                }
                Ok(Flow::Normal)
            }
            InstructionKind::Repeat { count, body } => {
                let n = match self.eval(count, ctx)? {
                    Value::Int(n) => n,
                    other => {
                        return Err(EngineError::dsl(
                            "DslInvalidOperationError",
                            format!("Repeat: {} is not an integer", other.type_name()),
                        ))
                    }
                };
                for _ in 0..n.max(0) {
                    self.core.spend()?;
                    match self.block(body, ctx)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        Flow::Continue | Flow::Normal => {}
                    }
                }
                Ok(Flow::Normal)
            }
            InstructionKind::Match {
                value,
                cases,
                default,
            } => {
                let v = self.eval(value, ctx)?;
                for (key, block) in cases {
                    if self.eval(key, ctx)? == v {
                        return self.block(block, ctx);
                    }
                }
                match default {
                    Some(d) => self.block(d, ctx),
                    None => Ok(Flow::Normal),
                }
            }
            InstructionKind::Switch { cases, default } => {
                let mut matched = false;
                for (key, block) in cases {
                    if self.eval(key, ctx)?.truthy() {
                        matched = true;
                        match self.block(block, ctx)? {
                            Flow::Normal => {}
                            other => return Ok(other),
                        }
                    }
                }
                match default {
                    Some(d) if !matched => self.block(d, ctx),
                    _ => Ok(Flow::Normal),
                }
            }
            InstructionKind::Parallel { body, limit } => {
                // Murano's ParallelMacro: nothing for no branches (no
                // pool, no switch); else `Limit` or one thread per branch,
                // each branch in a child context of its own.
                if body.is_empty() {
                    return Ok(Flow::Normal);
                }
                let limit = match limit {
                    Some(l) => match self.eval(l, ctx)? {
                        Value::Null => body.len(),
                        Value::Int(n) => usize::try_from(n).unwrap_or(0),
                        other => {
                            return Err(EngineError::new(
                                ErrorKind::Yaql(murano_yaql::eval::ErrorKind::TypeError),
                                format!("Limit must be an integer, not {}", other.py_str()),
                            ))
                        }
                    },
                    None => body.len(),
                };
                let core = self.core;
                let handling = &self.handling;
                let shared = std::sync::Mutex::new(ctx.clone());
                let flows = core.run_branches(body.len(), limit, &|i| {
                    let mut branch = Executor {
                        core,
                        handling: handling.clone(),
                        shared: Some(&shared),
                    };
                    let mut c = ctx_of(&shared);
                    branch.step(&body[i], &mut c)
                });
                *ctx = shared.into_inner().unwrap_or_else(|p| p.into_inner());
                Ok(flows?
                    .into_iter()
                    .find(|f| !matches!(f, Flow::Normal))
                    .unwrap_or(Flow::Normal))
            }
            InstructionKind::Try {
                body,
                catch,
                otherwise,
                finally,
            } => self.try_block(body, catch, otherwise.as_ref(), finally.as_ref(), ctx),
            InstructionKind::Throw {
                names,
                message,
                extra,
                cause,
            } => {
                // Murano's `Throw` takes its stack trace before it evaluates
                // its names, message, extra or cause: the frame points at
                // the `Throw` instruction itself, not at the expression of
                // its `Message:` (an error raised while evaluating those
                // keeps the position of its own expression).
                let frames = crate::trace::capture(self.core);
                let frame = self.core.current_frame();
                let class = frame.as_ref().map(|f| f.class);
                let mut resolved = Vec::new();
                for n in names {
                    let name = match self.eval(n, ctx)? {
                        Value::Str(s) => s.to_string(),
                        other => other.py_str(),
                    };
                    resolved.push(self.resolve_exception_name(class, &name));
                }
                let message = match message {
                    Some(m) => match self.eval(m, ctx)? {
                        Value::Null => String::new(),
                        Value::Str(s) => s.to_string(),
                        other => other.py_str(),
                    },
                    None => String::new(),
                };
                let extra = match extra {
                    Some(e) => Some(self.eval(e, ctx)?),
                    None => None,
                };
                let cause = match cause {
                    None => None,
                    Some(node) => {
                        let v = self.eval(node, ctx)?;
                        if v.is_null() {
                            None
                        } else {
                            let known = self.core.obj_of(&v).and_then(|o| {
                                crate::object::lock(&self.core.state)
                                    .exceptions
                                    .get(&o.id)
                                    .cloned()
                            });
                            match known {
                                Some(e) => Some(Box::new(e)),
                                None => {
                                    return Err(EngineError::dsl(
                                        "DslInvalidOperationError",
                                        "Cause must be an exception caught with Catch: As:",
                                    ))
                                }
                            }
                        }
                    }
                };
                let mut e = EngineError::new(
                    ErrorKind::Thrown {
                        names: resolved,
                        extra,
                    },
                    message,
                );
                e.cause = cause;
                e.frames = frames;
                Err(e)
            }
            InstructionKind::Rethrow => match self.handling.last() {
                Some(e) => Err(e.clone()),
                None => Err(EngineError::dsl(
                    "DslInvalidOperationError",
                    "Rethrow outside of a Catch block",
                )),
            },
            InstructionKind::Invalid { reason } => Err(EngineError::dsl("DslSyntaxError", reason)),
            _ => Err(EngineError::not_supported("this instruction")),
        }
    }

    /// A name of `Throw`/`Catch With` resolved with the class namespaces
    /// (`ns:name`; a plain name takes the default namespace when declared).
    fn resolve_exception_name(
        &self,
        class: Option<murano_dsl::registry::ClassId>,
        name: &str,
    ) -> String {
        let Some(def) = class.and_then(|c| self.core.classes.definition(c)) else {
            return name.to_owned();
        };
        if name.contains(':') || def.namespaces.get("=").is_some() {
            def.namespaces
                .resolve(name)
                .unwrap_or_else(|_| name.to_owned())
        } else {
            name.to_owned()
        }
    }

    fn try_block(
        &mut self,
        body: &Block,
        catch: &[murano_dsl::model::CatchClause],
        otherwise: Option<&Block>,
        finally: Option<&Block>,
        ctx: &mut Context,
    ) -> Result<Flow, EngineError> {
        let result = match self.block(body, ctx) {
            Ok(flow) => match otherwise {
                Some(o) if matches!(flow, Flow::Normal) => self.block(o, ctx),
                _ => Ok(flow),
            },
            Err(e) if e.catchable() => self.handle(e, catch, ctx),
            Err(e) => Err(e),
        };
        match finally {
            Some(f) => match self.block(f, ctx)? {
                Flow::Normal => result,
                other => Ok(other),
            },
            None => result,
        }
    }

    fn handle(
        &mut self,
        e: EngineError,
        catch: &[murano_dsl::model::CatchClause],
        ctx: &mut Context,
    ) -> Result<Flow, EngineError> {
        let class = self.core.current_frame().map(|f| f.class);
        let names = e.murano_names();
        for clause in catch {
            let matches = match &clause.with {
                None => true,
                Some(with) => {
                    let mut any = false;
                    for n in with {
                        // Names are not evaluated: an expression-looking
                        // name (`ns:Name`) is its text (Murano's
                        // `str(name)`).
                        let wanted = match &n.value {
                            YamlValue::Yaql(y) => y.text().to_owned(),
                            _ => match self.eval(n, ctx)? {
                                Value::Str(s) => s.to_string(),
                                other => other.py_str(),
                            },
                        };
                        let wanted = self.resolve_exception_name(class, &wanted);
                        if names.contains(&wanted) {
                            any = true;
                        }
                    }
                    any
                }
            };
            if !matches {
                continue;
            }
            if let Some(var) = &clause.bind_as {
                let obj = self.exception_object(&e)?;
                ctx.set(var, obj);
            }
            self.handling.push(e);
            let r = match &clause.body {
                Some(b) => self.block(b, ctx),
                None => Ok(Flow::Normal),
            };
            self.handling.pop();
            return r;
        }
        Err(e)
    }

    /// The `io.murano.Exception` object `Catch: As:` binds.
    fn exception_object(&self, e: &EngineError) -> Result<Value, EngineError> {
        self.exception_object_at(e, 0)
    }

    fn exception_object_at(&self, e: &EngineError, depth: usize) -> Result<Value, EngineError> {
        let core = self.core;
        let class = core.classes.resolve(None, "io.murano.Exception")?;
        let obj = core.create_object(class, None, None, Value::Null, Value::Null)?;
        obj.initialized
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let names = e.murano_names();
        let mut props = crate::object::lock(&obj.props);
        props.insert(
            "name".into(),
            names.first().map_or(Value::Null, |n| Value::str(n)),
        );
        props.insert("message".into(), Value::str(&e.message));
        props.insert("stackTrace".into(), Value::Null);
        let extra = match &e.kind {
            ErrorKind::Thrown { extra: Some(x), .. } => x.clone(),
            _ => Value::Dict(Arc::new(Dict::default())),
        };
        props.insert("extra".into(), extra);
        props.insert("nativeException".into(), Value::Null);
        drop(props);
        let cause = match &e.cause {
            Some(c) if depth < 32 => self.exception_object_at(c, depth + 1)?,
            _ => Value::Null,
        };
        crate::object::lock(&obj.props).insert("cause".into(), cause);
        crate::object::lock(&core.state)
            .exceptions
            .insert(obj.id.clone(), e.clone());
        Ok(Value::Object(obj))
    }

    // ----- assignment ----------------------------------------------------

    fn assign(
        &self,
        target: &AssignTarget,
        value: Value,
        ctx: &mut Context,
    ) -> Result<(), EngineError> {
        let (current, name) = match &target.root {
            TargetRoot::Variable(name) => {
                if target.path.is_empty() {
                    ctx.set(name, value);
                    return Ok(());
                }
                (ctx.get(name).cloned().unwrap_or_default(), Some(name))
            }
            TargetRoot::Expression(expr) => {
                let query = self.core.current_yaql().compile_expr(expr);
                let v = evaluate(self.core, &query, ctx)?;
                (v, None)
            }
        };
        let is_container =
            self.core.obj_of(&current).is_some() || self.core.type_of_value(&current).is_some();
        if is_container {
            self.set_path(current, &target.path, value, ctx)?;
            return Ok(());
        }
        let Some(name) = name else {
            return Err(EngineError::dsl(
                "DslInvalidOperationError",
                "the target of an assignment must be a variable, an object or a class",
            ));
        };
        let updated = self.set_path(current, &target.path, value, ctx)?;
        ctx.set(name, updated);
        Ok(())
    }

    fn set_path(
        &self,
        current: Value,
        path: &[TargetStep],
        value: Value,
        ctx: &Context,
    ) -> Result<Value, EngineError> {
        let Some((step, rest)) = path.split_first() else {
            return Ok(value);
        };
        if let Some(t) = self.core.type_of_value(&current) {
            let TargetStep::Attribute(prop) = step else {
                return Err(EngineError::not_supported("indexing a class"));
            };
            let old = if rest.is_empty() {
                Value::Null
            } else {
                self.core.read_static_property(t.class, prop)?
            };
            let nv = self.set_path(old, rest, value, ctx)?;
            self.core.write_static_property(t.class, prop, nv)?;
            return Ok(current);
        }
        if let Some((obj, part)) = self.core.part_of(&current) {
            let TargetStep::Attribute(prop) = step else {
                return Err(EngineError::not_supported("indexing an object"));
            };
            let old = if rest.is_empty() {
                Value::Null
            } else {
                match self.core.read_property_as(&obj, part, prop) {
                    Ok(v) => v,
                    Err(e) if e.python_type() == "UninitializedPropertyAccessError" => Value::Null,
                    Err(e) => return Err(e),
                }
            };
            let nv = self.set_path(old, rest, value, ctx)?;
            self.core.write_property_as(&obj, part, prop, nv)?;
            return Ok(current);
        }
        let key = match step {
            TargetStep::Attribute(a) => Value::str(a),
            TargetStep::Index(exprs) => {
                let [expr] = exprs.as_slice() else {
                    return Err(EngineError::not_supported("multi-index assignment"));
                };
                let query = self.core.current_yaql().compile_expr(expr);
                evaluate(self.core, &query, ctx)?
            }
        };
        match current {
            Value::List(items) | Value::Tuple(items) if matches!(step, TargetStep::Index(_)) => {
                let Value::Int(i) = key else {
                    return Err(EngineError::new(
                        ErrorKind::Yaql(murano_yaql::eval::ErrorKind::TypeError),
                        "list indices must be integers",
                    ));
                };
                let len = items.len() as i64;
                let idx = if i < 0 { i + len } else { i };
                if idx < 0 || idx >= len {
                    return Err(EngineError::new(
                        ErrorKind::Yaql(murano_yaql::eval::ErrorKind::IndexError),
                        "list assignment index out of range",
                    ));
                }
                let mut v = items.to_vec();
                let old = std::mem::take(&mut v[idx as usize]);
                v[idx as usize] = self.set_path(old, rest, value, ctx)?;
                Ok(Value::List(Arc::new(v)))
            }
            Value::Dict(d) => {
                let mut d = (*d).clone();
                let old = d.get(&key).cloned().unwrap_or_default();
                let nv = self.set_path(old, rest, value, ctx)?;
                d.insert(key, nv);
                Ok(Value::Dict(Arc::new(d)))
            }
            Value::Null => {
                let mut d = Dict::default();
                let nv = self.set_path(Value::Null, rest, value, ctx)?;
                d.insert(key, nv);
                Ok(Value::Dict(Arc::new(d)))
            }
            other => Err(EngineError::new(
                ErrorKind::Yaql(murano_yaql::eval::ErrorKind::TypeError),
                format!("cannot assign into a {}", other.type_name()),
            )),
        }
    }
}
