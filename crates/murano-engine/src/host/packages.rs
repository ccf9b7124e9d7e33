//! How the API loads packages by default: with the offline host's
//! system-class declarations (the API layer itself knows no host).

use crate::{ClassSetOptions, EngineBuilder, EngineError, PackageFiles};

impl Default for ClassSetOptions<'_> {
    /// Every package and class, with the offline host's system-class
    /// declarations ([`super::merge_system_class`]), as deploy and
    /// embedders load packages.
    fn default() -> Self {
        ClassSetOptions {
            merge: &super::merge_system_class,
            first_of_a_name: false,
        }
    }
}

impl EngineBuilder {
    /// A builder over the classes of `packages` (in class lookup order;
    /// see [`crate::deploy::class_set`]), which keeps the packages for
    /// their resources ([`EngineBuilder::packages`]): the system classes
    /// get the offline host's declarations ([`ClassSetOptions::default`]).
    pub fn from_packages(packages: &[PackageFiles]) -> Result<EngineBuilder, EngineError> {
        EngineBuilder::from_packages_with(packages, &ClassSetOptions::default())
            .map_err(|e| *e.error)
    }
}
