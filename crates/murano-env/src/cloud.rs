//! The stateful offline cloud: the deploy oracle's offline host whose
//! state (the fake Heat's stacks, the id, random-name and CIDR counters)
//! lives on from one task of an environment to the next, as the
//! lifecycle oracle's README (§3.8) specifies. Floating IPs, servers and
//! ports are resources of the stored templates; their addresses follow
//! the outputs rule of the offline host.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use murano_engine::host::{
    decode, HeatOp, Host, HostError, NetworkQuery, OfflineHost, OfflineOptions, StackData,
};
use murano_yaql::eval::Value;
use serde_json::{json, Map, Value as Json};

/// Counters of the cloud (README §3.8 `counters`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counters {
    /// Generated ids drawn so far.
    pub uuid: u64,
    /// `getAvailableCidr` calls so far.
    pub cidr: u64,
    /// Letters `randomName()` drew so far (5 per name).
    pub letters: u64,
    /// Murano's random-string counter (`None` before the first name).
    pub random_counter: Option<u64>,
}

/// One stack the fake Heat holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredStack {
    /// The region (`""`: the default).
    pub region: String,
    /// Template, parameters, files and environment as pushed.
    pub data: StackData,
}

/// Everything the offline cloud keeps for one environment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CloudState {
    /// Stacks by name.
    pub heat: BTreeMap<String, StoredStack>,
    /// The counters.
    pub counters: Counters,
}

/// Why a cloud state could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cloud state: {0}")]
pub struct CloudStateError(pub String);

fn to_json(v: &Value) -> Json {
    murano_engine::deploy::value_to_json(v)
}

impl CloudState {
    /// The state as the oracle writes it (`{"heat": …, "counters": …}`),
    /// `outputs` of every stack derived by the outputs rule.
    pub fn to_json(&self) -> Json {
        let cloud = StatefulCloud::new(self.clone(), OfflineOptions::default());
        let mut heat = Map::new();
        for (name, s) in &self.heat {
            let outputs = cloud
                .inner
                .heat_outputs(&s.region, name)
                .map(|v| to_json(&v))
                .unwrap_or(Json::Null);
            heat.insert(
                name.clone(),
                json!({
                    "template": to_json(&s.data.template),
                    "parameters": to_json(&s.data.parameters),
                    "files": to_json(&s.data.files),
                    "environment": to_json(&s.data.environment),
                    "region": s.region,
                    "outputs": outputs,
                }),
            );
        }
        let c = &self.counters;
        json!({
            "heat": heat,
            "counters": {"uuid": c.uuid, "cidr": c.cidr, "letters": c.letters,
                         "random_counter": c.random_counter},
        })
    }

    /// A state from its JSON form ([`CloudState::to_json`]); `outputs`
    /// are derived again, not read.
    pub fn from_json(value: &Json) -> Result<CloudState, CloudStateError> {
        let err = |m: &str| CloudStateError(m.to_owned());
        let obj = value.as_object().ok_or_else(|| err("not a mapping"))?;
        let mut state = CloudState::default();
        if let Some(heat) = obj.get("heat") {
            let heat = heat
                .as_object()
                .ok_or_else(|| err("heat is not a mapping"))?;
            for (name, s) in heat {
                let field = |k: &str| s.get(k).map(decode).unwrap_or_default();
                state.heat.insert(
                    name.clone(),
                    StoredStack {
                        region: s.get("region").and_then(Json::as_str).unwrap_or("").into(),
                        data: StackData {
                            template: field("template"),
                            parameters: field("parameters"),
                            files: field("files"),
                            environment: field("environment"),
                        },
                    },
                );
            }
        }
        if let Some(c) = obj.get("counters") {
            let n = |k: &str| c.get(k).and_then(Json::as_u64).unwrap_or(0);
            state.counters = Counters {
                uuid: n("uuid"),
                cidr: n("cidr"),
                letters: n("letters"),
                random_counter: c.get("random_counter").and_then(Json::as_u64),
            };
        }
        Ok(state)
    }
}

/// The offline host's fixed clock (1 500 000 000 000 ms), as random names
/// show it.
const CLOCK_MS: u64 = 1_500_000_000_000;

struct Shared {
    counters: Counters,
}

/// Something told about every status report as it is made (a progress
/// line on a terminal).
pub type ReportObserver = Arc<dyn Fn(&Value) + Send + Sync>;

/// A [`Host`] over a [`CloudState`]: the offline host's answers, with the
/// stacks and counters taken from the state and kept in it.
#[derive(Clone)]
pub struct StatefulCloud {
    inner: OfflineHost,
    shared: Arc<Mutex<Shared>>,
    observer: Option<ReportObserver>,
}

impl std::fmt::Debug for StatefulCloud {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatefulCloud").finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl StatefulCloud {
    /// A cloud in `state`, answering as the offline host with `options`.
    pub fn new(state: CloudState, options: OfflineOptions) -> StatefulCloud {
        let inner = OfflineHost::new(options);
        for (name, s) in &state.heat {
            // Seeding the fake Heat cannot fail.
            let _ = inner.heat_apply(HeatOp::Create, &s.region, name, Some(&s.data));
        }
        StatefulCloud {
            inner,
            shared: Arc::new(Mutex::new(Shared {
                counters: state.counters,
            })),
            observer: None,
        }
    }

    /// The cloud telling `observer` about every status report.
    pub fn with_observer(mut self, observer: ReportObserver) -> StatefulCloud {
        self.observer = Some(observer);
        self
    }

    /// The state now.
    pub fn state(&self) -> CloudState {
        let sh = lock(&self.shared);
        let mut heat = BTreeMap::new();
        for ((region, name), data) in self.inner.stacks() {
            heat.insert(name, StoredStack { region, data });
        }
        CloudState {
            heat,
            counters: sh.counters.clone(),
        }
    }
}

impl Host for StatefulCloud {
    fn generate_id(&self) -> String {
        let mut sh = lock(&self.shared);
        sh.counters.uuid += 1;
        format!("feed0000000000000000{:012x}", sh.counters.uuid)
    }

    fn random_name(&self) -> String {
        let mut sh = lock(&self.shared);
        let c = &mut sh.counters;
        let mut name = String::new();
        for _ in 0..5 {
            name.push((b'a' + (c.letters % 26) as u8) as char);
            c.letters += 1;
        }
        let n = c.random_counter.filter(|n| *n != 0).unwrap_or(1);
        c.random_counter = Some((n + 1) % 1296);
        murano_dsl::functions::random_name(&name, CLOCK_MS, n)
    }

    fn config(&self) -> Value {
        self.inner.config()
    }

    fn heat_stack(&self, region: &str, name: &str) -> Result<Option<StackData>, HostError> {
        self.inner.heat_stack(region, name)
    }

    fn heat_apply(
        &self,
        op: HeatOp,
        region: &str,
        name: &str,
        data: Option<&StackData>,
    ) -> Result<(), HostError> {
        self.inner.heat_apply(op, region, name, data)
    }

    fn heat_outputs(&self, region: &str, name: &str) -> Result<Value, HostError> {
        self.inner.heat_outputs(region, name)
    }

    fn agent_send(
        &self,
        queue: &str,
        host: &str,
        plan: &Value,
        wait_results: bool,
        timeout: i64,
    ) -> Result<Value, HostError> {
        self.inner
            .agent_send(queue, host, plan, wait_results, timeout)
    }

    fn network(&self, query: NetworkQuery<'_>) -> Result<Value, HostError> {
        if let NetworkQuery::AvailableCidr { .. } = query {
            let mut sh = lock(&self.shared);
            sh.counters.cidr += 1;
            return Ok(Value::str(&format!("10.0.{}.0/24", 100 + sh.counters.cidr)));
        }
        self.inner.network(query)
    }

    fn current_user(&self) -> Result<Value, HostError> {
        self.inner.current_user()
    }

    fn current_project(&self) -> Result<Value, HostError> {
        self.inner.current_project()
    }

    fn notify(&self, report: &Value) -> Result<(), HostError> {
        if let Some(o) = &self.observer {
            o(report);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_continue_across_tasks() {
        let a = StatefulCloud::new(CloudState::default(), OfflineOptions::default());
        assert_eq!(a.random_name(), "abcdej5399reo1");
        let b = StatefulCloud::new(a.state(), OfflineOptions::default());
        assert_eq!(b.random_name(), "fghijj5399reo2");
        assert_eq!(b.state().counters.random_counter, Some(3));
    }

    #[test]
    fn ids_and_cidrs_continue_across_tasks() {
        let a = StatefulCloud::new(CloudState::default(), OfflineOptions::default());
        a.generate_id();
        let v = Value::Null;
        let q = || NetworkQuery::AvailableCidr {
            router: &v,
            network: &v,
            ip_version: &v,
        };
        assert_eq!(a.network(q()).unwrap().py_str(), "10.0.101.0/24");
        let b = StatefulCloud::new(a.state(), OfflineOptions::default());
        assert_eq!(b.generate_id(), "feed0000000000000000000000000002");
        assert_eq!(b.network(q()).unwrap().py_str(), "10.0.102.0/24");
    }

    #[test]
    fn stacks_survive_a_round_trip_through_json() {
        let a = StatefulCloud::new(CloudState::default(), OfflineOptions::default());
        let data = StackData {
            template: decode(&json!({"resources": {"r": {"type": "OS::Heat::None"}},
                                      "outputs": {"o": {"value": {"get_resource": "r"}}}})),
            ..StackData::default()
        };
        a.heat_apply(HeatOp::Create, "", "s", Some(&data)).unwrap();
        let text = a.state().to_json();
        assert_eq!(text["heat"]["s"]["outputs"]["o"], "id-r");
        let back = CloudState::from_json(&text).unwrap();
        assert_eq!(back.heat["s"].data.template, data.template);
        let b = StatefulCloud::new(back, OfflineOptions::default());
        b.heat_apply(HeatOp::Delete, "", "s", None).unwrap();
        assert!(b.state().heat.is_empty());
    }
}
