//! Execution plans as Murano's Agent builds them
//! (`murano/engine/system/agent.py`, `build_execution_plan`): format 1.x
//! puts the scripts' bodies in base64, format 2.x turns every script's
//! entry point and files into entries of the plan's `Files`.

use std::sync::Arc;

use murano_yaql::eval::{Dict, Value};

use super::HostError;

fn s(text: &str) -> Value {
    Value::str(text)
}

fn value_error(message: &str) -> HostError {
    HostError::new("ValueError", "builtins", message)
}

/// A value's dict, or a `ValueError` like Murano's.
fn as_dict(v: &Value) -> Option<Dict> {
    match v {
        Value::Dict(d) => Some((**d).clone()),
        _ => None,
    }
}

/// What plan building needs from its surroundings.
pub(crate) trait PlanEnv {
    /// `Resources/<path>` of the package, as bytes (`binary`: Murano asks
    /// for bytes rather than text).
    fn read(&mut self, path: &str, binary: bool) -> Result<Vec<u8>, HostError>;
    /// A fresh id.
    fn new_id(&mut self) -> String;
}

/// Text read as Python's `open(path, 'rU').read()`: UTF-8 with universal
/// newlines.
pub(crate) fn text_of(bytes: &[u8]) -> Result<String, HostError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        HostError::new(
            "UnicodeDecodeError",
            "builtins",
            format!("'utf-8' codec can't decode bytes: {e}"),
        )
    })?;
    Ok(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// Murano's `dsl_iterators_limit` (default 2000): the most items a value
/// may have when a host object's Python code receives it from a MuranoPL
/// call (`dsl.to_mutable` limits every iterable it converts).
pub(crate) const DSL_ITERATORS_LIMIT: usize = 2000;

/// The base64 text Murano's Agent makes of a file read in binary mode.
///
/// The Agent reads through the `Resources` object's call interface, whose
/// result goes through `to_mutable` (yaql's `convert_output_data`): Python
/// `bytes` are an iterable there, so the body arrives as a list of
/// integers, and `base64.encode_as_text` of a list fails with Python's
/// `TypeError` — or, above [`DSL_ITERATORS_LIMIT`] bytes, the conversion
/// itself fails with yaql's `CollectionTooLargeException`. Either way no
/// binary file ever reaches a plan (Murano at the reference commit).
pub(crate) fn base64_of_binary_read(bytes: &[u8]) -> Result<String, HostError> {
    if bytes.len() > DSL_ITERATORS_LIMIT {
        return Err(HostError::new(
            "CollectionTooLargeException",
            "yaql.language.exceptions",
            format!("Collection length exceeds {DSL_ITERATORS_LIMIT} elements"),
        ));
    }
    Err(HostError::new(
        "TypeError",
        "builtins",
        "a bytes-like object is required, not 'list'",
    ))
}

/// Builds the plan for `template` with the next `stamp`.
pub(crate) fn build_plan(
    template: &Value,
    stamp: i64,
    env: &mut dyn PlanEnv,
) -> Result<Value, HostError> {
    let Some(mut t) = as_dict(template) else {
        return Err(value_error("Incorrect execution plan "));
    };
    let version = t.get(&s("FormatVersion")).cloned().unwrap_or(Value::Null);
    let v1 = match &version {
        Value::Null => true,
        Value::Str(v) => v.is_empty() || v.starts_with("1."),
        other => !other.truthy(),
    };
    if v1 {
        let scripts = t.get(&s("Scripts")).cloned().unwrap_or(Value::Null);
        let names: Vec<Value> = match &scripts {
            Value::Null => Vec::new(),
            v => match v.as_slice() {
                Some(items) => items.to_vec(),
                None => match v {
                    Value::Dict(d) => d.keys().cloned().collect(),
                    Value::Str(text) => text.chars().map(|c| s(&c.to_string())).collect(),
                    _ => {
                        return Err(HostError::new(
                            "TypeError",
                            "builtins",
                            "the plan's Scripts is not iterable",
                        ))
                    }
                },
            },
        };
        let mut bodies = Vec::new();
        for name in names {
            let path = format!("scripts/{}", name.py_str());
            let bytes = env.read(&path, true)?;
            bodies.push(s(&base64_of_binary_read(&bytes)?));
        }
        t.insert(s("Scripts"), Value::List(Arc::new(bodies)));
        t.insert(s("Stamp"), Value::Int(stamp));
        return Ok(Value::Dict(Arc::new(t)));
    }
    let id = env.new_id();
    t.insert(s("ID"), s(&id));
    t.insert(s("Stamp"), Value::Int(stamp));
    if !t.contains_key(&s("Action")) {
        t.insert(s("Action"), s("Execute"));
    }
    if !t.contains_key(&s("Files")) {
        t.insert(s("Files"), Value::Dict(Arc::new(Dict::default())));
    }
    let mut files_out = as_dict(&t[&s("Files")])
        .ok_or_else(|| HostError::new("AttributeError", "builtins", "Files is not a mapping"))?;
    // name -> file id
    let mut known: Vec<(String, String)> = Vec::new();
    for (file_id, descr) in files_out.iter() {
        let name = match descr {
            Value::Dict(d) => d.get(&s("Name")).map(Value::py_str),
            _ => None,
        }
        .ok_or_else(|| HostError::new("KeyError", "builtins", "'Name'"))?;
        known.push((name, file_id.py_str()));
    }
    let scripts = t.get(&s("Scripts")).cloned().unwrap_or(Value::Null);
    let mut scripts_out = as_dict(&scripts).unwrap_or_default();
    let script_names: Vec<Value> = scripts_out.keys().cloned().collect();
    for name in script_names {
        let Some(mut script) = as_dict(&scripts_out[&name]) else {
            return Err(HostError::new(
                "TypeError",
                "builtins",
                "a script of the plan is not a mapping",
            ));
        };
        let Some(entry) = script.get(&s("EntryPoint")).cloned() else {
            return Err(value_error(&format!(
                "No entry point in script {}",
                name.py_str()
            )));
        };
        let kind = script.get(&s("Type")).cloned();
        if kind.as_ref().and_then(Value::as_str) == Some("Application") {
            let entry_name = entry.py_str();
            let id = match known.iter().find(|(n, _)| *n == entry_name) {
                Some((_, id)) => id.clone(),
                None => place_file(&entry, &mut files_out, &mut known, env)?,
            };
            script.insert(s("EntryPoint"), s(&id));
        } else if kind.is_none() {
            return Err(HostError::new("KeyError", "builtins", "'Type'"));
        }
        if let Some(files) = script.get(&s("Files")).cloned() {
            let items: Vec<Value> = files.as_slice().map(<[Value]>::to_vec).unwrap_or_default();
            let mut out = Vec::with_capacity(items.len());
            for file in items {
                let fname = file_name(&file);
                match known.iter().find(|(n, _)| *n == fname) {
                    None => out.push(s(&place_file(&file, &mut files_out, &mut known, env)?)),
                    Some(_) => {
                        // Murano looks the file up by the value as written.
                        let key = file.py_str();
                        match known.iter().find(|(n, _)| *n == key) {
                            Some((_, id)) => out.push(s(id)),
                            None => {
                                return Err(HostError::new(
                                    "KeyError",
                                    "builtins",
                                    format!("'{key}'"),
                                ))
                            }
                        }
                    }
                }
            }
            script.insert(s("Files"), Value::List(Arc::new(out)));
        }
        scripts_out.insert(name, Value::Dict(Arc::new(script)));
    }
    if t.contains_key(&s("Scripts")) {
        t.insert(s("Scripts"), Value::Dict(Arc::new(scripts_out)));
    }
    t.insert(s("Files"), Value::Dict(Arc::new(files_out)));
    Ok(Value::Dict(Arc::new(t)))
}

/// The value of a file reference (`name` or `{name: url}`).
fn file_value(file: &Value) -> String {
    match file {
        Value::Dict(d) => d.values().next().map(Value::py_str).unwrap_or_default(),
        other => other.py_str(),
    }
}

fn is_url(text: &str) -> bool {
    // urllib.parse.urlsplit: a scheme (letters, digits, + - .; starting
    // with a letter) followed by `://` and a non-empty netloc.
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let valid_scheme = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !valid_scheme {
        return false;
    }
    let Some(after) = rest.strip_prefix("//") else {
        return false;
    };
    let netloc = after.split(['/', '?', '#']).next().unwrap_or("");
    !netloc.is_empty()
}

/// Murano's `_get_name`.
fn file_name(file: &Value) -> String {
    let name = match file {
        Value::Dict(d) => d.keys().next().map(Value::py_str).unwrap_or_default(),
        other => other.py_str(),
    };
    if is_url(&name) {
        match name.rfind('/') {
            Some(i) => name[i + 1..].to_owned(),
            None => name,
        }
    } else if name.len() >= 2 && name.starts_with('<') && name.ends_with('>') {
        name[1..name.len() - 1].to_owned()
    } else {
        name
    }
}

fn is_base64(text: &str) -> bool {
    text.starts_with('<') && text.ends_with('>')
}

fn place_file(
    file: &Value,
    files: &mut Dict,
    known: &mut Vec<(String, String)>,
    env: &mut dyn PlanEnv,
) -> Result<String, HostError> {
    let value = file_value(file);
    let name = file_name(file);
    let id = env.new_id();
    let mut d = Dict::default();
    if is_url(&value) {
        d.insert(s("Name"), s(&name));
        d.insert(s("URL"), s(&value));
        d.insert(s("Type"), s("Downloadable"));
    } else {
        let (body_type, body) = if is_base64(&value) && value.len() >= 2 {
            let inner = &value[1..value.len() - 1];
            let bytes = env.read(&format!("scripts/{inner}"), true)?;
            ("Base64", format!("{}\n", base64_of_binary_read(&bytes)?))
        } else {
            let bytes = env.read(&format!("scripts/{value}"), false)?;
            ("Text", text_of(&bytes)?)
        };
        d.insert(s("Name"), s(&name));
        d.insert(s("BodyType"), s(body_type));
        d.insert(s("Body"), s(&body));
    }
    files.insert(s(&id), Value::Dict(Arc::new(d)));
    known.push((name, id.clone()));
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Env(u32);
    impl PlanEnv for Env {
        fn read(&mut self, path: &str, _binary: bool) -> Result<Vec<u8>, HostError> {
            match path {
                "scripts/a.sh" => Ok(b"echo a\r\n".to_vec()),
                "scripts/b.bin" => Ok(vec![0, 1, 2]),
                _ => Err(HostError::new("FileNotFoundError", "builtins", path)),
            }
        }
        fn new_id(&mut self) -> String {
            self.0 += 1;
            format!("id{}", self.0)
        }
    }

    fn plan(text: &str) -> Value {
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        super::super::record::decode(&json)
    }

    #[test]
    fn v1_plans_fail_on_their_binary_read_like_murano() {
        // The body comes back from `Resources.string(binary=True)` as a
        // list of ints, which base64 refuses.
        let e = build_plan(&plan(r#"{"Scripts": ["a.sh"]}"#), 1, &mut Env(0)).unwrap_err();
        assert_eq!(e.type_name, "TypeError");
        assert_eq!(e.message, "a bytes-like object is required, not 'list'");
        // No scripts: nothing read, the stamp is set.
        let out = build_plan(&plan(r#"{"Scripts": []}"#), 1, &mut Env(0)).unwrap();
        let Value::Dict(d) = out else { panic!() };
        assert_eq!(d[&s("Scripts")], Value::List(Arc::new(vec![])));
        assert_eq!(d[&s("Stamp")], Value::Int(1));
    }

    #[test]
    fn binary_reads_fail_as_in_murano_whatever_their_size() {
        for n in [0, 1, DSL_ITERATORS_LIMIT] {
            let e = base64_of_binary_read(&vec![7; n]).unwrap_err();
            assert_eq!(
                (e.type_name.as_str(), e.module.as_str()),
                ("TypeError", "builtins")
            );
        }
        let e = base64_of_binary_read(&vec![7; DSL_ITERATORS_LIMIT + 1]).unwrap_err();
        assert_eq!(e.type_name, "CollectionTooLargeException");
        assert_eq!(e.message, "Collection length exceeds 2000 elements");
    }

    #[test]
    fn v2_plans_reference_files_by_id() {
        let t = plan(
            r#"{"FormatVersion": "2.0.0", "Scripts": {"run": {"Type": "Application",
            "EntryPoint": "a.sh", "Files": ["a.sh", {"x": "http://h/x.tgz"}]}}}"#,
        );
        let out = build_plan(&t, 3, &mut Env(0)).unwrap();
        let Value::Dict(d) = out else { panic!() };
        assert_eq!(d[&s("ID")], s("id1"));
        assert_eq!(d[&s("Action")], s("Execute"));
        let Value::Dict(files) = &d[&s("Files")] else {
            panic!()
        };
        assert_eq!(files.len(), 2);
        let Value::Dict(a) = &files[&s("id2")] else {
            panic!()
        };
        assert_eq!(a[&s("Body")], s("echo a\n"));
        assert_eq!(a[&s("BodyType")], s("Text"));
        let Value::Dict(x) = &files[&s("id3")] else {
            panic!()
        };
        assert_eq!(x[&s("Type")], s("Downloadable"));
        // A `<name>` (base64) file is read in binary mode and fails.
        let t = plan(
            r#"{"FormatVersion": "2.0.0", "Scripts": {"run": {"Type": "Application",
            "EntryPoint": "a.sh", "Files": ["<b.bin>"]}}}"#,
        );
        let e = build_plan(&t, 3, &mut Env(0)).unwrap_err();
        assert_eq!(e.type_name, "TypeError");
    }

    #[test]
    fn a_script_without_entry_point_is_a_value_error() {
        let t = plan(r#"{"FormatVersion": "2.1.0", "Scripts": {"run": {"Type": "Application"}}}"#);
        let e = build_plan(&t, 1, &mut Env(0)).unwrap_err();
        assert_eq!(e.type_name, "ValueError");
    }
}
