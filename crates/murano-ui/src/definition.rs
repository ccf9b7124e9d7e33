//! The typed UI definition: version, forms and fields, templates,
//! application, parameters — loaded and checked as the dashboard does.
//!
//! ```
//! use murano_ui::definition::{Definition, FieldKind};
//!
//! let text = "Version: 2.2\nApplication:\n  ?:\n    type: io.Foo\nForms:\n  - f1:\n      fields:\n        - name: n\n          type: integer\n          minValue: 1\n";
//! let def = Definition::load(text.as_bytes())?;
//! assert_eq!(def.version.text, "2.2");
//! assert!(def.version.has_application_name);
//! assert_eq!(def.forms[0].fields[0].kind, FieldKind::Integer);
//! assert_eq!(def.forms[0].fields[0].min_value, Some(1));
//! assert!(Definition::load(b"Version: 1\nApplication: {}\n").is_err());
//! # Ok::<(), murano_ui::Error>(())
//! ```

use murano_dsl::version::Version;
use murano_yaml::{load_ui_file, Int, LoadOptions, Mark, Node, Value as Y, YaqlScalar};

use crate::pyre::PyRegex;
use crate::{Error, ErrorClass, Position};

/// The format version in effect.
#[derive(Debug, Clone)]
pub struct SpecVersion {
    /// `str()` of the YAML value (`2.4` when absent).
    pub text: String,
    /// The coerced semantic version.
    pub version: Version,
    /// 2.2 and later: the management form has `application_name`.
    pub has_application_name: bool,
}

/// The type of a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldKind {
    /// `string`.
    String,
    /// `text`.
    Text,
    /// `password`.
    Password,
    /// `integer`.
    Integer,
    /// `boolean`.
    Boolean,
    /// `floatingip` (deprecated boolean).
    FloatingIp,
    /// `clusterip`.
    ClusterIp,
    /// `databaselist`.
    DatabaseList,
    /// `choice`.
    Choice,
    /// `flavor`.
    Flavor,
    /// `image`.
    Image,
    /// `keypair`.
    KeyPair,
    /// `azone`.
    AZone,
    /// `network`.
    Network,
    /// `securitygroup`.
    SecurityGroup,
    /// `volume`.
    Volume,
    /// `zone`.
    Zone,
    /// `domain` (reference to `io.murano.windows.ActiveDirectory`).
    Domain,
    /// An application reference by class names.
    AppRef(Vec<String>),
}

impl FieldKind {
    fn from_type(node: &Node) -> FieldKind {
        match &node.value {
            Y::Str(s) => match s.as_str() {
                "string" => FieldKind::String,
                "text" => FieldKind::Text,
                "password" => FieldKind::Password,
                "integer" => FieldKind::Integer,
                "boolean" => FieldKind::Boolean,
                "floatingip" => FieldKind::FloatingIp,
                "clusterip" => FieldKind::ClusterIp,
                "databaselist" => FieldKind::DatabaseList,
                "choice" => FieldKind::Choice,
                "flavor" => FieldKind::Flavor,
                "image" => FieldKind::Image,
                "keypair" => FieldKind::KeyPair,
                "azone" => FieldKind::AZone,
                "network" => FieldKind::Network,
                "securitygroup" => FieldKind::SecurityGroup,
                "volume" => FieldKind::Volume,
                "zone" => FieldKind::Zone,
                "domain" => FieldKind::Domain,
                other => FieldKind::AppRef(vec![other.to_owned()]),
            },
            Y::Seq(items) => {
                FieldKind::AppRef(items.iter().map(|n| n.value.python_str()).collect())
            }
            other => FieldKind::AppRef(vec![other.python_str()]),
        }
    }

    /// The dashboard's field class name.
    pub fn class_name(&self) -> &'static str {
        match self {
            FieldKind::String | FieldKind::Text => "CharField",
            FieldKind::Password => "PasswordField",
            FieldKind::Integer => "IntegerField",
            FieldKind::Boolean => "BooleanField",
            FieldKind::FloatingIp => "FloatingIpBooleanField",
            FieldKind::ClusterIp => "ClusterIPField",
            FieldKind::DatabaseList => "DatabaseListField",
            FieldKind::Choice => "ChoiceField",
            FieldKind::Flavor => "FlavorChoiceField",
            FieldKind::Image => "ImageChoiceField",
            FieldKind::KeyPair => "KeyPairChoiceField",
            FieldKind::AZone => "AZoneChoiceField",
            FieldKind::Network => "NetworkChoiceField",
            FieldKind::SecurityGroup => "SecurityGroupChoiceField",
            FieldKind::Volume => "VolumeChoiceField",
            FieldKind::Zone => "ZoneChoiceField",
            FieldKind::Domain => "DomainChoiceField",
            FieldKind::AppRef(_) => "DynamicSelect",
        }
    }

    fn accepts(&self, key: &str) -> bool {
        const BASE: &[&str] = &[
            "required",
            "widget",
            "label",
            "initial",
            "help_text",
            "error_messages",
            "show_hidden_initial",
            "validators",
            "localize",
            "disabled",
            "label_suffix",
            "description",
            "description_title",
            "widget_media",
            "widget_attrs",
        ];
        const CHAR: &[&str] = &["min_length", "max_length", "strip", "empty_value"];
        if BASE.contains(&key) {
            return true;
        }
        match self {
            FieldKind::String | FieldKind::Text | FieldKind::DatabaseList => CHAR.contains(&key),
            FieldKind::Password => CHAR.contains(&key) || key == "confirm_input",
            FieldKind::ClusterIp => CHAR.contains(&key) || key == "unpack_ipv4",
            FieldKind::Integer => matches!(key, "min_value" | "max_value" | "step_size"),
            FieldKind::Boolean | FieldKind::FloatingIp => false,
            FieldKind::Choice | FieldKind::AZone | FieldKind::Zone => key == "choices",
            FieldKind::Flavor => matches!(key, "choices" | "requirements"),
            FieldKind::Image => matches!(key, "choices" | "image_type"),
            FieldKind::Network => {
                matches!(key, "choices" | "filter" | "murano_networks" | "allow_auto")
            }
            FieldKind::Volume => {
                matches!(key, "choices" | "include_volumes" | "include_snapshots")
            }
            FieldKind::KeyPair | FieldKind::SecurityGroup => {
                matches!(key, "choices" | "add_item_link" | "add_item_link_args")
            }
            FieldKind::Domain | FieldKind::AppRef(_) => matches!(
                key,
                "choices" | "add_item_link" | "add_item_link_args" | "empty_value_message"
            ),
        }
    }

    /// Select-like fields (options, `invalid_choice`).
    pub fn is_select(&self) -> bool {
        !matches!(
            self,
            FieldKind::String
                | FieldKind::Text
                | FieldKind::Password
                | FieldKind::Integer
                | FieldKind::Boolean
                | FieldKind::FloatingIp
                | FieldKind::ClusterIp
                | FieldKind::DatabaseList
        )
    }
}

/// A field-level validator.
#[derive(Debug, Clone)]
pub enum FieldValidator {
    /// A regular expression searched in the value. `code` is `Some` for
    /// `regexpValidator` (and the password rule), `None` for list items.
    Regex {
        /// The pattern.
        regex: PyRegex,
        /// The message.
        message: String,
        /// The error code.
        code: Option<String>,
    },
    /// A YAQL expression with `$` = the cleaned value.
    Yaql {
        /// The expression.
        expr: YaqlScalar,
        /// The message (empty when absent).
        message: String,
    },
}

/// A form-level validator.
#[derive(Debug, Clone)]
pub struct FormValidator {
    /// `expr` (must be an expression to be evaluated).
    pub expr: Option<YaqlScalar>,
    /// `message`, if given.
    pub message: Option<String>,
}

/// One field of a form.
#[derive(Debug, Clone)]
pub struct FieldDef {
    /// Field name (cleaned-data key).
    pub name: String,
    /// Type.
    pub kind: FieldKind,
    /// `required` (an expression counts as true; booleans never).
    pub required: bool,
    /// The given constant label, unescaped.
    pub label: Option<String>,
    /// Hidden input.
    pub hidden: bool,
    /// Constant `initial`.
    pub initial: Option<Node>,
    /// Validators in run order (user ones only; built-ins are implied).
    pub validators: Vec<FieldValidator>,
    /// `errorMessages`: code → message.
    pub error_messages: Vec<(String, String)>,
    /// `minLength` (constant).
    pub min_length: Option<i64>,
    /// `maxLength` (constant).
    pub max_length: Option<i64>,
    /// `minValue` (constant).
    pub min_value: Option<i64>,
    /// `maxValue` (constant).
    pub max_value: Option<i64>,
    /// `strip` (default true).
    pub strip: bool,
    /// Password `confirmInput`.
    pub confirm_input: bool,
    /// Static choices `(value, label)` (choice fields).
    pub choices: Vec<(murano_yaql::eval::Value, String)>,
    /// Flavor `requirements`.
    pub requirements: Vec<(String, i64)>,
    /// Image `imageType`.
    pub image_type: Option<String>,
    /// Network `filter`.
    pub filter: Option<String>,
    /// Network `murano_networks`.
    pub murano_networks: Option<String>,
    /// Network `allowAuto`.
    pub allow_auto: bool,
    /// Volume `includeVolumes`.
    pub include_volumes: bool,
    /// Volume `includeSnapshots`.
    pub include_snapshots: bool,
    /// App reference `emptyValueMessage`.
    pub empty_value_message: Option<String>,
    /// Attributes given as YAQL expressions (snake_case name → expression).
    pub lazy: Vec<(String, YaqlScalar)>,
    /// True for the generated `-clone` confirmation field.
    pub password_clone: bool,
    /// The constant `description` (shown beside the form), if given.
    pub description: Option<String>,
    /// The constant `descriptionTitle` (the description's heading).
    pub description_title: Option<String>,
    /// The constant `helpText` (shown with the input), if given.
    pub help_text: Option<String>,
}

impl FieldDef {
    /// The lazy attribute `name`, if any.
    pub fn lazy_attr(&self, name: &str) -> Option<&YaqlScalar> {
        self.lazy.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// The message for `code`, from `errorMessages` or `default`.
    pub fn message(&self, code: &str, default: &str) -> String {
        self.error_messages
            .iter()
            .find(|(k, _)| k == code)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| default.to_owned())
    }

    /// The label as the dashboard stores it (escaped, or from the name).
    pub fn display_label(&self) -> String {
        if self.password_clone {
            return "Confirm password".into();
        }
        match &self.label {
            Some(l) if !l.is_empty() => html_escape(l),
            _ => pretty_name(&self.name),
        }
    }
}

/// One wizard form.
#[derive(Debug, Clone)]
pub struct FormDef {
    /// Form name.
    pub name: String,
    /// Step title (`Step N` or the `region` value).
    pub title: String,
    /// Fields in order, password clones included.
    pub fields: Vec<FieldDef>,
    /// Form-level validators.
    pub validators: Vec<FormValidator>,
}

/// A loaded UI definition.
#[derive(Debug, Clone)]
pub struct Definition {
    /// Version.
    pub version: SpecVersion,
    /// User forms then `workflowManagement`.
    pub forms: Vec<FormDef>,
    /// `Templates` entries.
    pub templates: Vec<(String, Node)>,
    /// `Application`.
    pub application: Node,
    /// `Parameters` entries (valid keys only).
    pub parameters: Vec<(String, Node)>,
    /// `ParametersSource`.
    pub parameters_source: Option<String>,
}

/// The management form's name.
pub const WF_MANAGEMENT: &str = "workflowManagement";

/// Django's `pretty_name` with Python's `capitalize()`.
pub fn pretty_name(name: &str) -> String {
    let s = name.replace('_', " ");
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == 0 {
            out.extend(c.to_uppercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// `html.escape` with quotes.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out
}

/// The dashboard's `decamelize`.
pub fn decamelize(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut bits: Vec<String> = Vec::new();
    let mut i = 0;
    loop {
        let start = i;
        while i < chars.len() && chars[i].is_uppercase() {
            i += 1;
        }
        while i < chars.len() && !chars[i].is_uppercase() {
            i += 1;
        }
        bits.push(chars[start..i].iter().collect::<String>().to_lowercase());
        if i >= chars.len() {
            break;
        }
    }
    bits.join("_")
}

fn def_err(exception: ErrorClass, message: impl Into<String>) -> Error {
    Error::Definition {
        exception,
        message: message.into(),
        position: None,
        field: None,
    }
}

/// The error, when it is a definition error, as one about the field that
/// `spec` defines (named by its `name`, when it has one), found within
/// `spec` when it has no closer position.
fn in_field(mut e: Error, spec: &Node) -> Error {
    if let Error::Definition { field, .. } = &mut e {
        if field.is_none() {
            *field = spec.value.get("name").map(|n| n.value.python_str());
        }
    }
    at(e, Some(spec.start))
}

/// A definition error found at `node`.
fn def_err_at(node: &Node, exception: ErrorClass, message: impl Into<String>) -> Error {
    at(def_err(exception, message), Some(node.start))
}

/// The error with its position set, when it is a definition error
/// without one.
fn at(mut e: Error, mark: Option<Mark>) -> Error {
    if let Error::Definition { position, .. } = &mut e {
        if position.is_none() {
            *position = mark.map(|m| Position::from_zero_based(m.line, m.column, m.index));
        }
    }
    e
}

fn key_str(node: &Node) -> Result<String, Error> {
    match &node.value {
        Y::Str(s) => Ok(s.clone()),
        _ => Err(def_err_at(
            node,
            ErrorClass::TypeError,
            "expected string or bytes-like object",
        )),
    }
}

fn as_int(node: &Node) -> Option<i64> {
    match &node.value {
        Y::Int(Int::Small(n)) => Some(*n),
        Y::Bool(b) => Some(i64::from(*b)),
        Y::Float(f) => Some(*f as i64),
        _ => None,
    }
}

/// Converts a constant YAML node into a YAQL value (expressions become
/// their text; use [`crate::evaluate`] for templates), with
/// [`murano_yaml::convert::ToYaql::forms`] rules.
pub fn yaml_to_value(node: &Node) -> murano_yaql::eval::Value {
    use murano_yaml::convert::{to_yaql, ToYaql};
    // `forms()` refuses nothing, so the error arm is never taken.
    to_yaql(node, &ToYaql::forms()).unwrap_or(murano_yaql::eval::Value::Null)
}

fn version_of(root: Option<&Node>) -> Result<SpecVersion, Error> {
    let text = match root {
        Some(n) => n.value.python_str(),
        None => "2.4".to_owned(),
    };
    let version =
        Version::coerce(&text).map_err(|e| def_err(ErrorClass::ValueError, e.to_string()))?;
    if version.major().as_u64() != Some(2) {
        return Err(def_err(
            ErrorClass::ValueError,
            format!(
                "Unsupported Dynamic UI format version: requested format version {version} is not compatible with the supported family 2"
            ),
        ));
    }
    if version.cmp_precedence(&Version::new(2, 4, 0)) == std::cmp::Ordering::Greater {
        return Err(def_err(
            ErrorClass::ValueError,
            format!(
                "Unsupported Dynamic UI format version: requested format version {version} is newer than latest supported 2.4.0"
            ),
        ));
    }
    let has_application_name =
        version.cmp_precedence(&Version::new(2, 2, 0)) != std::cmp::Ordering::Less;
    Ok(SpecVersion {
        text,
        version,
        has_application_name,
    })
}

impl Definition {
    /// Loads and checks a UI definition from its raw text.
    pub fn load(bytes: &[u8]) -> Result<Definition, Error> {
        let root = load_ui_file(bytes, &LoadOptions::default())
            .map_err(|e| at(def_err(ErrorClass::YamlError, e.to_string()), e.mark()))?;
        let Some(root) = root else {
            return Err(def_err(
                ErrorClass::AttributeError,
                "'NoneType' object has no attribute 'pop'",
            ));
        };
        let Some(entries) = root.value.as_map() else {
            return Err(def_err_at(
                &root,
                ErrorClass::AttributeError,
                "the definition is not a mapping",
            ));
        };
        let mut version_node = None;
        let mut sections: Vec<(String, &Node)> = Vec::new();
        for (k, v) in entries {
            if k.value.as_str() == Some("Version") {
                version_node = Some(v);
                continue;
            }
            let key = key_str(k)?;
            let key = decamelize(&key);
            if let Some(slot) = sections.iter_mut().find(|(n, _)| *n == key) {
                slot.1 = v;
            } else {
                sections.push((key, v));
            }
        }
        let version = version_of(version_node).map_err(|e| at(e, version_node.map(|n| n.start)))?;
        let get = |name: &str| sections.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        let application = match get("application") {
            Some(n) if !matches!(n.value, Y::Null) => n.clone(),
            _ => {
                return Err(def_err(
                    ErrorClass::ValueError,
                    "Application section is required",
                ))
            }
        };
        let mut templates = Vec::new();
        if let Some(t) = get("templates") {
            if let Some(map) = t.value.as_map() {
                for (k, v) in map {
                    templates.push((k.value.python_str(), v.clone()));
                }
            }
        }
        let mut parameters = Vec::new();
        if let Some(p) = get("parameters") {
            if let Some(map) = p.value.as_map() {
                for (k, v) in map {
                    if let Y::Str(key) = &k.value {
                        if key.chars().next().is_some_and(char::is_alphabetic) {
                            parameters.push((key.clone(), v.clone()));
                        }
                    }
                }
            }
        }
        let parameters_source = get("parameters_source").and_then(|n| match &n.value {
            Y::Null => None,
            v => Some(v.python_str()),
        });
        let mut forms = Vec::new();
        if let Some(f) = get("forms") {
            match &f.value {
                Y::Null => {}
                Y::Seq(items) => {
                    for (i, item) in items.iter().enumerate() {
                        forms.push(parse_form(item, i)?);
                    }
                }
                _ => {
                    return Err(def_err_at(
                        f,
                        ErrorClass::AttributeError,
                        "Forms is not a list",
                    ))
                }
            }
        }
        let mut management = management_form(&version);
        management.title = format!("Step {}", forms.len() + 1);
        forms.push(management);
        Ok(Definition {
            version,
            forms,
            templates,
            application,
            parameters,
            parameters_source,
        })
    }

    /// Names of all forms, in order.
    pub fn form_names(&self) -> Vec<String> {
        self.forms.iter().map(|f| f.name.clone()).collect()
    }
}

fn management_form(version: &SpecVersion) -> FormDef {
    let mut fields = Vec::new();
    let blank = |name: &str, kind: FieldKind| FieldDef {
        name: name.into(),
        kind,
        required: true,
        label: None,
        hidden: false,
        initial: None,
        validators: Vec::new(),
        error_messages: Vec::new(),
        min_length: None,
        max_length: None,
        min_value: None,
        max_value: None,
        strip: true,
        confirm_input: false,
        choices: Vec::new(),
        requirements: Vec::new(),
        image_type: None,
        filter: None,
        murano_networks: None,
        allow_auto: true,
        include_volumes: true,
        include_snapshots: true,
        empty_value_message: None,
        lazy: Vec::new(),
        password_clone: false,
        description: None,
        description_title: None,
        help_text: None,
    };
    if version.has_application_name {
        let mut f = blank("application_name", FieldKind::String);
        f.label = Some("Application Name".into());
        if let Ok(regex) = PyRegex::new(r"^[-\w]+$", 0) {
            f.validators.push(FieldValidator::Regex {
                regex,
                message: "Enter a valid value.".into(),
                code: Some("invalid".into()),
            });
        }
        fields.push(f);
    }
    let mut stay = blank("stay_at_the_catalog", FieldKind::Boolean);
    stay.required = false;
    stay.label = Some("Continue application adding".into());
    fields.push(stay);
    FormDef {
        name: WF_MANAGEMENT.into(),
        title: format!("Step {}", 0),
        fields,
        validators: Vec::new(),
    }
}

fn parse_form(item: &Node, index: usize) -> Result<FormDef, Error> {
    let Some(entries) = item.value.as_map() else {
        return Err(def_err_at(
            item,
            ErrorClass::AttributeError,
            "a form is not a mapping",
        ));
    };
    let Some((name, body)) = entries.first() else {
        return Err(def_err_at(
            item,
            ErrorClass::ValueError,
            "an empty form item",
        ));
    };
    let name = name.value.python_str();
    let fields_node = body
        .value
        .get("fields")
        .ok_or_else(|| def_err_at(body, ErrorClass::KeyError, "'fields'"))?;
    let title = match body.value.get("region") {
        Some(r) if r.value.is_truthy() => r.value.python_str(),
        _ => format!("Step {}", index + 1),
    };
    let mut validators = Vec::new();
    if let Some(v) = body.value.get("validators") {
        if let Y::Seq(items) = &v.value {
            for it in items {
                let expr = match it.value.get("expr").map(|n| &n.value) {
                    Some(Y::Yaql(y)) => Some(y.clone()),
                    _ => None,
                };
                let message = it.value.get("message").map(|m| m.value.python_str());
                validators.push(FormValidator { expr, message });
            }
        }
    }
    let mut fields = Vec::new();
    match &fields_node.value {
        Y::Seq(items) => {
            for spec in items {
                let field = parse_field(spec).map_err(|e| in_field(e, spec))?;
                let clone = (field.kind == FieldKind::Password && field.confirm_input).then(|| {
                    let mut c = field.clone();
                    c.name = format!("{}-clone", field.name);
                    c.password_clone = true;
                    c.error_messages.retain(|(k, _)| k != "required");
                    c.error_messages
                        .push(("required".into(), "Please confirm your password".into()));
                    c
                });
                fields.push(field);
                fields.extend(clone);
            }
        }
        Y::Null => {}
        _ => {
            return Err(def_err_at(
                fields_node,
                ErrorClass::TypeError,
                "fields is not a list",
            ))
        }
    }
    Ok(FormDef {
        name,
        title,
        fields,
        validators,
    })
}

const PASSWORD_MESSAGE: &str = "The password must contain at least one letter, one                                  number and one special character";

fn parse_validator_item(item: &Node, out: &mut Vec<FieldValidator>) -> Result<(), Error> {
    let message = item
        .value
        .get("message")
        .map(|m| m.value.python_str())
        .unwrap_or_default();
    let Some(map) = item.value.as_map() else {
        return Ok(());
    };
    let mut expr = None;
    for (k, v) in map {
        if decamelize(&key_str(k)?) == "expr" {
            expr = Some(v);
        }
    }
    match expr.map(|n| &n.value) {
        Some(Y::Yaql(y)) => out.push(FieldValidator::Yaql {
            expr: y.clone(),
            message,
        }),
        Some(Y::Map(entries)) => {
            let mut regex = None;
            for (k, v) in entries {
                let key = decamelize(&key_str(k)?);
                if key == "regexp_validator" {
                    match &v.value {
                        Y::Str(s) => {
                            regex = Some(
                                PyRegex::from_validator_text(s)
                                    .map_err(|e| def_err_at(v, ErrorClass::RegexError, e))?,
                            );
                        }
                        Y::Yaql(_) => {}
                        _ => {
                            return Err(def_err_at(
                                v,
                                ErrorClass::AttributeError,
                                "regexpValidator is not a string",
                            ));
                        }
                    }
                } else if key == "validators" {
                    regex = None;
                }
            }
            if let Some(regex) = regex {
                out.push(FieldValidator::Regex {
                    regex,
                    message,
                    code: None,
                });
            }
        }
        _ => {}
    }
    Ok(())
}

fn parse_field(spec: &Node) -> Result<FieldDef, Error> {
    let Some(entries) = spec.value.as_map() else {
        return Err(def_err_at(
            spec,
            ErrorClass::AttributeError,
            "a field is not a mapping",
        ));
    };
    let type_node = spec
        .value
        .get("type")
        .ok_or_else(|| def_err_at(spec, ErrorClass::KeyError, "'type'"))?;
    let name_node = spec
        .value
        .get("name")
        .ok_or_else(|| def_err_at(spec, ErrorClass::KeyError, "'name'"))?;
    let kind = FieldKind::from_type(type_node);
    let mut f = FieldDef {
        name: name_node.value.python_str(),
        kind: kind.clone(),
        required: true,
        label: None,
        hidden: false,
        initial: None,
        validators: Vec::new(),
        error_messages: Vec::new(),
        min_length: None,
        max_length: None,
        min_value: None,
        max_value: None,
        strip: true,
        confirm_input: true,
        choices: Vec::new(),
        requirements: Vec::new(),
        image_type: None,
        filter: None,
        murano_networks: None,
        allow_auto: true,
        include_volumes: true,
        include_snapshots: true,
        empty_value_message: None,
        lazy: Vec::new(),
        password_clone: false,
        description: None,
        description_title: None,
        help_text: None,
    };
    let mut validators_given = false;
    let mut label_given = false;
    for (k, v) in entries {
        let raw = key_str(k)?;
        if raw == "type" || raw == "name" {
            continue;
        }
        let key = decamelize(&raw);
        if let Y::Yaql(y) = &v.value {
            f.lazy.retain(|(n, _)| *n != key);
            f.lazy.push((key, y.clone()));
            continue;
        }
        match key.as_str() {
            "hidden" => {
                f.hidden = v.value.is_truthy();
                continue;
            }
            "regexp_validator" => {
                let Y::Str(s) = &v.value else {
                    return Err(def_err_at(
                        v,
                        ErrorClass::AttributeError,
                        "regexpValidator is not a string",
                    ));
                };
                let regex = PyRegex::from_validator_text(s)
                    .map_err(|e| def_err_at(v, ErrorClass::RegexError, e))?;
                f.validators = vec![FieldValidator::Regex {
                    regex,
                    message: "Enter a valid value.".into(),
                    code: Some("invalid".into()),
                }];
                validators_given = true;
                continue;
            }
            _ => {}
        }
        if !kind.accepts(&key) {
            return Err(def_err_at(
                k,
                ErrorClass::TypeError,
                format!("Field.__init__() got an unexpected keyword argument '{key}'"),
            ));
        }
        match key.as_str() {
            "required" => f.required = v.value.is_truthy(),
            "label" => {
                f.label = Some(v.value.python_str());
                label_given = true;
            }
            "initial" => f.initial = Some(v.clone()),
            "validators" => {
                f.validators.clear();
                validators_given = true;
                if let Y::Seq(items) = &v.value {
                    validators_given = !items.is_empty();
                    for it in items {
                        parse_validator_item(it, &mut f.validators)?;
                    }
                }
            }
            "error_messages" => {
                if let Some(map) = v.value.as_map() {
                    f.error_messages = map
                        .iter()
                        .map(|(k, v)| Ok((decamelize(&key_str(k)?), v.value.python_str())))
                        .collect::<Result<_, Error>>()?;
                }
            }
            "min_length" => f.min_length = as_int(v),
            "max_length" => f.max_length = as_int(v),
            "min_value" => f.min_value = as_int(v),
            "max_value" => f.max_value = as_int(v),
            "strip" => f.strip = v.value.is_truthy(),
            "confirm_input" => f.confirm_input = v.value.is_truthy(),
            "choices" => f.choices = parse_choices(v)?,
            "requirements" => {
                if let Some(map) = v.value.as_map() {
                    for (k, v) in map {
                        f.requirements
                            .push((decamelize(&key_str(k)?), as_int(v).unwrap_or(0)));
                    }
                }
            }
            "image_type" => f.image_type = Some(v.value.python_str()),
            "filter" => {
                f.filter = match &v.value {
                    Y::Null => None,
                    other => Some(other.python_str()),
                }
            }
            "murano_networks" if v.value.is_truthy() => {
                let s = v.value.python_str();
                let lower = s.to_lowercase();
                if lower != "exclude" && lower != "translate" {
                    return Err(def_err_at(
                        v,
                        ErrorClass::ValueError,
                        "Invalid value of 'murano_nets' option",
                    ));
                }
                f.murano_networks = Some(s);
            }
            "allow_auto" => f.allow_auto = v.value.is_truthy(),
            "include_volumes" => f.include_volumes = v.value.is_truthy(),
            "include_snapshots" => f.include_snapshots = v.value.is_truthy(),
            "empty_value_message" => f.empty_value_message = Some(v.value.python_str()),
            "description" => f.description = optional_text(v),
            "description_title" => f.description_title = optional_text(v),
            "help_text" => f.help_text = optional_text(v),
            _ => {}
        }
    }
    if matches!(kind, FieldKind::Boolean | FieldKind::FloatingIp) {
        f.required = false;
    }
    if kind == FieldKind::Password {
        if !label_given {
            return Err(def_err_at(
                spec,
                ErrorClass::TypeError,
                "PasswordField.__init__() missing 1 required positional argument: 'label'",
            ));
        }
        f.hidden = false;
        if !validators_given {
            if let Ok(regex) = PyRegex::new(
                r"^.*(?=.*\d)(?=.*[a-z])(?=.*[A-Z])(?=.*[!@#$%^&*()_+|\/.,~?><:{}-]).*$",
                0,
            ) {
                f.validators = vec![FieldValidator::Regex {
                    regex,
                    message: PASSWORD_MESSAGE.into(),
                    code: Some("invalid".into()),
                }];
            }
            if !f.error_messages.iter().any(|(k, _)| k == "invalid") {
                f.error_messages
                    .push(("invalid".into(), PASSWORD_MESSAGE.into()));
            }
            f.min_length.get_or_insert(7);
            f.max_length.get_or_insert(255);
        }
    }
    Ok(f)
}

/// A text attribute: `None` for a YAML null (Python's `None`, shown as
/// nothing), else the value's `str()`.
fn optional_text(node: &Node) -> Option<String> {
    match node.value {
        Y::Null => None,
        _ => Some(node.value.python_str()),
    }
}

fn parse_choices(node: &Node) -> Result<Vec<(murano_yaql::eval::Value, String)>, Error> {
    let mut out = Vec::new();
    match &node.value {
        Y::Seq(items) => {
            for it in items {
                match &it.value {
                    Y::Seq(pair) if pair.len() == 2 => {
                        out.push((yaml_to_value(&pair[0]), pair[1].value.python_str()))
                    }
                    _ => return Err(def_err_at(it, ErrorClass::ValueError, "invalid choices")),
                }
            }
        }
        Y::Map(pairs) => {
            for (k, v) in pairs {
                out.push((
                    murano_yaql::eval::Value::str(&decamelize(&key_str(k)?)),
                    v.value.python_str(),
                ));
            }
        }
        Y::Null => {}
        _ => return Err(def_err_at(node, ErrorClass::ValueError, "invalid choices")),
    }
    Ok(out)
}
