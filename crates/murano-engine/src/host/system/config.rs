//! Murano's configuration defaults (`murano/common/config.py`) as
//! `config()` reads them: one table for every host, each host choosing
//! which of the options it answers ([`ConfigSet`]).

use std::sync::Arc;

use murano_yaql::eval::{Dict, Value};

/// Which of Murano's options a host's `config()` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConfigSet {
    /// What a deployment reads ([`crate::host::OfflineHost`]): the agent's
    /// options, not the networking ones.
    Deploy,
    /// What a test run with an empty `murano.conf` sees
    /// ([`crate::host::NoCloudHost`]): the message queue's and the
    /// networking options, not the agent's timeout and switch.
    TestRun,
}

/// An option's default.
#[derive(Clone, Copy)]
enum Default {
    Null,
    Str(&'static str),
    Int(i64),
    Bool(bool),
}

/// Which sets hold an option.
#[derive(Clone, Copy)]
enum In {
    Both,
    Deploy,
    TestRun,
}

/// `(group, option, default, sets)`; group `""` is `DEFAULT` (options at
/// the top level), in the order `config()` lists them.
const DEFAULTS: &[(&str, &str, Default, In)] = &[
    ("", "home_region", Default::Null, In::Both),
    ("", "file_server", Default::Str(""), In::Both),
    ("rabbitmq", "host", Default::Str("localhost"), In::Both),
    ("rabbitmq", "port", Default::Int(5672), In::Both),
    ("rabbitmq", "login", Default::Str("guest"), In::Both),
    ("rabbitmq", "password", Default::Str("guest"), In::Both),
    ("rabbitmq", "virtual_host", Default::Str("/"), In::Both),
    ("rabbitmq", "ssl", Default::Bool(false), In::Both),
    ("rabbitmq", "ssl_version", Default::Str(""), In::TestRun),
    ("rabbitmq", "ca_certs", Default::Str(""), In::Both),
    ("rabbitmq", "insecure", Default::Bool(false), In::TestRun),
    (
        "engine",
        "agent_source",
        Default::Str("murano-agent"),
        In::Both,
    ),
    ("engine", "agent_timeout", Default::Int(3600), In::Deploy),
    (
        "engine",
        "disable_murano_agent",
        Default::Bool(false),
        In::Deploy,
    ),
    (
        "networking",
        "max_environments",
        Default::Int(250),
        In::TestRun,
    ),
    ("networking", "max_hosts", Default::Int(250), In::TestRun),
    (
        "networking",
        "env_ip_template",
        Default::Str("10.0.0.0"),
        In::TestRun,
    ),
    (
        "networking",
        "external_network",
        Default::Str("ext-net"),
        In::TestRun,
    ),
    (
        "networking",
        "router_name",
        Default::Str("murano-default-router"),
        In::TestRun,
    ),
    (
        "networking",
        "create_router",
        Default::Bool(true),
        In::TestRun,
    ),
    (
        "networking",
        "network_config_file",
        Default::Str("netconfig.yaml"),
        In::TestRun,
    ),
];

/// Murano's option defaults of `set` as `Engine::set_config` takes them:
/// `{group: {option: value}}`, options without a group at the top level.
pub(crate) fn defaults(set: ConfigSet) -> Dict {
    let mut top = Dict::default();
    for (group, option, value, sets) in DEFAULTS {
        let wanted = match sets {
            In::Both => true,
            In::Deploy => set == ConfigSet::Deploy,
            In::TestRun => set == ConfigSet::TestRun,
        };
        if !wanted {
            continue;
        }
        let value = match *value {
            Default::Null => Value::Null,
            Default::Str(s) => Value::str(s),
            Default::Int(n) => Value::Int(n),
            Default::Bool(b) => Value::Bool(b),
        };
        if group.is_empty() {
            top.insert(Value::str(option), value);
            continue;
        }
        let key = Value::str(group);
        let mut inner = match top.get(&key) {
            Some(Value::Dict(d)) => (**d).clone(),
            _ => Dict::default(),
        };
        inner.insert(Value::str(option), value);
        top.insert(key, Value::Dict(Arc::new(inner)));
    }
    top
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(d: &'a Dict, group: &str, option: &str) -> Option<&'a Value> {
        match d.get(&Value::str(group))? {
            Value::Dict(g) => g.get(&Value::str(option)),
            _ => None,
        }
    }

    #[test]
    fn each_set_holds_its_options_with_shared_defaults() {
        let deploy = defaults(ConfigSet::Deploy);
        let test = defaults(ConfigSet::TestRun);
        assert_eq!(get(&deploy, "rabbitmq", "port"), Some(&Value::Int(5672)));
        assert_eq!(get(&test, "rabbitmq", "port"), Some(&Value::Int(5672)));
        assert_eq!(
            get(&deploy, "engine", "agent_timeout"),
            Some(&Value::Int(3600))
        );
        assert_eq!(get(&test, "engine", "agent_timeout"), None);
        assert!(deploy.get(&Value::str("networking")).is_none());
        assert_eq!(
            get(&test, "networking", "max_hosts"),
            Some(&Value::Int(250))
        );
        assert_eq!(test.get(&Value::str("home_region")), Some(&Value::Null));
    }
}
