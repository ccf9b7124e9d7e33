//! Property reads and writes with their usage rules and contracts.

use super::*;

impl Core {
    pub(crate) fn caller_class(&self) -> Option<ClassId> {
        lock(&self.state).stack.last().map(|f| f.class)
    }

    /// The caller's class and whether the object is an instance of it
    /// (Murano's `caller_class.is_compatible(obj)`): then the lookup
    /// starts at the caller's class and undeclared names are the caller's
    /// own.
    /// `part` is the class of the part the access goes through (the
    /// object's own class, or the class a `cast()` selected): Murano asks
    /// whether the caller is compatible with that part.
    pub(crate) fn access(&self, part: ClassId) -> (Option<ClassId>, bool) {
        let caller = self.caller_class();
        let derived = caller.is_some_and(|c| self.classes.is_subclass(part, c));
        (caller, derived)
    }

    /// The object a value is and the part of it the value selects: the
    /// class a `cast()` chose, or the object's own class.
    pub(crate) fn part_of(&self, v: &Value) -> Option<(Arc<Obj>, ClassId)> {
        if let Some(c) = self.cast_of(v) {
            return Some(c);
        }
        self.obj_of(v).map(|o| {
            let class = o.class;
            (o, class)
        })
    }

    /// Reads a property with Murano's access rules
    /// (`MuranoObject.get_property`).
    pub(crate) fn read_property(&self, obj: &Obj, name: &str) -> Result<Value, EngineError> {
        self.read_property_as(obj, obj.class, name)
    }

    /// [`Core::read_property`] through the part `part` of the object (its
    /// own class or a `cast()` one): the lookup starts at the caller's
    /// class when the caller is compatible with the part, else at the
    /// part's class, so a property the part's class does not see cannot
    /// be read through it.
    pub(crate) fn read_property_as(
        &self,
        obj: &Obj,
        part: ClassId,
        name: &str,
    ) -> Result<Value, EngineError> {
        let (caller, derived) = self.access(part);
        let start = match caller {
            Some(c) if derived => c,
            _ => part,
        };
        let registry = self.classes.registry();
        let found = registry
            .find_property(start, name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        match found.first() {
            Some(p) if p.member.usage == PropertyUsage::Static => {
                return self.read_static(p.class, name)
            }
            Some(_) => {}
            None if derived => {
                // An undeclared property belongs to the caller's class part.
                let key = (start.index(), name.to_owned());
                return match lock(&obj.private).get(&key) {
                    Some(v) => Ok(v.clone()),
                    None => Err(EngineError::dsl(
                        "UninitializedPropertyAccessError",
                        format!(
                            "Access to uninitialized property \"{name}\" in class \"{}\" is forbidden",
                            self.classes.name(start)
                        ),
                    )),
                };
            }
            None => {
                return Err(EngineError::dsl(
                    "PropertyReadError",
                    format!(
                        "Property \"{name}\" in class \"{}\" cannot be read",
                        self.classes.name(start)
                    ),
                ))
            }
        }
        match lock(&obj.props).get(name) {
            Some(v) => Ok(v.clone()),
            None => Err(EngineError::dsl(
                "UninitializedPropertyAccessError",
                format!(
                    "Access to uninitialized property \"{name}\" in class \"{}\" is forbidden",
                    obj.class_name
                ),
            )),
        }
    }

    /// A static property of a class (or its ancestors).
    pub(crate) fn read_static_property(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<Value, EngineError> {
        let found = self
            .classes
            .registry()
            .find_property(class, name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        match found.first() {
            Some(p) if p.member.usage == PropertyUsage::Static => self.read_static(p.class, name),
            _ => Err(EngineError::dsl(
                "NoPropertyFound",
                format!(
                    "Property \"{name}\" is not found in class \"{}\"",
                    self.classes.name(class)
                ),
            )),
        }
    }

    /// Writes a static property through a class value.
    pub(crate) fn write_static_property(
        &self,
        class: ClassId,
        name: &str,
        value: Value,
    ) -> Result<(), EngineError> {
        let found = self
            .classes
            .registry()
            .find_property(class, name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        let Some(p) = found
            .first()
            .filter(|p| p.member.usage == PropertyUsage::Static)
        else {
            return Err(EngineError::dsl(
                "NoPropertyFound",
                format!(
                    "Property \"{name}\" is not found in class \"{}\"",
                    self.classes.name(class)
                ),
            ));
        };
        let value = match &p.member.contract {
            Some(node) => {
                let ctx = self.method_context(p.class, None);
                let contract = Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
                let scope = self.scope(&ctx, None, p.class);
                contract
                    .transform(&scope, Some(&value), None)
                    .map_err(|e| self.unpark_contract(e))?
                    .value
            }
            None => value,
        };
        lock(&self.state)
            .statics
            .insert((p.class.index(), name.to_owned()), value);
        Ok(())
    }

    pub(crate) fn read_static(&self, class: ClassId, name: &str) -> Result<Value, EngineError> {
        let key = (class.index(), name.to_owned());
        if let Some(v) = lock(&self.state).statics.get(&key) {
            return Ok(v.clone());
        }
        let def = self.classes.definition(class);
        let prop = def.and_then(|d| d.property(name));
        let ctx = self.method_context(class, None);
        let value = match prop.and_then(|p| p.default.as_ref()) {
            Some(d) => crate::exec::eval_node(self, d, &ctx)?,
            None => Value::Null,
        };
        lock(&self.state).statics.insert(key, value.clone());
        Ok(value)
    }

    /// Writes a property with Murano's access rules and its contract
    /// (`MuranoObject.set_property`).
    pub(crate) fn write_property(
        &self,
        obj: &Arc<Obj>,
        name: &str,
        value: Value,
    ) -> Result<(), EngineError> {
        self.write_property_as(obj, obj.class, name, value)
    }

    /// [`Core::write_property`] through the part `part` of the object:
    /// the lookup starts at the object's class (or the caller's when the
    /// caller is compatible with the part), and only a compatible caller
    /// may write, so a write legal as `$.name` is a `NoWriteAccessError`
    /// through a `cast()` to a parent class.
    pub(crate) fn write_property_as(
        &self,
        obj: &Arc<Obj>,
        part: ClassId,
        name: &str,
        value: Value,
    ) -> Result<(), EngineError> {
        let classes = self.classes.clone();
        let (caller, derived) = self.access(part);
        let start = match caller {
            Some(c) if derived => c,
            _ => obj.class,
        };
        let found = classes
            .registry()
            .find_property(start, name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        if found.is_empty() {
            if derived {
                lock(&obj.private).insert((start.index(), name.to_owned()), value);
                return Ok(());
            }
            return Err(EngineError::dsl(
                "PropertyWriteError",
                format!(
                    "Property \"{name}\" in class \"{}\" cannot be written",
                    classes.name(start)
                ),
            ));
        }
        // Every declaration of the name in the object's hierarchy (its
        // parts, breadth first) is checked: write access against each,
        // then the one the object's class resolves to transforms the
        // value and the others validate it (Murano's `set_property`).
        let specs = classes
            .registry()
            .find_properties(obj.class, |m| m.name == name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        let allowed = lock(&self.state)
            .stack
            .last()
            .is_some_and(|f| f.allow_writes);
        let writable = |usage: PropertyUsage| {
            matches!(
                usage,
                PropertyUsage::Out
                    | PropertyUsage::InOut
                    | PropertyUsage::Runtime
                    | PropertyUsage::Static
                    | PropertyUsage::Config
            )
        };
        if caller.is_some()
            && !allowed
            && (!derived || specs.iter().any(|s| !writable(s.member.usage)))
        {
            return Err(EngineError::dsl(
                "NoWriteAccessError",
                format!("Property \"{name}\" is immutable to the caller"),
            ));
        }
        let ultimate = self.ultimate_property(obj.class, name)?;
        let single = specs.len() == 1;
        let mut value = value;
        for s in &specs {
            let ctx = self.method_context(s.class, Some(obj));
            let scope = self.scope(&ctx, Some(obj), s.class);
            let Some(node) = &s.member.contract else {
                continue;
            };
            let contract = Contract::from_node(node).map_err(|e| self.unpark_contract(e))?;
            if (s.class, s.index) == ultimate {
                let t = if single {
                    contract.transform(&scope, Some(&value), None)
                } else {
                    contract.transform_unfinalized(&scope, Some(&value), None)
                };
                value = t.map_err(|e| self.unpark_contract(e))?.value;
            } else {
                contract
                    .validate(&scope, Some(&value), None)
                    .map_err(|e| self.unpark_contract(e))?;
            }
        }
        if !single {
            value = self.finalize_property(obj, ultimate, value)?;
        }
        let (class, index) = ultimate;
        let usage = classes
            .definition(class)
            .and_then(|d| d.properties.get(index))
            .map(|p| p.usage);
        if usage == Some(PropertyUsage::Static) {
            lock(&self.state)
                .statics
                .insert((class.index(), name.to_owned()), value);
        } else {
            lock(&obj.props).insert(name.to_owned(), value);
        }
        Ok(())
    }

    /// The declaration of property `name` the class resolves to (Murano's
    /// `find_single_property`): its class and index, or
    /// `AmbiguousPropertyNameError` when unrelated parents declare it.
    pub(crate) fn ultimate_property(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<(ClassId, usize), EngineError> {
        let found = self
            .classes
            .registry()
            .find_property(class, name)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        match found.as_slice() {
            [p] => Ok((p.class, p.index)),
            [] => Err(EngineError::dsl(
                "NoPropertyFound",
                format!(
                    "Property \"{name}\" is not found in class \"{}\"",
                    self.classes.name(class)
                ),
            )),
            _ => Err(EngineError::dsl(
                "AmbiguousPropertyNameError",
                format!("Found more than one property \"{name}\""),
            )),
        }
    }
}
