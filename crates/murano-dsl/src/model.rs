//! The MuranoPL class model: what a class file declares.
//!
//! [`ClassDefinition::from_documents`] reads the documents of a class file
//! (as [`crate::yaml::load_class_file`] loads them) the way Murano's package
//! loader does: `Namespaces` carry over from one document to the next, a
//! document with only `Namespaces` declares them for the following ones,
//! `Name` resolves through the namespaces, `Extends` is one name or a list,
//! `Methods` (or the old `Workflow`) map `initialize`/`destroy` to
//! `.init`/`.destroy`, and method bodies become [`instruction`] trees.
//!
//! Building never fails: whatever the engine would refuse when it loads the
//! class (an unknown `Usage`, a missing `Contract`, a body item it cannot
//! parse) is kept as an issue next to the part it concerns, so that tools
//! can inspect broken classes too. An issue is a
//! [`Diagnostic`] with a stable code
//! (`M1xx` class level, `M2xx` members, `M3xx` bodies), the severity of
//! the code table and the span of the node it concerns (no file: the model
//! does not know it).
//!
//! ```
//! use murano_dsl::model::{ClassDefinition, MethodUsage};
//! use murano_dsl::yaml::{load_class_file, LoadOptions};
//!
//! let text = br#"
//! Namespaces:
//!   =: com.example
//!   std: io.murano
//! Name: Demo
//! Extends: std:Application
//! Properties:
//!   port:
//!     Contract: $.int().notNull()
//!     Default: 80
//! Methods:
//!   deploy:
//!     Usage: Action
//!     Body:
//!       - $.port: 8080
//!       - If: $.port > 1024
//!         Then:
//!           - Return: true
//! "#;
//! let file = load_class_file(text, &LoadOptions::default())?;
//! let classes = ClassDefinition::from_documents(&file.documents, None);
//! let class = &classes[0];
//! assert_eq!(class.full_name.as_deref(), Some("com.example.Demo"));
//! assert_eq!(class.extends[0].resolved.as_deref(), Ok("io.murano.Application"));
//! assert_eq!(class.methods[0].usage, MethodUsage::Action);
//! assert_eq!(class.methods[0].body.len(), 2);
//! assert!(class.issues().next().is_none());
//! # Ok::<(), murano_dsl::yaml::YamlError>(())
//! ```

pub mod instruction;
mod names;

pub use instruction::{
    AssignTarget, Block, CatchClause, Instruction, InstructionKind, TargetRoot, TargetStep,
};
pub use names::{is_type_name, NameError, Namespaces};

use crate::diagnostic::{position, Diagnostic};
use crate::yaml::{Mark, Node, Value};
use instruction::{describe, BodyBuilder};

/// A type name as written, and what it resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TypeRef {
    /// The name as written (`std:Application`).
    pub written: String,
    /// The full name, or why it does not resolve.
    pub resolved: Result<String, NameError>,
    /// Where it starts.
    pub start: Mark,
    /// Where it ends.
    pub end: Mark,
}

macro_rules! keyword_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize))]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The keyword as MuranoPL writes it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => stringify!($variant)),+
                }
            }

            /// The value a keyword names (case-sensitive, as in Murano).
            pub fn parse(text: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|v| v.as_str() == text)
            }
        }
    };
}

keyword_enum!(
    /// A class's `Usage`.
    ClassUsage {
        /// An ordinary class (the default).
        Class,
        /// A meta class, attachable through `Meta`.
        Meta,
    }
);

keyword_enum!(
    /// A property's `Usage`.
    PropertyUsage {
        /// Input set by the object model (the default).
        In,
        /// Output set by the class.
        Out,
        /// Both.
        InOut,
        /// Runtime state, not serialised.
        Runtime,
        /// Input that cannot change.
        Const,
        /// Taken from configuration.
        Config,
        /// A static (class-level) property.
        Static,
    }
);

keyword_enum!(
    /// A method's `Usage`.
    MethodUsage {
        /// An instance method (the default).
        Runtime,
        /// An instance method callable through the API (deprecated in
        /// favour of `Scope: Public`).
        Action,
        /// A static method.
        Static,
        /// An extension method (static, first argument is the receiver).
        Extension,
    }
);

keyword_enum!(
    /// A method's `Scope`.
    MethodScope {
        /// Callable inside the deployment session (the default).
        Session,
        /// Callable through the API.
        Public,
    }
);

keyword_enum!(
    /// A method argument's `Usage`.
    ArgumentUsage {
        /// An ordinary argument (the default).
        Standard,
        /// Collects the remaining positional arguments.
        VarArgs,
        /// Collects the remaining keyword arguments.
        KwArgs,
    }
);

keyword_enum!(
    /// How many times a meta class may be attached to one target.
    Cardinality {
        /// At most once (the default).
        One,
        /// Any number of times.
        Many,
    }
);

keyword_enum!(
    /// Where a meta class may be attached.
    MetaTarget {
        /// A package.
        Package,
        /// A class.
        Type,
        /// A property.
        Property,
        /// A method.
        Method,
        /// A method argument.
        Argument,
    }
);

/// The meta-class part of a class whose `Usage` is `Meta`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MetaClassInfo {
    /// `Cardinality`.
    pub cardinality: Cardinality,
    /// `Applies` (all targets when absent or `All`).
    pub applies: Vec<MetaTarget>,
    /// `Inherited`.
    pub inherited: bool,
}

/// A property declaration.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Property {
    /// The property name.
    pub name: String,
    /// `Contract` (YAQL or a YAML shape), if declared.
    pub contract: Option<Node>,
    /// `Usage`.
    pub usage: PropertyUsage,
    /// `Default`, if declared (a declared null is `Some`).
    pub default: Option<Node>,
    /// `Meta`, as written.
    pub meta: Option<Node>,
    /// Problems found.
    pub issues: Vec<Diagnostic>,
    /// Where the name starts.
    pub start: Mark,
    /// Where the declaration ends.
    pub end: Mark,
}

/// A method argument declaration.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Argument {
    /// The argument name.
    pub name: String,
    /// `Contract`, if declared.
    pub contract: Option<Node>,
    /// `Usage`.
    pub usage: ArgumentUsage,
    /// `Default`, if declared.
    pub default: Option<Node>,
    /// `Meta`, as written.
    pub meta: Option<Node>,
    /// Where it starts.
    pub start: Mark,
    /// Where it ends.
    pub end: Mark,
}

/// A method declaration.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Method {
    /// The name the engine uses (`initialize` is `.init`, `destroy` is
    /// `.destroy`).
    pub name: String,
    /// The name as written.
    pub written_name: String,
    /// The arguments in order.
    pub arguments: Vec<Argument>,
    /// `Usage`.
    pub usage: MethodUsage,
    /// `Scope` (`Public` for `Usage: Action`).
    pub scope: MethodScope,
    /// `Meta`, as written.
    pub meta: Option<Node>,
    /// The body.
    pub body: Block,
    /// Problems found (in the declaration and the body).
    pub issues: Vec<Diagnostic>,
    /// Where the name starts.
    pub start: Mark,
    /// Where the declaration ends.
    pub end: Mark,
}

/// A class declared by a document of a class file.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassDefinition {
    /// `Name` as written, if any (an unnamed class takes the name the
    /// package gives it).
    pub name: Option<String>,
    /// The full name, when `Name` resolves.
    pub full_name: Option<String>,
    /// `Namespaces` in force (declared here or carried over).
    pub namespaces: Namespaces,
    /// `Usage`.
    pub usage: ClassUsage,
    /// Meta-class settings when `usage` is `Meta`.
    pub meta_class: Option<MetaClassInfo>,
    /// `Extends` (empty: `io.murano.Object`, added by the engine).
    pub extends: Vec<TypeRef>,
    /// `Import`: classes whose extension methods this class uses.
    pub import: Vec<TypeRef>,
    /// `Meta`, as written.
    pub meta: Option<Node>,
    /// Properties in document order.
    pub properties: Vec<Property>,
    /// Methods in document order.
    pub methods: Vec<Method>,
    /// Problems found at class level.
    pub class_issues: Vec<Diagnostic>,
    /// Where the document starts.
    pub start: Mark,
    /// Where it ends.
    pub end: Mark,
}

pub(crate) fn issue(code: &'static str, message: impl Into<String>, node: &Node) -> Diagnostic {
    Diagnostic::new(code, message).with_span(position(node.start), position(node.end))
}

/// The text Murano gets from a scalar with `str()`, if it is one.
fn scalar_text(node: &Node) -> Option<String> {
    Some(match &node.value {
        Value::Str(s) => s.clone(),
        Value::Yaql(y) => y.text().to_owned(),
        Value::Int(i) => i.to_string(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Float(x) => murano_yaql::python_float_repr(*x),
        _ => return None,
    })
}

/// Records every key of `map` outside `known`: the engine ignores them,
/// which usually means a typo or a mis-indented line. The issue spans the
/// key and its value.
fn unknown_keys(
    map: &[(Node, Node)],
    known: &[&str],
    code: &'static str,
    what: &str,
    issues: &mut Vec<Diagnostic>,
) {
    for (k, v) in map {
        let name = scalar_text(k);
        if name.as_deref().is_some_and(|n| known.contains(&n)) {
            continue;
        }
        issues.push(
            Diagnostic::new(
                code,
                format!(
                    "unknown key {} in {what} (ignored by the engine)",
                    name.map(|n| format!("{n:?}"))
                        .unwrap_or_else(|| describe(&k.value).to_owned())
                ),
            )
            .with_span(position(k.start), position(v.end)),
        );
    }
}

/// The issue codes of unknown keys (their spans hold what the engine
/// ignores).
pub const UNKNOWN_KEY_CODES: [&str; 4] = ["M111", "M204", "M215", "M225"];

fn entries(node: Option<&Node>) -> &[(Node, Node)] {
    node.and_then(|n| n.value.as_map()).unwrap_or(&[])
}

fn get<'a>(entries: &'a [(Node, Node)], key: &str) -> Option<&'a Node> {
    entries
        .iter()
        .find(|(k, _)| k.value.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn non_null(node: Option<&Node>) -> Option<&Node> {
    node.filter(|n| n.value != Value::Null)
}

impl ClassDefinition {
    /// The classes of a class file's documents, as the package loader
    /// reads them (documents with only `Namespaces` declare namespaces for
    /// the following ones and are not classes).
    pub fn from_documents(documents: &[Node], _file_name: Option<&str>) -> Vec<ClassDefinition> {
        let mut classes = Vec::new();
        let mut namespaces = Namespaces::default();
        for doc in documents {
            let Some(map) = doc.value.as_map() else {
                let mut class = ClassDefinition::empty(doc, namespaces.clone());
                class.class_issues.push(issue(
                    "M100",
                    format!(
                        "a class document must be a mapping, not {}",
                        describe(&doc.value)
                    ),
                    doc,
                ));
                classes.push(class);
                continue;
            };
            let mut ns_issues = Vec::new();
            if let Some(ns_node) = map
                .iter()
                .find(|(k, _)| k.value.as_str() == Some("Namespaces"))
            {
                namespaces = read_namespaces(&ns_node.1, &mut ns_issues);
            }
            if map.len() == 1 && get(map, "Namespaces").is_some() {
                continue;
            }
            let mut class = ClassDefinition::read(doc, map, namespaces.clone());
            class.class_issues.extend(ns_issues);
            classes.push(class);
        }
        classes
    }

    fn empty(doc: &Node, namespaces: Namespaces) -> ClassDefinition {
        ClassDefinition {
            name: None,
            full_name: None,
            namespaces,
            usage: ClassUsage::Class,
            meta_class: None,
            extends: Vec::new(),
            import: Vec::new(),
            meta: None,
            properties: Vec::new(),
            methods: Vec::new(),
            class_issues: Vec::new(),
            start: doc.start,
            end: doc.end,
        }
    }

    fn read(doc: &Node, map: &[(Node, Node)], namespaces: Namespaces) -> ClassDefinition {
        let mut class = ClassDefinition::empty(doc, namespaces);
        let mut issues = Vec::new();
        unknown_keys(
            map,
            &[
                "Name",
                "Namespaces",
                "Extends",
                "Properties",
                "Methods",
                "Workflow",
                "Usage",
                "Meta",
                "Import",
                "Cardinality",
                "Applies",
                "Inherited",
            ],
            "M111",
            "a class",
            &mut issues,
        );
        if let Some(name) = non_null(get(map, "Name")) {
            match scalar_text(name) {
                Some(text) => {
                    match class.namespaces.resolve(&text) {
                        Ok(full) => class.full_name = Some(full),
                        Err(e) => issues.push(issue("M101", e.to_string(), name)),
                    }
                    class.name = Some(text);
                }
                None => issues.push(issue(
                    "M101",
                    format!("Name must be a string, not {}", describe(&name.value)),
                    name,
                )),
            }
        }
        if let Some(usage) = get(map, "Usage") {
            match scalar_text(usage).as_deref().and_then(ClassUsage::parse) {
                Some(u) => class.usage = u,
                None => issues.push(issue(
                    "M102",
                    "invalid class Usage (must be Class or Meta)",
                    usage,
                )),
            }
        }
        if class.usage == ClassUsage::Meta {
            class.meta_class = Some(read_meta_class(map, &mut issues));
        }
        class.extends = type_list(
            non_null(get(map, "Extends")),
            &class.namespaces,
            "M103",
            &mut issues,
        );
        class.import = type_list(
            non_null(get(map, "Import")),
            &class.namespaces,
            "M104",
            &mut issues,
        );
        class.meta = non_null(get(map, "Meta")).cloned();
        match non_null(get(map, "Properties")) {
            None => {}
            Some(node) => match node.value.as_map() {
                Some(props) => {
                    class.properties = props.iter().map(|(k, v)| read_property(k, v)).collect()
                }
                None => issues.push(issue("M105", "Properties must be a mapping", node)),
            },
        }
        let methods = non_null(get(map, "Methods")).or_else(|| non_null(get(map, "Workflow")));
        match methods {
            None => {}
            Some(node) => match node.value.as_map() {
                Some(methods) => {
                    class.methods = methods.iter().map(|(k, v)| read_method(k, v)).collect()
                }
                None => issues.push(issue("M106", "Methods must be a mapping", node)),
            },
        }
        class.class_issues.extend(issues);
        class
    }

    /// Every issue of the class, its members and their bodies.
    pub fn issues(&self) -> impl Iterator<Item = &Diagnostic> {
        self.class_issues
            .iter()
            .chain(self.properties.iter().flat_map(|p| p.issues.iter()))
            .chain(self.methods.iter().flat_map(|m| m.issues.iter()))
    }

    /// A method by the name the engine uses.
    pub fn method(&self, name: &str) -> Option<&Method> {
        self.methods.iter().find(|m| m.name == name)
    }

    /// A property by name.
    pub fn property(&self, name: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.name == name)
    }
}

fn read_namespaces(node: &Node, issues: &mut Vec<Diagnostic>) -> Namespaces {
    let mut pairs = Vec::new();
    match &node.value {
        Value::Null => {}
        Value::Map(entries) => {
            for (k, v) in entries {
                let (Some(prefix), ns) = (scalar_text(k), scalar_text(v)) else {
                    issues.push(issue("M107", "namespace prefixes must be strings", k));
                    continue;
                };
                match Namespaces::new([(prefix, ns)]) {
                    Ok(_) => pairs.push((scalar_text(k).unwrap_or_default(), scalar_text(v))),
                    Err(e) => issues.push(issue("M107", e.to_string(), k)),
                }
            }
        }
        other => issues.push(issue(
            "M107",
            format!("Namespaces must be a mapping, not {}", describe(other)),
            node,
        )),
    }
    Namespaces::new(pairs).unwrap_or_default()
}

fn type_list(
    node: Option<&Node>,
    namespaces: &Namespaces,
    code: &'static str,
    issues: &mut Vec<Diagnostic>,
) -> Vec<TypeRef> {
    let Some(node) = node else {
        return Vec::new();
    };
    let items: Vec<&Node> = match &node.value {
        Value::Seq(items) => items.iter().collect(),
        _ => vec![node],
    };
    items
        .into_iter()
        .filter_map(|item| {
            let Some(written) = scalar_text(item) else {
                issues.push(issue(
                    code,
                    format!(
                        "a class name must be a string, not {}",
                        describe(&item.value)
                    ),
                    item,
                ));
                return None;
            };
            let resolved = namespaces.resolve(&written);
            if let Err(e) = &resolved {
                issues.push(issue(code, e.to_string(), item));
            }
            Some(TypeRef {
                written,
                resolved,
                start: item.start,
                end: item.end,
            })
        })
        .collect()
}

fn read_meta_class(map: &[(Node, Node)], issues: &mut Vec<Diagnostic>) -> MetaClassInfo {
    let mut info = MetaClassInfo {
        cardinality: Cardinality::One,
        applies: MetaTarget::ALL.to_vec(),
        inherited: false,
    };
    if let Some(node) = get(map, "Cardinality") {
        match scalar_text(node).as_deref().and_then(Cardinality::parse) {
            Some(c) => info.cardinality = c,
            None => issues.push(issue(
                "M108",
                "invalid meta class Cardinality (must be One or Many)",
                node,
            )),
        }
    }
    if let Some(node) = get(map, "Applies") {
        let items: Vec<&Node> = match &node.value {
            Value::Seq(items) => items.iter().collect(),
            _ => vec![node],
        };
        let mut targets = Vec::new();
        let mut all = false;
        for item in items {
            match scalar_text(item).as_deref() {
                Some("All") => all = true,
                Some(t) => match MetaTarget::parse(t) {
                    Some(target) if !targets.contains(&target) => targets.push(target),
                    Some(_) => {}
                    None => issues.push(issue(
                        "M109",
                        format!("invalid meta class target {t:?}"),
                        item,
                    )),
                },
                None => issues.push(issue("M109", "meta class targets must be strings", item)),
            }
        }
        info.applies = if all {
            MetaTarget::ALL.to_vec()
        } else {
            targets
        };
    }
    if let Some(node) = get(map, "Inherited") {
        match node.value {
            Value::Bool(b) => info.inherited = b,
            _ => issues.push(issue("M110", "Inherited must be true or false", node)),
        }
    }
    info
}

fn read_property(key: &Node, decl: &Node) -> Property {
    let mut issues = Vec::new();
    let name = scalar_text(key).unwrap_or_else(|| {
        issues.push(issue("M200", "property names must be strings", key));
        String::new()
    });
    let mut property = Property {
        name,
        contract: None,
        usage: PropertyUsage::In,
        default: None,
        meta: None,
        issues: Vec::new(),
        start: key.start,
        end: decl.end,
    };
    let Some(map) = decl.value.as_map() else {
        issues.push(issue(
            "M201",
            format!(
                "a property declaration must be a mapping, not {}",
                describe(&decl.value)
            ),
            decl,
        ));
        property.issues = issues;
        return property;
    };
    unknown_keys(
        map,
        &["Contract", "Usage", "Default", "Meta"],
        "M204",
        "a property",
        &mut issues,
    );
    property.contract = get(map, "Contract").cloned();
    if property.contract.is_none() {
        issues.push(issue(
            "M202",
            format!("property {:?} has no Contract", property.name),
            key,
        ));
    }
    property.default = get(map, "Default").cloned();
    property.meta = non_null(get(map, "Meta")).cloned();
    if let Some(usage) = non_null(get(map, "Usage")) {
        match scalar_text(usage).as_deref().and_then(PropertyUsage::parse) {
            Some(u) => property.usage = u,
            None => issues.push(issue("M203", "unknown property Usage", usage)),
        }
    }
    property.issues = issues;
    property
}

fn read_method(key: &Node, payload: &Node) -> Method {
    let mut issues = Vec::new();
    let written_name = scalar_text(key).unwrap_or_else(|| {
        issues.push(issue("M210", "method names must be strings", key));
        String::new()
    });
    let name = match written_name.as_str() {
        "initialize" => ".init".to_owned(),
        "destroy" => ".destroy".to_owned(),
        other => other.to_owned(),
    };
    let mut method = Method {
        name,
        written_name,
        arguments: Vec::new(),
        usage: MethodUsage::Runtime,
        scope: MethodScope::Session,
        meta: None,
        body: Vec::new(),
        issues: Vec::new(),
        start: key.start,
        end: payload.end,
    };
    let map: &[(Node, Node)] = match &payload.value {
        Value::Null => &[],
        Value::Map(map) => map,
        other => {
            // The engine refuses this; keep the instructions for tools.
            issues.push(issue(
                "M211",
                format!(
                    "a method declaration must be a mapping, not {}",
                    describe(other)
                ),
                payload,
            ));
            let mut builder = BodyBuilder {
                issues: &mut issues,
            };
            method.body = builder.block(Some(payload));
            method.issues = issues;
            return method;
        }
    };
    unknown_keys(
        map,
        &["Body", "Arguments", "Usage", "Scope", "Meta"],
        "M215",
        "a method",
        &mut issues,
    );
    if let Some(usage) = non_null(get(map, "Usage")) {
        match scalar_text(usage).as_deref().and_then(MethodUsage::parse) {
            Some(u) => method.usage = u,
            None => issues.push(issue("M212", "unknown method Usage", usage)),
        }
    }
    let scope_node = non_null(get(map, "Scope"));
    let mut scope = None;
    if let Some(node) = scope_node {
        match scalar_text(node).as_deref().and_then(MethodScope::parse) {
            Some(s) => scope = Some(s),
            None => issues.push(issue("M213", "unknown method Scope", node)),
        }
    }
    if method.usage == MethodUsage::Action {
        if scope == Some(MethodScope::Session) {
            if let Some(node) = scope_node {
                issues.push(issue(
                    "M214",
                    "both \"Usage: Action\" and \"Scope: Session\"",
                    node,
                ));
            }
        }
        scope = Some(MethodScope::Public);
    }
    method.scope = scope.unwrap_or(MethodScope::Session);
    method.meta = non_null(get(map, "Meta")).cloned();
    method.arguments = read_arguments(non_null(get(map, "Arguments")), &mut issues);
    let mut builder = BodyBuilder {
        issues: &mut issues,
    };
    method.body = builder.block(get(map, "Body"));
    method.issues = issues;
    method
}

fn read_arguments(node: Option<&Node>, issues: &mut Vec<Diagnostic>) -> Vec<Argument> {
    let Some(node) = node else {
        return Vec::new();
    };
    let records: Vec<&Node> = match &node.value {
        Value::Seq(items) => items.iter().collect(),
        _ => vec![node],
    };
    let mut out = Vec::new();
    let (mut seen_varargs, mut seen_kwargs) = (false, false);
    for record in records {
        let pairs: &[(Node, Node)] = match record.value.as_map() {
            Some(pairs) if !pairs.is_empty() => pairs,
            _ => {
                issues.push(issue(
                    "M220",
                    "each argument must be a mapping with exactly one entry",
                    record,
                ));
                continue;
            }
        };
        if pairs.len() > 1 {
            // The old form (one mapping of all arguments): the engine
            // refuses it; keep every argument for tools.
            issues.push(issue(
                "M220",
                "each argument must be a mapping with exactly one entry",
                record,
            ));
        }
        for (key, decl) in pairs {
            let name = scalar_text(key).unwrap_or_default();
            let map = entries(Some(decl));
            let mut usage = ArgumentUsage::Standard;
            if let Some(u) = non_null(get(map, "Usage")) {
                match scalar_text(u).as_deref().and_then(ArgumentUsage::parse) {
                    Some(parsed) => usage = parsed,
                    None => issues.push(issue("M221", "unknown argument Usage", u)),
                }
            }
            let out_of_order = match usage {
                ArgumentUsage::Standard => seen_varargs || seen_kwargs,
                ArgumentUsage::VarArgs => seen_varargs || seen_kwargs,
                ArgumentUsage::KwArgs => seen_kwargs,
            };
            seen_varargs |= usage == ArgumentUsage::VarArgs;
            seen_kwargs |= usage == ArgumentUsage::KwArgs;
            if out_of_order {
                issues.push(issue(
                    "M222",
                    format!("argument {name:?} is out of order"),
                    key,
                ));
            }
            unknown_keys(
                map,
                &["Contract", "Usage", "Default", "Meta"],
                "M225",
                "an argument",
                issues,
            );
            if decl.value.as_map().is_none() {
                issues.push(issue(
                    "M223",
                    format!("argument {name:?} must be declared by a mapping"),
                    decl,
                ));
            } else if get(map, "Contract").is_none() {
                issues.push(issue(
                    "M224",
                    format!("argument {name:?} has no Contract"),
                    key,
                ));
            }
            out.push(Argument {
                name,
                contract: get(map, "Contract").cloned(),
                usage,
                default: get(map, "Default").cloned(),
                meta: non_null(get(map, "Meta")).cloned(),
                start: key.start,
                end: decl.end,
            });
        }
    }
    out
}

/// Calls `f` on every YAQL expression inside a data node.
fn node_expressions<'a>(node: &'a Node, f: &mut dyn FnMut(&'a crate::yaml::YaqlScalar)) {
    match &node.value {
        Value::Yaql(y) => f(y),
        Value::Seq(items) | Value::Set(items) => {
            items.iter().for_each(|n| node_expressions(n, f));
        }
        Value::Map(pairs) | Value::Pairs(pairs) => {
            for (k, v) in pairs {
                node_expressions(k, f);
                node_expressions(v, f);
            }
        }
        _ => {}
    }
}

fn block_expressions<'a>(block: &'a [Instruction], f: &mut dyn FnMut(&'a crate::yaml::YaqlScalar)) {
    for instruction in block {
        instruction.for_each_expression(f);
    }
}

impl Instruction {
    /// Calls `f` on every YAQL expression of the instruction, nested
    /// blocks included, in source order.
    pub fn for_each_expression<'a>(&'a self, f: &mut dyn FnMut(&'a crate::yaml::YaqlScalar)) {
        let opt = |n: &'a Option<Node>, f: &mut dyn FnMut(&'a crate::yaml::YaqlScalar)| {
            if let Some(n) = n {
                node_expressions(n, f);
            }
        };
        let opt_block = |b: &'a Option<Block>, f: &mut dyn FnMut(&'a crate::yaml::YaqlScalar)| {
            if let Some(b) = b {
                block_expressions(b, f);
            }
        };
        match &self.kind {
            InstructionKind::Expression(y) => f(y),
            InstructionKind::Assignment { target, value } => {
                f(&target.expression);
                node_expressions(value, f);
            }
            InstructionKind::Return(value) => opt(value, f),
            InstructionKind::Break | InstructionKind::Continue | InstructionKind::Rethrow => {}
            InstructionKind::Do(body) => block_expressions(body, f),
            InstructionKind::If {
                condition,
                then,
                otherwise,
            } => {
                node_expressions(condition, f);
                block_expressions(then, f);
                opt_block(otherwise, f);
            }
            InstructionKind::While { condition, body } => {
                f(condition);
                block_expressions(body, f);
            }
            InstructionKind::For {
                collection, body, ..
            } => {
                node_expressions(collection, f);
                block_expressions(body, f);
            }
            InstructionKind::Repeat { count, body } => {
                node_expressions(count, f);
                block_expressions(body, f);
            }
            InstructionKind::Match {
                value,
                cases,
                default,
            } => {
                node_expressions(value, f);
                for (case, body) in cases {
                    node_expressions(case, f);
                    block_expressions(body, f);
                }
                opt_block(default, f);
            }
            InstructionKind::Switch { cases, default } => {
                for (case, body) in cases {
                    node_expressions(case, f);
                    block_expressions(body, f);
                }
                opt_block(default, f);
            }
            InstructionKind::Parallel { body, limit } => {
                block_expressions(body, f);
                opt(limit, f);
            }
            InstructionKind::Try {
                body,
                catch,
                otherwise,
                finally,
            } => {
                block_expressions(body, f);
                for clause in catch {
                    if let Some(with) = &clause.with {
                        with.iter().for_each(|n| node_expressions(n, f));
                    }
                    opt_block(&clause.body, f);
                }
                opt_block(otherwise, f);
                opt_block(finally, f);
            }
            InstructionKind::Throw {
                names,
                message,
                extra,
                cause,
            } => {
                names.iter().for_each(|n| node_expressions(n, f));
                opt(message, f);
                opt(extra, f);
                opt(cause, f);
            }
            InstructionKind::Unknown { node, .. } => node_expressions(node, f),
            InstructionKind::Invalid { .. } => {}
        }
    }
}

impl ClassDefinition {
    /// Calls `f` on every YAQL expression the class holds: contracts,
    /// defaults, meta, and every instruction of every method body. Type
    /// names written as YAQL (`Extends: std:Application`) are represented
    /// by [`TypeRef`]s and are visited through `type_names` instead.
    pub fn for_each_expression<'a>(&'a self, f: &mut dyn FnMut(&'a crate::yaml::YaqlScalar)) {
        let opt = |n: &'a Option<Node>, f: &mut dyn FnMut(&'a crate::yaml::YaqlScalar)| {
            if let Some(n) = n {
                node_expressions(n, f);
            }
        };
        opt(&self.meta, f);
        for p in &self.properties {
            opt(&p.contract, f);
            opt(&p.default, f);
            opt(&p.meta, f);
        }
        for m in &self.methods {
            opt(&m.meta, f);
            for a in &m.arguments {
                opt(&a.contract, f);
                opt(&a.default, f);
                opt(&a.meta, f);
            }
            block_expressions(&m.body, f);
        }
    }

    /// Every type name the class refers to in its declaration: `Extends`
    /// and `Import`.
    pub fn type_names(&self) -> impl Iterator<Item = &TypeRef> {
        self.extends.iter().chain(self.import.iter())
    }
}
