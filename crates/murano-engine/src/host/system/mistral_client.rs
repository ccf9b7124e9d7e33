//! `io.murano.system.MistralClient`: Mistral workflows, through the host.

use super::declare::{arg, class, method, opt, HostProfile, SystemClass};
use super::*;

/// The MuranoPL declaration of the class's native methods.
pub(super) const CLASS: SystemClass = class(
    "io.murano.system.MistralClient",
    &[
        method(".init", &[opt("regionName", "null")]),
        method("upload", &[arg("definition")]),
        method(
            "run",
            &[
                arg("name"),
                opt("timeout", "600"),
                opt("inputs", "null"),
                opt("params", "null"),
            ],
        ),
    ],
)
.only(HostProfile::Offline);

/// The native methods.
pub(super) static SPECS: &[Spec] = &[
    Spec {
        class: "io.murano.system.MistralClient",
        method: ".init",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.system.MistralClient",
        method: "upload",
        kwargs: &[],
        body: |sys, _, call| {
            sys.inner
                .host
                .mistral_upload(arg_or_null(call, "definition"))
                .map_err(host_error)
        },
    },
    Spec {
        class: "io.murano.system.MistralClient",
        method: "run",
        kwargs: &[],
        body: |sys, _, call| {
            let default_timeout = Value::Int(600);
            sys.inner
                .host
                .mistral_run(
                    arg_or_null(call, "name"),
                    given(call, "timeout").unwrap_or(&default_timeout),
                    arg_or_null(call, "inputs"),
                    arg_or_null(call, "params"),
                )
                .map_err(host_error)
        },
    },
];
