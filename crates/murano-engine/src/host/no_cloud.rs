//! [`NoCloudHost`]: Murano as a test run sees it, with no cloud at all
//! (the test runner's host, and `murano run`'s). The system classes run
//! their one set of bodies ([`super::SystemClasses`], declared as
//! [`super::HostProfile::NoCloud`]: Murano's defaults for optional
//! arguments, MuranoPL's default scope) over this host, as they run over
//! [`super::OfflineHost`] for deploys: what needs no cloud works locally
//! (a Heat stack's template held in memory, package resources, agent
//! queue names and execution plans, notifications dropped); every call
//! that would reach a cloud service (Heat, Neutron, Keystone, the agent's
//! message queue) is a `CloudUnavailable` host error, as Murano fails
//! when no cloud answers. Which methods need a cloud and which do
//! nothing without one is the declarations' data ([`Host::intercept`]).
//! The methods are the ones Murano's Python classes have, no more (a test
//! mocking a method the class lacks gets `NoMethodFound`, as with
//! Murano). Its configuration is Murano's defaults for an empty
//! `murano.conf` ([`Host::config`]).

use std::sync::{Arc, Mutex};

use murano_yaql::eval::Value;

use super::system::{no_cloud_body, NoCloudBody};
use super::{HeatOp, Host, HostError, NetworkQuery, PackageResources, StackData, SystemClasses};
use crate::api::package::resources_of;
use crate::base::sync::lock;
use crate::{class_set_with, ClassSet, ClassSetOptions, EngineBuilder, LoadError, PackageFiles};

/// The error of every call that needs a cloud service.
fn cloud_unavailable(service: &str, class: &str, method: &str) -> HostError {
    HostError::new(
        "CloudUnavailable",
        "murano_engine.testing",
        format!("{class}.{method} needs {service}, which a test run has no access to"),
    )
}

/// A host with no cloud (see the module documentation): the system
/// classes read the packages' resources and answer locally; every cloud
/// call is a `CloudUnavailable` host error. Its ids (agent plan ids) come
/// from a counter; an engine keeps its own object ids and random names
/// ([`Host::shares_ids`]).
#[derive(Debug, Clone, Default)]
pub struct NoCloudHost {
    ids: Arc<Mutex<u64>>,
}

impl NoCloudHost {
    /// A host without a cloud.
    pub fn new() -> NoCloudHost {
        NoCloudHost::default()
    }

    /// The classes of `packages` (in lookup order) with the system
    /// classes as this host declares them
    /// ([`super::HostProfile::NoCloud`], `io.murano.test.TestFixture`
    /// among them), loaded as Murano's test runner loads packages (a
    /// package whose name an earlier one has is skipped, and so is a class
    /// an earlier file of its package declared), and the resources of the
    /// packages loaded, for [`NoCloudHost::install`].
    pub fn class_set(packages: &[PackageFiles]) -> Result<(ClassSet, PackageResources), LoadError> {
        let merge = |def: &mut murano_dsl::model::ClassDefinition| {
            super::merge_system_class_as(def, super::HostProfile::NoCloud)
        };
        let options = ClassSetOptions {
            merge: &merge,
            first_of_a_name: true,
        };
        let (classes, added) = class_set_with(packages, &options)?;
        Ok((classes, resources_of(added)))
    }

    /// Adds this host to an engine being built: the system classes'
    /// natives over it ([`SystemClasses`] as
    /// [`super::HostProfile::NoCloud`], recording nothing), reading
    /// `resources` (package name → path inside the package → bytes,
    /// [`PackageResources`]), and its configuration. Object ids and
    /// `randomName()` stay the engine's own ([`Host::shares_ids`]).
    pub fn install(
        &self,
        builder: EngineBuilder,
        resources: Arc<PackageResources>,
    ) -> EngineBuilder {
        let system = SystemClasses::with_profile(
            Arc::new(self.clone()),
            resources,
            super::HostProfile::NoCloud,
        );
        system.set_recording(false);
        system.install(builder)
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

    /// Reading a stack is what `HeatStack.current()` asks Heat for
    /// (Murano's `parameters`, `reload` and `updateTemplate` read it
    /// through `current`).
    fn heat_stack(&self, _region: &str, _name: &str) -> Result<Option<StackData>, HostError> {
        Err(cloud_unavailable(
            "Heat",
            "io.murano.system.HeatStack",
            "current",
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

    /// The methods [`super::HostProfile::NoCloud`] marks as needing the
    /// class's cloud service (`CloudUnavailable`) or doing nothing
    /// without one (null); the others run.
    fn intercept(&self, class: &str, method: &str) -> Option<Result<Value, HostError>> {
        match no_cloud_body(class, method)? {
            (NoCloudBody::Run, _) => None,
            (NoCloudBody::Nothing, _) => Some(Ok(Value::Null)),
            (NoCloudBody::Cloud, service) => Some(Err(cloud_unavailable(service, class, method))),
        }
    }

    fn shares_ids(&self) -> bool {
        false
    }

    /// Murano's package loader's error for a resource the package lacks.
    fn resource(&self, package: &str, path: &str) -> Result<Vec<u8>, HostError> {
        Err(HostError::new(
            "PackageLoadError",
            "murano.packages.exceptions",
            format!("Resource {path} is not found in package {package}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declarations_say_what_needs_a_cloud_and_what_does_nothing() {
        let host = NoCloudHost::new();
        let e = host
            .intercept("io.murano.system.HeatStack", "push")
            .unwrap()
            .unwrap_err();
        assert_eq!(e.type_name, "CloudUnavailable");
        assert_eq!(
            e.message,
            "io.murano.system.HeatStack.push needs Heat, which a test run has no access to"
        );
        let e = host
            .intercept("io.murano.system.Agent", "call")
            .unwrap()
            .unwrap_err();
        assert!(
            e.message.contains("needs the murano agent's message queue"),
            "{}",
            e.message
        );
        assert_eq!(
            host.intercept("io.murano.system.HeatStack", "setFiles"),
            Some(Ok(Value::Null))
        );
        // Bodies that work without a cloud run.
        assert!(host
            .intercept("io.murano.system.HeatStack", "setTemplate")
            .is_none());
        assert!(host
            .intercept("io.murano.system.Agent", "queueName")
            .is_none());
        // Classes the no-cloud host does not declare.
        assert!(host
            .intercept("io.murano.system.MistralClient", "run")
            .is_none());
    }

    #[test]
    fn missing_resources_are_murano_package_load_errors() {
        let e = NoCloudHost::new().resource("p", "a.txt").unwrap_err();
        assert_eq!(e.type_name, "PackageLoadError");
        assert_eq!(e.message, "Resource a.txt is not found in package p");
    }

    const CLASSES: &str = "
Name: io.murano.Object
---
Name: io.murano.system.HeatStack
---
Name: io.murano.system.Resources
---
Name: io.murano.system.Agent
---
Namespaces: {=: demo, sys: io.murano.system}
Name: App
Methods:
  heat:
    Body:
      - $stack: new(sys:HeatStack, name => s1)
      - $stack.setTemplate({'resources' => {'a' => {'type' => 'A'}}, 'outputs' => ['x']})
      - $stack.updateTemplate({'resources' => {'b' => {'type' => 'B'}}, 'outputs' => ['x', 'y']})
      - $stack.setParameters({'p' => 1})
      - Return: [$stack.current(), $stack.parameters()]
  push:
    Body:
      - $stack: new(sys:HeatStack, name => s1)
      - $stack.setTemplate({'resources' => {'a' => {'type' => 'A'}}})
      - $stack.push()
  unread:
    Body:
      - Return: new(sys:HeatStack, name => s1).parameters()
  text:
    Arguments: [{name: {Contract: $.string()}}]
    Body:
      - Return: new(sys:Resources).string($name)
  data:
    Body:
      - Return: new(sys:Resources).yaml('a.yaml')
  plan:
    Body:
      - $agent: new(sys:Agent, host => $this)
      - Return: $agent.buildExecutionPlan({'FormatVersion' => '2.0.0', 'Body' => 'return'}, new(sys:Resources))
";

    /// An engine over [`CLASSES`] (package `demo`, with `Resources/a.yaml`
    /// and `Resources/t.txt`) and the no-cloud host; an `App` object.
    fn app() -> (crate::Engine, Value) {
        use murano_dsl::version::Version;
        let mut b = crate::ClassSetBuilder::new();
        let demo = b.add_package("demo", Version::new(0, 0, 0)).unwrap();
        for mut def in crate::ClassSetBuilder::parse_file(CLASSES.as_bytes(), "a.yaml").unwrap() {
            super::super::merge_system_class_as(&mut def, super::super::HostProfile::NoCloud)
                .unwrap();
            b.add_class(demo, "a.yaml", def).unwrap();
        }
        let mut files = std::collections::HashMap::new();
        files.insert(
            "Resources/a.yaml".to_owned(),
            Arc::new(b"k: [1, two]\n".to_vec()),
        );
        files.insert("Resources/t.txt".to_owned(), Arc::new(b"text".to_vec()));
        let mut resources = PackageResources::new();
        resources.insert("demo".to_owned(), files);
        let builder = EngineBuilder::new(Arc::new(b.build()));
        let engine = NoCloudHost::new()
            .install(builder, Arc::new(resources))
            .build();
        let model = serde_json::json!({"Objects": {"?": {"type": "demo.App", "id": "app"}}});
        let app = engine
            .load_model(&crate::from_json(&model))
            .unwrap()
            .unwrap();
        (engine, app)
    }

    fn call(
        engine: &crate::Engine,
        app: &Value,
        method: &str,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, crate::EngineError> {
        engine.call_with(
            &crate::Receiver::Object(app.clone()),
            method,
            Vec::new(),
            kwargs,
            &crate::CallOptions::any_scope(),
        )
    }

    #[test]
    fn heat_templates_are_kept_in_memory_and_merged_as_murano_merges_them() {
        let (engine, app) = app();
        let out = crate::to_json(&call(&engine, &app, "heat", Vec::new()).unwrap());
        assert_eq!(
            out,
            serde_json::json!([
                {"resources": {"a": {"type": "A"}, "b": {"type": "B"}}, "outputs": ["x", "y"]},
                {}
            ])
        );
    }

    #[test]
    fn stack_operations_and_unread_stacks_need_heat() {
        let (engine, app) = app();
        let e = call(&engine, &app, "push", Vec::new()).unwrap_err();
        assert_eq!(e.python_type(), "CloudUnavailable");
        assert_eq!(
            e.message,
            "io.murano.system.HeatStack.push needs Heat, which a test run has no access to"
        );
        let e = call(&engine, &app, "unread", Vec::new()).unwrap_err();
        assert_eq!(
            e.message,
            "io.murano.system.HeatStack.current needs Heat, which a test run has no access to"
        );
    }

    #[test]
    fn resources_are_read_from_the_callers_package() {
        let (engine, app) = app();
        let name = |n: &str| vec![("name".to_owned(), Value::str(n))];
        assert_eq!(
            call(&engine, &app, "text", name("t.txt")).unwrap(),
            Value::str("text")
        );
        let e = call(&engine, &app, "text", name("nope.txt")).unwrap_err();
        assert_eq!(e.python_type(), "PackageLoadError");
        assert_eq!(e.message, "Resource nope.txt is not found in package demo");
        let data = crate::to_json(&call(&engine, &app, "data", Vec::new()).unwrap());
        assert_eq!(data, serde_json::json!({"k": [1, "two"]}));
    }

    #[test]
    fn execution_plans_are_built_as_the_agent_builds_them() {
        let (engine, app) = app();
        let plan = crate::to_json(&call(&engine, &app, "plan", Vec::new()).unwrap());
        assert_eq!(plan["Body"], "return", "{plan}");
        assert_eq!(plan["FormatVersion"], "2.0.0", "{plan}");
        assert!(plan["ID"].is_string(), "{plan}");
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
