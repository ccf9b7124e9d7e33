//! Garbage collection of objects and `io.murano.system.GC`, as Murano's
//! `ObjectStore` (`_collect_garbage`, `_destroy_garbage`, `is_doomed`),
//! `executor.py` (`signal_destruction_dependencies`, `destroy_objects`)
//! and `principal_objects/garbage_collector.py` do it.
//!
//! Python finds garbage with its own collector: an object survives while
//! anything holds it. Here the roots are named: the model root, and for a
//! collection requested by MuranoPL code (`GC.collect()`) also the class
//! (static) properties and every running frame's `this` and local
//! variables (arguments included). Objects hold their owner and their
//! properties; destruction subscriptions hold their subscriber weakly (by
//! id), as Murano's weak references do.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use murano_yaql::eval::{Dict, Value};

use crate::engine::Core;
use crate::error::{EngineError, ErrorKind};
use crate::object::{lock, Obj};

pub(crate) use crate::classes::system::GC_CLASS_NAME;

/// One destruction subscription of a publisher: the subscriber (by id: a
/// weak reference) and the handler method it wants called, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dependency {
    pub(crate) subscriber: String,
    pub(crate) handler: Option<String>,
}

/// Most rounds of one collection (each round destroys at least one
/// object, so the object limit bounds it too).
const MAX_ROUNDS: usize = 100_000;
/// Most values visited while marking.
const MAX_MARK_STEPS: usize = 10_000_000;

/// Runs a method of `io.murano.system.GC` (`args`: by name, after their
/// contracts).
pub(crate) fn call(
    engine: &crate::Engine,
    method: &str,
    args: &[(String, Value)],
) -> Result<Value, EngineError> {
    let core: &Core = engine.core();
    let arg = |name: &str| {
        args.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let object = |name: &str| -> Result<Arc<Obj>, EngineError> {
        core.obj_of(&arg(name)).ok_or_else(|| {
            EngineError::dsl(
                "ContractViolationException",
                format!("Argument {name} must be a MuranoPL object"),
            )
        })
    };
    match method {
        "collect" => {
            collect(core, true)?;
            Ok(Value::Null)
        }
        "isDestroyed" => Ok(Value::Bool(object("object")?.is_destroyed())),
        "isDoomed" => {
            let o = object("object")?;
            let doomed = o.is_destroyed() || lock(&core.state).doomed.contains(&o.id);
            Ok(Value::Bool(doomed))
        }
        "subscribeDestruction" | "unsubscribeDestruction" => {
            let publisher = object("publisher")?;
            let subscriber = object("subscriber")?;
            let handler = match arg("handler") {
                Value::Null => None,
                Value::Str(s) => Some(s.to_string()),
                other => Some(other.py_str()),
            };
            if let Some(h) = &handler {
                find_handler(core, &subscriber, h)?;
            }
            let dep = Dependency {
                subscriber: subscriber.id.clone(),
                handler,
            };
            let mut deps = lock(&publisher.dependencies);
            let found = deps.iter().position(|d| *d == dep);
            match (method, found) {
                ("subscribeDestruction", None) => deps.push(dep),
                ("unsubscribeDestruction", Some(i)) => {
                    deps.remove(i);
                }
                _ => {}
            }
            Ok(Value::Null)
        }
        other => Err(EngineError::dsl(
            "NoMethodFound",
            format!("Method \"{other}\" is not found"),
        )),
    }
}

/// Murano's `find_single_method`: the handler must name exactly one
/// method of the subscriber's class.
fn find_handler(core: &Core, subscriber: &Obj, name: &str) -> Result<(), EngineError> {
    let found = core
        .classes
        .registry()
        .find_method(subscriber.class, name)
        .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
    match found.len() {
        0 => Err(EngineError::dsl(
            "NoMethodFound",
            format!("Method \"{name}\" is not found"),
        )),
        1 => Ok(()),
        _ => Err(EngineError::dsl(
            "AmbiguousMethodName",
            format!("Found more that one method \"{name}\""),
        )),
    }
}

/// `load_dependencies`: the `dependencies` of a model header
/// (`{onDestruction: [{subscriber: id, handler: name}]}`); subscribers not
/// in the store are skipped.
pub(crate) fn load_dependencies(
    core: &Core,
    obj: &Obj,
    dependencies: &Value,
) -> Result<(), EngineError> {
    lock(&obj.dependencies).clear();
    let Value::Dict(d) = dependencies else {
        return Ok(());
    };
    let Some(Value::List(records)) = d.get(&Value::str("onDestruction")) else {
        return Ok(());
    };
    for record in records.iter() {
        let Value::Dict(r) = record else { continue };
        let Some(id) = r.get(&Value::str("subscriber")).and_then(Value::as_str) else {
            continue;
        };
        let Some(subscriber) = core.lookup_id(id) else {
            continue;
        };
        let handler = match r.get(&Value::str("handler")) {
            None | Some(Value::Null) => None,
            Some(Value::Str(s)) => Some(s.to_string()),
            Some(other) => Some(other.py_str()),
        };
        if let Some(h) = &handler {
            find_handler(core, &subscriber, h)?;
        }
        let dep = Dependency {
            subscriber: subscriber.id.clone(),
            handler,
        };
        let mut deps = lock(&obj.dependencies);
        if !deps.contains(&dep) {
            deps.push(dep);
        }
    }
    Ok(())
}

/// The `dependencies` header an object serialises with (subscribers gone
/// or doomed are left out), or `None` without any.
pub(crate) fn dependencies_header(core: &Core, obj: &Obj) -> Option<Value> {
    let deps = lock(&obj.dependencies).clone();
    let mut records = Vec::new();
    for dep in deps {
        let Some(subscriber) = live_object(core, &dep.subscriber) else {
            continue;
        };
        if subscriber.is_destroyed() || lock(&core.state).doomed.contains(&subscriber.id) {
            continue;
        }
        let mut r = Dict::default();
        r.insert(Value::str("subscriber"), Value::str(&subscriber.id));
        r.insert(
            Value::str("handler"),
            dep.handler.as_deref().map_or(Value::Null, Value::str),
        );
        records.push(Value::Dict(Arc::new(r)));
    }
    if records.is_empty() {
        return None;
    }
    let mut d = Dict::default();
    d.insert(Value::str("onDestruction"), Value::List(Arc::new(records)));
    Some(Value::Dict(Arc::new(d)))
}

/// The object a weak reference names, while it is in the store.
fn live_object(core: &Core, id: &str) -> Option<Arc<Obj>> {
    lock(&core.state).objects.get(id).cloned()
}

/// The ids of the objects reachable from the roots: the model root, and
/// with `from_code` the static properties and the running frames' `this`
/// and local variables. Reaching an object reaches its owner, its
/// properties and the values inside them.
fn reachable(core: &Core, from_code: bool) -> HashSet<String> {
    let mut todo: Vec<Value> = Vec::new();
    {
        let st = lock(&core.state);
        if let Some(r) = &st.root {
            todo.push(Value::Object(r.clone()));
        }
        if from_code {
            todo.extend(st.statics.values().cloned());
            for frame in &st.stack {
                if let Some(t) = &frame.this {
                    todo.push(Value::Object(t.clone()));
                }
                for ctx in &frame.locals {
                    todo.extend(ctx.bindings().into_iter().map(|(_, v)| v.clone()));
                }
            }
            if let Some(o) = &st.static_receiver {
                todo.push(Value::Object(o.clone()));
            }
        }
    }
    let mut seen = HashSet::new();
    let mut steps = 0usize;
    while let Some(v) = todo.pop() {
        steps += 1;
        if steps > MAX_MARK_STEPS {
            break;
        }
        match &v {
            Value::Object(_) => {
                if let Some(o) = core.obj_of(&v) {
                    if seen.insert(o.id.clone()) {
                        todo.extend(lock(&o.props).values().cloned());
                        todo.extend(lock(&o.private).values().cloned());
                        if let Some(owner) = core.owner_of(&o) {
                            todo.push(Value::Object(owner));
                        }
                    }
                }
            }
            Value::List(items) | Value::Tuple(items) => todo.extend(items.iter().cloned()),
            Value::Dict(d) => {
                for (k, x) in d.iter() {
                    todo.push(k.clone());
                    todo.push(x.clone());
                }
            }
            Value::Set(s) => todo.extend(s.iter().cloned()),
            _ => {}
        }
    }
    seen
}

/// Destroys the objects not reachable (see [`reachable`]), in rounds until
/// none is left (a `.destroy` or a handler may drop more), as Murano's
/// `_collect_garbage`. Returns how many were destroyed.
pub(crate) fn collect(core: &Core, from_code: bool) -> Result<usize, EngineError> {
    let mut count = 0usize;
    for _ in 0..MAX_ROUNDS {
        let live = reachable(core, from_code);
        let mut garbage: Vec<Arc<Obj>> = lock(&core.state)
            .objects
            .values()
            .filter(|o| !live.contains(&o.id) && !o.is_destroyed())
            .cloned()
            .collect();
        // Murano's unreachable objects form a set: taken in the store's
        // order, or in the order the objects were created when asked.
        if lock(&core.state).creation_order_gc {
            garbage.sort_by_key(|o| o.birth.load(Ordering::Relaxed));
        }
        if garbage.is_empty() {
            return Ok(count);
        }
        let mut sentenced = Vec::new();
        for o in garbage {
            if o.initialized.load(Ordering::Relaxed) {
                lock(&core.state).doomed.insert(o.id.clone());
                sentenced.push(o);
            } else {
                o.destroyed.store(true, Ordering::Relaxed);
                forget(core, &o);
            }
        }
        let r = destroy(core, &sentenced, &mut count);
        if r.is_err() {
            let mut st = lock(&core.state);
            for o in &sentenced {
                st.doomed.remove(&o.id);
            }
        }
        r?;
    }
    Ok(count)
}

/// Marks a sentenced object destroyed and drops it from the store.
fn finish(core: &Core, obj: &Obj) {
    lock(&core.state).doomed.remove(&obj.id);
    obj.destroyed.store(true, Ordering::Relaxed);
    forget(core, obj);
}

/// Drops a destroyed object from the store (values holding it keep it).
fn forget(core: &Core, obj: &Obj) {
    let mut st = lock(&core.state);
    st.objects.remove(&obj.id);
    st.attributes.retain(|(o, _, _, _)| *o != obj.id);
}

/// Murano's `_destroy_garbage`: orders the sentenced objects so that an
/// object comes after its owner and its subscribers, tells the
/// subscribers (handlers) in that order, then runs `.destroy` in the
/// reverse order (owned objects before their owners), each group marked
/// destroyed once its `.destroy` methods ran (counted in `count`).
fn destroy(core: &Core, sentenced: &[Arc<Obj>], count: &mut usize) -> Result<(), EngineError> {
    let mut graph: HashMap<String, Vec<String>> = HashMap::new();
    let mut keys = Vec::new();
    for o in sentenced {
        let mut edges: Vec<String> = Vec::new();
        // The owner comes first, even when there is none (Python's `None`).
        edges.push(o.owner_id().unwrap_or_default());
        for d in lock(&o.dependencies).iter() {
            if live_object(core, &d.subscriber).is_some() && !edges.contains(&d.subscriber) {
                edges.push(d.subscriber.clone());
            }
        }
        graph.insert(o.id.clone(), edges);
        keys.push(o.id.clone());
    }
    let mut order: Vec<(usize, String)> = Vec::new();
    let mut visited: HashMap<String, usize> = HashMap::new();
    let mut indexes: HashMap<String, usize> = HashMap::new();
    for k in &keys {
        if visited.get(k).copied().unwrap_or(0) == 0 {
            dfs(k, &graph, &mut visited, &mut indexes, &mut order, 0);
        }
    }
    // The members of each group, in the walk's order (one pass: a scan
    // per group was quadratic in a long owner chain).
    let by_id: HashMap<&str, &Arc<Obj>> = sentenced.iter().map(|o| (o.id.as_str(), o)).collect();
    let mut groups: BTreeMap<usize, Vec<Arc<Obj>>> = BTreeMap::new();
    for (i, id) in &order {
        if let Some(o) = by_id.get(id.as_str()) {
            groups.entry(*i).or_default().push((*o).clone());
        }
    }
    for group in groups.values() {
        for o in group {
            signal(core, o)?;
        }
    }
    for group in groups.values().rev() {
        for o in group {
            run_destroy(core, o)?;
        }
        for o in group {
            finish(core, o);
            *count += 1;
        }
    }
    Ok(())
}

/// The depth-first walk of Murano's `topological`: an object's index is
/// one more than the largest index of its owner and subscribers; cycles
/// end the walk (the order inside one is unspecified).
fn dfs(
    id: &str,
    graph: &HashMap<String, Vec<String>>,
    visited: &mut HashMap<String, usize>,
    indexes: &mut HashMap<String, usize>,
    out: &mut Vec<(usize, String)>,
    depth: usize,
) {
    *visited.entry(id.to_owned()).or_insert(0) += 1;
    let Some(edges) = graph.get(id) else {
        return;
    };
    if depth > 10_000 {
        return;
    }
    let mut m = 0usize;
    for (i, s) in edges.iter().enumerate() {
        if i == 0 || visited.get(s).copied().unwrap_or(0) == 0 {
            // The owner link is followed even when visited: owner chains
            // have no cycles, and the depth bound stops a broken one.
            if visited.get(s).copied().unwrap_or(0) <= 2 {
                dfs(s, graph, visited, indexes, out, depth + 1);
            }
        }
        m = m.max(indexes.get(s).copied().unwrap_or(0));
    }
    let v = visited.get(id).copied().unwrap_or(0);
    if v <= 2 {
        visited.insert(id.to_owned(), v + 1);
        indexes.insert(id.to_owned(), m + 1);
        out.push((m + 1, id.to_owned()));
    }
}

/// Whether an error must leave a destruction (limits, "not supported"):
/// Murano logs and mutes every other error of a handler or `.destroy`.
fn fatal(e: &EngineError) -> bool {
    matches!(e.kind, ErrorKind::Limit(_) | ErrorKind::NotSupported)
}

/// Records an error Murano mutes with `LOG.warning('Muted exception
/// during <what> <object>: <traceback>')` (see [`crate::Engine::take_warnings`]).
fn muted(core: &Core, what: &str, obj: &Obj, e: &EngineError) {
    let text = format!(
        "Muted exception during {what} {} ({}): {}",
        obj.class_name,
        obj.id,
        e.formatted()
    );
    lock(&core.state).warnings.push(text);
}

/// `signal_destruction_dependencies` for one object: each subscriber with
/// a handler, still initialised and not destroyed, has the handler called
/// with the object; then the subscriptions are dropped.
fn signal(core: &Core, obj: &Arc<Obj>) -> Result<(), EngineError> {
    if obj.is_destroyed() {
        return Ok(());
    }
    let deps = lock(&obj.dependencies).clone();
    for dep in deps {
        let Some(handler) = &dep.handler else {
            continue;
        };
        let Some(subscriber) = live_object(core, &dep.subscriber) else {
            continue;
        };
        if !subscriber.initialized.load(Ordering::Relaxed) || subscriber.is_destroyed() {
            continue;
        }
        let r = core.invoke(
            Some(&subscriber),
            subscriber.class,
            handler,
            vec![Value::Object(obj.clone())],
            Vec::new(),
            false,
        );
        match r {
            Err(e) if fatal(&e) => return Err(e),
            Err(e) => muted(core, "destruction dependency execution in", obj, &e),
            Ok(_) => {}
        }
    }
    lock(&obj.dependencies).clear();
    Ok(())
}

/// `destroy_objects` for one object: its `.destroy` methods, most derived
/// class first.
fn run_destroy(core: &Core, obj: &Arc<Obj>) -> Result<(), EngineError> {
    if obj.is_destroyed() {
        return Ok(());
    }
    for class in core.classes.mro(obj.class) {
        let has = core
            .classes
            .definition(class)
            .is_some_and(|d| d.method(".destroy").is_some());
        if has {
            match core.run_declared(Some(obj), class, ".destroy", Vec::new()) {
                Err(e) if fatal(&e) => return Err(e),
                Err(e) => muted(core, "execution of .destroy on", obj, &e),
                Ok(_) => {}
            }
        }
    }
    Ok(())
}

/// The objects Murano's `serializer.collect_objects` finds from the model
/// root: through the values of declared properties that are neither
/// `Runtime` nor `Config` (what `to_dictionary` writes).
fn model_objects(core: &Core) -> HashSet<String> {
    let mut todo: Vec<Value> = Vec::new();
    if let Some(r) = &lock(&core.state).root {
        todo.push(Value::Object(r.clone()));
    }
    let mut seen = HashSet::new();
    let mut steps = 0usize;
    while let Some(v) = todo.pop() {
        steps += 1;
        if steps > MAX_MARK_STEPS {
            break;
        }
        match &v {
            Value::Object(_) => {
                let Some(o) = core.obj_of(&v) else {
                    continue;
                };
                if !seen.insert(o.id.clone()) {
                    continue;
                }
                let props: Vec<(String, Value)> = lock(&o.props)
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                for (name, value) in props {
                    let usage = core.classes.mro(o.class).into_iter().find_map(|c| {
                        core.classes
                            .definition(c)
                            .and_then(|d| d.property(&name))
                            .map(|p| p.usage)
                    });
                    if matches!(
                        usage,
                        Some(murano_dsl::model::PropertyUsage::Runtime)
                            | Some(murano_dsl::model::PropertyUsage::Config)
                    ) {
                        continue;
                    }
                    todo.push(value);
                }
            }
            Value::List(items) | Value::Tuple(items) => todo.extend(items.iter().cloned()),
            Value::Dict(d) => todo.extend(d.values().cloned()),
            Value::Set(s) => todo.extend(s.iter().cloned()),
            _ => {}
        }
    }
    seen
}

/// Murano's `ObjectStore.prepare_finalize` (what a deployment task does
/// before serialising its model): every object the model does not hold
/// (see [`model_objects`]) is destroyed, `.destroy` methods and handlers
/// included. Returns how many were destroyed.
pub(crate) fn prepare_finalize(core: &Core) -> Result<usize, EngineError> {
    let used = model_objects(core);
    let sentenced: Vec<Arc<Obj>> = lock(&core.state)
        .objects
        .values()
        .filter(|o| !used.contains(&o.id) && !o.is_destroyed())
        .cloned()
        .collect();
    let mut count = 0;
    let mut live = Vec::new();
    for o in sentenced {
        if o.initialized.load(Ordering::Relaxed) {
            lock(&core.state).doomed.insert(o.id.clone());
            live.push(o);
        } else {
            o.destroyed.store(true, Ordering::Relaxed);
            forget(core, &o);
        }
    }
    destroy(core, &live, &mut count)?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use murano_dsl::version::Version;
    use murano_yaql::eval::{Dict, FunctionDef, Value};

    use crate::{ClassSetBuilder, Engine, EngineError, ErrorKind, LimitKind, Limits, Receiver};

    const CLASSES: &str = r#"
Namespaces:
  sys: io.murano.system
  std: io.murano
Name: Node
Properties:
  nodes: {Contract: [$.class(Node)]}
  value: {Contract: $.string()}
Methods:
  .destroy:
    Body:
      - trace($.value)
  onDestroyed:
    Arguments: [{obj: {Contract: $.class(Node)}}]
    Body:
      - trace('{0} saw {1}'.format($.value, $obj.value))
---
Namespaces:
  sys: io.murano.system
  std: io.murano
Name: Doomed
Extends: Node
Methods:
  .destroy:
    Body:
      - trace(list($.nodes.select(sys:GC.isDoomed($))))
      - $owner: $.find(std:Object)
      - trace(sys:GC.isDoomed($owner))
---
Name: Spinner
Extends: Node
Methods:
  .destroy:
    Body:
      - trace(spinning)
      - While: $.value != null
        Do:
          - $x: 1
---
Name: Thrower
Extends: Node
Methods:
  .destroy:
    Body:
      - Throw: Oops
        Message: muted
---
Namespaces:
  sys: io.murano.system
Name: Root
Methods:
  collectFromCode:
    Scope: Public
    Body:
      - $model:
          :Node:
            value: A
            nodes:
              - :Node:
                  value: B
      - new($model)
      - $kept: new($model)
      - sys:GC.collect()
      - trace($kept.value)
  isDoomed:
    Scope: Public
    Body:
      - $model:
          :Doomed:
            value: A
            nodes:
              - :Doomed:
                  value: B
      - new($model, $this)
      - sys:GC.collect()
  callerLocals:
    Scope: Public
    Body:
      - $held: new(Node, value => held)
      - $.collectNow()
      - trace(sys:GC.isDestroyed($held))
  collectNow:
    Body:
      - new(Node, value => dropped)
      - sys:GC.collect()
  subscriptions:
    Scope: Public
    Body:
      - $a: new(Node, value => a)
      - $b: new(Node, value => b)
      - sys:GC.subscribeDestruction($a, $b, onDestroyed)
      - sys:GC.subscribeDestruction($a, $b, onDestroyed)
      - sys:GC.subscribeDestruction($b, $a, onDestroyed)
      - sys:GC.subscribeDestruction($b, $a, onDestroyed)
      - sys:GC.unsubscribeDestruction($b, $a, onDestroyed)
      - sys:GC.subscribeDestruction($a, $b)
      - $a: null
      - $b: null
      - sys:GC.collect()
  cycle:
    Scope: Public
    Body:
      - $a: new(Node, value => a)
      - $b: new(Node, value => b)
      - sys:GC.subscribeDestruction($a, $b, onDestroyed)
      - sys:GC.subscribeDestruction($b, $a, onDestroyed)
      - $a: null
      - $b: null
      - sys:GC.collect()
  badHandler:
    Scope: Public
    Body:
      - sys:GC.subscribeDestruction(new(Node), $this, noSuchMethod)
  spin:
    Scope: Public
    Body:
      - new(Spinner, value => s)
      - sys:GC.collect()
  throwing:
    Scope: Public
    Body:
      - new(Thrower, value => t)
      - sys:GC.collect()
      - trace(after)
"#;

    type Traces = Arc<Mutex<Vec<Value>>>;

    fn engine(limits: Limits) -> (Engine, Value, Traces) {
        let mut b = ClassSetBuilder::new();
        let pkg = b.add_package("t", Version::new(0, 0, 0)).unwrap();
        let core = b.add_package("io.murano", Version::new(0, 0, 0)).unwrap();
        b.add_system_classes(core).unwrap();
        for def in ClassSetBuilder::parse_file(b"Name: io.murano.Object", "Object.yaml").unwrap() {
            b.add_class(core, "Object.yaml", def).unwrap();
        }
        for def in ClassSetBuilder::parse_file(CLASSES.as_bytes(), "Gc.yaml").unwrap() {
            b.add_class(pkg, "Gc.yaml", def).unwrap();
        }
        let traces: Traces = Arc::default();
        let t = traces.clone();
        let trace = FunctionDef::native("trace", "data", move |call| {
            let v = call.value(0)?.clone();
            if let Ok(mut t) = t.lock() {
                t.push(v);
            }
            Ok(Value::Null)
        });
        let engine = Engine::new(Arc::new(b.build()), limits, vec![trace]);
        let mut header = Dict::default();
        header.insert(Value::str("type"), Value::str("Root"));
        header.insert(Value::str("id"), Value::str("root"));
        let mut obj = Dict::default();
        obj.insert(Value::str("?"), Value::Dict(Arc::new(header)));
        let mut model = Dict::default();
        model.insert(Value::str("Objects"), Value::Dict(Arc::new(obj)));
        let root = engine
            .load_model(&Value::Dict(Arc::new(model)))
            .unwrap()
            .unwrap();
        (engine, root, traces)
    }

    fn run(method: &str) -> (Result<Value, EngineError>, Vec<Value>) {
        run_with(Limits::default(), method)
    }

    fn run_with(limits: Limits, method: &str) -> (Result<Value, EngineError>, Vec<Value>) {
        let (engine, root, traces) = engine(limits);
        let r = engine.call(&Receiver::Object(root), method, vec![], vec![]);
        let t = traces.lock().map(|t| t.clone()).unwrap_or_default();
        (r, t)
    }

    fn strs(items: &[&str]) -> Vec<Value> {
        items.iter().map(|s| Value::str(s)).collect()
    }

    #[test]
    fn collect_destroys_what_no_variable_holds_owned_objects_first() {
        // Murano's test_gc.test_collect_from_code.
        let (r, t) = run("collectFromCode");
        r.unwrap();
        assert_eq!(t, strs(&["B", "A", "A"]));
    }

    #[test]
    fn is_doomed_during_destruction() {
        // Murano's test_gc.test_is_doomed.
        let (r, t) = run("isDoomed");
        r.unwrap();
        let list = |v: Vec<Value>| Value::List(Arc::new(v));
        assert_eq!(
            t,
            vec![
                list(vec![]),
                Value::Bool(true),
                Value::str("B"),
                list(vec![Value::Bool(true)]),
                Value::Bool(false),
                Value::str("A"),
            ]
        );
    }

    #[test]
    fn callers_locals_are_roots() {
        let (r, t) = run("callerLocals");
        r.unwrap();
        assert_eq!(t, vec![Value::str("dropped"), Value::Bool(false)]);
    }

    #[test]
    fn subscriptions_are_kept_once_and_can_be_dropped() {
        // b subscribed to a once (twice asked) with a handler and once
        // without; a's subscription to b was dropped. Both objects are in
        // one group: handlers first, then `.destroy`.
        let (r, t) = run("subscriptions");
        r.unwrap();
        assert_eq!(t, strs(&["b saw a", "a", "b"]));
    }

    #[test]
    fn subscription_cycles_end() {
        let (r, t) = run("cycle");
        r.unwrap();
        assert_eq!(t.len(), 4, "{t:?}");
        assert!(t.contains(&Value::str("a saw b")) && t.contains(&Value::str("b saw a")));
    }

    #[test]
    fn unknown_handler_is_refused() {
        let (r, _) = run("badHandler");
        let e = r.unwrap_err();
        assert!(
            matches!(&e.kind, ErrorKind::Engine { type_name, .. } if type_name == "NoMethodFound"),
            "{e}"
        );
    }

    #[test]
    fn destroy_errors_are_muted_but_limits_are_not() {
        // Thrower's own `.destroy` throws (muted); Node's still runs.
        let (r, t) = run("throwing");
        r.unwrap();
        assert_eq!(t, strs(&["t", "after"]));
        let limits = Limits {
            fuel: Some(5_000),
            ..Limits::default()
        };
        let (r, t) = run_with(limits, "spin");
        assert_eq!(t, strs(&["spinning"]));
        assert_eq!(r.unwrap_err().kind, ErrorKind::Limit(LimitKind::Fuel));
    }
}
