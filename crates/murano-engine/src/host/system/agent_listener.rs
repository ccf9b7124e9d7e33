//! `io.murano.system.AgentListener`: the listener of an agent's results queue.

use super::declare::{arg, class, method, SystemClass};
use super::*;

/// The MuranoPL declaration of the class's native methods.
pub(super) const CLASS: SystemClass = class(
    "io.murano.system.AgentListener",
    &[
        method(".init", &[arg("name")]),
        method("queueName", &[]),
        method("start", &[]).nothing(),
        method("stop", &[]).nothing(),
        method("subscribe", &[arg("messageId"), arg("event")]).nothing(),
        method("unsubscribe", &[arg("messageId")]).nothing(),
    ],
);

/// The native methods.
pub(super) static SPECS: &[Spec] = &[
    Spec {
        class: "io.murano.system.AgentListener",
        method: ".init",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            let name = call.arg("name").map(Value::py_str).unwrap_or_default();
            sys.set_state(
                &id,
                NativeState::Listener {
                    queue: format!("-execution-results-{}", name.to_lowercase()),
                },
            );
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.AgentListener",
        method: "queueName",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            match sys.state(&id) {
                Some(NativeState::Listener { queue }) => Ok(s(&queue)),
                _ => Ok(Value::Null),
            }
        },
    },
    Spec {
        class: "io.murano.system.AgentListener",
        method: "start",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.system.AgentListener",
        method: "stop",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.system.AgentListener",
        method: "subscribe",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.system.AgentListener",
        method: "unsubscribe",
        kwargs: &[],
        body: unit,
    },
];
