//! PyYAML-compatible YAML for Murano: loading exactly as Murano's engine,
//! the Murano dashboard and Murano's manifest reader do it, and emitting
//! exactly as PyYAML's dumper writes Murano's generated files.
//!
//! Murano reads YAML with PyYAML's pure-Python safe loader (YAML 1.1), and
//! its loaders add one rule: a plain scalar is a YAQL expression when it is
//! not just words, digits, dots and spaces and it parses (see
//! [`expression`]); a `!yaql` tag forces it. This crate is a
//! PyYAML-compatible reader, scanner, parser, composer and safe constructor
//! written for that purpose: the same YAML 1.1 scalar types, the same
//! errors at the same marks, and every node with its start and end.
//!
//! What it holds:
//! - loading: [`load_class_file`], [`load_ui_file`], [`load_manifest`],
//!   [`load_all`], [`load_single`] with [`LoadOptions`] limits, giving
//!   [`Node`]s of [`Value`]s with [`Mark`]s, or a [`YamlError`];
//! - [`plain`]: a fast path for plain documents (no anchors, aliases,
//!   tags or merge keys), built straight into the caller's tree, giving
//!   up to [`load_single`] for anything else;
//! - [`expression`]: the one rule deciding which plain scalars are YAQL;
//! - [`convert`]: the one conversion of YAML nodes to YAQL values, and of
//!   YAQL values to and from JSON;
//! - [`emit`]: PyYAML's dumper output for generated trees;
//! - [`py_text`]: Python's string rules (`repr()`, `isspace()`,
//!   `isdigit()`, `\w`, `strip()`) that Murano's messages and checks use.
//!
//! # Why this crate depends on `murano-yaql`
//! Deciding whether a plain scalar is YAQL means parsing it with the
//! engine's (or the dashboard's) grammar, and a loaded YAQL scalar carries
//! its parsed expression so that nobody parses it twice. A resolver hook
//! (as saphyr's loader takes a node type) would keep the grammar out, but
//! every user of this crate needs exactly Murano's rule, and the hook
//! would split that rule between two crates again. So the rule lives here,
//! once, on top of `murano-yaql`'s parser.
//!
//! ```
//! use murano_yaml::{load_class_file, LoadOptions, Value};
//!
//! let text = b"Name: Foo\nProperties:\n  port:\n    Contract: $.int().notNull()\n    Default: 0x50\n";
//! let loaded = load_class_file(text, &LoadOptions::default())?;
//! let doc = &loaded.documents[0];
//! let port = doc.value.get("Properties").unwrap().value.get("port").unwrap();
//! let Value::Yaql(contract) = &port.value.get("Contract").unwrap().value else { panic!() };
//! assert_eq!(contract.expression.to_string(), "#operator_.(#operator_.($, int()), notNull())");
//! assert_eq!(port.value.get("Default").unwrap().value, Value::Int(murano_yaml::Int::Small(80)));
//! # Ok::<(), murano_yaml::YamlError>(())
//! ```
//!
//! # Features
//! - `serde`: `serde::Serialize` on nodes, values and marks; YAQL scalars
//!   serialize as their text, dates and timestamps as ISO 8601.

#![forbid(unsafe_code)]

pub mod base64;
mod compose;
mod construct;
pub mod convert;
pub mod emit;
mod error;
pub mod expression;
mod parser;
pub mod plain;
pub mod py_text;
mod reader;
mod scanner;
#[cfg(feature = "serde")]
mod serde_impls;
mod value;

pub use error::{Mark, YamlError, YamlErrorClass};
pub use scanner::ScalarStyle;
pub use value::{Date, Int, Node, Timestamp, Value, YaqlScalar};

/// Which of Murano's loaders to imitate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Flavor {
    /// The engine's class-file loader: YAQL detected with the engine
    /// grammar; `!yaql` supported.
    Engine,
    /// The dashboard's UI-file loader: YAQL detected with yaql's standard
    /// grammar and a regex that also accepts `:`; `!yaql` supported.
    Dashboard,
    /// `yaml.safe_load`, as Murano reads manifests: no YAQL at all (a
    /// `!yaql` tag is an unknown tag).
    Plain,
}

impl Flavor {
    fn has_yaql(self) -> bool {
        self != Flavor::Plain
    }

    /// The first half of the implicit YAQL resolver: false when the plain
    /// scalar cannot be YAQL (no YAQL in this flavor, or only words).
    fn may_be_expression(self, text: &str) -> bool {
        match self {
            Flavor::Engine => !expression::is_plain_words(text),
            Flavor::Dashboard => !expression::is_dashboard_plain_words(text),
            Flavor::Plain => false,
        }
    }

    /// The second half: `Some` when the candidate parses.
    fn parse_candidate(self, text: &str) -> Result<Option<murano_yaql::Expression>, YamlError> {
        let grammar = match self {
            Flavor::Dashboard => expression::dashboard_grammar(),
            _ => expression::engine_grammar(),
        };
        match grammar.parse(text) {
            Ok(parsed) => Ok(Some(parsed)),
            Err(e) if e.class().is_yaql_parsing_error() => Ok(None),
            Err(e) => Err(yaql_error(&e)),
        }
    }

    /// The `!yaql` constructor: the text must parse.
    fn parse_expression(self, text: &str) -> Result<murano_yaql::Expression, YamlError> {
        let grammar = match self {
            Flavor::Dashboard => expression::dashboard_grammar(),
            _ => expression::engine_grammar(),
        };
        grammar.parse(text).map_err(|e| yaql_error(&e))
    }
}

fn yaql_error(e: &murano_yaql::ParseError) -> YamlError {
    YamlError::new(YamlErrorClass::Yaql(e.class()), e.to_string(), None)
}

/// Limits for untrusted YAML.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Deepest nesting of collections. Default 256.
    pub max_depth: u32,
    /// Most nodes in the text, and most values one document may expand to
    /// through aliases ("billion laughs"). Default 1,000,000.
    pub max_nodes: usize,
    /// Longest input in bytes. Default 16 MiB. Inputs over
    /// [`MAX_INPUT_LEN`] (2 GiB) are refused whatever this says, since
    /// [`Mark`] positions are 32-bit.
    pub max_len: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            max_depth: 256,
            max_nodes: 1_000_000,
            max_len: 16 << 20,
        }
    }
}

impl LoadOptions {
    /// Sets [`LoadOptions::max_depth`].
    pub fn with_max_depth(mut self, max_depth: u32) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Sets [`LoadOptions::max_nodes`].
    pub fn with_max_nodes(mut self, max_nodes: usize) -> Self {
        self.max_nodes = max_nodes;
        self
    }

    /// Sets [`LoadOptions::max_len`].
    pub fn with_max_len(mut self, max_len: usize) -> Self {
        self.max_len = max_len;
        self
    }
}

/// The longest input any load accepts: [`Mark`] fields are `u32`, which
/// keeps nodes small; a margin below `u32::MAX` leaves room for the end
/// marks.
pub const MAX_INPUT_LEN: usize = i32::MAX as usize;

fn check_len(len: usize, options: &LoadOptions) -> Result<(), YamlError> {
    let max_len = options.max_len.min(MAX_INPUT_LEN);
    if len > max_len {
        return Err(YamlError::new(
            YamlErrorClass::Limit,
            format!("input longer than {max_len} bytes"),
            None,
        ));
    }
    Ok(())
}

fn composer<'a>(text: &'a str, flavor: Flavor, options: &LoadOptions) -> compose::Composer<'a> {
    compose::Composer::new(
        parser::Parser::new(scanner::Scanner::new(text)),
        flavor,
        options,
        text.len(),
    )
}

/// Constructs the document composed at `root`.
fn construct_document(
    composer: &mut compose::Composer<'_>,
    root: usize,
    flavor: Flavor,
    options: &LoadOptions,
) -> Result<Node, YamlError> {
    let mut constructor = construct::Constructor::new(
        (
            &mut composer.nodes,
            &composer.item_arena,
            &mut composer.pair_arena,
        ),
        flavor,
        options.max_nodes,
    );
    constructor.construct(root)
}

/// Every key written twice in one mapping, in any document of the stream:
/// the key as Python's `str()` prints it, and where the second one starts.
/// PyYAML (and so Murano) keeps the last value silently; linters warn.
///
/// ```
/// use murano_yaml::{duplicate_keys, Flavor, LoadOptions};
/// let found = duplicate_keys(b"a: 1\nb: 2\na: 3\n", Flavor::Plain, &LoadOptions::default()).unwrap();
/// assert_eq!(found.len(), 1);
/// assert_eq!((found[0].0.as_str(), found[0].1.line), ("a", 2));
/// ```
pub fn duplicate_keys(
    bytes: &[u8],
    flavor: Flavor,
    options: &LoadOptions,
) -> Result<Vec<(String, Mark)>, YamlError> {
    Ok(duplicate_key_positions(bytes, flavor, options)?
        .into_iter()
        .map(|d| (d.key, d.second))
        .collect())
}

/// A key written twice in one mapping: the loaded value is the second's
/// (the key node kept is the first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The key as Python's `str()` prints it.
    pub key: String,
    /// Where the key is first written.
    pub first: Mark,
    /// Where it is written again (whose value wins).
    pub second: Mark,
}

/// Every key written twice in one mapping, with both positions (see
/// [`duplicate_keys`]). Loading is not changed by this: it is the same
/// construction, only the duplicates are kept.
///
/// ```
/// use murano_yaml::{duplicate_key_positions, Flavor, LoadOptions};
/// let found = duplicate_key_positions(b"a: 1\nb: 2\na: 3\n", Flavor::Plain, &LoadOptions::default()).unwrap();
/// assert_eq!((found[0].first.line, found[0].second.line), (0, 2));
/// ```
pub fn duplicate_key_positions(
    bytes: &[u8],
    flavor: Flavor,
    options: &LoadOptions,
) -> Result<Vec<DuplicateKey>, YamlError> {
    check_len(bytes.len(), options)?;
    let text = reader::decode(bytes)?;
    let mut composer = composer(&text, flavor, options);
    composer.start()?;
    let mut found = Vec::new();
    while !composer.at_stream_end()? {
        let root = composer.document()?;
        let mut constructor = construct::Constructor::new(
            (
                &mut composer.nodes,
                &composer.item_arena,
                &mut composer.pair_arena,
            ),
            flavor,
            options.max_nodes,
        );
        constructor.construct(root)?;
        found.extend(
            constructor
                .duplicates
                .drain(..)
                .map(|(key, first, second)| DuplicateKey { key, first, second }),
        );
    }
    Ok(found)
}

/// Every document of a stream (`yaml.load_all`), empty ones as null.
pub fn load_all(
    bytes: &[u8],
    flavor: Flavor,
    options: &LoadOptions,
) -> Result<Vec<Node>, YamlError> {
    check_len(bytes.len(), options)?;
    let text = reader::decode(bytes)?;
    load_all_text(&text, flavor, options)
}

fn load_all_text(
    text: &str,
    flavor: Flavor,
    options: &LoadOptions,
) -> Result<Vec<Node>, YamlError> {
    let mut composer = composer(text, flavor, options);
    composer.start()?;
    let mut documents = Vec::new();
    while !composer.at_stream_end()? {
        let root = composer.document()?;
        documents.push(construct_document(&mut composer, root, flavor, options)?);
    }
    Ok(documents)
}

/// The one document of a stream (`yaml.load`): `None` for an empty stream;
/// a `ComposerError` when there is more than one document.
pub fn load_single(
    bytes: &[u8],
    flavor: Flavor,
    options: &LoadOptions,
) -> Result<Option<Node>, YamlError> {
    check_len(bytes.len(), options)?;
    let text = reader::decode(bytes)?;
    load_single_text(&text, flavor, options)
}

fn load_single_text(
    text: &str,
    flavor: Flavor,
    options: &LoadOptions,
) -> Result<Option<Node>, YamlError> {
    let mut composer = composer(text, flavor, options);
    composer.start()?;
    if composer.at_stream_end()? {
        return Ok(None);
    }
    let root = composer.document()?;
    if !composer.at_stream_end()? {
        let first = composer.nodes[root].start;
        let mark = composer.next_start()?;
        return Err(YamlError::new(
            YamlErrorClass::Composer,
            "but found another document",
            Some(mark),
        )
        .with_context("expected a single document in the stream", Some(first)));
    }
    Ok(Some(construct_document(
        &mut composer,
        root,
        flavor,
        options,
    )?))
}

/// A class file as Murano's engine loads it.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassFile {
    /// The documents Murano keeps: the truthy ones, in order.
    pub documents: Vec<Node>,
    /// How many falsy documents (empty, null, `{}`, `[]`, `''`, `0`,
    /// `false`) were dropped.
    pub dropped: usize,
}

/// Loads a class file from its bytes as Murano's engine does (all
/// documents, falsy ones dropped).
pub fn load_class_file(bytes: &[u8], options: &LoadOptions) -> Result<ClassFile, YamlError> {
    let all = load_all(bytes, Flavor::Engine, options)?;
    let total = all.len();
    let documents: Vec<Node> = all.into_iter().filter(|d| d.value.is_truthy()).collect();
    Ok(ClassFile {
        dropped: total - documents.len(),
        documents,
    })
}

/// Loads a UI definition from its bytes as the dashboard does (exactly one
/// document; `None` for an empty file).
pub fn load_ui_file(bytes: &[u8], options: &LoadOptions) -> Result<Option<Node>, YamlError> {
    load_single(bytes, Flavor::Dashboard, options)
}

/// Loads a manifest from its text as Murano does (`yaml.safe_load` of the
/// decoded text).
pub fn load_manifest(text: &str, options: &LoadOptions) -> Result<Option<Node>, YamlError> {
    check_len(text.len(), options)?;
    let text = reader::from_str(text)?;
    load_single_text(text, Flavor::Plain, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_over_the_mark_range_are_refused_whatever_max_len_says() {
        let options = LoadOptions::default().with_max_len(usize::MAX);
        assert!(check_len(MAX_INPUT_LEN, &options).is_ok());
        let err = check_len(MAX_INPUT_LEN + 1, &options).unwrap_err();
        assert_eq!(err.class(), YamlErrorClass::Limit);
        let smaller = LoadOptions::default().with_max_len(10);
        assert!(check_len(11, &smaller).is_err());
    }
}
