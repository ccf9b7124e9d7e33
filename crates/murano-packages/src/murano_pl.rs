//! The built-in MuranoPL package type: classes from `Classes/`, the UI
//! from `UI/`, logos and resources.

use murano_yaml::{Node, Value};

use crate::error::PackageError;
use crate::package::{manifest_package_methods, python_type, ClassSource, Package, PackageBase};
use crate::source::{secure_join, PackageSource};

/// A MuranoPL package (Murano's `MuranoPlPackage`).
///
/// ```
/// use murano_packages::{source::FileMap, MuranoPlPackage, Package};
///
/// let mut files = FileMap::new();
/// files.insert("manifest.yaml", b"Format: MuranoPL/1.3\nFullName: com.example.Demo\n\
/// Type: Application\nClasses:\n  com.example.Demo: Demo.yaml\n".to_vec())?;
/// files.insert("Classes/Demo.yaml", b"Name: Demo".to_vec())?;
/// let package = MuranoPlPackage::new(files)?;
/// assert_eq!(package.classes()?, ["com.example.Demo"]);
/// assert_eq!(package.get_class("com.example.Demo")?.file, "Classes/Demo.yaml");
/// # Ok::<(), murano_packages::PackageError>(())
/// ```
#[derive(Debug, Clone)]
pub struct MuranoPlPackage<S> {
    base: PackageBase<S>,
}

impl<S: PackageSource> MuranoPlPackage<S> {
    /// Loads the package from its files.
    pub fn new(source: S) -> Result<Self, PackageError> {
        Ok(MuranoPlPackage {
            base: PackageBase::new(source)?,
        })
    }

    /// From an already loaded base (the plug-in registry's path).
    pub fn from_base(base: PackageBase<S>) -> Self {
        MuranoPlPackage { base }
    }

    /// The manifest-backed part.
    pub fn base(&self) -> &PackageBase<S> {
        &self.base
    }

    fn class_map(&self) -> Result<&[(Node, Node)], PackageError> {
        match self.base.key("Classes").map(|n| &n.value) {
            Some(Value::Map(pairs)) => Ok(pairs),
            other => Err(PackageError::python(
                "AttributeError",
                format!(
                    "'{}' object has no attribute 'keys'",
                    other.map(python_type).unwrap_or("NoneType")
                ),
            )),
        }
    }
}

impl<S: PackageSource> Package for MuranoPlPackage<S> {
    manifest_package_methods!();

    fn classes(&self) -> Result<Vec<String>, PackageError> {
        Ok(self
            .class_map()?
            .iter()
            .map(|(k, _)| k.value.python_str())
            .collect())
    }

    fn requirements(&self) -> Node {
        match self.base.key("Require") {
            Some(n) if n.value.is_truthy() => n.clone(),
            _ => Node {
                value: Value::Map(Vec::new()),
                start: Default::default(),
                end: Default::default(),
            },
        }
    }

    fn meta(&self) -> Node {
        self.base.raw("Meta")
    }

    fn ui(&self) -> Result<Option<Vec<u8>>, PackageError> {
        let file = self
            .base
            .key("UI")
            .map(|n| n.value.python_str())
            .unwrap_or_else(|| "ui.yaml".into());
        let path = secure_join(self.base.source.root_label(), &["UI", &file])?;
        Ok(self.base.source.read(&path).map(<[u8]>::to_vec))
    }

    fn get_class(&self, name: &str) -> Result<ClassSource, PackageError> {
        let file = self
            .class_map()?
            .iter()
            .find(|(k, _)| k.value.python_str() == name)
            .map(|(_, v)| v.value.python_str())
            .ok_or_else(|| PackageError::ClassLoad {
                class: name.to_owned(),
                message: format!("Class not defined in package {}", self.base.full_name),
            })?;
        let path = secure_join(self.base.source.root_label(), &["Classes", &file])?;
        match self.base.source.read(&path) {
            Some(bytes) => Ok(ClassSource {
                file: path,
                bytes: bytes.to_vec(),
            }),
            None => Err(PackageError::ClassLoad {
                class: name.to_owned(),
                message: "File with class definition not found".into(),
            }),
        }
    }

    fn get_resource(&self, name: &str) -> Result<Option<Vec<u8>>, PackageError> {
        self.base.resource(name)
    }
}
