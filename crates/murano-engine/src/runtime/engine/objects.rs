//! Objects: creation, object-model loading (their initialisation is
//! `init.rs`), lookups and casts.

use super::*;

impl Core {
    /// A fresh object id (a 32-digit hex string, as Murano's uuid4 ids).
    pub(crate) fn generate_id(&self) -> String {
        let source = lock(&self.state).id_source.clone();
        if let Some(source) = source {
            return source();
        }
        let mut st = lock(&self.state);
        st.next_id += 1;
        let n = st.next_id;
        let mixed = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5851_F42D_4C95_7F2D;
        format!("{mixed:016x}{n:016x}")
    }

    /// Creates an (uninitialised) object in the store.
    pub(crate) fn create_object(
        &self,
        class: ClassId,
        id: Option<String>,
        owner: Option<String>,
        name: Value,
        metadata: Value,
    ) -> Result<Arc<Obj>, EngineError> {
        let id = match id {
            Some(id) => id,
            None => self.generate_id(),
        };
        let obj = Arc::new(Obj {
            id: id.clone(),
            class,
            class_name: self.classes.name(class).to_owned(),
            owner: Mutex::new(owner),
            props: Mutex::new(IndexMap::new()),
            private: Mutex::new(IndexMap::new()),
            destroyed: AtomicBool::new(false),
            initialized: AtomicBool::new(false),
            birth: std::sync::atomic::AtomicU64::new(0),
            dependencies: Mutex::new(Vec::new()),
            name,
            metadata,
            core: self.self_ref.clone(),
        });
        let mut st = lock(&self.state);
        if st.objects.len() >= self.limits.max_objects && !st.objects.contains_key(&id) {
            return Err(EngineError::limit(
                LimitKind::Objects,
                format!("more than {} objects", self.limits.max_objects),
            ));
        }
        let v = Value::Object(obj.clone());
        if let Some(a) = addr_of(&v) {
            st.by_addr.insert(a, obj.clone());
        }
        st.objects.insert(id, obj.clone());
        Ok(obj)
    }

    /// Loads an object tree owned by `owner`: a model dict in `?`-header
    /// form, in inline form (`{Type: {properties}, id: ..}`, the type a
    /// class value) or, with `default_class`, a plain property dict.
    /// `keep_ids`: objects take the ids of the model (the runner's model
    /// load); otherwise they get fresh ids and the model ids only name
    /// them during the load (`new()`, contracts), as Murano's
    /// `InitializationObjectStore` does.
    pub(crate) fn load_object_tree(
        &self,
        model: &Value,
        owner: Option<&Arc<Obj>>,
        keep_ids: bool,
    ) -> Result<Value, EngineError> {
        self.load_object_tree_as(model, owner, None, keep_ids)
    }

    pub(crate) fn load_object_tree_as(
        &self,
        model: &Value,
        owner: Option<&Arc<Obj>>,
        default_class: Option<ClassId>,
        keep_ids: bool,
    ) -> Result<Value, EngineError> {
        self.load_object_tree_by(model, owner, default_class, keep_ids, None)
    }

    /// [`Core::load_object_tree_as`] on behalf of code of class `caller`
    /// (the class whose method calls `new()`, or that declares the
    /// property or argument whose contract loads the model): see
    /// [`Core::initialize_properties`].
    pub(crate) fn load_object_tree_by(
        &self,
        model: &Value,
        owner: Option<&Arc<Obj>>,
        default_class: Option<ClassId>,
        keep_ids: bool,
        caller: Option<ClassId>,
    ) -> Result<Value, EngineError> {
        if keep_ids {
            return self.load_object_tree_in(model, owner, default_class, true, caller);
        }
        lock(&self.state).aliases.push(HashMap::new());
        let r = self.load_object_tree_in(model, owner, default_class, false, caller);
        lock(&self.state).aliases.pop();
        r
    }

    pub(crate) fn load_object_tree_in(
        &self,
        model: &Value,
        owner: Option<&Arc<Obj>>,
        default_class: Option<ClassId>,
        keep_ids: bool,
        caller: Option<ClassId>,
    ) -> Result<Value, EngineError> {
        // Pass 1: create every object of the tree, so references resolve.
        let mut created = Vec::new();
        let deferred_from = lock(&self.state).deferred_dependencies.len();
        let root = self.precreate(
            true,
            model,
            owner.map(|o| o.id.clone()),
            default_class,
            keep_ids,
            &mut created,
        )?;
        let deferred: Vec<(Arc<Obj>, Value)> = {
            let mut st = lock(&self.state);
            let from = deferred_from.min(st.deferred_dependencies.len());
            st.deferred_dependencies.drain(from..).collect()
        };
        for (o, deps) in &deferred {
            crate::gc::load_dependencies(self, o, deps)?;
        }
        // Pass 2: initialise from the root down.
        match root {
            Some((obj, params)) => {
                // Murano sets the properties of the whole tree first, then
                // runs the `.init`s, an object's after those of the
                // objects loaded with it that it owns (its initialiser is
                // queued after theirs).
                // A root set up before (the objects of `ObjectsCopy` that
                // are also in `Objects`) is not walked again here: the
                // other objects of its model are then set up on their own.
                let walked = !obj.initialized.load(Ordering::Relaxed);
                let created = if walked {
                    created
                } else {
                    let (skip, keep): (Vec<_>, Vec<_>) = {
                        let st = lock(&self.state);
                        created
                            .into_iter()
                            .partition(|(o, _)| st.unreached_ids.contains(&o.id))
                    };
                    crate::unreached::forget(self, skip.iter().map(|(o, _)| o));
                    keep
                };
                let (pending, deferred) = self.with_deferred_inits(|| {
                    let mut pending = vec![(
                        obj.clone(),
                        self.initialize_properties(&obj, &params, caller)?,
                    )];
                    if !walked {
                        for (o, m) in &created {
                            if !o.initialized.load(Ordering::Relaxed) {
                                pending.push((o.clone(), self.initialize_properties(o, m, None)?));
                            }
                        }
                    }
                    Ok(pending)
                })?;
                // Murano makes an object of a model only when a `class()`
                // contract reaches its definition: one that the walk from
                // the root did not reach (under a `template()` or a
                // plain-data contract) never exists, so it is neither
                // initialised nor kept.
                let created: Vec<(Arc<Obj>, Value)> = if walked {
                    let (reached, unreached): (Vec<_>, Vec<_>) = created
                        .into_iter()
                        .partition(|(o, _)| o.initialized.load(Ordering::Relaxed));
                    crate::unreached::forget(self, unreached.iter().map(|(o, _)| o));
                    reached
                } else {
                    created
                };
                // A load nested in another's property initialisation (a
                // contract loading an inline object model): Murano's
                // initialisation store queues its initialisers behind the
                // outer load's, so every property of the whole model is
                // set before any `.init` runs.
                {
                    let mut st = lock(&self.state);
                    if st.loading > 0 {
                        // A dry run (`template()`) runs no `.init`, now or
                        // later.
                        if st.dry_run == 0 {
                            st.deferred_inits.extend(deferred);
                            st.deferred_inits.extend(post_order(pending));
                        }
                        drop(st);
                        self.mark_loaded(created.iter().map(|(o, _)| o));
                        return Ok(Value::Object(obj));
                    }
                }
                // Objects a contract initialised queued their `.init`
                // (owned objects first) as they were reached: that order,
                // then the others, owners last (the root at the end).
                for (o, inits) in deferred {
                    self.run_inits(&o, inits)?;
                }
                for (o, inits) in post_order(pending) {
                    self.run_inits(&o, inits)?;
                }
                // Murano loads into a temporary store and copies the
                // objects into the main one when the load ends, so the
                // store lists objects by the end of their load (objects a
                // nested `new()` made come before the outer load's): the
                // order garbage is destroyed in.
                self.mark_loaded(created.iter().map(|(o, _)| o));
                Ok(Value::Object(obj))
            }
            None => Err(EngineError::dsl(
                "DslInvalidOperationError",
                "an object model must have a \"?\" header or a type key",
            )),
        }
    }

    pub(crate) fn header(model: &Value) -> Option<&Dict> {
        match model {
            Value::Dict(d) => match d.get(&Value::str("?")) {
                Some(Value::Dict(h)) => Some(h),
                _ => None,
            },
            _ => None,
        }
    }

    /// What a model dict defines: class, id, name, metadata and the
    /// property values (`parse_object_definition`).
    ///
    /// `top`: the value is certainly loaded as an object (the root of a
    /// load, a `class()` contract's value), so a header Murano cannot
    /// read is its error; the first pass's walk through property values
    /// (`top` false) leaves such a dict alone, as Murano never parses a
    /// value no contract loads.
    pub(super) fn object_def(
        &self,
        model: &Value,
        default_class: Option<ClassId>,
        top: bool,
    ) -> Result<Option<ObjDef>, EngineError> {
        let Value::Dict(d) = model else {
            return Ok(None);
        };
        let get = |h: &Dict, k: &str| h.get(&Value::str(k)).cloned().unwrap_or_default();
        let id_of = |v: Value| match v {
            Value::Str(s) => Some(s.to_string()),
            _ => None,
        };
        let builtin = |type_name: &str, message: String| {
            EngineError::new(
                ErrorKind::Host {
                    type_name: type_name.into(),
                    module: "builtins".into(),
                },
                message,
            )
        };
        // A model's lists are Python lists, whatever our freezing made
        // of them.
        let py_type = |v: &Value| match v {
            Value::Tuple(_) => "list".to_owned(),
            other => other.type_name().to_owned(),
        };
        let type_key = d.iter().any(|(k, _)| self.type_of_value(k).is_some());
        match d.get(&Value::str("?")) {
            // `parse_object_definition`: `system_data.get('type')`.
            Some(other) if !matches!(other, Value::Dict(_)) && !type_key => {
                if !top {
                    return Ok(None);
                }
                return Err(builtin(
                    "AttributeError",
                    format!("'{}' object has no attribute 'get'", py_type(other)),
                ));
            }
            _ => {}
        }
        if let Some(Value::Dict(h)) = d.get(&Value::str("?")) {
            let type_value = h.get(&Value::str("type"));
            // A type reference (what a `Mixed` dump, as `template()` makes,
            // puts there) or a type name.
            let type_ref = type_value
                .and_then(|v| self.type_of_value(v))
                .map(|t| t.class);
            let truthy = type_value.is_some_and(Value::truthy);
            if type_ref.is_none() && truthy {
                match type_value {
                    Some(Value::Str(text)) => {
                        // `parse_type_string`, then `parse_version_spec`
                        // of the version part.
                        if let Some((_, rest)) = text.split_once('/') {
                            let version = rest.split('@').next().unwrap_or("");
                            let scalar = murano_dsl::version::YamlScalar::from(version.to_owned());
                            if let Err(e) = murano_dsl::version::parse_version_spec(&scalar) {
                                if !top {
                                    return Ok(None);
                                }
                                return Err(builtin(e.python_exception().name(), e.to_string()));
                            }
                        }
                    }
                    Some(other) => {
                        // `TYPE_RE.match(type)`.
                        if !top {
                            return Ok(None);
                        }
                        return Err(builtin(
                            "TypeError",
                            format!(
                                "expected string or bytes-like object, got '{}'",
                                py_type(other)
                            ),
                        ));
                    }
                    None => {}
                }
            }
            let type_name = match type_value {
                Some(Value::Str(s)) if truthy => s.split('/').next().unwrap_or("").to_owned(),
                _ => String::new(),
            };
            let class = match (type_ref, type_name.is_empty(), default_class) {
                (Some(c), _, _) => c,
                (None, true, Some(c)) => c,
                // No type: the contract's class types it when it loads the
                // value (`parsed['type'] or default_type`).
                (None, true, None) if !top => return Ok(None),
                (None, true, None) => {
                    return Err(builtin(
                        "ValueError",
                        "Invalid object representation: no type information was provided".into(),
                    ))
                }
                _ => self.classes.resolve(None, &type_name)?,
            };
            let mut props = (**d).clone();
            props.shift_remove(&Value::str("?"));
            return Ok(Some(ObjDef {
                dependencies: get(h, "dependencies"),
                class,
                id: id_of(get(h, "id")),
                name: get(h, "name"),
                metadata: get(h, "metadata"),
                props: Value::Dict(Arc::new(props)),
            }));
        }
        for (k, v) in d.iter() {
            if let Some(t) = self.type_of_value(k) {
                return Ok(Some(ObjDef {
                    dependencies: Value::Null,
                    class: t.class,
                    id: id_of(get(d, "id")),
                    name: get(d, "name"),
                    metadata: get(d, "metadata"),
                    props: match v {
                        Value::Null => Value::Dict(Arc::new(Dict::default())),
                        other => other.clone(),
                    },
                }));
            }
        }
        Ok(default_class.map(|class| ObjDef {
            dependencies: Value::Null,
            class,
            id: None,
            name: Value::Null,
            metadata: Value::Null,
            props: model.clone(),
        }))
    }

    /// `top`: the root of the load. A nested object without an id is not
    /// created here (nothing can name it): its property's contract loads
    /// it during initialisation, as Murano's first pass makes only a
    /// temporary object of it that never joins the store.
    pub(crate) fn precreate(
        &self,
        top: bool,
        model: &Value,
        owner: Option<String>,
        default_class: Option<ClassId>,
        keep_ids: bool,
        created: &mut Vec<(Arc<Obj>, Value)>,
    ) -> Result<Option<(Arc<Obj>, Value)>, EngineError> {
        match model {
            Value::Dict(d) => {
                let Some(def) = self.object_def(model, default_class, top)? else {
                    for (k, v) in d.iter() {
                        if k.as_str() == Some("?") {
                            continue;
                        }
                        self.precreate(false, v, owner.clone(), None, keep_ids, created)?;
                    }
                    return Ok(None);
                };
                if !top && def.id.is_none() {
                    if let Value::Dict(props) = &def.props {
                        for (_, v) in props.iter() {
                            self.precreate(false, v, owner.clone(), None, keep_ids, created)?;
                        }
                    }
                    return Ok(None);
                }
                let existing = def.id.as_ref().and_then(|id| self.lookup_load_id(id));
                let obj = match existing {
                    Some(o) => o,
                    None => {
                        let model_id = def.id.clone();
                        let model_id_for_dry_run = def.id.clone();
                        let id = if keep_ids { def.id } else { None };
                        let o = self.create_object(def.class, id, owner, def.name, def.metadata)?;
                        crate::gc::load_dependencies(self, &o, &def.dependencies)?;
                        if !def.dependencies.is_null() {
                            lock(&self.state)
                                .deferred_dependencies
                                .push((o.clone(), def.dependencies.clone()));
                        }
                        if let (false, Some(mid)) = (keep_ids, model_id) {
                            if let Some(scope) = lock(&self.state).aliases.last_mut() {
                                scope.insert(mid, o.clone());
                            }
                        }
                        if let Some(mid) = model_id_for_dry_run {
                            let mut st = lock(&self.state);
                            if st.dry_run > 0 {
                                st.dry_ids.insert(o.id.clone(), mid);
                            }
                        }
                        created.push((o.clone(), def.props.clone()));
                        o
                    }
                };
                if let Value::Dict(props) = &def.props {
                    for (_, v) in props.iter() {
                        self.precreate(false, v, Some(obj.id.clone()), None, keep_ids, created)?;
                    }
                }
                Ok(Some((obj, def.props)))
            }
            Value::List(items) | Value::Tuple(items) => {
                for v in items.iter() {
                    self.precreate(false, v, owner.clone(), None, keep_ids, created)?;
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// Moves objects whose load just ended to the end of the store, in
    /// order: Murano loads into a temporary store and copies the objects
    /// into the main one when the load ends, so its store lists objects
    /// by the end of their load (objects a nested `new()` made come
    /// before the outer load's). Garbage is destroyed in that order.
    pub(crate) fn mark_loaded<'a>(&self, objects: impl Iterator<Item = &'a Arc<Obj>>) {
        let mut st = lock(&self.state);
        for o in objects {
            st.objects.move_to_end(&o.id);
        }
    }

    /// Runs method `name` declared by `class` itself (no resolution).
    pub(crate) fn run_declared(
        &self,
        this: Option<&Arc<Obj>>,
        class: ClassId,
        name: &str,
        args: Vec<Value>,
    ) -> Result<Value, EngineError> {
        let classes = self.classes.clone();
        let Some(def) = classes.definition(class) else {
            return Ok(Value::Null);
        };
        let Some(index) = def.methods.iter().position(|m| m.name == name) else {
            return Ok(Value::Null);
        };
        self.run_method(this, class, index, args, Vec::new())
    }
}

/// `value` with the `?` header ids found in `ids` replaced (the model ids
/// of objects a dry-run load made).
pub(super) fn restore_model_ids(
    value: Value,
    ids: &HashMap<String, String>,
    depth: usize,
) -> Value {
    if ids.is_empty() || depth > 256 {
        return value;
    }
    match value {
        Value::Dict(d) => {
            let mut out = Dict::default();
            for (k, v) in d.iter() {
                let v = if k.as_str() == Some("?") {
                    match v {
                        Value::Dict(h) => {
                            let mut h = (**h).clone();
                            let key = Value::str("id");
                            if let Some(Value::Str(id)) = h.get(&key) {
                                if let Some(orig) = ids.get(&**id) {
                                    h.insert(key, Value::str(orig));
                                }
                            }
                            Value::Dict(Arc::new(h))
                        }
                        other => other.clone(),
                    }
                } else {
                    restore_model_ids(v.clone(), ids, depth + 1)
                };
                out.insert(k.clone(), v);
            }
            Value::Dict(Arc::new(out))
        }
        Value::List(items) => Value::List(Arc::new(
            items
                .iter()
                .map(|v| restore_model_ids(v.clone(), ids, depth + 1))
                .collect(),
        )),
        Value::Tuple(items) => Value::tuple(
            items
                .iter()
                .map(|v| restore_model_ids(v.clone(), ids, depth + 1))
                .collect(),
        ),
        other => other,
    }
}

/// Objects listed owners first (a load's pre-order) rearranged so that
/// every object comes after the objects it owns, siblings keeping their
/// order.
pub(super) fn post_order<T>(items: Vec<(Arc<Obj>, T)>) -> Vec<(Arc<Obj>, T)> {
    let mut out = Vec::with_capacity(items.len());
    let mut stack: Vec<(Arc<Obj>, T)> = Vec::new();
    for (o, t) in items {
        let owner = o.owner_id();
        while let Some(top) = stack.last() {
            let owns = owner.as_deref() == Some(top.0.id.as_str());
            if owns {
                break;
            }
            // Not the owner: done with the top, unless the new object is
            // owned by something deeper in the stack.
            if let Some(item) = stack.pop() {
                out.push(item);
            }
        }
        stack.push((o, t));
    }
    while let Some(item) = stack.pop() {
        out.push(item);
    }
    out
}

/// An object a model dict defines.
pub(super) struct ObjDef {
    /// The header's `dependencies` (destruction subscriptions).
    dependencies: Value,
    class: ClassId,
    id: Option<String>,
    name: Value,
    metadata: Value,
    props: Value,
}
