//! The second half of the plain fast path: plain documents built from the
//! scanner's tokens, read as PyYAML's parser reads them.

use std::borrow::Cow;

use super::{scalar, Assembly, PlainLoad, PlainScalar, PlainTree};
use crate::compose::{implicit_tag, Tag};
use crate::error::Mark;
use crate::scanner::{ScalarStyle, Scanner, TokenKind};

/// Builds `text` (already checked for length and characters).
pub(super) fn load<T: PlainTree>(text: &str, out: Assembly<T>) -> PlainLoad<T> {
    let mut builder = Builder {
        scanner: Scanner::new(text),
        next: None,
        out,
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
    out: Assembly<T>,
}

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
                    Kind::DocumentStart | Kind::DocumentEnd | Kind::StreamEnd => {
                        self.out.empty(0)?
                    }
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
        self.out.enter(depth)?;
        match self.scalar_token()? {
            (text, None, _) => Some(T::scalar(PlainScalar::Str(text.into_owned()))),
            _ => None,
        }
    }

    /// PyYAML's `parse_node` (without properties).
    fn node(&mut self, depth: u32, block: bool, indentless: bool) -> Option<T> {
        let kind = self.peek()?;
        self.out.enter(depth)?;
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
        let first = self.out.items.len();
        while self.peek()? == Kind::BlockEntry {
            self.skip()?;
            let item = match self.peek()? {
                Kind::BlockEntry | Kind::BlockEnd => self.out.empty(depth + 1)?,
                _ => self.node(depth + 1, true, false)?,
            };
            self.out.items.push(item);
        }
        if self.peek()? != Kind::BlockEnd {
            return None;
        }
        self.skip()?;
        Some(self.out.sequence(first))
    }

    fn indentless_sequence(&mut self, depth: u32) -> Option<T> {
        let first = self.out.items.len();
        while self.peek()? == Kind::BlockEntry {
            self.skip()?;
            let item = match self.peek()? {
                Kind::BlockEntry | Kind::Key | Kind::Value | Kind::BlockEnd => {
                    self.out.empty(depth + 1)?
                }
                _ => self.node(depth + 1, true, false)?,
            };
            self.out.items.push(item);
        }
        Some(self.out.sequence(first))
    }

    fn block_mapping(&mut self, depth: u32) -> Option<T> {
        let first = self.out.pairs.len();
        let mut index = None;
        while self.peek()? == Kind::Key {
            self.skip()?;
            let key = self.key(depth + 1)?;
            let value = if self.peek()? == Kind::Value {
                self.skip()?;
                match self.peek()? {
                    Kind::Key | Kind::Value | Kind::BlockEnd => self.out.empty(depth + 1)?,
                    _ => self.node(depth + 1, true, true)?,
                }
            } else {
                self.out.empty(depth + 1)?
            };
            self.out.insert(first, &mut index, key, value);
        }
        if self.peek()? != Kind::BlockEnd {
            return None;
        }
        self.skip()?;
        Some(self.out.mapping(first))
    }

    /// Before an entry of a flow collection: nothing before the first, a
    /// `,` before each other.
    fn flow_separator(&mut self, at_start: &mut bool) -> Option<()> {
        if !std::mem::replace(at_start, false) {
            if self.peek()? != Kind::FlowEntry {
                return None;
            }
            self.skip()?;
        }
        Some(())
    }

    fn flow_sequence(&mut self, depth: u32) -> Option<T> {
        let first = self.out.items.len();
        let mut at_start = true;
        while self.peek()? != Kind::FlowSequenceEnd {
            self.flow_separator(&mut at_start)?;
            match self.peek()? {
                // A single-pair mapping (`[a: b]`): the general loader's.
                Kind::Key => return None,
                Kind::FlowSequenceEnd => break,
                _ => {
                    let item = self.node(depth + 1, false, false)?;
                    self.out.items.push(item);
                }
            }
        }
        self.skip()?;
        Some(self.out.sequence(first))
    }

    fn flow_mapping(&mut self, depth: u32) -> Option<T> {
        let first = self.out.pairs.len();
        let mut index = None;
        let mut at_start = true;
        while self.peek()? != Kind::FlowMappingEnd {
            self.flow_separator(&mut at_start)?;
            match self.peek()? {
                Kind::Key => {
                    self.skip()?;
                    let key = self.key(depth + 1)?;
                    let value = if self.peek()? == Kind::Value {
                        self.skip()?;
                        match self.peek()? {
                            Kind::FlowEntry | Kind::FlowMappingEnd => self.out.empty(depth + 1)?,
                            _ => self.node(depth + 1, false, false)?,
                        }
                    } else {
                        self.out.empty(depth + 1)?
                    };
                    self.out.insert(first, &mut index, key, value);
                }
                Kind::FlowMappingEnd => break,
                _ => {
                    let key = self.key(depth + 1)?;
                    let value = self.out.empty(depth + 1)?;
                    self.out.insert(first, &mut index, key, value);
                }
            }
        }
        self.skip()?;
        Some(self.out.mapping(first))
    }
}
