//! `io.murano.system.NetworkExplorer`: Neutron questions, answered by the host.

use super::declare::{arg, class, method, opt, SystemClass};
use super::*;

/// The MuranoPL declaration of the class's native methods.
pub(super) const CLASS: SystemClass = class(
    "io.murano.system.NetworkExplorer",
    &[
        method(".init", &[opt("regionName", "null")]).nothing(),
        method("getDefaultRouter", &[]).cloud(),
        method(
            "getAvailableCidr",
            &[arg("routerId"), arg("netId"), opt("ipVersion", "4")],
        )
        .cloud(),
        method("getDefaultDns", &[opt("ipVersion", "4")]).cloud(),
        method("getExternalNetworkIdForRouter", &[arg("routerId")]).cloud(),
        method("getExternalNetworkIdForNetwork", &[arg("networkId")]).cloud(),
        method("listNetworks", &[]).cloud(),
        method("listSubnetworks", &[]).cloud(),
        method("listPorts", &[]).cloud(),
        method("listNeutronExtensions", &[]).cloud(),
    ],
)
.service("Neutron");

/// The native methods.
pub(super) static SPECS: &[Spec] = &[
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: ".init",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "getDefaultRouter",
        kwargs: &[],
        body: |sys, _, _| network(sys, NetworkQuery::DefaultRouter),
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "getAvailableCidr",
        kwargs: &[],
        body: |sys, _, call| {
            let four = Value::Int(4);
            network(
                sys,
                NetworkQuery::AvailableCidr {
                    router: arg_or_null(call, "routerId"),
                    network: arg_or_null(call, "netId"),
                    ip_version: given(call, "ipVersion").unwrap_or(&four),
                },
            )
        },
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "getDefaultDns",
        kwargs: &[],
        body: |sys, _, call| {
            let four = Value::Int(4);
            network(
                sys,
                NetworkQuery::DefaultDns {
                    ip_version: given(call, "ipVersion").unwrap_or(&four),
                },
            )
        },
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "getExternalNetworkIdForRouter",
        kwargs: &[],
        body: |sys, _, call| {
            network(
                sys,
                NetworkQuery::ExternalNetworkForRouter(arg_or_null(call, "routerId")),
            )
        },
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "getExternalNetworkIdForNetwork",
        kwargs: &[],
        body: |sys, _, call| {
            network(
                sys,
                NetworkQuery::ExternalNetworkForNetwork(arg_or_null(call, "networkId")),
            )
        },
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "listNetworks",
        kwargs: &[],
        body: |sys, _, _| network(sys, NetworkQuery::Networks),
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "listSubnetworks",
        kwargs: &[],
        body: |sys, _, _| network(sys, NetworkQuery::Subnetworks),
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "listPorts",
        kwargs: &[],
        body: |sys, _, _| network(sys, NetworkQuery::Ports),
    },
    Spec {
        class: "io.murano.system.NetworkExplorer",
        method: "listNeutronExtensions",
        kwargs: &[],
        body: |sys, _, _| network(sys, NetworkQuery::NeutronExtensions),
    },
];
