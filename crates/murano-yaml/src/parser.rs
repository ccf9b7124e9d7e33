//! Events from tokens: PyYAML's parser state machine.

use std::borrow::Cow;

use crate::error::{Mark, YamlError, YamlErrorClass};
use crate::py_text;
use crate::scanner::{ScalarStyle, Scanner, TokenKind};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum EventKind<'a> {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias(String),
    Scalar {
        props: Option<Box<Props>>,
        /// PyYAML's `implicit[0]`: plain without a specific tag, so the
        /// implicit resolvers apply.
        plain_implicit: bool,
        value: Cow<'a, str>,
        style: ScalarStyle,
    },
    SequenceStart {
        props: Option<Box<Props>>,
    },
    SequenceEnd,
    MappingStart {
        props: Option<Box<Props>>,
    },
    MappingEnd,
}

/// A node's anchor and tag (boxed: most nodes have neither, and events
/// stay small).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Props {
    pub(crate) anchor: Option<String>,
    pub(crate) tag: Option<String>,
}

impl Props {
    fn boxed(anchor: Option<String>, tag: Option<String>) -> Option<Box<Props>> {
        if anchor.is_none() && tag.is_none() {
            None
        } else {
            Some(Box::new(Props { anchor, tag }))
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Event<'a> {
    pub(crate) kind: EventKind<'a>,
    pub(crate) start: Mark,
    pub(crate) end: Mark,
}

/// What the parser needs to know of a token it has not taken yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Scalar,
    FlowSequenceStart,
    FlowMappingStart,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEntry,
    Key,
    FlowSequenceEnd,
    DocumentEnd,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    StreamStart,
    ImplicitDocumentStart,
    DocumentStart,
    DocumentEnd,
    DocumentContent,
    BlockNode,
    BlockSequenceFirstEntry,
    BlockSequenceEntry,
    IndentlessSequenceEntry,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingValue,
    FlowSequenceFirstEntry,
    FlowSequenceEntry,
    FlowSequenceEntryMappingKey,
    FlowSequenceEntryMappingValue,
    FlowSequenceEntryMappingEnd,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingValue,
    FlowMappingEmptyValue,
    End,
}

pub(crate) struct Parser<'a> {
    scanner: Scanner<'a>,
    state: State,
    states: Vec<State>,
    marks: Vec<Mark>,
    peeked: Option<Event<'a>>,
}

type PResult<T> = Result<T, YamlError>;

fn parser_error(context: Option<(&str, Mark)>, problem: String, mark: Mark) -> YamlError {
    let err = YamlError::new(YamlErrorClass::Parser, problem, Some(mark));
    match context {
        Some((c, m)) => err.with_context(c, Some(m)),
        None => err,
    }
}

impl<'a> Parser<'a> {
    pub(crate) fn new(scanner: Scanner<'a>) -> Parser<'a> {
        Parser {
            scanner,
            state: State::StreamStart,
            states: Vec::new(),
            marks: Vec::new(),
            peeked: None,
        }
    }

    /// The next event without consuming it.
    #[inline]
    pub(crate) fn peek_event(&mut self) -> PResult<&Event<'a>> {
        self.peek_event_mut().map(|event| &*event)
    }

    /// The next event, to take parts of it in place; then
    /// [`Parser::discard_event`] consumes it.
    #[inline]
    pub(crate) fn peek_event_mut(&mut self) -> PResult<&mut Event<'a>> {
        if self.peeked.is_none() {
            self.fill()?;
        }
        match &mut self.peeked {
            Some(event) => Ok(event),
            None => Err(YamlError::new(
                YamlErrorClass::Parser,
                "no more events",
                None,
            )),
        }
    }

    /// Consumes the peeked event.
    #[inline]
    pub(crate) fn discard_event(&mut self) {
        self.peeked = None;
    }

    /// Produces the next event into the peek slot (out of line, so that
    /// peeking at a produced event stays cheap).
    #[inline(never)]
    fn fill(&mut self) -> PResult<()> {
        let event = self.produce()?;
        self.peeked = Some(event);
        Ok(())
    }

    /// Consumes the next event.
    #[inline]
    pub(crate) fn next_event(&mut self) -> PResult<Event<'a>> {
        match self.peeked.take() {
            Some(event) => Ok(event),
            None => self.produce(),
        }
    }

    fn peek_kind(&mut self) -> PResult<&TokenKind<'a>> {
        Ok(&self.scanner.peek_token()?.kind)
    }

    /// The shape of the next token, without copying it. Its marks come
    /// from [`Parser::front_marks`]: returned together, the tuple is built
    /// and read back in pieces of different sizes, which stalls the
    /// processor on every node.
    fn peek_shape(&mut self) -> PResult<Shape> {
        let token = self.scanner.peek_token()?;
        let shape = match token.kind {
            TokenKind::Scalar(..) => Shape::Scalar,
            TokenKind::FlowSequenceStart => Shape::FlowSequenceStart,
            TokenKind::FlowMappingStart => Shape::FlowMappingStart,
            TokenKind::BlockSequenceStart => Shape::BlockSequenceStart,
            TokenKind::BlockMappingStart => Shape::BlockMappingStart,
            TokenKind::BlockEntry => Shape::BlockEntry,
            TokenKind::Key => Shape::Key,
            TokenKind::FlowSequenceEnd => Shape::FlowSequenceEnd,
            TokenKind::DocumentEnd => Shape::DocumentEnd,
            _ => Shape::Other,
        };
        Ok(shape)
    }

    /// The start and end of the token [`Parser::peek_shape`] just saw.
    fn front_marks(&self) -> (Mark, Mark) {
        self.scanner.front_marks()
    }

    #[inline]
    fn check(&mut self, f: impl FnOnce(&TokenKind<'a>) -> bool) -> PResult<bool> {
        Ok(f(self.peek_kind()?))
    }

    fn pop_state(&mut self) -> State {
        self.states.pop().unwrap_or(State::End)
    }

    fn produce(&mut self) -> PResult<Event<'a>> {
        match self.state {
            State::StreamStart => {
                let token = self.scanner.next_token()?;
                self.state = State::ImplicitDocumentStart;
                Ok(event(EventKind::StreamStart, token.start, token.end))
            }
            State::ImplicitDocumentStart => {
                if self.check(|k| {
                    matches!(
                        k,
                        TokenKind::Directive | TokenKind::DocumentStart | TokenKind::StreamEnd
                    )
                })? {
                    self.document_start()
                } else {
                    let mark = self.scanner.peek_token()?.start;
                    self.states.push(State::DocumentEnd);
                    self.state = State::BlockNode;
                    Ok(event(EventKind::DocumentStart, mark, mark))
                }
            }
            State::DocumentStart => self.document_start(),
            State::DocumentEnd => {
                let shape = self.peek_shape()?;
                let (start, _) = self.front_marks();
                let mut end = start;
                if shape == Shape::DocumentEnd {
                    end = self.scanner.next_token()?.end;
                }
                self.state = State::DocumentStart;
                Ok(event(EventKind::DocumentEnd, start, end))
            }
            State::DocumentContent => {
                if self.check(|k| {
                    matches!(
                        k,
                        TokenKind::Directive
                            | TokenKind::DocumentStart
                            | TokenKind::DocumentEnd
                            | TokenKind::StreamEnd
                    )
                })? {
                    let mark = self.scanner.peek_token()?.start;
                    self.state = self.pop_state();
                    Ok(empty_scalar(mark))
                } else {
                    self.node(true, false)
                }
            }
            State::BlockNode => self.node(true, false),
            State::BlockSequenceFirstEntry => {
                let token = self.scanner.next_token()?;
                self.marks.push(token.start);
                self.block_sequence_entry()
            }
            State::BlockSequenceEntry => self.block_sequence_entry(),
            State::IndentlessSequenceEntry => self.indentless_sequence_entry(),
            State::BlockMappingFirstKey => {
                let token = self.scanner.next_token()?;
                self.marks.push(token.start);
                self.block_mapping_key()
            }
            State::BlockMappingKey => self.block_mapping_key(),
            State::BlockMappingValue => self.block_mapping_value(),
            State::FlowSequenceFirstEntry => {
                let token = self.scanner.next_token()?;
                self.marks.push(token.start);
                self.flow_sequence_entry(true)
            }
            State::FlowSequenceEntry => self.flow_sequence_entry(false),
            State::FlowSequenceEntryMappingKey => {
                let token = self.scanner.next_token()?;
                if self.check(|k| {
                    matches!(
                        k,
                        TokenKind::Value | TokenKind::FlowEntry | TokenKind::FlowSequenceEnd
                    )
                })? {
                    self.state = State::FlowSequenceEntryMappingValue;
                    Ok(empty_scalar(token.end))
                } else {
                    self.states.push(State::FlowSequenceEntryMappingValue);
                    self.node(false, false)
                }
            }
            State::FlowSequenceEntryMappingValue => {
                if self.check(|k| matches!(k, TokenKind::Value))? {
                    let token = self.scanner.next_token()?;
                    if self
                        .check(|k| matches!(k, TokenKind::FlowEntry | TokenKind::FlowSequenceEnd))?
                    {
                        self.state = State::FlowSequenceEntryMappingEnd;
                        Ok(empty_scalar(token.end))
                    } else {
                        self.states.push(State::FlowSequenceEntryMappingEnd);
                        self.node(false, false)
                    }
                } else {
                    self.state = State::FlowSequenceEntryMappingEnd;
                    let mark = self.scanner.peek_token()?.start;
                    Ok(empty_scalar(mark))
                }
            }
            State::FlowSequenceEntryMappingEnd => {
                self.state = State::FlowSequenceEntry;
                let mark = self.scanner.peek_token()?.start;
                Ok(event(EventKind::MappingEnd, mark, mark))
            }
            State::FlowMappingFirstKey => {
                let token = self.scanner.next_token()?;
                self.marks.push(token.start);
                self.flow_mapping_key(true)
            }
            State::FlowMappingKey => self.flow_mapping_key(false),
            State::FlowMappingValue => {
                if self.check(|k| matches!(k, TokenKind::Value))? {
                    let token = self.scanner.next_token()?;
                    if self
                        .check(|k| matches!(k, TokenKind::FlowEntry | TokenKind::FlowMappingEnd))?
                    {
                        self.state = State::FlowMappingKey;
                        Ok(empty_scalar(token.end))
                    } else {
                        self.states.push(State::FlowMappingKey);
                        self.node(false, false)
                    }
                } else {
                    self.state = State::FlowMappingKey;
                    let mark = self.scanner.peek_token()?.start;
                    Ok(empty_scalar(mark))
                }
            }
            State::FlowMappingEmptyValue => {
                self.state = State::FlowMappingKey;
                let mark = self.scanner.peek_token()?.start;
                Ok(empty_scalar(mark))
            }
            State::End => Err(YamlError::new(
                YamlErrorClass::Parser,
                "no more events",
                None,
            )),
        }
    }

    fn document_start(&mut self) -> PResult<Event<'a>> {
        while self.check(|k| matches!(k, TokenKind::DocumentEnd))? {
            self.scanner.next_token()?;
        }
        if self.check(|k| matches!(k, TokenKind::StreamEnd))? {
            let token = self.scanner.next_token()?;
            self.state = State::End;
            return Ok(event(EventKind::StreamEnd, token.start, token.end));
        }
        let start = self.scanner.peek_token()?.start;
        // Directives are accepted and ignored: the default tag handles
        // always apply.
        while self.check(|k| matches!(k, TokenKind::Directive))? {
            self.scanner.next_token()?;
        }
        let token = self.scanner.peek_token()?.clone();
        if !matches!(token.kind, TokenKind::DocumentStart) {
            return Err(parser_error(
                None,
                format!(
                    "expected '<document start>', but found {}",
                    quoted_id(token.kind.id())
                ),
                token.start,
            ));
        }
        let token = self.scanner.next_token()?;
        self.states.push(State::DocumentEnd);
        self.state = State::DocumentContent;
        Ok(event(EventKind::DocumentStart, start, token.end))
    }

    fn node(&mut self, block: bool, indentless_sequence: bool) -> PResult<Event<'a>> {
        if let TokenKind::Alias(_) = self.peek_kind()? {
            let token = self.scanner.next_token()?;
            let TokenKind::Alias(name) = token.kind else {
                unreachable!("checked above")
            };
            self.state = self.pop_state();
            return Ok(event(EventKind::Alias(name), token.start, token.end));
        }
        let mut anchor = None;
        let mut tag_parts = None;
        let mut start = None;
        let mut end = None;
        let mut tag_mark = None;
        match self.peek_kind()? {
            TokenKind::Anchor(_) => {
                let token = self.scanner.next_token()?;
                start = Some(token.start);
                end = Some(token.end);
                if let TokenKind::Anchor(name) = token.kind {
                    anchor = Some(name);
                }
                if let TokenKind::Tag(..) = self.peek_kind()? {
                    let token = self.scanner.next_token()?;
                    tag_mark = Some(token.start);
                    end = Some(token.end);
                    if let TokenKind::Tag(parts) = token.kind {
                        let (h, s) = *parts;
                        tag_parts = Some((h, s));
                    }
                }
            }
            TokenKind::Tag(..) => {
                let token = self.scanner.next_token()?;
                start = Some(token.start);
                tag_mark = Some(token.start);
                end = Some(token.end);
                if let TokenKind::Tag(parts) = token.kind {
                    let (h, s) = *parts;
                    tag_parts = Some((h, s));
                }
                if let TokenKind::Anchor(_) = self.peek_kind()? {
                    let token = self.scanner.next_token()?;
                    end = Some(token.end);
                    if let TokenKind::Anchor(name) = token.kind {
                        anchor = Some(name);
                    }
                }
            }
            _ => {}
        }
        let tag = match tag_parts {
            None => None,
            Some((Some(handle), suffix)) => {
                let prefix = match handle.as_str() {
                    "!" => "!",
                    "!!" => "tag:yaml.org,2002:",
                    _ => {
                        return Err(parser_error(
                            Some(("while parsing a node", start.unwrap_or_default())),
                            format!("found undefined tag handle {}", py_text::repr(&handle)),
                            tag_mark.unwrap_or_default(),
                        ))
                    }
                };
                Some(format!("{prefix}{suffix}"))
            }
            Some((None, suffix)) => Some(suffix),
        };
        let shape = self.peek_shape()?;
        let (token_start, token_end) = self.front_marks();
        let start = start.unwrap_or(token_start);
        let mut end = end.unwrap_or(token_start);
        let implicit = tag.is_none() || tag.as_deref() == Some("!");
        let no_tag = tag.is_none();
        let bang_tag = tag.as_deref() == Some("!");
        let has_props = anchor.is_some() || tag.is_some();
        let props = Props::boxed(anchor, tag);
        if indentless_sequence && shape == Shape::BlockEntry {
            end = token_end;
            self.state = State::IndentlessSequenceEntry;
            return Ok(event(EventKind::SequenceStart { props }, start, end));
        }
        match shape {
            Shape::Scalar => {
                let token = self.scanner.next_token()?;
                let TokenKind::Scalar(value, style) = token.kind else {
                    unreachable!("checked above")
                };
                let plain_implicit = (style == ScalarStyle::Plain && no_tag) || bang_tag;
                self.state = self.pop_state();
                Ok(event(
                    EventKind::Scalar {
                        props,
                        plain_implicit,
                        value,
                        style,
                    },
                    start,
                    token.end,
                ))
            }
            Shape::FlowSequenceStart => {
                self.state = State::FlowSequenceFirstEntry;
                Ok(event(EventKind::SequenceStart { props }, start, token_end))
            }
            Shape::FlowMappingStart => {
                self.state = State::FlowMappingFirstKey;
                Ok(event(EventKind::MappingStart { props }, start, token_end))
            }
            Shape::BlockSequenceStart if block => {
                self.state = State::BlockSequenceFirstEntry;
                Ok(event(
                    EventKind::SequenceStart { props },
                    start,
                    token_start,
                ))
            }
            Shape::BlockMappingStart if block => {
                self.state = State::BlockMappingFirstKey;
                Ok(event(EventKind::MappingStart { props }, start, token_start))
            }
            _ if has_props => {
                self.state = self.pop_state();
                Ok(event(
                    EventKind::Scalar {
                        props,
                        plain_implicit: implicit,
                        value: Cow::Borrowed(""),
                        style: ScalarStyle::Plain,
                    },
                    start,
                    end,
                ))
            }
            _ => {
                let what = if block { "block" } else { "flow" };
                let id = self.peek_kind()?.id();
                Err(parser_error(
                    Some((&format!("while parsing a {what} node"), start)),
                    format!("expected the node content, but found {}", quoted_id(id)),
                    token_start,
                ))
            }
        }
    }

    fn block_sequence_entry(&mut self) -> PResult<Event<'a>> {
        if self.check(|k| matches!(k, TokenKind::BlockEntry))? {
            let token = self.scanner.next_token()?;
            if self.check(|k| matches!(k, TokenKind::BlockEntry | TokenKind::BlockEnd))? {
                self.state = State::BlockSequenceEntry;
                return Ok(empty_scalar(token.end));
            }
            self.states.push(State::BlockSequenceEntry);
            return self.node(true, false);
        }
        let token = self.scanner.peek_token()?.clone();
        if !matches!(token.kind, TokenKind::BlockEnd) {
            return Err(parser_error(
                Some(("while parsing a block collection", self.last_mark())),
                format!(
                    "expected <block end>, but found {}",
                    quoted_id(token.kind.id())
                ),
                token.start,
            ));
        }
        let token = self.scanner.next_token()?;
        self.state = self.pop_state();
        self.marks.pop();
        Ok(event(EventKind::SequenceEnd, token.start, token.end))
    }

    fn indentless_sequence_entry(&mut self) -> PResult<Event<'a>> {
        if self.check(|k| matches!(k, TokenKind::BlockEntry))? {
            let token = self.scanner.next_token()?;
            if self.check(|k| {
                matches!(
                    k,
                    TokenKind::BlockEntry | TokenKind::Key | TokenKind::Value | TokenKind::BlockEnd
                )
            })? {
                self.state = State::IndentlessSequenceEntry;
                return Ok(empty_scalar(token.end));
            }
            self.states.push(State::IndentlessSequenceEntry);
            return self.node(true, false);
        }
        let mark = self.scanner.peek_token()?.start;
        self.state = self.pop_state();
        Ok(event(EventKind::SequenceEnd, mark, mark))
    }

    fn block_mapping_key(&mut self) -> PResult<Event<'a>> {
        if self.check(|k| matches!(k, TokenKind::Key))? {
            let token = self.scanner.next_token()?;
            if self
                .check(|k| matches!(k, TokenKind::Key | TokenKind::Value | TokenKind::BlockEnd))?
            {
                self.state = State::BlockMappingValue;
                return Ok(empty_scalar(token.end));
            }
            self.states.push(State::BlockMappingValue);
            return self.node(true, true);
        }
        let token = self.scanner.peek_token()?.clone();
        if !matches!(token.kind, TokenKind::BlockEnd) {
            return Err(parser_error(
                Some(("while parsing a block mapping", self.last_mark())),
                format!(
                    "expected <block end>, but found {}",
                    quoted_id(token.kind.id())
                ),
                token.start,
            ));
        }
        let token = self.scanner.next_token()?;
        self.state = self.pop_state();
        self.marks.pop();
        Ok(event(EventKind::MappingEnd, token.start, token.end))
    }

    fn block_mapping_value(&mut self) -> PResult<Event<'a>> {
        if self.check(|k| matches!(k, TokenKind::Value))? {
            let token = self.scanner.next_token()?;
            if self
                .check(|k| matches!(k, TokenKind::Key | TokenKind::Value | TokenKind::BlockEnd))?
            {
                self.state = State::BlockMappingKey;
                return Ok(empty_scalar(token.end));
            }
            self.states.push(State::BlockMappingKey);
            return self.node(true, true);
        }
        self.state = State::BlockMappingKey;
        let mark = self.scanner.peek_token()?.start;
        Ok(empty_scalar(mark))
    }

    fn flow_sequence_entry(&mut self, first: bool) -> PResult<Event<'a>> {
        if !self.check(|k| matches!(k, TokenKind::FlowSequenceEnd))? {
            if !first {
                if self.check(|k| matches!(k, TokenKind::FlowEntry))? {
                    self.scanner.next_token()?;
                } else {
                    let token = self.scanner.peek_token()?.clone();
                    return Err(parser_error(
                        Some(("while parsing a flow sequence", self.last_mark())),
                        format!(
                            "expected ',' or ']', but got {}",
                            quoted_id(token.kind.id())
                        ),
                        token.start,
                    ));
                }
            }
            let shape = self.peek_shape()?;
            let (token_start, token_end) = self.front_marks();
            if shape == Shape::Key {
                self.state = State::FlowSequenceEntryMappingKey;
                return Ok(event(
                    EventKind::MappingStart { props: None },
                    token_start,
                    token_end,
                ));
            }
            if shape != Shape::FlowSequenceEnd {
                self.states.push(State::FlowSequenceEntry);
                return self.node(false, false);
            }
        }
        let token = self.scanner.next_token()?;
        self.state = self.pop_state();
        self.marks.pop();
        Ok(event(EventKind::SequenceEnd, token.start, token.end))
    }

    fn flow_mapping_key(&mut self, first: bool) -> PResult<Event<'a>> {
        if !self.check(|k| matches!(k, TokenKind::FlowMappingEnd))? {
            if !first {
                if self.check(|k| matches!(k, TokenKind::FlowEntry))? {
                    self.scanner.next_token()?;
                } else {
                    let token = self.scanner.peek_token()?.clone();
                    return Err(parser_error(
                        Some(("while parsing a flow mapping", self.last_mark())),
                        format!(
                            "expected ',' or '}}', but got {}",
                            quoted_id(token.kind.id())
                        ),
                        token.start,
                    ));
                }
            }
            if self.check(|k| matches!(k, TokenKind::Key))? {
                let token = self.scanner.next_token()?;
                if self.check(|k| {
                    matches!(
                        k,
                        TokenKind::Value | TokenKind::FlowEntry | TokenKind::FlowMappingEnd
                    )
                })? {
                    self.state = State::FlowMappingValue;
                    return Ok(empty_scalar(token.end));
                }
                self.states.push(State::FlowMappingValue);
                return self.node(false, false);
            }
            if !self.check(|k| matches!(k, TokenKind::FlowMappingEnd))? {
                self.states.push(State::FlowMappingEmptyValue);
                return self.node(false, false);
            }
        }
        let token = self.scanner.next_token()?;
        self.state = self.pop_state();
        self.marks.pop();
        Ok(event(EventKind::MappingEnd, token.start, token.end))
    }

    fn last_mark(&self) -> Mark {
        self.marks.last().copied().unwrap_or_default()
    }
}

fn event(kind: EventKind<'_>, start: Mark, end: Mark) -> Event<'_> {
    Event { kind, start, end }
}

fn empty_scalar<'a>(mark: Mark) -> Event<'a> {
    event(
        EventKind::Scalar {
            props: None,
            plain_implicit: true,
            value: Cow::Borrowed(""),
            style: ScalarStyle::Plain,
        },
        mark,
        mark,
    )
}

fn quoted_id(id: &str) -> String {
    if id.starts_with('\'') {
        format!("\"{id}\"")
    } else {
        format!("'{id}'")
    }
}
