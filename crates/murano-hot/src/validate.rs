//! Structural validation: `Template.validate()` and what
//! `heat template-validate` does (`Stack.validate` with
//! `validate_res_tmpl_only=True`, parameter values not checked), with every
//! resource type treated as a generic resource.

use std::borrow::Cow;

use crate::engine::{invalid_reference, py_str_cow, DotPath, Env, Snip, NULL};
use crate::error::{ErrorClass, HeatError, Result};
use crate::params::ParamSchema;
use crate::value::Value;
use crate::version::TemplateVersion;
use crate::Template;

fn py_type(v: &Value) -> String {
    format!("<class '{}'>", v.type_name())
}

fn resource_keys(version: TemplateVersion) -> &'static [&'static str] {
    const BASE: &[&str] = &[
        "type",
        "properties",
        "metadata",
        "depends_on",
        "deletion_policy",
        "update_policy",
        "description",
    ];
    const COND: &[&str] = &[
        "type",
        "properties",
        "metadata",
        "depends_on",
        "deletion_policy",
        "update_policy",
        "description",
        "external_id",
        "condition",
    ];
    if version.has_conditions() {
        COND
    } else {
        BASE
    }
}

fn section<'a>(t: &'a Template, name: &str) -> Option<&'a Value> {
    t.data.get(name).filter(|v| v.truthy())
}

/// `Template.validate()`: top-level section names, then each resource a
/// mapping with known keys and a non-empty `type`.
pub fn template_validate(t: &Template) -> Result<()> {
    if !t.version.is_hot() {
        return Ok(());
    }
    for (k, _) in t.data.as_map().unwrap_or_default() {
        if !k
            .as_str()
            .is_some_and(|k| t.version.sections().contains(&k))
        {
            return Err(HeatError::new(
                ErrorClass::InvalidTemplateSection,
                format!("The template section is invalid: {}", k.py_str()),
            ));
        }
    }
    let Some(resources) = section(t, "resources") else {
        return Ok(());
    };
    let Value::Map(m) = resources else {
        return Err(HeatError::new(
            ErrorClass::AttributeError_,
            format!(
                "'{}' object has no attribute 'items'",
                resources.type_name()
            ),
        ));
    };
    let mut sorted: Vec<&(Value, Value)> = m.iter().collect();
    sorted.sort_by(|a, b| py_str_cow(&a.0).cmp(&py_str_cow(&b.0)));
    // Heat checks these keys against a class-level dict that later
    // template classes update in place (and that outputs' `value` shares),
    // so every version accepts the union here; `resource_definitions`
    // then applies the version's own keys.
    const KEYS: &[&str] = &[
        "type",
        "properties",
        "metadata",
        "depends_on",
        "deletion_policy",
        "update_policy",
        "description",
        "external_id",
        "condition",
        "value",
    ];
    let keys = KEYS;
    let message = "Each resource must contain a type key.";
    for (_, attrs) in &sorted {
        if !attrs.truthy() {
            return Err(HeatError::failed(message));
        }
        let Value::Map(am) = attrs else {
            return Err(HeatError::failed(format!(
                "\"resources\" must contain a map of resource maps. Found a [{}] instead",
                py_type(attrs)
            )));
        };
        for (k, _) in am {
            if !k.as_str().is_some_and(|k| keys.contains(&k)) {
                return Err(HeatError::failed(format!(
                    "\"{}\" is not a valid keyword inside a resource definition",
                    k.py_str()
                )));
            }
        }
        if attrs.get("type").is_none() {
            return Err(HeatError::failed(message));
        }
    }
    for (_, attrs) in m {
        if !attrs.get("type").is_some_and(Value::truthy) {
            return Err(HeatError::failed("Each Resource must contain a Type key."));
        }
    }
    Ok(())
}

/// A parsed resource definition.
pub(crate) struct ResourceDef<'v> {
    pub name: Cow<'v, str>,
    pub properties: Option<Snip<'v>>,
    pub metadata: Option<Snip<'v>>,
    pub update_policy: Option<Snip<'v>>,
    pub depends: Vec<&'v Value>,
    pub enabled: bool,
}

/// `resource_definitions(stack)`: each resource parsed, with Heat's
/// checks of each field.
/// `Template.conditions(stack)`: the conditions section must be a map and
/// every definition parses. Heat reads it before the resource and the
/// output definitions, so its errors come first there too.
pub(crate) fn parse_conditions(t: &Template, env: &Env<'_>) -> Result<()> {
    if !t.version.has_conditions() {
        return Ok(());
    }
    if let Some(c) = t.data.get("conditions") {
        if !matches!(c, Value::Map(_) | Value::Null) {
            return Err(HeatError::validation(
                "Conditions validation error",
                Vec::new(),
                format!(
                    "Condition definitions must be a map. Found a {} instead",
                    c.type_name()
                ),
            ));
        }
    }
    env.parsed_conditions()
}

pub(crate) fn resource_definitions<'v>(
    t: &'v Template,
    env: &Env<'_>,
) -> Result<Vec<ResourceDef<'v>>> {
    parse_conditions(t, env)?;
    let m = match section(t, "resources") {
        None => return Ok(Vec::new()),
        Some(Value::Map(m)) => m,
        Some(other) => {
            return Err(HeatError::new(
                ErrorClass::AttributeError_,
                format!("'{}' object has no attribute 'items'", other.type_name()),
            ))
        }
    };
    let keys = resource_keys(t.version);
    let mut out = Vec::with_capacity(m.len());
    for (k, snippet) in m {
        let name = py_str_cow(k);
        let def = resource_definition(t, env, name, snippet, keys).map_err(|e| match e.class {
            ErrorClass::TypeError | ErrorClass::ValueError | ErrorClass::KeyError => {
                HeatError::failed(e.message())
            }
            _ => e,
        })?;
        out.push(def);
    }
    Ok(out)
}

fn resource_definition<'v>(
    t: &Template,
    env: &Env<'_>,
    resource_name: Cow<'v, str>,
    snippet: &'v Value,
    keys: &[&str],
) -> Result<ResourceDef<'v>> {
    let name: &str = &resource_name;
    // `set(snippet) - valid_keys`: the keys of a mapping, the characters
    // of a string, the items of a list.
    let mut invalid: Vec<String> = Vec::new();
    let mut check = |k: &Value| {
        if !k.as_str().is_some_and(|k| keys.contains(&k)) {
            let s = k.py_str();
            if !invalid.contains(&s) {
                invalid.push(s);
            }
        }
    };
    match snippet {
        Value::Map(data) => data.iter().for_each(|(k, _)| check(k)),
        Value::Str(s) => s.chars().for_each(|c| check(&Value::Str(c.to_string()))),
        Value::List(l) => l.iter().for_each(check),
        other => {
            return Err(HeatError::new(
                ErrorClass::TypeError,
                format!("'{}' object is not iterable", other.type_name()),
            ))
        }
    }
    if !invalid.is_empty() {
        // A Python set: the order is hash-dependent.
        return Err(HeatError::new(
            ErrorClass::ValueError,
            format!(
                "Invalid keyword(s) inside a resource definition: {}",
                invalid.join(", ")
            ),
        ));
    }
    if snippet.get("type").is_none() {
        return Err(HeatError::new(
            ErrorClass::KeyError,
            murano_yaml::py_text::repr(&format!("Resource {name} is missing \"type\"")),
        ));
    }
    let resource = DotPath::Name(&DotPath::Root("resources"), name);
    let field = |key: &str| -> Result<Option<Snip<'v>>> {
        match snippet.get(key) {
            None => Ok(None),
            // The path `resources.<name>.<key>`, rendered only for an error.
            Some(v) => env.parse_at(v, &DotPath::Name(&resource, key)).map(Some),
        }
    };
    let wrong = |key: &str, typename: &str| {
        HeatError::new(
            ErrorClass::TypeError,
            format!("Resource {name} {key} type must be {typename}"),
        )
    };
    if let Some(s) = field("type")? {
        if !matches!(s, Snip::Data(Value::Str(_))) {
            return Err(wrong("type", "string"));
        }
    }
    let object = |key: &str| -> Result<Option<Snip<'v>>> {
        let s = field(key)?;
        if let Some(s) = &s {
            if !matches!(s, Snip::Map(_) | Snip::Call(_)) {
                return Err(wrong(key, "object"));
            }
        }
        Ok(s)
    };
    let properties = object("properties")?;
    let metadata = object("metadata")?;
    let mut depends = Vec::new();
    match snippet.get("depends_on") {
        None => {}
        Some(d @ Value::Str(_)) => depends.push(d),
        Some(Value::List(l)) => {
            for d in l {
                if !matches!(d, Value::Str(_)) {
                    return Err(HeatError::failed(format!(
                        "Resource {name} depends_on must be a list of strings"
                    )));
                }
            }
            depends = l.iter().collect();
        }
        Some(Value::Bytes(_)) => {}
        Some(_) => return Err(wrong("depends_on", "list or string")),
    }
    if let Some(dp) = field("deletion_policy")? {
        if !matches!(dp, Snip::Data(Value::Str(_)) | Snip::Call(_)) {
            return Err(wrong("deletion_policy", "string"));
        }
        let v = env.resolve(&dp, 0)?;
        if v != Value::Null {
            let mut ok = ["Delete", "Retain", "Snapshot"];
            let aliases = ["delete", "retain", "snapshot"];
            let valid = v.as_str().is_some_and(|s| {
                ok.contains(&s) || (t.version.has_conditions() && aliases.contains(&s))
            });
            ok.sort_unstable();
            if !valid {
                return Err(HeatError::failed(format!(
                    "Invalid deletion policy \"{}\"",
                    v.py_str()
                )));
            }
        }
    }
    let update_policy = object("update_policy")?;
    if let Some(d) = snippet.get("description") {
        if !matches!(d, Value::Str(_)) {
            return Err(wrong("description", "string"));
        }
    }
    let mut enabled = true;
    if t.version.has_conditions() {
        if let Some(e) = field("external_id")? {
            if !matches!(e, Snip::Data(Value::Str(_)) | Snip::Call(_)) {
                return Err(wrong("external_id", "string"));
            }
        }
        if let Some(c) = snippet.get("condition") {
            let parsed = env.parse_condition_at(c, &DotPath::Name(&resource, "condition"))?;
            if !matches!(
                parsed,
                Snip::Data(Value::Str(_)) | Snip::Data(Value::Bool(_)) | Snip::Call(_)
            ) {
                return Err(wrong("condition", "string_or_boolean"));
            }
            let cond = env.resolve(&parsed, 0)?;
            enabled = env.condition_enabled(&cond).map_err(|e| {
                if e.class == ErrorClass::ValueError {
                    HeatError::validation(
                        "",
                        vec!["resources".into(), name.into(), "condition".into()],
                        e.message(),
                    )
                } else {
                    e
                }
            })?;
        }
    }
    Ok(ResourceDef {
        name: resource_name,
        properties,
        metadata,
        update_policy,
        depends,
        enabled,
    })
}

/// The outputs: each a map with a `value`, whether its condition holds,
/// and its parsed value.
pub(crate) fn output_definitions<'v>(
    t: &'v Template,
    env: &Env<'_>,
) -> Result<Vec<(Cow<'v, str>, bool, Snip<'v>)>> {
    parse_conditions(t, env)?;
    let outputs = match section(t, "outputs") {
        None => return Ok(Vec::new()),
        Some(Value::Map(m)) => m,
        Some(other) => {
            return Err(HeatError::new(
                ErrorClass::AttributeError_,
                format!("'{}' object has no attribute 'items'", other.type_name()),
            ))
        }
    };
    let mut out = Vec::with_capacity(outputs.len());
    for (k, val) in outputs {
        let key = py_str_cow(k);
        let path = || vec!["outputs".to_owned(), key.clone().into_owned()];
        let Value::Map(_) = val else {
            return Err(HeatError::validation(
                "Output validation error",
                path(),
                format!(
                    "Output definitions must be a map. Found a {} instead",
                    val.type_name()
                ),
            ));
        };
        let Some(value) = val.get("value") else {
            return Err(HeatError::validation(
                "Output validation error",
                path(),
                "Each output definition must contain a value key.",
            ));
        };
        let output = DotPath::Name(&DotPath::Root("outputs"), &key);
        if t.version.has_conditions() {
            let c = env.parse_condition_at(
                val.get("condition").unwrap_or(&NULL),
                &DotPath::Name(&output, "condition"),
            )?;
            let c = env.resolve(&c, 0)?;
            let enabled = env.condition_enabled(&c).map_err(|e| {
                if e.class == ErrorClass::ValueError {
                    HeatError::validation(
                        "",
                        vec![
                            "outputs".into(),
                            key.clone().into_owned(),
                            "condition".into(),
                        ],
                        e.message(),
                    )
                } else {
                    e
                }
            })?;
            if !enabled {
                let parsed = env
                    .parse(value, &format!("outputs.{key}.value"))
                    .unwrap_or(Snip::Data(&NULL));
                out.push((key, false, parsed));
                continue;
            }
        }
        let parsed = env.parse_at(value, &DotPath::Name(&output, "value"))?;
        out.push((key, true, parsed));
    }
    Ok(out)
}

fn parameter_groups(t: &Template, schemas: &[ParamSchema]) -> Result<()> {
    let Some(groups) = section(t, "parameter_groups") else {
        return Ok(());
    };
    let err = |label: Option<String>, message: String| {
        let mut path = vec!["parameter_groups".to_owned()];
        if let Some(l) = label {
            path.push(l);
        }
        HeatError::validation("Parameter Groups error", path, message)
    };
    let Value::List(groups) = groups else {
        return Err(err(None, "The parameter_groups should be a list.".into()));
    };
    let names: Vec<&str> = ["OS::stack_id", "OS::project_id"]
        .into_iter()
        .chain(schemas.iter().map(|s| s.name.as_str()))
        .collect();
    let mut grouped: Vec<&Value> = Vec::new();
    for group in groups {
        let Value::Map(_) = group else {
            return Err(HeatError::new(
                ErrorClass::AttributeError_,
                format!("'{}' object has no attribute 'get'", group.type_name()),
            ));
        };
        let label = group.get("label").map(Value::py_str).unwrap_or_default();
        let params = match group.get("parameters") {
            None | Some(Value::Null) => {
                return Err(err(
                    Some(label),
                    "The parameters must be provided for each parameter group.".into(),
                ))
            }
            Some(Value::List(l)) => l,
            Some(_) => {
                return Err(err(
                    Some(label),
                    "The parameters of parameter group should be a list.".into(),
                ))
            }
        };
        for p in params {
            if grouped.iter().any(|g| g.py_eq(p)) {
                return Err(err(
                    Some(label),
                    format!(
                        "The {} parameter must be assigned to one parameter group only.",
                        p.py_str()
                    ),
                ));
            }
            grouped.push(p);
            if !p.as_str().is_some_and(|p| names.contains(&p)) {
                return Err(err(
                    Some(label),
                    format!(
                        "The grouped parameter {} does not reference a valid parameter.",
                        p.py_str()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Re-roots a `function.validate` error under a section, as `Resource`
/// and `Stack` do: `[section, name, <section of ex.path[0]>] + rest`.
fn reroot(e: HeatError, section: &str, name: &str) -> HeatError {
    if e.class != ErrorClass::StackValidationFailed {
        return e;
    }
    let mut path = vec![section.to_owned(), name.to_owned()];
    let mut rest = e.path.into_iter();
    if let Some(first) = rest.next() {
        path.push(first);
    }
    path.extend(rest);
    HeatError::validation(&e.heading, path, e.error_message)
}

/// Finds a dependency cycle among resources (edges: resource -> what it
/// depends on).
fn find_cycle(n: usize, edges: &[(usize, usize)]) -> Option<Vec<usize>> {
    if edges.is_empty() {
        return None;
    }
    let mut targets = vec![Vec::new(); n];
    for &(a, b) in edges {
        targets[a].push(b);
    }
    let adj = |node: usize| &targets[node];
    // Iterative DFS with colours.
    let mut colour = vec![0u8; n];
    for start in 0..n {
        if colour[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        colour[start] = 1;
        while let Some(&mut (node, ref mut i)) = stack.last_mut() {
            if *i < adj(node).len() {
                let next = adj(node)[*i];
                *i += 1;
                match colour[next] {
                    0 => {
                        colour[next] = 1;
                        stack.push((next, 0));
                    }
                    1 => {
                        let pos = stack.iter().position(|(x, _)| *x == next).unwrap_or(0);
                        return Some(stack[pos..].iter().map(|(x, _)| *x).collect());
                    }
                    _ => {}
                }
            } else {
                colour[node] = 2;
                stack.pop();
            }
        }
    }
    None
}

/// What `heat template-validate` checks, with generic resources: parameter
/// schemas and defaults, sections, parameter groups, conditions, resource
/// definitions, duplicate names, outputs, references and dependency loops,
/// function arguments. `params` are supplied values (only their names are
/// checked, as template-validate does not check values).
pub fn stack_validate(t: &Template, params: &[(String, Value)]) -> Result<()> {
    if !t.version.is_hot() {
        return Ok(());
    }
    let schemas = t.schemas()?;
    template_validate(t)?;
    for (name, _) in params {
        if !schemas.iter().any(|s| s.name == *name) {
            return Err(HeatError::new(
                ErrorClass::UnknownUserParameter,
                format!("The Parameter ({name}) was not defined in template."),
            ));
        }
    }
    for s in &schemas {
        s.check()?;
    }
    parameter_groups(t, &schemas)?;
    let pseudo = [
        ("OS::stack_id", Value::Str(String::new())),
        ("OS::project_id", Value::Str(String::new())),
        ("OS::stack_name", Value::Str("dummy".into())),
    ];
    let env = Env::new(t.version, &t.limits, &t.data, &schemas, params, pseudo);
    if t.version.has_conditions() {
        parse_conditions(t, &env)?;
        env.validate_conditions()?;
    }
    let defs = resource_definitions(t, &env)?;
    let enabled: Vec<&ResourceDef> = defs.iter().filter(|d| d.enabled).collect();
    // Duplicate names between parameters (pseudo ones included) and
    // resources.
    let mut dups: Vec<String> = Vec::new();
    for d in &enabled {
        let is_param = ["OS::stack_id", "OS::project_id", "OS::stack_name"].contains(&&*d.name)
            || schemas.iter().any(|s| s.name == d.name);
        if is_param {
            dups.push(format!("'{}'", d.name));
        }
    }
    if !dups.is_empty() {
        return Err(HeatError::failed(format!(
            "Duplicate names {{{}}}",
            dups.join(", ")
        )));
    }
    let outputs = output_definitions(t, &env)?;
    // Dependencies: depends_on targets, get_resource / get_attr targets,
    // and loops.
    let names: Vec<&str> = enabled.iter().map(|d| &*d.name).collect();
    let mut edges = Vec::new();
    for (i, d) in enabled.iter().enumerate() {
        let mut deps = Vec::new();
        let resource = DotPath::Root(&d.name);
        if let Some(p) = &d.properties {
            let root = DotPath::Name(&resource, "Properties");
            env.dependencies(p, &root, &mut deps, 0)?;
        }
        if let Some(m) = &d.metadata {
            let root = DotPath::Name(&resource, "Metadata");
            env.dependencies(m, &root, &mut deps, 0)?;
        }
        for (target, path) in &deps {
            if !env.is_resource(target) {
                return Err(invalid_reference(target, path));
            }
        }
        // Python's `==` between a name and a target: only an equal string.
        let targets = d.depends.iter().copied().chain(deps.iter().map(|(v, _)| v));
        for target in targets {
            if let Some(j) = target
                .as_str()
                .and_then(|t| names.iter().position(|n| *n == t))
            {
                edges.push((i, j));
            } else if !env.is_resource(target) {
                return Err(invalid_reference(target, &d.name));
            }
        }
    }
    if let Some(cycle) = find_cycle(names.len(), &edges) {
        let shown: Vec<String> = cycle
            .iter()
            .map(|&i| format!("GenericResource \"{}\"", names[i]))
            .collect();
        return Err(HeatError::new(
            ErrorClass::CircularDependencyException,
            format!("Circular Dependency Found: {{{}}}", shown.join(", ")),
        ));
    }
    // Each resource's template validation.
    for d in &enabled {
        let sections: [(&str, &Option<Snip>); 3] = [
            ("Properties", &d.properties),
            ("Metadata", &d.metadata),
            ("UpdatePolicy", &d.update_policy),
        ];
        for (sec, s) in sections {
            if let Some(s) = s {
                let hot = match sec {
                    "Properties" => "properties",
                    "Metadata" => "metadata",
                    _ => "update_policy",
                };
                env.validate_snip(s, &crate::engine::ListPath::Root(hot), 0)
                    .map_err(|e| reroot(e, "resources", &d.name))?;
            }
        }
    }
    for (name, enabled, v) in &outputs {
        if *enabled {
            env.validate_snip(v, &crate::engine::ListPath::Root("value"), 0)
                .map_err(|e| reroot(e, "outputs", name))?;
        }
    }
    Ok(())
}
