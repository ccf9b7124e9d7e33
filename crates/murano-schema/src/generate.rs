//! Murano's `generate_schema`: the class schema and the model builders'.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use murano_dsl::contract::{ContractSpec, Runtime};
use murano_dsl::model::{MethodScope, MethodUsage, PropertyUsage};
use murano_dsl::registry::{codes, ClassId, MetaInstance, TypeWeights};
use murano_dsl::version::{parse_version_spec, YamlScalar};
use murano_yaml::Node;
use murano_yaql::eval::Value as YValue;
use serde_json::{Map, Value as Json};

use crate::meta::{meta_values, yaml_to_json};
use crate::translate::{query_error, to_json, Translator};
use crate::{Catalog, SchemaError};

const TITLE: &str = "io.murano.metadata.Title";
const DESCRIPTION: &str = "io.murano.metadata.Description";
const HELP_TEXT: &str = "io.murano.metadata.HelpText";
const MODEL_BUILDER: &str = "io.murano.metadata.ModelBuilder";
const HIDDEN: &str = "io.murano.metadata.forms.Hidden";
const POSITION: &str = "io.murano.metadata.forms.Position";
const SECTION: &str = "io.murano.metadata.forms.Section";

/// The schemas of a request: `""` for the class, then one per model
/// builder, by name.
pub type SchemaMap = BTreeMap<String, Json>;

/// What `GET /schemas/{className}[/{methods}]` asks for.
///
/// ```
/// use murano_schema::SchemaRequest;
/// let r = SchemaRequest::new("com.example.App")
///     .version("1.0")
///     .package("com.example")
///     .methods(["", "createDefault"]);
/// assert_eq!(r.methods.as_deref(), Some(&["".to_owned(), "createDefault".to_owned()][..]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SchemaRequest {
    /// The class's full name.
    pub class_name: String,
    /// `classVersion`: a version or version spec (`=0` when absent).
    pub class_version: Option<String>,
    /// `packageName`: look the class up in this package only.
    pub package_name: Option<String>,
    /// `methods`: the schemas wanted (`""` is the class); `None` or an
    /// empty list means all of them. Names that are not model builders
    /// are left out.
    pub methods: Option<Vec<String>>,
}

impl SchemaRequest {
    /// A request for every schema of a class.
    pub fn new(class_name: impl Into<String>) -> SchemaRequest {
        SchemaRequest {
            class_name: class_name.into(),
            ..SchemaRequest::default()
        }
    }

    /// Sets `classVersion`.
    pub fn version(mut self, spec: impl Into<String>) -> SchemaRequest {
        self.class_version = Some(spec.into());
        self
    }

    /// Sets `packageName`.
    pub fn package(mut self, name: impl Into<String>) -> SchemaRequest {
        self.package_name = Some(name.into());
        self
    }

    /// Sets `methods`.
    pub fn methods<I, S>(mut self, names: I) -> SchemaRequest
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.methods = Some(names.into_iter().map(Into::into).collect());
        self
    }
}

/// Generates the schemas a request asks for, as Murano's engine does: the
/// class schema (`""`) and each model builder's (static or extension
/// public methods whose meta has `io.murano.metadata.ModelBuilder`
/// enabled).
///
/// ```
/// use murano_dsl::version::Version;
/// use murano_schema::{generate, CatalogBuilder, ErrorStatus, SchemaRequest};
///
/// let mut builder = CatalogBuilder::new();
/// builder.add_class_directory("io.murano", Version::new(0, 0, 0), (1, 0), vec![
///     ("Object.yaml".into(), b"Name: io.murano.Object".to_vec()),
///     ("App.yaml".into(), b"Name: io.murano.App\nProperties:\n  name: {Contract: $.string()}\n  \
/// out: {Contract: $, Usage: Out}".to_vec()),
/// ])?;
/// let catalog = builder.build();
/// let schemas = generate(&catalog, &SchemaRequest::new("io.murano.App"))?;
/// let properties = schemas[""]["properties"].as_object().unwrap();
/// assert_eq!(properties.keys().collect::<Vec<_>>(), ["name"]);
///
/// let err = generate(&catalog, &SchemaRequest::new("io.murano.Nope")).unwrap_err();
/// assert_eq!(err.status(), ErrorStatus::NotFound);
/// # Ok::<(), murano_schema::SchemaError>(())
/// ```
pub fn generate(catalog: &Catalog, request: &SchemaRequest) -> Result<SchemaMap, SchemaError> {
    let class = requested_class(catalog, request)?;
    let generator = Generator::new(catalog, class)?;
    let mut names: Vec<String> = vec![String::new()];
    names.extend(generator.model_builders());
    if let Some(wanted) = request.methods.as_ref().filter(|m| !m.is_empty()) {
        names.retain(|n| wanted.contains(n));
    }
    let mut out = SchemaMap::new();
    for name in names {
        let schema = if name.is_empty() {
            generator.class_schema()?
        } else {
            generator.builder_schema(&name)?
        };
        out.insert(name, schema);
    }
    Ok(out)
}

/// The schemas of the methods `request.methods` names (`""` is the
/// class), each the schema of its arguments as a model builder's is,
/// whether or not the method is a model builder: the argument forms of
/// actions and static actions (Murano's engine answers only for model
/// builders; this is the dashboard's, not an API call). A method the
/// class does not have fails with `NoMethodFound`.
pub fn method_schemas(
    catalog: &Catalog,
    request: &SchemaRequest,
) -> Result<SchemaMap, SchemaError> {
    let class = requested_class(catalog, request)?;
    let generator = Generator::new(catalog, class)?;
    let mut out = SchemaMap::new();
    for name in request.methods.iter().flatten() {
        let schema = if name.is_empty() {
            generator.class_schema()?
        } else {
            generator.builder_schema(name)?
        };
        out.insert(name.clone(), schema);
    }
    Ok(out)
}

/// The class `request` names, in its package when it names one.
fn requested_class(catalog: &Catalog, request: &SchemaRequest) -> Result<ClassId, SchemaError> {
    let registry = catalog.registry();
    let scalar = match &request.class_version {
        Some(v) => YamlScalar::Str(v.clone()),
        None => YamlScalar::Null,
    };
    let spec = parse_version_spec(&scalar)
        .map_err(|e| SchemaError::new(e.python_exception().name(), e.to_string()))?;
    let class = match &request.package_name {
        Some(package_name) => {
            let package = registry
                .find_package(package_name, Some(&spec))
                .ok_or_else(|| {
                    SchemaError::new(
                        "NoPackageFound",
                        format!("Package \"{package_name}\" is not found"),
                    )
                })?;
            registry
                .class_in_package(package, &request.class_name)
                .ok_or_else(|| {
                    let p = registry.package(package);
                    SchemaError::new(
                        "NoClassFound",
                        format!(
                            "Class \"{}\" is not found in {}/{}",
                            request.class_name,
                            p.map_or("?", |p| p.name.as_str()),
                            p.map(|p| p.version.to_string()).unwrap_or_default()
                        ),
                    )
                })?
        }
        None => registry
            .find_class(&request.class_name, Some(&spec))
            .ok_or_else(|| {
                SchemaError::new(
                    "NoPackageForClassFound",
                    format!("Package for class \"{}\" is not found", request.class_name),
                )
            })?,
    };
    Ok(class)
}

/// Murano's `generate_property_schema` around a translated contract:
/// `default`, then the UI hints. A scalar contract (no schema) fails as in
/// Murano: `TypeError` when there is a default to set, else
/// `AttributeError` once the hints are computed.
fn member_schema(
    schema: Option<Map<String, Json>>,
    default: Option<&Node>,
    hints: impl FnOnce() -> Result<Map<String, Json>, SchemaError>,
) -> Result<Json, SchemaError> {
    let Some(mut schema) = schema else {
        if default.is_some() {
            return Err(SchemaError::new(
                "TypeError",
                "'NoneType' object does not support item assignment",
            ));
        }
        hints()?;
        return Err(SchemaError::new(
            "AttributeError",
            "'NoneType' object has no attribute 'update'",
        ));
    };
    if let Some(default) = default {
        schema.insert("default".into(), yaml_to_json(default));
    }
    schema.extend(hints()?);
    Ok(Json::Object(schema))
}

struct Generator<'a> {
    catalog: &'a Catalog,
    class: ClassId,
    weights: TypeWeights,
    runtimes: std::cell::RefCell<HashMap<(u32, u32), Arc<Runtime>>>,
}

/// Meta grouped by meta class name, in aggregation order.
type MetaMap<'a> = Vec<(String, MetaInstance<'a>)>;

impl<'a> Generator<'a> {
    fn new(catalog: &'a Catalog, class: ClassId) -> Result<Generator<'a>, SchemaError> {
        let registry = catalog.registry();
        let mut hierarchy = vec![class];
        hierarchy.extend(registry.ancestors(class).map_err(|e| query_error(&e))?);
        // The class must load: every parent resolves, every property and
        // argument has a contract.
        for c in &hierarchy {
            for link in registry.parent_links(*c) {
                if let Err(e) = &link.target {
                    return Err(
                        SchemaError::new(e.python_exception(), e.to_string()).at_mark(link.start)
                    );
                }
            }
            if let Some(def) = registry.definition(*c) {
                let missing = def.properties.iter().any(|p| p.contract.is_none())
                    || def
                        .methods
                        .iter()
                        .flat_map(|m| &m.arguments)
                        .any(|a| a.contract.is_none());
                if missing {
                    return Err(SchemaError::new("KeyError", "'Contract'"));
                }
            }
        }
        let weights = registry.type_weights(class).map_err(|e| query_error(&e))?;
        Ok(Generator {
            catalog,
            class,
            weights,
            runtimes: std::cell::RefCell::new(HashMap::new()),
        })
    }

    fn runtime_for(&self, class: ClassId) -> Arc<Runtime> {
        let registry = self.catalog.registry();
        let rt = registry
            .package_of(class)
            .map_or((1, 0), |p| self.catalog.runtime(p));
        self.runtimes
            .borrow_mut()
            .entry(rt)
            .or_insert_with(|| Arc::new(Runtime::new(rt.0, rt.1)))
            .clone()
    }

    fn translator(&self, declaring: ClassId) -> Translator<'a> {
        Translator {
            catalog: self.catalog,
            class: self.class,
            declaring,
            runtime: self.runtime_for(declaring),
        }
    }

    fn weight(&self, class: ClassId) -> i64 {
        let name = self.catalog.registry().class_name(class).unwrap_or("");
        self.weights
            .get(name)
            .and_then(|w| i64::try_from(w).ok())
            .unwrap_or(0)
    }

    fn n(&self) -> i64 {
        i64::try_from(self.weights.len()).unwrap_or(i64::MAX)
    }

    /// The meta-section problems the registry found inside `node` of
    /// `class` (Murano raises them when the meta is read).
    fn meta_problem(&self, class: ClassId, node: Option<&Node>) -> Result<(), SchemaError> {
        let Some(node) = node else { return Ok(()) };
        let meta_codes = [
            codes::META_FORMAT,
            codes::META_UNRESOLVED,
            codes::META_NOT_META_CLASS,
            codes::META_NOT_APPLICABLE,
            codes::META_CARDINALITY,
        ];
        let registry = self.catalog.registry();
        if let Some(d) = registry.class_diagnostics(class).find(|d| {
            meta_codes.contains(&d.code)
                && d.start.is_some_and(|s| s.offset >= node.start.index)
                && d.end.is_some_and(|e| e.offset <= node.end.index)
        }) {
            let exception = d.python_exception.unwrap_or("ValueError");
            let error = SchemaError::new(exception, d.message.clone());
            return Err(match d.start {
                Some(p) => error.at(p),
                None => error,
            });
        }
        Ok(())
    }

    fn hierarchy(&self) -> Vec<ClassId> {
        let mut all = vec![self.class];
        all.extend(
            self.catalog
                .registry()
                .ancestors(self.class)
                .unwrap_or_default(),
        );
        all
    }

    fn named(&self, meta: Vec<MetaInstance<'a>>) -> MetaMap<'a> {
        let registry = self.catalog.registry();
        meta.into_iter()
            .map(|m| {
                (
                    registry
                        .class_name(m.attachment.meta_class)
                        .unwrap_or("")
                        .to_owned(),
                    m,
                )
            })
            .collect()
    }

    /// Instantiates every meta object (as Murano does while aggregating).
    fn instantiate(&self, meta: &MetaMap<'a>) -> Result<Vec<HashMap<String, YValue>>, SchemaError> {
        meta.iter()
            .map(|(_, m)| meta_values(self.catalog, m))
            .collect()
    }

    fn class_meta(&self) -> Result<MetaMap<'a>, SchemaError> {
        let registry = self.catalog.registry();
        for c in self.hierarchy() {
            self.meta_problem(c, registry.definition(c).and_then(|d| d.meta.as_ref()))?;
        }
        let meta = registry
            .class_meta(self.class)
            .map_err(|e| query_error(&e))?;
        Ok(self.named(meta))
    }

    fn method_meta(&self, name: &str) -> Result<MetaMap<'a>, SchemaError> {
        let registry = self.catalog.registry();
        for c in self.hierarchy() {
            if let Some(m) = registry.definition(c).and_then(|d| d.method(name)) {
                self.meta_problem(c, m.meta.as_ref())?;
            }
        }
        let meta = registry
            .method_meta(self.class, name)
            .map_err(|e| query_error(&e))?;
        Ok(self.named(meta))
    }

    fn model_builders(&self) -> Vec<String> {
        let registry = self.catalog.registry();
        let mut out = Vec::new();
        for name in registry.all_method_names(self.class).unwrap_or_default() {
            let Ok(found) = registry.find_single_method(self.class, name) else {
                continue;
            };
            let method = found.member;
            let is_static = matches!(method.usage, MethodUsage::Static | MethodUsage::Extension);
            let is_action =
                method.scope == MethodScope::Public || method.usage == MethodUsage::Action;
            if !is_static || !is_action {
                continue;
            }
            let Ok(meta) = self.method_meta(name) else {
                continue;
            };
            let Ok(values) = self.instantiate(&meta) else {
                continue;
            };
            let enabled = meta
                .iter()
                .zip(&values)
                .find(|((n, _), _)| n == MODEL_BUILDER)
                .is_some_and(|(_, v)| v.get("enabled").is_some_and(YValue::truthy));
            if enabled {
                out.push(method.name.clone());
            }
        }
        out
    }

    fn class_schema(&self) -> Result<Json, SchemaError> {
        let registry = self.catalog.registry();
        let mut properties = Map::new();
        let mut names: Vec<&str> = registry
            .all_property_names(self.class)
            .map_err(|e| query_error(&e))?;
        names.sort_unstable();
        names.dedup();
        for name in names {
            let found = registry
                .find_single_property(self.class, name)
                .map_err(|e| query_error(&e))?;
            let property = found.member;
            if !matches!(property.usage, PropertyUsage::In | PropertyUsage::InOut) {
                continue;
            }
            let schema = self.spec_schema(found.class, property.contract.as_ref())?;
            let hints = || {
                for c in self.hierarchy() {
                    if let Some(p) = registry.definition(c).and_then(|d| d.property(name)) {
                        self.meta_problem(c, p.meta.as_ref())?;
                    }
                }
                let meta = registry
                    .property_meta(self.class, name)
                    .map_err(|e| query_error(&e))?;
                self.ui_hints(&self.named(meta))
            };
            let schema = member_schema(schema, property.default.as_ref(), hints)?;
            properties.insert(name.to_owned(), schema);
        }
        let meta = self.class_meta()?;
        self.document(properties, &meta)
    }

    fn builder_schema(&self, name: &str) -> Result<Json, SchemaError> {
        let registry = self.catalog.registry();
        let found = registry
            .find_single_method(self.class, name)
            .map_err(|e| query_error(&e))?;
        let mut properties = Map::new();
        for argument in &found.member.arguments {
            let schema = self.spec_schema(found.class, argument.contract.as_ref())?;
            let hints = || {
                self.meta_problem(found.class, argument.meta.as_ref())?;
                let meta = registry
                    .argument_meta(self.class, name, &argument.name)
                    .map_err(|e| query_error(&e))?;
                self.ui_hints(&self.named(meta))
            };
            let schema = member_schema(schema, argument.default.as_ref(), hints)?;
            properties.insert(argument.name.clone(), schema);
        }
        let meta = self.method_meta(name)?;
        self.document(properties, &meta)
    }

    /// The top-level document around `properties`.
    fn document(
        &self,
        properties: Map<String, Json>,
        meta: &MetaMap<'a>,
    ) -> Result<Json, SchemaError> {
        let mut doc = Map::new();
        doc.insert(
            "$schema".into(),
            Json::from("http://json-schema.org/draft-04/schema#"),
        );
        doc.insert("type".into(), Json::from("object"));
        doc.insert("properties".into(), Json::Object(properties));
        doc.insert("additionalProperties".into(), Json::Bool(false));
        doc.insert("formSections".into(), self.sections(meta)?);
        doc.extend(self.ui_hints(meta)?);
        Ok(Json::Object(doc))
    }

    fn spec_schema(
        &self,
        declaring: ClassId,
        contract: Option<&Node>,
    ) -> Result<Option<Map<String, Json>>, SchemaError> {
        let Some(node) = contract else {
            return Err(SchemaError::new("KeyError", "'Contract'"));
        };
        let spec = ContractSpec::from_node(node).map_err(|e| {
            SchemaError::new(e.python_type(), e.message.clone()).at_mark(node.start)
        })?;
        let translated = self
            .translator(declaring)
            .translate(&spec)
            .map_err(|e| e.at_mark(node.start))?;
        Ok(match translated {
            Some(Json::Object(m)) => Some(m),
            _ => None,
        })
    }

    /// Murano's `generate_ui_hints`.
    fn ui_hints(&self, meta: &MetaMap<'a>) -> Result<Map<String, Json>, SchemaError> {
        let values = self.instantiate(meta)?;
        let mut out = Map::new();
        let first = |class: &str| {
            meta.iter()
                .zip(&values)
                .find(|((n, _), _)| n == class)
                .map(|((_, m), v)| (m, v))
        };
        for (class, key, property) in [
            (TITLE, "title", "text"),
            (DESCRIPTION, "description", "text"),
            (HELP_TEXT, "helpText", "text"),
            (HIDDEN, "visible", "visible"),
        ] {
            if let Some((_, v)) = first(class) {
                out.insert(key.into(), v.get(property).map_or(Json::Null, to_json));
            }
        }
        if let Some((m, v)) = first(POSITION) {
            out.insert(
                "formSection".into(),
                v.get("section").map_or(Json::Null, to_json),
            );
            match v.get("index") {
                None | Some(YValue::Null) => {}
                Some(index) => {
                    let index = index.as_int().unwrap_or(0);
                    let value = index
                        .saturating_add(1)
                        .saturating_mul(self.n())
                        .saturating_sub(self.weight(m.declared_by));
                    out.insert("formIndex".into(), Json::from(value));
                }
            }
        }
        Ok(out)
    }

    /// Murano's `generate_sections`.
    fn sections(&self, meta: &MetaMap<'a>) -> Result<Json, SchemaError> {
        struct Section {
            name: String,
            title: Json,
            index: Option<i64>,
            weight: i64,
        }
        let mut chosen: Vec<Section> = Vec::new();
        for (class, m) in meta {
            if class != SECTION {
                continue;
            }
            let values = meta_values(self.catalog, m)?;
            let name = match values.get("name") {
                Some(YValue::Str(s)) => s.to_string(),
                Some(other) => other.py_str(),
                None => String::new(),
            };
            let section = Section {
                name,
                title: values.get("title").map_or(Json::Null, to_json),
                index: values.get("index").and_then(YValue::as_int),
                weight: self.weight(m.declared_by),
            };
            match chosen.iter_mut().find(|s| s.name == section.name) {
                None => chosen.push(section),
                Some(existing) => {
                    let replace = if existing.weight < section.weight {
                        false
                    } else if existing.weight == section.weight {
                        match (section.index, existing.index) {
                            (None, _) => false,
                            (Some(i), Some(e)) if e <= i => false,
                            _ => true,
                        }
                    } else {
                        true
                    };
                    if replace {
                        *existing = section;
                    }
                }
            }
        }
        let n = self.n();
        let key = |s: &Section| {
            s.index
                .unwrap_or(0)
                .saturating_add(1)
                .saturating_mul(n)
                .saturating_sub(s.weight)
        };
        let mut ordered: Vec<&Section> = chosen.iter().filter(|s| s.index.is_some()).collect();
        ordered.sort_by_key(|s| key(s));
        let mut out = Map::new();
        for s in ordered {
            if out.contains_key(&s.name) {
                continue;
            }
            let mut entry = Map::new();
            entry.insert("title".into(), s.title.clone());
            entry.insert("index".into(), Json::from(out.len()));
            out.insert(s.name.clone(), Json::Object(entry));
        }
        for s in chosen.iter().filter(|s| s.index.is_none()) {
            if out.contains_key(&s.name) {
                continue;
            }
            let mut entry = Map::new();
            entry.insert("title".into(), s.title.clone());
            out.insert(s.name.clone(), Json::Object(entry));
        }
        Ok(Json::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CatalogBuilder;
    use murano_dsl::version::Version;

    fn catalog() -> Catalog {
        let mut builder = CatalogBuilder::new();
        builder
            .add_class_directory(
                "io.murano",
                Version::new(0, 0, 0),
                (1, 0),
                vec![
                    ("Object.yaml".into(), b"Name: io.murano.Object".to_vec()),
                    (
                        "App.yaml".into(),
                        b"Name: io.murano.App\nMethods:\n  resize:\n    Usage: Action\n    Arguments:\n      - size: {Contract: $.int().notNull()}\n  hello:\n    Usage: Static\n    Scope: Public\n    Arguments:\n      - who: {Contract: $.string()}\n".to_vec(),
                    ),
                ],
            )
            .unwrap();
        builder.build()
    }

    #[test]
    fn any_named_method_gets_the_schema_of_its_arguments() {
        let catalog = catalog();
        let request = SchemaRequest::new("io.murano.App").methods(["resize", "hello"]);
        // Murano's engine answers for model builders only.
        assert!(generate(&catalog, &request).unwrap().is_empty());
        let got = method_schemas(&catalog, &request).unwrap();
        assert_eq!(got["resize"]["properties"]["size"]["type"], "integer");
        assert!(got["hello"]["properties"]["who"].is_object());
        let missing = SchemaRequest::new("io.murano.App").methods(["nope"]);
        let err = method_schemas(&catalog, &missing).unwrap_err();
        assert_eq!(err.exception(), "NoMethodFound");
    }
}
