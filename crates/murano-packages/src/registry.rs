//! The plug-in registry: package types keyed by format name and version.

use std::sync::Arc;

use murano_dsl::version::{Version, YamlScalar};

use crate::error::PackageError;
use crate::format::{format_text, FormatError, HEAT_HOT, MURANO_PL};
use crate::package::{format_of, manifest_mapping, Package, PackageBase};
use crate::source::PackageSource;
use crate::{HotPackage, MuranoPlPackage};

/// Package files behind a trait object, so that one registry serves every
/// kind of source.
pub type DynSource = Box<dyn PackageSource + Send + Sync>;

impl PackageSource for DynSource {
    fn read(&self, path: &str) -> Option<&[u8]> {
        (**self).read(path)
    }

    fn is_dir(&self, path: &str) -> bool {
        (**self).is_dir(path)
    }

    fn files_under(&self, dir: &str) -> Vec<String> {
        (**self).files_under(dir)
    }

    fn root_label(&self) -> &str {
        (**self).root_label()
    }
}

/// Builds a package of one type from the checked manifest and the files.
pub type PluginFactory = Arc<
    dyn Fn(PackageBase<DynSource>) -> Result<Box<dyn Package + Send + Sync>, PackageError>
        + Send
        + Sync,
>;

/// Package types by format name and runtime version. Several names and
/// versions may map to one plug-in.
///
/// ```
/// use murano_packages::{source::FileMap, PluginRegistry};
///
/// let registry = PluginRegistry::with_builtins();
/// let mut files = FileMap::new();
/// files.insert("manifest.yaml", b"Format: Cloudify.TOSCA/1.0\nFullName: a.b\nType: Library\n".to_vec())?;
/// let err = registry.load(files).err().unwrap();
/// assert_eq!(err.to_string(), "Incorrect package format: Unsupported format Cloudify.TOSCA/1.0");
/// assert!(registry.formats().contains(&"Heat.HOT/1.0.0".to_string()));
/// # Ok::<(), murano_packages::PackageError>(())
/// ```
#[derive(Clone, Default)]
pub struct PluginRegistry {
    entries: Vec<(String, Version, PluginFactory)>,
}

impl std::fmt::Debug for PluginRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.formats()).finish()
    }
}

impl PluginRegistry {
    /// A registry with no package types.
    pub fn empty() -> PluginRegistry {
        PluginRegistry::default()
    }

    /// Murano's registrations: MuranoPL 1.0 to 1.4 and Heat.HOT 1.0.
    pub fn with_builtins() -> PluginRegistry {
        let mut registry = PluginRegistry::empty();
        let murano_pl: PluginFactory =
            Arc::new(|base| Ok(Box::new(MuranoPlPackage::from_base(base))));
        for minor in 0..=4 {
            registry.register(MURANO_PL, Version::new(1, minor, 0), murano_pl.clone());
        }
        registry.register(
            HEAT_HOT,
            Version::new(1, 0, 0),
            Arc::new(|base| Ok(Box::new(HotPackage::from_base(base)))),
        );
        registry
    }

    /// Registers (or replaces) the plug-in for one format name and version.
    pub fn register(&mut self, name: &str, version: Version, factory: PluginFactory) {
        self.entries
            .retain(|(n, v, _)| !(n == name && *v == version));
        self.entries.push((name.to_owned(), version, factory));
    }

    /// The registered formats as `name/version`.
    pub fn formats(&self) -> Vec<String> {
        self.entries
            .iter()
            .map(|(n, v, _)| format!("{n}/{v}"))
            .collect()
    }

    /// Loads a package as Murano's `load_from_dir` does: the manifest, its
    /// Format, the plug-in registered for it (an unsupported format is an
    /// error naming it), the checks every package shares, then the
    /// plug-in's own construction.
    pub fn load(
        &self,
        source: impl PackageSource + Send + Sync + 'static,
    ) -> Result<Box<dyn Package + Send + Sync>, PackageError> {
        let source: DynSource = Box::new(source);
        let manifest = manifest_mapping(&source)?;
        let (name, version) = format_of(&manifest)?;
        let factory = self
            .entries
            .iter()
            .find(|(n, v, _)| *n == name && *v == version)
            .map(|(_, _, f)| f.clone())
            .ok_or_else(|| {
                let value = manifest
                    .value
                    .get("Format")
                    .map(|n| YamlScalar::from(&n.value));
                FormatError::Unsupported(format_text(value.as_ref()))
            })?;
        let base = PackageBase::from_parts(source, manifest, name, version)?;
        factory(base)
    }
}
