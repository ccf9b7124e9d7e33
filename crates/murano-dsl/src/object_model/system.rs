//! The `?` section of an object: [`SystemData`], and the type string
//! ([`TypeRef`]) it names the class with.

use std::fmt;

use super::error::{ErrorKind, ObjectModelError};
use super::path::Path;
use super::value::{Map, Value};
use crate::version::{parse_version_spec, VersionSpec, YamlScalar};
use crate::yaml::Int;

/// The key the Murano dashboard keeps its own data under in `?`
/// (`{"name": <package display name>}`).
pub const DASHBOARD_STORAGE_KEY: &str = "_26411a1861294160833743e45d0eaad9";

/// The keys of `?` that Murano's engine reads.
pub const ENGINE_KEYS: [&str; 8] = [
    "id",
    "type",
    "classVersion",
    "package",
    "name",
    "metadata",
    "destroyed",
    "dependencies",
];

/// Keys of `?` that Murano's API (`status`, `updated`) and the dashboard
/// (`resourceUsages`) write. The engine ignores them.
pub const SERVICE_KEYS: [&str; 3] = ["status", "updated", "resourceUsages"];

/// A type string as Murano's `parse_type_string` splits it: a class name,
/// then optionally `/version-spec`, then optionally `@package`, matched
/// against `([a-zA-Z0-9_.]+)(?:/([^@]+))?(?:@([a-zA-Z0-9_.]+))?$` (so the
/// version may hold anything but `@`, and one final newline is allowed).
///
/// ```
/// use murano_dsl::object_model::TypeRef;
///
/// let t = TypeRef::parse("io.murano.apps.Foo/1.2.3@io.murano.apps.foo").unwrap();
/// assert_eq!(t.name(), "io.murano.apps.Foo");
/// assert_eq!(t.version(), Some("1.2.3"));
/// assert_eq!(t.package(), Some("io.murano.apps.foo"));
/// assert_eq!(TypeRef::parse("io.murano.Foo@pkg").unwrap().version(), None);
/// assert_eq!(TypeRef::parse("io.murano.Foo/>=1,<2").unwrap().version(), Some(">=1,<2"));
/// assert!(TypeRef::parse("io.murano.Foo/").is_none());
/// assert!(TypeRef::parse("std:Foo").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TypeRef {
    text: String,
    name: String,
    version: Option<String>,
    package: Option<String>,
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// What Python's `$` accepts after a match: the end, or one final newline.
fn at_end(rest: &str) -> bool {
    rest.is_empty() || rest == "\n"
}

impl TypeRef {
    /// Splits a type string; `None` when Murano's regex does not match
    /// (Murano then fails with `TypeError`).
    pub fn parse(text: &str) -> Option<TypeRef> {
        let name_end = text.find(|c| !is_name_char(c)).unwrap_or(text.len());
        if name_end == 0 {
            return None;
        }
        let mut rest = &text[name_end..];
        let mut version = None;
        if let Some(after) = rest.strip_prefix('/') {
            let end = after.find('@').unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            version = Some(after[..end].to_owned());
            rest = &after[end..];
        } else if at_end(rest) {
            rest = "";
        }
        let mut package = None;
        if let Some(after) = rest.strip_prefix('@') {
            let end = after.find(|c| !is_name_char(c)).unwrap_or(after.len());
            if end == 0 || !at_end(&after[end..]) {
                return None;
            }
            package = Some(after[..end].to_owned());
        } else if !rest.is_empty() {
            return None;
        }
        Some(TypeRef {
            text: text.to_owned(),
            name: text[..name_end].to_owned(),
            version,
            package,
        })
    }

    /// The type string as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The class name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The version spec after `/`, as written.
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    /// The package name after `@`.
    pub fn package(&self) -> Option<&str> {
        self.package.as_deref()
    }

    /// The type string Murano's serializer writes for a class
    /// (`format_type_string`): `name/version@package`.
    ///
    /// ```
    /// use murano_dsl::object_model::TypeRef;
    ///
    /// assert_eq!(TypeRef::format("io.murano.Environment", "0.0.0", "io.murano"),
    ///            "io.murano.Environment/0.0.0@io.murano");
    /// ```
    pub fn format(name: &str, version: &str, package: &str) -> String {
        format!("{name}/{version}@{package}")
    }
}

impl fmt::Display for TypeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// What Murano asks its package loader for when it creates the object:
/// the class name, the version spec (the type string's, else
/// `classVersion`, normalized by Murano's `parse_version_spec`), and the
/// package (the type string's, else `package`; without one Murano looks
/// the class up in every package).
#[derive(Debug, Clone)]
pub struct ClassRequest {
    /// The class name.
    pub name: String,
    /// The version requirement.
    pub version_spec: VersionSpec,
    /// The package to load the class from.
    pub package: Option<String>,
}

/// One destruction dependency of `dependencies.onDestruction`: when the
/// object is destroyed, `handler` of `subscriber` is called.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DestructionDependency<'a> {
    /// The subscriber's object id.
    pub subscriber: &'a Value,
    /// The handler method name, if any.
    pub handler: Option<&'a Value>,
    /// The whole record.
    pub record: &'a Map,
}

/// One entry of `_actions` (written by Murano's serializer, read by the
/// dashboard): key `<object id>_<method>`, value with `name`, `enabled`,
/// `title` and optionally `description`, `helpText`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Action<'a> {
    /// The action id (the mapping key).
    pub id: &'a Value,
    /// The entry.
    pub entry: &'a Map,
}

impl<'a> Action<'a> {
    /// The method name.
    pub fn name(&self) -> Option<&'a str> {
        self.entry.get("name").and_then(Value::as_str)
    }

    /// The title (the method name when the method has no `Title` meta).
    pub fn title(&self) -> Option<&'a str> {
        self.entry.get("title").and_then(Value::as_str)
    }

    /// Whether the dashboard offers it (`enabled` is true).
    pub fn is_enabled(&self) -> bool {
        self.entry.get("enabled").is_some_and(Value::is_truthy)
    }
}

/// The `?` section of an object, checked the way Murano's
/// `parse_object_definition` and `load_dependencies` read it, with every
/// key kept in order (designer keys such as [`DASHBOARD_STORAGE_KEY`] and
/// keys Murano does not know included).
///
/// A value that is an unevaluated expression ([`Value::Yaql`], in UI
/// templates) is accepted wherever a value is checked.
///
/// ```
/// use murano_dsl::object_model::{SystemData, Value};
///
/// let section = Value::from_json(r#"{"type": "io.murano.apps.Foo/1.2@foo.pkg", "id": "f00",
///     "_26411a1861294160833743e45d0eaad9": {"name": "Foo"}, "status": "ready"}"#)?;
/// let system = SystemData::from_map(section.as_map().unwrap().clone())?;
/// assert_eq!(system.id(), Some("f00"));
/// assert_eq!(system.type_ref().unwrap().name(), "io.murano.apps.Foo");
/// let class = system.class_request().unwrap();
/// assert_eq!(class.version_spec.normalized(), "<1.3.0,>=1.2.0");
/// assert_eq!(class.package.as_deref(), Some("foo.pkg"));
/// assert_eq!(system.dashboard_name(), Some("Foo"));
/// assert_eq!(system.designer_attributes().count(), 1);
/// # Ok::<(), murano_dsl::object_model::ObjectModelError>(())
/// ```
#[derive(Debug, Clone)]
pub struct SystemData {
    entries: Map,
    type_ref: Option<TypeRef>,
    class: Option<ClassRequest>,
}

impl PartialEq for SystemData {
    /// Sections are equal when their entries are (everything else is
    /// derived from them).
    fn eq(&self, other: &SystemData) -> bool {
        self.entries == other.entries
    }
}

impl Default for SystemData {
    fn default() -> Self {
        SystemData {
            entries: Map::new(),
            type_ref: None,
            class: None,
        }
    }
}

fn fail<T>(key: &str, kind: ErrorKind) -> Result<T, ObjectModelError> {
    Err(ObjectModelError::new(Path::root().key(key), kind))
}

impl SystemData {
    /// Checks a `?` mapping. Errors carry paths relative to the section
    /// (`/type`).
    ///
    /// * `type`: when true, a string matching [`TypeRef::parse`], with a
    ///   version spec (its own or `classVersion`) that Murano's
    ///   `parse_version_spec` accepts, and a string `package` if one is
    ///   needed; a false `type` (absent, null, empty) means "the type the
    ///   contract asks for".
    /// * `dependencies`: when true, a mapping whose `onDestruction` is a
    ///   list of mappings, each with a `subscriber` id.
    /// * `_actions`: a mapping of mappings.
    pub fn from_map(entries: Map) -> Result<SystemData, ObjectModelError> {
        let mut system = SystemData {
            entries,
            type_ref: None,
            class: None,
        };
        system.check()?;
        Ok(system)
    }

    fn check(&mut self) -> Result<(), ObjectModelError> {
        self.type_ref = None;
        self.class = None;
        if let Some(obj_type) = self.entries.get("type").filter(|t| t.is_truthy()) {
            match obj_type {
                Value::Yaql(_) => {}
                Value::Str(text) => {
                    let Some(type_ref) = TypeRef::parse(text) else {
                        return fail("type", ErrorKind::InvalidTypeString(text.clone()));
                    };
                    self.class = self.class_request_for(&type_ref)?;
                    self.type_ref = Some(type_ref);
                }
                other => return fail("type", ErrorKind::TypeNotString(other.type_name())),
            }
        }
        self.check_dependencies()?;
        if let Some(actions) = self.entries.get("_actions") {
            match actions {
                Value::Map(map) => {
                    for (key, entry) in map {
                        if !matches!(entry, Value::Map(_) | Value::Yaql(_)) {
                            return Err(ObjectModelError::new(
                                Path::root().key("_actions").key(key.path_key_text()),
                                ErrorKind::ActionNotMapping(entry.type_name()),
                            ));
                        }
                    }
                }
                Value::Yaql(_) => {}
                other => return fail("_actions", ErrorKind::ActionsNotMapping(other.type_name())),
            }
        }
        Ok(())
    }

    /// The class request, or `None` when part of it is an expression.
    fn class_request_for(
        &self,
        type_ref: &TypeRef,
    ) -> Result<Option<ClassRequest>, ObjectModelError> {
        let (scalar, key) = match type_ref.version() {
            Some(version) => (YamlScalar::Str(version.to_owned()), "type"),
            None => match self.entries.get("classVersion") {
                None => (YamlScalar::Null, "classVersion"),
                Some(value) => match version_scalar(value) {
                    Some(scalar) => (scalar, "classVersion"),
                    None => return Ok(None),
                },
            },
        };
        let version_spec = parse_version_spec(&scalar).map_err(|source| {
            ObjectModelError::new(
                Path::root().key(key),
                ErrorKind::InvalidVersionSpec {
                    spec: scalar.python_str(),
                    source,
                },
            )
        })?;
        let package = match type_ref.package() {
            Some(package) => Some(package.to_owned()),
            None => match self.entries.get("package").filter(|p| p.is_truthy()) {
                None => None,
                Some(Value::Str(package)) => Some(package.clone()),
                Some(Value::Yaql(_)) => return Ok(None),
                Some(other) => {
                    return fail("package", ErrorKind::PackageNotString(other.type_name()))
                }
            },
        };
        Ok(Some(ClassRequest {
            name: type_ref.name().to_owned(),
            version_spec,
            package,
        }))
    }

    fn check_dependencies(&self) -> Result<(), ObjectModelError> {
        let Some(deps) = self.entries.get("dependencies").filter(|d| d.is_truthy()) else {
            return Ok(());
        };
        let base = Path::root().key("dependencies");
        let deps = match deps {
            Value::Map(map) => map,
            Value::Yaql(_) => return Ok(()),
            other => {
                return fail(
                    "dependencies",
                    ErrorKind::DependenciesNotMapping(other.type_name()),
                )
            }
        };
        let records = match deps.get("onDestruction") {
            None => return Ok(()),
            Some(Value::List(records)) => records,
            Some(Value::Yaql(_)) => return Ok(()),
            // Iterating an empty string or mapping does nothing in Python.
            Some(Value::Str(s)) if s.is_empty() => return Ok(()),
            Some(Value::Map(m)) if m.is_empty() => return Ok(()),
            Some(other) => {
                return Err(ObjectModelError::new(
                    base.key("onDestruction"),
                    ErrorKind::OnDestructionNotList(other.type_name()),
                ))
            }
        };
        for (i, record) in records.iter().enumerate() {
            let path = base.key("onDestruction").index(i);
            let record = match record {
                Value::Map(map) => map,
                Value::Yaql(_) => continue,
                other => {
                    return Err(ObjectModelError::new(
                        path,
                        ErrorKind::DependencyNotMapping(other.type_name()),
                    ))
                }
            };
            match record.get("subscriber") {
                None => return Err(ObjectModelError::new(path, ErrorKind::MissingSubscriber)),
                Some(s) if !s.is_scalar() => {
                    return Err(ObjectModelError::new(
                        path.key("subscriber"),
                        ErrorKind::SubscriberNotScalar(s.type_name()),
                    ))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// All entries, in order.
    pub fn entries(&self) -> &Map {
        &self.entries
    }

    /// The entries, given back.
    pub fn into_entries(self) -> Map {
        self.entries
    }

    /// Sets `key` to `value` (in place if present) and checks the section
    /// again; on error the section is left unchanged.
    ///
    /// ```
    /// use murano_dsl::object_model::{SystemData, Value};
    ///
    /// let mut system = SystemData::default();
    /// system.set("type", "io.murano.Foo".into())?;
    /// assert!(system.set("type", "not a type".into()).is_err());
    /// assert_eq!(system.type_ref().unwrap().name(), "io.murano.Foo");
    /// # Ok::<(), murano_dsl::object_model::ObjectModelError>(())
    /// ```
    pub fn set(&mut self, key: &str, value: Value) -> Result<(), ObjectModelError> {
        let mut entries = self.entries.clone();
        entries.insert(Value::from(key), value);
        *self = SystemData::from_map(entries)?;
        Ok(())
    }

    /// The value of string key `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.get(key)
    }

    /// The object id, when it is a string.
    pub fn id(&self) -> Option<&str> {
        self.id_value().and_then(Value::as_str)
    }

    /// The `id` entry, whatever its kind.
    pub fn id_value(&self) -> Option<&Value> {
        self.entries.get("id")
    }

    /// The `type` entry as written.
    pub fn type_value(&self) -> Option<&Value> {
        self.entries.get("type")
    }

    /// The parsed type string, when `type` is a non-empty string.
    pub fn type_ref(&self) -> Option<&TypeRef> {
        self.type_ref.as_ref()
    }

    /// Whether the object names a type (`type` present and true). Without
    /// one Murano creates the default type of the `class()` contract that
    /// receives the object.
    pub fn has_type(&self) -> bool {
        self.type_value().is_some_and(Value::is_truthy)
    }

    /// What Murano asks its package loader for, when the type is a string
    /// and nothing it depends on is an expression.
    pub fn class_request(&self) -> Option<&ClassRequest> {
        self.class.as_ref()
    }

    /// `classVersion`, as written (used only when the type string has no
    /// version).
    pub fn class_version(&self) -> Option<&Value> {
        self.entries.get("classVersion")
    }

    /// `package`, as written (used only when the type string has no
    /// package).
    pub fn package(&self) -> Option<&Value> {
        self.entries.get("package")
    }

    /// `name` (the object's name; from UI format 2.2 the application name
    /// the user typed).
    pub fn name(&self) -> Option<&Value> {
        self.entries.get("name")
    }

    /// `metadata`.
    pub fn metadata(&self) -> Option<&Value> {
        self.entries.get("metadata")
    }

    /// Whether `destroyed` is true: Murano marks the object destroyed.
    pub fn is_destroyed(&self) -> bool {
        self.entries.get("destroyed").is_some_and(Value::is_truthy)
    }

    /// The destruction dependencies (`dependencies.onDestruction`).
    pub fn destruction_dependencies(&self) -> Vec<DestructionDependency<'_>> {
        let records = self
            .entries
            .get("dependencies")
            .and_then(|d| d.get("onDestruction"))
            .and_then(Value::as_list)
            .unwrap_or_default();
        records
            .iter()
            .filter_map(Value::as_map)
            .filter_map(|record| {
                Some(DestructionDependency {
                    subscriber: record.get("subscriber")?,
                    handler: record.get("handler").filter(|h| !matches!(h, Value::Null)),
                    record,
                })
            })
            .collect()
    }

    /// The entries of `_actions`.
    pub fn actions(&self) -> Vec<Action<'_>> {
        let Some(Value::Map(actions)) = self.entries.get("_actions") else {
            return Vec::new();
        };
        actions
            .iter()
            .filter_map(|(id, entry)| {
                Some(Action {
                    id,
                    entry: entry.as_map()?,
                })
            })
            .collect()
    }

    /// The designer attributes: the entries whose key starts with `_`
    /// (`_actions`, [`DASHBOARD_STORAGE_KEY`], ...). Murano's object store
    /// keeps them aside and writes them back when it serializes the object.
    pub fn designer_attributes(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries
            .iter()
            .filter_map(|(k, v)| Some((k.as_str()?, v)))
            .filter(|(k, _)| k.starts_with('_'))
    }

    /// The name the dashboard stored (`?.<DASHBOARD_STORAGE_KEY>.name`):
    /// the package's display name.
    pub fn dashboard_name(&self) -> Option<&str> {
        self.entries
            .get(DASHBOARD_STORAGE_KEY)
            .and_then(|s| s.get("name"))
            .and_then(Value::as_str)
    }

    /// Entries that are neither read by the engine ([`ENGINE_KEYS`]), nor
    /// written by the API or dashboard ([`SERVICE_KEYS`]), nor designer
    /// attributes: the engine ignores them and does not write them back.
    pub fn unknown_entries(&self) -> impl Iterator<Item = (&Value, &Value)> {
        self.entries
            .iter()
            .filter(|(k, _)| match k.as_str() {
                Some(key) => {
                    !key.starts_with('_')
                        && !ENGINE_KEYS.contains(&key)
                        && !SERVICE_KEYS.contains(&key)
                }
                None => true,
            })
            .map(|(k, v)| (k, v))
    }
}

/// The scalar Murano's `parse_version_spec` sees for a `classVersion`
/// value (`None` for an expression). A non-empty list or mapping becomes
/// its (invalid) text, so that it is refused as Murano refuses it.
fn version_scalar(value: &Value) -> Option<YamlScalar> {
    Some(match value {
        Value::Null => YamlScalar::Null,
        Value::Bool(b) => YamlScalar::Bool(*b),
        Value::Int(Int::Small(n)) => YamlScalar::Int(n.to_string()),
        Value::Int(Int::Big(digits)) => YamlScalar::Int(digits.clone()),
        Value::Float(x) => YamlScalar::Float(*x),
        Value::Str(s) => YamlScalar::Str(s.clone()),
        Value::Yaql(_) => return None,
        Value::List(items) => YamlScalar::Other {
            text: if items.is_empty() { "[]" } else { "[...]" }.to_owned(),
            truthy: !items.is_empty(),
        },
        Value::Map(map) => YamlScalar::Other {
            text: if map.is_empty() { "{}" } else { "{...}" }.to_owned(),
            truthy: !map.is_empty(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> Option<(String, Option<String>, Option<String>)> {
        TypeRef::parse(text).map(|t| {
            (
                t.name().to_owned(),
                t.version().map(str::to_owned),
                t.package().map(str::to_owned),
            )
        })
    }

    fn s(x: &str) -> String {
        x.to_owned()
    }

    #[test]
    fn type_string_forms() {
        assert_eq!(
            parts("io.murano.Foo"),
            Some((s("io.murano.Foo"), None, None))
        );
        assert_eq!(parts("Foo_1.x"), Some((s("Foo_1.x"), None, None)));
        assert_eq!(parts("a.B/1.0"), Some((s("a.B"), Some(s("1.0")), None)));
        assert_eq!(parts("a.B@p.q"), Some((s("a.B"), None, Some(s("p.q")))));
        assert_eq!(
            parts("a.B/=1.0.0@p"),
            Some((s("a.B"), Some(s("=1.0.0")), Some(s("p"))))
        );
        // The version is anything but `@`, slashes and spaces included.
        assert_eq!(parts("a/1/ 2"), Some((s("a"), Some(s("1/ 2")), None)));
        // `$` also matches before one final newline.
        assert_eq!(parts("a\n"), Some((s("a"), None, None)));
        assert_eq!(parts("a/1\n"), Some((s("a"), Some(s("1\n")), None)));
        assert_eq!(parts("a@p\n"), Some((s("a"), None, Some(s("p")))));
        for bad in [
            "", "/1", "a/", "a@", "a/@p", "a@p@q", "a/1@p@q", "a@p-q", "a-b", "a b", "a\n\n",
            "a@p\n\n", "io:Foo", "é", "a/1@",
        ] {
            assert_eq!(parts(bad), None, "{bad:?}");
        }
    }

    fn system(json: &str) -> Result<SystemData, ObjectModelError> {
        let value = Value::from_json(json).unwrap();
        SystemData::from_map(value.as_map().unwrap().clone())
    }

    fn kind(json: &str) -> (String, ErrorKind) {
        let e = system(json).unwrap_err();
        (e.path().to_string(), e.kind().clone())
    }

    #[test]
    fn false_types_mean_no_type() {
        for json in [
            r#"{}"#,
            r#"{"type": null}"#,
            r#"{"type": ""}"#,
            r#"{"type": 0}"#,
            r#"{"type": false}"#,
            r#"{"type": []}"#,
        ] {
            let system = system(json).unwrap();
            assert!(!system.has_type());
            assert!(system.type_ref().is_none());
        }
    }

    #[test]
    fn type_errors() {
        assert_eq!(
            kind(r#"{"type": 5}"#),
            (s("/type"), ErrorKind::TypeNotString("int"))
        );
        assert_eq!(
            kind(r#"{"type": {"a": 1}}"#),
            (s("/type"), ErrorKind::TypeNotString("dict"))
        );
        assert_eq!(
            kind(r#"{"type": "a b"}"#),
            (s("/type"), ErrorKind::InvalidTypeString(s("a b")))
        );
        let (path, kind_) = kind(r#"{"type": "a/x.y"}"#);
        assert_eq!(path, "/type");
        assert!(matches!(kind_, ErrorKind::InvalidVersionSpec { .. }));
        let (path, kind_) = kind(r#"{"type": "a", "classVersion": "=>1"}"#);
        assert_eq!(path, "/classVersion");
        assert!(matches!(kind_, ErrorKind::InvalidVersionSpec { .. }));
        let (path, kind_) = kind(r#"{"type": "a", "classVersion": true}"#);
        assert_eq!(path, "/classVersion");
        assert!(matches!(kind_, ErrorKind::InvalidVersionSpec { spec, .. } if spec == "True"));
        assert_eq!(
            kind(r#"{"type": "a", "package": 5}"#),
            (s("/package"), ErrorKind::PackageNotString("int"))
        );
    }

    #[test]
    fn class_version_only_without_type_version() {
        // The type's own version wins; classVersion is not even read.
        let sys = system(r#"{"type": "a/2", "classVersion": "=>1"}"#).unwrap();
        assert_eq!(
            sys.class_request().unwrap().version_spec.normalized(),
            "<3.0.0,>=2.0.0"
        );
        let sys = system(r#"{"type": "a", "classVersion": 1.5}"#).unwrap();
        assert_eq!(
            sys.class_request().unwrap().version_spec.normalized(),
            "<1.6.0,>=1.5.0"
        );
        let sys = system(r#"{"type": "a", "classVersion": "1.0.0"}"#).unwrap();
        assert_eq!(
            sys.class_request().unwrap().version_spec.normalized(),
            "==1.0.0"
        );
        let sys = system(r#"{"type": "a"}"#).unwrap();
        assert_eq!(
            sys.class_request().unwrap().version_spec.normalized(),
            "<1.0.0,>=0.0.0"
        );
        // Without a type nothing is loaded, so nothing is checked.
        assert!(system(r#"{"classVersion": "=>1", "package": 5}"#).is_ok());
        // The type's package wins over `package`.
        let sys = system(r#"{"type": "a@p", "package": 5}"#).unwrap();
        assert_eq!(sys.class_request().unwrap().package.as_deref(), Some("p"));
        let sys = system(r#"{"type": "a", "package": "q"}"#).unwrap();
        assert_eq!(sys.class_request().unwrap().package.as_deref(), Some("q"));
    }

    #[test]
    fn expressions_are_not_checked() {
        let mut map = Map::new();
        map.insert("type".into(), Value::Yaql("$.t".into()));
        map.insert("dependencies".into(), Value::Yaql("$.d".into()));
        let sys = SystemData::from_map(map).unwrap();
        assert!(sys.has_type());
        assert!(sys.type_ref().is_none());
        let mut map = Map::new();
        map.insert("type".into(), "a".into());
        map.insert("classVersion".into(), Value::Yaql("$.v".into()));
        let sys = SystemData::from_map(map).unwrap();
        assert!(sys.type_ref().is_some());
        assert!(sys.class_request().is_none());
    }

    #[test]
    fn dependencies() {
        let sys = system(
            r#"{"dependencies": {"onDestruction": [{"subscriber": "x", "handler": "h"}, {"subscriber": "y"}]}}"#,
        )
        .unwrap();
        let deps = sys.destruction_dependencies();
        assert_eq!(deps.len(), 2);
        assert_eq!(deps[0].subscriber, &Value::from("x"));
        assert_eq!(deps[0].handler, Some(&Value::from("h")));
        assert_eq!(deps[1].handler, None);
        assert!(system(r#"{"dependencies": {}}"#).is_ok());
        assert!(system(r#"{"dependencies": null}"#).is_ok());
        assert!(system(r#"{"dependencies": {"other": 1}}"#).is_ok());
        assert!(system(r#"{"dependencies": {"onDestruction": ""}}"#).is_ok());
        assert_eq!(
            kind(r#"{"dependencies": [1]}"#),
            (
                s("/dependencies"),
                ErrorKind::DependenciesNotMapping("list")
            )
        );
        assert_eq!(
            kind(r#"{"dependencies": {"onDestruction": {"a": 1}}}"#),
            (
                s("/dependencies/onDestruction"),
                ErrorKind::OnDestructionNotList("dict")
            )
        );
        assert_eq!(
            kind(r#"{"dependencies": {"onDestruction": ["x"]}}"#),
            (
                s("/dependencies/onDestruction/0"),
                ErrorKind::DependencyNotMapping("str")
            )
        );
        assert_eq!(
            kind(r#"{"dependencies": {"onDestruction": [{"handler": "h"}]}}"#),
            (
                s("/dependencies/onDestruction/0"),
                ErrorKind::MissingSubscriber
            )
        );
        assert_eq!(
            kind(r#"{"dependencies": {"onDestruction": [{"subscriber": ["x"]}]}}"#),
            (
                s("/dependencies/onDestruction/0/subscriber"),
                ErrorKind::SubscriberNotScalar("list")
            )
        );
    }

    #[test]
    fn actions_and_designer_keys() {
        let sys = system(
            r#"{"id": "o1", "_actions": {"o1_exportConfig": {"enabled": true, "name": "exportConfig", "title": "Export"},
                 "o1_off": {"enabled": false, "name": "off"}},
                "_26411a1861294160833743e45d0eaad9": {"name": "App"}, "status": "ready",
                "adminPassword": "x", "_custom": 1}"#,
        )
        .unwrap();
        let actions = sys.actions();
        assert_eq!(actions.len(), 2);
        assert_eq!(actions[0].name(), Some("exportConfig"));
        assert_eq!(actions[0].title(), Some("Export"));
        assert!(actions[0].is_enabled());
        assert!(!actions[1].is_enabled());
        let designer: Vec<&str> = sys.designer_attributes().map(|(k, _)| k).collect();
        assert_eq!(designer, ["_actions", DASHBOARD_STORAGE_KEY, "_custom"]);
        let unknown: Vec<&Value> = sys.unknown_entries().map(|(k, _)| k).collect();
        assert_eq!(unknown, [&Value::from("adminPassword")]);
        assert_eq!(
            kind(r#"{"_actions": [1]}"#),
            (s("/_actions"), ErrorKind::ActionsNotMapping("list"))
        );
        assert_eq!(
            kind(r#"{"_actions": {"a_b": 1}}"#),
            (s("/_actions/a_b"), ErrorKind::ActionNotMapping("int"))
        );
    }

    #[test]
    fn set_rechecks() {
        let mut sys = system(r#"{"id": "a", "type": "x.Y"}"#).unwrap();
        sys.set("type", "x.Z/1@p".into()).unwrap();
        assert_eq!(sys.type_ref().unwrap().package(), Some("p"));
        assert!(sys.set("dependencies", Value::from(1)).is_err());
        assert_eq!(sys.entries().len(), 2);
    }
}
