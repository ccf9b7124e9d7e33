//! The server's state: every package of the workspace and the catalog,
//! with the editor's unsaved texts laid over the files read from disk,
//! and the index of classes across them.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use murano_packages::check::{check_package, CheckOptions, ClassIndex, Diagnostic};
use murano_packages::source::{FileMap, PackageSource};
use murano_yaml::LoadOptions;

use crate::fs::{self, Origin};
use crate::index::{index_class_file, index_manifest, ClassInfo, ManifestInfo};
use crate::options::ServerOptions;

/// One package.
#[derive(Debug)]
pub(crate) struct Package {
    pub(crate) origin: Origin,
    /// The current contents (disk, or the editor's text of open files).
    pub(crate) files: FileMap,
    /// Checked and reported (a workspace package, not a catalog one).
    pub(crate) checked: bool,
    pub(crate) manifest: ManifestInfo,
    /// Class file (relative path) → its classes.
    pub(crate) classes: BTreeMap<String, Vec<ClassInfo>>,
    /// This package's part of the checker's catalog.
    pub(crate) class_index: ClassIndex,
}

impl Package {
    fn new(origin: Origin, files: FileMap, checked: bool, load: &LoadOptions) -> Package {
        let mut package = Package {
            origin,
            files,
            checked,
            manifest: ManifestInfo::default(),
            classes: BTreeMap::new(),
            class_index: ClassIndex::new(),
        };
        package.reindex(load);
        package
    }

    /// Re-reads the manifest and every class file.
    fn reindex(&mut self, load: &LoadOptions) {
        self.manifest = self
            .files
            .read("manifest.yaml")
            .map(|b| index_manifest(&String::from_utf8_lossy(b), load))
            .unwrap_or_default();
        self.classes = self
            .files
            .files_under("Classes")
            .into_iter()
            .filter(|p| p.ends_with(".yaml") || p.ends_with(".yml"))
            .filter_map(|p| {
                let text = String::from_utf8_lossy(self.files.read(&p)?).into_owned();
                Some((p, index_class_file(&text, load)))
            })
            .collect();
        self.class_index = ClassIndex::new();
        self.class_index.add_package(&self.files);
    }

    /// The folder of a package on disk.
    pub(crate) fn root(&self) -> Option<&Path> {
        match &self.origin {
            Origin::Folder(p) => Some(p),
            Origin::Archive(_) => None,
        }
    }

    /// A file's text.
    pub(crate) fn text(&self, rel: &str) -> Option<String> {
        Some(String::from_utf8_lossy(self.files.read(rel)?).into_owned())
    }
}

/// Where a class is declared: package index, class file, class index in
/// that file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClassRef {
    pub(crate) package: usize,
    pub(crate) file: String,
    pub(crate) index: usize,
}

/// Every package and the class index.
#[derive(Debug)]
pub struct Workspace {
    pub(crate) options: ServerOptions,
    pub(crate) load: LoadOptions,
    pub(crate) packages: Vec<Package>,
    /// Full class name → where it is declared (first wins).
    pub(crate) classes: HashMap<String, ClassRef>,
    /// Whether a catalog was given (then the checker gets the merged
    /// class index, as `murano check --catalog` does).
    catalog_given: bool,
    /// The checker's options, with the merged class index as catalog
    /// (rebuilt when a package's part of it changes).
    check_options: CheckOptions,
}

impl Workspace {
    /// Reads the packages under `roots` (checked) and the options'
    /// catalog (indexed only), within the options' limits.
    pub fn load(roots: &[PathBuf], options: ServerOptions) -> Workspace {
        let load = LoadOptions::default().with_max_depth(options.max_yaml_depth);
        let mut ws = Workspace {
            catalog_given: !options.catalog.is_empty(),
            options,
            load,
            packages: Vec::new(),
            classes: HashMap::new(),
            check_options: CheckOptions::default(),
        };
        let mut seen = std::collections::HashSet::new();
        for (paths, checked) in [(roots.to_vec(), true), (ws.options.catalog.clone(), false)] {
            for root in paths {
                let mut found = Vec::new();
                fs::find_packages(&root, &ws.options, &mut found);
                for path in found {
                    if ws.packages.len() >= ws.options.max_packages {
                        break;
                    }
                    let key = std::fs::canonicalize(&path).unwrap_or(path.clone());
                    if !seen.insert(key) {
                        continue;
                    }
                    if let Some(raw) = fs::read_package(&path, &ws.options) {
                        let mut files = FileMap::new();
                        for (rel, bytes) in raw.files {
                            let _ = files.insert(&rel, bytes);
                        }
                        let package = Package::new(raw.origin, files, checked, &ws.load);
                        ws.packages.push(package);
                    }
                }
            }
        }
        ws.rebuild_classes();
        ws.rebuild_catalog();
        ws
    }

    /// How many packages are indexed.
    pub fn package_count(&self) -> usize {
        self.packages.len()
    }

    /// How many classes are indexed.
    pub fn class_count(&self) -> usize {
        self.classes.len()
    }

    fn rebuild_classes(&mut self) {
        self.classes.clear();
        for (pi, package) in self.packages.iter().enumerate() {
            for (file, classes) in &package.classes {
                for (ci, class) in classes.iter().enumerate() {
                    self.classes.entry(class.name.clone()).or_insert(ClassRef {
                        package: pi,
                        file: file.clone(),
                        index: ci,
                    });
                }
            }
        }
    }

    /// The package holding a file on disk, and the file's relative path.
    pub(crate) fn locate(&self, path: &Path) -> Option<(usize, String)> {
        self.packages.iter().enumerate().find_map(|(i, p)| {
            let rel = path.strip_prefix(p.root()?).ok()?;
            let rel = rel.to_str()?.replace('\\', "/");
            (!rel.is_empty()).then_some((i, rel))
        })
    }

    /// Lays `text` over a file (an editor's buffer); returns the package
    /// index, or `None` when the file is in no package or too large.
    pub(crate) fn set_text(&mut self, path: &Path, text: &str) -> Option<usize> {
        if text.len() as u64 > self.options.max_file_size {
            return None;
        }
        let (pi, rel) = self.locate(path)?;
        let package = &mut self.packages[pi];
        package.files.insert(&rel, text.as_bytes().to_vec()).ok()?;
        let index_before = package.class_index.clone();
        let before: Vec<_> = package
            .classes
            .values()
            .flatten()
            .map(|c| c.name.clone())
            .collect();
        package.reindex(&self.load);
        let after: Vec<_> = package
            .classes
            .values()
            .flatten()
            .map(|c| c.name.clone())
            .collect();
        if before != after {
            self.rebuild_classes();
        } else {
            self.refresh_refs(pi);
        }
        if self.packages[pi].class_index != index_before {
            self.rebuild_catalog();
        }
        Some(pi)
    }

    /// Keeps the class map pointing at the right file indexes after a
    /// package's reindex that kept its class names.
    fn refresh_refs(&mut self, pi: usize) {
        for (file, classes) in &self.packages[pi].classes {
            for (ci, class) in classes.iter().enumerate() {
                if let Some(r) = self.classes.get_mut(&class.name) {
                    if r.package == pi {
                        r.file = file.clone();
                        r.index = ci;
                    }
                }
            }
        }
    }

    /// Drops an editor's text: the file is read again from disk.
    pub(crate) fn reload(&mut self, path: &Path) -> Option<usize> {
        let bytes = fs::read_capped(path, self.options.max_file_size).unwrap_or_default();
        self.set_text(path, &String::from_utf8_lossy(&bytes))
    }

    /// The checker's catalog: every package's classes, as `murano check
    /// --catalog` builds it (the checked packages are part of it).
    fn rebuild_catalog(&mut self) {
        let mut options = CheckOptions::default();
        options.load = self.load.clone();
        if self.catalog_given {
            let mut index = ClassIndex::new();
            for package in &self.packages {
                index.merge(&package.class_index);
            }
            options = options.with_catalog(index);
        }
        self.check_options = options;
    }

    /// `murano check`'s diagnostics of one package.
    pub(crate) fn check(&self, pi: usize) -> Vec<Diagnostic> {
        let files = &self.packages[pi].files;
        if files.read("manifest.yaml").is_none() {
            return Vec::new();
        }
        check_package(files, &self.check_options)
    }

    /// A class by full name.
    pub(crate) fn class(&self, name: &str) -> Option<(&ClassRef, &ClassInfo)> {
        let r = self.classes.get(name)?;
        let info = self.packages[r.package]
            .classes
            .get(&r.file)?
            .get(r.index)?;
        Some((r, info))
    }

    /// `name` and its ancestors, nearest first, each once (a cycle or a
    /// missing parent ends the walk).
    pub(crate) fn hierarchy(&self, name: &str) -> Vec<String> {
        let mut out = vec![name.to_owned()];
        let mut i = 0;
        while i < out.len() && out.len() < 256 {
            if let Some((_, info)) = self.class(&out[i]) {
                for parent in &info.extends {
                    if !out.contains(parent) {
                        out.push(parent.clone());
                    }
                }
            }
            i += 1;
        }
        if !out.iter().any(|c| c == "io.murano.Object") {
            out.push("io.murano.Object".to_owned());
        }
        out
    }

    /// The absolute path of a package file, for folder packages.
    pub(crate) fn path_of(&self, pi: usize, rel: &str) -> Option<PathBuf> {
        Some(self.packages[pi].root()?.join(rel))
    }
}
