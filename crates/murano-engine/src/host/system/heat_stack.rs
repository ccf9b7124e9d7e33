//! `io.murano.system.HeatStack`: the stack's template held in memory,
//! merged by `updateTemplate`, pushed to the host as a create, update or
//! delete.

use super::declare::{arg, class, method, opt, HostProfile, SystemClass};
use super::*;

/// The MuranoPL declaration of the class's native methods.
pub(super) const CLASS: SystemClass = class(
    "io.murano.system.HeatStack",
    &[
        method(
            ".init",
            &[
                arg("name"),
                opt("description", "null"),
                opt("regionName", "null"),
            ],
        ),
        method("current", &[]),
        method("parameters", &[]),
        method("reload", &[]).cloud(),
        method("setTemplate", &[arg("template")]),
        method("setParameters", &[arg("parameters")]).nothing(),
        method("setFiles", &[arg("files")]).nothing(),
        method("setHotEnvironment", &[arg("hotEnvironment")]).nothing(),
        method("updateTemplate", &[arg("template")]),
        method("push", &[opt("isAsync", "false")])
            .kwargs_in(HostProfile::Offline)
            .cloud(),
        method("output", &[]).cloud(),
        method("delete", &[]).cloud(),
    ],
)
.service("Heat");

/// The native methods.
pub(super) static SPECS: &[Spec] = &[
    Spec {
        class: "io.murano.system.HeatStack",
        method: ".init",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            let region = match given(call, "regionName") {
                Some(Value::Null) | None => String::new(),
                Some(v) => v.py_str(),
            };
            sys.save_stack(
                &id,
                Stack {
                    name: call.arg("name").map(Value::py_str).unwrap_or_default(),
                    description: given(call, "description").cloned().unwrap_or_default(),
                    region,
                    template: None,
                    parameters: empty_dict(),
                    files: empty_dict(),
                    environment: empty_dict(),
                    applied: true,
                },
            );
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "current",
        kwargs: &[],
        body: |sys, engine, call| {
            let (id, mut st) = sys.stack(engine, call)?;
            let out = sys.stack_current(&mut st);
            sys.save_stack(&id, st);
            out
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "parameters",
        kwargs: &[],
        body: |sys, engine, call| {
            let (id, mut st) = sys.stack(engine, call)?;
            let out = sys.stack_current(&mut st).map(|_| st.parameters.clone());
            sys.save_stack(&id, st);
            out
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "reload",
        kwargs: &[],
        body: |sys, engine, call| {
            let (id, mut st) = sys.stack(engine, call)?;
            st.template = None;
            st.parameters = empty_dict();
            let out = sys.stack_current(&mut st);
            sys.save_stack(&id, st);
            out
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "setTemplate",
        kwargs: &[],
        body: |sys, engine, call| {
            sys.edit_stack(engine, call, |st| {
                st.template = Some(call.arg("template").cloned().unwrap_or_default());
                st.parameters = empty_dict();
            })
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "setParameters",
        kwargs: &[],
        body: |sys, engine, call| {
            sys.edit_stack(engine, call, |st| {
                st.parameters = call.arg("parameters").cloned().unwrap_or_default();
            })
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "setFiles",
        kwargs: &[],
        body: |sys, engine, call| {
            sys.edit_stack(engine, call, |st| {
                st.files = call.arg("files").cloned().unwrap_or_default();
            })
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "setHotEnvironment",
        kwargs: &[],
        body: |sys, engine, call| {
            sys.edit_stack(engine, call, |st| {
                st.environment = call.arg("hotEnvironment").cloned().unwrap_or_default();
            })
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "updateTemplate",
        kwargs: &[],
        body: |sys, engine, call| {
            let (id, mut st) = sys.stack(engine, call)?;
            let template = call.arg("template").cloned().unwrap_or_default();
            let Value::Dict(t) = &template else {
                return Err(host_error(HostError::new(
                    "AttributeError",
                    "builtins",
                    format!("'{}' object has no attribute 'get'", template.type_name()),
                )));
            };
            if let Some(v) = t.get(&s("heat_template_version")) {
                if v.as_str() != Some("2013-05-23") {
                    return Err(host_error(HostError::new(
                        "HeatStackError",
                        "murano.engine.system.heat_stack",
                        "Currently only heat_template_version 2013-05-23 is supported.",
                    )));
                }
            }
            let current = sys.stack_current(&mut st)?;
            let merged = merge_dicts(&dict_of(&current), t, 0).map_err(host_error)?;
            let merged = Value::Dict(Arc::new(merged));
            st.applied = merged == current && st.applied;
            st.template = Some(merged);
            sys.save_stack(&id, st);
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "push",
        kwargs: &[],
        body: |sys, engine, call| {
            let (id, mut st) = sys.stack(engine, call)?;
            let out = sys.stack_push(&mut st);
            sys.save_stack(&id, st);
            out.map(|()| Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "output",
        kwargs: &[],
        body: |sys, engine, call| {
            let (_, st) = sys.stack(engine, call)?;
            sys.inner
                .host
                .heat_outputs(&st.region, &st.name)
                .map_err(host_error)
        },
    },
    Spec {
        class: "io.murano.system.HeatStack",
        method: "delete",
        kwargs: &[],
        body: |sys, engine, call| {
            let (id, mut st) = sys.stack(engine, call)?;
            let out = sys.stack_delete(&mut st);
            sys.save_stack(&id, st);
            out.map(|()| Value::Null)
        },
    },
];

impl SystemClasses {
    pub(super) fn stack(
        &self,
        engine: &Engine,
        call: &NativeCall<'_>,
    ) -> Result<(String, Stack), EngineError> {
        let id = Self::this_id(engine, call)?;
        match self.state(&id) {
            Some(NativeState::Stack(st)) => Ok((id, *st)),
            _ => Err(EngineError::dsl(
                "DslInvalidOperationError",
                "the HeatStack object was not initialised",
            )),
        }
    }

    pub(super) fn save_stack(&self, id: &str, st: Stack) {
        self.set_state(id, NativeState::Stack(Box::new(st)));
    }

    /// A `HeatStack` setter: the receiver's stack with `edit` applied,
    /// marked as not yet pushed (Murano's `_applied = False`).
    pub(super) fn edit_stack(
        &self,
        engine: &Engine,
        call: &NativeCall<'_>,
        edit: impl FnOnce(&mut Stack),
    ) -> Result<Value, EngineError> {
        let (id, mut st) = self.stack(engine, call)?;
        edit(&mut st);
        st.applied = false;
        self.save_stack(&id, st);
        Ok(Value::Null)
    }

    /// Murano's `HeatStack.current()`.
    pub(super) fn stack_current(&self, st: &mut Stack) -> Result<Value, EngineError> {
        if let Some(t) = &st.template {
            return Ok(t.clone());
        }
        match self
            .inner
            .host
            .heat_stack(&st.region, &st.name)
            .map_err(host_error)?
        {
            Some(data) => {
                st.template = Some(data.template.clone());
                let mut params = dict_of(&st.parameters);
                for (k, v) in dict_of(&data.parameters) {
                    if !k.py_str().starts_with("OS::") {
                        params.insert(k, v);
                    }
                }
                st.parameters = Value::Dict(Arc::new(params));
                st.applied = true;
                Ok(data.template)
            }
            None => {
                st.applied = true;
                st.template = Some(empty_dict());
                st.parameters = empty_dict();
                Ok(empty_dict())
            }
        }
    }

    pub(super) fn heat_record(&self, op: HeatOp, st: &Stack, data: Option<&StackData>) {
        if !self.recording_on() {
            return;
        }
        let engine = lock(&self.inner.engine).upgrade();
        let enc = |v: &Value| engine.as_ref().map_or(Json::Null, |e| encode(e, v));
        let mut rec = lock(&self.inner.rec);
        let call_index = rec.last_call();
        let mut m = Map::new();
        m.insert("op".into(), json!(op.as_str()));
        m.insert("stack".into(), json!(st.name));
        m.insert("region".into(), json!(st.region));
        if let Some(d) = data {
            m.insert("template".into(), enc(&d.template));
            m.insert("parameters".into(), enc(&d.parameters));
            m.insert("files".into(), enc(&d.files));
            m.insert("environment".into(), enc(&d.environment));
            m.insert("tags".into(), json!("murano"));
        }
        m.insert("call_index".into(), json!(call_index));
        if rec.heat.len() < MAX_RECORDS {
            rec.heat.push(Json::Object(m));
        }
    }

    /// Murano's `HeatStack.delete()`.
    pub(super) fn stack_delete(&self, st: &mut Stack) -> Result<(), EngineError> {
        let current = self.stack_current(st)?;
        if !current.truthy() {
            return Ok(());
        }
        let exists = self
            .inner
            .host
            .heat_stack(&st.region, &st.name)
            .map_err(host_error)?
            .is_some();
        if exists {
            self.inner
                .host
                .heat_apply(HeatOp::Delete, &st.region, &st.name, None)
                .map_err(host_error)?;
            self.heat_record(HeatOp::Delete, st, None);
        }
        st.template = Some(empty_dict());
        st.applied = true;
        Ok(())
    }

    /// Murano's `HeatStack.push()` (always synchronous here).
    pub(super) fn stack_push(&self, st: &mut Stack) -> Result<(), EngineError> {
        if st.applied || st.template.is_none() {
            return Ok(());
        }
        let mut t = dict_of(st.template.as_ref().unwrap_or(&Value::Null));
        if !t.contains_key(&s("heat_template_version")) {
            t.insert(s("heat_template_version"), s("2013-05-23"));
        }
        if !t.contains_key(&s("description")) && st.description.truthy() {
            t.insert(s("description"), st.description.clone());
        }
        let template = Value::Dict(Arc::new(t.clone()));
        st.template = Some(template.clone());
        let resources = match t.get(&s("Resources")) {
            Some(v) if v.truthy() => Some(v.clone()),
            _ => t.get(&s("resources")).cloned(),
        };
        let exists = self
            .inner
            .host
            .heat_stack(&st.region, &st.name)
            .map_err(host_error)?
            .is_some();
        let data = StackData {
            template: template.clone(),
            parameters: st.parameters.clone(),
            files: st.files.clone(),
            environment: st.environment.clone(),
        };
        let has_resources = resources.is_some_and(|r| !r.is_null());
        if has_resources {
            let op = if exists {
                HeatOp::Update
            } else {
                HeatOp::Create
            };
            self.inner
                .host
                .heat_apply(op, &st.region, &st.name, Some(&data))
                .map_err(host_error)?;
            self.heat_record(op, st, Some(&data));
        } else if exists {
            self.stack_delete(st)?;
        }
        st.applied = st.template.as_ref() == Some(&template);
        Ok(())
    }
}
