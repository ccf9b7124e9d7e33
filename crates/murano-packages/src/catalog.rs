//! A catalog of packages: finding classes and packages by name and
//! version spec, resolving `Require`, and keeping the number of versions in
//! use small, as Murano's engine does.
//!
//! The engine is free to use any version that fits a spec, and it prefers
//! one it already uses: if `packageX` is in use at 0.3 and another package
//! asks for `>=0`, 0.3 serves even when 0.4 is in the catalog. A
//! [`Session`] holds those choices. When one class would inherit two
//! versions of the same class (the reference's classD 1.2 vs 1.3 example),
//! [`Session::shared_version`] looks for one version every party accepts,
//! and reports the conflict when there is none.

use std::fmt;

use murano_dsl::version::{Version, VersionSpec};

use crate::error::PackageError;
use crate::package::Package;

/// What the catalog knows of one package.
#[derive(Debug, Clone)]
pub struct CatalogEntry {
    /// `FullName`.
    pub name: String,
    /// `Version`.
    pub version: Version,
    /// The classes it defines.
    pub classes: Vec<String>,
    /// Its requirements as the engine builds them (own major version,
    /// `io.murano`, then `Require`).
    pub requirements: Vec<(String, VersionSpec)>,
}

impl CatalogEntry {
    /// The entry of a loaded package.
    pub fn from_package(package: &dyn Package) -> Result<CatalogEntry, PackageError> {
        let mut requirements: Vec<(String, VersionSpec)> = vec![(
            package.full_name().to_owned(),
            VersionSpec::parse(&format!("=={}", package.version().major()))?,
        )];
        if package.full_name() != "io.murano" {
            requirements.push(("io.murano".into(), VersionSpec::parse("==0")?));
        }
        let require = package.requirements();
        match &require.value {
            murano_yaml::Value::Map(pairs) => {
                for (name, spec) in pairs {
                    let spec = murano_dsl::version::parse_version_spec(&(&spec.value).into())?;
                    let name = name.value.python_str();
                    match requirements.iter_mut().find(|(n, _)| *n == name) {
                        Some(entry) => entry.1 = spec,
                        None => requirements.push((name, spec)),
                    }
                }
            }
            murano_yaml::Value::Null => {}
            other => {
                return Err(PackageError::python(
                    "AttributeError",
                    format!(
                        "'{}' object has no attribute 'items'",
                        crate::package::python_type(other)
                    ),
                ))
            }
        }
        Ok(CatalogEntry {
            name: package.full_name().to_owned(),
            version: package.version().clone(),
            classes: package.classes()?,
            requirements,
        })
    }
}

/// An index into a [`Catalog`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PackageId(usize);

/// Why a lookup failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// No package of that name matches the spec.
    #[error("no package {name} matches {spec}")]
    NoPackage {
        /// The package.
        name: String,
        /// The spec, normalised.
        spec: String,
    },
    /// No package reachable from the requester defines the class.
    #[error("class {class} not found from package {from}")]
    NoClass {
        /// The class.
        class: String,
        /// The package that asked.
        from: String,
    },
    /// The parties need versions of one package that no version satisfies.
    #[error("{}", describe_conflict(.package, .demands))]
    Conflict {
        /// The package.
        package: String,
        /// Who asked for what: (requesting package, spec).
        demands: Vec<(String, String)>,
    },
}

fn describe_conflict(package: &str, demands: &[(String, String)]) -> String {
    let parts: Vec<String> = demands
        .iter()
        .map(|(who, spec)| format!("{who} requires {spec}"))
        .collect();
    format!(
        "no version of {package} satisfies every requirement: {}",
        parts.join("; ")
    )
}

/// Packages by name and version.
///
/// ```
/// use murano_dsl::version::{Version, VersionSpec};
/// use murano_packages::catalog::{Catalog, CatalogEntry};
///
/// let mut catalog = Catalog::new();
/// for v in ["0.3.0", "0.4.0"] {
///     catalog.add(CatalogEntry {
///         name: "packageX".into(),
///         version: Version::parse(v)?,
///         classes: vec!["x.X".into()],
///         requirements: vec![],
///     });
/// }
/// let mut session = catalog.session();
/// let first = session.load_package("packageX", &VersionSpec::parse("<0.4")?)?;
/// // (Murano widens a partial `>0` to `>=1.0.0`, hence `>=0` here.)
/// let second = session.load_package("packageX", &VersionSpec::parse(">=0")?)?;
/// assert_eq!(first, second); // 0.3 is in use and fits both
/// assert_eq!(catalog.entry(second).version.to_string(), "0.3.0");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    entries: Vec<CatalogEntry>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// Adds a package (a second entry with the same name and version
    /// replaces the first).
    pub fn add(&mut self, entry: CatalogEntry) -> PackageId {
        if let Some(i) = self
            .entries
            .iter()
            .position(|e| e.name == entry.name && e.version == entry.version)
        {
            self.entries[i] = entry;
            return PackageId(i);
        }
        self.entries.push(entry);
        PackageId(self.entries.len() - 1)
    }

    /// The entry of an id.
    pub fn entry(&self, id: PackageId) -> &CatalogEntry {
        &self.entries[id.0]
    }

    /// Every entry.
    pub fn entries(&self) -> impl Iterator<Item = (PackageId, &CatalogEntry)> {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, e)| (PackageId(i), e))
    }

    /// The newest version of `name` that `spec` accepts.
    pub fn newest(&self, name: &str, spec: &VersionSpec) -> Option<PackageId> {
        self.entries()
            .filter(|(_, e)| e.name == name && spec.matches(&e.version))
            .max_by(|(_, a), (_, b)| a.version.cmp(&b.version))
            .map(|(id, _)| id)
    }

    /// A resolution session (the versions in use).
    pub fn session(&self) -> Session<'_> {
        Session {
            catalog: self,
            in_use: Vec::new(),
        }
    }
}

/// Versions chosen so far; later lookups reuse them when they fit.
#[derive(Debug, Clone)]
pub struct Session<'a> {
    catalog: &'a Catalog,
    in_use: Vec<PackageId>,
}

impl<'a> Session<'a> {
    /// The packages in use, in the order they were taken.
    pub fn in_use(&self) -> &[PackageId] {
        &self.in_use
    }

    /// A version of `name` that `spec` accepts: one already in use if any,
    /// else the newest in the catalog (which is then in use).
    pub fn load_package(
        &mut self,
        name: &str,
        spec: &VersionSpec,
    ) -> Result<PackageId, CatalogError> {
        if let Some(&id) = self.in_use.iter().find(|id| {
            let e = self.catalog.entry(**id);
            e.name == name && spec.matches(&e.version)
        }) {
            return Ok(id);
        }
        let id = self
            .catalog
            .newest(name, spec)
            .ok_or_else(|| CatalogError::NoPackage {
                name: name.to_owned(),
                spec: spec.normalized(),
            })?;
        self.in_use.push(id);
        Ok(id)
    }

    /// Murano's class lookup from a package: its own classes, then the
    /// packages it requires in order (each loaded through the session); a
    /// requirement the catalog cannot satisfy is an error, as in Murano.
    pub fn find_class(&mut self, from: PackageId, class: &str) -> Result<PackageId, CatalogError> {
        let entry = self.catalog.entry(from);
        if entry.classes.iter().any(|c| c == class) {
            return Ok(from);
        }
        for (name, spec) in &entry.requirements {
            if *name == entry.name {
                continue;
            }
            // A required package that cannot be loaded ends the search,
            // as in Murano, even if a later requirement has the class.
            let id = self.load_package(name, spec)?;
            if self.catalog.entry(id).classes.iter().any(|c| c == class) {
                return Ok(id);
            }
        }
        Err(CatalogError::NoClass {
            class: class.to_owned(),
            from: entry.name.clone(),
        })
    }

    /// Resolves every requirement of `root`, transitively.
    pub fn resolve(&mut self, root: PackageId) -> Result<Vec<PackageId>, CatalogError> {
        let mut queue = vec![root];
        let mut done = Vec::new();
        if !self.in_use.contains(&root) {
            self.in_use.push(root);
        }
        while let Some(id) = queue.pop() {
            if done.contains(&id) {
                continue;
            }
            done.push(id);
            let entry = self.catalog.entry(id);
            for (name, spec) in &entry.requirements {
                if *name == entry.name {
                    continue;
                }
                queue.push(self.load_package(name, spec)?);
            }
        }
        Ok(done)
    }

    /// One version of `package` that every demand `(requester, spec)`
    /// accepts, preferring one in use, then the newest; or the conflict.
    pub fn shared_version(
        &mut self,
        package: &str,
        demands: &[(String, VersionSpec)],
    ) -> Result<PackageId, CatalogError> {
        let fits = |e: &CatalogEntry| {
            e.name == package && demands.iter().all(|(_, s)| s.matches(&e.version))
        };
        if let Some(&id) = self.in_use.iter().find(|id| fits(self.catalog.entry(**id))) {
            return Ok(id);
        }
        let best = self
            .catalog
            .entries()
            .filter(|(_, e)| fits(e))
            .max_by(|(_, a), (_, b)| a.version.cmp(&b.version))
            .map(|(id, _)| id);
        match best {
            Some(id) => {
                self.in_use.push(id);
                Ok(id)
            }
            None => Err(CatalogError::Conflict {
                package: package.to_owned(),
                demands: demands
                    .iter()
                    .map(|(who, spec)| (who.clone(), spec.normalized()))
                    .collect(),
            }),
        }
    }
}

impl fmt::Display for PackageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use murano_dsl::version::{parse_version_spec, YamlScalar};

    fn spec(text: &str) -> VersionSpec {
        parse_version_spec(&YamlScalar::from(text)).unwrap()
    }

    fn entry(name: &str, version: &str, requirements: &[(&str, &str)]) -> CatalogEntry {
        CatalogEntry {
            name: name.into(),
            version: Version::parse(version).unwrap(),
            classes: vec![format!("{name}.Class")],
            requirements: requirements
                .iter()
                .map(|(n, s)| ((*n).to_owned(), spec(s)))
                .collect(),
        }
    }

    /// The MuranoPL reference's example: classA inherits classB (packageX)
    /// and classC (packageY); both inherit classD (packageZ).
    #[test]
    fn class_d_conflict_and_its_resolution() {
        let mut catalog = Catalog::new();
        catalog.add(entry("packageZ", "1.2.0", &[]));
        catalog.add(entry("packageZ", "1.3.0", &[]));
        let mut session = catalog.session();
        let demands = vec![
            ("packageX".to_owned(), spec("1.2.0")),
            ("packageY".to_owned(), spec("1.3.0")),
        ];
        let err = session.shared_version("packageZ", &demands).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no version of packageZ satisfies every requirement: packageX requires ==1.2.0; packageY requires ==1.3.0"
        );
        let demands = vec![
            ("packageX".to_owned(), spec("1.2.0")),
            ("packageY".to_owned(), spec("1")),
        ];
        let id = session.shared_version("packageZ", &demands).unwrap();
        assert_eq!(catalog.entry(id).version.to_string(), "1.2.0");
    }

    #[test]
    fn resolution_prefers_versions_in_use() {
        let mut catalog = Catalog::new();
        let app = catalog.add(entry("app", "1.0.0", &[("lib", ">=0.1"), ("other", "0")]));
        catalog.add(entry("other", "0.1.0", &[("lib", "<0.4")]));
        catalog.add(entry("lib", "0.3.0", &[]));
        catalog.add(entry("lib", "0.4.0", &[]));
        let mut session = catalog.session();
        let lib = session.load_package("lib", &spec("<0.4")).unwrap();
        let resolved = session.resolve(app).unwrap();
        assert!(resolved.contains(&lib));
        assert_eq!(
            resolved
                .iter()
                .filter(|id| catalog.entry(**id).name == "lib")
                .count(),
            1
        );
        assert!(matches!(
            session.load_package("missing", &spec("1")),
            Err(CatalogError::NoPackage { .. })
        ));
    }

    #[test]
    fn classes_are_found_through_requirements() {
        let mut catalog = Catalog::new();
        let app = catalog.add(entry("app", "1.0.0", &[("lib", "1")]));
        let lib = catalog.add(entry("lib", "1.2.0", &[]));
        let mut session = catalog.session();
        assert_eq!(session.find_class(app, "app.Class").unwrap(), app);
        assert_eq!(session.find_class(app, "lib.Class").unwrap(), lib);
        assert!(session.find_class(app, "nowhere.Class").is_err());
    }

    #[test]
    fn a_missing_requirement_stops_the_class_search() {
        let mut catalog = Catalog::new();
        let app = catalog.add(entry("app", "1.0.0", &[("gone", "1"), ("lib", "1")]));
        catalog.add(entry("lib", "1.2.0", &[]));
        let mut session = catalog.session();
        let err = session.find_class(app, "lib.Class").unwrap_err();
        assert!(err.to_string().contains("gone"), "{err}");
    }
}
