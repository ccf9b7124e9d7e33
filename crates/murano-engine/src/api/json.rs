//! Object models and values to and from `serde_json::Value`.

use murano_yaql::eval::Value;
use serde_json::Value as Json;

use crate::{Engine, EngineError};

/// A JSON value as a MuranoPL value (arrays as lists, objects as dicts).
pub fn from_json(json: &Json) -> Value {
    murano_dsl::yaml::convert::from_json(json)
}

/// A MuranoPL value as JSON, as an object model writes it.
pub fn to_json(value: &Value) -> Json {
    murano_dsl::yaml::convert::to_json(value, &Default::default())
}

impl Engine {
    /// Loads an object model given as JSON (see [`Engine::load_model`]).
    pub fn load_json(&self, model: &Json) -> Result<Option<Value>, EngineError> {
        self.load_model(&from_json(model))
    }

    /// Loads an object model given as JSON text; text that is no JSON is
    /// a `ValueError`, as Python's `json.loads` raises.
    pub fn load_json_text(&self, text: &str) -> Result<Option<Value>, EngineError> {
        let json: Json = serde_json::from_str(text).map_err(|e| {
            EngineError::new(
                crate::ErrorKind::Host {
                    type_name: "ValueError".into(),
                    module: "builtins".into(),
                },
                e.to_string(),
            )
        })?;
        self.load_json(&json)
    }

    /// The model as JSON (see [`Engine::serialized_model`]).
    pub fn serialized_model_json(&self) -> Json {
        to_json(&self.serialized_model())
    }
}
