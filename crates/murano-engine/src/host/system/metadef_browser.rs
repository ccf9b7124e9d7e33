//! `io.murano.system.MetadefBrowser`: Glance's metadata definitions,
//! through the host.

use super::declare::{arg, class, method, HostProfile, SystemClass};
use super::*;

/// The MuranoPL declaration of the class's native methods.
pub(super) const CLASS: SystemClass = class(
    "io.murano.system.MetadefBrowser",
    &[
        method(".init", &[]),
        method("getNamespaces", &[arg("resourceType")]),
        method("getObjects", &[arg("namespace")]),
    ],
)
.only(HostProfile::Offline);

/// The native methods.
pub(super) static SPECS: &[Spec] = &[
    Spec {
        class: "io.murano.system.MetadefBrowser",
        method: ".init",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.system.MetadefBrowser",
        method: "getNamespaces",
        kwargs: &[],
        body: |sys, _, call| {
            sys.inner
                .host
                .metadef("namespaces", arg_or_null(call, "resourceType"))
                .map_err(host_error)
        },
    },
    Spec {
        class: "io.murano.system.MetadefBrowser",
        method: "getObjects",
        kwargs: &[],
        body: |sys, _, call| {
            sys.inner
                .host
                .metadef("objects", arg_or_null(call, "namespace"))
                .map_err(host_error)
        },
    },
];
