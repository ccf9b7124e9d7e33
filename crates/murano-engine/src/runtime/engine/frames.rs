//! Fuel, the frame stack, nesting and the errors the runtime raises and parks.

use super::*;

impl Core {
    /// Spends one unit of fuel.
    pub(crate) fn spend(&self) -> Result<(), EngineError> {
        let mut st = lock(&self.state);
        st.fuel_used += 1;
        if let Some(limit) = self.limits.fuel {
            if st.fuel_used > limit {
                return Err(EngineError::limit(
                    LimitKind::Fuel,
                    format!("execution used more than {limit} units of fuel"),
                ));
            }
        }
        Ok(())
    }

    /// Enters the engine once more: a method call about to push its frame
    /// (while its arguments bind), an object's property defaults and
    /// contracts, an object a contract loads. Each counts against
    /// [`crate::Limits::max_call_depth`] with the frames of the running
    /// green thread, until the guard drops: every path by which
    /// MuranoPL recurses passes here, so recursion ends with the
    /// call-depth error before the native stack runs out.
    pub(crate) fn enter(&self) -> Result<Nesting<'_>, EngineError> {
        // Levels vary in the stack they take (a deep expression per
        // level, debug builds): the native stack is watched as well.
        if murano_yaql::stack::exhausted() {
            return Err(EngineError::limit(
                LimitKind::CallDepth,
                format!(
                    "call depth exceeds the native stack budget ({} bytes)",
                    self.limits.max_stack
                ),
            ));
        }
        let mut st = lock(&self.state);
        if st.stack.len() + st.nesting >= self.limits.max_call_depth {
            return Err(EngineError::limit(
                LimitKind::CallDepth,
                format!("call depth exceeds {}", self.limits.max_call_depth),
            ));
        }
        st.nesting += 1;
        Ok(Nesting(self))
    }

    /// Records the current instruction of the running frame: a block
    /// construct (`None`) or the expression being evaluated, as Murano's
    /// `CTX_CURRENT_INSTRUCTION` (what stack traces show).
    pub(crate) fn set_position(
        &self,
        at: Mark,
        instruction: Option<&Arc<murano_yaql::Expression>>,
    ) {
        if let Some(f) = lock(&self.state).stack.last_mut() {
            f.at = at;
            f.instruction = instruction.cloned();
        }
    }

    /// The budgets of a call into the engine on this thread, until the
    /// guards drop: its stack ([`crate::Limits::max_stack`]) and the
    /// run's memory for every expression evaluated on the thread,
    /// contracts and defaults included ([`crate::Limits::max_memory`]).
    pub(crate) fn run_budgets(
        &self,
    ) -> (
        murano_yaql::stack::StackBudget,
        murano_yaql::eval::AmbientBudget,
    ) {
        (
            murano_yaql::stack::budget(self.limits.max_stack),
            murano_yaql::eval::ambient_budget(self.memory.budget.clone()),
        )
    }

    pub(crate) fn current_frame(&self) -> Option<Frame> {
        lock(&self.state).stack.last().cloned()
    }

    /// A stack frame record for an error raised at the current position.
    pub(crate) fn frame_record(&self, f: &Frame) -> StackFrame {
        StackFrame {
            file: self.classes.file(f.class).map(str::to_owned),
            line: f.at.line + 1,
            column: f.at.column + 1,
            method: f.method.clone(),
            class: self.classes.name(f.class).to_owned(),
            instruction: f.instruction.as_ref().map(|e| e.source().to_owned()),
        }
    }

    /// The YAQL error that carries an engine error across a YAQL
    /// evaluation: an [`YaqlError::host`] whose cause is the error itself,
    /// read back whole by [`Core::unpark_yaql`].
    pub(crate) fn park(&self, e: EngineError) -> YaqlError {
        YaqlError::host(e)
    }

    /// The engine error behind a YAQL error: the engine error it carries
    /// (a failed property read's too), a host exception
    /// ([`PythonException`] cause), or the YAQL error itself.
    pub(crate) fn unpark_yaql(&self, e: &YaqlError) -> EngineError {
        if let Some(inner) = e.downcast_ref::<EngineError>() {
            return inner.clone();
        }
        if let Some(p) = e.downcast_ref::<PythonException>() {
            return python_exception(p);
        }
        EngineError::from_yaql(e)
    }

    pub(crate) fn unpark_contract(&self, e: ContractError) -> EngineError {
        // A limit an engine call inside the contract raised wins over
        // whatever the contract made of it (a missing attribute, ...).
        if let Some(inner) = e.downcast_ref::<EngineError>() {
            return inner.clone();
        }
        if let Some(p) = e.downcast_ref::<PythonException>() {
            return python_exception(p);
        }
        EngineError::new(
            ErrorKind::Engine {
                type_name: e.python_type().to_owned(),
                module: e.python_module().to_owned(),
            },
            e.message.clone(),
        )
    }
}

/// A host exception as the engine wraps it.
fn python_exception(p: &PythonException) -> EngineError {
    EngineError::new(
        ErrorKind::Host {
            type_name: p.type_name.clone(),
            module: p.module.clone(),
        },
        p.message.clone(),
    )
}
