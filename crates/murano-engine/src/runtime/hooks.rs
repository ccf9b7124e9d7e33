//! What the layers above register into every engine they assemble, as
//! rhai's `Engine` gets its standard packages through the same path as a
//! host's: the runtime calls these and never names the built-ins.

use std::sync::Arc;

use murano_dsl::registry::ClassId;
use murano_yaql::eval::Value;

use crate::classes::{ClassSet, LibrarySetup};
use crate::error::EngineError;
use crate::runtime::handle::RuntimeHandle;
use crate::NativeBody;

/// A native method of the engine's own: its class, name, body, and
/// whether its frame counts as a host frame in a stack trace.
pub(crate) type BuiltinNative = (ClassId, String, Arc<NativeBody>, bool);

/// The built-ins an engine is assembled with.
#[derive(Clone, Copy)]
pub(crate) struct Builtins {
    /// The functions of the YAQL libraries (see [`LibrarySetup`]).
    pub(crate) libraries: LibrarySetup,
    /// The engine's own native methods over a class set, registered in
    /// the one native table after the host's (they take precedence).
    pub(crate) natives: fn(&ClassSet) -> Vec<BuiltinNative>,
    /// The reflection properties of a class as `$type.name` reads them:
    /// `Ok(None)` for a name it does not have.
    pub(crate) type_property:
        fn(&RuntimeHandle, ClassId, &str) -> Result<Option<Value>, EngineError>,
}
