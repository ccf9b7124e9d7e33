//! A fast path for the common case of [`crate::load_single`] with
//! [`crate::Flavor::Plain`]: a document without anchors, aliases, tags or
//! merge keys, whose mapping keys are all strings, built straight into the
//! caller's tree from the parser's events.
//!
//! The general loader composes a node graph (aliases may share nodes),
//! constructs [`crate::Node`]s with their marks, and the caller converts
//! those again. For a document that needs none of that, the events carry
//! everything: this module resolves each scalar exactly as the general
//! loader does (the same implicit resolver and the same constructors) and
//! hands the values to a [`PlainTree`]. Whenever the document needs
//! anything more, or anything fails (a YAML error, a limit, a value the
//! constructors refuse), it gives up with [`PlainLoad::NeedsFullLoader`]
//! and the general loader gives the exact result or error. So a
//! [`PlainLoad::Document`] is always what the general loader would build.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::compose::{implicit_tag, Tag};
use crate::construct::{construct_float, construct_int, construct_timestamp};
use crate::error::Mark;
use crate::scanner::{ScalarStyle, Scanner, TokenKind};
use crate::value::Int;
use crate::{check_len, reader, LoadOptions};

/// A scalar of a plain document, resolved and constructed as PyYAML's
/// safe loader does it.
#[derive(Debug, Clone, PartialEq)]
pub enum PlainScalar<'t> {
    /// `null`, `~`, empty.
    Null,
    /// YAML 1.1 booleans.
    Bool(bool),
    /// Integers in every YAML 1.1 form.
    Int(Int),
    /// Floats.
    Float(f64),
    /// Strings.
    Str(String),
    /// A valid date or timestamp, as written in the document (a plain
    /// scalar on one line: its text is its source).
    Timestamp(&'t str),
}

/// A tree that plain YAML loads into (see [`load_plain`]).
pub trait PlainTree: Sized {
    /// A scalar.
    fn scalar(scalar: PlainScalar<'_>) -> Self;
    /// A sequence.
    fn sequence(items: Vec<Self>) -> Self;
    /// A mapping in document order, its keys (each built by
    /// [`PlainTree::scalar`] from a [`PlainScalar::Str`]) unique as a
    /// Python dict makes them: the first key's place, the last value.
    fn mapping(entries: Vec<(Self, Self)>) -> Self;
    /// The text of a key, a tree built by [`PlainTree::scalar`] from a
    /// [`PlainScalar::Str`] (repeated keys are found by it).
    fn key_text(&self) -> &str;
}

/// What [`load_plain`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum PlainLoad<T> {
    /// The single document.
    Document(T),
    /// No document (`load_single` gives `None`).
    Empty,
    /// The text needs the general loader: it uses anchors, aliases, tags,
    /// merge keys or keys that are not strings, or it fails somewhere (an
    /// error, a limit); `load_single` gives the result or the error.
    NeedsFullLoader,
}

/// Loads a single document as [`crate::load_single`] with
/// [`crate::Flavor::Plain`] does, straight into `T`, when the document
/// is plain (see [`PlainLoad`]); the same limits apply.
///
/// ```
/// use murano_yaml::plain::{load_plain, PlainLoad, PlainScalar, PlainTree};
/// use murano_yaml::LoadOptions;
///
/// #[derive(Debug, PartialEq)]
/// enum T { S(String), Other, L(Vec<T>), M(Vec<(T, T)>) }
/// impl PlainTree for T {
///     fn scalar(s: PlainScalar<'_>) -> T {
///         match s { PlainScalar::Str(s) => T::S(s), _ => T::Other }
///     }
///     fn sequence(items: Vec<T>) -> T { T::L(items) }
///     fn mapping(entries: Vec<(T, T)>) -> T { T::M(entries) }
///     fn key_text(&self) -> &str {
///         match self { T::S(s) => s, _ => "" }
///     }
/// }
/// let options = LoadOptions::default();
/// assert_eq!(
///     load_plain::<T>("a: x\na: [y]\n", &options),
///     PlainLoad::Document(T::M(vec![(T::S("a".into()), T::L(vec![T::S("y".into())]))]))
/// );
/// assert_eq!(load_plain::<T>("a: &x 1\n", &options), PlainLoad::NeedsFullLoader);
/// assert_eq!(load_plain::<T>("# nothing\n", &options), PlainLoad::Empty);
/// ```
pub fn load_plain<T: PlainTree>(text: &str, options: &LoadOptions) -> PlainLoad<T> {
    if check_len(text.len(), options).is_err() || reader::from_str(text).is_err() {
        return PlainLoad::NeedsFullLoader;
    }
    let mut builder = Builder {
        scanner: Scanner::new(text),
        next: None,
        nodes: 0,
        max_nodes: options.max_nodes,
        max_depth: options.max_depth,
        items: Vec::new(),
        pairs: Vec::new(),
    };
    builder.stream().unwrap_or(PlainLoad::NeedsFullLoader)
}

/// What the builder needs to know of the next token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Scalar,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowSequenceEnd,
    FlowMappingStart,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    DocumentStart,
    DocumentEnd,
    StreamEnd,
    /// Directives, anchors, aliases and tags: the general loader's.
    Other,
}

/// Reads the tokens the way PyYAML's parser does (the states of
/// `crate::parser`, written as a descent), for the documents it can
/// build; `None` gives up.
struct Builder<'a, T> {
    scanner: Scanner<'a>,
    /// The kind of the front token, once peeked (until it is taken).
    next: Option<Kind>,
    nodes: usize,
    max_nodes: usize,
    max_depth: u32,
    /// The items of the sequences being built, innermost last: each
    /// sequence moves its own into a vector of the exact size.
    items: Vec<T>,
    /// The same for mappings' pairs.
    pairs: Vec<(T, T)>,
}

/// Up to this many keys, a mapping finds a repeated key by scanning.
const LINEAR_KEY_SCAN: usize = 16;

impl<'a, T: PlainTree> Builder<'a, T> {
    #[inline]
    fn peek(&mut self) -> Option<Kind> {
        match self.next {
            Some(kind) => Some(kind),
            None => self.peek_scanner(),
        }
    }

    #[inline(never)]
    fn peek_scanner(&mut self) -> Option<Kind> {
        let kind = match self.scanner.peek_token().ok()?.kind {
            TokenKind::Scalar(..) => Kind::Scalar,
            TokenKind::BlockSequenceStart => Kind::BlockSequenceStart,
            TokenKind::BlockMappingStart => Kind::BlockMappingStart,
            TokenKind::BlockEnd => Kind::BlockEnd,
            TokenKind::FlowSequenceStart => Kind::FlowSequenceStart,
            TokenKind::FlowSequenceEnd => Kind::FlowSequenceEnd,
            TokenKind::FlowMappingStart => Kind::FlowMappingStart,
            TokenKind::FlowMappingEnd => Kind::FlowMappingEnd,
            TokenKind::BlockEntry => Kind::BlockEntry,
            TokenKind::FlowEntry => Kind::FlowEntry,
            TokenKind::Key => Kind::Key,
            TokenKind::Value => Kind::Value,
            TokenKind::DocumentStart => Kind::DocumentStart,
            TokenKind::DocumentEnd => Kind::DocumentEnd,
            TokenKind::StreamEnd => Kind::StreamEnd,
            TokenKind::StreamStart
            | TokenKind::Directive
            | TokenKind::Alias(_)
            | TokenKind::Anchor(_)
            | TokenKind::Tag(_) => Kind::Other,
        };
        self.next = Some(kind);
        Some(kind)
    }

    /// Consumes a token whose kind [`Builder::peek`] gave.
    fn skip(&mut self) -> Option<()> {
        self.next = None;
        self.scanner.next_token().ok().map(drop)
    }

    /// The stream of a single document (or none).
    fn stream(&mut self) -> Option<PlainLoad<T>> {
        self.skip()?; // the stream start
        let root = match self.peek()? {
            Kind::StreamEnd => return Some(PlainLoad::Empty),
            // An explicit document (`---`); with nothing in it, a null.
            Kind::DocumentStart => {
                self.skip()?;
                match self.peek()? {
                    Kind::DocumentStart | Kind::DocumentEnd | Kind::StreamEnd => self.empty(0)?,
                    _ => self.node(0, true, false)?,
                }
            }
            Kind::Other => return None,
            _ => self.node(0, true, false)?,
        };
        // The document's end, then nothing but the stream's end (another
        // document is the general loader's error).
        while self.peek()? == Kind::DocumentEnd {
            self.skip()?;
        }
        (self.peek()? == Kind::StreamEnd).then_some(PlainLoad::Document(root))
    }

    /// Counts a node against the limits (the general loader reports them).
    fn enter(&mut self, depth: u32) -> Option<()> {
        if depth >= self.max_depth || self.nodes >= self.max_nodes {
            return None;
        }
        self.nodes += 1;
        Some(())
    }

    /// An empty node (a missing key or value): a null.
    fn empty(&mut self, depth: u32) -> Option<T> {
        self.enter(depth)?;
        Some(T::scalar(PlainScalar::Null))
    }

    /// The scalar token at the front, its resolved tag and its start.
    fn scalar_token(&mut self) -> Option<(Cow<'a, str>, Option<Tag>, Mark)> {
        self.next = None;
        let token = self.scanner.next_token().ok()?;
        let TokenKind::Scalar(value, style) = token.kind else {
            return None;
        };
        let tag = if style == ScalarStyle::Plain {
            implicit_tag(&value)
        } else {
            None
        };
        Some((value, tag, token.start))
    }

    /// A mapping key: a scalar that is a string.
    fn key(&mut self, depth: u32) -> Option<T> {
        if self.peek()? != Kind::Scalar {
            return None;
        }
        self.enter(depth)?;
        match self.scalar_token()? {
            (text, None, _) => Some(T::scalar(PlainScalar::Str(text.into_owned()))),
            _ => None,
        }
    }

    /// The sequence of the items pushed since `first`.
    fn sequence(&mut self, first: usize) -> T {
        T::sequence(self.items.drain(first..).collect())
    }

    /// Adds a pair to the mapping whose pairs start at `first`, as a
    /// Python dict does: a repeated key keeps its first place and takes
    /// the last value.
    fn insert(
        &mut self,
        first: usize,
        index: &mut Option<HashMap<String, usize>>,
        key: T,
        value: T,
    ) {
        let len = self.pairs.len() - first;
        let existing = if len < LINEAR_KEY_SCAN {
            self.pairs[first..]
                .iter()
                .position(|(k, _)| k.key_text() == key.key_text())
        } else {
            index
                .get_or_insert_with(|| {
                    self.pairs[first..]
                        .iter()
                        .enumerate()
                        .map(|(n, (k, _))| (k.key_text().to_owned(), n))
                        .collect()
                })
                .get(key.key_text())
                .copied()
        };
        match existing {
            Some(n) => self.pairs[first + n].1 = value,
            None => {
                if let Some(index) = index {
                    index.insert(key.key_text().to_owned(), len);
                }
                self.pairs.push((key, value));
            }
        }
    }

    /// The mapping of the pairs pushed since `first`.
    fn mapping(&mut self, first: usize) -> T {
        T::mapping(self.pairs.drain(first..).collect())
    }

    /// PyYAML's `parse_node` (without properties).
    fn node(&mut self, depth: u32, block: bool, indentless: bool) -> Option<T> {
        let kind = self.peek()?;
        self.enter(depth)?;
        match kind {
            Kind::Scalar => {
                let (value, tag, start) = self.scalar_token()?;
                scalar(value, tag, start).map(T::scalar)
            }
            Kind::BlockEntry if indentless => self.indentless_sequence(depth),
            Kind::FlowSequenceStart => {
                self.skip()?;
                self.flow_sequence(depth)
            }
            Kind::FlowMappingStart => {
                self.skip()?;
                self.flow_mapping(depth)
            }
            Kind::BlockSequenceStart if block => {
                self.skip()?;
                self.block_sequence(depth)
            }
            Kind::BlockMappingStart if block => {
                self.skip()?;
                self.block_mapping(depth)
            }
            _ => None,
        }
    }

    fn block_sequence(&mut self, depth: u32) -> Option<T> {
        let first = self.items.len();
        while self.peek()? == Kind::BlockEntry {
            self.skip()?;
            let item = match self.peek()? {
                Kind::BlockEntry | Kind::BlockEnd => self.empty(depth + 1)?,
                _ => self.node(depth + 1, true, false)?,
            };
            self.items.push(item);
        }
        if self.peek()? != Kind::BlockEnd {
            return None;
        }
        self.skip()?;
        Some(self.sequence(first))
    }

    fn indentless_sequence(&mut self, depth: u32) -> Option<T> {
        let first = self.items.len();
        while self.peek()? == Kind::BlockEntry {
            self.skip()?;
            let item = match self.peek()? {
                Kind::BlockEntry | Kind::Key | Kind::Value | Kind::BlockEnd => {
                    self.empty(depth + 1)?
                }
                _ => self.node(depth + 1, true, false)?,
            };
            self.items.push(item);
        }
        Some(self.sequence(first))
    }

    fn block_mapping(&mut self, depth: u32) -> Option<T> {
        let first = self.pairs.len();
        let mut index = None;
        while self.peek()? == Kind::Key {
            self.skip()?;
            let key = self.key(depth + 1)?;
            let value = if self.peek()? == Kind::Value {
                self.skip()?;
                match self.peek()? {
                    Kind::Key | Kind::Value | Kind::BlockEnd => self.empty(depth + 1)?,
                    _ => self.node(depth + 1, true, true)?,
                }
            } else {
                self.empty(depth + 1)?
            };
            self.insert(first, &mut index, key, value);
        }
        if self.peek()? != Kind::BlockEnd {
            return None;
        }
        self.skip()?;
        Some(self.mapping(first))
    }

    fn flow_sequence(&mut self, depth: u32) -> Option<T> {
        let first = self.items.len();
        let mut at_start = true;
        while self.peek()? != Kind::FlowSequenceEnd {
            if !at_start {
                if self.peek()? != Kind::FlowEntry {
                    return None;
                }
                self.skip()?;
            }
            at_start = false;
            match self.peek()? {
                // A single-pair mapping (`[a: b]`): the general loader's.
                Kind::Key => return None,
                Kind::FlowSequenceEnd => break,
                _ => {
                    let item = self.node(depth + 1, false, false)?;
                    self.items.push(item);
                }
            }
        }
        self.skip()?;
        Some(self.sequence(first))
    }

    fn flow_mapping(&mut self, depth: u32) -> Option<T> {
        let first = self.pairs.len();
        let mut index = None;
        let mut at_start = true;
        while self.peek()? != Kind::FlowMappingEnd {
            if !at_start {
                if self.peek()? != Kind::FlowEntry {
                    return None;
                }
                self.skip()?;
            }
            at_start = false;
            match self.peek()? {
                Kind::Key => {
                    self.skip()?;
                    let key = self.key(depth + 1)?;
                    let value = if self.peek()? == Kind::Value {
                        self.skip()?;
                        match self.peek()? {
                            Kind::FlowEntry | Kind::FlowMappingEnd => self.empty(depth + 1)?,
                            _ => self.node(depth + 1, false, false)?,
                        }
                    } else {
                        self.empty(depth + 1)?
                    };
                    self.insert(first, &mut index, key, value);
                }
                Kind::FlowMappingEnd => break,
                _ => {
                    let key = self.key(depth + 1)?;
                    let value = self.empty(depth + 1)?;
                    self.insert(first, &mut index, key, value);
                }
            }
        }
        self.skip()?;
        Some(self.mapping(first))
    }
}

/// A scalar as the safe constructor builds it for `tag` (`None`: a
/// string); `None` for anything it would refuse or that is not plain.
fn scalar(value: Cow<'_, str>, tag: Option<Tag>, start: Mark) -> Option<PlainScalar<'_>> {
    Some(match tag {
        None => PlainScalar::Str(value.into_owned()),
        Some(Tag::Null) => PlainScalar::Null,
        Some(Tag::Bool) => {
            let is = |word: &str| value.eq_ignore_ascii_case(word);
            if is("yes") || is("true") || is("on") {
                PlainScalar::Bool(true)
            } else if is("no") || is("false") || is("off") {
                PlainScalar::Bool(false)
            } else {
                return None;
            }
        }
        Some(Tag::Int) => PlainScalar::Int(construct_int(&value, start).ok()?),
        Some(Tag::Float) => PlainScalar::Float(construct_float(&value, start).ok()?),
        Some(Tag::Timestamp) => {
            construct_timestamp(&value, start).ok()?;
            // A plain scalar on one line is borrowed from the text, and
            // is exactly its source.
            match value {
                Cow::Borrowed(text) => PlainScalar::Timestamp(text),
                Cow::Owned(_) => return None,
            }
        }
        Some(_) => return None,
    })
}
