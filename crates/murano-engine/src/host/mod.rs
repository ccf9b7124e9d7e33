//! The cloud-facing system classes of `io.murano.system.*` (Murano's
//! `murano/engine/system/*.py`, registered into `io.murano` by
//! `system_objects.py`) as native classes, over a [`Host`] that stands for
//! the cloud.
//!
//! The classes' own logic runs here, whatever the host: HeatStack's
//! in-memory template (`updateTemplate` merges with Murano's
//! `merge_dicts`, `push` decides between create, update and delete), the
//! Agent's execution plans built from the package's `Resources/scripts`
//! (formats 1.x and 2.x), `Resources` file reading, the reporters'
//! messages. The [`Host`] answers what a cloud would: Heat stacks, agent
//! replies, Neutron, identity, generated ids and random names.
//! [`OfflineHost`] is the deterministic default (the deploy oracle's
//! offline cloud); [`NoCloudHost`] is no cloud at all (the test runner's
//! and `murano run`'s: every cloud call is a `CloudUnavailable` error);
//! a program plugs real clients in by implementing [`Host`].
//!
//! [`SystemClasses`] holds the state of one session (one engine): it
//! gives the MuranoPL declarations to merge into the core library's
//! class stubs ([`merge_system_class`]), the native method bodies, the
//! `config()` and `randomName()` functions, and records every host call,
//! Heat operation, agent plan and report ([`Recording`]; unless told not
//! to, [`SystemClasses::set_recording`]).

mod agent;
pub(crate) mod no_cloud;
mod offline;
mod packages;
mod record;
mod system;

use murano_yaql::eval::Value;

pub use no_cloud::NoCloudHost;
pub use offline::{OfflineHost, OfflineOptions};
pub use record::{decode, encode, Recording, MAX_ENCODED_TEXT};
pub use system::{
    merge_system_class, merge_system_class_as, system_declarations, HostProfile, SystemClasses,
};

/// The files of each package by package name, then by path inside the
/// package (`Resources/x.template`), as the system classes read
/// resources from them ([`crate::EngineBuilder::resources`]).
pub type PackageResources =
    std::collections::HashMap<String, std::collections::HashMap<String, std::sync::Arc<Vec<u8>>>>;

/// An error a host raises: a Python-like exception class (`KeyError`,
/// `HTTPNotFound`, `AgentException`) with its module and message. It
/// reaches MuranoPL as a host exception (see
/// [`crate::ErrorKind::Host`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError {
    /// Exception class name.
    pub type_name: String,
    /// Module of the class (`builtins` for Python's own).
    pub module: String,
    /// Message.
    pub message: String,
}

impl HostError {
    /// A new host error.
    pub fn new(type_name: &str, module: &str, message: impl Into<String>) -> HostError {
        HostError {
            type_name: type_name.to_owned(),
            module: module.to_owned(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.type_name, self.message)
    }
}

impl std::error::Error for HostError {}

/// A Heat stack as the cloud holds it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StackData {
    /// The template.
    pub template: Value,
    /// Its parameters.
    pub parameters: Value,
    /// Files (`get_file`).
    pub files: Value,
    /// The Heat environment.
    pub environment: Value,
}

/// A Heat operation a `push()` or `delete()` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeatOp {
    /// Create the stack (it did not exist).
    Create,
    /// Update the stack.
    Update,
    /// Delete the stack.
    Delete,
}

impl HeatOp {
    /// `create`, `update` or `delete`.
    pub fn as_str(self) -> &'static str {
        match self {
            HeatOp::Create => "create",
            HeatOp::Update => "update",
            HeatOp::Delete => "delete",
        }
    }
}

/// A question to Neutron (`io.murano.system.NetworkExplorer`).
#[derive(Debug, Clone, Copy)]
pub enum NetworkQuery<'a> {
    /// `getDefaultRouter()`: the router id.
    DefaultRouter,
    /// `getAvailableCidr(routerId, netId, ipVersion)`.
    AvailableCidr {
        /// Router id.
        router: &'a Value,
        /// Network id.
        network: &'a Value,
        /// IP version (4 or 6).
        ip_version: &'a Value,
    },
    /// `getDefaultDns(ipVersion)`.
    DefaultDns {
        /// IP version.
        ip_version: &'a Value,
    },
    /// `getExternalNetworkIdForRouter(routerId)`.
    ExternalNetworkForRouter(&'a Value),
    /// `getExternalNetworkIdForNetwork(networkId)`.
    ExternalNetworkForNetwork(&'a Value),
    /// `listNetworks()`.
    Networks,
    /// `listSubnetworks()`.
    Subnetworks,
    /// `listPorts()`.
    Ports,
    /// `listNeutronExtensions()`.
    NeutronExtensions,
}

/// The cloud behind the system classes. Every method has the semantics
/// of the OpenStack call Murano makes there; [`OfflineHost`] answers
/// without a cloud.
pub trait Host: Send + Sync {
    /// A fresh id (Murano's `uuid.uuid4().hex`): agent plan and file ids.
    fn generate_id(&self) -> String;
    /// `randomName()`.
    fn random_name(&self) -> String;
    /// Murano's configuration as `config()` sees it: a mapping of groups
    /// (mappings) and top-level settings.
    fn config(&self) -> Value;
    /// The stack `name` of `region` (`None`: Heat answers not found).
    fn heat_stack(&self, region: &str, name: &str) -> Result<Option<StackData>, HostError>;
    /// Creates, updates (`data`) or deletes (`None`) a stack.
    fn heat_apply(
        &self,
        op: HeatOp,
        region: &str,
        name: &str,
        data: Option<&StackData>,
    ) -> Result<(), HostError>;
    /// The outputs of a stack (`{key: value}`; `{}` when it does not
    /// exist).
    fn heat_outputs(&self, region: &str, name: &str) -> Result<Value, HostError>;
    /// Sends an execution plan to the agent listening on `queue` (on the
    /// instance `host`); with `wait_results`, returns the agent's reply
    /// (null: none), as the results queue delivers it.
    fn agent_send(
        &self,
        queue: &str,
        host: &str,
        plan: &Value,
        wait_results: bool,
        timeout: i64,
    ) -> Result<Value, HostError>;
    /// Answers a Neutron question.
    fn network(&self, query: NetworkQuery<'_>) -> Result<Value, HostError>;
    /// The current user's fields (`id`, `name`, `domain`, `email`,
    /// `extra`).
    fn current_user(&self) -> Result<Value, HostError>;
    /// The current project's fields (`id`, `name`, `domain`,
    /// `description`, `extra`).
    fn current_project(&self) -> Result<Value, HostError>;
    /// A message of the status reporter or the instance notifier (as the
    /// session records it in [`Recording::reports`]); the default does
    /// nothing more.
    fn notify(&self, _report: &Value) -> Result<(), HostError> {
        Ok(())
    }
    /// `MistralClient.upload(definition)`.
    fn mistral_upload(&self, _definition: &Value) -> Result<Value, HostError> {
        Ok(Value::Null)
    }
    /// `MistralClient.run(name, timeout, inputs, params)`.
    fn mistral_run(
        &self,
        _name: &Value,
        timeout: &Value,
        _inputs: &Value,
        _params: &Value,
    ) -> Result<Value, HostError> {
        if timeout.as_int() == Some(0) {
            Ok(Value::str("mistral-execution-1"))
        } else {
            Ok(Value::Dict(Default::default()))
        }
    }
    /// `MetadefBrowser.getNamespaces(resourceType)` (`namespaces`) and
    /// `getObjects(namespace)` (`objects`).
    fn metadef(&self, _what: &str, _arg: &Value) -> Result<Value, HostError> {
        Ok(Value::List(Default::default()))
    }
    /// Answers a native method of a system class instead of its body
    /// (`None`, the default: the body runs and asks the host what it
    /// needs). [`NoCloudHost`] answers the methods that need a cloud
    /// service with a `CloudUnavailable` error and those that only act on
    /// one with null, as [`HostProfile::NoCloud`] marks them.
    fn intercept(&self, class: &str, method: &str) -> Option<Result<Value, HostError>> {
        let _ = (class, method);
        None
    }
    /// Whether the engine draws its object ids and `randomName()` from
    /// this host ([`Host::generate_id`], [`Host::random_name`]), as Murano
    /// draws them all from one sequence (the default). `false` leaves the
    /// engine its own sequences; the host's ids then serve the system
    /// classes alone (agent plan ids).
    fn shares_ids(&self) -> bool {
        true
    }
    /// A package resource the session's packages do not hold
    /// (`Resources/<path>` of `package`).
    fn resource(&self, package: &str, path: &str) -> Result<Vec<u8>, HostError> {
        let _ = package;
        Err(HostError::new(
            "FileNotFoundError",
            "builtins",
            format!("[Errno 2] No such file or directory: '{path}'"),
        ))
    }
}

impl crate::EngineBuilder {
    /// Runs the system classes over `host` (see [`SystemClasses`]), with
    /// the resources of the builder's packages; the session's recording
    /// is not kept (a caller that wants it makes the [`SystemClasses`]
    /// and [`SystemClasses::install`]s it).
    pub fn host(self, host: impl Host + 'static) -> crate::EngineBuilder {
        let system = SystemClasses::new(std::sync::Arc::new(host), self.resources());
        system.install(self)
    }
}
