//! [`OfflineHost`]: a deterministic cloud without a cloud (the deploy
//! oracle's offline host: ids from a counter, cyclic random names, a fake
//! Heat that keeps what is pushed and makes up outputs, agents that answer
//! null, fixed Neutron data).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use murano_yaql::eval::{Dict, Value};

use super::{HeatOp, Host, HostError, NetworkQuery, StackData};
use crate::base::sync::lock;

/// What [`OfflineHost`] answers where its answer is arbitrary.
#[derive(Debug, Clone, PartialEq)]
pub struct OfflineOptions {
    /// The project id.
    pub project_id: String,
    /// The user id.
    pub user_id: String,
    /// The address every instance gets (`10.0.0.10`).
    pub fixed_ip: String,
    /// The floating address every instance gets (`172.24.4.10`).
    pub floating_ip: String,
    /// The default router (`router-0001`).
    pub router: String,
    /// The external network (`net-external`).
    pub external_network: String,
    /// DNS servers for IPv4 (`["8.8.8.8"]`).
    pub dns: Vec<String>,
    /// Replies of the agents to plans sent with `call` (in order; null
    /// once exhausted, and by default).
    pub agent_results: Vec<Value>,
    /// A word ids and random names are made from (`shop`: ids
    /// `shop-0001`, `shop-0002`…, names `shop1`, `shop2`…), for output
    /// people read. `None` (the default) gives the deploy oracle's
    /// (`feed0000000000000000000000000001`, `abcdej5399reo1`), which the
    /// conformance suites compare with.
    pub naming: Option<String>,
}

impl Default for OfflineOptions {
    fn default() -> Self {
        OfflineOptions {
            project_id: "b3b1a1a0c0d94f7e8a5e0d2f4c6a8e01".into(),
            user_id: "u0000000000000000000000000000001".into(),
            fixed_ip: "10.0.0.10".into(),
            floating_ip: "172.24.4.10".into(),
            router: "router-0001".into(),
            external_network: "net-external".into(),
            dns: vec!["8.8.8.8".into()],
            agent_results: Vec::new(),
            naming: None,
        }
    }
}

#[derive(Default)]
struct State {
    ids: u64,
    names: u64,
    letters: u64,
    cidrs: u64,
    stacks: HashMap<(String, String), StackData>,
    agent_results: VecDeque<Value>,
}

/// The offline host (see the module documentation). Every answer depends
/// only on the calls made before, so a deployment is reproducible.
#[derive(Clone)]
pub struct OfflineHost {
    options: Arc<OfflineOptions>,
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for OfflineHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfflineHost")
            .field("options", &self.options)
            .finish()
    }
}

impl Default for OfflineHost {
    fn default() -> Self {
        OfflineHost::new(OfflineOptions::default())
    }
}

fn s(text: &str) -> Value {
    Value::str(text)
}

fn dict(pairs: Vec<(&str, Value)>) -> Value {
    let mut d = Dict::default();
    for (k, v) in pairs {
        d.insert(s(k), v);
    }
    Value::Dict(Arc::new(d))
}

fn list(items: Vec<Value>) -> Value {
    Value::List(Arc::new(items))
}

/// The fixed clock of random names (1 500 000 000 000 ms).
const CLOCK_MS: u64 = 1_500_000_000_000;

impl OfflineHost {
    /// An offline host with these answers.
    pub fn new(options: OfflineOptions) -> OfflineHost {
        let state = State {
            agent_results: options.agent_results.iter().cloned().collect(),
            ..State::default()
        };
        OfflineHost {
            options: Arc::new(options),
            state: Arc::new(Mutex::new(state)),
        }
    }

    /// The stacks the fake Heat holds (region, name) → data.
    pub fn stacks(&self) -> Vec<((String, String), StackData)> {
        let st = lock(&self.state);
        let mut out: Vec<_> = st
            .stacks
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    fn subnet(&self, id: &str, name: &str, net: &str, cidr: &str, tenant: &str) -> Value {
        let gateway = format!("{}.1", cidr.rsplit_once('.').map_or(cidr, |(a, _)| a));
        dict(vec![
            ("id", s(id)),
            ("name", s(name)),
            ("network_id", s(net)),
            ("cidr", s(cidr)),
            ("ip_version", Value::Int(4)),
            ("gateway_ip", s(&gateway)),
            ("dns_nameservers", list(vec![])),
            ("tenant_id", s(tenant)),
        ])
    }

    fn network_value(
        &self,
        id: &str,
        name: &str,
        external: bool,
        subnets: &[&str],
        tenant: &str,
    ) -> Value {
        dict(vec![
            ("id", s(id)),
            ("name", s(name)),
            ("router:external", Value::Bool(external)),
            ("subnets", list(subnets.iter().map(|n| s(n)).collect())),
            ("tenant_id", s(tenant)),
            ("status", s("ACTIVE")),
            ("admin_state_up", Value::Bool(true)),
            ("shared", Value::Bool(false)),
        ])
    }

    fn port(&self, id: &str, owner: &str, net: &str, subnet: &str, ip: &str) -> Value {
        dict(vec![
            ("id", s(id)),
            ("device_owner", s(owner)),
            ("device_id", s(&self.options.router)),
            ("network_id", s(net)),
            (
                "fixed_ips",
                list(vec![dict(vec![
                    ("subnet_id", s(subnet)),
                    ("ip_address", s(ip)),
                ])]),
            ),
        ])
    }

    /// The made-up value of one output (`value` of an `outputs` entry).
    fn output_value(&self, stack: &str, key: &str, value: &Value, params: &Value) -> Value {
        let get = |d: &Dict, k: &str| d.get(&s(k)).cloned();
        match value {
            Value::Dict(d) if d.len() == 1 => {
                if let Some(attr) = get(d, "get_attr") {
                    let parts: Vec<String> = attr
                        .as_slice()
                        .map(|p| p.iter().map(Value::py_str).collect())
                        .unwrap_or_default();
                    let fixed = &self.options.fixed_ip;
                    return match parts.get(1).map(String::as_str) {
                        Some("addresses") => list(vec![dict(vec![
                            ("addr", s(fixed)),
                            ("version", Value::Int(4)),
                            ("OS-EXT-IPS:type", s("fixed")),
                        ])]),
                        Some("networks") if parts.len() == 2 => {
                            dict(vec![("private", list(vec![s(fixed)]))])
                        }
                        Some("floating_ip_address" | "PublicIp") if parts.len() == 2 => {
                            s(&self.options.floating_ip)
                        }
                        Some("first_address" | "PrivateIp" | "ip_address") if parts.len() == 2 => {
                            s(fixed)
                        }
                        _ => s(&parts.join(".")),
                    };
                }
                if let Some(r) = get(d, "get_resource") {
                    return s(&format!("id-{}", r.py_str()));
                }
                if let Some(p) = get(d, "get_param") {
                    return match params {
                        Value::Dict(pd) => pd.get(&p).cloned().unwrap_or(Value::Null),
                        _ => Value::Null,
                    };
                }
                s(&format!("{stack}.{key}"))
            }
            Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => {
                value.clone()
            }
            _ => s(&format!("{stack}.{key}")),
        }
    }
}

impl Host for OfflineHost {
    fn generate_id(&self) -> String {
        let mut st = lock(&self.state);
        st.ids += 1;
        match &self.options.naming {
            Some(word) => format!("{word}-{:04}", st.ids),
            None => format!("feed0000000000000000{:012x}", st.ids),
        }
    }

    fn random_name(&self) -> String {
        let mut st = lock(&self.state);
        if let Some(word) = &self.options.naming {
            st.names += 1;
            return format!("{word}{}", st.names);
        }
        let mut prefix = String::new();
        for _ in 0..5 {
            prefix.push((b'a' + (st.letters % 26) as u8) as char);
            st.letters += 1;
        }
        st.names += 1;
        murano_dsl::functions::random_name(&prefix, CLOCK_MS, st.names)
    }

    fn config(&self) -> Value {
        Value::Dict(Arc::new(super::system::config::defaults(
            super::system::config::ConfigSet::Deploy,
        )))
    }

    fn heat_stack(&self, region: &str, name: &str) -> Result<Option<StackData>, HostError> {
        let st = lock(&self.state);
        Ok(st
            .stacks
            .get(&(region.to_owned(), name.to_owned()))
            .cloned())
    }

    fn heat_apply(
        &self,
        op: HeatOp,
        region: &str,
        name: &str,
        data: Option<&StackData>,
    ) -> Result<(), HostError> {
        let mut st = lock(&self.state);
        let key = (region.to_owned(), name.to_owned());
        match (op, data) {
            (HeatOp::Delete, _) => {
                st.stacks.remove(&key);
            }
            (_, Some(d)) => {
                st.stacks.insert(key, d.clone());
            }
            (_, None) => {}
        }
        Ok(())
    }

    fn heat_outputs(&self, region: &str, name: &str) -> Result<Value, HostError> {
        let data = lock(&self.state)
            .stacks
            .get(&(region.to_owned(), name.to_owned()))
            .cloned();
        let Some(data) = data else {
            return Ok(Value::Dict(Default::default()));
        };
        let mut out = Dict::default();
        if let Value::Dict(t) = &data.template {
            let outputs = t.get(&s("outputs")).or_else(|| t.get(&s("Outputs")));
            if let Some(Value::Dict(o)) = outputs {
                for (k, v) in o.iter() {
                    let value = match v {
                        Value::Dict(e) => e.get(&s("value")).cloned().unwrap_or(Value::Null),
                        _ => Value::Null,
                    };
                    let key = k.py_str();
                    out.insert(
                        k.clone(),
                        self.output_value(name, &key, &value, &data.parameters),
                    );
                }
            }
        }
        Ok(Value::Dict(Arc::new(out)))
    }

    fn agent_send(
        &self,
        _queue: &str,
        _host: &str,
        _plan: &Value,
        wait_results: bool,
        _timeout: i64,
    ) -> Result<Value, HostError> {
        if !wait_results {
            return Ok(Value::Null);
        }
        Ok(lock(&self.state)
            .agent_results
            .pop_front()
            .unwrap_or(Value::Null))
    }

    fn network(&self, query: NetworkQuery<'_>) -> Result<Value, HostError> {
        let o = &self.options;
        Ok(match query {
            NetworkQuery::DefaultRouter => s(&o.router),
            NetworkQuery::AvailableCidr { .. } => {
                let mut st = lock(&self.state);
                st.cidrs += 1;
                s(&format!("10.0.{}.0/24", 100 + st.cidrs))
            }
            NetworkQuery::DefaultDns { ip_version } => {
                if ip_version.as_int() == Some(4) {
                    list(o.dns.iter().map(|d| s(d)).collect())
                } else {
                    list(vec![])
                }
            }
            NetworkQuery::ExternalNetworkForRouter(_)
            | NetworkQuery::ExternalNetworkForNetwork(_) => s(&o.external_network),
            NetworkQuery::NeutronExtensions => list(
                [
                    "agent",
                    "allowed-address-pairs",
                    "external-net",
                    "port-security",
                    "quotas",
                    "router",
                    "security-group",
                ]
                .iter()
                .map(|a| dict(vec![("alias", s(a)), ("name", s(a))]))
                .collect(),
            ),
            NetworkQuery::Networks => list(vec![
                self.network_value(
                    "net-private",
                    "private",
                    false,
                    &["subnet-private-a", "subnet-private-b"],
                    &o.project_id,
                ),
                self.network_value(
                    &o.external_network,
                    "ext-net",
                    true,
                    &["subnet-external"],
                    "admin-project",
                ),
                self.network_value(
                    "net-env1",
                    "env1-network-5e4b2a",
                    false,
                    &["subnet-env1"],
                    &o.project_id,
                ),
            ]),
            NetworkQuery::Subnetworks => list(vec![
                self.subnet(
                    "subnet-private-a",
                    "private-subnet",
                    "net-private",
                    "10.0.0.0/24",
                    &o.project_id,
                ),
                self.subnet(
                    "subnet-private-b",
                    "",
                    "net-private",
                    "10.0.1.0/24",
                    &o.project_id,
                ),
                self.subnet(
                    "subnet-external",
                    "ext-subnet",
                    &o.external_network,
                    "172.24.4.0/24",
                    "admin-project",
                ),
                self.subnet(
                    "subnet-env1",
                    "env1-subnet",
                    "net-env1",
                    "10.10.0.0/24",
                    &o.project_id,
                ),
            ]),
            NetworkQuery::Ports => list(vec![
                self.port(
                    "port-router-private",
                    "network:router_interface",
                    "net-private",
                    "subnet-private-a",
                    "10.0.0.1",
                ),
                self.port(
                    "port-router-gateway",
                    "network:router_gateway",
                    &o.external_network,
                    "subnet-external",
                    "172.24.4.2",
                ),
            ]),
        })
    }

    fn current_user(&self) -> Result<Value, HostError> {
        Ok(dict(vec![
            ("id", s(&self.options.user_id)),
            ("name", s("demo")),
            ("domain", s("default")),
            ("email", s("demo@example.com")),
            ("extra", dict(vec![])),
        ]))
    }

    fn current_project(&self) -> Result<Value, HostError> {
        Ok(dict(vec![
            ("id", s(&self.options.project_id)),
            ("name", s("demo")),
            ("domain", s("default")),
            ("description", s("oracle project")),
            ("extra", dict(vec![])),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_hosts_make_ids_and_names_from_their_word() {
        let h = OfflineHost::new(OfflineOptions {
            naming: Some("shop".into()),
            ..OfflineOptions::default()
        });
        assert_eq!(h.generate_id(), "shop-0001");
        assert_eq!(h.random_name(), "shop1");
        assert_eq!(h.generate_id(), "shop-0002");
        assert_eq!(h.random_name(), "shop2");
    }

    #[test]
    fn random_names_cycle_letters_and_count() {
        let h = OfflineHost::default();
        assert_eq!(h.random_name(), "abcdej5399reo1");
        assert_eq!(h.random_name(), "fghijj5399reo2");
        for _ in 0..3 {
            h.random_name();
        }
        // 25 letters used: the sixth name wraps from z to a.
        assert_eq!(h.random_name(), "zabcdj5399reo6");
    }

    #[test]
    fn ids_come_from_a_counter() {
        let h = OfflineHost::default();
        assert_eq!(h.generate_id(), "feed0000000000000000000000000001");
        assert_eq!(h.generate_id(), "feed0000000000000000000000000002");
    }

    #[test]
    fn cidrs_are_numbered_per_host() {
        let h = OfflineHost::default();
        let q = NetworkQuery::AvailableCidr {
            router: &Value::Null,
            network: &Value::Null,
            ip_version: &Value::Int(4),
        };
        assert_eq!(h.network(q).unwrap(), s("10.0.101.0/24"));
        assert_eq!(h.network(q).unwrap(), s("10.0.102.0/24"));
    }
}
