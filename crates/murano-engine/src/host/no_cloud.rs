//! [`NoCloudHost`]: Murano as a test run sees it, with no cloud at all
//! (the test runner's host, and `murano run`'s through it): the bodies
//! of the native parts of Murano's system classes
//! (`murano/engine/system/*.py`) as a test run has them. What needs no cloud works
//! locally (a Heat stack's template held in memory, package resources,
//! agent queue names, notifications dropped); every call that would reach
//! a cloud service (Heat, Neutron, the agent's message queue) raises a
//! host error, as Murano does when no cloud answers. The methods are the
//! ones Murano's Python classes have, no more (a test mocking a method the
//! class lacks gets `NoMethodFound`, as with Murano).
//!
//! Its system classes are declared by the one set under `host/system/`,
//! as [`super::HostProfile::NoCloud`] (Murano's defaults for optional
//! arguments, MuranoPL's default scope), which also says which methods
//! need a cloud and which do nothing here. Where it differs from the
//! [`super::SystemClasses`] over [`super::OfflineHost`] (which deploys
//! use), the difference is this host's: its own bodies (below), its
//! errors (`CloudUnavailable`) and its configuration (Murano's defaults
//! for an empty `murano.conf`, [`Host::config`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use murano_dsl::yaml::convert::{self, ToYaql};
use murano_dsl::yaml::{load_single, Flavor, LoadOptions};
use murano_yaql::eval::{Dict, Value};

use super::system::NoCloudBody;
use super::{HeatOp, Host, HostError, NetworkQuery, StackData};
use crate::base::sync::lock;
use crate::error::{EngineError, ErrorKind};
use crate::{Engine, EngineBuilder, NativeMethod};

/// The files of each package by package name, then by path inside the
/// package (`Resources/x.template`), as every host reads resources from
/// them ([`crate::EngineBuilder::resources`]).
pub type PackageResources = HashMap<String, HashMap<String, Arc<Vec<u8>>>>;

/// Per-engine state of the host.
#[derive(Default)]
struct HostState {
    /// Heat stack templates (`None`: not read from the cloud yet).
    templates: HashMap<String, Option<Value>>,
    /// The package a `Resources` object reads from (its creator's).
    resource_packages: HashMap<String, String>,
}

fn host_error(type_name: &str, module: &str, message: &str) -> EngineError {
    EngineError::new(
        ErrorKind::Host {
            type_name: type_name.into(),
            module: module.into(),
        },
        message,
    )
}

/// The error of every call that needs a cloud service.
fn no_cloud(service: &str, class: &str, method: &str) -> EngineError {
    let e = cloud_unavailable(service, class, method);
    host_error(&e.type_name, &e.module, &e.message)
}

/// [`no_cloud`] as the [`Host`] raises it.
fn cloud_unavailable(service: &str, class: &str, method: &str) -> HostError {
    HostError::new(
        "CloudUnavailable",
        "murano_engine.testing",
        format!("{class}.{method} needs {service}, which a test run has no access to"),
    )
}

/// A host with no cloud (see the module documentation): the natives of
/// its system classes read the packages' resources and answer locally;
/// every cloud call is a `CloudUnavailable` host error. As a [`Host`],
/// its ids and random names come from a counter (an engine it is
/// [`NoCloudHost::install`]ed in keeps its own).
#[derive(Debug, Clone, Default)]
pub struct NoCloudHost {
    ids: Arc<Mutex<u64>>,
}

impl NoCloudHost {
    /// A host without a cloud.
    pub fn new() -> NoCloudHost {
        NoCloudHost::default()
    }

    /// Adds this host to an engine being built: the bodies of its system
    /// classes' natives over `resources` (package name → path inside the
    /// package → bytes, [`PackageResources`]) and its configuration. Object ids and
    /// `randomName()` stay the engine's own.
    pub fn install(
        &self,
        builder: EngineBuilder,
        resources: Arc<PackageResources>,
    ) -> EngineBuilder {
        let builder = builder.natives(natives(resources));
        match self.config() {
            Value::Dict(config) => builder.config((*config).clone()),
            _ => builder,
        }
    }
}

impl Host for NoCloudHost {
    fn generate_id(&self) -> String {
        let mut n = lock(&self.ids);
        *n += 1;
        format!("{:032x}", *n)
    }

    fn random_name(&self) -> String {
        let mut n = lock(&self.ids);
        *n += 1;
        murano_dsl::functions::random_name("nocld", 0, *n)
    }

    fn config(&self) -> Value {
        Value::Dict(Arc::new(super::system::config::defaults(
            super::system::config::ConfigSet::TestRun,
        )))
    }

    fn heat_stack(&self, _region: &str, _name: &str) -> Result<Option<StackData>, HostError> {
        Err(cloud_unavailable(
            "Heat",
            "io.murano.system.HeatStack",
            "reload",
        ))
    }

    fn heat_apply(
        &self,
        op: HeatOp,
        _region: &str,
        _name: &str,
        _data: Option<&StackData>,
    ) -> Result<(), HostError> {
        let method = match op {
            HeatOp::Delete => "delete",
            HeatOp::Create | HeatOp::Update => "push",
        };
        Err(cloud_unavailable(
            "Heat",
            "io.murano.system.HeatStack",
            method,
        ))
    }

    fn heat_outputs(&self, _region: &str, _name: &str) -> Result<Value, HostError> {
        Err(cloud_unavailable(
            "Heat",
            "io.murano.system.HeatStack",
            "output",
        ))
    }

    fn agent_send(
        &self,
        _queue: &str,
        _host: &str,
        _plan: &Value,
        wait_results: bool,
        _timeout: i64,
    ) -> Result<Value, HostError> {
        Err(cloud_unavailable(
            "the murano agent's message queue",
            "io.murano.system.Agent",
            if wait_results { "call" } else { "send" },
        ))
    }

    fn network(&self, query: NetworkQuery<'_>) -> Result<Value, HostError> {
        let method = match query {
            NetworkQuery::DefaultRouter => "getDefaultRouter",
            NetworkQuery::AvailableCidr { .. } => "getAvailableCidr",
            NetworkQuery::DefaultDns { .. } => "getDefaultDns",
            NetworkQuery::ExternalNetworkForRouter(_) => "getExternalNetworkIdForRouter",
            NetworkQuery::ExternalNetworkForNetwork(_) => "getExternalNetworkIdForNetwork",
            NetworkQuery::Networks => "listNetworks",
            NetworkQuery::Subnetworks => "listSubnetworks",
            NetworkQuery::Ports => "listPorts",
            NetworkQuery::NeutronExtensions => "listNeutronExtensions",
        };
        Err(cloud_unavailable(
            "Neutron",
            "io.murano.system.NetworkExplorer",
            method,
        ))
    }

    fn current_user(&self) -> Result<Value, HostError> {
        Err(cloud_unavailable(
            "Keystone",
            "io.murano.system.User",
            "getCurrent",
        ))
    }

    fn current_project(&self) -> Result<Value, HostError> {
        Err(cloud_unavailable(
            "Keystone",
            "io.murano.system.Project",
            "getCurrent",
        ))
    }
}

fn object_id(engine: &Engine, v: Option<&Value>) -> Option<String> {
    v.and_then(|v| engine.object_id(v))
}

/// The package of the class of the MuranoPL frame below the native one
/// (the caller's).
fn caller_package(engine: &Engine) -> Option<String> {
    engine.package_of(engine.frame_class(1)?)
}

/// Murano's `helpers.merge_dicts`: dicts merged key by key (recursively),
/// lists concatenated without duplicates, other values replaced.
fn merge(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Dict(x), Value::Dict(y)) => {
            let mut out: Dict = (**x).clone();
            for (k, v) in y.iter() {
                let merged = match x.get(k) {
                    Some(old) => merge(old, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Value::Dict(Arc::new(out))
        }
        (Value::List(x), Value::List(y)) => {
            let mut out: Vec<Value> = x.to_vec();
            for v in y.iter() {
                if !out.contains(v) {
                    out.push(v.clone());
                }
            }
            Value::List(Arc::new(out))
        }
        (_, b) => b.clone(),
    }
}

fn read_resource(
    engine: &Engine,
    resources: &PackageResources,
    state: &Mutex<HostState>,
    call: &crate::NativeCall<'_>,
) -> Result<(String, Arc<Vec<u8>>), EngineError> {
    let name = call
        .arg("name")
        .and_then(Value::as_str)
        .ok_or_else(|| host_error("TypeError", "builtins", "a resource name must be a string"))?
        .to_owned();
    let owner = call.arg("owner").filter(|v| !v.is_null());
    let package = match owner {
        Some(o) => {
            let class = match engine.type_class(o) {
                Some(c) => c,
                None => match o {
                    Value::Str(s) => engine.resolve_class(s)?,
                    _ => return Err(host_error("TypeError", "builtins", "owner is not a class")),
                },
            };
            engine.package_of(class)
        }
        None => match object_id(engine, call.receiver) {
            Some(id) => lock(state).resource_packages.get(&id).cloned(),
            None => None,
        }
        .or_else(|| caller_package(engine)),
    }
    .unwrap_or_default();
    let bytes = super::system::resources::package_resource(resources, &package, &name)
        .cloned()
        .ok_or_else(|| {
            host_error(
                "PackageLoadError",
                "murano.packages.exceptions",
                &format!("Resource {name} is not found in package {package}"),
            )
        })?;
    Ok((name, bytes))
}

fn parse(bytes: &[u8], flavor: Flavor, name: &str) -> Result<Value, EngineError> {
    let node = load_single(bytes, flavor, &LoadOptions::default())
        .map_err(|e| host_error("ValueError", "builtins", &format!("{name}: {e}")))?;
    match node {
        None => Ok(Value::Null),
        Some(n) => convert::to_yaql(&n, &ToYaql::contracts())
            .map_err(|e| host_error("ValueError", "builtins", &format!("{name}: {}", e.what))),
    }
}

/// The bodies of the host's native methods for one engine.
fn natives(resources: Arc<PackageResources>) -> Vec<NativeMethod> {
    let state = Arc::new(Mutex::new(HostState::default()));
    let mut out = Vec::new();
    let mut add = |class: &str, method: &str, body: Box<crate::NativeBody>| {
        out.push(NativeMethod {
            class: format!("io.murano.system.{class}"),
            method: method.to_owned(),
            body: Arc::from(body),
        });
    };
    // Cloud calls and local no-ops, as the declarations give them.
    for (class, method, body, service) in super::system::no_cloud_bodies() {
        let short = class.trim_start_matches("io.murano.system.");
        match body {
            NoCloudBody::Cloud => add(
                short,
                method,
                Box::new(move |_| Err(no_cloud(service, class, method))),
            ),
            NoCloudBody::Nothing => add(short, method, Box::new(|_| Ok(Value::Null))),
            NoCloudBody::Own => {}
        }
    }
    add(
        "Agent",
        "queueName",
        Box::new(move |call| {
            let engine = call.engine;
            let id = object_id(engine, call.receiver).unwrap_or_default();
            Ok(Value::str(&format!("e-h{id}").to_lowercase()))
        }),
    );
    add("Agent", "signingKey", Box::new(|_| Ok(Value::Null)));
    add(
        "Agent",
        "buildExecutionPlan",
        Box::new(|call| Ok(call.arg("template").cloned().unwrap_or_default())),
    );
    add(
        "AgentListener",
        "queueName",
        Box::new(move |call| {
            let engine = call.engine;
            Ok(Value::str(
                &object_id(engine, call.receiver).unwrap_or_default(),
            ))
        }),
    );
    // Heat stacks: the template is kept in memory; reading it before one
    // was set asks Heat.
    let template_of = |state: &Arc<Mutex<HostState>>, call: &crate::NativeCall<'_>| {
        let engine = call.engine;
        let id = object_id(engine, call.receiver).unwrap_or_default();
        let t = lock(state).templates.get(&id).cloned().flatten();
        Ok::<_, EngineError>((id, t))
    };
    for method in ["current", "parameters"] {
        let s = state.clone();
        add(
            "HeatStack",
            method,
            Box::new(move |call| match template_of(&s, call)? {
                (_, Some(t)) if method == "current" => Ok(t),
                (_, Some(_)) => Ok(Value::Dict(Arc::new(Dict::default()))),
                (_, None) => Err(no_cloud("Heat", "io.murano.system.HeatStack", method)),
            }),
        );
    }
    let s = state.clone();
    add(
        "HeatStack",
        ".init",
        Box::new(move |call| {
            let engine = call.engine;
            let id = object_id(engine, call.receiver).unwrap_or_default();
            lock(&s).templates.insert(id, None);
            Ok(Value::Null)
        }),
    );
    let s = state.clone();
    add(
        "HeatStack",
        "setTemplate",
        Box::new(move |call| {
            let (id, _) = template_of(&s, call)?;
            let t = call.arg("template").cloned().unwrap_or_default();
            lock(&s).templates.insert(id, Some(t));
            Ok(Value::Null)
        }),
    );
    let s = state.clone();
    add(
        "HeatStack",
        "updateTemplate",
        Box::new(move |call| {
            let (id, current) = template_of(&s, call)?;
            let Some(current) = current else {
                return Err(no_cloud(
                    "Heat",
                    "io.murano.system.HeatStack",
                    "updateTemplate",
                ));
            };
            let t = call.arg("template").cloned().unwrap_or_default();
            lock(&s).templates.insert(id, Some(merge(&current, &t)));
            Ok(Value::Null)
        }),
    );
    // Resources.
    let s = state.clone();
    add(
        "Resources",
        ".init",
        Box::new(move |call| {
            let engine = call.engine;
            if let (Some(id), Some(pkg)) =
                (object_id(engine, call.receiver), caller_package(engine))
            {
                lock(&s).resource_packages.insert(id, pkg);
            }
            Ok(Value::Null)
        }),
    );
    for method in ["string", "json", "yaml"] {
        let (s, r) = (state.clone(), resources.clone());
        add(
            "Resources",
            method,
            Box::new(move |call| {
                let engine = call.engine;
                let (name, bytes) = read_resource(engine, &r, &s, call)?;
                match method {
                    "json" => parse(&bytes, Flavor::Plain, &name),
                    "yaml" => parse(&bytes, Flavor::Engine, &name),
                    _ => Ok(Value::str(&String::from_utf8_lossy(&bytes))),
                }
            }),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declared_method_has_one_body() {
        let mut bodies: Vec<(String, String)> = natives(Arc::default())
            .into_iter()
            .map(|n| (n.class, n.method))
            .collect();
        bodies.sort();
        let n = bodies.len();
        bodies.dedup();
        assert_eq!(bodies.len(), n, "a method with two bodies");
        let mut declared = Vec::new();
        for (class, text) in super::super::system_declarations(super::super::HostProfile::NoCloud) {
            let full = format!("Name: {class}\n{text}");
            for def in crate::ClassSetBuilder::parse_file(full.as_bytes(), "<system>").unwrap() {
                for m in def.methods {
                    declared.push((class.to_owned(), m.name));
                }
            }
        }
        declared.sort();
        assert_eq!(declared, bodies);
    }

    #[test]
    fn config_is_murano_defaults_for_an_empty_conf() {
        let Value::Dict(config) = NoCloudHost::new().config() else {
            panic!("config is not a mapping");
        };
        let Some(Value::Dict(rabbit)) = config.get(&Value::str("rabbitmq")) else {
            panic!("no rabbitmq group");
        };
        assert_eq!(rabbit.get(&Value::str("port")), Some(&Value::Int(5672)));
        assert_eq!(config.get(&Value::str("home_region")), Some(&Value::Null));
    }

    #[test]
    fn cloud_calls_raise_cloud_unavailable() {
        let host = NoCloudHost::new();
        let e = host.heat_outputs("r", "s").unwrap_err();
        assert_eq!(e.type_name, "CloudUnavailable");
        assert!(e.message.contains("needs Heat"), "{}", e.message);
        let e = host.network(NetworkQuery::Ports).unwrap_err();
        assert!(
            e.message.contains("listPorts needs Neutron"),
            "{}",
            e.message
        );
        let e = host
            .agent_send("q", "h", &Value::Null, true, 1)
            .unwrap_err();
        assert!(e.message.starts_with("io.murano.system.Agent.call"));
    }

    #[test]
    fn ids_and_names_are_fresh() {
        let host = NoCloudHost::new();
        assert_ne!(host.generate_id(), host.generate_id());
        assert_ne!(host.random_name(), host.random_name());
    }
}
