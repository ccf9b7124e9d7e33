//! [`ObjectModel`]: a whole model, its diagnostics and the queries over it.

use std::collections::{HashMap, HashSet};

use super::error::{DiagnosticKind, ErrorKind, ObjectModelError};
use super::json::JsonOptions;
use super::object::{Data, Object};
use super::path::{Path, Segment};
use super::value::{Map, Value};
use super::DEFAULT_MAX_DEPTH;
use crate::diagnostic::Diagnostic;
use crate::yaml::{self, LoadOptions, Node};
use murano_yaml::py_text as pychar;

/// What the root of a model is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum ModelKind {
    /// What Murano's engine loads for a deployment: a mapping with
    /// `Objects` (the root object, usually an `io.murano.Environment`),
    /// `ObjectsCopy` (the model as it was after the previous deployment),
    /// `Attributes` (`[object id, type name, name, value]` lists) and
    /// other keys kept as they are (`SystemData`, `project_id`, ...).
    Deployment,
    /// One object: an environment, or an application as the dashboard
    /// posts it to the API.
    Object,
    /// Anything else: objects are found wherever they are (a UI
    /// definition's `Templates` and `Application`, test fixtures).
    Fragment,
}

/// Which part of a model an object belongs to. Ids are unique within a
/// part: `ObjectsCopy` repeats the ids of `Objects` on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Section {
    /// `Objects` of a deployment model; the whole model otherwise.
    Main,
    /// `ObjectsCopy` of a deployment model.
    Copy,
    /// Any other top-level key of a deployment model.
    Outside,
}

/// How to read a model.
///
/// ```
/// use murano_dsl::object_model::{ModelKind, ObjectModel, ParseOptions};
///
/// let options = ParseOptions::default().with_kind(ModelKind::Object);
/// assert!(ObjectModel::from_json_with("[]", &options).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// The kind the root must be; `None` (the default) decides from the
    /// root: an object if it has `?`, a deployment if it is a mapping with
    /// an `Objects` key, a fragment otherwise.
    pub kind: Option<ModelKind>,
    /// Deepest nesting accepted ([`DEFAULT_MAX_DEPTH`] by default).
    pub max_depth: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            kind: None,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

impl ParseOptions {
    /// Sets [`ParseOptions::kind`].
    pub fn with_kind(mut self, kind: ModelKind) -> Self {
        self.kind = Some(kind);
        self
    }

    /// Sets [`ParseOptions::max_depth`].
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }
}

/// An object found in a model, with where it is.
#[derive(Debug, Clone)]
pub struct ObjectRef<'a> {
    /// The object.
    pub object: &'a Object,
    /// Its path from the root of the model.
    pub path: Path,
    /// The part of the model it is in.
    pub section: Section,
    /// The nearest object it is nested in (Murano makes that object its
    /// owner when it creates it from this definition).
    pub owner: Option<&'a Object>,
}

/// A string property value that equals the id of an object of the model
/// (or, from [`ObjectModel::unresolved_id_like_strings`], that looks like
/// one).
///
/// Murano decides whether such a string is a reference by the contract of
/// the property (`$.class(...)` makes it one, `$.string()` does not); this
/// crate knows no contracts, so every string equal to a known id counts.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Reference {
    /// Path of the object the property belongs to.
    pub from: Path,
    /// Id of that object.
    pub from_id: Option<String>,
    /// Path of the string.
    pub at: Path,
    /// The string (the id it names).
    pub target: String,
}

/// One entry of a deployment model's `Attributes`: a value the object's
/// code stored with `setAttr` (Murano reads items 0 to 3 and skips entries
/// whose value is null).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attribute<'a> {
    /// The object id.
    pub object_id: &'a Value,
    /// The name of the class that set it.
    pub type_name: &'a Value,
    /// The attribute name.
    pub name: &'a Value,
    /// The value.
    pub value: &'a Data,
}

/// An object model: a tree of values whose objects (mappings with `?`)
/// are recognized and checked, plus what Murano would complain about or
/// quietly change ([`ObjectModel::diagnostics`]).
///
/// ```
/// use murano_dsl::object_model::ObjectModel;
///
/// let model = ObjectModel::from_json(r#"{
///   "?": {"id": "env", "type": "io.murano.Environment"},
///   "name": "demo",
///   "applications": [
///     {"?": {"id": "db", "type": "com.example.MySql"}, "name": "db"},
///     {"?": {"id": "web", "type": "com.example.WordPress/1.0@com.example.wp"},
///      "database": "db", "instance": {"?": {"id": "vm", "type": "io.murano.resources.LinuxMuranoInstance"}}}
///   ]
/// }"#)?;
/// assert_eq!(model.objects().len(), 4);
/// let web = model.object("web").unwrap();
/// assert_eq!(web.path.to_string(), "/applications/1");
/// assert_eq!(web.owner.and_then(|o| o.id()), Some("env"));
/// let refs = model.references_of(&web);
/// assert_eq!(refs[0].target, "db");
/// assert_eq!(refs[0].at.to_string(), "/applications/1/database");
/// assert_eq!(model.objects_of_type("com.example.MySql").len(), 1);
/// assert!(model.diagnostics().is_empty());
/// assert_eq!(ObjectModel::from_json(&model.to_json()?)?.to_value(), model.to_value());
/// # Ok::<(), murano_dsl::object_model::ObjectModelError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectModel {
    root: Data,
    kind: ModelKind,
    diagnostics: Vec<Diagnostic>,
}

impl ObjectModel {
    /// Reads a model from a value tree, deciding its kind from its root.
    pub fn from_value(value: Value) -> Result<ObjectModel, ObjectModelError> {
        ObjectModel::from_value_with(value, &ParseOptions::default())
    }

    /// Reads a model from a value tree.
    pub fn from_value_with(
        value: Value,
        options: &ParseOptions,
    ) -> Result<ObjectModel, ObjectModelError> {
        let detected = match &value {
            Value::Map(map) if map.contains_key("?") => ModelKind::Object,
            Value::Map(map) if map.contains_key("Objects") => ModelKind::Deployment,
            _ => ModelKind::Fragment,
        };
        let kind = options.kind.unwrap_or(detected);
        let root = Data::from_value(value, options.max_depth)?;
        match kind {
            ModelKind::Object if !matches!(root, Data::Object(_)) => {
                return Err(not_an_object(&root, Path::root()));
            }
            ModelKind::Deployment => check_deployment(&root)?,
            _ => {}
        }
        let mut model = ObjectModel {
            root,
            kind,
            diagnostics: Vec::new(),
        };
        model.diagnostics = model.diagnose();
        Ok(model)
    }

    /// Reads a model from JSON text (see [`Value::from_json`]).
    pub fn from_json(text: &str) -> Result<ObjectModel, ObjectModelError> {
        ObjectModel::from_json_with(text, &ParseOptions::default())
    }

    /// Reads a model from JSON text.
    pub fn from_json_with(
        text: &str,
        options: &ParseOptions,
    ) -> Result<ObjectModel, ObjectModelError> {
        ObjectModel::from_value_with(Value::from_json(text)?, options)
    }

    /// Reads a model from YAML text as `yaml.safe_load` reads it (no YAQL;
    /// see [`crate::yaml::load_manifest`]).
    ///
    /// ```
    /// use murano_dsl::object_model::ObjectModel;
    ///
    /// let model = ObjectModel::from_yaml("?:\n  id: a\n  type: io.murano.Environment\nname: e\n")?;
    /// assert_eq!(model.root_object().and_then(|o| o.id()), Some("a"));
    /// # Ok::<(), murano_dsl::object_model::ObjectModelError>(())
    /// ```
    pub fn from_yaml(text: &str) -> Result<ObjectModel, ObjectModelError> {
        ObjectModel::from_yaml_with(text, &ParseOptions::default())
    }

    /// Reads a model from YAML text as `yaml.safe_load` reads it.
    pub fn from_yaml_with(
        text: &str,
        options: &ParseOptions,
    ) -> Result<ObjectModel, ObjectModelError> {
        let node = yaml::load_manifest(text, &LoadOptions::default())
            .map_err(|e| ObjectModelError::new(Path::root(), ErrorKind::Yaml(e)))?
            .ok_or_else(|| ObjectModelError::new(Path::root(), ErrorKind::EmptyDocument))?;
        ObjectModel::from_yaml_node_with(&node, options)
    }

    /// Reads a model from a loaded YAML document, for instance the
    /// `Application` section of a UI definition loaded with
    /// [`crate::yaml::load_ui_file`]: its YAQL expressions become
    /// [`Value::Yaql`].
    ///
    /// ```
    /// use murano_dsl::object_model::{ObjectModel, Value};
    /// use murano_dsl::yaml::{load_ui_file, LoadOptions};
    ///
    /// let text = b"Application:\n  ?:\n    type: com.example.Foo\n  name: $.appConfiguration.name\n";
    /// let ui = load_ui_file(text, &LoadOptions::default()).unwrap().unwrap();
    /// let model = ObjectModel::from_yaml_node(ui.value.get("Application").unwrap())?;
    /// let app = model.root_object().unwrap();
    /// assert_eq!(app.type_name(), Some("com.example.Foo"));
    /// assert_eq!(app.property("name").and_then(|d| d.as_scalar()),
    ///            Some(&Value::Yaql("$.appConfiguration.name".into())));
    /// # Ok::<(), murano_dsl::object_model::ObjectModelError>(())
    /// ```
    pub fn from_yaml_node(node: &Node) -> Result<ObjectModel, ObjectModelError> {
        ObjectModel::from_yaml_node_with(node, &ParseOptions::default())
    }

    /// Reads a model from a loaded YAML document.
    pub fn from_yaml_node_with(
        node: &Node,
        options: &ParseOptions,
    ) -> Result<ObjectModel, ObjectModelError> {
        ObjectModel::from_value_with(Value::from_yaml(node)?, options)
    }

    /// The kind of model.
    pub fn kind(&self) -> ModelKind {
        self.kind
    }

    /// The whole tree.
    pub fn root(&self) -> &Data {
        &self.root
    }

    /// The tree, given back.
    pub fn into_root(self) -> Data {
        self.root
    }

    /// The root object: the model itself for an object or a fragment whose
    /// root is an object, `Objects` for a deployment.
    pub fn root_object(&self) -> Option<&Object> {
        match self.kind {
            ModelKind::Deployment => self.root.get("Objects").and_then(Data::as_object),
            _ => self.root.as_object(),
        }
    }

    /// `ObjectsCopy` of a deployment model, when it is an object.
    pub fn objects_copy(&self) -> Option<&Object> {
        match self.kind {
            ModelKind::Deployment => self.root.get("ObjectsCopy").and_then(Data::as_object),
            _ => None,
        }
    }

    /// The `Attributes` of a deployment model.
    pub fn attributes(&self) -> Vec<Attribute<'_>> {
        if self.kind != ModelKind::Deployment {
            return Vec::new();
        }
        let Some(Data::List(items)) = self.root.get("Attributes") else {
            return Vec::new();
        };
        items.iter().filter_map(attribute).collect()
    }

    /// What Murano would refuse or quietly change: per object in document
    /// order, then for `Attributes`, then for mappings whose `?` is not a
    /// mapping.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The value tree again, exactly as it was read.
    pub fn to_value(&self) -> Value {
        self.root.to_value()
    }

    /// The model as `json.dumps` writes it.
    pub fn to_json(&self) -> Result<String, ObjectModelError> {
        self.to_value().to_json()
    }

    /// The model as `json.dumps` writes it with the given options.
    pub fn to_json_with(&self, options: &JsonOptions) -> Result<String, ObjectModelError> {
        self.to_value().to_json_with(options)
    }

    /// Every object, in document order (an object before the objects
    /// nested in it).
    pub fn objects(&self) -> Vec<ObjectRef<'_>> {
        let mut out = Vec::new();
        let mut path = Path::root();
        collect_objects(&self.root, &mut path, self.kind, None, &mut out);
        out
    }

    /// The first object (in [`ObjectModel::objects`] order) with id `id`.
    pub fn object(&self, id: &str) -> Option<ObjectRef<'_>> {
        self.objects()
            .into_iter()
            .find(|o| o.object.id() == Some(id))
    }

    /// The objects whose type string names class `name` (whatever version
    /// or package it asks for).
    pub fn objects_of_type(&self, name: &str) -> Vec<ObjectRef<'_>> {
        self.objects()
            .into_iter()
            .filter(|o| o.object.type_name() == Some(name))
            .collect()
    }

    /// The string ids of all objects.
    pub fn ids(&self) -> HashSet<&str> {
        self.objects()
            .iter()
            .filter_map(|o| o.object.id())
            .collect()
    }

    /// The references an object makes: string values anywhere in its
    /// properties (lists and mappings included, objects nested in it
    /// excluded: they make their own) equal to the id of an object of the
    /// model.
    pub fn references_of(&self, object: &ObjectRef<'_>) -> Vec<Reference> {
        let ids = self.ids();
        let mut out = Vec::new();
        object_references(object, &ids, &mut out);
        out
    }

    /// Every reference of every object, in document order.
    pub fn references(&self) -> Vec<Reference> {
        let ids = self.ids();
        let mut out = Vec::new();
        for object in self.objects() {
            object_references(&object, &ids, &mut out);
        }
        out
    }

    /// The references that name `id`.
    pub fn referrers(&self, id: &str) -> Vec<Reference> {
        self.references()
            .into_iter()
            .filter(|r| r.target == id)
            .collect()
    }

    /// Strings in properties that look like object ids but name no object
    /// of the model: 32 hexadecimal digits (Murano's `generate_id`) or a
    /// dashed UUID (the dashboard's ids). Murano fails on such a string
    /// only where a `class()` contract reads it (`NoObjectFoundError`, once
    /// the model is loaded), skips it in destruction dependencies, and
    /// drops it when it serializes; it may just as well be an image or
    /// network id, so this is a list to look at, not a diagnostic.
    ///
    /// ```
    /// use murano_dsl::object_model::ObjectModel;
    ///
    /// let model = ObjectModel::from_json(r#"{"?": {"id": "0123456789abcdef0123456789abcdef", "type": "a.B"},
    ///     "peer": "fedcba9876543210fedcba9876543210", "self": "0123456789abcdef0123456789abcdef"}"#)?;
    /// let dangling = model.unresolved_id_like_strings();
    /// assert_eq!(dangling.len(), 1);
    /// assert_eq!(dangling[0].at.to_string(), "/peer");
    /// # Ok::<(), murano_dsl::object_model::ObjectModelError>(())
    /// ```
    pub fn unresolved_id_like_strings(&self) -> Vec<Reference> {
        let ids = self.ids();
        let mut out = Vec::new();
        for object in self.objects() {
            let mut found = Vec::new();
            object_strings(&object, &StringFilter::IdLike, &mut found);
            out.extend(
                found
                    .into_iter()
                    .filter(|r| !ids.contains(r.target.as_str())),
            );
        }
        out
    }

    fn diagnose(&self) -> Vec<Diagnostic> {
        let objects = self.objects();
        let ids: HashSet<&str> = objects.iter().filter_map(|o| o.object.id()).collect();
        let mut out = Vec::new();
        let mut first_seen: HashMap<(Section, &str), &Path> = HashMap::new();
        let mut push = |path: Path, kind: DiagnosticKind| out.push(kind.at(&path));
        for found in &objects {
            let system = found.object.system();
            let system_path = found.path.key("?");
            match system.id_value() {
                Some(Value::Str(id)) => {
                    if let Some(first) = first_seen.get(&(found.section, id.as_str())) {
                        push(
                            system_path.key("id"),
                            DiagnosticKind::DuplicateId {
                                id: id.clone(),
                                first: (*first).clone(),
                            },
                        );
                    } else {
                        first_seen.insert((found.section, id.as_str()), &found.path);
                    }
                }
                Some(Value::Null | Value::Yaql(_)) | None => {}
                Some(other) => push(
                    system_path.key("id"),
                    DiagnosticKind::NonStringId(other.type_name()),
                ),
            }
            if found.owner.is_none() && self.kind != ModelKind::Deployment && !system.has_type() {
                push(system_path.clone(), DiagnosticKind::MissingType);
            }
            for (key, _) in system.unknown_entries() {
                push(
                    system_path.key(key.path_key_text()),
                    DiagnosticKind::UnknownSystemKey(key.path_key_text()),
                );
            }
            for (i, dependency) in system.destruction_dependencies().iter().enumerate() {
                let known = dependency
                    .subscriber
                    .as_str()
                    .is_some_and(|id| ids.contains(id));
                if !known && !matches!(dependency.subscriber, Value::Yaql(_)) {
                    push(
                        system_path
                            .key("dependencies")
                            .key("onDestruction")
                            .index(i)
                            .key("subscriber"),
                        DiagnosticKind::UnknownSubscriber {
                            id: dependency.subscriber.path_key_text(),
                        },
                    );
                }
            }
            for (key, _) in found.object.properties() {
                let path = found.path.key(key.path_key_text());
                match key {
                    Value::Str(name) if !is_keyword(name) => {
                        push(path, DiagnosticKind::PropertyNameNotKeyword(name.clone()))
                    }
                    Value::Str(_) | Value::Yaql(_) => {}
                    other => push(
                        path,
                        DiagnosticKind::PropertyKeyNotString(other.path_key_text()),
                    ),
                }
            }
        }
        if let (ModelKind::Deployment, Some(Data::List(items))) =
            (self.kind, self.root.get("Attributes"))
        {
            for (i, item) in items.iter().enumerate() {
                let Some(attribute) = attribute(item) else {
                    continue;
                };
                if !attribute
                    .object_id
                    .as_str()
                    .is_some_and(|id| ids.contains(id))
                {
                    push(
                        Path::root().key("Attributes").index(i).index(0),
                        DiagnosticKind::AttributeOfUnknownObject {
                            id: attribute.object_id.path_key_text(),
                        },
                    );
                }
            }
        }
        collect_broken_systems(&self.root, &mut Path::root(), &mut out);
        out
    }
}

/// yaql's `is_keyword`: `(?!__)\b[^\W\d]\w*\b` matched at the start, that
/// is a first character that is a letter or `_` (not a digit), and not two
/// leading underscores.
fn is_keyword(name: &str) -> bool {
    let Some(first) = name.chars().next() else {
        return false;
    };
    !name.starts_with("__")
        && (first.is_alphanumeric() || first == '_')
        && pychar::decimal_value(first).is_none()
}

fn attribute(item: &Data) -> Option<Attribute<'_>> {
    let Data::List(parts) = item else {
        return None;
    };
    Some(Attribute {
        object_id: parts.first()?.as_scalar()?,
        type_name: parts.get(1)?.as_scalar()?,
        name: parts.get(2)?.as_scalar()?,
        value: parts.get(3)?,
    })
}

/// The checks Murano's executor makes on a deployment model before it
/// loads objects.
fn check_deployment(root: &Data) -> Result<(), ObjectModelError> {
    let Data::Map(entries) = root else {
        return Err(ObjectModelError::new(Path::root(), ErrorKind::NotAMapping));
    };
    let get = |key: &str| {
        entries
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    };
    // `Objects`: loaded unless null; `ObjectsCopy`: loaded when true.
    for (key, required) in [("Objects", true), ("ObjectsCopy", false)] {
        let Some(section) = get(key) else {
            continue;
        };
        let path = Path::root().key(key);
        match section {
            Data::Scalar(Value::Null) => {}
            Data::Object(object) => {
                if !object.system().has_type() {
                    let at = match object.system().type_value() {
                        Some(_) => path.key("?").key("type"),
                        None => path.key("?"),
                    };
                    return Err(ObjectModelError::new(at, ErrorKind::RootWithoutType));
                }
            }
            other if !required && !data_is_truthy(other) => {}
            other => {
                return Err(match not_an_object(other, path.clone()).kind() {
                    ErrorKind::NotAnObject => {
                        ObjectModelError::new(path, ErrorKind::SectionNotObject)
                    }
                    _ => not_an_object(other, path),
                })
            }
        }
    }
    match get("Attributes") {
        None => Ok(()),
        Some(Data::List(items)) => {
            for (i, item) in items.iter().enumerate() {
                if attribute(item).is_none() {
                    return Err(ObjectModelError::new(
                        Path::root().key("Attributes").index(i),
                        ErrorKind::MalformedAttribute,
                    ));
                }
            }
            Ok(())
        }
        Some(other) if !data_is_truthy(other) => Ok(()),
        Some(other) => Err(ObjectModelError::new(
            Path::root().key("Attributes"),
            ErrorKind::AttributesNotList(data_type_name(other)),
        )),
    }
}

/// Why `data` (at `path`), which should be an object, is not one.
fn not_an_object(data: &Data, path: Path) -> ObjectModelError {
    if let Data::Map(entries) = data {
        if let Some((_, system)) = entries.iter().find(|(k, _)| k.as_str() == Some("?")) {
            return ObjectModelError::new(
                path.key("?"),
                ErrorKind::SystemNotMapping(data_type_name(system)),
            );
        }
    }
    ObjectModelError::new(path, ErrorKind::NotAnObject)
}

/// Mappings with a `?` that is neither a mapping nor an expression.
fn collect_broken_systems(data: &Data, path: &mut Path, out: &mut Vec<Diagnostic>) {
    match data {
        Data::Scalar(_) => {}
        Data::List(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Segment::Index(i));
                collect_broken_systems(item, path, out);
                path.pop();
            }
        }
        Data::Map(entries) => {
            for (key, item) in entries {
                path.push(Segment::Key(key.path_key_text()));
                if key.as_str() == Some("?") && !matches!(item, Data::Scalar(Value::Yaql(_))) {
                    let kind = DiagnosticKind::SystemNotMapping(data_type_name(item));
                    out.push(kind.at(path));
                }
                collect_broken_systems(item, path, out);
                path.pop();
            }
        }
        Data::Object(object) => {
            for (key, item) in object.properties() {
                path.push(Segment::Key(key.path_key_text()));
                collect_broken_systems(item, path, out);
                path.pop();
            }
        }
    }
}

fn data_is_truthy(data: &Data) -> bool {
    match data {
        Data::Scalar(value) => value.is_truthy(),
        Data::List(items) => !items.is_empty(),
        Data::Map(entries) => !entries.is_empty(),
        Data::Object(_) => true,
    }
}

fn data_type_name(data: &Data) -> &'static str {
    match data {
        Data::Scalar(value) => value.type_name(),
        Data::List(_) => "list",
        Data::Map(_) | Data::Object(_) => "dict",
    }
}

fn section_of(path: &Path, kind: ModelKind) -> Section {
    if kind != ModelKind::Deployment {
        return Section::Main;
    }
    match path.segments().first() {
        Some(Segment::Key(key)) if key == "Objects" => Section::Main,
        Some(Segment::Key(key)) if key == "ObjectsCopy" => Section::Copy,
        _ => Section::Outside,
    }
}

fn collect_objects<'a>(
    data: &'a Data,
    path: &mut Path,
    kind: ModelKind,
    owner: Option<&'a Object>,
    out: &mut Vec<ObjectRef<'a>>,
) {
    match data {
        Data::Scalar(_) => {}
        Data::List(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Segment::Index(i));
                collect_objects(item, path, kind, owner, out);
                path.pop();
            }
        }
        Data::Map(entries) => {
            for (key, item) in entries {
                path.push(Segment::Key(key.path_key_text()));
                collect_objects(item, path, kind, owner, out);
                path.pop();
            }
        }
        Data::Object(object) => {
            out.push(ObjectRef {
                object,
                path: path.clone(),
                section: section_of(path, kind),
                owner,
            });
            for (key, item) in object.properties() {
                path.push(Segment::Key(key.path_key_text()));
                collect_objects(item, path, kind, Some(object), out);
                path.pop();
            }
        }
    }
}

/// Which strings of an object's properties to collect.
enum StringFilter<'a> {
    /// Those equal to one of these ids.
    Ids(&'a HashSet<&'a str>),
    /// Those shaped like an object id.
    IdLike,
}

impl StringFilter<'_> {
    fn accepts(&self, s: &str) -> bool {
        match self {
            StringFilter::Ids(ids) => ids.contains(s),
            StringFilter::IdLike => is_id_like(s),
        }
    }
}

/// 32 hex digits (`uuid4().hex`) or a dashed UUID (`str(uuid4())`).
fn is_id_like(s: &str) -> bool {
    let hex =
        |part: &str, len: usize| part.len() == len && part.bytes().all(|b| b.is_ascii_hexdigit());
    if hex(s, 32) {
        return true;
    }
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 5 && parts.iter().zip([8, 4, 4, 4, 12]).all(|(p, n)| hex(p, n))
}

fn object_references(object: &ObjectRef<'_>, ids: &HashSet<&str>, out: &mut Vec<Reference>) {
    object_strings(object, &StringFilter::Ids(ids), out);
}

fn object_strings(object: &ObjectRef<'_>, filter: &StringFilter<'_>, out: &mut Vec<Reference>) {
    fn walk(
        data: &Data,
        path: &mut Path,
        ids: &StringFilter<'_>,
        object: &ObjectRef<'_>,
        out: &mut Vec<Reference>,
    ) {
        match data {
            Data::Scalar(Value::Str(s)) if ids.accepts(s) => out.push(Reference {
                from: object.path.clone(),
                from_id: object.object.id().map(str::to_owned),
                at: path.clone(),
                target: s.clone(),
            }),
            Data::Scalar(_) | Data::Object(_) => {}
            Data::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(Segment::Index(i));
                    walk(item, path, ids, object, out);
                    path.pop();
                }
            }
            Data::Map(entries) => {
                for (key, item) in entries {
                    path.push(Segment::Key(key.path_key_text()));
                    walk(item, path, ids, object, out);
                    path.pop();
                }
            }
        }
    }
    let mut path = object.path.clone();
    for (key, item) in object.object.properties() {
        path.push(Segment::Key(key.path_key_text()));
        walk(item, &mut path, filter, object, out);
        path.pop();
    }
}

impl Value {
    /// The value of a loaded YAML document. YAQL expressions become
    /// [`Value::Yaql`]; dates, timestamps, binary data, sets, ordered
    /// pairs and recursive aliases have no JSON form and are errors.
    pub fn from_yaml(node: &Node) -> Result<Value, ObjectModelError> {
        let mut path = Path::root();
        from_yaml(node, &mut path, 0)
    }
}

fn from_yaml(node: &Node, path: &mut Path, depth: usize) -> Result<Value, ObjectModelError> {
    if depth > super::json::MAX_JSON_DEPTH {
        return Err(ObjectModelError::new(
            path.clone(),
            ErrorKind::TooDeep(super::json::MAX_JSON_DEPTH),
        ));
    }
    let unsupported = |what| {
        Err(ObjectModelError::new(
            path.clone(),
            ErrorKind::UnsupportedYamlValue(what),
        ))
    };
    Ok(match &node.value {
        yaml::Value::Null => Value::Null,
        yaml::Value::Bool(b) => Value::Bool(*b),
        yaml::Value::Int(i) => Value::Int(i.clone()),
        yaml::Value::Float(x) => Value::Float(*x),
        yaml::Value::Str(s) => Value::Str(s.clone()),
        yaml::Value::Yaql(expr) => Value::Yaql(expr.text().to_owned()),
        yaml::Value::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                path.push(Segment::Index(i));
                out.push(from_yaml(item, path, depth + 1)?);
                path.pop();
            }
            Value::List(out)
        }
        yaml::Value::Map(entries) => {
            let mut map = Map::new();
            for (key, item) in entries {
                let key = from_yaml(key, path, depth + 1)?;
                path.push(Segment::Key(key.path_key_text()));
                let item = from_yaml(item, path, depth + 1)?;
                path.pop();
                map.insert(key, item);
            }
            Value::Map(map)
        }
        yaml::Value::Date(_) => return unsupported("date"),
        yaml::Value::Timestamp(_) => return unsupported("timestamp"),
        yaml::Value::Binary(_) => return unsupported("binary value"),
        yaml::Value::Set(_) => return unsupported("set"),
        yaml::Value::Pairs(_) => return unsupported("ordered mapping (!!omap or !!pairs)"),
        yaml::Value::Recursive => return unsupported("recursive alias"),
        // The YAML value type may grow; anything new has no JSON form yet.
        #[allow(unreachable_patterns)]
        _ => return unsupported("value of an unknown kind"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object_model::Severity;

    fn model(json: &str) -> ObjectModel {
        ObjectModel::from_json(json).unwrap()
    }

    fn error(json: &str) -> (String, ErrorKind) {
        let e = ObjectModel::from_json(json).unwrap_err();
        (e.path().to_string(), e.kind().clone())
    }

    fn codes(model: &ObjectModel) -> Vec<(String, &'static str)> {
        model
            .diagnostics()
            .iter()
            .map(|d| (d.subject.clone().unwrap_or_default(), d.code))
            .collect()
    }

    fn s(x: &str) -> String {
        x.to_owned()
    }

    #[test]
    fn kind_detection() {
        assert_eq!(model(r#"{"?": {"type": "a"}}"#).kind(), ModelKind::Object);
        assert_eq!(model(r#"{"Objects": null}"#).kind(), ModelKind::Deployment);
        assert_eq!(model(r#"{"Templates": {}}"#).kind(), ModelKind::Fragment);
        assert_eq!(model("[1]").kind(), ModelKind::Fragment);
        // `?` wins over `Objects`.
        assert_eq!(
            model(r#"{"?": {"type": "a"}, "Objects": 1}"#).kind(),
            ModelKind::Object
        );
        let forced = ParseOptions::default().with_kind(ModelKind::Deployment);
        let e = ObjectModel::from_json_with("[]", &forced).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::NotAMapping);
        let m = ObjectModel::from_json_with("{}", &forced).unwrap();
        assert!(m.root_object().is_none());
        let forced = ParseOptions::default().with_kind(ModelKind::Fragment);
        let m = ObjectModel::from_json_with(r#"{"?": {"type": "a"}}"#, &forced).unwrap();
        assert_eq!(m.kind(), ModelKind::Fragment);
        assert!(m.root_object().is_some());
    }

    #[test]
    fn deployment_sections() {
        assert_eq!(
            error(r#"{"Objects": {"?": {"id": "x"}}}"#),
            (s("/Objects/?"), ErrorKind::RootWithoutType)
        );
        assert_eq!(
            error(r#"{"Objects": {"?": {"id": "x", "type": ""}}}"#),
            (s("/Objects/?/type"), ErrorKind::RootWithoutType)
        );
        assert_eq!(
            error(r#"{"Objects": {"name": "no system section"}}"#),
            (s("/Objects"), ErrorKind::SectionNotObject)
        );
        assert_eq!(
            error(r#"{"Objects": []}"#),
            (s("/Objects"), ErrorKind::SectionNotObject)
        );
        // ObjectsCopy is only loaded when true.
        for copy in ["null", "{}", "[]", "\"\"", "0"] {
            let json = format!(r#"{{"Objects": null, "ObjectsCopy": {copy}}}"#);
            assert!(ObjectModel::from_json(&json).is_ok(), "{json}");
        }
        assert_eq!(
            error(r#"{"Objects": null, "ObjectsCopy": {"a": 1}}"#),
            (s("/ObjectsCopy"), ErrorKind::SectionNotObject)
        );
        assert_eq!(
            error(r#"{"Objects": null, "Attributes": {"a": 1}}"#),
            (s("/Attributes"), ErrorKind::AttributesNotList("dict"))
        );
        assert!(ObjectModel::from_json(r#"{"Objects": null, "Attributes": null}"#).is_ok());
        assert_eq!(
            error(r#"{"Objects": null, "Attributes": [["a", "T", "n"]]}"#),
            (s("/Attributes/0"), ErrorKind::MalformedAttribute)
        );
        assert_eq!(
            error(r#"{"Objects": null, "Attributes": [[["a"], "T", "n", 1]]}"#),
            (s("/Attributes/0"), ErrorKind::MalformedAttribute)
        );
    }

    #[test]
    fn deployment_queries() {
        let m = model(
            r#"{"Objects": {"?": {"id": "e", "type": "io.murano.Environment"}, "apps": [{"?": {"id": "a", "type": "x.App"}}]},
                "ObjectsCopy": {"?": {"id": "e", "type": "io.murano.Environment"}, "apps": [{"?": {"id": "a", "type": "x.App"}}]},
                "Attributes": [["a", "x.App", "deployed", true, "extra"], ["gone", "x.App", "k", null]],
                "SystemData": {"Packages": {}}, "project_id": "p"}"#,
        );
        assert_eq!(m.kind(), ModelKind::Deployment);
        assert_eq!(m.root_object().and_then(|o| o.id()), Some("e"));
        assert_eq!(m.objects_copy().and_then(|o| o.id()), Some("e"));
        let sections: Vec<Section> = m.objects().iter().map(|o| o.section).collect();
        assert_eq!(
            sections,
            [Section::Main, Section::Main, Section::Copy, Section::Copy]
        );
        // The copy repeats ids on purpose: no duplicate reported.
        assert_eq!(codes(&m), [(s("/Attributes/1/0"), "OM104")]);
        let attributes = m.attributes();
        assert_eq!(attributes.len(), 2);
        assert_eq!(attributes[0].name, &Value::from("deployed"));
        assert_eq!(attributes[0].value, &Data::Scalar(Value::from(true)));
        assert_eq!(m.object("a").unwrap().path.to_string(), "/Objects/apps/0");
    }

    #[test]
    fn duplicate_and_odd_ids() {
        let m = model(
            r#"[{"?": {"id": "x", "type": "a"}}, {"?": {"id": "x", "type": "a"}}, {"?": {"id": 5, "type": "a"}},
                {"?": {"id": null, "type": "a"}}, {"?": {"type": "a"}}]"#,
        );
        assert_eq!(
            codes(&m),
            [(s("/1/?/id"), "OM101"), (s("/2/?/id"), "OM102")]
        );
        assert_eq!(
            m.diagnostics()[0].message,
            "duplicate object id \"x\" (first at /0)"
        );
        assert_eq!(m.object("x").unwrap().path.to_string(), "/0");
    }

    #[test]
    fn subscribers() {
        let m = model(
            r#"{"?": {"id": "a", "type": "t", "dependencies": {"onDestruction": [
                {"subscriber": "b", "handler": "h"}, {"subscriber": "nope"}, {"subscriber": null}]}},
                "child": {"?": {"id": "b", "type": "t"}}}"#,
        );
        assert_eq!(
            codes(&m),
            [
                (s("/?/dependencies/onDestruction/1/subscriber"), "OM103"),
                (s("/?/dependencies/onDestruction/2/subscriber"), "OM103"),
            ]
        );
    }

    #[test]
    fn property_names() {
        let m = model(
            r#"{"?": {"type": "t"}, "ok": 1, "_ok": 2, "é": 3, "a-b": 4, "1abc": 5, "__x": 6, "": 7, "-a": 8,
                "nested": {"1": {"__deep": 1}}}"#,
        );
        assert_eq!(
            codes(&m),
            [
                (s("/1abc"), "OM201"),
                (s("/__x"), "OM201"),
                (s("/"), "OM201"),
                (s("/-a"), "OM201"),
            ]
        );
        assert!(m
            .diagnostics()
            .iter()
            .all(|d| d.severity == Severity::Error));
        // Non-string keys come from YAML.
        let m = ObjectModel::from_yaml("?: {type: t}\n1: one\nnull: none\n").unwrap();
        assert_eq!(codes(&m), [(s("/1"), "OM202"), (s("/null"), "OM202")]);
        assert_eq!(
            m.to_json().unwrap(),
            r#"{"?": {"type": "t"}, "1": "one", "null": "none"}"#
        );
    }

    #[test]
    fn system_keys_and_missing_types() {
        let m = model(
            r#"{"?": {"type": "t", "id": "a", "status": "ready", "updated": "x", "resourceUsages": {},
                      "metadata": null, "_26411a1861294160833743e45d0eaad9": {"name": "A"}, "adminPassword": "p"},
                "host": {"?": {"id": "h"}}}"#,
        );
        assert_eq!(codes(&m), [(s("/?/adminPassword"), "OM301")]);
        let m = model(r#"{"?": {"id": "a"}}"#);
        assert_eq!(codes(&m), [(s("/?"), "OM302")]);
        let m = model(r#"{"Templates": {"t": {"?": {"id": "a"}}}}"#);
        assert_eq!(codes(&m), [(s("/Templates/t/?"), "OM302")]);
    }

    #[test]
    fn references() {
        let m = model(
            r#"{"?": {"id": "root", "type": "t"},
                "nodes": [{"?": {"id": "n1", "type": "t"}, "next": ["n2", "root", "unknown"]},
                          {"?": {"id": "n2", "type": "t"}, "next": {"a": {"b": "n1"}}, "self": "n2"}],
                "first": "n1", "label": "n1 is not a reference", "n2": "keys do not count"}"#,
        );
        let root = m.object("root").unwrap();
        let targets: Vec<(String, String)> = m
            .references_of(&root)
            .into_iter()
            .map(|r| (r.at.to_string(), r.target))
            .collect();
        assert_eq!(targets, [(s("/first"), s("n1"))]);
        let all: Vec<(Option<String>, String, String)> = m
            .references()
            .into_iter()
            .map(|r| (r.from_id, r.at.to_string(), r.target))
            .collect();
        assert_eq!(
            all,
            [
                (Some(s("root")), s("/first"), s("n1")),
                (Some(s("n1")), s("/nodes/0/next/0"), s("n2")),
                (Some(s("n1")), s("/nodes/0/next/1"), s("root")),
                (Some(s("n2")), s("/nodes/1/next/a/b"), s("n1")),
                (Some(s("n2")), s("/nodes/1/self"), s("n2")),
            ]
        );
        let referrers: Vec<String> = m
            .referrers("n1")
            .into_iter()
            .map(|r| r.from.to_string())
            .collect();
        assert_eq!(referrers, ["", "/nodes/1"]);
        let owners: Vec<Option<&str>> = m
            .objects()
            .iter()
            .map(|o| o.owner.and_then(|owner| owner.id()))
            .collect();
        assert_eq!(owners, [None, Some("root"), Some("root")]);
        assert_eq!(m.objects_of_type("t").len(), 3);
        assert!(m.objects_of_type("x").is_empty());
        assert!(m.object("unknown").is_none());
    }

    #[test]
    fn yaml_input() {
        let e = ObjectModel::from_yaml("?: {type: t}\nwhen: 2015-01-01\n").unwrap_err();
        assert_eq!(e.path().to_string(), "/when");
        assert_eq!(e.kind(), &ErrorKind::UnsupportedYamlValue("date"));
        let e = ObjectModel::from_yaml("a: !!set {x}\n").unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::UnsupportedYamlValue("set"));
        assert_eq!(
            ObjectModel::from_yaml("").unwrap_err().kind(),
            &ErrorKind::EmptyDocument
        );
        assert!(matches!(
            ObjectModel::from_yaml("a: [").unwrap_err().kind(),
            ErrorKind::Yaml(_)
        ));
        // Plain YAML has no expressions.
        let m = ObjectModel::from_yaml("?: {type: t}\nname: $.x\n").unwrap();
        assert_eq!(
            m.root_object()
                .unwrap()
                .property("name")
                .and_then(Data::as_str),
            Some("$.x")
        );
        let e = ObjectModel::from_yaml("?: {type: 'a b'}\n").unwrap_err();
        assert_eq!(e.to_string(), "/?/type: invalid type string \"a b\": expected `name`, `name/version`, `name@package` or `name/version@package`");
    }

    #[test]
    fn broken_system_sections() {
        // Nested: kept as data, reported.
        let m = model(
            r#"{"?": {"type": "t"}, "items": [{"?": 42}, {"?": {"id": "ok"}}, {"?": null}]}"#,
        );
        assert_eq!(m.objects().len(), 2);
        assert_eq!(
            codes(&m),
            [(s("/items/0/?"), "OM303"), (s("/items/2/?"), "OM303")]
        );
        assert_eq!(m.diagnostics()[0].severity, Severity::Error);
        assert_eq!(
            m.to_json().unwrap(),
            r#"{"?": {"type": "t"}, "items": [{"?": 42}, {"?": {"id": "ok"}}, {"?": null}]}"#
        );
        // At the root of an object model or of a deployment section: errors.
        assert_eq!(
            error(r#"{"?": 42}"#),
            (s("/?"), ErrorKind::SystemNotMapping("int"))
        );
        assert_eq!(
            error(r#"{"Objects": {"?": []}}"#),
            (s("/Objects/?"), ErrorKind::SystemNotMapping("list"))
        );
        let forced = ParseOptions::default().with_kind(ModelKind::Object);
        let e = ObjectModel::from_json_with(r#"{"a": 1}"#, &forced).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::NotAnObject);
    }

    #[test]
    fn id_like_strings() {
        assert!(is_id_like("0123456789abcdef0123456789ABCDEF"));
        assert!(is_id_like("283aa37f-d18a-48fc-b94e-c0721dbcf059"));
        assert!(!is_id_like("283aa37f-d18a-48fc-b94e-c0721dbcf05"));
        assert!(!is_id_like("node0"));
        assert!(!is_id_like("0123456789abcdef0123456789abcdeg"));
        let m = model(
            r#"{"?": {"id": "283aa37f-d18a-48fc-b94e-c0721dbcf059", "type": "t"},
                "a": ["283aa37f-d18a-48fc-b94e-c0721dbcf059", "383aa37f-d18a-48fc-b94e-c0721dbcf059"],
                "c": {"?": {"id": "c"}, "d": "0123456789abcdef0123456789abcdef"}}"#,
        );
        let found: Vec<(String, Option<String>)> = m
            .unresolved_id_like_strings()
            .into_iter()
            .map(|r| (r.at.to_string(), r.from_id))
            .collect();
        assert_eq!(
            found,
            [
                (s("/a/1"), Some(s("283aa37f-d18a-48fc-b94e-c0721dbcf059"))),
                (s("/c/d"), Some(s("c")))
            ]
        );
    }

    #[test]
    fn keyword_rule() {
        for ok in ["a", "_", "_1", "a__b", "é", "Ω9", "a-b", "a.b"] {
            assert!(is_keyword(ok), "{ok}");
        }
        for bad in ["", "__", "__a", "1", "١x", "-", " a", "$a", "?"] {
            assert!(!is_keyword(bad), "{bad}");
        }
    }
}
