//! Murano's method locks. Every call holds a lock on (object, method),
//! or on (method, argument values), or none, as the method's
//! `io.murano.metadata.engine.Synchronize` meta says (default: on the
//! object); another green thread calling under the same lock waits until
//! it is released, the owner may re-enter. Observable under `Parallel`.

use std::collections::HashMap;
use std::sync::Arc;

use murano_dsl::registry::ClassId;
use murano_yaql::eval::Value;

use crate::engine::Core;
use crate::error::{EngineError, LimitKind};
use crate::object::{lock, Obj};
use crate::sched::{ThreadId, WaitKind};

/// The meta class that configures locking.
const SYNCHRONIZE: &str = "io.murano.metadata.engine.Synchronize";

/// A method's `Synchronize` settings.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SyncSpec {
    /// Lock on the receiver (its object, or the type of a static method).
    on_this: bool,
    /// Arguments whose values key the lock.
    on_args: Vec<String>,
}

impl Default for SyncSpec {
    fn default() -> SyncSpec {
        SyncSpec {
            on_this: true,
            on_args: Vec::new(),
        }
    }
}

/// What a lock is taken on: the receiver (an object id or a static
/// method's class) or nothing, and the method.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct LockKey {
    receiver: Option<Receiver>,
    method: (ClassId, usize),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Receiver {
    Object(String),
    Type(ClassId),
}

/// A lock held by a thread, keyed by argument values.
struct Held {
    args: Vec<(String, Value)>,
    owner: ThreadId,
    waiters: Vec<ThreadId>,
}

/// The locks held now.
#[derive(Default)]
pub(crate) struct MethodLocks {
    held: HashMap<LockKey, Vec<Held>>,
    specs: HashMap<(ClassId, usize), Arc<SyncSpec>>,
}

/// A lock acquired by a call, released when the call ends.
pub(crate) struct Acquired {
    key: LockKey,
    args: Vec<(String, Value)>,
}

impl Core {
    /// The `Synchronize` settings of method `index` of `class` (its meta,
    /// inherited ones included, evaluated once).
    fn sync_spec(&self, class: ClassId, index: usize) -> Result<Arc<SyncSpec>, EngineError> {
        if let Some(s) = lock(&self.state).locks.specs.get(&(class, index)) {
            return Ok(s.clone());
        }
        let classes = self.classes.clone();
        let Some(method) = classes.definition(class).and_then(|d| d.methods.get(index)) else {
            return Ok(Arc::new(SyncSpec::default()));
        };
        let metas = classes
            .registry()
            .method_meta(class, &method.name)
            .unwrap_or_default();
        // Murano instantiates the method's meta objects (each an object
        // with an id of its own) the first time it looks for these settings.
        crate::ids::meta_object_ids(self, metas.len());
        let mut spec = SyncSpec::default();
        if let Some(m) = metas
            .iter()
            .find(|m| classes.name(m.attachment.meta_class) == SYNCHRONIZE)
        {
            if let Some(node) = &m.attachment.properties {
                let ctx = self.method_context(m.declared_by, None);
                let props = crate::exec::eval_node(self, node, &ctx)?;
                if let Value::Dict(d) = &props {
                    if let Some(v) = d.get(&Value::str("onThis")) {
                        spec.on_this = v.truthy();
                    }
                    match d.get(&Value::str("onArgs")) {
                        Some(Value::Str(s)) => spec.on_args = vec![s.to_string()],
                        Some(Value::List(l) | Value::Tuple(l)) => {
                            spec.on_args = l
                                .iter()
                                .filter_map(|v| match v {
                                    Value::Str(s) => Some(s.to_string()),
                                    _ => None,
                                })
                                .collect()
                        }
                        _ => {}
                    }
                }
            }
        }
        let spec = Arc::new(spec);
        lock(&self.state)
            .locks
            .specs
            .insert((class, index), spec.clone());
        Ok(spec)
    }

    /// Takes the lock a call of method `index` of `class` on `this` (or
    /// statically) with these bound arguments needs, waiting while
    /// another green thread holds it. `None`: the call takes no lock (or
    /// re-enters one its thread holds).
    pub(crate) fn acquire_method_lock(
        &self,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        index: usize,
        arguments: &[(String, Value)],
    ) -> Result<Option<Acquired>, EngineError> {
        let spec = self.sync_spec(class, index)?;
        let args: Vec<(String, Value)> = spec
            .on_args
            .iter()
            .filter_map(|name| {
                arguments
                    .iter()
                    .find(|(n, v)| n == name && !v.is_null())
                    .cloned()
            })
            .collect();
        let receiver = match (spec.on_this, this) {
            (false, _) if args.is_empty() => return Ok(None),
            (false, _) => None,
            (true, Some(o)) => Some(Receiver::Object(o.id.clone())),
            (true, None) => Some(Receiver::Type(class)),
        };
        let key = LockKey {
            receiver,
            method: (class, index),
        };
        let me = self.sched.current();
        loop {
            {
                let mut st = lock(&self.state);
                let list = st.locks.held.entry(key.clone()).or_default();
                match list.iter_mut().find(|h| h.args == args) {
                    Some(h) if h.owner == me => return Ok(None),
                    Some(h) => h.waiters.push(me),
                    None => {
                        list.push(Held {
                            args: args.clone(),
                            owner: me,
                            waiters: Vec::new(),
                        });
                        return Ok(Some(Acquired { key, args }));
                    }
                }
            }
            self.switch_thread(|s| s.wait(me, WaitKind::Lock))
                .map_err(|_| deadlock())?;
        }
    }

    /// Releases a lock [`Core::acquire_method_lock`] took and wakes the
    /// threads waiting on it.
    pub(crate) fn release_method_lock(&self, acquired: Option<Acquired>) {
        let Some(Acquired { key, args }) = acquired else {
            return;
        };
        let waiters = {
            let mut st = lock(&self.state);
            let Some(list) = st.locks.held.get_mut(&key) else {
                return;
            };
            let waiters = match list.iter().position(|h| h.args == args) {
                Some(i) => list.remove(i).waiters,
                None => Vec::new(),
            };
            if list.is_empty() {
                st.locks.held.remove(&key);
            }
            waiters
        };
        for w in waiters {
            self.sched.wake(w);
        }
    }
}

/// The error of a wait that can never end.
pub(crate) fn deadlock() -> EngineError {
    EngineError::limit(
        LimitKind::Deadlock,
        "deadlock: every green thread waits on another (Murano would hang here)",
    )
}
