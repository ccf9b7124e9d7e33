//! `io.murano.User` and `io.murano.Project`: the current user and project,
//! from the host.

use super::declare::{class, method, HostProfile, SystemClass};
use super::*;

/// The MuranoPL declarations of the classes' native methods.
pub(super) const CLASSES: [SystemClass; 2] = [
    class(
        "io.murano.User",
        &[
            method("getCurrent", &[]).static_(),
            method("getEnvironmentOwner", &[]).static_(),
        ],
    )
    .only(HostProfile::Offline),
    class(
        "io.murano.Project",
        &[
            method("getCurrent", &[]).static_(),
            method("getEnvironmentOwner", &[]).static_(),
        ],
    )
    .only(HostProfile::Offline),
];

/// The native methods.
pub(super) static SPECS: &[Spec] = &[
    Spec {
        class: "io.murano.User",
        method: "getCurrent",
        kwargs: &[],
        body: |sys, engine, _| {
            let fields = sys.inner.host.current_user().map_err(host_error)?;
            sys.new_identity(engine, "io.murano.User", fields)
        },
    },
    Spec {
        class: "io.murano.User",
        method: "getEnvironmentOwner",
        kwargs: &[],
        body: |sys, engine, _| {
            let fields = sys.inner.host.current_user().map_err(host_error)?;
            sys.new_identity(engine, "io.murano.User", fields)
        },
    },
    Spec {
        class: "io.murano.Project",
        method: "getCurrent",
        kwargs: &[],
        body: |sys, engine, _| {
            let fields = sys.inner.host.current_project().map_err(host_error)?;
            sys.new_identity(engine, "io.murano.Project", fields)
        },
    },
    Spec {
        class: "io.murano.Project",
        method: "getEnvironmentOwner",
        kwargs: &[],
        body: |sys, engine, _| {
            let fields = sys.inner.host.current_project().map_err(host_error)?;
            sys.new_identity(engine, "io.murano.Project", fields)
        },
    },
];

impl SystemClasses {
    pub(super) fn new_identity(
        &self,
        engine: &Engine,
        class: &str,
        fields: Value,
    ) -> Result<Value, EngineError> {
        let mut header = Dict::default();
        header.insert(s("type"), s(class));
        header.insert(s("id"), s(&engine.generate_id()));
        let mut model = dict_of(&fields);
        for f in ["links", "parent_id", "enabled"] {
            model.shift_remove(&s(f));
        }
        model.insert(s("?"), Value::Dict(Arc::new(header)));
        let obj = engine.load_object(&Value::Dict(Arc::new(model)))?;
        // The host class's constructor, a host call of its own.
        let id = engine.object_view(&obj).map(|v| v.id).unwrap_or_default();
        let mut rec = lock(&self.inner.rec);
        if rec.host_calls.len() < MAX_RECORDS {
            rec.host_calls.push(json!({
                "class": class,
                "method": "__init__",
                "receiver": id,
                "args": [],
                "kwargs": {},
                "result": null,
            }));
        }
        Ok(obj)
    }
}
