//! The engine behind the API, as Murano's `EngineClient` RPC interface:
//! tasks (deploy, delete, actions) are handed over and run in the
//! background; static actions and schemas answer directly.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

/// An engine failure, as Murano's `RemoteError`: the exception's class
/// name and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteError {
    /// The engine exception's class name (`NoClassFound`, ...).
    pub exc_type: String,
    /// Its message.
    pub value: String,
}

/// What the API calls on the engine.
pub trait Engine: Send + Sync {
    /// Queue a task (`{"action", "model", "id", "token", "project_id",
    /// "user_id"}`); the engine reports back through the store.
    fn handle_task(&self, task: Value);
    /// Run a static action and return its result.
    fn call_static_action(&self, task: Value) -> Result<Value, RemoteError>;
    /// The JSON schema of a class.
    fn generate_schema(
        &self,
        credentials: Value,
        class_name: &str,
        method_names: Vec<String>,
        class_version: Option<String>,
        package_name: Option<String>,
    ) -> Result<Value, RemoteError>;
    /// The schemas of methods `method_names` of a class, each the schema
    /// of its arguments whether or not the method is a model builder: the
    /// dashboard's argument forms of actions and static actions (not a
    /// call Murano's API makes). By default [`Engine::generate_schema`]'s
    /// answer (model builders only).
    fn method_schemas(
        &self,
        credentials: Value,
        class_name: &str,
        method_names: Vec<String>,
    ) -> Result<Value, RemoteError> {
        self.generate_schema(credentials, class_name, method_names, None, None)
    }
}

/// An engine that accepts tasks and drops them (nothing runs them yet; the
/// store has recorded them): deployments stay `running`. `murano serve`
/// uses it until the environments engine is wired in.
#[derive(Debug, Default)]
pub struct QueueOnlyEngine {
    handed_over: AtomicU64,
}

impl QueueOnlyEngine {
    /// How many tasks were handed over so far.
    pub fn handed_over(&self) -> u64 {
        self.handed_over.load(Ordering::Relaxed)
    }
}

impl Engine for QueueOnlyEngine {
    fn handle_task(&self, _task: Value) {
        self.handed_over.fetch_add(1, Ordering::Relaxed);
    }

    fn call_static_action(&self, _task: Value) -> Result<Value, RemoteError> {
        Err(RemoteError {
            exc_type: "NotImplementedError".into(),
            value: "no engine".into(),
        })
    }

    fn generate_schema(
        &self,
        _credentials: Value,
        class_name: &str,
        _method_names: Vec<String>,
        _class_version: Option<String>,
        _package_name: Option<String>,
    ) -> Result<Value, RemoteError> {
        Err(RemoteError {
            exc_type: "NoClassFound".into(),
            value: class_name.to_owned(),
        })
    }
}
