//! The engine's package type: a package as its files, its manifest read
//! once, read from a folder or a zip, and the class set of packages.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use murano_dsl::version::Version;

use crate::host::merge_system_class;
use crate::{ClassSet, ClassSetBuilder, EngineError};

/// Most bytes of one package file kept in memory.
pub const MAX_FILE_BYTES: usize = 64 << 20;

/// A package as its files: path inside the package (`manifest.yaml`,
/// `Classes/x.yaml`, `Resources/scripts/a.sh`) → bytes.
#[derive(Debug, Clone)]
pub struct PackageFiles {
    /// `FullName` of the manifest.
    pub name: String,
    /// `Version` of the manifest (0.0.0 without one).
    pub version: Version,
    /// How stack frames name the package's root (`io.murano`,
    /// `murano-apps/Tomcat/package`): class files are shown as
    /// `<root>/Classes/<file>`.
    pub root: String,
    /// `Format` of the manifest as (major, minor) (`MuranoPL/1.4` or `1.4`;
    /// 1.0 without one).
    pub format: (u32, u32),
    /// `Require` of the manifest, in order.
    pub requirements: Vec<(String, murano_dsl::version::VersionSpec)>,
    /// `Classes` of the manifest: class name → file below `Classes/`.
    pub classes: Vec<(String, String)>,
    /// The files.
    pub files: BTreeMap<String, Arc<Vec<u8>>>,
}

/// Why a package could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageError {
    /// The package root.
    pub root: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for PackageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.root, self.message)
    }
}

impl std::error::Error for PackageError {}

impl PackageFiles {
    /// A package from its files; `root` names it in stack frames.
    pub fn from_files(
        root: &str,
        files: BTreeMap<String, Arc<Vec<u8>>>,
    ) -> Result<PackageFiles, PackageError> {
        let err = |message: String| PackageError {
            root: root.to_owned(),
            message,
        };
        let manifest = files
            .get("manifest.yaml")
            .ok_or_else(|| err("no manifest.yaml".into()))?;
        let text = String::from_utf8_lossy(manifest);
        let node = murano_dsl::yaml::load_manifest(&text, &Default::default())
            .map_err(|e| err(format!("manifest.yaml: {e}")))?
            .ok_or_else(|| err("manifest.yaml is empty".into()))?;
        let name = node
            .value
            .get("FullName")
            .map(|n| n.value.python_str())
            .ok_or_else(|| err("manifest.yaml has no FullName".into()))?;
        let version = node
            .value
            .get("Version")
            .map(|v| v.value.python_str())
            .and_then(|v: String| Version::coerce(&v).ok())
            .unwrap_or_else(|| Version::new(0, 0, 0));
        let format = node
            .value
            .get("Format")
            .map(|f| f.value.python_str())
            .map_or((1, 0), |f| parse_format(&f));
        let mut requirements = Vec::new();
        if let Some(map) = node.value.get("Require").and_then(|c| c.value.as_map()) {
            for (k, v) in map {
                let scalar = murano_dsl::version::YamlScalar::from(&v.value);
                let spec = murano_dsl::version::parse_version_spec(&scalar)
                    .map_err(|e| err(format!("Require {}: {e}", k.value.python_str())))?;
                requirements.push((k.value.python_str(), spec));
            }
        }
        let mut classes = Vec::new();
        if let Some(map) = node.value.get("Classes").and_then(|c| c.value.as_map()) {
            for (k, v) in map {
                classes.push((k.value.python_str(), v.value.python_str()));
            }
        }
        Ok(PackageFiles {
            name,
            version,
            format,
            requirements,
            root: root.to_owned(),
            classes,
            files,
        })
    }
}

impl PackageFiles {
    /// A package from the files of a murano-packages source (a folder or
    /// a zip read by `murano_packages::source::FileMap`); `root` names it
    /// in stack frames. Only its manifest is read: classes a package type
    /// other than MuranoPL generates join through
    /// [`PackageFiles::add_generated_classes`] ([`PackageFiles::load`]
    /// does both).
    pub fn from_file_map(
        root: &str,
        source: &murano_packages::source::FileMap,
    ) -> Result<PackageFiles, PackageError> {
        use murano_packages::source::PackageSource;
        let mut files = BTreeMap::new();
        for p in source.paths() {
            if let Some(bytes) = source.read(p) {
                files.insert(p.to_owned(), Arc::new(bytes.to_vec()));
            }
        }
        PackageFiles::from_files(root, files)
    }

    /// Adds the classes a package type other than MuranoPL generates (a
    /// `Heat.HOT` package's class, made from its template) through
    /// murano-packages' built-in package-type plug-ins, and the resource
    /// the generated code reads (`Resources/<FullName>`: the template,
    /// where Murano copies it on import). A MuranoPL package is left as
    /// it is, also one the plug-in refuses when its manifest lists
    /// classes; one without classes has nothing to run: the plug-in's
    /// error says why.
    pub fn add_generated_classes(
        &mut self,
        source: murano_packages::source::FileMap,
    ) -> Result<(), murano_packages::PackageError> {
        let plugin = match murano_packages::PluginRegistry::with_builtins().load(source) {
            Ok(p) => p,
            Err(_) if !self.classes.is_empty() => return Ok(()),
            Err(e) => return Err(e),
        };
        if plugin.format_name() == "MuranoPL" {
            return Ok(());
        }
        for class in plugin.classes()? {
            if self.classes.iter().any(|(c, _)| *c == class) {
                continue;
            }
            let source = plugin.get_class(&class)?;
            let mut file = source.file;
            if self.files.contains_key(&format!("Classes/{file}")) {
                file = format!("{file} {class}");
            }
            self.files
                .insert(format!("Classes/{file}"), Arc::new(source.bytes));
            self.classes.push((class, file));
        }
        let name = plugin.full_name().to_owned();
        if let std::collections::btree_map::Entry::Vacant(slot) =
            self.files.entry(format!("Resources/{name}"))
        {
            if let Ok(Some(bytes)) = plugin.get_resource(&name) {
                slot.insert(Arc::new(bytes));
            }
        }
        Ok(())
    }

    /// [`PackageFiles::from_file_map`] and then
    /// [`PackageFiles::add_generated_classes`]; a plug-in error is a
    /// [`PackageError`] of `root`.
    pub fn load(
        root: &str,
        source: murano_packages::source::FileMap,
    ) -> Result<PackageFiles, PackageError> {
        let mut package = PackageFiles::from_file_map(root, &source)?;
        package
            .add_generated_classes(source)
            .map_err(|e| PackageError {
                root: root.to_owned(),
                message: e.to_string(),
            })?;
        Ok(package)
    }
}

/// `MuranoPL/1.4`, `1.4`, `1` as (major, minor); 1.0 when unreadable.
fn parse_format(text: &str) -> (u32, u32) {
    let version = text.rsplit('/').next().unwrap_or("").trim();
    let mut parts = version.split('.');
    let major = parts.next().and_then(|p| p.trim().parse().ok());
    let minor = parts
        .next()
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or(0);
    major.map_or((1, 0), |m| (m, minor))
}

/// The class set of `packages` (in lookup order): each package's classes
/// as its manifest lists them; `io.murano` also gets the engine's and the
/// host's system classes.
pub fn class_set(packages: &[PackageFiles]) -> Result<ClassSet, EngineError> {
    let mut b = ClassSetBuilder::new();
    for p in packages {
        let mut info = murano_dsl::registry::PackageInfo::new(&p.name, p.version.clone());
        for (name, spec) in &p.requirements {
            info = info.with_requirement(name, spec.clone());
        }
        let id = b.add_package_info(info)?;
        b.set_package_format(id, p.format.0, p.format.1);
        if p.name == "io.murano" {
            b.add_system_classes(id)?;
        }
        let mut seen = Vec::new();
        for (_, file) in &p.classes {
            if seen.contains(file) {
                continue;
            }
            seen.push(file.clone());
            let path = format!("Classes/{file}");
            let Some(bytes) = p.files.get(&path) else {
                continue;
            };
            let shown = format!("{}/{path}", p.root);
            for mut def in ClassSetBuilder::parse_file(bytes, &shown)? {
                if def.full_name.is_none() {
                    continue;
                }
                merge_system_class(&mut def)?;
                b.add_class(id, &shown, def)?;
            }
        }
    }
    Ok(b.build())
}

/// Most files a package folder read by [`PackageFiles::read`] may hold.
pub const MAX_PACKAGE_FILES: usize = 10_000;

impl PackageFiles {
    /// Reads a package from a folder or a zip file; its root in stack
    /// frames is the folder's (or the zip's, without `.zip`) name. Files
    /// larger than [`MAX_FILE_BYTES`], folders of more than
    /// [`MAX_PACKAGE_FILES`] files and zips beyond
    /// `murano_packages::archive::ArchiveLimits::default()` are refused;
    /// symbolic links are skipped.
    pub fn read(path: impl AsRef<Path>) -> Result<PackageFiles, PackageError> {
        let path = path.as_ref();
        let root = path
            .file_name()
            .map(|n| n.to_string_lossy().trim_end_matches(".zip").to_owned())
            .unwrap_or_default();
        let err = |message: String| PackageError {
            root: root.clone(),
            message,
        };
        let meta = std::fs::metadata(path).map_err(|e| err(format!("{}: {e}", path.display())))?;
        let mut files = BTreeMap::new();
        if meta.is_dir() {
            read_dir(path, "", &mut files, 0).map_err(err)?;
        } else {
            if meta.len() > murano_packages::archive::ArchiveLimits::default().max_total_size {
                return Err(err(format!("{}: the archive is too large", path.display())));
            }
            let bytes = std::fs::read(path).map_err(|e| err(format!("{}: {e}", path.display())))?;
            let map = murano_packages::source::FileMap::from_zip(
                &bytes,
                &murano_packages::archive::ArchiveLimits::default(),
            )
            .map_err(|e| err(format!("{}: {e}", path.display())))?;
            for p in map.paths() {
                if let Some(bytes) = murano_packages::source::PackageSource::read(&map, p) {
                    files.insert(p.to_owned(), Arc::new(bytes.to_vec()));
                }
            }
        }
        PackageFiles::from_files(&root, files)
    }

    /// Reads packages from folders or zip files, in class lookup order.
    pub fn read_all<P: AsRef<Path>>(
        paths: impl IntoIterator<Item = P>,
    ) -> Result<Vec<PackageFiles>, PackageError> {
        paths.into_iter().map(PackageFiles::read).collect()
    }

    /// The files under `Resources/` by their path inside the package.
    pub fn resources(&self) -> HashMap<String, Arc<Vec<u8>>> {
        self.files
            .iter()
            .filter(|(path, _)| path.starts_with("Resources/"))
            .map(|(path, bytes)| (path.clone(), bytes.clone()))
            .collect()
    }
}

/// The resources of `packages` by package name (of two packages of one
/// name, the later one's file wins a path both hold).
pub(crate) fn resources_of(
    packages: &[PackageFiles],
) -> HashMap<String, HashMap<String, Arc<Vec<u8>>>> {
    let mut out: HashMap<String, HashMap<String, Arc<Vec<u8>>>> = HashMap::new();
    for p in packages {
        let entry = out.entry(p.name.clone()).or_default();
        for (path, bytes) in p.resources() {
            entry.insert(path, bytes);
        }
    }
    out
}

/// Reads the files below `dir` into `files` (paths relative to the
/// package root, `/`-separated), within the limits of [`PackageFiles::read`].
fn read_dir(
    dir: &Path,
    prefix: &str,
    files: &mut BTreeMap<String, Arc<Vec<u8>>>,
    depth: usize,
) -> Result<(), String> {
    if depth > 32 {
        return Err(format!("{}: folders nested too deep", dir.display()));
    }
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", entry.path().display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = format!("{prefix}{name}");
        if kind.is_dir() {
            read_dir(&entry.path(), &format!("{rel}/"), files, depth + 1)?;
        } else if kind.is_file() {
            if files.len() >= MAX_PACKAGE_FILES {
                return Err(format!("more than {MAX_PACKAGE_FILES} files"));
            }
            let len = entry.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
            if len > MAX_FILE_BYTES as u64 {
                return Err(format!("{rel}: larger than {MAX_FILE_BYTES} bytes"));
            }
            let bytes = std::fs::read(entry.path()).map_err(|e| format!("{rel}: {e}"))?;
            files.insert(rel, Arc::new(bytes));
        }
    }
    Ok(())
}
