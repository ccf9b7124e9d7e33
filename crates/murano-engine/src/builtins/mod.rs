//! What the engine brings with it: Murano's YAQL functions, reflection,
//! the `io.murano.system` principal natives, `format` and `patch`.

pub(crate) mod format;
pub(crate) mod functions;
pub(crate) mod patch;
pub(crate) mod principal;
pub(crate) mod reflection;

use std::sync::Arc;

use murano_yaql::eval::Library;

use crate::classes::{ClassSet, LibrarySetup};
use crate::runtime::hooks::{BuiltinNative, Builtins};
use crate::{NativeBody, NativeCall};

/// The built-ins as the layer that assembles an engine registers them
/// into the runtime's and the class set's registration points.
pub(crate) fn builtins() -> Builtins {
    Builtins {
        libraries: LibrarySetup {
            functions: register_functions,
            dispatch: functions::register_method_dispatch,
        },
        natives,
        type_property: reflection::type_property,
    }
}

/// Murano's YAQL functions of a package format, then reflection's.
fn register_functions(lib: &mut Library, version: (u32, u32)) {
    functions::register(lib, version);
    reflection::register(lib);
}

/// The engine's own native methods over `classes`, registered in the
/// engine's one native table as a host's are: every method of the
/// engine's `io.murano.system.GC` class (added by
/// `ClassSetBuilder::add_system_classes`, whose file is its name, not a
/// host's class of the same name) and the principal classes' methods
/// (`principal`).
fn natives(classes: &ClassSet) -> Vec<BuiltinNative> {
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
