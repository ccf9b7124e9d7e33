//! `io.murano.system.StatusReporter`: status reports of the deployment.

use super::*;

/// The MuranoPL declaration of the class's native methods.
pub(super) const DECLARATION: (&str, &str) = (
    "io.murano.system.StatusReporter",
    "Methods:
  .init:
    Arguments: [{environment: {Contract: $}}]
  report: {Scope: Public, Arguments: [{instance: {Contract: $}}, {msg: {Contract: $}}]}
  report_error: {Scope: Public, Arguments: [{instance: {Contract: $}}, {msg: {Contract: $}}]}
  reportError: {Scope: Public, Arguments: [{instance: {Contract: $}}, {msg: {Contract: $}}]}
",
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
