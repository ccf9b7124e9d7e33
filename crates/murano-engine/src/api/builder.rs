//! The one way to build an engine.

use std::sync::Arc;

use murano_yaql::eval::{Dict, FunctionDef};

use crate::api::package::{class_set_with, resources_of, ClassSetOptions, LoadError, PackageFiles};
use crate::runtime::intercept::Installed;
use crate::{ClassSet, Engine, IdSource, Limits, MethodInterceptor, NativeMethod};

/// A hook run once on the engine [`EngineBuilder::build`] made.
type OnBuild = Box<dyn FnOnce(&Engine) + Send>;

/// Builds an [`Engine`]: its classes (or packages), limits, host
/// functions and native methods, configuration and id source. Deploy,
/// the test runner, the CLI and embedders all build engines here.
///
/// ```
/// use std::sync::Arc;
/// use murano_dsl::version::Version;
/// use murano_engine::{ClassSetBuilder, EngineBuilder, Limits};
///
/// let mut b = ClassSetBuilder::new();
/// let io = b.add_package("io.murano", Version::new(0, 0, 0))?;
/// for class in ClassSetBuilder::parse_file(b"Name: io.murano.Object", "Object.yaml")? {
///     b.add_class(io, "Object.yaml", class)?;
/// }
/// let engine = EngineBuilder::new(Arc::new(b.build()))
///     .limits(Limits { fuel: Some(1000), ..Limits::default() })
///     .build();
/// assert!(engine.object("nothing").is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct EngineBuilder {
    classes: Arc<ClassSet>,
    packages: Vec<PackageFiles>,
    limits: Limits,
    functions: Vec<FunctionDef>,
    natives: Vec<NativeMethod>,
    config: Option<Dict>,
    id_source: Option<IdSource>,
    on_build: Vec<OnBuild>,
    interceptor: Option<Installed>,
}

impl std::fmt::Debug for EngineBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineBuilder")
            .field("limits", &self.limits)
            .field("natives", &self.natives)
            .finish_non_exhaustive()
    }
}

impl EngineBuilder {
    /// A builder over a class set, with default limits and nothing else.
    pub fn new(classes: Arc<ClassSet>) -> EngineBuilder {
        EngineBuilder {
            classes,
            packages: Vec::new(),
            limits: Limits::default(),
            functions: Vec::new(),
            natives: Vec::new(),
            config: None,
            id_source: None,
            on_build: Vec::new(),
            interceptor: None,
        }
    }

    /// A builder over the classes of `packages` (in class lookup order)
    /// loaded as `options` say (see [`class_set_with`]), which keeps the
    /// packages for their resources ([`EngineBuilder::packages`]).
    /// [`EngineBuilder::from_packages`] is this with the offline host's
    /// system-class declarations.
    pub fn from_packages_with(
        packages: &[PackageFiles],
        options: &ClassSetOptions<'_>,
    ) -> Result<EngineBuilder, LoadError> {
        let (classes, _) = class_set_with(packages, options)?;
        let mut b = EngineBuilder::new(Arc::new(classes));
        b.packages = packages.to_vec();
        Ok(b)
    }

    /// The packages given to [`EngineBuilder::from_packages_with`].
    pub fn packages(&self) -> &[PackageFiles] {
        &self.packages
    }

    /// The files under `Resources/` of the packages, by package name.
    pub fn resources(
        &self,
    ) -> std::collections::HashMap<String, std::collections::HashMap<String, Arc<Vec<u8>>>> {
        resources_of(&self.packages)
    }

    /// The class set.
    pub fn classes(&self) -> &Arc<ClassSet> {
        &self.classes
    }

    /// The engine's limits (default [`Limits::default`]).
    pub fn limits(mut self, limits: Limits) -> EngineBuilder {
        self.limits = limits;
        self
    }

    /// Adds host functions, registered in the innermost layer of the YAQL
    /// library (visible from every class; they replace the engine's
    /// functions of the same name and arguments).
    pub fn functions(mut self, functions: impl IntoIterator<Item = FunctionDef>) -> EngineBuilder {
        self.functions.extend(functions);
        self
    }

    /// Adds native methods: MuranoPL methods a class declares whose body
    /// the host implements, as Murano implements parts of classes in
    /// Python.
    pub fn natives(mut self, natives: impl IntoIterator<Item = NativeMethod>) -> EngineBuilder {
        self.natives.extend(natives);
        self
    }

    /// Murano's configuration as `config()` reads it (see
    /// [`Engine::set_config`]).
    pub fn config(mut self, config: Dict) -> EngineBuilder {
        self.config = Some(config);
        self
    }

    /// Where object ids come from (see [`Engine::set_id_source`]).
    pub fn id_source(mut self, source: IdSource) -> EngineBuilder {
        self.id_source = Some(source);
        self
    }

    /// Runs `hook` on the engine once it is built (to keep a
    /// [`crate::WeakEngine`], observe its loggers, ...).
    pub fn on_build(mut self, hook: impl FnOnce(&Engine) + Send + 'static) -> EngineBuilder {
        self.on_build.push(Box::new(hook));
        self
    }

    /// The interceptor of the method calls made from YAQL (see
    /// [`MethodInterceptor`]; the test runner's mocks are one, see
    /// [`crate::MethodMocks`]). Without one every method runs as it is.
    /// Its owner finds it again with [`Engine::interceptor`].
    pub fn interceptor<T: MethodInterceptor + 'static>(
        mut self,
        interceptor: Arc<T>,
    ) -> EngineBuilder {
        self.interceptor = Some(Installed::new(interceptor));
        self
    }

    /// The engine.
    pub fn build(self) -> Engine {
        let engine = Engine::with_natives(self.classes, self.limits, self.functions, self.natives);
        if let Some(interceptor) = self.interceptor {
            engine.set_interceptor(interceptor);
        }
        if let Some(source) = self.id_source {
            engine.set_id_source(source);
        }
        if let Some(config) = self.config {
            engine.set_config(config);
        }
        for hook in self.on_build {
            hook(&engine);
        }
        engine
    }
}
