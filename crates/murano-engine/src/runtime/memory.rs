//! The run's memory budget ([`crate::Limits::max_memory`]): YAQL charges
//! it where values are built (`murano_yaql::eval::MemoryBudget`); this
//! module makes the budget and recounts what the run really holds when
//! the estimate passes the limit.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError, Weak};

use murano_yaql::eval::{Context, MemoryBudget, Value, ENTRY_BYTES, ITEM_BYTES};

use crate::engine::{Core, Frame};
use crate::sched::ThreadId;

/// A run's memory: its budget, and the variables of the green threads
/// waiting (their frames are off the engine's state meanwhile, but what
/// they hold is still held).
pub(crate) struct RunMemory {
    /// The budget YAQL evaluations charge.
    pub(crate) budget: Arc<MemoryBudget>,
    parked: Mutex<HashMap<ThreadId, Vec<Context>>>,
}

impl RunMemory {
    /// A budget of `limit` bytes, recounting through `core`.
    pub(crate) fn new(limit: u64, core: Weak<Core>) -> RunMemory {
        RunMemory {
            budget: budget(limit, core),
            parked: Mutex::new(HashMap::new()),
        }
    }

    /// Green thread `id` stops running with `frames`: a recount still
    /// sees their variables until [`RunMemory::unpark`].
    pub(crate) fn park(&self, id: ThreadId, frames: &[Frame]) {
        let locals: Vec<Context> = frames
            .iter()
            .flat_map(|f| f.locals.iter().cloned())
            .collect();
        if !locals.is_empty() {
            crate::object::lock(&self.parked).insert(id, locals);
        }
    }

    /// Green thread `id` runs again (its frames are back in the state).
    pub(crate) fn unpark(&self, id: ThreadId) {
        crate::object::lock(&self.parked).remove(&id);
    }
}

/// Values a recount visits at most; beyond, it gives up and the estimate
/// stands (a walk must not cost more than the run).
const MAX_RECOUNT_STEPS: usize = 20_000_000;

/// Bytes an object is counted for besides its properties' values (its
/// record, id and maps).
const OBJECT_BYTES: u64 = 256;

/// The budget of a run under `limit` bytes, recounting through `core`.
fn budget(limit: u64, core: Weak<Core>) -> Arc<MemoryBudget> {
    let budget = Arc::new(MemoryBudget::new(limit));
    budget.set_recount(Box::new(move || core.upgrade().and_then(|c| held(&c))));
    budget
}

/// A lock not held by anyone (the recount runs inside evaluations, maybe
/// under one of these locks on this very thread: then it gives up).
fn try_lock<T>(m: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match m.try_lock() {
        Ok(g) => Some(g),
        Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// The bytes of strings and collections the run holds now: the values of
/// every object in the store, static properties, and the variables of the
/// running thread's frames and of the waiting ones, each shared value
/// counted once. `None` when it cannot tell (a lock busy, or too much to
/// walk).
pub(crate) fn held(core: &Core) -> Option<u64> {
    let mut todo: Vec<Value> = Vec::new();
    let mut objects = 0u64;
    {
        let st = try_lock(&core.state)?;
        for o in st.objects.values() {
            objects += 1;
            todo.extend(try_lock(&o.props)?.values().cloned());
            todo.extend(try_lock(&o.private)?.values().cloned());
        }
        todo.extend(st.statics.values().cloned());
        for frame in &st.stack {
            for ctx in &frame.locals {
                todo.extend(ctx.bindings().into_iter().map(|(_, v)| v.clone()));
            }
        }
    }
    for ctx in try_lock(&core.memory.parked)?.values().flatten() {
        todo.extend(ctx.bindings().into_iter().map(|(_, v)| v.clone()));
    }
    let mut seen: HashSet<usize> = HashSet::new();
    let mut bytes = objects.saturating_mul(OBJECT_BYTES);
    let mut steps = 0usize;
    while let Some(v) = todo.pop() {
        steps += 1;
        if steps > MAX_RECOUNT_STEPS {
            return None;
        }
        let (addr, own) = match &v {
            Value::Str(s) => (Arc::as_ptr(s) as *const u8 as usize, s.len() as u64),
            Value::List(x) | Value::Tuple(x) => {
                (Arc::as_ptr(x) as usize, x.len() as u64 * ITEM_BYTES)
            }
            Value::Dict(d) => (Arc::as_ptr(d) as usize, d.len() as u64 * ENTRY_BYTES),
            Value::Set(s) => (Arc::as_ptr(s) as usize, s.len() as u64 * (ITEM_BYTES + 8)),
            _ => continue,
        };
        if !seen.insert(addr) {
            continue;
        }
        bytes = bytes.saturating_add(own);
        match &v {
            Value::List(x) | Value::Tuple(x) => todo.extend(x.iter().cloned()),
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
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use murano_dsl::version::Version;
    use murano_yaql::eval::{Dict, Value};

    use crate::{ClassSetBuilder, Engine, EngineError, ErrorKind, LimitKind, Limits, Receiver};

    const CLASS: &str = r#"
Name: Hoarder
Properties:
  kept: {Contract: $, Usage: InOut}
Methods:
  list:
    Scope: Public
    Arguments: [{n: {Contract: $.int()}}, {size: {Contract: $.int()}}]
    Body:
      - $l: []
      - For: i
        In: range(0, $n)
        Do:
          - $l: $l + [str($i) * $size]
      - Return: len($l)
  dict:
    Scope: Public
    Arguments: [{n: {Contract: $.int()}}, {size: {Contract: $.int()}}]
    Body:
      - $.kept: {}
      - For: i
        In: range(0, $n)
        Do:
          - $.kept: $.kept.set(str($i), str($i) * $size)
      - Return: len($.kept)
  churn:
    Scope: Public
    Arguments: [{n: {Contract: $.int()}}, {size: {Contract: $.int()}}]
    Body:
      - For: i
        In: range(0, $n)
        Do:
          - $s: str($i) * $size
      - Return: len($s)
  caught:
    Scope: Public
    Body:
      - Try:
          - $.list(1000, 100000)
        Catch:
          - Do:
              - Return: caught
"#;

    /// A method running `n` branches that each hold a distinct string of
    /// 1 MB in a variable while they sleep.
    fn sleepers(n: usize) -> String {
        let branch =
            "          - Do:\n              - $s: (randomName() + '.') * 70000\n              \
                      - sleep(1)\n              - $.kept: $.kept + 1\n";
        format!(
            "  sleepers{n}:\n    Scope: Public\n    Body:\n      - $.kept: 0\n      \
             - Parallel:\n{}      - Return: $.kept\n",
            branch.repeat(n)
        )
    }

    fn call(max_memory: u64, method: &str, args: Vec<Value>) -> Result<Value, EngineError> {
        let mut b = ClassSetBuilder::new();
        let pkg = b.add_package("t", Version::new(0, 0, 0)).unwrap();
        let core = b.add_package("io.murano", Version::new(0, 0, 0)).unwrap();
        for def in ClassSetBuilder::parse_file(b"Name: io.murano.Object", "Object.yaml").unwrap() {
            b.add_class(core, "Object.yaml", def).unwrap();
        }
        let text = format!("{CLASS}{}{}", sleepers(5), sleepers(50));
        for def in ClassSetBuilder::parse_file(text.as_bytes(), "Hoarder.yaml").unwrap() {
            b.add_class(pkg, "Hoarder.yaml", def).unwrap();
        }
        let limits = Limits {
            max_memory,
            ..Limits::default()
        };
        let engine = Engine::new(Arc::new(b.build()), limits, Vec::new());
        let mut header = Dict::default();
        header.insert(Value::str("type"), Value::str("Hoarder"));
        header.insert(Value::str("id"), Value::str("root"));
        let mut obj = Dict::default();
        obj.insert(Value::str("?"), Value::Dict(Arc::new(header)));
        let mut model = Dict::default();
        model.insert(Value::str("Objects"), Value::Dict(Arc::new(obj)));
        let root = engine
            .load_model(&Value::Dict(Arc::new(model)))
            .unwrap()
            .unwrap();
        engine.call(&Receiver::Object(root), method, args, Vec::new())
    }

    fn memory_error(e: &EngineError) {
        assert_eq!(e.kind, ErrorKind::Limit(LimitKind::Memory), "{e}");
        assert!(!e.catchable());
        let frame = e.frames.first().expect("a position");
        assert_eq!(frame.file.as_deref(), Some("Hoarder.yaml"), "{e:?}");
        assert!(frame.line > 0);
    }

    #[test]
    fn distinct_strings_held_in_a_list_hit_the_budget() {
        let ok = call(8 << 20, "list", vec![Value::Int(10), Value::Int(100_000)]);
        assert_eq!(ok.unwrap(), Value::Int(10));
        let e = call(8 << 20, "list", vec![Value::Int(1000), Value::Int(100_000)]).unwrap_err();
        memory_error(&e);
    }

    #[test]
    fn a_dict_grown_in_a_loop_hits_the_budget() {
        let e = call(8 << 20, "dict", vec![Value::Int(1000), Value::Int(100_000)]).unwrap_err();
        memory_error(&e);
    }

    #[test]
    fn values_built_and_dropped_do_not_count() {
        // About 190 MiB built, one string of 2 MiB held at a time.
        let out = call(8 << 20, "churn", vec![Value::Int(100), Value::Int(1 << 20)]);
        assert_eq!(out.unwrap(), Value::Int(2 << 20));
    }

    #[test]
    fn what_waiting_branches_hold_counts() {
        // Each branch holds its string (about 1 MB) while it sleeps: five fit
        // in 8 MiB, fifty do not, though no running frame holds them.
        let ok = call(8 << 20, "sleepers5", vec![]);
        assert_eq!(ok.unwrap(), Value::Int(5));
        let e = call(8 << 20, "sleepers50", vec![]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Limit(LimitKind::Memory), "{e}");
    }

    #[test]
    fn the_budget_is_not_caught() {
        let e = call(8 << 20, "caught", vec![]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Limit(LimitKind::Memory), "{e}");
    }
}
