//! Classes at run time: the packages' class definitions linked by the
//! registry of `murano-dsl`, with the package lookup order and the file
//! each class comes from (for stack traces).

pub(crate) mod init_order;
pub(crate) mod system;

use std::collections::HashMap;

use murano_dsl::model::ClassDefinition;
use murano_dsl::registry::{
    ClassId, ClassRegistry, LookupError, PackageId, PackageInfo, RegistryBuilder,
};
use murano_dsl::version::Version;
use murano_dsl::yaml::{load_class_file, LoadOptions};

use crate::error::EngineError;

/// The classes an engine runs: packages in lookup order, their classes,
/// and where each class was read from.
#[derive(Debug)]
pub struct ClassSet {
    registry: ClassRegistry,
    packages: Vec<PackageId>,
    files: HashMap<ClassId, String>,
    /// The YAQL libraries of engines over these classes (built once):
    /// yaql's legacy library with Murano's functions, and the innermost
    /// layer that dispatches method calls by name.
    libraries: std::sync::OnceLock<(murano_yaql::eval::Library, murano_yaql::eval::Library)>,
    /// The same for classes of packages of format 1.2 and later (yaql's
    /// standard library).
    libraries12: std::sync::OnceLock<(murano_yaql::eval::Library, murano_yaql::eval::Library)>,
    /// Runtime versions (`Format`) of packages that declared one.
    formats: HashMap<PackageId, (u32, u32)>,
    /// Classes Murano cannot create because a parent (or a parent's
    /// parent) does not resolve, with the error of the first such name.
    broken: HashMap<ClassId, LookupError>,
    /// The native methods the system package's declarations added (the
    /// principal classes' methods; see [`SystemNatives`]).
    principal: std::collections::HashSet<(ClassId, String)>,
}

/// Adds to a class definition of the system package the native methods
/// the layer that assembles engines declares for it (the principal
/// classes' `setAttr`, `toString`, ...), returning their names. The
/// classes layer only calls it: the declarations are the built-ins'.
pub(crate) type SystemNatives = fn(&mut ClassDefinition) -> Result<Vec<String>, EngineError>;

/// How the YAQL libraries of engines over a [`ClassSet`] are filled, as
/// the layer that assembles engines registers them (Murano's YAQL
/// functions, reflection, the method dispatch).
#[derive(Clone, Copy)]
pub(crate) struct LibrarySetup {
    /// Registers the functions of a package format (`(1, 0)`: the 1.0
    /// engine's; `(1, 2)`: the 1.2 engine's) into a library's top layer.
    pub(crate) functions: fn(&mut murano_yaql::eval::Library, (u32, u32)),
    /// Registers the functions that dispatch method calls made from YAQL
    /// to the classes' methods.
    pub(crate) dispatch: fn(&mut murano_yaql::eval::Library, &ClassSet),
}

/// Collects packages and class definitions for a [`ClassSet`].
#[derive(Debug, Default)]
pub struct ClassSetBuilder {
    builder: RegistryBuilder,
    packages: Vec<PackageId>,
    files: Vec<(usize, String)>,
    count: usize,
    formats: HashMap<PackageId, (u32, u32)>,
    /// The package [`ClassSetBuilder::add_system_classes`] was given, and
    /// the declarations of its natives.
    system_package: Option<(PackageId, SystemNatives)>,
    /// Principal natives added so far: class index and method names.
    principal: Vec<(usize, Vec<String>)>,
}

impl ClassSetBuilder {
    /// An empty builder.
    pub fn new() -> ClassSetBuilder {
        ClassSetBuilder::default()
    }

    /// Adds a package; class lookup by full name tries packages in the
    /// order they were added.
    pub fn add_package(&mut self, name: &str, version: Version) -> Result<PackageId, EngineError> {
        let id = self
            .builder
            .add_package(PackageInfo::new(name, version))
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        self.packages.push(id);
        Ok(id)
    }

    /// Adds a package with its requirements (`Require`) and meta: its
    /// classes find classes of the packages it requires, as Murano's
    /// do.
    pub fn add_package_info(&mut self, info: PackageInfo) -> Result<PackageId, EngineError> {
        let id = self
            .builder
            .add_package(info)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        self.packages.push(id);
        Ok(id)
    }

    /// Parses a class file (several documents, one class each) with the
    /// engine's YAML flavour and returns its class definitions, for the
    /// caller to inspect or adjust before [`ClassSetBuilder::add_class`].
    pub fn parse_file(bytes: &[u8], path: &str) -> Result<Vec<ClassDefinition>, EngineError> {
        let file = load_class_file(bytes, &LoadOptions::default())
            .map_err(|e| EngineError::dsl("DslSyntaxError", format!("{path}: {e}")))?;
        Ok(ClassDefinition::from_documents(&file.documents, Some(path)))
    }

    /// Adds a class definition read from `path` to a package. In the
    /// system package (see [`ClassSetBuilder::add_system_classes`]),
    /// `io.murano.Object` and `io.murano.Exception` get the methods
    /// Murano implements in Python (`setAttr`/`getAttr`, `toString`).
    pub fn add_class(
        &mut self,
        package: PackageId,
        path: &str,
        mut class: ClassDefinition,
    ) -> Result<(), EngineError> {
        let natives = match self.system_package {
            Some((system, declare)) if system == package => declare(&mut class)?,
            _ => Vec::new(),
        };
        let id = self
            .builder
            .add_class(package, class)
            .map_err(|e| EngineError::dsl("DslInvalidOperationError", e.to_string()))?;
        self.files.push((id.index(), path.to_owned()));
        if !natives.is_empty() {
            self.principal.push((id.index(), natives));
        }
        self.count += 1;
        Ok(())
    }

    /// `add_system_classes` (see the API layer, which gives the
    /// built-ins' `declare`): the package becomes the system package,
    /// whose classes added afterwards get the native methods `declare`
    /// adds, and gets `io.murano.system.GC`.
    pub(crate) fn add_system_classes_with(
        &mut self,
        package: PackageId,
        declare: SystemNatives,
    ) -> Result<(), EngineError> {
        self.system_package = Some((package, declare));
        let path = system::GC_CLASS_NAME;
        for class in ClassSetBuilder::parse_file(system::GC_CLASS.as_bytes(), path)? {
            self.add_class(package, path, class)?;
        }
        Ok(())
    }

    /// Sets a package's runtime version (the manifest's `Format`, e.g.
    /// `(1, 4)`): classes of packages before 1.2 evaluate YAQL with
    /// Murano's 1.0 engine (iterable dicts) and yaql's legacy library,
    /// later ones with the 1.2 engine and yaql's standard library. A
    /// package without one counts as 1.0.
    pub fn set_package_format(&mut self, package: PackageId, major: u32, minor: u32) {
        self.formats.insert(package, (major, minor));
    }

    /// Links the classes.
    pub fn build(self) -> ClassSet {
        let registry = self.builder.build();
        let mut files = HashMap::new();
        let mut principal = std::collections::HashSet::new();
        for class in registry.classes() {
            if let Some((_, path)) = self.files.iter().find(|(i, _)| *i == class.index()) {
                files.insert(class, path.clone());
            }
            for (_, names) in self.principal.iter().filter(|(i, _)| *i == class.index()) {
                for n in names {
                    principal.insert((class, n.clone()));
                }
            }
        }
        let broken = broken_classes(&registry);
        ClassSet {
            registry,
            packages: self.packages,
            files,
            broken,
            libraries: std::sync::OnceLock::new(),
            libraries12: std::sync::OnceLock::new(),
            formats: self.formats,
            principal,
        }
    }
}

/// The classes whose creation fails in Murano, which creates a class by
/// finding its `Extends` names in order, each parent created (its own
/// parents first) before the next name is looked up: the error is the
/// first failing lookup of that depth-first walk.
fn broken_classes(registry: &ClassRegistry) -> HashMap<ClassId, LookupError> {
    fn first_failure(
        registry: &ClassRegistry,
        class: ClassId,
        memo: &mut HashMap<ClassId, Option<LookupError>>,
        visiting: &mut Vec<ClassId>,
    ) -> Option<LookupError> {
        if let Some(known) = memo.get(&class) {
            return known.clone();
        }
        // A cycle is reported by the registry's own checks.
        if visiting.contains(&class) {
            return None;
        }
        visiting.push(class);
        let mut failure = None;
        for link in registry.parent_links(class) {
            failure = match &link.target {
                Err(e) => Some(e.clone()),
                Ok(parent) => first_failure(registry, *parent, memo, visiting),
            };
            if failure.is_some() {
                break;
            }
        }
        visiting.pop();
        memo.insert(class, failure.clone());
        failure
    }
    let mut memo = HashMap::new();
    let mut visiting = Vec::new();
    for class in registry.classes() {
        first_failure(registry, class, &mut memo, &mut visiting);
    }
    memo.into_iter()
        .filter_map(|(class, failure)| Some((class, failure?)))
        .collect()
}

impl ClassSet {
    /// The YAQL libraries every engine over these classes shares: the
    /// base (yaql's legacy library and the functions `setup` registers)
    /// and the method-dispatch layer. Built once, by the first engine's
    /// `setup` (every engine is assembled with the same one).
    pub(crate) fn libraries(
        &self,
        setup: &LibrarySetup,
    ) -> &(murano_yaql::eval::Library, murano_yaql::eval::Library) {
        self.libraries.get_or_init(|| {
            let mut base = murano_yaql::eval::Library::legacy();
            base.push_layer();
            (setup.functions)(&mut base, (1, 0));
            let mut dispatch = murano_yaql::eval::Library::empty();
            (setup.dispatch)(&mut dispatch, self);
            (base, dispatch)
        })
    }

    /// [`ClassSet::libraries`] over yaql's standard library, for classes
    /// of packages of format 1.2 and later.
    pub(crate) fn libraries12(
        &self,
        setup: &LibrarySetup,
    ) -> &(murano_yaql::eval::Library, murano_yaql::eval::Library) {
        self.libraries12.get_or_init(|| {
            let mut base = murano_yaql::eval::Library::standard(false);
            base.push_layer();
            (setup.functions)(&mut base, (1, 2));
            let mut dispatch = murano_yaql::eval::Library::empty();
            (setup.dispatch)(&mut dispatch, self);
            (base, dispatch)
        })
    }

    /// The native methods the system package's declarations added.
    pub(crate) fn principal_natives(&self) -> impl Iterator<Item = &(ClassId, String)> {
        self.principal.iter()
    }

    /// Whether a package declared format 1.2 or later.
    pub(crate) fn has_format_12(&self) -> bool {
        self.formats.values().any(|f| *f >= (1, 2))
    }

    /// The registry (hierarchy, members, meta).
    pub fn registry(&self) -> &ClassRegistry {
        &self.registry
    }

    /// A class by full name: the first package (in lookup order) that has
    /// it.
    pub fn find(&self, name: &str) -> Option<ClassId> {
        self.packages
            .iter()
            .find_map(|p| self.registry.class_in_package(*p, name))
    }

    /// A class by name as written inside class `from` (namespace prefixes
    /// resolved with that class's namespaces), `NoClassFound` otherwise.
    pub fn resolve(&self, from: Option<ClassId>, name: &str) -> Result<ClassId, EngineError> {
        let full = match from.and_then(|c| self.registry.definition(c)) {
            Some(def) if name.contains(':') || def.namespaces.get("=").is_some() => def
                .namespaces
                .resolve(name)
                .unwrap_or_else(|_| name.trim_start_matches(':').to_owned()),
            _ => name.trim_start_matches(':').to_owned(),
        };
        // Murano retries `io.murano.extensions.X` as `X`.
        let unprefixed = |n: &str| {
            n.strip_prefix("io.murano.extensions.")
                .and_then(|short| self.find(short))
        };
        let found = self
            .find(&full)
            .or_else(|| self.find(name))
            .or_else(|| unprefixed(&full));
        if let Some(class) = found {
            return self.creatable(class);
        }
        // A package the class's package requires is missing: Murano
        // stops there (`NoPackageFound`).
        let missing = from
            .and_then(|c| self.registry.package_of(c))
            .map(|p| self.registry.resolve_class(p, &full));
        if let Some(Err(LookupError::NoPackageFound { name })) = missing {
            return Err(EngineError::dsl(
                "NoPackageFound",
                format!("Package \"{name}\" is not found"),
            ));
        }
        Err(EngineError::dsl(
            "NoClassFound",
            format!("Class \"{full}\" is not found"),
        ))
    }

    /// The class, or the error Murano raises creating it: a name in its
    /// `Extends` (or in an ancestor's) that does not resolve.
    pub fn creatable(&self, class: ClassId) -> Result<ClassId, EngineError> {
        match self.broken.get(&class) {
            None => Ok(class),
            Some(error) => {
                let type_name = error.python_exception();
                Err(match type_name {
                    "NoClassFound" | "NoPackageFound" => {
                        EngineError::dsl(type_name, error.to_string())
                    }
                    _ => EngineError::new(
                        crate::error::ErrorKind::Host {
                            type_name: type_name.to_owned(),
                            module: "builtins".to_owned(),
                        },
                        error.to_string(),
                    ),
                })
            }
        }
    }

    /// The full name of a class.
    pub fn name(&self, class: ClassId) -> &str {
        self.registry.class_name(class).unwrap_or("?")
    }

    /// The definition of a class.
    pub fn definition(&self, class: ClassId) -> Option<&ClassDefinition> {
        self.registry.definition(class)
    }

    /// The runtime version (`Format`) of a class's package, `(1, 0)` when
    /// the package declared none.
    pub fn runtime_version(&self, class: ClassId) -> (u32, u32) {
        self.registry
            .package_of(class)
            .and_then(|p| self.formats.get(&p).copied())
            .unwrap_or((1, 0))
    }

    /// The file a class was read from.
    pub fn file(&self, class: ClassId) -> Option<&str> {
        self.files.get(&class).map(String::as_str)
    }

    /// `Name/version@package`, as Murano writes types in object models.
    pub fn type_string(&self, class: ClassId) -> String {
        let version = self
            .registry
            .class_version(class)
            .map_or_else(|| "0.0.0".to_owned(), |v| v.to_string());
        let package = self
            .registry
            .package_of(class)
            .and_then(|p| self.registry.package(p))
            .map_or("", |p| p.name.as_str());
        format!("{}/{version}@{package}", self.name(class))
    }

    /// The class and its ancestors, most derived first.
    pub fn mro(&self, class: ClassId) -> Vec<ClassId> {
        self.registry.mro(class).unwrap_or_else(|_| vec![class])
    }

    /// Whether `class` is `ancestor` or inherits from it.
    pub fn is_subclass(&self, class: ClassId, ancestor: ClassId) -> bool {
        self.registry.is_subclass(class, ancestor).unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(text: &str) -> ClassSet {
        let mut b = ClassSetBuilder::new();
        let pkg = b.add_package("t", Version::new(0, 0, 0)).unwrap();
        let core = b.add_package("io.murano", Version::new(0, 0, 0)).unwrap();
        for def in ClassSetBuilder::parse_file(b"Name: io.murano.Object\n", "Object.yaml").unwrap()
        {
            b.add_class(core, "Object.yaml", def).unwrap();
        }
        for def in ClassSetBuilder::parse_file(text.as_bytes(), "T.yaml").unwrap() {
            b.add_class(pkg, "T.yaml", def).unwrap();
        }
        b.build()
    }

    #[test]
    fn a_class_whose_ancestry_does_not_resolve_cannot_be_created() {
        let set = classes(
            "Name: Fine\n---\nName: Orphan\nExtends: [Fine, gone.Parent, gone.Other]\n\
             ---\nName: Grandchild\nExtends: Orphan\n---\nName: BadName\nExtends: 'x:Y'\n",
        );
        assert!(set.resolve(None, "Fine").is_ok());
        // The first name of Murano's depth-first creation walk is reported.
        for name in ["Orphan", "Grandchild"] {
            let e = set.resolve(None, name).unwrap_err();
            assert_eq!(e.python_type(), "NoClassFound", "{name}: {e}");
            assert!(
                e.message
                    .starts_with("Class \"gone.Parent\" is not found in"),
                "{e}"
            );
        }
        // An undeclared namespace prefix is the resolver's KeyError.
        let e = set.resolve(None, "BadName").unwrap_err();
        assert_eq!(e.python_type(), "KeyError", "{e}");
        // Finding by name still works (reflection, discovery).
        assert!(set.find("Orphan").is_some());
    }
}
