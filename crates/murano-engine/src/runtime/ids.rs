//! Where the engine's object ids come from.
//!
//! Murano draws every id from one `uuid4()` sequence: object ids, agent
//! plan and file ids, message ids. A host that generates ids (the offline
//! host's counter) gives the engine its generator, so object ids and the
//! host's ids interleave in one sequence as Murano's do: an id that ends
//! up where no renaming reaches (a queue name inside base64 text) then
//! comes out as Murano's.

use std::sync::Arc;

use crate::object::lock;
use crate::Engine;

/// A generator of fresh object ids.
pub type IdSource = Arc<dyn Fn() -> String + Send + Sync>;

impl Engine {
    /// Object ids come from `source` from now on (by default the engine
    /// numbers them itself). Ids must be unique.
    pub fn set_id_source(&self, source: IdSource) {
        lock(&self.core().state).id_source = Some(source);
    }
}

/// Murano loads a model in two passes (`InitializationObjectStore`): in
/// the first, an object definition without an id met below the load's
/// root becomes a temporary object, with an id of its own; the second
/// makes the real one. The engine makes it once, so it draws the
/// temporary object's id first (a contract loading an id-less definition
/// while a load is under way).
pub(crate) fn temporary_object_id(core: &crate::engine::Core, model: &murano_yaql::eval::Value) {
    let loading = lock(&core.state).loading > 0;
    let has_id = crate::engine::Core::header(model).is_some_and(|h| {
        h.get(&murano_yaql::eval::Value::str("id"))
            .is_some_and(|v| !v.is_null())
    });
    if loading && !has_id {
        let _ = core.generate_id();
    }
}

/// Murano makes the meta objects of a method (`MetaData.get_meta`, one
/// object per `Meta` entry, each with a fresh id) the first time a call
/// reads them, which every call does (`Synchronize`): the engine reads
/// the settings without objects, so it draws their ids then.
pub(crate) fn meta_object_ids(core: &crate::engine::Core, count: usize) {
    for _ in 0..count {
        let _ = core.generate_id();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::{ClassSetBuilder, Limits};
    use murano_dsl::version::Version;
    use murano_yaql::eval::{Dict, Value};

    /// An engine over `text` (classes of package io.murano) whose ids
    /// come from a counter; the counter and the root object.
    fn counted(text: &str, root: &str) -> (Engine, Arc<AtomicU64>, Value) {
        let mut b = ClassSetBuilder::new();
        let pkg = b.add_package("io.murano", Version::new(0, 0, 0)).unwrap();
        for def in ClassSetBuilder::parse_file(text.as_bytes(), "M.yaml").unwrap() {
            b.add_class(pkg, "M.yaml", def).unwrap();
        }
        let engine = Engine::new(Arc::new(b.build()), Limits::default(), Vec::new());
        let n = Arc::new(AtomicU64::new(0));
        let counter = n.clone();
        engine.set_id_source(Arc::new(move || {
            format!("id{}", counter.fetch_add(1, Ordering::Relaxed) + 1)
        }));
        let header = Value::dict([
            (Value::str("type"), Value::str(root)),
            (Value::str("id"), Value::str("root")),
        ]);
        let mut model = Dict::default();
        model.insert(
            Value::str("Objects"),
            Value::dict([(Value::str("?"), header)]),
        );
        let root = engine
            .load_model(&Value::Dict(Arc::new(model)))
            .unwrap()
            .unwrap();
        (engine, n, root)
    }

    #[test]
    fn a_methods_meta_objects_draw_ids_at_its_first_call() {
        let text = concat!(
            "Name: io.murano.Object\n---\nName: io.murano.metadata.engine.Synchronize\n",
            "Usage: Meta\nApplies: [Method]\nProperties:\n",
            "  onThis: {Contract: $.bool(), Default: true}\n---\n",
            "Name: Locked\nMethods:\n  run:\n    Scope: Public\n    Meta:\n",
            "      - io.murano.metadata.engine.Synchronize:\n          onThis: false\n",
            "    Body:\n      - Return: 1\n"
        );
        let (engine, n, root) = counted(text, "Locked");
        let before = n.load(Ordering::Relaxed);
        for _ in 0..2 {
            engine
                .call(
                    &crate::Receiver::Object(root.clone()),
                    "run",
                    vec![],
                    vec![],
                )
                .unwrap();
        }
        assert_eq!(n.load(Ordering::Relaxed), before + 1);
    }

    #[test]
    fn an_id_less_object_loaded_inside_a_load_draws_a_temporary_id_first() {
        // Murano's first pass makes a temporary object of `child`'s
        // default, the second the real one: two ids.
        let text = concat!(
            "Name: io.murano.Object\n---\nName: Child\nProperties:\n",
            "  name: {Contract: $.string()}\n---\nName: Parent\nProperties:\n",
            "  child:\n    Contract: $.class(Child)\n    Default: {name: x}\n"
        );
        let (_engine, n, _root) = counted(text, "Parent");
        assert_eq!(n.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn objects_copy_checks_loaded_objects_again_drawing_ids_and_keeping_values() {
        // Murano sets the properties of an object `Objects` made again
        // from `ObjectsCopy` as a dry run: the `Runtime` default makes a
        // temporary and a real object once more (two more ids), and the
        // copy's values are not kept.
        let text = concat!(
            "Name: io.murano.Object\n---\nName: Child\nProperties:\n",
            "  name: {Contract: $.string()}\n---\nName: Parent\nProperties:\n",
            "  label: {Contract: $.string()}\n",
            "  child:\n    Usage: Runtime\n    Contract: $.class(Child)\n",
            "    Default: {name: x}\n",
            "Methods:\n  get:\n    Scope: Public\n    Body:\n      - Return: $.label\n"
        );
        let (engine, n, _root) = counted(text, "Parent");
        assert_eq!(n.load(Ordering::Relaxed), 2);
        let tree = |label: &str| {
            Value::dict([
                (
                    Value::str("?"),
                    Value::dict([
                        (Value::str("type"), Value::str("Parent")),
                        (Value::str("id"), Value::str("root")),
                    ]),
                ),
                (Value::str("label"), Value::str(label)),
            ])
        };
        let model = Value::dict([
            (Value::str("Objects"), tree("new")),
            (Value::str("ObjectsCopy"), tree("old")),
        ]);
        let engine2 = Engine::new(engine.classes().clone(), Limits::default(), Vec::new());
        let m = Arc::new(AtomicU64::new(0));
        let counter = m.clone();
        engine2.set_id_source(Arc::new(move || {
            format!("id{}", counter.fetch_add(1, Ordering::Relaxed) + 1)
        }));
        let root = engine2.load_model(&model).unwrap().unwrap();
        assert_eq!(m.load(Ordering::Relaxed), 4);
        let label = engine2
            .call(&crate::Receiver::Object(root), "get", vec![], vec![])
            .unwrap();
        assert_eq!(label, Value::str("new"));
    }

    #[test]
    fn new_objects_take_their_ids_from_the_source() {
        let text = "Name: io.murano.Object\n---\nName: Maker\nMethods:\n  make:\n    Scope: Public\n    Body:\n      - Return: id(new(Maker))\n";
        let (engine, n, root) = counted(text, "Maker");
        let out = engine
            .call(&crate::Receiver::Object(root), "make", vec![], vec![])
            .unwrap();
        assert_eq!(out, Value::str("id1"));
        assert_eq!(n.load(Ordering::Relaxed), 1);
    }
}
