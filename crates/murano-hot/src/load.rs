//! Loading a template as `heat.common.template_format.parse` does.

use murano_yaml::plain::{PlainLoad, PlainScalar, PlainTree};
use murano_yaml::{self as yaml, Flavor, LoadOptions, Node, Value as Y, YamlError, YamlErrorClass};

use crate::error::{ErrorClass, HeatError, Position, Result};
use crate::value::Value;
use crate::Limits;

/// The version keys whose presence makes a mapping a template.
pub const VERSION_KEYS: [&str; 3] = [
    "HeatTemplateFormatVersion",
    "heat_template_version",
    "AWSTemplateFormatVersion",
];

/// Parses template text as Heat does: the size limit (Heat's
/// `max_template_size`, here [`Limits::max_template_size`]), JSON first
/// (`json.loads`), then YAML with Heat's loader (PyYAML's safe loader
/// with dates and timestamps left as strings; an empty document is `{}`),
/// then the checks that the result is a mapping and carries a version key.
pub fn parse(text: &str, limits: &Limits) -> Result<Value> {
    let tpl = simple_parse(text, limits)?;
    let has_version = VERSION_KEYS.iter().any(|k| tpl.get(k).is_some());
    if !has_version {
        return Err(HeatError::new(
            ErrorClass::ValueError,
            "Template format version not found.",
        ));
    }
    Ok(tpl)
}

/// `template_format.simple_parse`: JSON or YAML, which must be a mapping
/// (no version check).
pub fn simple_parse(text: &str, limits: &Limits) -> Result<Value> {
    if text.len() > limits.max_template_size {
        // Heat counts characters of `str(tmpl_str)`.
        let chars = text.chars().count();
        if chars > limits.max_template_size {
            return Err(HeatError::new(
                ErrorClass::RequestLimitExceeded,
                format!(
                    "Template size ({chars} bytes) exceeds maximum allowed size ({} bytes).",
                    limits.max_template_size
                ),
            ));
        }
    }
    if !may_be_json(text) {
        return mapping(load_yaml(text, limits)?);
    }
    let tpl = match serde_json::from_str::<serde_json::Value>(text) {
        Ok(j) => Value::from_json(&j),
        Err(e) if e.classify() == serde_json::error::Category::Syntax && depth_exceeded(&e) => {
            return Err(HeatError::new(
                ErrorClass::Limit,
                "JSON nested too deeply".to_owned(),
            ))
        }
        Err(_) => load_yaml(text, limits)?,
    };
    mapping(tpl)
}

/// The loaded template, which must be a mapping.
fn mapping(tpl: Value) -> Result<Value> {
    if !matches!(tpl, Value::Map(_)) {
        return Err(HeatError::new(
            ErrorClass::ValueError,
            "The template is not a JSON object or YAML mapping.",
        ));
    }
    Ok(tpl)
}

/// Whether `json.loads` could take the text: not when the first character
/// after JSON's white space cannot start a JSON value (then it fails with
/// a syntax error on that character, and Heat goes on to YAML, as most
/// templates need).
fn may_be_json(text: &str) -> bool {
    let first = text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .chars()
        .next();
    first.is_none_or(|c| matches!(c, '{' | '[' | '"' | '-' | '0'..='9' | 't' | 'f' | 'n'))
}

fn depth_exceeded(e: &serde_json::Error) -> bool {
    e.to_string().starts_with("recursion limit exceeded")
}

/// Most tabs [`load_yaml`] turns into spaces before it gives up.
const MAX_TAB_RETRIES: usize = 64;

/// The byte offset of character `index` in `text`.
fn byte_offset(text: &str, index: usize) -> Option<usize> {
    if text.is_ascii() {
        return (index < text.len()).then_some(index);
    }
    text.char_indices().nth(index).map(|(b, _)| b)
}

/// Whether the YAML error is a tab between tokens on a line that has
/// content before it: libyaml (Heat's `CSafeLoader`) takes such a tab as
/// white space where PyYAML's pure-Python scanner refuses it.
fn separating_tab(text: &str, e: &YamlError) -> Option<usize> {
    if !e
        .problem()
        .contains("found character '\\t' that cannot start any token")
    {
        return None;
    }
    let at = byte_offset(text, e.mark()?.index as usize)?;
    if text.as_bytes().get(at) != Some(&b'\t') {
        return None;
    }
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..at]
        .chars()
        .any(|c| !c.is_whitespace())
        .then_some(at)
}

fn load_yaml(text: &str, limits: &Limits) -> Result<Value> {
    let options = LoadOptions::default()
        .with_max_depth(limits.max_depth)
        .with_max_nodes(limits.max_nodes)
        .with_max_len(limits.max_template_size.saturating_mul(4));
    let mut first_error = None;
    let mut patched: Option<String> = None;
    for _ in 0..=MAX_TAB_RETRIES {
        let current = patched.as_deref().unwrap_or(text);
        match load_yaml_once(current, &options) {
            Err(LoadFailure::Yaml(e)) => {
                let Some(at) = separating_tab(current, &e) else {
                    return Err(yaml_error(first_error.as_ref().unwrap_or(&e)));
                };
                first_error.get_or_insert(e);
                let mut next = current.to_owned();
                next.replace_range(at..=at, " ");
                patched = Some(next);
            }
            Err(LoadFailure::Heat(e)) => return Err(e),
            Ok(v) => return Ok(v),
        }
    }
    Err(first_error.map_or_else(
        || HeatError::new(ErrorClass::Limit, "too many tabs"),
        |e| yaml_error(&e),
    ))
}

enum LoadFailure {
    Yaml(YamlError),
    Heat(HeatError),
}

fn load_yaml_once(text: &str, options: &LoadOptions) -> std::result::Result<Value, LoadFailure> {
    // Most templates are plain YAML: built straight into values, as the
    // general loader and `Converter` would build them.
    match yaml::plain::load_plain::<Value>(text, options) {
        PlainLoad::Document(v) => return Ok(v),
        PlainLoad::Empty => return Ok(Value::Map(Vec::new())),
        PlainLoad::NeedsFullLoader => {}
    }
    match yaml::load_single(text.as_bytes(), Flavor::Plain, options) {
        Ok(None) => Ok(Value::Map(Vec::new())),
        Ok(Some(node)) => {
            let mut conv = Converter {
                text,
                char_to_byte: None,
            };
            conv.convert(node).map_err(LoadFailure::Heat)
        }
        Err(e) if e.class() == YamlErrorClass::Limit => Err(LoadFailure::Heat(yaml_error(&e))),
        Err(e) => Err(LoadFailure::Yaml(e)),
    }
}

/// PyYAML's `str()` of a marked error, without the snippet lines.
fn pyyaml_text(e: &YamlError) -> String {
    let mut out = String::new();
    if let Some((context, mark)) = e.context() {
        out.push_str(context);
        if let Some(m) = mark {
            out.push_str(&format!(
                "\n  in \"<unicode string>\", line {}, column {}:",
                m.line + 1,
                m.column + 1
            ));
        }
        out.push('\n');
    }
    out.push_str(e.problem());
    if let Some(m) = e.mark() {
        out.push_str(&format!(
            "\n  in \"<unicode string>\", line {}, column {}:",
            m.line + 1,
            m.column + 1
        ));
    }
    out
}

fn yaml_error(e: &YamlError) -> HeatError {
    let class = if e.class() == YamlErrorClass::Limit {
        ErrorClass::Limit
    } else {
        ErrorClass::ValueError
    };
    let message = if class == ErrorClass::Limit {
        e.to_string()
    } else {
        format!("Error parsing template [root stack] {}", pyyaml_text(e))
    };
    let mut err = HeatError::new(class, message);
    err.position = e.mark().map(|m| Position {
        line: m.line + 1,
        column: m.column + 1,
    });
    err
}

/// What the `Converter` makes of a plain document's values.
impl PlainTree for Value {
    fn scalar(scalar: PlainScalar<'_>) -> Value {
        match scalar {
            PlainScalar::Null => Value::Null,
            PlainScalar::Bool(b) => Value::Bool(b),
            PlainScalar::Int(yaml::Int::Small(n)) => Value::Int(n),
            PlainScalar::Int(yaml::Int::Big(s)) => Value::BigInt(s),
            PlainScalar::Float(x) => Value::Float(x),
            PlainScalar::Str(s) => Value::Str(s),
            // Heat keeps dates and timestamps as the text PyYAML scanned.
            PlainScalar::Timestamp(text) => Value::Str(text.to_owned()),
        }
    }

    fn sequence(items: Vec<Value>) -> Value {
        Value::List(items)
    }

    fn mapping(entries: Vec<(Value, Value)>) -> Value {
        Value::Map(entries)
    }

    fn key_text(&self) -> &str {
        self.as_str().unwrap_or_default()
    }
}

struct Converter<'a> {
    text: &'a str,
    /// Byte offset of each character, built on the first date when the
    /// text is not ASCII.
    char_to_byte: Option<Vec<u32>>,
}

impl Converter<'_> {
    /// The source text of a plain scalar (a date or timestamp, which Heat
    /// keeps as the string PyYAML scanned).
    fn source(&mut self, node: &Node) -> String {
        let (s, e) = (node.start.index as usize, node.end.index as usize);
        if self.text.is_ascii() {
            return self.text.get(s..e).unwrap_or_default().to_owned();
        }
        let table = self.char_to_byte.get_or_insert_with(|| {
            let mut t: Vec<u32> = self.text.char_indices().map(|(b, _)| b as u32).collect();
            t.push(self.text.len() as u32);
            t
        });
        match (table.get(s), table.get(e)) {
            (Some(&a), Some(&b)) => self
                .text
                .get(a as usize..b as usize)
                .unwrap_or_default()
                .to_owned(),
            _ => String::new(),
        }
    }

    /// Converts a loaded node, moving its strings.
    fn convert(&mut self, node: Node) -> Result<Value> {
        Ok(match node.value {
            Y::Null => Value::Null,
            Y::Bool(b) => Value::Bool(b),
            Y::Int(yaml::Int::Small(n)) => Value::Int(n),
            Y::Int(yaml::Int::Big(s)) => Value::BigInt(s),
            Y::Float(x) => Value::Float(x),
            Y::Str(s) => Value::Str(s),
            Y::Date(_) | Y::Timestamp(_) => {
                let src = self.source(&node);
                // A tagged node (`!!timestamp 2001-01-01`) starts at its tag.
                let src = match src.strip_prefix('!') {
                    Some(rest) => rest
                        .split_once(char::is_whitespace)
                        .map(|(_, v)| v.trim_start().to_owned())
                        .unwrap_or_default(),
                    None => src,
                };
                Value::Str(src)
            }
            Y::Binary(b) => Value::Bytes(b),
            Y::Seq(items) | Y::Set(items) => Value::List(
                items
                    .into_iter()
                    .map(|n| self.convert(n))
                    .collect::<Result<_>>()?,
            ),
            Y::Map(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    out.push((self.convert(k)?, self.convert(v)?));
                }
                Value::Map(out)
            }
            Y::Pairs(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    out.push(Value::List(vec![self.convert(k)?, self.convert(v)?]));
                }
                Value::List(out)
            }
            Y::Recursive => {
                return Err(HeatError::new(
                    ErrorClass::Limit,
                    "recursive alias in the template".to_owned(),
                ))
            }
            _ => {
                return Err(HeatError::new(
                    ErrorClass::ValueError,
                    "unsupported YAML value".to_owned(),
                ))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Value> {
        parse(text, &Limits::default())
    }

    #[test]
    fn dates_stay_strings_and_json_comes_first() {
        let t = p("heat_template_version: 2013-05-23\nx: 2001-12-14t21:59:43.10-05:00\n").unwrap();
        assert_eq!(
            t.get("heat_template_version").unwrap().as_str(),
            Some("2013-05-23")
        );
        assert_eq!(
            t.get("x").unwrap().as_str(),
            Some("2001-12-14t21:59:43.10-05:00")
        );
        let t = p("{\"heat_template_version\": \"2013-05-23\", \"a\": 2.0}").unwrap();
        assert_eq!(t.get("a"), Some(&Value::Float(2.0)));
    }

    #[test]
    fn load_errors_are_heats() {
        assert_eq!(
            p("").unwrap_err().message(),
            "Template format version not found."
        );
        assert_eq!(
            p("- a\n").unwrap_err().message(),
            "The template is not a JSON object or YAML mapping."
        );
        let e = p("a: [\n").unwrap_err();
        assert_eq!(e.class, ErrorClass::ValueError);
        assert!(e
            .message()
            .starts_with("Error parsing template [root stack] "));
        assert!(e.position.is_some());
    }

    #[test]
    fn tabs_between_tokens_are_white_space_as_in_libyaml() {
        let t = p("heat_template_version: 2013-05-23\na:\t1\t# c\nb: [1,\t2]\n").unwrap();
        assert_eq!(t.get("a"), Some(&Value::Int(1)));
        assert_eq!(
            t.get("b"),
            Some(&Value::List(vec![Value::Int(1), Value::Int(2)]))
        );
        // A tab as indentation is still refused.
        assert!(p("heat_template_version: 2013-05-23\na:\n\t- 1\n").is_err());
    }

    /// The general loader's answer, without the fast path.
    fn general(text: &str, options: &LoadOptions) -> Option<Value> {
        match yaml::load_single(text.as_bytes(), Flavor::Plain, options) {
            Ok(None) => Some(Value::Map(Vec::new())),
            Ok(Some(node)) => Converter {
                text,
                char_to_byte: None,
            }
            .convert(node)
            .ok(),
            Err(_) => None,
        }
    }

    #[test]
    fn the_plain_fast_path_builds_what_the_general_loader_builds() {
        let options = LoadOptions::default();
        let mut texts: Vec<String> = [
            "heat_template_version: 2013-05-23\nx: 2001-12-14 21:59:43.10 -5\n",
            "heat_template_version: wallaby\nd: {a: 1, a: [2, 0x10, .5, ~, yes]}\n",
            "é: 2015-01-02\n",
            "",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let dir = std::env::var_os("MURANO_SHARED")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
            })
            .join("conformance/hot/templates");
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.filter_map(std::result::Result::ok) {
                if let Ok(text) = std::fs::read_to_string(entry.path()) {
                    texts.push(text);
                }
            }
        }
        let mut built = 0;
        for text in &texts {
            match yaml::plain::load_plain::<Value>(text, &options) {
                PlainLoad::Document(v) => {
                    assert_eq!(Some(v), general(text, &options), "{text}");
                    built += 1;
                }
                PlainLoad::Empty => {
                    assert_eq!(Some(Value::Map(Vec::new())), general(text, &options));
                    built += 1;
                }
                PlainLoad::NeedsFullLoader => {}
            }
        }
        assert!(built >= 4, "{built}");
    }

    #[test]
    fn size_limit() {
        let limits = Limits {
            max_template_size: 10,
            ..Limits::default()
        };
        let e = parse("heat_template_version: 2013-05-23\n", &limits).unwrap_err();
        assert_eq!(e.class, ErrorClass::RequestLimitExceeded);
    }

    #[test]
    fn depth_limit() {
        let limits = Limits {
            max_depth: 20,
            ..Limits::default()
        };
        let deep = format!(
            "heat_template_version: 2013-05-23\nx: {}{}\n",
            "[".repeat(50),
            "]".repeat(50)
        );
        let e = parse(&deep, &limits).unwrap_err();
        assert_eq!(e.class, ErrorClass::Limit);
    }
}
