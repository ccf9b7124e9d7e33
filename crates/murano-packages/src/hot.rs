//! The built-in Heat.HOT package type: a Heat template (`template.yaml`)
//! becomes a generated MuranoPL class and a generated UI definition, as
//! Murano's `HotPackage` makes them.

use murano_yaml::{load_manifest, LoadOptions, Node, Value};

use crate::error::PackageError;
use crate::package::{manifest_package_methods, python_type, ClassSource, Package, PackageBase};
use crate::source::{secure_join, PackageSource};
use murano_yaml::emit::{mapping as map, string as s, yaql as y, Gen};

/// A Heat template package (Murano's `HotPackage`).
#[derive(Debug, Clone)]
pub struct HotPackage<S> {
    base: PackageBase<S>,
}

fn py(class: &'static str, message: impl Into<String>) -> PackageError {
    PackageError::python(class, message)
}

/// Python's `str()` of a YAML value as Murano formats constraint values.
fn format_value(node: &Node) -> String {
    match &node.value {
        Value::Str(s) => format!("'{s}'"),
        other => other.python_str(),
    }
}

/// Python's `int()` of a YAML value.
fn python_int(node: &Node) -> Result<String, PackageError> {
    match &node.value {
        Value::Int(i) => Ok(i.to_string()),
        Value::Bool(b) => Ok(u8::from(*b).to_string()),
        Value::Float(x) if x.is_finite() => Ok(format!("{}", x.trunc() as i128)),
        Value::Str(text) => {
            let t = text.trim().replace('_', "");
            let digits = t.strip_prefix(['+', '-']).unwrap_or(&t);
            if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
                let sign = if t.starts_with('-') { "-" } else { "" };
                let n = digits.trim_start_matches('0');
                Ok(format!("{sign}{}", if n.is_empty() { "0" } else { n }))
            } else {
                Err(py(
                    "ValueError",
                    format!(
                        "invalid literal for int() with base 10: {}",
                        murano_yaml::py_text::repr(text)
                    ),
                ))
            }
        }
        other => Err(py(
            "TypeError",
            format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                python_type(other)
            ),
        )),
    }
}

/// Python's `key in value` for a template section check.
fn contains_key(value: &Value, key: &str) -> Result<bool, PackageError> {
    match value {
        Value::Map(pairs) => Ok(pairs.iter().any(|(k, _)| k.value.as_str() == Some(key))),
        Value::Str(s) => Ok(s.contains(key)),
        Value::Seq(items) => Ok(items.iter().any(|n| n.value.as_str() == Some(key))),
        other => Err(py(
            "TypeError",
            format!("argument of type '{}' is not iterable", python_type(other)),
        )),
    }
}

fn map_items<'a>(
    value: Option<&'a Node>,
    method: &str,
) -> Result<&'a [(Node, Node)], PackageError> {
    match value.map(|n| &n.value) {
        None | Some(Value::Null) => Ok(&[]),
        Some(v) if !v.is_truthy() => Ok(&[]),
        Some(Value::Map(pairs)) => Ok(pairs),
        Some(other) => Err(py(
            "AttributeError",
            format!(
                "'{}' object has no attribute '{method}'",
                python_type(other)
            ),
        )),
    }
}

fn get<'a>(node: &'a Node, key: &str) -> Option<&'a Node> {
    node.value.get(key)
}

/// Python's `str.title()`.
fn title(text: &str) -> String {
    murano_yaml::py_text::title(text)
}

impl<S: PackageSource> HotPackage<S> {
    /// Loads the package from its files.
    pub fn new(source: S) -> Result<Self, PackageError> {
        Ok(HotPackage {
            base: PackageBase::new(source)?,
        })
    }

    /// From an already loaded base (the plug-in registry's path).
    pub fn from_base(base: PackageBase<S>) -> Self {
        HotPackage { base }
    }

    /// The manifest-backed part.
    pub fn base(&self) -> &PackageBase<S> {
        &self.base
    }

    fn template(&self) -> Result<Node, PackageError> {
        let path = secure_join(self.base.source.root_label(), &["template.yaml"])?;
        let bytes = self
            .base
            .source
            .read(&path)
            .ok_or_else(|| PackageError::ClassLoad {
                class: self.base.full_name.clone(),
                message: "File with class definition not found".into(),
            })?;
        let text =
            std::str::from_utf8(bytes).map_err(|e| py("UnicodeDecodeError", e.to_string()))?;
        let doc = load_manifest(text, &LoadOptions::default())?;
        Ok(doc.unwrap_or(Node {
            value: Value::Null,
            start: Default::default(),
            end: Default::default(),
        }))
    }

    /// The generated MuranoPL class as a YAML tree.
    fn class_tree(&self) -> Result<Gen, PackageError> {
        let hot = self.template()?;
        if !contains_key(&hot.value, "resources")? {
            return Err(PackageError::Format("Not a HOT template".into()));
        }
        // A string or list that holds "resources" passes Murano's check;
        // its first `hot.get(...)` then fails.
        if !matches!(hot.value, Value::Map(_)) {
            return Err(py(
                "AttributeError",
                format!(
                    "'{}' object has no attribute 'get'",
                    python_type(&hot.value)
                ),
            ));
        }
        let env_dir = secure_join(
            self.base.source.root_label(),
            &["Resources/", "HotEnvironments/"],
        )?;
        let has_envs = !self.base.source.files_under(&env_dir).is_empty();
        let contract = |c: &str| {
            map(vec![
                (s("Contract"), y(c)),
                (s("Usage"), s(if c == "$.string()" { "Out" } else { "In" })),
            ])
        };
        let mut params = Vec::new();
        if !has_envs {
            for (key, value) in map_items(get(&hot, "parameters"), "items")? {
                params.push((gen_of(key), y(&param_contract(value)?)));
            }
        }
        let mut outputs = Vec::new();
        for (key, _) in map_items(get(&hot, "outputs"), "keys")? {
            outputs.push((gen_of(key), y("$.string()")));
        }
        let properties = map(vec![
            (s("generatedHeatStackName"), contract("$.string()")),
            (
                s("hotEnvironment"),
                map(vec![
                    (s("Contract"), y("$.string()")),
                    (s("Usage"), s("In")),
                ]),
            ),
            (
                s("name"),
                map(vec![
                    (s("Contract"), y("$.string().notNull()")),
                    (s("Usage"), s("In")),
                ]),
            ),
            (
                s("templateOutputs"),
                map(vec![
                    (s("Contract"), Gen::Map(outputs)),
                    (s("Default"), map(vec![])),
                    (s("Usage"), s("Out")),
                ]),
            ),
            (
                s("templateParameters"),
                map(vec![
                    (s("Contract"), Gen::Map(params)),
                    (s("Default"), map(vec![])),
                    (s("Usage"), s("In")),
                ]),
            ),
        ]);
        let files_dir = secure_join(self.base.source.root_label(), &["Resources/", "HotFiles/"])?;
        let files: Vec<(Gen, Gen)> = self
            .base
            .source
            .files_under(&files_dir)
            .into_iter()
            .map(|path| {
                let rel = path[files_dir.len() + 1..].to_owned();
                let expr = format!("$resources.string('HotFiles/{rel}')");
                (Gen::Str(rel), Gen::Yaql(expr))
            })
            .collect();
        Ok(map(vec![
            (s("Extends"), s("io.murano.Application")),
            (s("Methods"), workflow(files)),
            (s("Name"), Gen::Str(self.base.full_name.clone())),
            (s("Properties"), properties),
        ]))
    }

    /// The generated UI definition as a YAML tree.
    fn ui_tree(&self) -> Result<Gen, PackageError> {
        let hot = self.template()?;
        if hot.value.as_map().is_none() {
            return Err(py(
                "AttributeError",
                format!(
                    "'{}' object has no attribute 'get'",
                    python_type(&hot.value)
                ),
            ));
        }
        let parameters = map_items(get(&hot, "parameters"), "items")?;
        let description = match self.base.key("Description") {
            Some(n) => gen_of(n),
            None => Gen::Null,
        };
        let mut groups: Vec<Vec<Gen>> = Vec::new();
        groups.push(vec![
            map(vec![
                (s("name"), s("title")),
                (s("type"), s("string")),
                (s("required"), Gen::Bool(false)),
                (s("hidden"), Gen::Bool(true)),
                (s("description"), description),
            ]),
            map(vec![
                (s("name"), s("name")),
                (s("type"), s("string")),
                (s("label"), s("Application Name")),
                (s("required"), Gen::Bool(true)),
                (s("description"), s("Enter a desired name for the application. Just A-Z, a-z, 0-9, and dash are allowed")),
            ]),
        ]);
        let mut used: Vec<String> = Vec::new();
        let mut placement: Vec<(String, usize)> = Vec::new();
        match get(&hot, "parameter_groups") {
            None => {}
            Some(node) => {
                let items = match &node.value {
                    Value::Seq(items) => items.clone(),
                    other => crate::package::python_list(other)?,
                };
                for group in items {
                    if group.value.as_map().is_none() {
                        return Err(py(
                            "AttributeError",
                            format!(
                                "'{}' object has no attribute 'get'",
                                python_type(&group.value)
                            ),
                        ));
                    }
                    let names = match get(&group, "parameters") {
                        None => Vec::new(),
                        Some(n) => crate::package::python_list(&n.value)?,
                    };
                    let index = groups.len();
                    let mut fields = Vec::new();
                    for name in names {
                        let key = name.value.python_str();
                        if let Some((_, def)) =
                            parameters.iter().find(|(k, _)| k.value.python_str() == key)
                        {
                            if def.value.is_truthy() {
                                fields.push(field(&name, def)?);
                                used.push(key.clone());
                                placement.retain(|(k, _)| *k != key);
                                placement.push((key, index));
                            }
                        }
                    }
                    groups.push(fields);
                }
            }
        }
        let mut rest = Vec::new();
        let last = groups.len();
        for (k, def) in parameters {
            let key = k.value.python_str();
            if !used.contains(&key) {
                rest.push(field(k, def)?);
                placement.push((key, last));
            }
        }
        if !rest.is_empty() {
            groups.push(rest);
        }
        let full_name = Gen::Str(self.base.full_name.clone());
        let mut application = vec![
            (
                s("?"),
                map(vec![
                    (s("type"), full_name.clone()),
                    (s("package"), full_name),
                    (s("classVersion"), Gen::Str(self.base.version.to_string())),
                ]),
            ),
            (s("name"), y("$.group0.name")),
        ];
        if !placement.is_empty() {
            let mut order: Vec<(String, usize)> = Vec::new();
            for (k, _) in parameters {
                let key = k.value.python_str();
                if let Some((_, g)) = placement.iter().find(|(p, _)| *p == key) {
                    order.push((key, *g));
                }
            }
            application.push((
                s("templateParameters"),
                Gen::Map(
                    order
                        .into_iter()
                        .map(|(k, g)| {
                            let expr = format!("$.group{g}.{k}");
                            (Gen::Str(k), Gen::Yaql(expr))
                        })
                        .collect(),
                ),
            ));
        }
        let forms = groups
            .into_iter()
            .enumerate()
            .map(|(i, fields)| {
                map(vec![(
                    Gen::Str(format!("group{i}")),
                    map(vec![(s("fields"), Gen::Seq(fields))]),
                )])
            })
            .collect();
        Ok(map(vec![
            (s("Version"), Gen::Int("2".into())),
            (s("Application"), Gen::Map(application)),
            (s("Forms"), Gen::Seq(forms)),
        ]))
    }
}

/// A YAML value copied into a generated tree.
fn gen_of(node: &Node) -> Gen {
    match &node.value {
        Value::Null => Gen::Null,
        Value::Bool(b) => Gen::Bool(*b),
        Value::Int(i) => Gen::Int(i.to_string()),
        Value::Float(x) => Gen::Float(*x),
        Value::Date(_) | Value::Timestamp(_) => Gen::Time(node.value.python_str()),
        Value::Str(s) => Gen::Str(s.clone()),
        Value::Seq(items) => Gen::Seq(items.iter().map(gen_of).collect()),
        Value::Map(pairs) => Gen::Map(pairs.iter().map(|(k, v)| (gen_of(k), gen_of(v))).collect()),
        other => Gen::Str(other.python_str()),
    }
}

/// Python's `value[key]` for a string key.
fn subscript<'a>(value: &'a Node, key: &str) -> Result<&'a Node, PackageError> {
    match &value.value {
        Value::Map(_) => get(value, key).ok_or_else(|| py("KeyError", format!("'{key}'"))),
        Value::Str(_) => Err(py(
            "TypeError",
            "string indices must be integers, not 'str'",
        )),
        Value::Seq(_) => Err(py(
            "TypeError",
            "list indices must be integers or slices, not str",
        )),
        other => Err(py(
            "TypeError",
            format!("'{}' object is not subscriptable", python_type(other)),
        )),
    }
}

/// Python's `value[key] if key in value else None`: `in` first (a string
/// looks for a substring, a list for an item, anything else is not
/// iterable), then the subscript, which only a mapping allows.
fn key_if_in<'a>(value: &'a Node, key: &str) -> Result<Option<&'a Node>, PackageError> {
    if contains_key(&value.value, key)? {
        subscript(value, key).map(Some)
    } else {
        Ok(None)
    }
}

/// The contract of one template parameter.
fn param_contract(def: &Node) -> Result<String, PackageError> {
    let kind = subscript(def, "type")?;
    let kind = kind.value.python_str();
    let mut contract = String::from("$");
    contract.push_str(match kind.as_str() {
        "string" | "comma_delimited_list" | "json" => ".string()",
        "number" => ".int()",
        "boolean" => ".bool()",
        other => {
            return Err(py(
                "ValueError",
                format!("Unsupported parameter type {other}"),
            ))
        }
    });
    let constraints = match get(def, "constraints") {
        None => Vec::new(),
        Some(n) if !n.value.is_truthy() => Vec::new(),
        Some(n) => crate::package::python_list(&n.value)?,
    };
    for constraint in constraints {
        let has = |k: &str| contains_key(&constraint.value, k);
        let bounds =
            |node: &Node, pattern: (&str, &str, &str)| -> Result<Option<String>, PackageError> {
                let min = key_if_in(node, "min")?.map(python_int).transpose()?;
                let max = key_if_in(node, "max")?.map(python_int).transpose()?;
                let (both, lo, hi) = pattern;
                Ok(match (min, max) {
                    (Some(a), Some(b)) => Some(both.replacen("{0}", &a, 1).replacen("{1}", &b, 1)),
                    (Some(a), None) => Some(lo.replacen("{0}", &a, 1)),
                    (None, Some(b)) => Some(hi.replacen("{0}", &b, 1)),
                    (None, None) => None,
                })
            };
        let added = if has("allowed_values")? {
            let values = subscript(&constraint, "allowed_values")?.clone();
            let items = crate::package::python_list(&values.value)?;
            Some(format!(
                ".check($ in list({}))",
                items
                    .iter()
                    .map(format_value)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        } else if has("length")? {
            let node = subscript(&constraint, "length")?.clone();
            bounds(
                &node,
                (
                    ".check(len($) >= {0} and len($) <= {1})",
                    ".check(len($) >= {0})",
                    ".check(len($) <= {0})",
                ),
            )?
        } else if has("range")? {
            let node = subscript(&constraint, "range")?.clone();
            bounds(
                &node,
                (
                    ".check($ >= {0} and $ <= {1})",
                    ".check($ >= {0})",
                    ".check($ <= {0})",
                ),
            )?
        } else if has("allowed_pattern")? {
            let pattern = subscript(&constraint, "allowed_pattern")?
                .value
                .python_str();
            Some(format!(".check(matches($, '{pattern}'))"))
        } else {
            None
        };
        if let Some(added) = added {
            contract.push_str(&added);
        }
    }
    Ok(contract)
}

fn null_node() -> Node {
    Node {
        value: Value::Null,
        start: Default::default(),
        end: Default::default(),
    }
}

/// A UI field for one template parameter.
fn field(name: &Node, def: &Node) -> Result<Gen, PackageError> {
    let key = match &name.value {
        Value::Str(s) => s.clone(),
        other => {
            return Err(py(
                "AttributeError",
                format!("'{}' object has no attribute 'title'", python_type(other)),
            ))
        }
    };
    let kind = subscript(def, "type")?.value.python_str();
    let label = match get(def, "label") {
        Some(l) if l.value.is_truthy() => gen_of(l),
        _ => Gen::Str(title(&key).replace('_', " ")),
    };
    let ui_type = match kind.as_str() {
        "number" => "integer",
        "boolean" => "boolean",
        _ => "string",
    };
    let mut entries = vec![
        (s("name"), Gen::Str(key)),
        (s("label"), label),
        (s("type"), s(ui_type)),
    ];
    if let Some(d) = get(def, "description") {
        entries.push((s("description"), gen_of(d)));
    }
    match get(def, "default") {
        Some(d) => {
            entries.push((s("initial"), gen_of(d)));
            entries.push((s("required"), Gen::Bool(false)));
        }
        None => entries.push((s("required"), Gen::Bool(true))),
    }
    let constraints = match get(def, "constraints") {
        None => Vec::new(),
        Some(n) if !n.value.is_truthy() => Vec::new(),
        Some(n) => crate::package::python_list(&n.value)?,
    };
    let mut validators = Vec::new();
    let mut min_length: Option<i128> = None;
    let mut max_length: Option<i128> = None;
    for constraint in &constraints {
        let message = get(constraint, "description").map(gen_of);
        let with_message = |mut v: Vec<(Gen, Gen)>| {
            if let Some(m) = &message {
                v.push((s("message"), m.clone()));
            }
            map(v)
        };
        let has = |k: &str| contains_key(&constraint.value, k);
        if has("length")? {
            let length = subscript(constraint, "length")?;
            if let Some(min) = key_if_in(length, "min")? {
                let v: i128 = python_int(min)?.parse().unwrap_or(0);
                min_length = Some(min_length.map_or(v, |m| m.max(v)));
            }
            if let Some(max) = key_if_in(length, "max")? {
                let v: i128 = python_int(max)?.parse().unwrap_or(0);
                max_length = Some(max_length.map_or(v, |m| m.min(v)));
            }
        } else if has("range")? {
            let range = subscript(constraint, "range")?;
            // Murano's `'min' in spec and 'max' in spec`, `elif 'min' in
            // spec`, `else: spec['max']`.
            let has_min = contains_key(&range.value, "min")?;
            let expr = if has_min && contains_key(&range.value, "max")? {
                format!(
                    "$ >= {} and $ <= {}",
                    subscript(range, "min")?.value.python_str(),
                    subscript(range, "max")?.value.python_str()
                )
            } else if has_min {
                format!("$ >= {}", subscript(range, "min")?.value.python_str())
            } else {
                format!("$ <= {}", subscript(range, "max")?.value.python_str())
            };
            validators.push(with_message(vec![(s("expr"), Gen::Yaql(expr))]));
        } else if has("allowed_values")? {
            let values = subscript(constraint, "allowed_values")?;
            let items = crate::package::python_list(&values.value)?;
            let expr = format!(
                "$ in list({})",
                items
                    .iter()
                    .map(format_value)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            validators.push(with_message(vec![(s("expr"), Gen::Yaql(expr))]));
        } else if has("allowed_pattern")? {
            let pattern = subscript(constraint, "allowed_pattern")?;
            validators.push(with_message(vec![(
                s("expr"),
                map(vec![(s("regexpValidator"), gen_of(pattern))]),
            )]));
        }
    }
    if let Some(m) = min_length {
        entries.push((s("minLength"), Gen::Int(m.to_string())));
    }
    if let Some(m) = max_length {
        entries.push((s("maxLength"), Gen::Int(m.to_string())));
    }
    if !validators.is_empty() {
        entries.push((s("validators"), Gen::Seq(validators)));
    }
    Ok(map(entries))
}

/// The fixed deploy and destroy methods, with the `$files` map.
fn workflow(files: Vec<(Gen, Gen)>) -> Gen {
    let assign = |target: &str, value: Gen| map(vec![(y(target), value)]);
    let stack = "new('io.murano.system.HeatStack', $environment, name => $.getAttr(generatedHeatStackName))";
    let deploy = vec![
        assign("$environment", y("$.find('io.murano.Environment').require()")),
        assign(
            "$reporter",
            y("new('io.murano.system.StatusReporter', environment => $environment)"),
        ),
        map(vec![
            (s("If"), y("$.getAttr(generatedHeatStackName) = null")),
            (
                s("Then"),
                Gen::Seq(vec![y(
                    "$.setAttr(generatedHeatStackName, '{0}_{1}'.format(randomName(), id($environment)))",
                )]),
            ),
        ]),
        assign("$stack", y(stack)),
        y("$reporter.report($this, 'Application deployment has started')"),
        assign("$resources", y("new('io.murano.system.Resources')")),
        assign("$template", y("$resources.yaml(type($this))")),
        y("$stack.setTemplate($template)"),
        assign("$parameters", y("$.templateParameters")),
        y("$stack.setParameters($parameters)"),
        assign("$files", Gen::Map(files)),
        y("$stack.setFiles($files)"),
        assign("$hotEnv", y("$.hotEnvironment")),
        map(vec![
            (s("If"), y("bool($hotEnv)")),
            (
                s("Then"),
                Gen::Seq(vec![
                    assign("$envRelPath", y("'HotEnvironments/' + $hotEnv")),
                    assign("$hotEnvContent", y("$resources.string($envRelPath)")),
                    y("$stack.setHotEnvironment($hotEnvContent)"),
                ]),
            ),
        ]),
        y("$reporter.report($this, 'Stack creation has started')"),
        map(vec![
            (
                s("Catch"),
                Gen::Seq(vec![map(vec![
                    (s("As"), s("e")),
                    (
                        s("Do"),
                        Gen::Seq(vec![
                            y("$reporter.report_error($this, $e.message)"),
                            map(vec![(s("Rethrow"), Gen::Null)]),
                        ]),
                    ),
                ])]),
            ),
            (
                s("Else"),
                Gen::Seq(vec![
                    assign("$.templateOutputs", y("$stack.output()")),
                    y("$reporter.report($this, 'Stack was successfully created')"),
                    y("$reporter.report($this, 'Application deployment has finished')"),
                ]),
            ),
            (s("Try"), Gen::Seq(vec![y("$stack.push()")])),
        ]),
    ];
    let destroy = vec![
        assign(
            "$environment",
            y("$.find('io.murano.Environment').require()"),
        ),
        assign("$stack", y(stack)),
        y("$stack.delete()"),
    ];
    map(vec![
        (s("deploy"), map(vec![(s("Body"), Gen::Seq(deploy))])),
        (s("destroy"), map(vec![(s("Body"), Gen::Seq(destroy))])),
    ])
}

impl<S: PackageSource> Package for HotPackage<S> {
    manifest_package_methods!();

    fn classes(&self) -> Result<Vec<String>, PackageError> {
        Ok(vec![self.base.full_name.clone()])
    }

    fn requirements(&self) -> Node {
        Node {
            value: Value::Map(Vec::new()),
            start: Default::default(),
            end: Default::default(),
        }
    }

    fn meta(&self) -> Node {
        null_node()
    }

    fn ui(&self) -> Result<Option<Vec<u8>>, PackageError> {
        Ok(Some(self.ui_tree()?.to_text().into_bytes()))
    }

    fn get_class(&self, name: &str) -> Result<ClassSource, PackageError> {
        if name != self.base.full_name {
            return Err(PackageError::ClassLoad {
                class: name.to_owned(),
                message: "Class not defined in this package".into(),
            });
        }
        Ok(ClassSource {
            file: "<generated code>".into(),
            bytes: self.class_tree()?.to_text().into_bytes(),
        })
    }

    fn get_resource(&self, name: &str) -> Result<Option<Vec<u8>>, PackageError> {
        if name == self.base.full_name {
            // Murano copies the template there before translating it.
            let path = secure_join(self.base.source.root_label(), &["template.yaml"])?;
            if let Some(bytes) = self.base.source.read(&path) {
                return Ok(Some(bytes.to_vec()));
            }
        }
        self.base.resource(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_title_case() {
        assert_eq!(title("db_name").replace('_', " "), "Db Name");
        assert_eq!(title("dbName"), "Dbname");
        assert_eq!(title("key2name"), "Key2Name");
        assert_eq!(title("o'neil"), "O'Neil");
    }

    /// The error Murano 14.0.0's `HotPackage.get_class` raises for this
    /// template (its class and message), or `None` when it translates.
    fn class_error(template: &str) -> Option<String> {
        let mut files = crate::source::FileMap::new();
        let manifest = "Format: Heat.HOT/1.0\nType: Application\nFullName: com.example.T\n\
                        Name: t\nDescription: d\nAuthor: a\n";
        files
            .insert("manifest.yaml", manifest.as_bytes().to_vec())
            .unwrap();
        files
            .insert("template.yaml", template.as_bytes().to_vec())
            .unwrap();
        let package = HotPackage::new(files).unwrap();
        package
            .get_class("com.example.T")
            .err()
            .map(|e| e.to_string())
    }

    /// Wrong-typed templates fail where Murano's translation fails
    /// (checked against Murano 14.0.0's `load_from_dir` and `get_class`).
    #[test]
    fn wrong_shapes_fail_as_murano_fails() {
        // `'resources' in hot` holds for a string with that word and for
        // a list with that item; the next `hot.get(...)` fails.
        let e = class_error("resources here\n").unwrap();
        assert!(e.contains("'str' object has no attribute 'get'"), "{e}");
        let e = class_error("- resources\n").unwrap();
        assert!(e.contains("'list' object has no attribute 'get'"), "{e}");
        // `'min' in length` on a number, a substring test on a string.
        let param = |constraint: &str| {
            format!(
                "heat_template_version: 2013-05-23\nresources: {{}}\nparameters:\n  \
                 a: {{type: string, constraints: [{constraint}]}}\n"
            )
        };
        let e = class_error(&param("{length: 5}")).unwrap();
        assert!(e.contains("argument of type 'int' is not iterable"), "{e}");
        let e = class_error(&param("{length: minimum}")).unwrap();
        assert!(e.contains("string indices must be integers"), "{e}");
        let e = class_error(&param("{range: [max]}")).unwrap();
        assert!(e.contains("list indices must be integers"), "{e}");
        // The shapes Murano translates still translate.
        assert_eq!(class_error(&param("{length: {min: 1, max: '5'}}")), None);
        assert_eq!(class_error(&param("{length: [other]}")), None);
    }
}
