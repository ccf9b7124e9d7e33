//! Nodes from events (PyYAML's composer), with tags resolved the way the
//! chosen loader resolves them.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use regex::Regex;

use super::error::{Mark, YamlError, YamlErrorClass};
use super::parser::{py_repr_str, EventKind, Parser};
use super::{Flavor, LoadOptions};

pub(crate) const STR: &str = "tag:yaml.org,2002:str";
pub(crate) const SEQ: &str = "tag:yaml.org,2002:seq";
pub(crate) const MAP: &str = "tag:yaml.org,2002:map";
pub(crate) const NULL: &str = "tag:yaml.org,2002:null";
pub(crate) const BOOL: &str = "tag:yaml.org,2002:bool";
pub(crate) const INT: &str = "tag:yaml.org,2002:int";
pub(crate) const FLOAT: &str = "tag:yaml.org,2002:float";
pub(crate) const TIMESTAMP: &str = "tag:yaml.org,2002:timestamp";
pub(crate) const MERGE: &str = "tag:yaml.org,2002:merge";
pub(crate) const VALUE: &str = "tag:yaml.org,2002:value";
pub(crate) const YAQL: &str = "!yaql";

#[derive(Debug, Clone)]
pub(crate) enum RawKind {
    Scalar(String),
    Seq(Vec<usize>),
    Map(Vec<(usize, usize)>),
}

/// A node of the document graph. Aliases point at the same index, so the
/// graph may share nodes and (through recursive aliases) have cycles.
#[derive(Debug, Clone)]
pub(crate) struct RawNode {
    pub(crate) kind: RawKind,
    pub(crate) tag: String,
    pub(crate) start: Mark,
    pub(crate) end: Mark,
    /// The expression, when the implicit YAQL resolver already parsed it.
    pub(crate) parsed: Option<Arc<murano_yaql::Expression>>,
}

pub(crate) struct Composer {
    parser: Parser,
    pub(crate) nodes: Vec<RawNode>,
    anchors: HashMap<String, usize>,
    flavor: Flavor,
    max_depth: u32,
    max_nodes: usize,
}

type CResult<T> = Result<T, YamlError>;

impl Composer {
    pub(crate) fn new(parser: Parser, flavor: Flavor, options: &LoadOptions) -> Composer {
        Composer {
            parser,
            nodes: Vec::new(),
            anchors: HashMap::new(),
            flavor,
            max_depth: options.max_depth,
            max_nodes: options.max_nodes,
        }
    }

    /// Consumes the stream start.
    pub(crate) fn start(&mut self) -> CResult<()> {
        self.parser.next_event()?;
        Ok(())
    }

    /// True at the end of the stream.
    pub(crate) fn at_stream_end(&mut self) -> CResult<bool> {
        Ok(self.parser.peek_event()?.kind == EventKind::StreamEnd)
    }

    /// The next event's start (for "another document" errors).
    pub(crate) fn next_start(&mut self) -> CResult<Mark> {
        Ok(self.parser.next_event()?.start)
    }

    /// Composes one document; returns its root.
    pub(crate) fn document(&mut self) -> CResult<usize> {
        self.parser.next_event()?;
        let root = self.node(0)?;
        self.parser.next_event()?;
        self.anchors.clear();
        Ok(root)
    }

    fn push(&mut self, node: RawNode, mark: Mark) -> CResult<usize> {
        if self.nodes.len() >= self.max_nodes {
            return Err(YamlError::new(
                YamlErrorClass::Limit,
                format!("more than {} nodes", self.max_nodes),
                Some(mark),
            ));
        }
        self.nodes.push(node);
        Ok(self.nodes.len() - 1)
    }

    fn node(&mut self, depth: u32) -> CResult<usize> {
        let event = self.parser.next_event()?;
        if let EventKind::Alias(name) = &event.kind {
            return self.anchors.get(name).copied().ok_or_else(|| {
                YamlError::new(
                    YamlErrorClass::Composer,
                    format!("found undefined alias {}", py_repr_str(name)),
                    Some(event.start),
                )
            });
        }
        if depth >= self.max_depth {
            return Err(YamlError::new(
                YamlErrorClass::Limit,
                format!("nesting deeper than {}", self.max_depth),
                Some(event.start),
            ));
        }
        let anchor = match &event.kind {
            EventKind::Scalar { anchor, .. }
            | EventKind::SequenceStart { anchor, .. }
            | EventKind::MappingStart { anchor, .. } => anchor.clone(),
            _ => None,
        };
        if let Some(name) = &anchor {
            if let Some(&first) = self.anchors.get(name) {
                return Err(YamlError::new(
                    YamlErrorClass::Composer,
                    "second occurrence",
                    Some(event.start),
                )
                .with_context(
                    format!(
                        "found duplicate anchor {}; first occurrence",
                        py_repr_str(name)
                    ),
                    Some(self.nodes[first].start),
                ));
            }
        }
        match event.kind {
            EventKind::Scalar {
                tag,
                plain_implicit,
                value,
                ..
            } => {
                let (tag, parsed) = match tag {
                    Some(tag) if tag != "!" => (tag, None),
                    _ => self.resolve_scalar(&value, plain_implicit)?,
                };
                let node = RawNode {
                    kind: RawKind::Scalar(value),
                    tag,
                    start: event.start,
                    end: event.end,
                    parsed,
                };
                let id = self.push(node, event.start)?;
                if let Some(name) = anchor {
                    self.anchors.insert(name, id);
                }
                Ok(id)
            }
            EventKind::SequenceStart { tag, .. } => {
                let tag = tag.filter(|t| t != "!").unwrap_or_else(|| SEQ.to_owned());
                let node = RawNode {
                    kind: RawKind::Seq(Vec::new()),
                    tag,
                    start: event.start,
                    end: event.start,
                    parsed: None,
                };
                let id = self.push(node, event.start)?;
                if let Some(name) = anchor {
                    self.anchors.insert(name, id);
                }
                let mut items = Vec::new();
                while self.parser.peek_event()?.kind != EventKind::SequenceEnd {
                    items.push(self.node(depth + 1)?);
                }
                let end = self.parser.next_event()?.end;
                self.nodes[id].kind = RawKind::Seq(items);
                self.nodes[id].end = end;
                Ok(id)
            }
            EventKind::MappingStart { tag, .. } => {
                let tag = tag.filter(|t| t != "!").unwrap_or_else(|| MAP.to_owned());
                let node = RawNode {
                    kind: RawKind::Map(Vec::new()),
                    tag,
                    start: event.start,
                    end: event.start,
                    parsed: None,
                };
                let id = self.push(node, event.start)?;
                if let Some(name) = anchor {
                    self.anchors.insert(name, id);
                }
                let mut pairs = Vec::new();
                while self.parser.peek_event()?.kind != EventKind::MappingEnd {
                    let key = self.node(depth + 1)?;
                    let value = self.node(depth + 1)?;
                    pairs.push((key, value));
                }
                let end = self.parser.next_event()?.end;
                self.nodes[id].kind = RawKind::Map(pairs);
                self.nodes[id].end = end;
                Ok(id)
            }
            _ => Err(YamlError::new(
                YamlErrorClass::Composer,
                "expected a node",
                Some(event.start),
            )),
        }
    }

    /// PyYAML's resolver for a scalar without a specific tag: the YAML 1.1
    /// implicit types of the safe loader, in their order for the first
    /// character, then (for Murano's loaders) the YAQL wildcard.
    fn resolve_scalar(
        &self,
        value: &str,
        plain_implicit: bool,
    ) -> CResult<(String, Option<Arc<murano_yaql::Expression>>)> {
        if !plain_implicit {
            return Ok((STR.to_owned(), None));
        }
        if let Some(tag) = implicit_tag(value) {
            return Ok((tag.to_owned(), None));
        }
        if let Some(expression) = self.flavor.detect_expression(value)? {
            return Ok((YAQL.to_owned(), Some(Arc::new(expression))));
        }
        Ok((STR.to_owned(), None))
    }
}

struct Resolvers {
    bool_: Regex,
    float: Regex,
    int: Regex,
    null: Regex,
    timestamp: Regex,
}

fn resolvers() -> &'static Resolvers {
    static RESOLVERS: OnceLock<Resolvers> = OnceLock::new();
    // Python's `$` also matches before a final line break: hence `\n?\z`.
    let re = |body: &str| Regex::new(&format!(r"\A(?:{body})\n?\z")).expect("fixed pattern");
    RESOLVERS.get_or_init(|| Resolvers {
        bool_: re("yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"),
        float: re(concat!(
            r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?",
            r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?",
            r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
            r"|[-+]?\.(?:inf|Inf|INF)",
            r"|\.(?:nan|NaN|NAN)"
        )),
        int: re(concat!(
            r"[-+]?0b[0-1_]+",
            r"|[-+]?0[0-7_]+",
            r"|[-+]?(?:0|[1-9][0-9_]*)",
            r"|[-+]?0x[0-9a-fA-F_]+",
            r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
        )),
        null: re(r"~|null|Null|NULL|"),
        timestamp: re(concat!(
            r"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]",
            r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?",
            r"(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9]",
            r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?"
        )),
    })
}

/// The implicit tag of a plain scalar under PyYAML's safe resolver, or
/// `None` for a string (before Murano's YAQL wildcard).
pub(crate) fn implicit_tag(value: &str) -> Option<&'static str> {
    let r = resolvers();
    let first = value.chars().next();
    match first {
        None => return Some(NULL),
        Some(c) => {
            if "yYnNtTfFoO".contains(c) && r.bool_.is_match(value) {
                return Some(BOOL);
            }
            if "-+0123456789.".contains(c) && r.float.is_match(value) {
                return Some(FLOAT);
            }
            if "-+0123456789".contains(c) && r.int.is_match(value) {
                return Some(INT);
            }
            if c == '<' && (value == "<<" || value == "<<\n") {
                return Some(MERGE);
            }
            if "~nN".contains(c) && r.null.is_match(value) {
                return Some(NULL);
            }
            if c.is_ascii_digit() && r.timestamp.is_match(value) {
                return Some(TIMESTAMP);
            }
            if c == '=' && (value == "=" || value == "=\n") {
                return Some(VALUE);
            }
        }
    }
    None
}
