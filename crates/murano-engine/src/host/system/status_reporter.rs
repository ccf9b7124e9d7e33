//! `io.murano.system.StatusReporter`: status reports of the deployment.

use super::declare::{arg, class, method, SystemClass};
use super::*;

/// The MuranoPL declaration of the class's native methods.
pub(super) const CLASS: SystemClass = class(
    "io.murano.system.StatusReporter",
    &[
        method(".init", &[arg("environment")]).nothing(),
        method("report", &[arg("instance"), arg("msg")]).nothing(),
        method("report_error", &[arg("instance"), arg("msg")]).nothing(),
        method("reportError", &[arg("instance"), arg("msg")]).nothing(),
    ],
);

/// The native methods.
pub(super) static SPECS: &[Spec] = &[
    Spec {
        class: "io.murano.system.StatusReporter",
        method: ".init",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            let environment = env_id(engine, call.arg("environment"));
            sys.set_state(&id, NativeState::Reporter { environment });
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.StatusReporter",
        method: "report",
        kwargs: &[],
        body: |sys, engine, call| status(sys, engine, call, "info"),
    },
    Spec {
        class: "io.murano.system.StatusReporter",
        method: "report_error",
        kwargs: &[],
        body: |sys, engine, call| status(sys, engine, call, "error"),
    },
    Spec {
        class: "io.murano.system.StatusReporter",
        method: "reportError",
        kwargs: &[],
        body: |sys, engine, call| status(sys, engine, call, "error"),
    },
];
