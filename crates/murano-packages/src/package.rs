//! The package interface of the package-type plug-in specification, and
//! the manifest-backed base every built-in package type shares.

use murano_dsl::version::{parse_version, parse_version_spec, Version, VersionSpec, YamlScalar};
use murano_yaml::{load_manifest, LoadOptions, Node, Value};

use crate::error::PackageError;
use crate::format::{format_text, split_format};
use crate::source::{secure_join, PackageSource};

/// `Application` or `Library`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PackageType {
    /// An application a user can deploy.
    Application,
    /// A library of classes for other packages.
    Library,
}

impl PackageType {
    /// The manifest spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            PackageType::Application => "Application",
            PackageType::Library => "Library",
        }
    }
}

/// A class definition read from a package: the file it came from (when
/// there is one) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassSource {
    /// The path inside the package (`Classes/Foo.yaml`); generated classes
    /// have a descriptive id instead.
    pub file: String,
    /// The class file's bytes.
    pub bytes: Vec<u8>,
}

/// A package, as the plug-in specification's `Package` interface describes
/// it. Each property is computed on demand and can fail on its own, as in
/// Murano.
pub trait Package {
    /// The format name (`MuranoPL`, `Heat.HOT`).
    fn format_name(&self) -> &str;
    /// The MuranoPL runtime version the package needs.
    fn runtime_version(&self) -> &Version;
    /// `FullName`.
    fn full_name(&self) -> &str;
    /// `Version`.
    fn version(&self) -> &Version;
    /// `Type`.
    fn package_type(&self) -> PackageType;
    /// `Name` (null kept), else the full name.
    fn display_name(&self) -> Node;
    /// `Description`, raw.
    fn description(&self) -> Node;
    /// `Author`, raw.
    fn author(&self) -> Node;
    /// `Supplier`, or an empty mapping when false.
    fn supplier(&self) -> Node;
    /// `list(Tags)` with Python's rules.
    fn tags(&self) -> Result<Vec<Node>, PackageError>;
    /// The class names the package defines.
    fn classes(&self) -> Result<Vec<String>, PackageError>;
    /// `Require` as written (a mapping of class or package names to
    /// version specs), or an empty mapping when false.
    fn requirements(&self) -> Node;
    /// `Meta`, raw.
    fn meta(&self) -> Node;
    /// The logo's bytes (`None` when the default logo file is absent).
    fn logo(&self) -> Result<Option<Vec<u8>>, PackageError>;
    /// The supplier logo's bytes.
    fn supplier_logo(&self) -> Result<Option<Vec<u8>>, PackageError>;
    /// The UI definition's bytes (`None` when there is none).
    fn ui(&self) -> Result<Option<Vec<u8>>, PackageError>;
    /// The definition of a class.
    fn get_class(&self, name: &str) -> Result<ClassSource, PackageError>;
    /// A resource file's bytes (`Resources/<name>`).
    fn get_resource(&self, name: &str) -> Result<Option<Vec<u8>>, PackageError>;
}

/// What the manifest gives every package type (the spec's `PackageBase`).
#[derive(Debug, Clone)]
pub struct PackageBase<S> {
    pub(crate) source: S,
    pub(crate) manifest: Node,
    pub(crate) format_name: String,
    pub(crate) runtime_version: Version,
    pub(crate) full_name: String,
    pub(crate) version: Version,
    pub(crate) package_type: PackageType,
}

fn null() -> Node {
    Node {
        value: Value::Null,
        start: Default::default(),
        end: Default::default(),
    }
}

fn empty_map() -> Node {
    Node {
        value: Value::Map(Vec::new()),
        start: Default::default(),
        end: Default::default(),
    }
}

/// Python's `re.match(r'^[\w\.]+$', name)` (with `$` before one final line
/// break) and Murano's extra rules on dots.
fn valid_full_name(name: &str) -> bool {
    let body = name.strip_suffix('\n').unwrap_or(name);
    !body.is_empty()
        && body
            .chars()
            .all(|c| c == '.' || c == '_' || c.is_alphanumeric())
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..")
}

/// Reads and parses `manifest.yaml` as Murano does (text, `safe_load`).
pub fn read_manifest(source: &impl PackageSource) -> Result<Node, PackageError> {
    let bytes = source
        .read("manifest.yaml")
        .ok_or_else(|| PackageError::Load("Unable to find package manifest".into()))?;
    let text = std::str::from_utf8(bytes)
        .map_err(|e| PackageError::Load(format!("Unable to load due to '{e}'")))?;
    let doc = load_manifest(text, &LoadOptions::default())
        .map_err(|e| PackageError::Load(format!("Unable to load due to '{e}'")))?;
    Ok(doc.unwrap_or_else(null))
}

impl<S: PackageSource> PackageBase<S> {
    /// Murano's `load_from_dir` checks for a built-in format, in order: a
    /// mapping manifest, the Format, FullName, Version, Type. (The plug-in
    /// registry runs the same steps for any registered format.)
    pub fn new(source: S) -> Result<PackageBase<S>, PackageError> {
        let manifest = manifest_mapping(&source)?;
        let (name, runtime_version) = format_of(&manifest)?;
        if crate::format::PackageHandler::for_format(&name, &runtime_version).is_none() {
            return Err(crate::format::FormatError::Unsupported(format_text(
                manifest
                    .value
                    .get("Format")
                    .map(|n| YamlScalar::from(&n.value))
                    .as_ref(),
            ))
            .into());
        }
        PackageBase::from_parts(source, manifest, name, runtime_version)
    }

    /// The checks after the format is known: FullName, Version, Type.
    pub fn from_parts(
        source: S,
        manifest: Node,
        format_name: String,
        runtime_version: Version,
    ) -> Result<PackageBase<S>, PackageError> {
        let full_name = match manifest.value.get("FullName") {
            Some(node) if node.value.is_truthy() => match &node.value {
                Value::Str(s) => s.clone(),
                other => {
                    return Err(PackageError::python(
                        "TypeError",
                        format!(
                            "can only concatenate str (not \"{}\") to str",
                            python_type(other)
                        ),
                    ))
                }
            },
            _ => return Err(PackageError::Format("FullName is not specified".into())),
        };
        if !valid_full_name(&full_name) {
            return Err(PackageError::Format(format!(
                "Invalid FullName {full_name}"
            )));
        }
        let version_text = match manifest.value.get("Version") {
            Some(node) => YamlScalar::from(&node.value).python_str(),
            None => "0.0.0".to_owned(),
        };
        let version = Version::coerce(&version_text)?;
        let package_type = match manifest.value.get("Type").map(|n| &n.value) {
            Some(Value::Str(s)) if s == "Application" => PackageType::Application,
            Some(Value::Str(s)) if s == "Library" => PackageType::Library,
            other => {
                let shown = other
                    .map(Value::python_str)
                    .unwrap_or_else(|| "None".into());
                return Err(PackageError::Format(format!(
                    "Invalid package Type {shown}"
                )));
            }
        };
        Ok(PackageBase {
            source,
            manifest,
            format_name,
            runtime_version,
            full_name,
            version,
            package_type,
        })
    }

    /// The manifest, as loaded.
    pub fn manifest(&self) -> &Node {
        &self.manifest
    }

    /// The package files.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The format name this package was loaded as.
    pub fn format_name(&self) -> &str {
        &self.format_name
    }

    /// The runtime version the package asks for.
    pub fn runtime_version(&self) -> &Version {
        &self.runtime_version
    }

    /// `FullName`.
    pub fn full_name(&self) -> &str {
        &self.full_name
    }

    /// `Version`.
    pub fn version(&self) -> &Version {
        &self.version
    }

    pub(crate) fn key(&self, key: &str) -> Option<&Node> {
        self.manifest.value.get(key)
    }

    pub(crate) fn display_name(&self) -> Node {
        match self.key("Name") {
            Some(n) => n.clone(),
            None => Node {
                value: Value::Str(self.full_name.clone()),
                ..null()
            },
        }
    }

    pub(crate) fn raw(&self, key: &str) -> Node {
        self.key(key).cloned().unwrap_or_else(null)
    }

    pub(crate) fn supplier(&self) -> Node {
        match self.key("Supplier") {
            Some(n) if n.value.is_truthy() => n.clone(),
            _ => empty_map(),
        }
    }

    pub(crate) fn tags(&self) -> Result<Vec<Node>, PackageError> {
        let Some(tags) = self.key("Tags") else {
            return Ok(Vec::new());
        };
        python_list(&tags.value)
    }

    pub(crate) fn logo(&self) -> Result<Option<Vec<u8>>, PackageError> {
        let name = self
            .key("Logo")
            .filter(|n| n.value.is_truthy())
            .map(|n| n.value.python_str());
        self.image(name, "logo.png", "logo")
    }

    pub(crate) fn supplier_logo(&self) -> Result<Option<Vec<u8>>, PackageError> {
        let supplier = self.supplier();
        let name = match &supplier.value {
            Value::Map(_) => supplier
                .value
                .get("Logo")
                .filter(|n| n.value.is_truthy())
                .map(|n| n.value.python_str()),
            other => {
                return Err(PackageError::python(
                    "AttributeError",
                    format!("'{}' object has no attribute 'get'", python_type(other)),
                ))
            }
        };
        self.image(name, "supplier_logo.png", "supplier logo")
    }

    /// Murano's `_load_image`: the named file (or the default one, which
    /// may be absent), PNG/JPEG/GIF only, at most 500 KiB.
    fn image(
        &self,
        name: Option<String>,
        default: &str,
        what: &str,
    ) -> Result<Option<Vec<u8>>, PackageError> {
        let label = self.source.root_label();
        let file = name.clone().unwrap_or_else(|| default.to_owned());
        let path = secure_join(label, &[&file])?;
        let Some(bytes) = self.source.read(&path) else {
            if name.is_none() {
                return Ok(None);
            }
            return Err(PackageError::Load(format!(
                "Unable to load {what}: [Errno 2] No such file or directory: '{label}/{path}'"
            )));
        };
        if image_kind(bytes).is_none() {
            return Err(PackageError::Load(format!(
                "Unable to load {what}: {what}: Unsupported Format. Only png, jpeg, gif allowed"
            )));
        }
        if bytes.len() > 500 * 1024 {
            return Err(PackageError::Load(format!(
                "Unable to load {what}: {what}: Uploaded image size {} is too large. Max allowed size is {}",
                bytes.len(),
                500 * 1024
            )));
        }
        Ok(Some(bytes.to_vec()))
    }

    pub(crate) fn resource(&self, name: &str) -> Result<Option<Vec<u8>>, PackageError> {
        let path = secure_join(self.source.root_label(), &["Resources", name])?;
        Ok(self.source.read(&path).map(<[u8]>::to_vec))
    }

    /// The engine's package requirements: its own name at its major
    /// version and `io.murano` 0 (plain specs), then every entry of
    /// `require` (the package's [`Package::requirements`]) normalised by
    /// Murano's version-spec rules.
    pub fn dsl_requirements(
        &self,
        require: &Node,
    ) -> Result<Vec<(String, VersionSpec)>, PackageError> {
        let require: &[(Node, Node)] = match &require.value {
            Value::Map(pairs) => pairs,
            Value::Null => &[],
            other => {
                return Err(PackageError::python(
                    "AttributeError",
                    format!("'{}' object has no attribute 'items'", python_type(other)),
                ))
            }
        };
        let mut out: Vec<(String, VersionSpec)> = Vec::new();
        let mut set =
            |name: String, spec: VersionSpec| match out.iter_mut().find(|(n, _)| *n == name) {
                Some(entry) => entry.1 = spec,
                None => out.push((name, spec)),
            };
        set(
            self.full_name.clone(),
            VersionSpec::parse(&format!("=={}", self.version.major()))?,
        );
        if self.full_name != "io.murano" {
            set("io.murano".into(), VersionSpec::parse("==0")?);
        }
        for (name, spec) in require {
            let spec = parse_version_spec(&YamlScalar::from(&spec.value))?;
            set(name.value.python_str(), spec);
        }
        Ok(out)
    }

    /// The engine's package version (`parse_version`).
    pub fn dsl_version(&self) -> Result<Version, PackageError> {
        Ok(parse_version(&YamlScalar::Str(self.version.to_string()))?)
    }
}

/// The manifest, which must be a mapping (else Murano's `AttributeError`).
pub(crate) fn manifest_mapping(source: &impl PackageSource) -> Result<Node, PackageError> {
    let manifest = read_manifest(source)?;
    if manifest.value.as_map().is_none() {
        return Err(PackageError::python(
            "AttributeError",
            format!(
                "'{}' object has no attribute 'get'",
                python_type(&manifest.value)
            ),
        ));
    }
    Ok(manifest)
}

/// The format name and runtime version a manifest asks for (steps 1 to 3
/// of Murano's format rules, before any handler is looked up).
pub(crate) fn format_of(manifest: &Node) -> Result<(String, Version), PackageError> {
    let value = manifest
        .value
        .get("Format")
        .map(|n| YamlScalar::from(&n.value));
    Ok(split_format(&format_text(value.as_ref()))?)
}

/// Python's `list(value)` for YAML values.
pub(crate) fn python_list(value: &Value) -> Result<Vec<Node>, PackageError> {
    let node = |value: Value| Node { value, ..null() };
    match value {
        Value::Seq(items) | Value::Set(items) => Ok(items.clone()),
        Value::Map(pairs) => Ok(pairs.iter().map(|(k, _)| k.clone()).collect()),
        Value::Pairs(pairs) => Ok(pairs
            .iter()
            .map(|(k, v)| node(Value::Seq(vec![k.clone(), v.clone()])))
            .collect()),
        Value::Str(s) => Ok(s.chars().map(|c| node(Value::Str(c.to_string()))).collect()),
        Value::Binary(b) => Ok(b
            .iter()
            .map(|&x| node(Value::Int(murano_yaml::Int::Small(i64::from(x)))))
            .collect()),
        other => Err(PackageError::python(
            "TypeError",
            format!("'{}' object is not iterable", python_type(other)),
        )),
    }
}

/// Python's type name of a YAML value.
pub(crate) fn python_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Float(_) => "float",
        Value::Str(_) => "str",
        Value::Date(_) => "date",
        Value::Timestamp(_) => "datetime",
        Value::Binary(_) => "bytes",
        Value::Seq(_) | Value::Pairs(_) => "list",
        Value::Map(_) => "dict",
        Value::Set(_) => "set",
        Value::Yaql(_) => "YaqlExpression",
        _ => "list",
    }
}

/// Python's `imghdr.what` for the three formats Murano allows.
fn image_kind(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("png")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("gif")
    } else if bytes
        .get(6..10)
        .is_some_and(|m| m == b"JFIF" || m == b"Exif")
        || bytes.starts_with(b"\xff\xd8\xff\xdb")
    {
        Some("jpeg")
    } else {
        None
    }
}

/// The [`Package`] methods every format answers from its manifest and
/// files alone, for an `impl Package` of a type that keeps its
/// [`PackageBase`] in `self.base`.
macro_rules! manifest_package_methods {
    () => {
        fn format_name(&self) -> &str {
            &self.base.format_name
        }

        fn runtime_version(&self) -> &::murano_dsl::version::Version {
            &self.base.runtime_version
        }

        fn full_name(&self) -> &str {
            &self.base.full_name
        }

        fn version(&self) -> &::murano_dsl::version::Version {
            &self.base.version
        }

        fn package_type(&self) -> $crate::PackageType {
            self.base.package_type
        }

        fn display_name(&self) -> ::murano_yaml::Node {
            self.base.display_name()
        }

        fn description(&self) -> ::murano_yaml::Node {
            self.base.raw("Description")
        }

        fn author(&self) -> ::murano_yaml::Node {
            self.base.raw("Author")
        }

        fn supplier(&self) -> ::murano_yaml::Node {
            self.base.supplier()
        }

        fn tags(&self) -> Result<Vec<::murano_yaml::Node>, $crate::PackageError> {
            self.base.tags()
        }

        fn logo(&self) -> Result<Option<Vec<u8>>, $crate::PackageError> {
            self.base.logo()
        }

        fn supplier_logo(&self) -> Result<Option<Vec<u8>>, $crate::PackageError> {
            self.base.supplier_logo()
        }
    };
}
pub(crate) use manifest_package_methods;
