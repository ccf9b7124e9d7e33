//! The one set of system class declarations, as data: each class file
//! under `host/system/` lists its methods once, with Murano's defaults,
//! and [`HostProfile`] says how a host declares them (the offline host's
//! "not given" marker and public scope, or the no-cloud host's Murano
//! defaults and the methods only one of them has).

/// Which host the declarations are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HostProfile {
    /// [`crate::host::SystemClasses`] (deploys, `murano deploy`): optional
    /// arguments default to a "not given" marker so that host calls record
    /// only what the caller passed; methods are public.
    Offline,
    /// [`crate::host::NoCloudHost`] (the test runner, `murano run`):
    /// optional arguments default to Murano's defaults; methods keep
    /// MuranoPL's default scope.
    NoCloud,
}

/// One argument: its name and Murano's default (YAML text), if optional.
pub(super) struct Arg {
    pub(super) name: &'static str,
    pub(super) default: Option<&'static str>,
}

/// A required argument.
pub(super) const fn arg(name: &'static str) -> Arg {
    Arg {
        name,
        default: None,
    }
}

/// An optional argument with Murano's default `default` (YAML text).
pub(super) const fn opt(name: &'static str, default: &'static str) -> Arg {
    Arg {
        name,
        default: Some(default),
    }
}

/// What a method does in the no-cloud host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoCloudBody {
    /// The class's body, over the no-cloud host (which answers what it
    /// asks locally or with `CloudUnavailable`).
    Run,
    /// Needs the class's cloud service: a `CloudUnavailable` host error.
    Cloud,
    /// Nothing to do without a cloud: returns null.
    Nothing,
}

/// One native method.
pub(super) struct Method {
    pub(super) name: &'static str,
    pub(super) args: &'static [Arg],
    /// `Usage: Static`.
    pub(super) is_static: bool,
    /// Takes other keyword arguments too (`**`), for these hosts.
    pub(super) kwargs: Option<HostProfile>,
    /// Declared only by this host.
    pub(super) only: Option<HostProfile>,
    /// What it does in the no-cloud host.
    pub(super) no_cloud: NoCloudBody,
}

/// A method taking `args`.
pub(super) const fn method(name: &'static str, args: &'static [Arg]) -> Method {
    Method {
        name,
        args,
        is_static: false,
        kwargs: None,
        only: None,
        no_cloud: NoCloudBody::Run,
    }
}

impl Method {
    /// The method with `Usage: Static`.
    pub(super) const fn static_(self) -> Method {
        Method {
            is_static: true,
            ..self
        }
    }

    /// The method declared by `profile`'s host only.
    pub(super) const fn only(self, profile: HostProfile) -> Method {
        Method {
            only: Some(profile),
            ..self
        }
    }

    /// The method raising `CloudUnavailable` in the no-cloud host.
    pub(super) const fn cloud(self) -> Method {
        Method {
            no_cloud: NoCloudBody::Cloud,
            ..self
        }
    }

    /// The method doing nothing (null) in the no-cloud host.
    pub(super) const fn nothing(self) -> Method {
        Method {
            no_cloud: NoCloudBody::Nothing,
            ..self
        }
    }

    /// The method taking other keyword arguments in `profile`'s host.
    pub(super) const fn kwargs_in(self, profile: HostProfile) -> Method {
        Method {
            kwargs: Some(profile),
            ..self
        }
    }
}

/// One system class: its full name, its native methods, and the host it
/// is declared by when only one declares it.
pub(super) struct SystemClass {
    pub(super) name: &'static str,
    pub(super) methods: &'static [Method],
    pub(super) only: Option<HostProfile>,
    /// The cloud service its [`NoCloudBody::Cloud`] methods need, as the
    /// no-cloud host's errors name it.
    pub(super) service: &'static str,
}

/// The class `name` with `methods`, declared by every host.
pub(super) const fn class(name: &'static str, methods: &'static [Method]) -> SystemClass {
    SystemClass {
        name,
        methods,
        only: None,
        service: "",
    }
}

impl SystemClass {
    /// The class declared by `profile`'s host only.
    pub(super) const fn only(self, profile: HostProfile) -> SystemClass {
        SystemClass {
            only: Some(profile),
            ..self
        }
    }

    /// The class whose [`NoCloudBody::Cloud`] methods need `service`.
    pub(super) const fn service(self, service: &'static str) -> SystemClass {
        SystemClass { service, ..self }
    }

    /// Whether `profile`'s host declares the class.
    pub(super) fn in_profile(&self, profile: HostProfile) -> bool {
        self.only.is_none_or(|p| p == profile)
    }

    /// The class's `Methods:` section as `profile`'s host declares it
    /// (MuranoPL YAML without the `Name:` line).
    pub(super) fn render(&self, profile: HostProfile) -> String {
        let mut out = String::from("Methods:\n");
        for m in self.methods {
            if m.only.is_some_and(|p| p != profile) {
                continue;
            }
            let mut lines = Vec::new();
            if profile == HostProfile::Offline && m.name != ".init" {
                lines.push("    Scope: Public".to_owned());
            }
            if m.is_static {
                lines.push("    Usage: Static".to_owned());
            }
            let kwargs = m.kwargs == Some(profile);
            if !m.args.is_empty() || kwargs {
                lines.push("    Arguments:".to_owned());
                for a in m.args {
                    lines.push(match (a.default, profile) {
                        (None, _) => format!("      - {}: {{Contract: $}}", a.name),
                        (Some(_), HostProfile::Offline) => {
                            format!("      - {}: {{Contract: $, Default: {UNSET_YAML}}}", a.name)
                        }
                        (Some(d), HostProfile::NoCloud) => {
                            format!("      - {}: {{Contract: $, Default: {d}}}", a.name)
                        }
                    });
                }
                if kwargs {
                    lines.push("      - \"**\": {Usage: KwArgs}".to_owned());
                }
            }
            if lines.is_empty() {
                out.push_str(&format!("  {}: {{}}\n", m.name));
            } else {
                out.push_str(&format!("  {}:\n", m.name));
                for l in lines {
                    out.push_str(&l);
                    out.push('\n');
                }
            }
        }
        out
    }
}

/// [`super::UNSET`] as a YAML double-quoted scalar.
const UNSET_YAML: &str = "\"\\0murano-host:unset\"";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unset_marker_reads_back_as_the_natives_marker() {
        let text = format!("a: {UNSET_YAML}");
        let node = murano_dsl::yaml::load_single(
            text.as_bytes(),
            murano_dsl::yaml::Flavor::Plain,
            &Default::default(),
        )
        .unwrap()
        .unwrap();
        let value = murano_dsl::yaml::convert::to_yaql(
            &node,
            &murano_dsl::yaml::convert::ToYaql::contracts(),
        )
        .unwrap();
        let murano_yaql::eval::Value::Dict(d) = value else {
            panic!("a dict");
        };
        assert_eq!(
            d.get(&murano_yaql::eval::Value::str("a")),
            Some(&murano_yaql::eval::Value::str(super::super::UNSET))
        );
    }

    const DEMO: SystemClass = class(
        "io.murano.system.Demo",
        &[
            method(".init", &[arg("host")]),
            method("get", &[opt("timeout", "100")]).kwargs_in(HostProfile::Offline),
            method("plan", &[]).static_().only(HostProfile::NoCloud),
        ],
    );

    #[test]
    fn profiles_render_defaults_scopes_and_their_own_methods() {
        let offline = DEMO.render(HostProfile::Offline);
        assert!(
            offline.contains("Default: \"\\0murano-host:unset\""),
            "{offline}"
        );
        assert!(offline.contains("Scope: Public"), "{offline}");
        assert!(offline.contains("\"**\": {Usage: KwArgs}"), "{offline}");
        assert!(!offline.contains("plan"), "{offline}");
        let no_cloud = DEMO.render(HostProfile::NoCloud);
        assert!(no_cloud.contains("Default: 100"), "{no_cloud}");
        assert!(!no_cloud.contains("Scope"), "{no_cloud}");
        assert!(!no_cloud.contains("KwArgs"), "{no_cloud}");
        assert!(no_cloud.contains("plan:\n    Usage: Static"), "{no_cloud}");
        for text in [offline, no_cloud] {
            let full = format!("Name: {}\n{text}", DEMO.name);
            crate::ClassSetBuilder::parse_file(full.as_bytes(), "<demo>").unwrap();
        }
    }
}
