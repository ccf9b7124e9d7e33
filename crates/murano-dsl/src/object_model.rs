//! Murano object models: the JSON (or YAML) that describes the objects of
//! an environment, read and written the way Murano reads and writes it.
//!
//! Every object is a mapping with a system section under the key `?`:
//! `id`, `type` (a class name, optionally `/version-spec` and
//! `@package`), `classVersion` and `package` (used when the type string
//! has no version or package), `name`, `metadata`, `destroyed`,
//! `dependencies` (destruction dependencies), and keys starting with `_`
//! that Murano's object store keeps for designers and writes back (the
//! dashboard's [`DASHBOARD_STORAGE_KEY`], `_actions`). Properties sit
//! beside `?`; nested objects are written inline, anywhere in a property
//! value; an object is referred to elsewhere by its id as a string.
//!
//! * [`Value`] / [`Map`]: the JSON-like tree, in key order, read from
//!   JSON ([`Value::from_json`], as Python's `json.loads`), YAML
//!   ([`Value::from_yaml`]) and written as `json.dumps` writes it
//!   ([`Value::to_json`]).
//! * [`Data`] / [`Object`] / [`SystemData`] / [`TypeRef`]: the tree with
//!   its objects recognized and their `?` sections checked as
//!   `parse_object_definition`, `parse_type_string` and
//!   `parse_version_spec` check them. Nothing is lost: writing a model back
//!   gives the value it was read from, key order and unknown keys included.
//! * [`ObjectModel`]: a whole model (a deployment with `Objects`,
//!   `ObjectsCopy` and `Attributes`; one object; or a fragment such as a
//!   UI definition's templates) with queries (objects, by id, by type,
//!   references) and [`Diagnostic`]s for what Murano would refuse or
//!   quietly change (duplicate ids, unknown destruction subscribers,
//!   property names its loader cannot take, unknown `?` keys).
//!
//! Errors ([`ObjectModelError`]) carry the [`Path`] of the offending
//! element, such as `/applications/0/?/type`.
//!
//! ```
//! use murano_dsl::object_model::{ObjectModel, Severity};
//!
//! let model = ObjectModel::from_json(r#"{
//!   "Objects": {
//!     "?": {"id": "e1", "type": "io.murano.Environment"},
//!     "applications": [{
//!       "?": {"id": "a1", "type": "com.example.App", "_26411a1861294160833743e45d0eaad9": {"name": "App"}},
//!       "peer": "a2"
//!     }, {
//!       "?": {"id": "a1", "type": "com.example.App"}
//!     }]
//!   },
//!   "Attributes": []
//! }"#)?;
//! assert_eq!(model.objects().len(), 3);
//! let app = model.object("a1").unwrap();
//! assert_eq!(app.object.system().dashboard_name(), Some("App"));
//! let problems: Vec<String> = model.diagnostics().iter().map(|d| d.to_string()).collect();
//! assert_eq!(problems, [
//!     "/Objects/applications/1/?/id: warning[OM101]: duplicate object id \"a1\" (first at /Objects/applications/0)",
//! ]);
//! assert!(model.diagnostics().iter().all(|d| d.severity == Severity::Warning));
//!
//! let err = ObjectModel::from_json(r#"{"Objects": {"?": {"id": "e1", "type": "io.murano:Environment"}}}"#)
//!     .unwrap_err();
//! assert_eq!(err.path().to_string(), "/Objects/?/type");
//! # Ok::<(), murano_dsl::object_model::ObjectModelError>(())
//! ```

mod error;
mod json;
mod object;
mod path;
mod system;
mod value;
mod whole_model;

pub use crate::diagnostic::{Diagnostic, Severity};
pub use error::{ErrorKind, JsonError, ObjectModelError};
pub use json::{JsonOptions, MAX_JSON_DEPTH};
pub use object::{Data, Object};
pub use path::{Path, Segment};
pub use system::{
    Action, ClassRequest, DestructionDependency, SystemData, TypeRef, DASHBOARD_STORAGE_KEY,
    ENGINE_KEYS, SERVICE_KEYS,
};
pub use value::{Map, Value};
pub use whole_model::{
    Attribute, ModelKind, ObjectModel, ObjectRef, ParseOptions, Reference, Section,
};

/// Deepest nesting [`ObjectModel`] accepts by default (the YAML loader's
/// own default).
pub const DEFAULT_MAX_DEPTH: usize = 256;
