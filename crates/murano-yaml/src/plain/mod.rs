//! A fast path for the common case of [`crate::load_single`] with
//! [`crate::Flavor::Plain`]: a document without anchors, aliases, tags or
//! merge keys, whose mapping keys are all strings, built straight into the
//! caller's tree.
//!
//! The general loader composes a node graph (aliases may share nodes),
//! constructs [`crate::Node`]s with their marks, and the caller converts
//! those again. For a document that needs none of that, the structure
//! alone carries everything: this module resolves each scalar exactly as
//! the general loader does (the same implicit resolver and the same
//! constructors) and hands the values to a [`PlainTree`]. It has two
//! halves, tried in turn:
//!
//! - [`load_plain_lines`] reads the usual shapes of block YAML (block
//!   mappings and sequences, scalars on one line, literal and folded
//!   block scalars, flow collections) straight from the bytes, line by
//!   line, and gives up on anything else;
//! - [`load_plain_tokens`] builds from the scanner's tokens, as PyYAML's
//!   parser reads them, and takes every plain document.
//!
//! Whenever the document needs anything more, or anything fails (a YAML
//! error, a limit, a value the constructors refuse), each gives up with
//! [`PlainLoad::NeedsFullLoader`] and the general loader gives the exact
//! result or error. So a [`PlainLoad::Document`] is always what the
//! general loader would build.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::compose::Tag;
use crate::construct::{construct_float, construct_int, construct_timestamp};
use crate::error::Mark;
use crate::value::Int;
use crate::{check_len, reader, LoadOptions};

mod lines;
mod tokens;

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
    match load_plain_lines(text, options) {
        PlainLoad::NeedsFullLoader => load_plain_tokens(text, options),
        done => done,
    }
}

/// The first half of [`load_plain`] alone: block YAML of the usual shapes
/// read line by line, [`PlainLoad::NeedsFullLoader`] for anything else
/// (even some plain documents [`load_plain_tokens`] builds).
pub fn load_plain_lines<T: PlainTree>(text: &str, options: &LoadOptions) -> PlainLoad<T> {
    if check_len(text.len(), options).is_err() {
        return PlainLoad::NeedsFullLoader;
    }
    lines::load(text, Assembly::new(options))
}

/// The second half of [`load_plain`] alone: any plain document, built
/// from the scanner's tokens.
pub fn load_plain_tokens<T: PlainTree>(text: &str, options: &LoadOptions) -> PlainLoad<T> {
    if check_len(text.len(), options).is_err() || reader::from_str(text).is_err() {
        return PlainLoad::NeedsFullLoader;
    }
    tokens::load(text, Assembly::new(options))
}

/// Up to this many keys, a mapping finds a repeated key by scanning.
const LINEAR_KEY_SCAN: usize = 16;

/// What both halves share: the limits, counted as the general loader
/// counts them, and the collections under construction.
struct Assembly<T> {
    nodes: usize,
    max_nodes: usize,
    max_depth: u32,
    /// The items of the sequences being built, innermost last: each
    /// sequence moves its own into a vector of the exact size.
    items: Vec<T>,
    /// The same for mappings' pairs.
    pairs: Vec<(T, T)>,
}

impl<T: PlainTree> Assembly<T> {
    fn new(options: &LoadOptions) -> Self {
        Assembly {
            nodes: 0,
            max_nodes: options.max_nodes,
            max_depth: options.max_depth,
            items: Vec::new(),
            pairs: Vec::new(),
        }
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
