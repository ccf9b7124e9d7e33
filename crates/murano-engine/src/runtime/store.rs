//! The object store: objects by id, in the order Murano's store lists
//! them (the order garbage is destroyed in).
//!
//! An insertion-ordered map removes an entry by shifting every later one,
//! so collecting or loading n objects took O(n²) (99k objects: 18 s to
//! collect). Here each entry carries a sequence number and the order is a
//! B-tree over those numbers: lookups stay one hash probe, removal and
//! moving to the end cost O(log n).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::object::Obj;

/// Objects by id, ordered by insertion (see the module documentation).
pub(crate) type ObjectStore = OrderedStore<Arc<Obj>>;

/// A value that knows its own id.
pub(crate) trait Keyed: Clone {
    /// The id it is stored under.
    fn key(&self) -> &str;
}

impl Keyed for Arc<Obj> {
    fn key(&self) -> &str {
        &self.id
    }
}

/// Values by id, ordered by insertion (see the module documentation).
pub(crate) struct OrderedStore<V> {
    by_id: HashMap<String, (u64, V)>,
    order: BTreeMap<u64, V>,
    next: u64,
}

impl<V> Default for OrderedStore<V> {
    fn default() -> Self {
        OrderedStore {
            by_id: HashMap::new(),
            order: BTreeMap::new(),
            next: 0,
        }
    }
}

impl<V: Keyed> OrderedStore<V> {
    /// The object with this id.
    pub(crate) fn get(&self, id: &str) -> Option<&V> {
        self.by_id.get(id).map(|(_, o)| o)
    }

    /// Whether an object has this id.
    pub(crate) fn contains_key(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// How many objects are stored.
    pub(crate) fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Stores `obj` under `id`: at the end, or in the place of the object
    /// that had this id (as an insertion-ordered map does).
    pub(crate) fn insert(&mut self, id: String, obj: V) {
        match self.by_id.get_mut(&id) {
            Some((seq, old)) => {
                *old = obj.clone();
                self.order.insert(*seq, obj);
            }
            None => {
                let seq = self.next;
                self.next += 1;
                self.order.insert(seq, obj.clone());
                self.by_id.insert(id, (seq, obj));
            }
        }
    }

    /// Removes the object with this id, keeping the others' order.
    pub(crate) fn remove(&mut self, id: &str) -> Option<V> {
        let (seq, obj) = self.by_id.remove(id)?;
        self.order.remove(&seq);
        Some(obj)
    }

    /// Moves the object with this id to the end.
    pub(crate) fn move_to_end(&mut self, id: &str) {
        let next = self.next;
        if let Some((seq, obj)) = self.by_id.get_mut(id) {
            self.order.remove(seq);
            *seq = next;
            self.order.insert(next, obj.clone());
            self.next += 1;
        }
    }

    /// A mark of the end of the store, for [`ObjectStore::truncate`].
    pub(crate) fn end_mark(&self) -> u64 {
        self.next
    }

    /// Removes the objects stored (or moved to the end) since `mark`.
    pub(crate) fn truncate(&mut self, mark: u64) {
        for obj in self.order.split_off(&mark).into_values() {
            self.by_id.remove(obj.key());
        }
    }

    /// The objects in order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.order.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Keyed for Arc<str> {
        fn key(&self) -> &str {
            self
        }
    }

    fn store(ids: &[&str]) -> OrderedStore<Arc<str>> {
        let mut s = OrderedStore::default();
        for id in ids {
            s.insert((*id).to_owned(), Arc::from(*id));
        }
        s
    }

    fn ids(s: &OrderedStore<Arc<str>>) -> Vec<String> {
        s.values().map(|v| v.to_string()).collect()
    }

    #[test]
    fn keeps_insertion_order_through_removal_and_moves() {
        let mut s = store(&["a", "b", "c", "d"]);
        assert_eq!(s.remove("b").as_deref(), Some("b"));
        assert_eq!(s.remove("b"), None);
        s.move_to_end("a");
        s.move_to_end("zz");
        assert_eq!(ids(&s), ["c", "d", "a"]);
        // Storing an id again keeps its place.
        s.insert("c".into(), Arc::from("c"));
        assert_eq!(ids(&s), ["c", "d", "a"]);
        assert_eq!(
            (s.len(), s.contains_key("d"), s.get("a").is_some()),
            (3, true, true)
        );
        assert!(s.get("b").is_none());
    }

    #[test]
    fn truncate_drops_what_came_after_the_mark() {
        let mut s = store(&["a", "b", "c"]);
        let mark = s.end_mark();
        s.insert("d".into(), Arc::from("d"));
        s.move_to_end("a");
        s.truncate(mark);
        assert_eq!(ids(&s), ["b", "c"]);
        assert!(!s.contains_key("a") && !s.contains_key("d"));
        assert_eq!(s.len(), 2);
    }

    /// Work per operation does not grow with the store: a big store is
    /// emptied in any order in (n log n) steps (timed in the `engine`
    /// bench's `store` group; here only the outcome is checked).
    #[test]
    fn removing_every_entry_leaves_it_empty() {
        let n = 20_000;
        let names: Vec<String> = (0..n).map(|i| format!("{i:08}")).collect();
        let mut s = OrderedStore::default();
        for id in &names {
            s.insert(id.clone(), Arc::<str>::from(id.as_str()));
        }
        for id in names.iter().step_by(2) {
            s.move_to_end(id);
        }
        for id in names.iter().rev() {
            assert!(s.remove(id).is_some());
        }
        assert_eq!((s.len(), s.values().count()), (0, 0));
    }
}
