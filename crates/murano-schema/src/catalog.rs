//! The classes a schema request can see: packages linked into a
//! [`ClassRegistry`], with the MuranoPL runtime version of each package.

use std::collections::HashMap;

use murano_dsl::model::ClassDefinition;
use murano_dsl::registry::{ClassRegistry, PackageId, PackageInfo, RegistryBuilder};
use murano_dsl::version::{parse_version_spec, Version, YamlScalar};
use murano_packages::Package;
use murano_yaml::{load_class_file, LoadOptions, Value as YamlValue};

use crate::SchemaError;

/// Collects packages (or manifest-less class directories) for a
/// [`Catalog`].
///
/// ```
/// use murano_packages::{source::FileMap, PluginRegistry};
/// use murano_schema::CatalogBuilder;
///
/// let mut files = FileMap::new();
/// files.insert("manifest.yaml", b"Format: MuranoPL/1.4\nFullName: io.murano\n\
/// Type: Library\nClasses:\n  io.murano.Object: Object.yaml\n".to_vec())?;
/// files.insert("Classes/Object.yaml", b"Name: io.murano.Object\n".to_vec())?;
/// let package = PluginRegistry::with_builtins().load(files)?;
///
/// let mut builder = CatalogBuilder::new();
/// let skipped = builder.add_package(package.as_ref())?;
/// assert!(skipped.is_empty());
/// let catalog = builder.build();
/// assert!(catalog.registry().find_class("io.murano.Object", None).is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct CatalogBuilder {
    builder: RegistryBuilder,
    runtimes: HashMap<PackageId, (u32, u32)>,
}

/// Packages linked together, ready for [`generate`](crate::generate).
#[derive(Debug)]
pub struct Catalog {
    registry: ClassRegistry,
    runtimes: HashMap<PackageId, (u32, u32)>,
}

fn runtime_of(version: &Version) -> (u32, u32) {
    let part = |n: &murano_dsl::version::VersionNumber| {
        n.as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(u32::MAX)
    };
    (part(version.major()), part(version.minor()))
}

fn parse_classes(bytes: &[u8]) -> Result<Vec<ClassDefinition>, String> {
    let file = load_class_file(bytes, &LoadOptions::default()).map_err(|e| e.to_string())?;
    Ok(ClassDefinition::from_documents(&file.documents, None))
}

impl CatalogBuilder {
    /// An empty builder.
    ///
    /// ```
    /// let catalog = murano_schema::CatalogBuilder::new().build();
    /// assert_eq!(catalog.registry().class_count(), 0);
    /// ```
    pub fn new() -> CatalogBuilder {
        CatalogBuilder::default()
    }

    /// Adds a package and every class its manifest lists (a class file may
    /// hold several classes; the one named as listed is taken). Classes
    /// that cannot be read are left out, as Murano cannot load them
    /// either; their names and reasons are returned.
    pub fn add_package(
        &mut self,
        package: &dyn Package,
    ) -> Result<Vec<(String, String)>, SchemaError> {
        let mut info = PackageInfo::new(package.full_name(), package.version().clone());
        let require = package.requirements();
        if let YamlValue::Map(pairs) = &require.value {
            for (name, spec) in pairs {
                let spec = parse_version_spec(&YamlScalar::from(&spec.value))
                    .map_err(|e| SchemaError::package(e.to_string()))?;
                info = info.with_requirement(name.value.python_str(), spec);
            }
        }
        let meta = package.meta();
        if !matches!(meta.value, YamlValue::Null) {
            info = info.with_meta(meta);
        }
        let id = self
            .builder
            .add_package(info)
            .map_err(|e| SchemaError::package(e.to_string()))?;
        self.runtimes
            .insert(id, runtime_of(package.runtime_version()));
        let names = package
            .classes()
            .map_err(|e| SchemaError::package(e.to_string()))?;
        let mut skipped = Vec::new();
        for name in names {
            let source = match package.get_class(&name) {
                Ok(s) => s,
                Err(e) => {
                    skipped.push((name, e.to_string()));
                    continue;
                }
            };
            let classes = match parse_classes(&source.bytes) {
                Ok(c) => c,
                Err(e) => {
                    skipped.push((name, e));
                    continue;
                }
            };
            let Some(class) = classes
                .into_iter()
                .find(|c| c.full_name.as_deref() == Some(name.as_str()))
            else {
                skipped.push((name, "the class file declares another class".into()));
                continue;
            };
            if let Err(e) = self.builder.add_class_as(id, name.clone(), class) {
                skipped.push((name, e.to_string()));
            }
        }
        Ok(skipped)
    }

    /// Adds a class directory without a manifest, as Murano's unit-test
    /// loader reads one: every class of every file, under the package name
    /// and runtime version given. Files that cannot be read are returned.
    ///
    /// ```
    /// use murano_dsl::version::Version;
    /// use murano_schema::CatalogBuilder;
    ///
    /// let mut builder = CatalogBuilder::new();
    /// let bad = builder.add_class_directory(
    ///     "io.murano",
    ///     Version::new(0, 0, 0),
    ///     (1, 0),
    ///     vec![("Object.yaml".to_owned(), b"Name: io.murano.Object".to_vec())],
    /// )?;
    /// assert!(bad.is_empty());
    /// assert_eq!(builder.build().registry().class_count(), 1);
    /// # Ok::<(), murano_schema::SchemaError>(())
    /// ```
    pub fn add_class_directory(
        &mut self,
        name: &str,
        version: Version,
        runtime: (u32, u32),
        files: Vec<(String, Vec<u8>)>,
    ) -> Result<Vec<(String, String)>, SchemaError> {
        let id = self
            .builder
            .add_package(PackageInfo::new(name, version))
            .map_err(|e| SchemaError::package(e.to_string()))?;
        self.runtimes.insert(id, runtime);
        let mut skipped = Vec::new();
        for (file, bytes) in files {
            match parse_classes(&bytes) {
                Ok(classes) => {
                    for class in classes {
                        if let Err(e) = self.builder.add_class(id, class) {
                            skipped.push((file.clone(), e.to_string()));
                        }
                    }
                }
                Err(e) => skipped.push((file, e)),
            }
        }
        Ok(skipped)
    }

    /// Links the packages.
    pub fn build(self) -> Catalog {
        Catalog {
            registry: self.builder.build(),
            runtimes: self.runtimes,
        }
    }
}

impl Catalog {
    /// The linked classes.
    pub fn registry(&self) -> &ClassRegistry {
        &self.registry
    }

    /// The MuranoPL runtime version (major, minor) of a package (1.0 when
    /// unknown).
    ///
    /// ```
    /// use murano_dsl::version::Version;
    /// use murano_schema::CatalogBuilder;
    ///
    /// let mut builder = CatalogBuilder::new();
    /// builder.add_class_directory("tests", Version::new(0, 0, 0), (1, 0), Vec::new())?;
    /// let catalog = builder.build();
    /// let package = catalog.registry().packages().next().unwrap();
    /// assert_eq!(catalog.runtime(package), (1, 0));
    /// # Ok::<(), murano_schema::SchemaError>(())
    /// ```
    pub fn runtime(&self, package: PackageId) -> (u32, u32) {
        self.runtimes.get(&package).copied().unwrap_or((1, 0))
    }
}
