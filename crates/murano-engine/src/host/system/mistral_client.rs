//! `io.murano.system.MistralClient`: Mistral workflows, through the host.

use super::*;

/// The MuranoPL declaration of the class's native methods.
pub(super) const DECLARATION: (&str, &str) = (
    "io.murano.system.MistralClient",
    "Methods:
  .init:
    Arguments: [{regionName: {Contract: $, Default: \"\\0murano-host:unset\"}}]
  upload: {Scope: Public, Arguments: [{definition: {Contract: $}}]}
  run:
    Scope: Public
    Arguments:
      - name: {Contract: $}
      - timeout: {Contract: $, Default: \"\\0murano-host:unset\"}
      - inputs: {Contract: $, Default: \"\\0murano-host:unset\"}
      - params: {Contract: $, Default: \"\\0murano-host:unset\"}
",
);

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
