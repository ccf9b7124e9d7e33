//! Initialisation: an object's properties from its model through their
//! contracts, then `.init` of each class, parents first (deferred while
//! a model load is under way).

use super::objects::post_order;
use super::*;

impl Core {
    /// Murano's `MuranoObject.initialize`: `Config` properties from the
    /// class configuration, every other property from the model through
    /// its contract (a `Runtime` property only when it has a default;
    /// defaults that read properties not set yet are retried), `.init`
    /// arguments from the model, then `.init` of each class, parents
    /// first.
    pub(crate) fn initialize(&self, obj: &Arc<Obj>, model: &Value) -> Result<(), EngineError> {
        self.initialize_by(obj, model, None)
    }

    /// [`Core::initialize`] on behalf of code of class `caller` (see
    /// [`Core::initialize_properties`]).
    pub(crate) fn initialize_by(
        &self,
        obj: &Arc<Obj>,
        model: &Value,
        caller: Option<ClassId>,
    ) -> Result<(), EngineError> {
        let (inits, deferred) =
            self.with_deferred_inits(|| self.initialize_properties(obj, model, caller))?;
        // Objects its properties loaded first (their initialisers were
        // queued before its own), owned objects before their owners.
        for (o, i) in post_order(deferred) {
            self.run_inits(&o, i)?;
        }
        self.run_inits(obj, inits)
    }

    /// Runs `f` with `.init` calls of objects that contracts load (see
    /// [`Core::defer_or_run_inits`]) queued; returns them with `f`'s result.
    pub(crate) fn with_deferred_inits<T>(
        &self,
        f: impl FnOnce() -> Result<T, EngineError>,
    ) -> Result<(T, Vec<PendingInit>), EngineError> {
        let mark = {
            let mut st = lock(&self.state);
            st.loading += 1;
            st.deferred_inits.len()
        };
        let r = f();
        let mut st = lock(&self.state);
        st.loading -= 1;
        let at = mark.min(st.deferred_inits.len());
        let deferred = st.deferred_inits.split_off(at);
        drop(st);
        r.map(|v| (v, deferred))
    }

    /// Initialises an object a contract loads: inside a load its `.init`
    /// calls wait for the load's (Murano queues the initialisers of the
    /// whole model), otherwise they run now.
    pub(crate) fn defer_or_run_inits(
        &self,
        obj: &Arc<Obj>,
        model: &Value,
        caller: Option<ClassId>,
    ) -> Result<(), EngineError> {
        if lock(&self.state).loading == 0 {
            return self.initialize_by(obj, model, caller);
        }
        let (inits, deferred) =
            self.with_deferred_inits(|| self.initialize_properties(obj, model, caller))?;
        let mut st = lock(&self.state);
        st.deferred_inits.extend(deferred);
        st.deferred_inits.push((obj.clone(), inits));
        Ok(())
    }

    /// The property part of [`Core::initialize`]: returns the `.init`
    /// calls to make (class, arguments), in the order Murano makes them.
    ///
    /// `caller`: the class of the code the load runs for (`None`: the
    /// object's own class, as for a deployment model). Murano sets each
    /// property through the part of the class declaring it, as that
    /// caller: a caller compatible with the part (an ancestor of the
    /// declaring class) that does not itself see the property gets the
    /// model's value as an undeclared property of its own part, unchecked,
    /// and the object's property stays unset (`new(Child, ...)` from a
    /// method of `Child`'s parent).
    pub(crate) fn initialize_properties(
        &self,
        obj: &Arc<Obj>,
        model: &Value,
        caller: Option<ClassId>,
    ) -> Result<Vec<InitCall>, EngineError> {
        if obj.initialized.swap(true, Ordering::Relaxed) {
            // Murano loads `ObjectsCopy` into the objects `Objects` made
            // and sets their properties again as a dry run: the values
            // are dropped, but the contracts run, so a default or value
            // that is an object model without an id makes a new object
            // (drawing ids, running its `.init`) that ends up garbage.
            let recheck = lock(&self.state)
                .rechecked
                .as_mut()
                .is_some_and(|done| done.insert(obj.id.clone()));
            if recheck {
                self.set_properties(obj, model, caller, true)?;
            }
            return Ok(Vec::new());
        }
        {
            let mut st = lock(&self.state);
            st.births += 1;
            obj.birth.store(st.births, Ordering::Relaxed);
        }
        self.set_properties(obj, model, caller, false)
    }

    /// The work of [`Core::initialize_properties`]; `dry`: check the
    /// properties of an initialised object again without changing it.
    fn set_properties(
        &self,
        obj: &Arc<Obj>,
        model: &Value,
        caller: Option<ClassId>,
        dry: bool,
    ) -> Result<Vec<InitCall>, EngineError> {
        // Defaults and contracts may create objects that do the same.
        let _nesting = self.enter()?;
        let classes = self.classes.clone();
        let params = match model {
            Value::Dict(d) => Some(d.clone()),
            _ => None,
        };
        let mro = classes.mro(obj.class);
        let mut used: HashSet<String> = HashSet::new();
        let mut init_args: Vec<(ClassId, Vec<(String, Value)>)> = Vec::new();
        for &class in &mro {
            let Some(def) = classes.definition(class) else {
                continue;
            };
            // Each part reads its own class's configuration (Murano's
            // `MuranoObject._config` is per part).
            let config = lock(&self.state)
                .class_configs
                .get(classes.name(class))
                .cloned();
            let ctx = self.method_context(class, Some(obj));
            let scope = self.scope(&ctx, Some(obj), class);
            // Config properties.
            for prop in def
                .properties
                .iter()
                .filter(|p| !dry && p.usage == PropertyUsage::Config)
            {
                if used.contains(&prop.name) {
                    continue;
                }
                let key = Value::str(&prop.name);
                let given = config.as_ref().and_then(|c| c.get(&key)).cloned();
                let v =
                    self.apply_property_contract(prop, &scope, given.as_ref(), &obj.class_name)?;
                lock(&obj.props).insert(prop.name.clone(), v);
            }
            let init = def.method(".init");
            let mut names: Vec<&str> = def.properties.iter().map(|p| p.name.as_str()).collect();
            let declared = names.len();
            if let Some(init) = init {
                for a in &init.arguments {
                    if !names.contains(&a.name.as_str()) {
                        names.push(&a.name);
                    }
                }
            }
            // Murano walks `set(properties) | init arguments`: a Python
            // set's order, which decides which nested objects load first.
            let names: Vec<&str> = crate::pyset::set_order(&names, declared)
                .into_iter()
                .map(|i| names[i])
                .collect();
            let mut own_args = Vec::new();
            let mut last_errors = names.len() + 1;
            loop {
                let mut errors = 0;
                for &name in &names {
                    if used.contains(name) {
                        continue;
                    }
                    let key = Value::str(name);
                    let given = params.as_ref().and_then(|d| d.get(&key)).cloned();
                    if let Some(arg) =
                        init.and_then(|m| m.arguments.iter().find(|a| a.name == name))
                    {
                        if let (Some(v), false) = (given, dry) {
                            own_args.push((arg.name.clone(), v));
                        }
                        used.insert(name.to_owned());
                        continue;
                    }
                    let Some(prop) = def.property(name) else {
                        continue;
                    };
                    match prop.usage {
                        PropertyUsage::Config | PropertyUsage::Static => {
                            used.insert(name.to_owned());
                            continue;
                        }
                        PropertyUsage::Runtime if prop.default.is_none() => {
                            used.insert(name.to_owned());
                            continue;
                        }
                        _ => {}
                    }
                    let given = if prop.usage == PropertyUsage::Runtime {
                        None
                    } else {
                        given
                    };
                    if let Some(c) = caller.filter(|&c| {
                        classes.is_subclass(class, c)
                            && classes
                                .registry()
                                .find_property(c, name)
                                .is_ok_and(|f| f.is_empty())
                    }) {
                        // (Without a value Murano stores its NO_VALUE
                        // marker, which reads back without an error: null
                        // here.)
                        if !dry {
                            lock(&obj.private)
                                .insert((c.index(), name.to_owned()), given.unwrap_or_default());
                        }
                        used.insert(name.to_owned());
                        continue;
                    }
                    let class_config = config.as_ref().and_then(|c| c.get(&key)).cloned();
                    let given = given.or(class_config);
                    match self.apply_declared_contracts(obj, prop, &scope, given.as_ref()) {
                        Ok(v) => {
                            if !dry {
                                lock(&obj.props).insert(prop.name.clone(), v);
                            }
                            used.insert(name.to_owned());
                        }
                        Err(e) if e.python_type() == "UninitializedPropertyAccessError" => {
                            errors += 1;
                        }
                        Err(e)
                            if prop.usage == PropertyUsage::Runtime
                                && e.python_type() == "ContractViolationException" => {}
                        Err(e) => return Err(e),
                    }
                }
                if errors == 0 {
                    break;
                }
                if errors >= last_errors {
                    return Err(EngineError::dsl(
                        "CircularExpressionDependenciesError",
                        "Circular dependencies between property defaults",
                    ));
                }
                last_errors = errors;
            }
            if init.is_some() && !dry {
                init_args.push((class, own_args));
            }
        }
        Ok(init_args)
    }

    /// Runs the `.init` calls [`Core::initialize_properties`] returned, in
    /// Murano's order (see `crate::init_order`: parents first, a class
    /// reached along several inheritance paths once per path, without
    /// arguments after the first); not for dry runs.
    pub(crate) fn run_inits(
        &self,
        obj: &Arc<Obj>,
        init_args: Vec<InitCall>,
    ) -> Result<(), EngineError> {
        let classes = self.classes.clone();
        if lock(&self.state).dry_run > 0 || init_args.is_empty() {
            return Ok(());
        }
        let has_init: HashSet<ClassId> = init_args.iter().map(|(c, _)| *c).collect();
        let mut args_of: HashMap<ClassId, Vec<(String, Value)>> = init_args.into_iter().collect();
        for (class, first) in crate::init_order::init_sequence(classes.registry(), obj.class)? {
            if !has_init.contains(&class) {
                continue;
            }
            let args = if first {
                args_of.remove(&class).unwrap_or_default()
            } else {
                Vec::new()
            };
            let Some(def) = classes.definition(class) else {
                continue;
            };
            if let Some(index) = def.methods.iter().position(|m| m.name == ".init") {
                self.run_method_with(Some(obj), class, index, Vec::new(), args, true)?;
            }
        }
        Ok(())
    }

    /// A property value through its contract (`given` `None` is "no
    /// value": the default applies).
    /// The value a property of `obj` takes at initialisation: its
    /// declaration's contract, or when several classes of the object's
    /// hierarchy declare the name, Murano's `set_property` chain (the
    /// declaration the object's class resolves to transforms, the others
    /// validate what they see at their turn, each with its own default).
    pub(crate) fn apply_declared_contracts(
        &self,
        obj: &Arc<Obj>,
        prop: &murano_dsl::model::Property,
        scope: &Scope,
        given: Option<&Value>,
    ) -> Result<Value, EngineError> {
        let specs = self
            .classes
            .registry()
            .find_properties(obj.class, |m| m.name == prop.name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        if specs.len() <= 1 {
            return self.apply_property_contract(prop, scope, given, &obj.class_name);
        }
        let ultimate = self.ultimate_property(obj.class, &prop.name)?;
        let mut value = given.cloned();
        for s in &specs {
            let ctx = self.method_context(s.class, Some(obj));
            let sc = self.scope(&ctx, Some(obj), s.class);
            if (s.class, s.index) == ultimate {
                value = Some(self.apply_property_contract_as(
                    s.member,
                    &sc,
                    value.as_ref(),
                    &obj.class_name,
                    false,
                )?);
            } else if let Some(node) = &s.member.contract {
                let contract = Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
                contract
                    .validate(&sc, value.as_ref(), s.member.default.as_ref())
                    .map_err(|e| self.unpark_contract(e))?;
            }
        }
        let value = value.unwrap_or_default();
        self.finalize_property(obj, ultimate, value)
    }

    /// The ultimate declaration's `finalize` of a value its unfinalized
    /// transform made (see `Contract::finalize`).
    pub(crate) fn finalize_property(
        &self,
        obj: &Arc<Obj>,
        (class, index): (ClassId, usize),
        value: Value,
    ) -> Result<Value, EngineError> {
        let classes = self.classes.clone();
        let Some(node) = classes
            .definition(class)
            .and_then(|d| d.properties.get(index))
            .and_then(|p| p.contract.as_ref())
        else {
            return Ok(value);
        };
        let ctx = self.method_context(class, Some(obj));
        let scope = self.scope(&ctx, Some(obj), class);
        let contract = Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
        contract
            .finalize(&scope, &value)
            .map_err(|e| self.unpark_contract(e))
    }

    pub(crate) fn apply_property_contract(
        &self,
        prop: &murano_dsl::model::Property,
        scope: &Scope,
        given: Option<&Value>,
        class_name: &str,
    ) -> Result<Value, EngineError> {
        self.apply_property_contract_as(prop, scope, given, class_name, true)
    }

    /// [`Core::apply_property_contract`], finalizing or not (see
    /// `Contract::transform_unfinalized`).
    pub(crate) fn apply_property_contract_as(
        &self,
        prop: &murano_dsl::model::Property,
        scope: &Scope,
        given: Option<&Value>,
        class_name: &str,
        finalize: bool,
    ) -> Result<Value, EngineError> {
        match &prop.contract {
            Some(node) => {
                let contract = Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
                let t = if finalize {
                    contract.transform(scope, given, prop.default.as_ref())
                } else {
                    contract.transform_unfinalized(scope, given, prop.default.as_ref())
                };
                t.map(|t| t.value).map_err(|e| {
                    // Murano's MuranoProperty.transform: every violation
                    // leaving the contract, a nested object's included
                    // (which then reads `[A.q] [B.p] ...`), gets the
                    // property and the path inside its value.
                    let path = e.path.clone();
                    let mut e = self.unpark_contract(e);
                    if e.python_type() == "ContractViolationException" {
                        e.message = format!("[{class_name}.{}{path}] {}", prop.name, e.message);
                    }
                    e
                })
            }
            None => match (given, &prop.default) {
                (Some(v), _) => Ok(v.clone()),
                (None, Some(d)) => crate::exec::eval_node(self, d, &scope.context),
                (None, None) => Ok(Value::Null),
            },
        }
    }
}
