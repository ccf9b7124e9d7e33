//! The YAQL contexts methods and expressions run in.

use super::objects::restore_model_ids;
use super::*;

impl Core {
    /// The context of a method of `class` running on `this`.
    pub(crate) fn method_context(&self, class: ClassId, this: Option<&Arc<Obj>>) -> Context {
        let this_value = match this {
            Some(o) => Value::Object(o.clone()),
            None => self.type_value(class, true),
        };
        Context::new(self.library_for(Some(class)))
            .with(ENGINE_VAR, self.handle.clone())
            .with("$this", this_value.clone())
            .with("$", this_value)
    }

    pub(crate) fn scope(&self, ctx: &Context, this: Option<&Arc<Obj>>, class: ClassId) -> Scope {
        let host: Arc<dyn ObjectHost> = Arc::new(StoreHost {
            core: self.self_ref.clone(),
            class: Some(class),
        });
        let mut scope = Scope::new(self.runtime.clone(), host).with_context(ctx.clone());
        if let Some(o) = this {
            let v = Value::Object(o.clone());
            scope = scope.with_this(v.clone()).with_owner(v);
        }
        scope
    }
}

/// The object store as contracts see it.
pub(super) struct StoreHost {
    core: Weak<Core>,
    class: Option<ClassId>,
}

impl ObjectHost for StoreHost {
    /// (A `cast()` value is its part: the part's class, as Murano's
    /// contracts see the part's type.)
    fn object_info(&self, value: &Value) -> Option<ObjectInfo> {
        let core = self.core.upgrade()?;
        let (o, part) = core.part_of(value)?;
        Some(ObjectInfo {
            id: o.id.clone(),
            class: core.classes.name(part).to_owned(),
        })
    }

    fn find_object(&self, id: &str) -> Option<Value> {
        let core = self.core.upgrade()?;
        let o = core.lookup_id(id)?;
        Some(Value::Object(o))
    }

    fn resolve_class(&self, name: &str) -> Result<String, ContractError> {
        let core = self.core.upgrade().ok_or_else(|| {
            ContractError::new(murano_dsl::contract::ContractErrorKind::NoClassFound, name)
        })?;
        core.classes
            .resolve(self.class, name)
            .map(|c| core.classes.name(c).to_owned())
            .map_err(|e| {
                if e.python_type() == "NoPackageFound" {
                    return ContractError::new(
                        murano_dsl::contract::ContractErrorKind::Host {
                            type_name: e.python_type().to_owned(),
                            module: e.python_module().to_owned(),
                        },
                        e.message,
                    );
                }
                ContractError::new(
                    murano_dsl::contract::ContractErrorKind::NoClassFound,
                    format!("Class \"{name}\" is not found"),
                )
            })
    }

    fn is_subclass(&self, class: &str, ancestor: &str) -> bool {
        let Some(core) = self.core.upgrade() else {
            return false;
        };
        match (core.classes.find(class), core.classes.find(ancestor)) {
            (Some(c), Some(a)) => core.classes.is_subclass(c, a),
            _ => false,
        }
    }

    fn load_object(
        &self,
        model: &Value,
        owner: Option<&Value>,
        default_class: &str,
        dry_run: bool,
    ) -> Result<Value, ContractError> {
        let fail = |e: EngineError| {
            ContractError::new(
                murano_dsl::contract::ContractErrorKind::Host {
                    type_name: e.python_type().to_owned(),
                    module: e.python_module().to_owned(),
                },
                e.message,
            )
        };
        let core = self
            .core
            .upgrade()
            .ok_or_else(|| fail(EngineError::dsl("NoClassFound", default_class)))?;
        // A limit passes through the contract whole (its cause, as YAQL's
        // host errors carry theirs), not as a contract's host error.
        let fail = |e: EngineError| {
            if e.catchable() {
                fail(e)
            } else {
                ContractError::new(
                    murano_dsl::contract::ContractErrorKind::Host {
                        type_name: "Exception".to_owned(),
                        module: "builtins".to_owned(),
                    },
                    e.message.clone(),
                )
                .with_cause(Arc::new(e))
            }
        };
        let _nesting = core.enter().map_err(fail)?;
        let owner = owner.and_then(|o| core.obj_of(o));
        if dry_run {
            // Load to validate, then forget the objects: the caller gets
            // the model back through `serialize`.
            let default = core.classes.find(default_class);
            let (before, pending) = {
                let mut st = lock(&core.state);
                st.dry_run += 1;
                // Objects of an outer load not initialised yet stay so: a
                // dry run (Murano's separate store) does not initialise them.
                let pending: Vec<Arc<Obj>> = st
                    .objects
                    .values()
                    .filter(|o| !o.initialized.load(Ordering::Relaxed))
                    .cloned()
                    .collect();
                (st.objects.end_mark(), pending)
            };
            // Inside a model load that keeps its ids (no `new()` scope
            // under way), Murano's dry run keeps them too: the template's
            // objects take their model ids and draw none (`crate::ids`).
            let keep_ids = {
                let st = lock(&core.state);
                st.aliases.is_empty() && st.loading > 0
            };
            let r = core.load_object_tree_by(model, owner.as_ref(), default, keep_ids, self.class);
            for o in pending {
                o.initialized.store(false, Ordering::Relaxed);
            }
            {
                let mut st = lock(&core.state);
                st.dry_run -= 1;
                st.objects.truncate(before);
            }
            return r.map_err(fail);
        }
        let default = core.classes.find(default_class);
        if let Some(h) = Core::header(model) {
            if let Some(Value::Str(id)) = h.get(&Value::str("id")) {
                let existing = core.lookup_load_id(id);
                if let Some(o) = existing {
                    let mut props = match model {
                        Value::Dict(d) => (**d).clone(),
                        _ => Dict::default(),
                    };
                    props.shift_remove(&Value::str("?"));
                    core.defer_or_run_inits(&o, &Value::Dict(Arc::new(props)), self.class)
                        .map_err(fail)?;
                    return Ok(Value::Object(o));
                }
            }
        }
        crate::ids::temporary_object_id(&core, model);
        let keep_ids = false;
        core.load_object_tree_by(model, owner.as_ref(), default, keep_ids, self.class)
            .map_err(fail)
    }

    fn owner_of(&self, object: &Value) -> Option<Value> {
        let core = self.core.upgrade()?;
        let o = core.obj_of(object)?;
        let owner = o.owner_id()?;
        let st = lock(&core.state);
        st.objects.get(&owner).map(|x| Value::Object(x.clone()))
    }

    fn serialize(&self, object: &Value) -> Option<Value> {
        let core = self.core.upgrade()?;
        let o = core.obj_of(object)?;
        let dumped = crate::serialize::dump(&core, &o, crate::serialize::DumpMode::Mixed);
        let ids = lock(&core.state).dry_ids.clone();
        Some(restore_model_ids(dumped, &ids, 0))
    }
}
