//! What the engine brings with it: Murano's YAQL functions, reflection,
//! the `io.murano.system` principal natives, `format` and `patch`.

pub(crate) mod format;
pub(crate) mod functions;
pub(crate) mod patch;
pub(crate) mod principal;
pub(crate) mod reflection;

use std::sync::Arc;

use murano_dsl::registry::ClassId;

use crate::classes::ClassSet;
use crate::{NativeBody, NativeCall};

/// A native method of the engine's own: its class, name, body, and
/// whether its frame counts as a host frame in a stack trace.
pub(crate) type BuiltinNative = (ClassId, String, Arc<NativeBody>, bool);

/// The engine's own native methods over `classes`, registered in the
/// engine's one native table as a host's are: every method of the
/// engine's `io.murano.system.GC` class (added by
/// `ClassSetBuilder::add_system_classes`, whose file is its name, not a
/// host's class of the same name) and the principal classes' methods
/// (`principal`).
pub(crate) fn natives(classes: &ClassSet) -> Vec<BuiltinNative> {
    let mut out: Vec<BuiltinNative> = Vec::new();
    let gc: Arc<NativeBody> =
        Arc::new(|call: &NativeCall<'_>| crate::gc::call(call.engine, call.method, call.args));
    for class in classes.registry().classes() {
        let name = classes.name(class);
        if name == crate::gc::GC_CLASS_NAME && classes.file(class) == Some(crate::gc::GC_CLASS_NAME)
        {
            for m in classes
                .definition(class)
                .map_or(&[][..], |d| &d.methods[..])
            {
                out.push((class, m.name.clone(), gc.clone(), true));
            }
        }
    }
    let body: Arc<NativeBody> = Arc::new(principal::native);
    for (class, method) in classes.principal_natives() {
        out.push((*class, method.clone(), body.clone(), false));
    }
    out
}
