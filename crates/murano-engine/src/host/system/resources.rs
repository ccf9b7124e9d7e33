//! `io.murano.system.Resources`: the files of the calling package's
//! `Resources/`, then the host's.

use super::declare::{arg, class, method, opt, SystemClass};
use super::*;

/// The MuranoPL declaration of the class's native methods.
pub(super) const CLASS: SystemClass = class(
    "io.murano.system.Resources",
    &[
        method(".init", &[]),
        method(
            "string",
            &[arg("name"), opt("owner", "null"), opt("binary", "false")],
        )
        .static_(),
        method("json", &[arg("name"), opt("owner", "null")]).static_(),
        method("yaml", &[arg("name"), opt("owner", "null")]).static_(),
    ],
);

/// The native methods.
pub(super) static SPECS: &[Spec] = &[
    Spec {
        class: "io.murano.system.Resources",
        method: ".init",
        kwargs: &[],
        body: |sys, engine, call| {
            let id = SystemClasses::this_id(engine, call)?;
            let package = SystemClasses::caller_package(engine, 1).unwrap_or_default();
            sys.set_state(&id, NativeState::Resources { package });
            Ok(Value::Null)
        },
    },
    Spec {
        class: "io.murano.system.Resources",
        method: "string",
        kwargs: &["owner", "binary"],
        body: |sys, engine, call| {
            let bytes = resources_string(sys, engine, call)?;
            if given(call, "binary").is_some_and(Value::truthy) {
                // Python bytes: kept as Latin-1 text.
                return Ok(s(&bytes.iter().map(|&b| b as char).collect::<String>()));
            }
            Ok(s(&text_result(&bytes)?))
        },
    },
    Spec {
        class: "io.murano.system.Resources",
        method: "json",
        kwargs: &["owner"],
        body: |sys, engine, call| {
            let bytes = resources_string(sys, engine, call)?;
            let text = text_result(&bytes)?;
            let json: Json = serde_json::from_str(&text).map_err(|e| {
                host_error(HostError::new(
                    "JSONDecodeError",
                    "json.decoder",
                    e.to_string(),
                ))
            })?;
            Ok(crate::host::decode(&json))
        },
    },
    Spec {
        class: "io.murano.system.Resources",
        method: "yaml",
        kwargs: &["owner"],
        body: |sys, engine, call| {
            let bytes = resources_string(sys, engine, call)?;
            let text = text_result(&bytes)?;
            let options = murano_dsl::yaml::LoadOptions::default();
            let node = murano_dsl::yaml::load_single(
                text.as_bytes(),
                murano_dsl::yaml::Flavor::Plain,
                &options,
            )
            .map_err(|e| {
                host_error(HostError::new(
                    e.class().python_name(),
                    "yaml",
                    e.to_string(),
                ))
            })?;
            match node {
                None => Ok(Value::Null),
                Some(n) => murano_dsl::yaml::convert::to_yaql(
                    &n,
                    &murano_dsl::yaml::convert::ToYaql::data(),
                )
                .map_err(|e| host_error(HostError::new("ValueError", "builtins", e.to_string()))),
            }
        },
    },
];

impl SystemClasses {
    /// The package of the class running the frame `depth` below the top
    /// (0: the native itself).
    pub(super) fn caller_package(engine: &Engine, depth: usize) -> Option<String> {
        engine.package_of(engine.frame_class(depth)?)
    }

    pub(super) fn package_of_value(engine: &Engine, v: &Value) -> Option<String> {
        let class = match engine.class_of(v) {
            Some(c) => c,
            None => match v {
                Value::Str(name) => engine.classes().find(name)?,
                _ => return None,
            },
        };
        engine.package_of(class)
    }

    pub(super) fn read_resource(&self, package: &str, path: &str) -> Result<Vec<u8>, EngineError> {
        if let Some(bytes) = package_resource(&self.inner.resources, package, path) {
            return Ok(bytes.to_vec());
        }
        self.inner.host.resource(package, path).map_err(host_error)
    }

    /// The package a `Resources` call reads from.
    pub(super) fn resources_package(
        &self,
        engine: &Engine,
        call: &NativeCall<'_>,
    ) -> Result<String, EngineError> {
        if let Some(owner) = given(call, "owner").filter(|v| !v.is_null()) {
            if let Some(p) = Self::package_of_value(engine, owner) {
                return Ok(p);
            }
        }
        if let Some(r) = call.receiver {
            if let Some(view) = engine.object_view(r) {
                if let Some(NativeState::Resources { package }) = self.state(&view.id) {
                    return Ok(package);
                }
            }
        }
        Self::caller_package(engine, 1).ok_or_else(|| {
            EngineError::dsl("DslInvalidOperationError", "Resources: no calling package")
        })
    }
}

/// The file `Resources/<name>` of `package` among the packages' files
/// (package name → path inside the package → bytes), as every host's
/// `Resources` class reads it.
pub(crate) fn package_resource<'a>(
    resources: &'a crate::host::PackageResources,
    package: &str,
    name: &str,
) -> Option<&'a Arc<Vec<u8>>> {
    resources.get(package)?.get(&format!("Resources/{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_are_found_by_their_path_inside_the_package() {
        let mut files = HashMap::new();
        files.insert("Resources/a.template".to_owned(), Arc::new(b"x".to_vec()));
        let mut all: crate::host::PackageResources = HashMap::new();
        all.insert("p".to_owned(), files);
        assert_eq!(
            package_resource(&all, "p", "a.template").map(|b| b.as_slice()),
            Some(&b"x"[..])
        );
        assert!(package_resource(&all, "p", "Resources/a.template").is_none());
        assert!(package_resource(&all, "q", "a.template").is_none());
    }
}
