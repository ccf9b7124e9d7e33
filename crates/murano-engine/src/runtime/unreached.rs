//! Objects of a model that no `class()` contract reached.
//!
//! The engine creates every object defined in a model before it sets any
//! property (so references by id resolve wherever the definition is);
//! Murano creates an object only when a `class()` contract reaches its
//! definition. A definition nothing reaches — under a `template()`
//! contract (the template stays a model), or under a contract that keeps
//! plain data — never becomes an object there, so it is taken out of the
//! store again rather than initialised on its own.

use std::collections::HashSet;
use std::sync::Arc;

use crate::engine::Core;
use crate::object::{lock, Obj};

/// Removes `objects` from the store and from the load's id aliases.
pub(crate) fn forget<'a>(core: &Core, objects: impl Iterator<Item = &'a Arc<Obj>>) {
    let mut st = lock(&core.state);
    // One pass over the aliases for all of them, not one per object.
    let mut gone = HashSet::new();
    for o in objects {
        st.objects.remove(&o.id);
        st.unreached_ids.insert(o.id.clone());
        gone.insert(Arc::as_ptr(o));
    }
    if gone.is_empty() {
        return;
    }
    for scope in st.aliases.iter_mut() {
        scope.retain(|_, x| !gone.contains(&Arc::as_ptr(x)));
    }
}
