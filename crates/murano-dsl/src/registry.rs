//! The class registry: classes of packages, linked the way Murano's engine
//! links them. No I/O: the host adds packages and the
//! [`ClassDefinition`]s of their class files, then
//! [`builds`](RegistryBuilder::build) a [`ClassRegistry`] and asks it
//! questions.
//!
//! * **Names.** A class finds other classes the way Murano's package does
//!   (`MuranoPackage.find_class`): in its own package first, then in each
//!   package its package requires, in the order of the requirements
//!   (`io.murano` first, then the manifest's `Require` entries), each
//!   required package being the highest registered version its spec
//!   allows. A class of a package that is not required is *not found*
//!   ([`LookupError::NoClassFound`]) and a required package that is not
//!   registered stops the search ([`LookupError::NoPackageFound`]), as in
//!   Murano. [`Resolution::Lenient`] also accepts names found anywhere in
//!   the registry, with a diagnostic.
//! * **Hierarchy.** A class without `Extends` extends `io.murano.Object`
//!   (the class of that name never has parents). [`ClassRegistry::ancestors`]
//!   is Murano's breadth-first traversal, [`ClassRegistry::find_method`] and
//!   [`ClassRegistry::find_property`] Murano's symbol resolution (the most
//!   derived declarations along every inheritance path; more than one is
//!   ambiguous), [`ClassRegistry::type_weights`] Murano's
//!   `weigh_type_hierarchy`. A class that extends itself, directly or not,
//!   is a diagnostic and every query on it an error.
//! * **Extension methods** through `Import`:
//!   [`ClassRegistry::find_extension_method`].
//! * **Meta.** Every `Meta` section (package, class, property, method,
//!   argument) is read as Murano's `MetaData` reads it and checked against
//!   each meta class's `Applies` and `Cardinality`;
//!   [`ClassRegistry::class_meta`], [`ClassRegistry::property_meta`] and
//!   [`ClassRegistry::method_meta`] aggregate meta over the hierarchy with
//!   the `Inherited` rule.
//!
//! Problems are [`Diagnostic`]s (codes in [`codes`]); nothing panics.
//!
//! ```
//! use murano_dsl::model::ClassDefinition;
//! use murano_dsl::registry::{PackageInfo, RegistryBuilder};
//! use murano_dsl::version::Version;
//! use murano_dsl::yaml::{load_class_file, LoadOptions};
//!
//! fn classes(text: &str) -> Vec<ClassDefinition> {
//!     let file = load_class_file(text.as_bytes(), &LoadOptions::default()).unwrap();
//!     ClassDefinition::from_documents(&file.documents, None)
//! }
//!
//! let mut builder = RegistryBuilder::new();
//! let core = builder.add_package(PackageInfo::new("io.murano", Version::new(0, 0, 0)))?;
//! builder.add_class_as(core, "io.murano.Object", classes("Name: Object").remove(0))?;
//! let app = builder.add_package(PackageInfo::new("com.example", Version::new(1, 0, 0)))?;
//! let text = "
//! Namespaces: {=: com.example}
//! Name: Base
//! Methods:
//!   deploy:
//!     Body: []
//! ---
//! Name: Left
//! Extends: Base
//! ---
//! Name: Right
//! Extends: Base
//! Methods:
//!   deploy:
//!     Body: []
//! ---
//! Name: App
//! Extends: [Left, Right]
//! ";
//! for class in classes(text) {
//!     builder.add_class(app, class)?;
//! }
//! let registry = builder.build();
//! assert!(registry.diagnostics().is_empty());
//!
//! let app_class = registry.find_class("com.example.App", None).unwrap();
//! let names = |ids: Vec<_>| -> Vec<&str> {
//!     ids.into_iter().filter_map(|c| registry.class_name(c)).collect()
//! };
//! assert_eq!(
//!     names(registry.mro(app_class)?),
//!     ["com.example.App", "com.example.Left", "com.example.Right",
//!      "com.example.Base", "io.murano.Object"]
//! );
//! // Right overrides Base's deploy; Left inherits it: Right's wins.
//! let deploy = registry.find_single_method(app_class, "deploy")?;
//! assert_eq!(registry.class_name(deploy.class), Some("com.example.Right"));
//! let weights = registry.type_weights(app_class)?;
//! assert_eq!(weights.get("com.example.Base"), Some(2));
//! assert_eq!(weights.get("io.murano.Object"), Some(3));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Murano behaviours kept on purpose
//!
//! * No C3 linearization: for each name, the declarations along every
//!   path from the class to a root are collected (Murano's "symbol
//!   chains"), and a declaration is dropped when some path reaches it
//!   through another declaration. So `D: [A, B]` with `B: A` and both
//!   declaring `m` resolves to `B.m`, and two unrelated declarations are
//!   ambiguous even where Python's MRO would choose one.
//! * Classes are the same when name and package version are
//!   (`ancestors`, `is_subclass`, meta merging); type weights are keyed by
//!   name only, so versions of one class share an entry.
//! * `io.murano.Object` never has parents; a false `Extends` (absent,
//!   null, `[]`, `''`) means `io.murano.Object`.
//! * Lookups from a package: a missing required package stops the search
//!   (`NoPackageFound`) even when a later requirement has the class; the
//!   `io.murano.extensions.` prefix is retried without it; messages are
//!   Murano's (`Class "X" is not found in io.murano/0.0.0, app/1.0.0`).
//! * `Import`: an entry written exactly as the class's own name or an
//!   earlier entry is skipped, as is one resolving to an already imported
//!   class; `:Self` (resolving to the class itself) is kept.
//! * `Meta`: `Meta: {}` and a mapping with several keys are invalid, a
//!   null entry is Murano's `AttributeError`, package meta names resolve
//!   without namespaces, property and method meta aggregate from the
//!   declaring class (an override without meta keeps inherited meta),
//!   argument meta is never inherited.
//!
//! # Differences from Murano
//!
//! * Murano stops at the first problem of a class, and a class that cannot
//!   load breaks every class extending it; the registry reports each
//!   problem once, on the class that has it, and keeps what resolves.
//! * A cyclic `Extends` is [`codes::CYCLE`]; Murano reports it as
//!   `NoClassFound` for the class it started loading from.
//! * The class model keeps no raw `Extends` node, so `Extends: ['']` is
//!   read like `Extends: ''` (`io.murano.Object`; Murano fails on the
//!   former), and non-string entries, which the model drops with an issue,
//!   are not parents.
//! * Murano keeps a session-wide table of package versions already in use
//!   and prefers them; the registry always takes the highest version a
//!   spec allows.
//! * When two packages of a hierarchy reach one package through different
//!   requirements, Murano (at the reference commit) tries to remap class
//!   versions and fails with a `TypeError`; the registry reports
//!   [`codes::VERSION_REMAP`] and keeps the declared parents. Specs are
//!   compared by their normalized text.
//! * Meta aggregation returns a list in a fixed order (the class's own
//!   meta first, then its parents' depth first); Murano builds a Python
//!   set, whose order is arbitrary.

mod diagnostic;
mod extension;
mod hierarchy;
mod meta;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

pub use crate::diagnostic::Diagnostic;
use diagnostic::Finding;
pub use diagnostic::{codes, LookupError, QueryError, RegistryError};
pub use extension::{ExtensionCandidate, ExtensionSource};
pub use hierarchy::{MemberRef, TypeWeights};
pub use meta::{DeclaredMeta, MetaAttachment, MetaInstance};

use crate::model::{ClassDefinition, ClassUsage, MetaClassInfo, Namespaces, TypeRef};
use crate::version::{Version, VersionSpec};
use crate::yaml::{Mark, Node};

/// The core library package (`io.murano`), which every other package
/// requires implicitly.
pub const CORE_LIBRARY: &str = "io.murano";

/// The root class of every hierarchy.
pub const OBJECT_CLASS: &str = "io.murano.Object";

/// A package of a registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PackageId(usize);

impl PackageId {
    /// The position of the package in registration order.
    pub fn index(self) -> usize {
        self.0
    }
}

/// A class of a registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassId(usize);

impl ClassId {
    /// The position of the class in registration order.
    pub fn index(self) -> usize {
        self.0
    }
}

/// What the registry needs to know about a package: the manifest's
/// `FullName`, `Version`, `Require` and `Meta`.
#[derive(Debug, Clone)]
pub struct PackageInfo {
    /// `FullName`.
    pub name: String,
    /// `Version` (see [`crate::version::manifest_version`]).
    pub version: Version,
    /// `Require`, in manifest order, each spec as
    /// [`crate::version::parse_version_spec`] makes it.
    pub requirements: Vec<(String, VersionSpec)>,
    /// `Meta`, as written.
    pub meta: Option<Node>,
}

impl PackageInfo {
    /// A package without requirements or meta.
    pub fn new(name: impl Into<String>, version: Version) -> PackageInfo {
        PackageInfo {
            name: name.into(),
            version,
            requirements: Vec::new(),
            meta: None,
        }
    }

    /// Adds a `Require` entry.
    pub fn with_requirement(mut self, name: impl Into<String>, spec: VersionSpec) -> PackageInfo {
        self.requirements.push((name.into(), spec));
        self
    }

    /// Sets the package's `Meta`.
    pub fn with_meta(mut self, meta: Node) -> PackageInfo {
        self.meta = Some(meta);
        self
    }

    /// The requirements as Murano's package holds them, in lookup order:
    /// the package itself (`==MAJOR`), `io.murano` (`==0`, unless this is
    /// `io.murano`), then the `Require` entries (an entry for a name
    /// already listed replaces its spec in place).
    ///
    /// ```
    /// use murano_dsl::registry::PackageInfo;
    /// use murano_dsl::version::{Version, VersionSpec};
    ///
    /// let info = PackageInfo::new("com.example", Version::new(2, 1, 0))
    ///     .with_requirement("com.example.lib", VersionSpec::parse(">=1.0.0")?);
    /// let names: Vec<String> = info
    ///     .effective_requirements()
    ///     .into_iter()
    ///     .map(|(name, spec)| format!("{name} {spec}"))
    ///     .collect();
    /// assert_eq!(names, ["com.example ==2", "io.murano ==0", "com.example.lib >=1.0.0"]);
    /// # Ok::<(), murano_dsl::version::VersionError>(())
    /// ```
    pub fn effective_requirements(&self) -> Vec<(String, VersionSpec)> {
        let mut out: Vec<(String, VersionSpec)> = Vec::new();
        if let Ok(spec) = VersionSpec::parse(&format!("=={}", self.version.major())) {
            out.push((self.name.clone(), spec));
        }
        if self.name != CORE_LIBRARY {
            if let Ok(spec) = VersionSpec::parse("==0") {
                out.push((CORE_LIBRARY.to_owned(), spec));
            }
        }
        for (name, spec) in &self.requirements {
            match out.iter_mut().find(|(n, _)| n == name) {
                Some(entry) => entry.1 = spec.clone(),
                None => out.push((name.clone(), spec.clone())),
            }
        }
        out
    }
}

/// How strictly names resolve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Resolution {
    /// As Murano: own package, then required packages only.
    #[default]
    Strict,
    /// As Murano, and when that fails, the highest version of the name
    /// anywhere in the registry (with an [`codes::OUTSIDE_REQUIREMENTS`]
    /// diagnostic). Useful to analyse packages whose `Require` is
    /// incomplete.
    Lenient,
}

#[derive(Debug, Clone)]
struct ClassEntry {
    name: String,
    package: PackageId,
    definition: ClassDefinition,
}

/// Collects packages and classes; [`build`](RegistryBuilder::build) links
/// them.
#[derive(Debug, Clone, Default)]
pub struct RegistryBuilder {
    packages: Vec<PackageInfo>,
    package_classes: Vec<HashMap<String, ClassId>>,
    classes: Vec<ClassEntry>,
    resolution: Resolution,
}

impl RegistryBuilder {
    /// An empty builder with [`Resolution::Strict`].
    pub fn new() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    /// Sets how names resolve.
    pub fn resolution(mut self, resolution: Resolution) -> RegistryBuilder {
        self.resolution = resolution;
        self
    }

    /// Adds a package. Fails if one with the same name and version is
    /// already there.
    pub fn add_package(&mut self, info: PackageInfo) -> Result<PackageId, RegistryError> {
        if self
            .packages
            .iter()
            .any(|p| p.name == info.name && p.version == info.version)
        {
            return Err(RegistryError::DuplicatePackage {
                name: info.name,
                version: info.version,
            });
        }
        self.packages.push(info);
        self.package_classes.push(HashMap::new());
        Ok(PackageId(self.packages.len() - 1))
    }

    /// Adds a class under its own full name (`Name` resolved through its
    /// namespaces).
    pub fn add_class(
        &mut self,
        package: PackageId,
        class: ClassDefinition,
    ) -> Result<ClassId, RegistryError> {
        let name = class.full_name.clone().ok_or(RegistryError::UnnamedClass)?;
        self.add_class_as(package, name, class)
    }

    /// Adds a class under the given full name (the name a manifest's
    /// `Classes` gives it; an unnamed class takes it in Murano).
    pub fn add_class_as(
        &mut self,
        package: PackageId,
        name: impl Into<String>,
        class: ClassDefinition,
    ) -> Result<ClassId, RegistryError> {
        let name = name.into();
        let (Some(info), Some(table)) = (
            self.packages.get(package.0),
            self.package_classes.get_mut(package.0),
        ) else {
            return Err(RegistryError::UnknownPackage(package));
        };
        if table.contains_key(&name) {
            return Err(RegistryError::DuplicateClass {
                package: info.name.clone(),
                name,
            });
        }
        let id = ClassId(self.classes.len());
        table.insert(name.clone(), id);
        self.classes.push(ClassEntry {
            name,
            package,
            definition: class,
        });
        Ok(id)
    }

    /// Links everything: parents, imports, meta, cycles. Never fails;
    /// problems become [`Diagnostic`]s.
    pub fn build(self) -> ClassRegistry {
        let mut packages_by_name: HashMap<String, Vec<PackageId>> = HashMap::new();
        for (i, p) in self.packages.iter().enumerate() {
            packages_by_name
                .entry(p.name.clone())
                .or_default()
                .push(PackageId(i));
        }
        let requirements = self
            .packages
            .iter()
            .map(PackageInfo::effective_requirements)
            .collect();
        let mut key_table: HashMap<(String, Version), usize> = HashMap::new();
        let keys = self
            .classes
            .iter()
            .map(|c| {
                let version = self.packages[c.package.0].version.clone();
                let next = key_table.len();
                *key_table.entry((c.name.clone(), version)).or_insert(next)
            })
            .collect();
        let members = self
            .classes
            .iter()
            .map(|c| hierarchy::Members::new(&c.definition))
            .collect();
        let mut registry = ClassRegistry {
            packages: self.packages,
            package_classes: self.package_classes,
            packages_by_name,
            requirements,
            classes: self.classes,
            keys,
            members,
            links: Vec::new(),
            package_meta: Vec::new(),
            cycles: Vec::new(),
            diagnostics: Vec::new(),
            origins: Vec::new(),
            resolution: self.resolution,
        };
        registry.link();
        registry
    }
}

/// How a declared parent resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ParentLink {
    /// The name as written in `Extends` (`None` for the implicit
    /// `io.murano.Object`).
    pub written: Option<String>,
    /// The class, or why it was not found.
    pub target: Result<ClassId, LookupError>,
    /// Where the entry starts (the class document for the implicit
    /// parent).
    pub start: Mark,
    /// Where it ends.
    pub end: Mark,
}

#[derive(Debug, Clone, Default)]
struct Links {
    parent_links: Vec<ParentLink>,
    parents: Vec<ClassId>,
    imports: Vec<ClassId>,
    cycle: Option<usize>,
    meta: DeclaredMeta,
}

/// Linked classes of packages. Built by [`RegistryBuilder::build`].
#[derive(Debug, Clone)]
pub struct ClassRegistry {
    packages: Vec<PackageInfo>,
    package_classes: Vec<HashMap<String, ClassId>>,
    packages_by_name: HashMap<String, Vec<PackageId>>,
    requirements: Vec<Vec<(String, VersionSpec)>>,
    classes: Vec<ClassEntry>,
    /// Murano's class identity: (name, package version).
    keys: Vec<usize>,
    members: Vec<hierarchy::Members>,
    links: Vec<Links>,
    package_meta: Vec<Vec<MetaAttachment>>,
    cycles: Vec<Vec<ClassId>>,
    diagnostics: Vec<Diagnostic>,
    /// The package and class of each of `diagnostics`.
    origins: Vec<(PackageId, Option<ClassId>)>,
    resolution: Resolution,
}

impl ClassRegistry {
    /// Every package id, in registration order.
    pub fn packages(&self) -> impl Iterator<Item = PackageId> {
        (0..self.packages.len()).map(PackageId)
    }

    /// A package's information.
    pub fn package(&self, package: PackageId) -> Option<&PackageInfo> {
        self.packages.get(package.0)
    }

    /// The highest version of a package that `spec` allows (any version
    /// without a spec): Murano's `load_package`.
    pub fn find_package(&self, name: &str, spec: Option<&VersionSpec>) -> Option<PackageId> {
        self.packages_by_name
            .get(name)?
            .iter()
            .copied()
            .filter(|p| spec.is_none_or(|s| s.matches(&self.packages[p.0].version)))
            .max_by(|a, b| self.packages[a.0].version.cmp(&self.packages[b.0].version))
    }

    /// Every class id, in registration order.
    pub fn classes(&self) -> impl Iterator<Item = ClassId> {
        (0..self.classes.len()).map(ClassId)
    }

    /// How many classes there are.
    pub fn class_count(&self) -> usize {
        self.classes.len()
    }

    /// A class's full name.
    pub fn class_name(&self, class: ClassId) -> Option<&str> {
        self.classes.get(class.0).map(|c| c.name.as_str())
    }

    /// A class's definition.
    pub fn definition(&self, class: ClassId) -> Option<&ClassDefinition> {
        self.classes.get(class.0).map(|c| &c.definition)
    }

    /// The package a class belongs to.
    pub fn package_of(&self, class: ClassId) -> Option<PackageId> {
        self.classes.get(class.0).map(|c| c.package)
    }

    /// The version of a class (its package's).
    pub fn class_version(&self, class: ClassId) -> Option<&Version> {
        self.package_of(class)
            .and_then(|p| self.package(p))
            .map(|p| &p.version)
    }

    /// The meta-class settings of a class declared `Usage: Meta`.
    pub fn meta_class_info(&self, class: ClassId) -> Option<&MetaClassInfo> {
        let def = self.definition(class)?;
        if def.usage == ClassUsage::Meta {
            def.meta_class.as_ref()
        } else {
            None
        }
    }

    /// The class of that name in that package only.
    pub fn class_in_package(&self, package: PackageId, name: &str) -> Option<ClassId> {
        self.package_classes.get(package.0)?.get(name).copied()
    }

    /// The class of that name in the highest package version that `spec`
    /// allows (any version without a spec): Murano's `load_class_package`
    /// followed by `find_class`. Of two packages with the same version the
    /// one registered later wins.
    pub fn find_class(&self, name: &str, spec: Option<&VersionSpec>) -> Option<ClassId> {
        let mut best: Option<(ClassId, &Version)> = None;
        for (i, table) in self.package_classes.iter().enumerate() {
            let Some(&class) = table.get(name) else {
                continue;
            };
            let version = &self.packages[i].version;
            if spec.is_some_and(|s| !s.matches(version)) {
                continue;
            }
            if best.is_none_or(|(_, v)| version >= v) {
                best = Some((class, version));
            }
        }
        best.map(|(c, _)| c)
    }

    /// Murano's `find_class` of a package: its own classes, then each
    /// required package (see [`PackageInfo::effective_requirements`]) in
    /// order. A name starting with `io.murano.extensions` is also tried
    /// without that prefix in each required package. Always strict.
    ///
    /// ```
    /// use murano_dsl::model::ClassDefinition;
    /// use murano_dsl::registry::{LookupError, PackageInfo, RegistryBuilder};
    /// use murano_dsl::version::Version;
    /// use murano_dsl::yaml::{load_class_file, LoadOptions};
    ///
    /// let class = |text: &str| {
    ///     let file = load_class_file(text.as_bytes(), &LoadOptions::default()).unwrap();
    ///     ClassDefinition::from_documents(&file.documents, None).remove(0)
    /// };
    /// let mut builder = RegistryBuilder::new();
    /// let core = builder.add_package(PackageInfo::new("io.murano", Version::new(0, 0, 0)))?;
    /// builder.add_class(core, class("Name: io.murano.Object"))?;
    /// let lib = builder.add_package(PackageInfo::new("com.lib", Version::new(0, 0, 0)))?;
    /// builder.add_class(lib, class("Name: com.lib.Thing"))?;
    /// let app = builder.add_package(PackageInfo::new("com.app", Version::new(0, 0, 0)))?;
    /// let registry = builder.build();
    ///
    /// assert!(registry.resolve_class(app, "io.murano.Object").is_ok());
    /// // com.app does not require com.lib:
    /// let err = registry.resolve_class(app, "com.lib.Thing").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "Class \"com.lib.Thing\" is not found in io.murano/0.0.0, com.app/0.0.0"
    /// );
    /// assert!(matches!(err, LookupError::NoClassFound { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resolve_class(&self, from: PackageId, name: &str) -> Result<ClassId, LookupError> {
        let Some(info) = self.packages.get(from.0) else {
            return Err(LookupError::NoClassFound {
                name: name.to_owned(),
                packages: Vec::new(),
            });
        };
        if let Some(class) = self.class_in_package(from, name) {
            return Ok(class);
        }
        let mut searched = Vec::new();
        for (package_name, spec) in self.requirements.get(from.0).into_iter().flatten() {
            if *package_name == info.name {
                continue;
            }
            let Some(package) = self.find_package(package_name, Some(spec)) else {
                return Err(LookupError::NoPackageFound {
                    name: package_name.clone(),
                });
            };
            if let Some(class) = self.class_in_package(package, name) {
                return Ok(class);
            }
            if name.starts_with("io.murano.extensions") {
                let short = name.replacen("io.murano.extensions.", "", 1);
                if let Some(class) = self.class_in_package(package, &short) {
                    return Ok(class);
                }
            }
            searched.push(package);
        }
        searched.push(from);
        Err(LookupError::NoClassFound {
            name: name.to_owned(),
            packages: searched
                .into_iter()
                .map(|p| {
                    let p = &self.packages[p.0];
                    (p.name.clone(), p.version.clone())
                })
                .collect(),
        })
    }

    /// How the parents a class declares resolved, in `Extends` order.
    pub fn parent_links(&self, class: ClassId) -> &[ParentLink] {
        self.links
            .get(class.0)
            .map_or(&[], |l| l.parent_links.as_slice())
    }

    /// The classes a class extends (those that resolved), in `Extends`
    /// order. `io.murano.Object` has none.
    pub fn parents(&self, class: ClassId) -> &[ClassId] {
        self.links
            .get(class.0)
            .map_or(&[], |l| l.parents.as_slice())
    }

    /// Whether every parent of the class and of its ancestors resolved.
    pub fn is_complete(&self, class: ClassId) -> bool {
        let Ok(mut all) = self.ancestors(class) else {
            return false;
        };
        all.push(class);
        all.iter()
            .all(|c| self.parent_links(*c).iter().all(|l| l.target.is_ok()))
    }

    /// The cycle a class is part of or extends (first class repeated at
    /// the end), if any.
    pub fn cycle(&self, class: ClassId) -> Option<&[ClassId]> {
        let index = self.links.get(class.0)?.cycle?;
        self.cycles.get(index).map(Vec::as_slice)
    }

    /// The classes named by `Import` that resolved, as Murano keeps them:
    /// in order, without repeats.
    pub fn imports(&self, class: ClassId) -> &[ClassId] {
        self.links
            .get(class.0)
            .map_or(&[], |l| l.imports.as_slice())
    }

    /// Every problem found, in class registration order (package meta
    /// last). Each has the class (or, for package meta, the package) as
    /// its subject; [`ClassRegistry::diagnostic_origins`] gives their ids.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Each of [`ClassRegistry::diagnostics`] with the package whose file
    /// holds the problem and the class it concerns (`None` for a
    /// package's own meta).
    pub fn diagnostic_origins(
        &self,
    ) -> impl Iterator<Item = (&Diagnostic, PackageId, Option<ClassId>)> {
        self.diagnostics
            .iter()
            .zip(&self.origins)
            .map(|(d, &(package, class))| (d, package, class))
    }

    /// The problems of one class.
    pub fn class_diagnostics(&self, class: ClassId) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostic_origins()
            .filter(move |(_, _, c)| *c == Some(class))
            .map(|(d, _, _)| d)
    }

    fn key(&self, class: ClassId) -> usize {
        self.keys.get(class.0).copied().unwrap_or(usize::MAX)
    }

    fn name_of(&self, class: ClassId) -> String {
        self.class_name(class).unwrap_or("?").to_owned()
    }

    /// Murano's lookup from a package, plus the lenient fallback: the
    /// class, and the strict error when only the fallback found it.
    fn lookup(
        &self,
        from: PackageId,
        name: &str,
    ) -> (Result<ClassId, LookupError>, Option<LookupError>) {
        match self.resolve_class(from, name) {
            Ok(c) => (Ok(c), None),
            Err(err) => {
                if self.resolution == Resolution::Lenient {
                    if let Some(c) = self.find_class(name, None) {
                        return (Ok(c), Some(err));
                    }
                }
                (Err(err), None)
            }
        }
    }

    /// Resolves a written type name from a class (its namespaces and
    /// package), recording diagnostics under `code`.
    fn link_name(
        &self,
        ctx: &LinkContext,
        resolved: &Result<String, crate::model::NameError>,
        code: &'static str,
        span: (Mark, Mark),
        diagnostics: &mut Vec<Finding>,
    ) -> Result<ClassId, LookupError> {
        let full = match resolved {
            Ok(full) => full,
            Err(e) => {
                let err = LookupError::InvalidName(e.clone());
                diagnostics.push(ctx.diagnostic(
                    code,
                    err.to_string(),
                    err.python_exception(),
                    span,
                ));
                return Err(err);
            }
        };
        let (result, note) = self.lookup(ctx.package, full);
        match (&result, note) {
            (Ok(c), Some(strict)) => diagnostics.push(ctx.diagnostic(
                codes::OUTSIDE_REQUIREMENTS,
                format!(
                    "{full} resolves to {}/{} only outside what package {} can see: {strict}",
                    self.name_of(*c),
                    self.class_version(*c).map(|v| v.to_string()).unwrap_or_default(),
                    self.packages
                        .get(ctx.package.0)
                        .map_or("?", |p| p.name.as_str()),
                ),
                strict.python_exception(),
                span,
            )),
            (Err(err), _) => diagnostics.push(ctx.diagnostic(
                code,
                err.to_string(),
                err.python_exception(),
                span,
            )),
            _ => {}
        }
        result
    }

    fn link(&mut self) {
        let mut diagnostics = Vec::new();
        let mut links: Vec<Links> = Vec::with_capacity(self.classes.len());
        for class in self.classes() {
            let (parent_links, parents) = self.link_parents(class, &mut diagnostics);
            links.push(Links {
                parent_links,
                parents,
                ..Links::default()
            });
        }
        self.links = links;
        let mut cycle_diags = hierarchy::detect_cycles(self);
        let mut per_class: Vec<Vec<Finding>> = vec![Vec::new(); self.classes.len()];
        for d in diagnostics.drain(..).chain(cycle_diags.drain(..)) {
            if let Some(slot) = d.class.and_then(|c| per_class.get_mut(c.0)) {
                slot.push(d);
            }
        }
        for class in self.classes() {
            let mut diags = Vec::new();
            self.check_parent_usage(class, &mut diags);
            hierarchy::check_remapping(self, class, &mut diags);
            let imports = self.link_imports(class, &mut diags);
            let meta = self.read_class_meta(class, &mut diags);
            if let Some(links) = self.links.get_mut(class.0) {
                links.imports = imports;
                links.meta = meta;
            }
            if let Some(slot) = per_class.get_mut(class.0) {
                slot.extend(diags);
            }
        }
        for class in self.classes() {
            let diags = self.check_meta_inheritance(class);
            if let Some(slot) = per_class.get_mut(class.0) {
                slot.extend(diags);
            }
        }
        let mut package_diags = Vec::new();
        self.package_meta = self
            .packages()
            .map(|p| self.read_package_meta(p, &mut package_diags))
            .collect();
        for mut diags in per_class {
            diags.sort_by_key(|d| (d.start.index, d.end.index));
            self.record(diags);
        }
        self.record(package_diags);
    }

    /// Turns findings into diagnostics, the class (or package) named as
    /// their subject.
    fn record(&mut self, findings: Vec<Finding>) {
        for finding in findings {
            let subject = match finding.class {
                Some(class) => self.name_of(class),
                None => self
                    .package(finding.package)
                    .map_or_else(|| "?".to_owned(), |p| p.name.clone()),
            };
            self.origins.push((finding.package, finding.class));
            self.diagnostics.push(finding.into_diagnostic(subject));
        }
    }

    fn link_parents(
        &self,
        class: ClassId,
        diagnostics: &mut Vec<Finding>,
    ) -> (Vec<ParentLink>, Vec<ClassId>) {
        let Some(entry) = self.classes.get(class.0) else {
            return (Vec::new(), Vec::new());
        };
        let def = &entry.definition;
        let ctx = LinkContext {
            package: entry.package,
            class: Some(class),
        };
        // Murano: a false Extends (absent, null, empty list, empty string)
        // means io.murano.Object.
        let declared: Vec<&TypeRef> = if def.extends.len() == 1 && def.extends[0].written.is_empty()
        {
            Vec::new()
        } else {
            def.extends.iter().collect()
        };
        let mut links = Vec::new();
        if declared.is_empty() {
            if entry.name != OBJECT_CLASS {
                let target = self.link_name(
                    &ctx,
                    &Ok(OBJECT_CLASS.to_owned()),
                    codes::UNRESOLVED_PARENT,
                    (def.start, def.end),
                    diagnostics,
                );
                links.push(ParentLink {
                    written: None,
                    target,
                    start: def.start,
                    end: def.end,
                });
            }
        } else {
            for parent in declared {
                let target = self.link_name(
                    &ctx,
                    &parent.resolved,
                    codes::UNRESOLVED_PARENT,
                    (parent.start, parent.end),
                    diagnostics,
                );
                links.push(ParentLink {
                    written: Some(parent.written.clone()),
                    target,
                    start: parent.start,
                    end: parent.end,
                });
            }
        }
        // io.murano.Object never has parents, even when it declares some
        // (their names are still looked up).
        let parents = if entry.name == OBJECT_CLASS {
            Vec::new()
        } else {
            links
                .iter()
                .filter_map(|l| l.target.as_ref().ok().copied())
                .collect()
        };
        (links, parents)
    }

    fn check_parent_usage(&self, class: ClassId, diagnostics: &mut Vec<Finding>) {
        let Some(def) = self.definition(class) else {
            return;
        };
        if def.usage != ClassUsage::Class {
            return;
        }
        for link in self.parent_links(class) {
            let Ok(parent) = link.target else { continue };
            if self.definition(parent).map(|d| d.usage) == Some(ClassUsage::Meta) {
                diagnostics.push(Finding {
                    code: codes::META_PARENT,
                    message: format!(
                        "class {} cannot extend the meta class {}",
                        self.name_of(class),
                        self.name_of(parent)
                    ),
                    python_exception: "InvalidInheritanceError",
                    package: self.package_of(class).unwrap_or(PackageId(0)),
                    class: Some(class),
                    start: link.start,
                    end: link.end,
                });
            }
        }
    }

    fn link_imports(&self, class: ClassId, diagnostics: &mut Vec<Finding>) -> Vec<ClassId> {
        let Some(entry) = self.classes.get(class.0) else {
            return Vec::new();
        };
        let ctx = LinkContext {
            package: entry.package,
            class: Some(class),
        };
        // Murano skips an import written exactly as the class's own name
        // or as an earlier import, and one resolving to a class already
        // imported.
        let mut seen_names: Vec<&str> = vec![entry.name.as_str()];
        let mut seen_keys: Vec<usize> = Vec::new();
        let mut out = Vec::new();
        for import in &entry.definition.import {
            if seen_names.contains(&import.written.as_str()) {
                continue;
            }
            let Ok(target) = self.link_name(
                &ctx,
                &import.resolved,
                codes::UNRESOLVED_IMPORT,
                (import.start, import.end),
                diagnostics,
            ) else {
                continue;
            };
            let key = self.key(target);
            if seen_keys.contains(&key) {
                continue;
            }
            seen_names.push(import.written.as_str());
            seen_keys.push(key);
            out.push(target);
        }
        out
    }

    fn namespaces_of(&self, class: ClassId) -> Option<&Namespaces> {
        self.definition(class).map(|d| &d.namespaces)
    }
}

/// Where names are resolved from, and who gets the diagnostics.
#[derive(Debug, Clone, Copy)]
struct LinkContext {
    package: PackageId,
    class: Option<ClassId>,
}

impl LinkContext {
    fn diagnostic(
        &self,
        code: &'static str,
        message: String,
        python_exception: &'static str,
        (start, end): (Mark, Mark),
    ) -> Finding {
        Finding {
            code,
            message,
            python_exception,
            package: self.package,
            class: self.class,
            start,
            end,
        }
    }
}
