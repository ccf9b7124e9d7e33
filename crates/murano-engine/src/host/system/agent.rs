//! `io.murano.system.Agent`: execution plans built from the package's
//! scripts and sent to the host's agent queue.

use super::declare::{arg, class, method, opt, HostProfile, SystemClass};
use super::*;

/// The MuranoPL declaration of the class's native methods.
pub(super) const CLASS: SystemClass = class(
    "io.murano.system.Agent",
    &[
        method(".init", &[arg("host")]),
        method(
            "call",
            &[arg("template"), arg("resources"), opt("timeout", "null")],
        )
        .cloud(),
        method("send", &[arg("template"), arg("resources")]).cloud(),
        method("callRaw", &[arg("plan"), opt("timeout", "null")]).cloud(),
        method("sendRaw", &[arg("plan")]).cloud(),
        method("isReady", &[opt("timeout", "100")]).cloud(),
        method("waitReady", &[opt("timeout", "100")]).cloud(),
        method("queueName", &[]),
        method("signingKey", &[opt("linePrefix", "''")]),
        method("buildExecutionPlan", &[arg("template"), arg("resources")])
            .only(HostProfile::NoCloud),
    ],
)
.service("the murano agent's message queue");

/// The native methods.
pub(super) static SPECS: &[Spec] = &[
    Spec {
        class: "io.murano.system.Agent",
        method: ".init",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            let host = call.arg("host").cloned().unwrap_or_default();
            let host_id = engine.object_view(&host).map(|v| v.id).unwrap_or_default();
            let env = sys.find_environment(engine, &host);
            let queue = format!("e{env}-h{host_id}").to_lowercase();
            sys.set_state(
                &id,
                NativeState::Agent {
                    queue,
                    host: host_id,
                    stamp: 0,
                },
            );
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "call",
        kwargs: &[],
        body: |sys, engine, call| {
            let timeout = timeout_of(sys, given(call, "timeout"));
            let plan = sys.build(engine, call, "call")?;
            sys.send_plan(engine, call, plan, true, timeout)
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "send",
        kwargs: &[],
        body: |sys, engine, call| {
            let plan = sys.build(engine, call, "send")?;
            sys.send_plan(engine, call, plan, false, 0)
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "callRaw",
        kwargs: &[],
        body: |sys, engine, call| {
            let timeout = timeout_of(sys, given(call, "timeout"));
            let plan = call.arg("plan").cloned().unwrap_or_default();
            sys.send_plan(engine, call, plan, true, timeout)
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "sendRaw",
        kwargs: &[],
        body: |sys, engine, call| {
            let plan = call.arg("plan").cloned().unwrap_or_default();
            sys.send_plan(engine, call, plan, false, 0)
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "isReady",
        kwargs: &[],
        body: |sys, engine, call| {
            let timeout = given(call, "timeout")
                .and_then(Value::as_int)
                .unwrap_or(100);
            sys.send_plan(engine, call, ready_plan(), true, timeout)?;
            Ok(Value::Bool(true))
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "waitReady",
        kwargs: &[],
        body: |sys, engine, call| {
            let timeout = given(call, "timeout")
                .and_then(Value::as_int)
                .unwrap_or(100);
            sys.send_plan(engine, call, ready_plan(), true, timeout)?;
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "queueName",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            match sys.state(&id) {
                Some(NativeState::Agent { queue, .. }) => Ok(s(&queue)),
                _ => Ok(Value::Null),
            }
        },
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "signingKey",
        kwargs: &[],
        body: |_, _, _| Ok(s("")),
    },
    Spec {
        class: "io.murano.system.Agent",
        method: "buildExecutionPlan",
        kwargs: &[],
        body: |sys, engine, call| sys.build(engine, call, "buildExecutionPlan"),
    },
];

impl SystemClasses {
    pub(super) fn find_environment(&self, engine: &Engine, host: &Value) -> String {
        let mut cur = engine.owner(host);
        let mut steps = 0;
        while let Some(o) = cur {
            if engine.is_instance_of(&o, "io.murano.Environment") {
                return engine.object_id(&o).unwrap_or_default();
            }
            steps += 1;
            if steps > 10_000 {
                break;
            }
            cur = engine.owner(&o);
        }
        lock(&self.inner.environment).clone()
    }

    pub(super) fn send_plan(
        &self,
        engine: &Engine,
        call: &NativeCall<'_>,
        plan: Value,
        wait_results: bool,
        timeout: i64,
    ) -> Result<Value, EngineError> {
        let id = Self::this_id(engine, call)?;
        let Some(NativeState::Agent { queue, host, .. }) = self.state(&id) else {
            return Err(EngineError::dsl(
                "DslInvalidOperationError",
                "the Agent object was not initialised",
            ));
        };
        let has_id = matches!(&plan, Value::Dict(d) if d.contains_key(&s("ID")));
        if !has_id {
            // Murano's message id (uuid4) for plans without one.
            let _ = self.inner.host.generate_id();
        }
        if self.recording_on() {
            let encoded = encode(engine, &plan);
            let mut rec = lock(&self.inner.rec);
            let call_index = rec.last_call();
            if rec.agent_plans.len() < MAX_RECORDS {
                rec.agent_plans.push(json!({
                    "queue": queue,
                    "host": host,
                    "wait_results": wait_results,
                    "timeout": timeout,
                    "plan": encoded,
                    "call_index": call_index,
                }));
            }
        }
        let result = self
            .inner
            .host
            .agent_send(&queue, &host, &plan, wait_results, timeout)
            .map_err(host_error)?;
        if !wait_results || !result.truthy() {
            return Ok(Value::Null);
        }
        process_result(&result).map_err(host_error)
    }

    /// Murano's `build_execution_plan` for the method `method` (which
    /// names the method in the error for a `resources` that is not a
    /// `Resources` object).
    pub(super) fn build(
        &self,
        engine: &Engine,
        call: &NativeCall<'_>,
        method: &str,
    ) -> Result<Value, EngineError> {
        let id = Self::this_id(engine, call)?;
        let template = call.arg("template").cloned().unwrap_or_default();
        let resources = call.arg("resources").cloned().unwrap_or_default();
        let resources_id = engine.object_view(&resources).map(|v| v.id);
        let package = resources_id
            .as_ref()
            .and_then(|id| match self.state(id) {
                Some(NativeState::Resources { package }) => Some(package),
                _ => None,
            })
            .ok_or_else(|| {
                // Murano's `MuranoObjectParameter('io.murano.system.Resources')`
                // refuses anything but such an object (a class too).
                EngineError::new(
                    ErrorKind::Yaql(murano_yaql::eval::ErrorKind::NoMatchingMethod),
                    format!("No method \"{method}\" matches supplied arguments"),
                )
            })?;
        let stamp = match self.state(&id) {
            Some(NativeState::Agent { queue, host, stamp }) => {
                self.set_state(
                    &id,
                    NativeState::Agent {
                        queue,
                        host,
                        stamp: stamp + 1,
                    },
                );
                stamp + 1
            }
            _ => {
                return Err(EngineError::dsl(
                    "DslInvalidOperationError",
                    "the Agent object was not initialised",
                ))
            }
        };
        struct Env<'a> {
            sys: &'a SystemClasses,
            package: String,
            receiver: Json,
        }
        impl PlanEnv for Env<'_> {
            fn read(&mut self, path: &str, binary: bool) -> Result<Vec<u8>, HostError> {
                // Murano reads through the Resources object: a host call.
                let kwargs = if binary {
                    json!({"binary": true})
                } else {
                    json!({})
                };
                let index = self.sys.push_call(json!({
                    "class": "io.murano.system.Resources",
                    "method": "string",
                    "receiver": self.receiver,
                    "args": [path],
                    "kwargs": kwargs,
                }));
                let r = self.sys.read_resource(&self.package, path).map_err(|e| {
                    HostError::new(e.python_type(), e.python_module(), e.message.clone())
                });
                let outcome = match &r {
                    Ok(_) => ("result", json!({"$omitted": "str"})),
                    Err(e) => ("raised", json!({"type": e.type_name, "message": e.message})),
                };
                self.sys.finish_call(index, outcome);
                r
            }
            fn new_id(&mut self) -> String {
                self.sys.inner.host.generate_id()
            }
        }
        let receiver = resources_id.map_or(Json::Null, Json::String);
        let mut env = Env {
            sys: self,
            package,
            receiver,
        };
        build_plan(&template, stamp, &mut env).map_err(host_error)
    }
}
