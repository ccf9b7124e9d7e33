//! `io.murano.system.InstanceNotifier`: instance notifications, recorded as
//! reports.

use super::declare::{arg, class, method, opt, SystemClass};
use super::*;

/// The MuranoPL declaration of the class's native methods.
pub(super) const CLASS: SystemClass = class(
    "io.murano.system.InstanceNotifier",
    &[
        method(".init", &[arg("environment")]).nothing(),
        method(
            "trackApplication",
            &[
                arg("instance"),
                opt("title", "null"),
                opt("unitCount", "null"),
            ],
        )
        .nothing(),
        method("untrackApplication", &[arg("instance")]).nothing(),
        method("trackCloudInstance", &[arg("instance")]).nothing(),
        method("untrackCloudInstance", &[arg("instance")]).nothing(),
    ],
);

/// The native methods.
pub(super) static SPECS: &[Spec] = &[
    Spec {
        class: "io.murano.system.InstanceNotifier",
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
        class: "io.murano.system.InstanceNotifier",
        method: "trackApplication",
        kwargs: &[],
        body: |sys, engine, call| track(sys, engine, call, "murano.track_instance", 100, false),
    },
    Spec {
        class: "io.murano.system.InstanceNotifier",
        method: "untrackApplication",
        kwargs: &[],
        body: |sys, engine, call| track(sys, engine, call, "murano.untrack_instance", 100, false),
    },
    Spec {
        class: "io.murano.system.InstanceNotifier",
        method: "trackCloudInstance",
        kwargs: &[],
        body: |sys, engine, call| track(sys, engine, call, "murano.track_instance", 200, true),
    },
    Spec {
        class: "io.murano.system.InstanceNotifier",
        method: "untrackCloudInstance",
        kwargs: &[],
        body: |sys, engine, call| track(sys, engine, call, "murano.untrack_instance", 200, true),
    },
];
