//! Serialisation of objects back to an object model, as Murano's
//! `serializer.serialize_model` writes it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use murano_dsl::model::{MethodScope, MethodUsage, PropertyUsage};
use murano_dsl::registry::ClassId;
use murano_yaql::eval::{Dict, Value};

use crate::engine::Core;
use crate::object::{lock, Obj};

/// `{"Objects": tree, "ObjectsCopy": tree, "Attributes": [...]}` for a
/// root (all null/empty without one).
pub(crate) fn model(core: &Core, root: Option<&Arc<Obj>>) -> Value {
    let (objects, copy, known) = match root {
        Some(r) => {
            let (tree, known) = object_tree_with(core, r, true);
            (tree, object_tree(core, r, false), known)
        }
        None => (Value::Null, Value::Null, HashSet::new()),
    };
    // The attribute store, grouped by object in first-seen order (a dict
    // of dicts in Murano), for the objects written.
    let (entries, seen) = {
        let st = lock(&core.state);
        (st.attributes.clone(), st.attribute_objects.clone())
    };
    let mut order: Vec<&str> = seen.iter().map(String::as_str).collect();
    for (o, _, _, _) in &entries {
        if !order.contains(&o.as_str()) {
            order.push(o);
        }
    }
    let mut attributes = Vec::new();
    for id in order {
        if !known.contains(id) {
            continue;
        }
        for (o, c, k, v) in entries.iter().filter(|e| e.0 == id) {
            attributes.push(Value::List(Arc::new(vec![
                Value::str(o),
                Value::str(c),
                Value::str(k),
                v.clone(),
            ])));
        }
    }
    let mut d = Dict::default();
    d.insert(Value::str("Objects"), objects);
    d.insert(Value::str("ObjectsCopy"), copy);
    d.insert(Value::str("Attributes"), Value::List(Arc::new(attributes)));
    Value::Dict(Arc::new(d))
}

/// One object and what it owns, as a model tree; `actions` adds the
/// designer attribute `_actions`.
///
/// As Murano's serializer does in its passes: an object is written in
/// full under its owner; an object referenced from the tree but not owned
/// by anything in it is written in full at its first reference; every
/// other reference is the object's id.
pub(crate) fn object_tree(core: &Core, root: &Arc<Obj>, actions: bool) -> Value {
    object_tree_with(core, root, actions).0
}

/// [`object_tree`] and the ids of the objects written in full.
fn object_tree_with(core: &Core, root: &Arc<Obj>, actions: bool) -> (Value, HashSet<String>) {
    let mut owned = HashSet::new();
    owned_closure(core, root, &mut owned, 0);
    let mut done = Walk {
        dependencies: true,
        emitted: HashSet::new(),
        owned,
        mode: DumpMode::Serializable,
        allow_refs: false,
        plain: HashMap::new(),
        refs: 0,
    };
    let tree = object_dict(core, root, actions, &mut done, 0);
    (tree, done.emitted)
}

struct Walk {
    /// Write `dependencies` (destruction subscriptions) in headers: object
    /// models do, `dump()` does not.
    dependencies: bool,
    emitted: HashSet<String>,
    owned: HashSet<String>,
    mode: DumpMode,
    /// Murano's `allow_refs` (`serializer.serialize`, which `dump()` and
    /// `template()` use): an object owned outside the tree stays a
    /// reference (its id) instead of being written in full where first
    /// referenced; only ownerless objects are written there.
    allow_refs: bool,
    /// Collections already written that hold no object or type, by
    /// address and depth: a value that shares one big list is written
    /// sharing it too, not expanded (its text can be exponentially long).
    plain: HashMap<(usize, usize), Value>,
    /// How many objects or types were met so far (a collection whose
    /// walk leaves it unchanged holds none).
    refs: usize,
}

/// Murano's `DumpTypes`: how `dump()` writes objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DumpMode {
    /// `?` headers with `type` as `Name/version@package` (object models).
    Serializable,
    /// `{Type: {properties}, id, name, metadata}` with the class as key.
    Inline,
    /// `?` headers with `type` as the class itself.
    Mixed,
}

/// `dump(obj, type)`: the object and what it owns, in that form; objects
/// owned elsewhere are written as their ids.
pub(crate) fn dump(core: &Core, root: &Arc<Obj>, mode: DumpMode) -> Value {
    dump_part(core, root, root.class, mode)
}

/// [`dump`] of one part of an object (`dump($obj.cast(T), mode, false)`):
/// the part's class and the properties it sees.
pub(crate) fn dump_part(core: &Core, root: &Arc<Obj>, part: ClassId, mode: DumpMode) -> Value {
    let mut owned = HashSet::new();
    owned_closure(core, root, &mut owned, 0);
    let mut done = Walk {
        dependencies: false,
        emitted: HashSet::new(),
        owned,
        mode,
        allow_refs: true,
        plain: HashMap::new(),
        refs: 0,
    };
    object_part_dict(core, root, part, false, &mut done, 0)
}

/// Objects written under their owner, starting from `obj`.
fn owned_closure(core: &Core, obj: &Arc<Obj>, out: &mut HashSet<String>, depth: usize) {
    if depth > MAX_DEPTH || !out.insert(obj.id.clone()) {
        return;
    }
    let props: Vec<Value> = lock(&obj.props).values().cloned().collect();
    let mut todo = props;
    let mut steps = 0usize;
    while let Some(v) = todo.pop() {
        steps += 1;
        if steps > 1_000_000 {
            return;
        }
        if let Some(o) = core.obj_of(&v) {
            if o.owner_id().as_deref() == Some(obj.id.as_str()) {
                owned_closure(core, &o, out, depth + 1);
            }
            continue;
        }
        match &v {
            Value::Dict(d) => todo.extend(d.values().cloned()),
            Value::List(items) | Value::Tuple(items) => todo.extend(items.iter().cloned()),
            Value::Set(items) => todo.extend(items.iter().cloned()),
            _ => {}
        }
    }
}

const MAX_DEPTH: usize = 256;

/// Whether the property's `io.murano.metadata.engine.Serialize` meta says
/// `as: reference`.
fn serialized_as_reference(core: &Core, class: murano_dsl::registry::ClassId, name: &str) -> bool {
    let classes = &core.classes;
    let Ok(metas) = classes.registry().property_meta(class, name) else {
        return false;
    };
    metas.iter().any(|m| {
        if classes.name(m.attachment.meta_class) != "io.murano.metadata.engine.Serialize" {
            return false;
        }
        let Some(node) = &m.attachment.properties else {
            return false;
        };
        let ctx = core.method_context(m.declared_by, None);
        match crate::exec::eval_node(core, node, &ctx) {
            Ok(Value::Dict(d)) => d
                .get(&Value::str("as"))
                .and_then(Value::as_str)
                .is_some_and(|a| a == "reference"),
            _ => false,
        }
    })
}

fn object_dict(core: &Core, obj: &Arc<Obj>, actions: bool, done: &mut Walk, depth: usize) -> Value {
    object_part_dict(core, obj, obj.class, actions, done, depth)
}

/// [`object_dict`] of one part of the object (Murano's `to_dictionary` on
/// the part `cast()` selects): its class names the type, and only the
/// properties that class and its ancestors declare are written.
fn object_part_dict(
    core: &Core,
    obj: &Arc<Obj>,
    part: ClassId,
    actions: bool,
    done: &mut Walk,
    depth: usize,
) -> Value {
    done.emitted.insert(obj.id.clone());
    let classes = &core.classes;
    let mut header = Dict::default();
    match done.mode {
        DumpMode::Serializable => {
            header.insert(Value::str("type"), Value::str(&classes.type_string(part)));
        }
        DumpMode::Mixed => {
            header.insert(Value::str("type"), core.type_value(part, false));
        }
        DumpMode::Inline => {}
    }
    header.insert(Value::str("id"), Value::str(&obj.id));
    header.insert(Value::str("name"), obj.name.clone());
    header.insert(Value::str("metadata"), obj.metadata.clone());
    if obj.is_destroyed() {
        header.insert(Value::str("destroyed"), Value::Bool(true));
    }
    if done.dependencies {
        if let Some(deps) = crate::gc::dependencies_header(core, obj) {
            header.insert(Value::str("dependencies"), deps);
        }
    }
    if actions {
        let mut acts = Dict::default();
        let mut seen = HashSet::new();
        if let Ok(methods) = classes.registry().find_methods(part, |m| {
            m.scope == MethodScope::Public || m.usage == MethodUsage::Action
        }) {
            for m in methods {
                if !seen.insert(m.member.name.clone()) {
                    continue;
                }
                let mut entry = Dict::default();
                entry.insert(Value::str("enabled"), Value::Bool(true));
                entry.insert(Value::str("name"), Value::str(&m.member.name));
                let texts = action_texts(core, obj, &m.member.name);
                let title = texts.title.unwrap_or_else(|| Value::str(&m.member.name));
                entry.insert(Value::str("title"), title);
                if let Some(d) = texts.description {
                    entry.insert(Value::str("description"), d);
                }
                if let Some(h) = texts.help {
                    entry.insert(Value::str("helpText"), h);
                }
                acts.insert(
                    Value::str(&format!("{}_{}", obj.id, m.member.name)),
                    Value::Dict(Arc::new(entry)),
                );
            }
        }
        header.insert(Value::str("_actions"), Value::Dict(Arc::new(acts)));
    }
    let mut out = Dict::default();
    out.insert(Value::str("?"), Value::Dict(Arc::new(header)));
    let props = lock(&obj.props).clone();
    let declared = classes
        .registry()
        .find_properties(part, |_| true)
        .unwrap_or_default();
    let mut seen = HashSet::new();
    for p in declared {
        let name = &p.member.name;
        if !seen.insert(name.clone()) {
            continue;
        }
        if matches!(
            p.member.usage,
            PropertyUsage::Runtime | PropertyUsage::Config | PropertyUsage::Static
        ) {
            continue;
        }
        if let Some(v) = props.get(name) {
            // `Serialize: {as: reference}` on the property: an object
            // value is written as its id where references are allowed.
            let reference = done.allow_refs
                && core.obj_of(v).is_some()
                && serialized_as_reference(core, part, name);
            let sv = match core.obj_of(v) {
                Some(o) if reference => Value::str(&o.id),
                _ => value(core, v, Some(obj), actions, done, depth + 1),
            };
            out.insert(Value::str(name), sv);
        }
    }
    if done.mode == DumpMode::Inline {
        out.shift_remove(&Value::str("?"));
        let mut inline = Dict::default();
        inline.insert(core.type_value(part, false), Value::Dict(Arc::new(out)));
        inline.insert(Value::str("id"), Value::str(&obj.id));
        inline.insert(Value::str("name"), obj.name.clone());
        inline.insert(Value::str("metadata"), obj.metadata.clone());
        return Value::Dict(Arc::new(inline));
    }
    Value::Dict(Arc::new(out))
}

fn value(
    core: &Core,
    v: &Value,
    parent: Option<&Arc<Obj>>,
    actions: bool,
    done: &mut Walk,
    depth: usize,
) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    // (A part held in a property, `cast()` stored, is written as that
    // part: Murano's `to_dictionary` on it.)
    if let Some((o, part)) = core.part_of(v) {
        done.refs += 1;
        let owned = parent.is_some_and(|p| o.owner_id().as_deref() == Some(p.id.as_str()));
        let moved = !done.owned.contains(&o.id) && (!done.allow_refs || o.owner_id().is_none());
        if (owned || moved) && !done.emitted.contains(&o.id) {
            return object_part_dict(core, &o, part, actions, done, depth + 1);
        }
        return Value::str(&o.id);
    }
    if let Some(t) = core.type_of_value(v) {
        done.refs += 1;
        if done.mode != DumpMode::Serializable {
            return v.clone();
        }
        return Value::str(&core.classes.type_string(t.class));
    }
    let address = match v {
        Value::Dict(d) => Some(Arc::as_ptr(d) as usize),
        Value::List(items) | Value::Tuple(items) => Some(Arc::as_ptr(items) as usize),
        Value::Set(items) => Some(Arc::as_ptr(items) as usize),
        _ => None,
    };
    let Some(address) = address else {
        return v.clone();
    };
    if let Some(out) = done.plain.get(&(address, depth)) {
        return out.clone();
    }
    let refs = done.refs;
    let out = match v {
        Value::Dict(d) => {
            let mut out = Dict::default();
            for (k, x) in d.iter() {
                out.insert(
                    value(core, k, parent, actions, done, depth + 1),
                    value(core, x, parent, actions, done, depth + 1),
                );
            }
            Value::Dict(Arc::new(out))
        }
        Value::List(items) | Value::Tuple(items) => Value::List(Arc::new(
            items
                .iter()
                .map(|x| value(core, x, parent, actions, done, depth + 1))
                .collect(),
        )),
        Value::Set(items) => Value::List(Arc::new(
            items
                .iter()
                .map(|x| value(core, x, parent, actions, done, depth + 1))
                .collect(),
        )),
        other => other.clone(),
    };
    // Only plain data: objects are written once, then as references.
    if done.refs == refs {
        done.plain.insert((address, depth), out.clone());
    }
    out
}

#[derive(Default)]
struct ActionTexts {
    title: Option<Value>,
    description: Option<Value>,
    help: Option<Value>,
}

/// The `text` of the `Title`, `Description` and `HelpText` meta of an
/// action (`_serialize_available_action`).
fn action_texts(core: &Core, obj: &Arc<Obj>, method: &str) -> ActionTexts {
    let mut out = ActionTexts::default();
    let registry = core.classes.registry();
    let Ok(meta) = registry.method_meta(obj.class, method) else {
        return out;
    };
    for m in meta {
        let name = core.classes.name(m.attachment.meta_class);
        let slot = match name {
            "io.murano.metadata.Title" => &mut out.title,
            "io.murano.metadata.Description" => &mut out.description,
            "io.murano.metadata.HelpText" => &mut out.help,
            _ => continue,
        };
        let text = m
            .attachment
            .properties
            .as_ref()
            .and_then(|p| p.value.get("text"))
            .and_then(|node| {
                let ctx = core.method_context(m.declared_by, None);
                crate::exec::eval_node(core, node, &ctx).ok()
            });
        *slot = Some(text.unwrap_or_default());
    }
    out
}
