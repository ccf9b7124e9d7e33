//! Nodes from events (PyYAML's composer), with tags resolved the way the
//! chosen loader resolves them.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use regex::Regex;

use crate::error::{Mark, YamlError, YamlErrorClass};
use crate::parser::{EventKind, Parser, Props};
use crate::py_text;
use crate::{Flavor, LoadOptions};

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

/// The parts of a node's first event the composer keeps.
enum Taken<'a> {
    Alias(String),
    Scalar(Option<Box<Props>>, bool, Cow<'a, str>),
    /// Properties, and whether it is a mapping.
    Collection(Option<Box<Props>>, bool),
    Other,
}

/// A node's tag: the ones the loaders know by name, any other as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tag {
    Str,
    Seq,
    Map,
    Null,
    Bool,
    Int,
    Float,
    Timestamp,
    Merge,
    Value,
    Yaql,
    Other(String),
}

impl Tag {
    /// The tag of a full tag name.
    pub(crate) fn from_name(name: String) -> Tag {
        match name.as_str() {
            STR => Tag::Str,
            SEQ => Tag::Seq,
            MAP => Tag::Map,
            NULL => Tag::Null,
            BOOL => Tag::Bool,
            INT => Tag::Int,
            FLOAT => Tag::Float,
            TIMESTAMP => Tag::Timestamp,
            MERGE => Tag::Merge,
            VALUE => Tag::Value,
            YAQL => Tag::Yaql,
            _ => Tag::Other(name),
        }
    }

    /// The full tag name.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Tag::Str => STR,
            Tag::Seq => SEQ,
            Tag::Map => MAP,
            Tag::Null => NULL,
            Tag::Bool => BOOL,
            Tag::Int => INT,
            Tag::Float => FLOAT,
            Tag::Timestamp => TIMESTAMP,
            Tag::Merge => MERGE,
            Tag::Value => VALUE,
            Tag::Yaql => YAQL,
            Tag::Other(name) => name,
        }
    }
}

/// A run of the composer's item or pair arena.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl Span {
    pub(crate) fn range(self) -> std::ops::Range<usize> {
        self.start..self.start + self.len
    }
}

#[derive(Debug, Clone)]
pub(crate) enum RawKind {
    Scalar(String),
    /// A scalar the implicit YAQL resolver parsed: its text is the source
    /// of [`RawNode::parsed`], kept once instead of twice.
    Expression,
    /// Items in [`Composer::item_arena`].
    Seq(Span),
    /// Key and value pairs in [`Composer::pair_arena`].
    Map(Span),
}

/// A node of the document graph. Aliases point at the same index, so the
/// graph may share nodes and (through recursive aliases) have cycles.
#[derive(Debug, Clone)]
pub(crate) struct RawNode {
    pub(crate) kind: RawKind,
    pub(crate) tag: Tag,
    pub(crate) start: Mark,
    pub(crate) end: Mark,
    /// The expression, when the implicit YAQL resolver already parsed it.
    pub(crate) parsed: Option<Arc<murano_yaql::Expression>>,
    /// The node has an anchor or is inside a node with one: aliases (and
    /// merges of aliased mappings) may reach it more than once. Any other
    /// node is constructed at most once, so its text can be moved out.
    pub(crate) shared: bool,
}

pub(crate) struct Composer<'a> {
    parser: Parser<'a>,
    pub(crate) nodes: Vec<RawNode>,
    /// The items of every sequence, each sequence's in one run.
    pub(crate) item_arena: Vec<usize>,
    /// The pairs of every mapping, each mapping's in one run.
    pub(crate) pair_arena: Vec<(usize, usize)>,
    anchors: HashMap<String, usize>,
    /// How many anchored nodes enclose the node being composed.
    anchored: usize,
    /// Children of the collections being composed, until each collection
    /// ends and its children move to an arena.
    items: Vec<usize>,
    pairs: Vec<(usize, usize)>,
    /// Expressions recently parsed in this text, by their text: the same
    /// text always parses to the same tree (positions are relative to the
    /// text), so a repeated expression shares it. Direct-mapped: a
    /// collision only replaces the slot.
    parsed: [Option<(&'a str, Arc<murano_yaql::Expression>)>; CACHE_SLOTS],
    flavor: Flavor,
    max_depth: u32,
    max_nodes: usize,
}

type CResult<T> = Result<T, YamlError>;

/// The composer's buffers, kept between loads on a thread so that loading
/// many small files does not allocate (and free) them each time.
#[derive(Default)]
struct Buffers {
    nodes: Vec<RawNode>,
    item_arena: Vec<usize>,
    pair_arena: Vec<(usize, usize)>,
    items: Vec<usize>,
    pairs: Vec<(usize, usize)>,
}

/// Buffers larger than this many entries are not kept (a thread keeps
/// at most about a megabyte).
const SPARE_LIMIT: usize = 1 << 13;

thread_local! {
    static SPARE: std::cell::RefCell<Option<Buffers>> = const { std::cell::RefCell::new(None) };
}

impl Drop for Composer<'_> {
    fn drop(&mut self) {
        if self.nodes.capacity() > SPARE_LIMIT
            || self.item_arena.capacity() > SPARE_LIMIT
            || self.pair_arena.capacity() > SPARE_LIMIT
        {
            return;
        }
        let mut buffers = Buffers {
            nodes: std::mem::take(&mut self.nodes),
            item_arena: std::mem::take(&mut self.item_arena),
            pair_arena: std::mem::take(&mut self.pair_arena),
            items: std::mem::take(&mut self.items),
            pairs: std::mem::take(&mut self.pairs),
        };
        buffers.nodes.clear();
        buffers.item_arena.clear();
        buffers.pair_arena.clear();
        buffers.items.clear();
        buffers.pairs.clear();
        // A thread being torn down has no slot any more: drop the buffers.
        let _ = SPARE.try_with(|spare| {
            if let Ok(mut spare) = spare.try_borrow_mut() {
                *spare = Some(buffers);
            }
        });
    }
}

impl<'a> Composer<'a> {
    pub(crate) fn new(
        parser: Parser<'a>,
        flavor: Flavor,
        options: &LoadOptions,
        text_len: usize,
    ) -> Composer<'a> {
        // About one node per one or two dozen bytes of a class file; a
        // large text grows the buffer as it goes.
        let expected_nodes = (text_len / 16 + 16).min(options.max_nodes).min(4096);
        let mut spare = SPARE
            .with(|spare| spare.try_borrow_mut().ok().and_then(|mut s| s.take()))
            .unwrap_or_default();
        spare.nodes.reserve(expected_nodes);
        Composer {
            parser,
            nodes: spare.nodes,
            item_arena: spare.item_arena,
            pair_arena: spare.pair_arena,
            anchors: HashMap::new(),
            anchored: 0,
            items: spare.items,
            pairs: spare.pairs,
            parsed: [const { None }; CACHE_SLOTS],
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
        Ok(matches!(
            self.parser.peek_event()?.kind,
            EventKind::StreamEnd
        ))
    }

    /// The next event's start (for "another document" errors).
    pub(crate) fn next_start(&mut self) -> CResult<Mark> {
        Ok(self.parser.next_event()?.start)
    }

    /// Composes one document; returns its root.
    pub(crate) fn document(&mut self) -> CResult<usize> {
        self.parser.next_event()?;
        self.anchored = 0;
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
        // What the node needs is taken out of the event in place: events
        // are large, and moving them costs more than composing.
        let event = self.parser.peek_event_mut()?;
        let (start, end) = (event.start, event.end);
        let taken = match &mut event.kind {
            EventKind::Alias(name) => Taken::Alias(std::mem::take(name)),
            EventKind::Scalar {
                props,
                plain_implicit,
                value,
                ..
            } => Taken::Scalar(props.take(), *plain_implicit, std::mem::take(value)),
            EventKind::SequenceStart { props } => Taken::Collection(props.take(), false),
            EventKind::MappingStart { props } => Taken::Collection(props.take(), true),
            _ => Taken::Other,
        };
        self.parser.discard_event();
        if let Taken::Alias(name) = &taken {
            return self.anchors.get(name).copied().ok_or_else(|| {
                YamlError::new(
                    YamlErrorClass::Composer,
                    format!("found undefined alias {}", py_text::repr(name)),
                    Some(start),
                )
            });
        }
        if depth >= self.max_depth {
            return Err(YamlError::new(
                YamlErrorClass::Limit,
                format!("nesting deeper than {}", self.max_depth),
                Some(start),
            ));
        }
        let (anchor, tag, is_map) = match taken {
            Taken::Scalar(props, plain_implicit, value) => {
                let (anchor, tag) = props.map_or((None, None), |p| (p.anchor, p.tag));
                self.check_anchor(anchor.as_deref(), start)?;
                let (tag, parsed) = match tag {
                    Some(tag) if tag != "!" => (Tag::from_name(tag), None),
                    _ => {
                        let borrowed = match &value {
                            Cow::Borrowed(text) => Some(*text),
                            Cow::Owned(_) => None,
                        };
                        self.resolve_scalar(&value, borrowed, plain_implicit)?
                    }
                };
                let node = RawNode {
                    kind: if parsed.is_some() {
                        RawKind::Expression
                    } else {
                        RawKind::Scalar(value.into_owned())
                    },
                    tag,
                    start,
                    end,
                    parsed,
                    shared: anchor.is_some() || self.anchored > 0,
                };
                let id = self.push(node, start)?;
                if let Some(name) = anchor {
                    self.anchors.insert(name, id);
                }
                return Ok(id);
            }
            Taken::Collection(props, is_map) => {
                let (anchor, tag) = props.map_or((None, None), |p| (p.anchor, p.tag));
                let default = if is_map { Tag::Map } else { Tag::Seq };
                (
                    anchor,
                    tag.filter(|t| t != "!").map_or(default, Tag::from_name),
                    is_map,
                )
            }
            Taken::Alias(_) | Taken::Other => {
                return Err(YamlError::new(
                    YamlErrorClass::Composer,
                    "expected a node",
                    Some(start),
                ))
            }
        };
        self.check_anchor(anchor.as_deref(), start)?;
        let anchored = anchor.is_some();
        let node = RawNode {
            kind: if is_map {
                RawKind::Map(Span { start: 0, len: 0 })
            } else {
                RawKind::Seq(Span { start: 0, len: 0 })
            },
            tag,
            start,
            end: start,
            parsed: None,
            shared: anchored || self.anchored > 0,
        };
        let id = self.push(node, start)?;
        if let Some(name) = anchor {
            self.anchors.insert(name, id);
        }
        if anchored {
            self.anchored += 1;
        }
        let kind = if is_map {
            let first = self.pairs.len();
            while !matches!(self.parser.peek_event()?.kind, EventKind::MappingEnd) {
                let key = self.node(depth + 1)?;
                let value = self.node(depth + 1)?;
                self.pairs.push((key, value));
            }
            let start = self.pair_arena.len();
            self.pair_arena.extend(self.pairs.drain(first..));
            RawKind::Map(Span {
                start,
                len: self.pair_arena.len() - start,
            })
        } else {
            let first = self.items.len();
            while !matches!(self.parser.peek_event()?.kind, EventKind::SequenceEnd) {
                let item = self.node(depth + 1)?;
                self.items.push(item);
            }
            let start = self.item_arena.len();
            self.item_arena.extend(self.items.drain(first..));
            RawKind::Seq(Span {
                start,
                len: self.item_arena.len() - start,
            })
        };
        if anchored {
            self.anchored -= 1;
        }
        let end = self.parser.next_event()?.end;
        self.nodes[id].kind = kind;
        self.nodes[id].end = end;
        Ok(id)
    }

    /// A second anchor of the same name is an error.
    fn check_anchor(&self, anchor: Option<&str>, start: Mark) -> CResult<()> {
        if let Some(name) = anchor {
            if let Some(&first) = self.anchors.get(name) {
                return Err(YamlError::new(
                    YamlErrorClass::Composer,
                    "second occurrence",
                    Some(start),
                )
                .with_context(
                    format!(
                        "found duplicate anchor {}; first occurrence",
                        py_text::repr(name)
                    ),
                    Some(self.nodes[first].start),
                ));
            }
        }
        Ok(())
    }

    /// PyYAML's resolver for a scalar without a specific tag: the YAML 1.1
    /// implicit types of the safe loader, in their order for the first
    /// character, then (for Murano's loaders) the YAQL wildcard.
    fn resolve_scalar(
        &mut self,
        value: &str,
        borrowed: Option<&'a str>,
        plain_implicit: bool,
    ) -> CResult<(Tag, Option<Arc<murano_yaql::Expression>>)> {
        if !plain_implicit {
            return Ok((Tag::Str, None));
        }
        if let Some(tag) = implicit_tag(value) {
            return Ok((tag, None));
        }
        if !self.flavor.may_be_expression(value) {
            return Ok((Tag::Str, None));
        }
        let slot = match borrowed {
            Some(text) => {
                let slot = cache_slot(text);
                if let Some((known, parsed)) = &self.parsed[slot] {
                    if *known == text {
                        return Ok((Tag::Yaql, Some(Arc::clone(parsed))));
                    }
                }
                Some((slot, text))
            }
            None => None,
        };
        if let Some(expression) = self.flavor.parse_candidate(value)? {
            let expression = Arc::new(expression);
            if let Some((slot, text)) = slot {
                self.parsed[slot] = Some((text, Arc::clone(&expression)));
            }
            return Ok((Tag::Yaql, Some(expression)));
        }
        Ok((Tag::Str, None))
    }
}

const CACHE_SLOTS: usize = 64;

/// The cache slot of an expression's text (FNV-1a).
fn cache_slot(text: &str) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for &b in text.as_bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    (h ^ (h >> 16)) as usize % CACHE_SLOTS
}

struct Resolvers {
    float: Regex,
    int: Regex,
    timestamp: Regex,
}

fn resolvers() -> &'static Resolvers {
    static RESOLVERS: OnceLock<Resolvers> = OnceLock::new();
    // Python's `$` also matches before a final line break: hence `\n?\z`.
    let re = |body: &str| Regex::new(&format!(r"\A(?:{body})\n?\z")).expect("fixed pattern");
    RESOLVERS.get_or_init(|| Resolvers {
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
        timestamp: re(concat!(
            r"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]",
            r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?",
            r"(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9]",
            r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?"
        )),
    })
}

/// The text without one final line break (Python's `$` matches before it).
fn without_final_break(value: &str) -> &str {
    value.strip_suffix('\n').unwrap_or(value)
}

/// `yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF`.
fn is_bool(value: &str) -> bool {
    matches!(
        without_final_break(value),
        "yes"
            | "Yes"
            | "YES"
            | "no"
            | "No"
            | "NO"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
    )
}

/// `~|null|Null|NULL|` (the empty text is handled before).
fn is_null(value: &str) -> bool {
    matches!(
        without_final_break(value),
        "~" | "null" | "Null" | "NULL" | ""
    )
}

/// Only characters the numeric and timestamp patterns can contain (a
/// cheap test before the regexes).
fn may_be_number(value: &str) -> bool {
    without_final_break(value).bytes().all(|b| {
        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.' | b'_' | b':' | b' ' | b'\t')
    })
}

/// The tag of the two shapes most number-like scalars have, decided
/// without the resolver's patterns: a decimal integer without underscores
/// or a leading zero (`8080`, `-1`, `0`: only the int pattern matches it,
/// the float ones all need a `.`) and a `YYYY-MM-DD` date (only the
/// timestamp pattern matches it). `None`: ask the patterns.
fn common_number_shape(value: &str) -> Option<Tag> {
    let bytes = value.as_bytes();
    let digits = match bytes.first() {
        Some(b'-' | b'+') => &bytes[1..],
        _ => bytes,
    };
    if let Some(&first) = digits.first() {
        if digits.iter().all(u8::is_ascii_digit) {
            return (first != b'0' || digits.len() == 1).then_some(Tag::Int);
        }
    }
    crate::construct::ymd(value).map(|_| Tag::Timestamp)
}

/// The float, int or timestamp tag of a scalar starting with a sign, a
/// digit or a dot, by the resolver's patterns in PyYAML's order.
fn number_tag_by_patterns(value: &str) -> Option<Tag> {
    let first = *value.as_bytes().first()?;
    let r = resolvers();
    if r.float.is_match(value) {
        return Some(Tag::Float);
    }
    if first != b'.' && r.int.is_match(value) {
        return Some(Tag::Int);
    }
    if first.is_ascii_digit() && r.timestamp.is_match(value) {
        return Some(Tag::Timestamp);
    }
    None
}

/// The implicit tag of a plain scalar under PyYAML's safe resolver, or
/// `None` for a string (before Murano's YAQL wildcard).
pub(crate) fn implicit_tag(value: &str) -> Option<Tag> {
    let Some(&first) = value.as_bytes().first() else {
        return Some(Tag::Null);
    };
    match first {
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' => {
            if is_bool(value) {
                return Some(Tag::Bool);
            }
            if matches!(first, b'n' | b'N') && is_null(value) {
                return Some(Tag::Null);
            }
        }
        b'-' | b'+' | b'0'..=b'9' | b'.' => {
            if !may_be_number(value) {
                return None;
            }
            return common_number_shape(value).or_else(|| number_tag_by_patterns(value));
        }
        b'<' if value == "<<" || value == "<<\n" => return Some(Tag::Merge),
        b'~' if is_null(value) => return Some(Tag::Null),
        b'=' if value == "=" || value == "=\n" => return Some(Tag::Value),
        _ => {}
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implicit_types_of_the_safe_resolver() {
        for (text, tag) in [
            ("", Some(Tag::Null)),
            ("~", Some(Tag::Null)),
            ("null\n", Some(Tag::Null)),
            ("nul", None),
            ("No", Some(Tag::Bool)),
            ("oN", None),
            ("yes\n", Some(Tag::Bool)),
            ("yes\n\n", None),
            ("1.5", Some(Tag::Float)),
            (".inf", Some(Tag::Float)),
            ("-.5", None),
            ("+12", Some(Tag::Int)),
            ("0x1F", Some(Tag::Int)),
            ("089", None),
            ("1:30", Some(Tag::Int)),
            ("2001-12-14 21:59:43.10 -5", Some(Tag::Timestamp)),
            ("2001-12-14", Some(Tag::Timestamp)),
            ("1.0.0", None),
            ("1e5", None),
            ("<<", Some(Tag::Merge)),
            ("=", Some(Tag::Value)),
            ("$.x", None),
        ] {
            assert_eq!(implicit_tag(text), tag, "{text:?}");
        }
    }

    #[test]
    fn common_number_shapes_agree_with_the_patterns() {
        // Every string of up to six characters over an alphabet of the
        // characters numbers and dates are made of, and dates around the
        // shape: where the shortcut decides, the patterns decide the same.
        let alphabet = b"019-+.:_x";
        let mut decided = 0;
        let mut check = |text: &str| {
            if let Some(tag) = common_number_shape(text) {
                decided += 1;
                assert_eq!(Some(tag), number_tag_by_patterns(text), "{text:?}");
            }
        };
        let mut stack = vec![String::new()];
        while let Some(text) = stack.pop() {
            check(&text);
            if text.len() < 6 {
                for &c in alphabet {
                    stack.push(format!("{text}{}", c as char));
                }
            }
        }
        for text in [
            "2013-05-23",
            "2013-5-23",
            "2013-05-2x",
            "2013-05-233",
            "02013-05-23",
            "2013_05_23",
            "+2013-05-23",
            "2013-05-23T",
            "0000-00-00",
            "9999-99-99",
        ] {
            check(text);
        }
        assert!(decided > 1000, "{decided}");
    }
}
