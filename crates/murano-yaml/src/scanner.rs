//! Tokens, exactly as PyYAML's scanner produces them.
//!
//! YAML 1.1 as PyYAML reads it: `\x85`, `\u2028` and `\u2029` break lines,
//! only spaces indent or separate (a tab cannot start a token), a simple
//! key must fit on one line and in 1024 characters, and a plain scalar
//! ends at `: ` (or, in flow context, at `:` before a flow indicator and at
//! `,?[]{}`). Marks count characters; a byte order mark does not move the
//! column.
//!
//! The scanner reads the decoded text in place: it keeps a byte position
//! beside the mark (which counts characters), and a plain scalar that fits
//! on one line is a slice of the text.

use std::borrow::Cow;
use std::collections::VecDeque;

use crate::error::{Mark, YamlError, YamlErrorClass};

/// How a scalar was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarStyle {
    /// Unquoted: the only style that implicit resolution applies to.
    Plain,
    /// `'…'`.
    SingleQuoted,
    /// `"…"`.
    DoubleQuoted,
    /// `|` block.
    Literal,
    /// `>` block.
    Folded,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TokenKind<'a> {
    StreamStart,
    StreamEnd,
    Directive,
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowMappingStart,
    FlowSequenceEnd,
    FlowMappingEnd,
    Key,
    Value,
    BlockEntry,
    FlowEntry,
    Alias(String),
    Anchor(String),
    /// Handle (`None` for a verbatim `!<…>` or a lone `!`) and suffix
    /// (boxed: tags are rare, and tokens stay small).
    Tag(Box<(Option<String>, String)>),
    Scalar(Cow<'a, str>, ScalarStyle),
}

impl TokenKind<'_> {
    /// PyYAML's token id, used in messages.
    pub(crate) fn id(&self) -> &'static str {
        match self {
            TokenKind::StreamStart => "<stream start>",
            TokenKind::StreamEnd => "<stream end>",
            TokenKind::Directive => "<directive>",
            TokenKind::DocumentStart => "<document start>",
            TokenKind::DocumentEnd => "<document end>",
            TokenKind::BlockSequenceStart => "<block sequence start>",
            TokenKind::BlockMappingStart => "<block mapping start>",
            TokenKind::BlockEnd => "<block end>",
            TokenKind::FlowSequenceStart => "'['",
            TokenKind::FlowMappingStart => "'{'",
            TokenKind::FlowSequenceEnd => "']'",
            TokenKind::FlowMappingEnd => "'}'",
            TokenKind::Key => "?",
            TokenKind::Value => ":",
            TokenKind::BlockEntry => "-",
            TokenKind::FlowEntry => "','",
            TokenKind::Alias(_) => "<alias>",
            TokenKind::Anchor(_) => "<anchor>",
            TokenKind::Tag(..) => "<tag>",
            TokenKind::Scalar(..) => "<scalar>",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token<'a> {
    pub(crate) kind: TokenKind<'a>,
    pub(crate) start: Mark,
    pub(crate) end: Mark,
}

#[derive(Debug, Clone, Copy)]
struct SimpleKey {
    token_number: usize,
    required: bool,
    mark: Mark,
}

const NUL: char = '\0';

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_break_or_nul(c: char) -> bool {
    c == NUL || is_break(c)
}

fn is_blank_or_end(c: char) -> bool {
    c == ' ' || c == '\t' || is_break_or_nul(c)
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// Bytes that may end a piece of plain scalar in block context (`:` only
/// before a blank), or start a character that may (every non-ASCII
/// byte: line breaks beyond ASCII).
static BLOCK_STOPS: [bool; 256] = stop_table(b" \t\r\n:", true);

/// The same in flow context, where the flow indicators end it too.
static FLOW_STOPS: [bool; 256] = stop_table(b" \t\r\n:,?[]{}", true);

/// A table of the bytes in `ascii`, and of every non-ASCII byte when
/// `non_ascii` is set.
pub(crate) const fn stop_table(ascii: &[u8], non_ascii: bool) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0x80;
    while non_ascii && i < 256 {
        table[i] = true;
        i += 1;
    }
    let mut j = 0;
    while j < ascii.len() {
        table[ascii[j] as usize] = true;
        j += 1;
    }
    table
}

/// PyYAML's `check_plain`: whether a plain scalar may start with `c`,
/// followed by a blank, a line break or the end (`next_blank`) or not.
#[inline]
pub(crate) fn plain_may_start(c: char, next_blank: bool, flow: bool) -> bool {
    !(is_blank_or_end(c)
        || matches!(
            c,
            '-' | '?'
                | ':'
                | ','
                | '['
                | ']'
                | '{'
                | '}'
                | '#'
                | '&'
                | '*'
                | '!'
                | '|'
                | '>'
                | '\''
                | '"'
                | '%'
                | '@'
                | '`'
        ))
        || (!next_blank && (c == '-' || (!flow && (c == '?' || c == ':'))))
}

/// Appends a piece to a scalar under construction, borrowing while the
/// scalar is a single piece.
#[inline]
fn append<'a>(chunks: &mut Cow<'a, str>, piece: Cow<'a, str>) {
    if piece.is_empty() {
        return;
    }
    if chunks.is_empty() {
        *chunks = piece;
    } else if let Cow::Owned(text) = chunks {
        text.push_str(&piece);
    } else {
        // A second piece: the scalar spans lines; leave room for more.
        let mut text = String::with_capacity(2 * (chunks.len() + piece.len()));
        text.push_str(chunks);
        text.push_str(&piece);
        *chunks = Cow::Owned(text);
    }
}

pub(crate) struct Scanner<'a> {
    text: &'a str,
    /// Byte offset of `mark.index`.
    pos: usize,
    mark: Mark,
    done: bool,
    flow_level: usize,
    tokens: VecDeque<Token<'a>>,
    tokens_taken: usize,
    indent: isize,
    indents: Vec<isize>,
    allow_simple_key: bool,
    /// One slot per flow level (index 0 = block context).
    possible_simple_keys: Vec<Option<SimpleKey>>,
    /// The character index of the last stale-key check that passed: the
    /// check depends only on the mark and the keys, and a key is saved at
    /// the mark, so it need not run again until the mark moves.
    checked_at: u32,
    /// The front token is final: nothing has been fetched or taken since
    /// `need_more_tokens` last said no.
    ready: bool,
}

type SResult<T> = Result<T, YamlError>;

#[cold]
#[inline(never)]
fn scanner_error(context: Option<(&str, Mark)>, problem: String, mark: Mark) -> YamlError {
    let err = YamlError::new(YamlErrorClass::Scanner, problem, Some(mark));
    match context {
        Some((c, m)) => err.with_context(c, Some(m)),
        None => err,
    }
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(text: &'a str) -> Scanner<'a> {
        let mut scanner = Scanner {
            text,
            pos: 0,
            mark: Mark::default(),
            done: false,
            flow_level: 0,
            tokens: VecDeque::with_capacity(8),
            tokens_taken: 0,
            indent: -1,
            indents: Vec::new(),
            allow_simple_key: true,
            possible_simple_keys: vec![None],
            checked_at: u32::MAX,
            ready: false,
        };
        let mark = scanner.mark;
        scanner.tokens.push_back(Token {
            kind: TokenKind::StreamStart,
            start: mark,
            end: mark,
        });
        scanner
    }

    // ----- reading -----

    /// The character starting at byte `p`; NUL past the end.
    #[inline]
    fn char_at(&self, p: usize) -> char {
        match self.text.as_bytes().get(p) {
            None => NUL,
            Some(&b) if b < 0x80 => char::from(b),
            Some(_) => self
                .text
                .get(p..)
                .and_then(|s| s.chars().next())
                .unwrap_or(NUL),
        }
    }

    /// The byte position of the character after the one at `p`.
    #[inline]
    fn next_pos(&self, p: usize) -> usize {
        match self.text.as_bytes().get(p) {
            None => p + 1,
            Some(&b) if b < 0x80 => p + 1,
            Some(&b) if b >= 0xF0 => p + 4,
            Some(&b) if b >= 0xE0 => p + 3,
            Some(_) => p + 2,
        }
    }

    /// The slice from the current position to byte `end`.
    fn slice_to(&self, end: usize) -> &'a str {
        let text: &'a str = self.text;
        text.get(self.pos..end).unwrap_or("")
    }

    fn peek_at(&self, offset: usize) -> char {
        let mut p = self.pos;
        for _ in 0..offset {
            p = self.next_pos(p);
        }
        self.char_at(p)
    }

    #[inline]
    fn peek(&self) -> char {
        self.char_at(self.pos)
    }

    /// PyYAML's reader ends the text with a NUL; a NUL in the text itself
    /// never gets here (the reader refuses it).
    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    /// The next `length` characters.
    fn prefix(&self, length: usize) -> &'a str {
        let mut p = self.pos;
        for _ in 0..length {
            if p >= self.text.len() {
                break;
            }
            p = self.next_pos(p);
        }
        self.slice_to(p.min(self.text.len()))
    }

    fn forward(&mut self, length: usize) {
        for _ in 0..length {
            let Some(&b) = self.text.as_bytes().get(self.pos) else {
                return;
            };
            self.mark.index += 1;
            if b < 0x80 {
                self.pos += 1;
                if b == b'\n' || (b == b'\r' && self.text.as_bytes().get(self.pos) != Some(&b'\n'))
                {
                    self.mark.line += 1;
                    self.mark.column = 0;
                } else {
                    self.mark.column += 1;
                }
            } else {
                let c = self.char_at(self.pos);
                self.pos += c.len_utf8();
                if matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}') {
                    self.mark.line += 1;
                    self.mark.column = 0;
                } else if c != '\u{FEFF}' {
                    self.mark.column += 1;
                }
            }
        }
    }

    /// Moves to byte `end` (a character boundary after the position).
    fn advance_to(&mut self, end: usize) {
        let Some(span) = self.text.as_bytes().get(self.pos..end) else {
            return;
        };
        if span.iter().all(|&b| b < 0x80 && b != b'\n' && b != b'\r') {
            self.pos = end;
            // Inputs are shorter than 4 GiB (`LoadOptions::max_len`).
            let len = span.len() as u32;
            self.mark.index += len;
            self.mark.column += len;
        } else {
            while self.pos < end {
                self.forward(1);
            }
        }
    }

    /// Moves over `n` spaces known to be there.
    fn forward_spaces(&mut self, n: usize) {
        self.pos += n;
        self.mark.index += n as u32;
        self.mark.column += n as u32;
    }

    /// The number of spaces at the position.
    fn count_spaces(&self) -> usize {
        self.text.as_bytes()[self.pos.min(self.text.len())..]
            .iter()
            .take_while(|&&b| b == b' ')
            .count()
    }

    /// The byte position of the first line break or the end, from `p`.
    fn line_end_from(&self, mut p: usize) -> usize {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(p) {
            if b < 0x80 {
                if b == b'\n' || b == b'\r' {
                    return p;
                }
                p += 1;
            } else {
                if is_break(self.char_at(p)) {
                    return p;
                }
                p = self.next_pos(p);
            }
        }
        bytes.len()
    }

    // ----- the token queue -----

    /// The next token without consuming it.
    #[inline]
    pub(crate) fn peek_token(&mut self) -> SResult<&Token<'a>> {
        if !self.ready {
            self.fill()?;
        }
        match self.tokens.front() {
            Some(token) => Ok(token),
            None => Err(YamlError::new(
                YamlErrorClass::Parser,
                "unexpected end of the token stream",
                Some(self.mark),
            )),
        }
    }

    /// The start and end of the front token (default marks when there is
    /// none, which cannot happen after a successful peek).
    pub(crate) fn front_marks(&self) -> (Mark, Mark) {
        self.tokens
            .front()
            .map(|token| (token.start, token.end))
            .unwrap_or_default()
    }

    /// Scans until the front token is final (the scanning itself, out of
    /// line so that peeking at a ready token stays cheap).
    #[inline(never)]
    fn fill(&mut self) -> SResult<()> {
        while self.need_more_tokens()? {
            self.fetch_more_tokens()?;
        }
        self.ready = true;
        Ok(())
    }

    /// Consumes the next token.
    #[inline]
    pub(crate) fn next_token(&mut self) -> SResult<Token<'a>> {
        self.peek_token()?;
        self.ready = false;
        self.tokens_taken += 1;
        self.tokens.pop_front().ok_or_else(|| {
            YamlError::new(YamlErrorClass::Parser, "no more tokens", Some(self.mark))
        })
    }

    fn need_more_tokens(&mut self) -> SResult<bool> {
        if self.done {
            return Ok(false);
        }
        if self.tokens.is_empty() {
            return Ok(true);
        }
        self.stale_possible_simple_keys()?;
        Ok(self.next_possible_simple_key() == Some(self.tokens_taken))
    }

    fn next_possible_simple_key(&self) -> Option<usize> {
        self.possible_simple_keys
            .iter()
            .flatten()
            .map(|k| k.token_number)
            .min()
    }

    fn push(&mut self, kind: TokenKind<'a>, start: Mark, end: Mark) {
        self.tokens.push_back(Token { kind, start, end });
    }

    fn fetch_more_tokens(&mut self) -> SResult<()> {
        self.ready = false;
        self.scan_to_next_token();
        self.stale_possible_simple_keys()?;
        self.unwind_indent(self.mark.column as isize);
        let c = self.peek();
        if self.at_end() {
            return self.fetch_stream_end();
        }
        match c {
            '%' if self.mark.column == 0 => return self.fetch_directive(),
            '-' if self.check_document_indicator('-') => {
                return self.fetch_document_indicator(TokenKind::DocumentStart)
            }
            '.' if self.check_document_indicator('.') => {
                return self.fetch_document_indicator(TokenKind::DocumentEnd)
            }
            '[' => return self.fetch_flow_collection_start(TokenKind::FlowSequenceStart),
            '{' => return self.fetch_flow_collection_start(TokenKind::FlowMappingStart),
            ']' => return self.fetch_flow_collection_end(TokenKind::FlowSequenceEnd),
            '}' => return self.fetch_flow_collection_end(TokenKind::FlowMappingEnd),
            ',' => return self.fetch_flow_entry(),
            '-' if is_blank_or_end(self.char_at(self.pos + 1)) => return self.fetch_block_entry(),
            '?' if self.flow_level > 0 || is_blank_or_end(self.char_at(self.pos + 1)) => {
                return self.fetch_key()
            }
            ':' if self.flow_level > 0 || is_blank_or_end(self.char_at(self.pos + 1)) => {
                return self.fetch_value()
            }
            '*' => return self.fetch_anchor(true),
            '&' => return self.fetch_anchor(false),
            '!' => return self.fetch_tag(),
            '|' if self.flow_level == 0 => return self.fetch_block_scalar(ScalarStyle::Literal),
            '>' if self.flow_level == 0 => return self.fetch_block_scalar(ScalarStyle::Folded),
            '\'' => return self.fetch_flow_scalar(ScalarStyle::SingleQuoted),
            '"' => return self.fetch_flow_scalar(ScalarStyle::DoubleQuoted),
            _ => {}
        }
        if self.check_plain() {
            return self.fetch_plain();
        }
        Err(scanner_error(
            Some(("while scanning for the next token", self.mark)),
            format!(
                "found character {} that cannot start any token",
                py_repr_char(c)
            ),
            self.mark,
        ))
    }

    fn check_document_indicator(&self, c: char) -> bool {
        let b = c as u8;
        let bytes = self.text.as_bytes();
        self.mark.column == 0
            && bytes.get(self.pos) == Some(&b)
            && bytes.get(self.pos + 1) == Some(&b)
            && bytes.get(self.pos + 2) == Some(&b)
            && is_blank_or_end(self.char_at(self.pos + 3))
    }

    fn check_plain(&self) -> bool {
        plain_may_start(
            self.peek(),
            is_blank_or_end(self.peek_at(1)),
            self.flow_level > 0,
        )
    }

    // ----- simple keys -----

    fn stale_possible_simple_keys(&mut self) -> SResult<()> {
        if self.checked_at == self.mark.index {
            return Ok(());
        }
        for level in 0..self.possible_simple_keys.len() {
            let Some(key) = self.possible_simple_keys[level] else {
                continue;
            };
            if key.mark.line != self.mark.line || self.mark.index - key.mark.index > 1024 {
                if key.required {
                    return Err(scanner_error(
                        Some(("while scanning a simple key", key.mark)),
                        "could not find expected ':'".into(),
                        self.mark,
                    ));
                }
                self.possible_simple_keys[level] = None;
            }
        }
        self.checked_at = self.mark.index;
        Ok(())
    }

    fn save_possible_simple_key(&mut self) -> SResult<()> {
        let required = self.flow_level == 0 && self.indent == self.mark.column as isize;
        if self.allow_simple_key {
            self.remove_possible_simple_key()?;
            let key = SimpleKey {
                token_number: self.tokens_taken + self.tokens.len(),
                required,
                mark: self.mark,
            };
            self.possible_simple_keys[self.flow_level] = Some(key);
        }
        Ok(())
    }

    fn remove_possible_simple_key(&mut self) -> SResult<()> {
        if let Some(key) = self.possible_simple_keys[self.flow_level].take() {
            if key.required {
                return Err(scanner_error(
                    Some(("while scanning a simple key", key.mark)),
                    "could not find expected ':'".into(),
                    self.mark,
                ));
            }
        }
        Ok(())
    }

    // ----- indentation -----

    fn unwind_indent(&mut self, column: isize) {
        if self.flow_level > 0 {
            return;
        }
        while self.indent > column {
            let mark = self.mark;
            self.indent = self.indents.pop().unwrap_or(-1);
            self.push(TokenKind::BlockEnd, mark, mark);
        }
    }

    fn add_indent(&mut self, column: isize) -> bool {
        if self.indent < column {
            self.indents.push(self.indent);
            self.indent = column;
            true
        } else {
            false
        }
    }

    // ----- fetchers -----

    #[inline(never)]
    fn fetch_stream_end(&mut self) -> SResult<()> {
        self.unwind_indent(-1);
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        for slot in &mut self.possible_simple_keys {
            *slot = None;
        }
        let mark = self.mark;
        self.push(TokenKind::StreamEnd, mark, mark);
        self.done = true;
        Ok(())
    }

    #[inline(never)]
    fn fetch_directive(&mut self) -> SResult<()> {
        self.unwind_indent(-1);
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        let start = self.mark;
        // Directives (%YAML, %TAG) are read to the end of the line; the
        // parser only needs to know there was one.
        self.forward(1);
        if !is_word_char(self.peek()) {
            return Err(scanner_error(
                Some(("while scanning a directive", start)),
                format!(
                    "expected alphabetic or numeric character, but found {}",
                    py_repr_char(self.peek())
                ),
                self.mark,
            ));
        }
        let end_pos = self.line_end_from(self.pos);
        self.advance_to(end_pos);
        let end = self.mark;
        self.push(TokenKind::Directive, start, end);
        Ok(())
    }

    #[inline(never)]
    fn fetch_document_indicator(&mut self, kind: TokenKind<'a>) -> SResult<()> {
        self.unwind_indent(-1);
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        let start = self.mark;
        self.forward_spaces(3);
        let end = self.mark;
        self.push(kind, start, end);
        Ok(())
    }

    fn fetch_flow_collection_start(&mut self, kind: TokenKind<'a>) -> SResult<()> {
        self.save_possible_simple_key()?;
        self.flow_level += 1;
        if self.possible_simple_keys.len() <= self.flow_level {
            self.possible_simple_keys.push(None);
        }
        self.possible_simple_keys[self.flow_level] = None;
        self.allow_simple_key = true;
        let start = self.mark;
        self.forward_spaces(1);
        let end = self.mark;
        self.push(kind, start, end);
        Ok(())
    }

    fn fetch_flow_collection_end(&mut self, kind: TokenKind<'a>) -> SResult<()> {
        self.remove_possible_simple_key()?;
        if self.flow_level > 0 {
            self.possible_simple_keys[self.flow_level] = None;
            self.flow_level -= 1;
        }
        self.allow_simple_key = false;
        let start = self.mark;
        self.forward_spaces(1);
        let end = self.mark;
        self.push(kind, start, end);
        Ok(())
    }

    fn fetch_flow_entry(&mut self) -> SResult<()> {
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        let start = self.mark;
        self.forward_spaces(1);
        let end = self.mark;
        self.push(TokenKind::FlowEntry, start, end);
        Ok(())
    }

    fn fetch_block_entry(&mut self) -> SResult<()> {
        if self.flow_level == 0 {
            if !self.allow_simple_key {
                return Err(scanner_error(
                    None,
                    "sequence entries are not allowed here".into(),
                    self.mark,
                ));
            }
            if self.add_indent(self.mark.column as isize) {
                let mark = self.mark;
                self.push(TokenKind::BlockSequenceStart, mark, mark);
            }
        }
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        let start = self.mark;
        self.forward_spaces(1);
        let end = self.mark;
        self.push(TokenKind::BlockEntry, start, end);
        Ok(())
    }

    fn fetch_key(&mut self) -> SResult<()> {
        if self.flow_level == 0 {
            if !self.allow_simple_key {
                return Err(scanner_error(
                    None,
                    "mapping keys are not allowed here".into(),
                    self.mark,
                ));
            }
            if self.add_indent(self.mark.column as isize) {
                let mark = self.mark;
                self.push(TokenKind::BlockMappingStart, mark, mark);
            }
        }
        self.allow_simple_key = self.flow_level == 0;
        self.remove_possible_simple_key()?;
        let start = self.mark;
        self.forward_spaces(1);
        let end = self.mark;
        self.push(TokenKind::Key, start, end);
        Ok(())
    }

    fn fetch_value(&mut self) -> SResult<()> {
        if let Some(key) = self.possible_simple_keys[self.flow_level].take() {
            let at = key.token_number - self.tokens_taken;
            self.tokens.insert(
                at,
                Token {
                    kind: TokenKind::Key,
                    start: key.mark,
                    end: key.mark,
                },
            );
            if self.flow_level == 0 && self.add_indent(key.mark.column as isize) {
                self.tokens.insert(
                    at,
                    Token {
                        kind: TokenKind::BlockMappingStart,
                        start: key.mark,
                        end: key.mark,
                    },
                );
            }
            self.allow_simple_key = false;
        } else {
            if self.flow_level == 0 {
                if !self.allow_simple_key {
                    return Err(scanner_error(
                        None,
                        "mapping values are not allowed here".into(),
                        self.mark,
                    ));
                }
                if self.add_indent(self.mark.column as isize) {
                    let mark = self.mark;
                    self.push(TokenKind::BlockMappingStart, mark, mark);
                }
            }
            self.allow_simple_key = self.flow_level == 0;
            self.remove_possible_simple_key()?;
        }
        let start = self.mark;
        self.forward_spaces(1);
        let end = self.mark;
        self.push(TokenKind::Value, start, end);
        Ok(())
    }

    #[inline(never)]
    fn fetch_anchor(&mut self, alias: bool) -> SResult<()> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let start = self.mark;
        self.forward_spaces(1);
        let length = self.text.as_bytes()[self.pos.min(self.text.len())..]
            .iter()
            .take_while(|&&b| is_word_byte(b))
            .count();
        let name_kind = if alias { "alias" } else { "anchor" };
        if length == 0 {
            return Err(scanner_error(
                Some((&format!("while scanning an {name_kind}"), start)),
                format!(
                    "expected alphabetic or numeric character, but found {}",
                    py_repr_char(self.peek())
                ),
                self.mark,
            ));
        }
        let name = self.slice_to(self.pos + length).to_owned();
        self.forward_spaces(length);
        let c = self.peek();
        if !(is_blank_or_end(c) || matches!(c, '?' | ':' | ',' | ']' | '}' | '%' | '@' | '`')) {
            return Err(scanner_error(
                Some((&format!("while scanning an {name_kind}"), start)),
                format!(
                    "expected alphabetic or numeric character, but found {}",
                    py_repr_char(c)
                ),
                self.mark,
            ));
        }
        let end = self.mark;
        let kind = if alias {
            TokenKind::Alias(name)
        } else {
            TokenKind::Anchor(name)
        };
        self.push(kind, start, end);
        Ok(())
    }

    #[inline(never)]
    fn fetch_tag(&mut self) -> SResult<()> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let start = self.mark;
        let next = self.char_at(self.pos + 1);
        let (handle, suffix);
        if next == '<' {
            self.forward_spaces(2);
            suffix = self.scan_tag_uri("while scanning a tag", start)?;
            if self.peek() != '>' {
                return Err(scanner_error(
                    Some(("while parsing a tag", start)),
                    format!("expected '>', but found {}", py_repr_char(self.peek())),
                    self.mark,
                ));
            }
            self.forward(1);
            handle = None;
        } else if is_blank_or_end(next) {
            self.forward(1);
            handle = None;
            suffix = "!".to_owned();
        } else {
            let mut p = self.pos + 1;
            let mut use_handle = false;
            let mut c = next;
            while !(c == NUL || c == ' ' || is_break(c)) {
                if c == '!' {
                    use_handle = true;
                    break;
                }
                p = self.next_pos(p);
                c = self.char_at(p);
            }
            if use_handle {
                handle = Some(self.scan_tag_handle(start)?);
            } else {
                self.forward(1);
                handle = Some("!".to_owned());
            }
            suffix = self.scan_tag_uri("while scanning a tag", start)?;
        }
        let c = self.peek();
        if !(c == NUL || c == ' ' || is_break(c)) {
            return Err(scanner_error(
                Some(("while scanning a tag", start)),
                format!("expected ' ', but found {}", py_repr_char(c)),
                self.mark,
            ));
        }
        let end = self.mark;
        self.push(TokenKind::Tag(Box::new((handle, suffix))), start, end);
        Ok(())
    }

    fn scan_tag_handle(&mut self, start: Mark) -> SResult<String> {
        // The handle starts with '!' (ASCII), and word characters are ASCII.
        let mut length = 1;
        let mut c = self.char_at(self.pos + 1);
        if c != ' ' {
            while is_word_char(c) {
                length += 1;
                c = self.char_at(self.pos + length);
            }
            if c != '!' {
                self.forward(length);
                return Err(scanner_error(
                    Some(("while scanning a tag", start)),
                    format!("expected '!', but found {}", py_repr_char(c)),
                    self.mark,
                ));
            }
            length += 1;
        }
        let value = self.slice_to(self.pos + length).to_owned();
        self.forward(length);
        Ok(value)
    }

    fn scan_tag_uri(&mut self, context: &str, start: Mark) -> SResult<String> {
        let mut out = String::new();
        loop {
            let c = self.peek();
            if c.is_ascii_alphanumeric() || "-;/?:@&=+$,_.!~*'()[]".contains(c) {
                out.push(c);
                self.forward(1);
            } else if c == '%' {
                out.push_str(&self.scan_uri_escapes(context, start)?);
            } else {
                break;
            }
        }
        if out.is_empty() {
            return Err(scanner_error(
                Some((context, start)),
                format!("expected URI, but found {}", py_repr_char(self.peek())),
                self.mark,
            ));
        }
        Ok(out)
    }

    fn scan_uri_escapes(&mut self, context: &str, start: Mark) -> SResult<String> {
        let mut bytes = Vec::new();
        let mark = self.mark;
        while self.peek() == '%' {
            self.forward(1);
            let hex: String = (0..2).map(|i| self.peek_at(i)).collect();
            match u8::from_str_radix(&hex, 16) {
                Ok(b) if hex.chars().all(|c| c.is_ascii_hexdigit()) => bytes.push(b),
                _ => {
                    return Err(scanner_error(
                        Some((context, start)),
                        format!(
                            "expected URI escape sequence of 2 hexadecimal numbers, but found {}",
                            py_repr_char(self.peek())
                        ),
                        self.mark,
                    ))
                }
            }
            self.forward(2);
        }
        String::from_utf8(bytes)
            .map_err(|e| scanner_error(Some((context, start)), e.to_string(), mark))
    }

    #[inline(never)]
    fn fetch_block_scalar(&mut self, style: ScalarStyle) -> SResult<()> {
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        self.scan_block_scalar(style)
    }

    #[inline(never)]
    fn fetch_flow_scalar(&mut self, style: ScalarStyle) -> SResult<()> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        self.scan_flow_scalar(style)
    }

    fn fetch_plain(&mut self) -> SResult<()> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        self.scan_plain()
    }

    // ----- white space -----

    fn scan_to_next_token(&mut self) {
        if self.pos == 0 && self.peek() == '\u{FEFF}' {
            self.forward(1);
        }
        loop {
            let spaces = self.count_spaces();
            self.forward_spaces(spaces);
            if self.text.as_bytes().get(self.pos) == Some(&b'#') {
                let end = self.line_end_from(self.pos);
                self.advance_to(end);
            }
            if self.scan_line_break().is_some() {
                if self.flow_level == 0 {
                    self.allow_simple_key = true;
                }
            } else {
                break;
            }
        }
    }

    /// Consumes one line break; `\r\n`, `\r`, `\n` and NEL read as `\n`.
    fn scan_line_break(&mut self) -> Option<char> {
        let bytes = self.text.as_bytes();
        match bytes.get(self.pos) {
            Some(b'\n') => {
                self.pos += 1;
                self.mark.index += 1;
                self.mark.line += 1;
                self.mark.column = 0;
                Some('\n')
            }
            Some(b'\r') => {
                if bytes.get(self.pos + 1) == Some(&b'\n') {
                    self.forward(2);
                } else {
                    self.forward(1);
                }
                Some('\n')
            }
            Some(&b) if b >= 0x80 => {
                let c = self.peek();
                match c {
                    '\u{85}' => {
                        self.forward(1);
                        Some('\n')
                    }
                    '\u{2028}' | '\u{2029}' => {
                        self.forward(1);
                        Some(c)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    // ----- plain scalars -----

    /// Scans a plain scalar into the token queue. Scalar scanners push
    /// their token themselves: returned through a `Result`, a token is
    /// written and read back in pieces of different sizes, which stalls
    /// the processor on every scalar.
    fn scan_plain(&mut self) -> SResult<()> {
        let mut chunks: Cow<'a, str> = Cow::Borrowed("");
        let start = self.mark;
        let mut end = self.mark;
        let indent = self.indent + 1;
        let flow = self.flow_level > 0;
        let mut spaces: Cow<'a, str> = Cow::Borrowed("");
        loop {
            if self.peek() == '#' {
                break;
            }
            let (p, ascii) = self.plain_piece_end(flow);
            if p == self.pos {
                break;
            }
            self.allow_simple_key = false;
            if chunks.is_empty() && spaces.is_empty() {
                // The first piece (most scalars have one): borrowed as is.
                chunks = Cow::Borrowed(self.slice_to(p));
            } else {
                append(&mut chunks, std::mem::take(&mut spaces));
                append(&mut chunks, Cow::Borrowed(self.slice_to(p)));
            }
            if ascii {
                // No line break and no byte order mark in the piece.
                self.forward_spaces(p - self.pos);
            } else {
                self.advance_to(p);
            }
            end = self.mark;
            spaces = match self.scan_plain_spaces() {
                Some(s) => s,
                None => break,
            };
            if spaces.is_empty()
                || self.peek() == '#'
                || (!flow && (self.mark.column as isize) < indent)
            {
                break;
            }
        }
        self.tokens.push_back(Token {
            kind: TokenKind::Scalar(chunks, ScalarStyle::Plain),
            start,
            end,
        });
        Ok(())
    }

    /// Where the piece of plain scalar at the position ends (at a blank,
    /// a line break, the end, `: `, or in flow context at `,?[]{}` or `:`
    /// before one of `,[]{}`), and whether the piece is all ASCII.
    fn plain_piece_end(&self, flow: bool) -> (usize, bool) {
        let bytes = self.text.as_bytes();
        let stops = if flow { &FLOW_STOPS } else { &BLOCK_STOPS };
        let mut p = self.pos;
        let mut ascii = true;
        loop {
            while let Some(&b) = bytes.get(p) {
                if stops[usize::from(b)] {
                    break;
                }
                p += 1;
            }
            let Some(&b) = bytes.get(p) else {
                break;
            };
            if b >= 0x80 {
                ascii = false;
                let c = self.char_at(p);
                if is_break(c) {
                    break;
                }
                p += c.len_utf8();
            } else if b == b':' {
                let next = self.char_at(p + 1);
                if is_blank_or_end(next) || (flow && matches!(next, ',' | '[' | ']' | '{' | '}')) {
                    break;
                }
                p += 1;
            } else {
                // A blank, a line break, or a flow indicator in flow context.
                break;
            }
        }
        (p, ascii)
    }

    /// The white space after a piece of plain scalar, folded. `None` when a
    /// document marker follows a line break (the scalar ends there).
    fn scan_plain_spaces(&mut self) -> Option<Cow<'a, str>> {
        let length = self.count_spaces();
        let whitespaces = self.slice_to(self.pos + length);
        self.forward_spaces(length);
        if let Some(line_break) = self.scan_line_break() {
            self.allow_simple_key = true;
            if self.at_document_marker() {
                return None;
            }
            let mut breaks = String::new();
            loop {
                let spaces = self.count_spaces();
                if spaces > 0 {
                    self.forward_spaces(spaces);
                } else if let Some(b) = self.scan_line_break() {
                    breaks.push(b);
                    if self.at_document_marker() {
                        return None;
                    }
                } else {
                    break;
                }
            }
            Some(if line_break != '\n' {
                breaks.insert(0, line_break);
                Cow::Owned(breaks)
            } else if breaks.is_empty() {
                Cow::Borrowed(" ")
            } else {
                Cow::Owned(breaks)
            })
        } else {
            Some(Cow::Borrowed(whitespaces))
        }
    }

    fn at_document_marker(&self) -> bool {
        let rest = &self.text.as_bytes()[self.pos.min(self.text.len())..];
        (rest.starts_with(b"---") || rest.starts_with(b"..."))
            && is_blank_or_end(self.char_at(self.pos + 3))
    }

    // ----- quoted scalars -----

    fn scan_flow_scalar(&mut self, style: ScalarStyle) -> SResult<()> {
        let double = style == ScalarStyle::DoubleQuoted;
        let mut chunks = String::new();
        let start = self.mark;
        let quote = self.peek();
        self.forward(1);
        self.scan_flow_scalar_non_spaces(double, start, &mut chunks)?;
        while self.peek() != quote {
            self.scan_flow_scalar_spaces(start, &mut chunks)?;
            self.scan_flow_scalar_non_spaces(double, start, &mut chunks)?;
        }
        self.forward(1);
        let end = self.mark;
        self.tokens.push_back(Token {
            kind: TokenKind::Scalar(Cow::Owned(chunks), style),
            start,
            end,
        });
        Ok(())
    }

    fn scan_flow_scalar_non_spaces(
        &mut self,
        double: bool,
        start: Mark,
        chunks: &mut String,
    ) -> SResult<()> {
        loop {
            let mut p = self.pos;
            loop {
                let c = self.char_at(p);
                if matches!(c, '\'' | '"' | '\\') || is_blank_or_end(c) {
                    break;
                }
                p = self.next_pos(p);
            }
            if p > self.pos {
                chunks.push_str(self.slice_to(p));
                self.advance_to(p);
            }
            let c = self.peek();
            if !double && c == '\'' && self.char_at(self.pos + 1) == '\'' {
                chunks.push('\'');
                self.forward_spaces(2);
            } else if (double && c == '\'') || (!double && (c == '"' || c == '\\')) {
                chunks.push(c);
                self.forward_spaces(1);
            } else if double && c == '\\' {
                self.forward_spaces(1);
                let e = self.peek();
                if let Some(replacement) = escape_replacement(e) {
                    chunks.push(replacement);
                    self.forward(1);
                } else if let Some(len) = match e {
                    'x' => Some(2),
                    'u' => Some(4),
                    'U' => Some(8),
                    _ => None,
                } {
                    self.forward(1);
                    for i in 0..len {
                        if !self.peek_at(i).is_ascii_hexdigit() {
                            return Err(scanner_error(
                                Some(("while scanning a double-quoted scalar", start)),
                                format!(
                                    "expected escape sequence of {len} hexadecimal numbers, but found {}",
                                    py_repr_char(self.peek_at(i))
                                ),
                                self.mark,
                            ));
                        }
                    }
                    let digits = self.prefix(len);
                    let code = u32::from_str_radix(digits, 16).unwrap_or(u32::MAX);
                    let Some(decoded) = char::from_u32(code) else {
                        return Err(scanner_error(
                            Some(("while scanning a double-quoted scalar", start)),
                            format!("escape \\{e}{digits} is not a character"),
                            self.mark,
                        ));
                    };
                    chunks.push(decoded);
                    self.forward(len);
                } else if is_break(e) {
                    self.scan_line_break();
                    chunks.push_str(&self.scan_flow_scalar_breaks(start)?);
                } else {
                    return Err(scanner_error(
                        Some(("while scanning a double-quoted scalar", start)),
                        format!("found unknown escape character {}", py_repr_char(e)),
                        self.mark,
                    ));
                }
            } else {
                return Ok(());
            }
        }
    }

    fn scan_flow_scalar_spaces(&mut self, start: Mark, chunks: &mut String) -> SResult<()> {
        let length = self.text.as_bytes()[self.pos.min(self.text.len())..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        let whitespaces = self.slice_to(self.pos + length);
        self.forward_spaces(length);
        if self.at_end() {
            return Err(scanner_error(
                Some(("while scanning a quoted scalar", start)),
                "found unexpected end of stream".into(),
                self.mark,
            ));
        }
        if let Some(line_break) = self.scan_line_break() {
            let breaks = self.scan_flow_scalar_breaks(start)?;
            if line_break != '\n' {
                chunks.push(line_break);
            } else if breaks.is_empty() {
                chunks.push(' ');
            }
            chunks.push_str(&breaks);
        } else {
            chunks.push_str(whitespaces);
        }
        Ok(())
    }

    fn scan_flow_scalar_breaks(&mut self, start: Mark) -> SResult<String> {
        let mut chunks = String::new();
        loop {
            if self.at_document_marker() {
                return Err(scanner_error(
                    Some(("while scanning a quoted scalar", start)),
                    "found unexpected document separator".into(),
                    self.mark,
                ));
            }
            while matches!(self.peek(), ' ' | '\t') {
                self.forward_spaces(1);
            }
            match self.scan_line_break() {
                Some(b) => chunks.push(b),
                None => return Ok(chunks),
            }
        }
    }

    // ----- block scalars -----

    fn scan_block_scalar(&mut self, style: ScalarStyle) -> SResult<()> {
        let folded = style == ScalarStyle::Folded;
        let mut chunks = String::new();
        let start = self.mark;
        self.forward(1);
        let (chomping, increment) = self.scan_block_scalar_indicators(start)?;
        self.scan_block_scalar_ignored_line(start)?;
        let min_indent = (self.indent + 1).max(1) as usize;
        let (mut breaks, indent, mut end) = match increment {
            None => {
                let (breaks, max_indent, end) = self.scan_block_scalar_indentation();
                (breaks, min_indent.max(max_indent), end)
            }
            Some(inc) => {
                let indent = (min_indent + inc).saturating_sub(1);
                let (breaks, end) = self.scan_block_scalar_breaks(indent);
                (breaks, indent, end)
            }
        };
        let mut line_break: Option<char> = None;
        while self.mark.column as usize == indent && !self.at_end() {
            chunks.push_str(&breaks);
            let leading_non_space = !matches!(self.peek(), ' ' | '\t');
            let line_end = self.line_end_from(self.pos);
            chunks.push_str(self.slice_to(line_end));
            self.advance_to(line_end);
            line_break = self.scan_line_break();
            let (b, e) = self.scan_block_scalar_breaks(indent);
            breaks = b;
            end = e;
            if self.mark.column as usize == indent && !self.at_end() {
                if folded
                    && line_break == Some('\n')
                    && leading_non_space
                    && !matches!(self.peek(), ' ' | '\t')
                {
                    if breaks.is_empty() {
                        chunks.push(' ');
                    }
                } else if let Some(b) = line_break {
                    chunks.push(b);
                }
            } else {
                break;
            }
        }
        if chomping != Some(false) {
            if let Some(b) = line_break {
                chunks.push(b);
            }
        }
        if chomping == Some(true) {
            chunks.push_str(&breaks);
        }
        self.tokens.push_back(Token {
            kind: TokenKind::Scalar(Cow::Owned(chunks), style),
            start,
            end,
        });
        Ok(())
    }

    /// Chomping (`+` true, `-` false, none) and the indentation digit.
    fn scan_block_scalar_indicators(
        &mut self,
        start: Mark,
    ) -> SResult<(Option<bool>, Option<usize>)> {
        let mut chomping = None;
        let mut increment = None;
        let bad_digit = |s: &Scanner| {
            scanner_error(
                Some(("while scanning a block scalar", start)),
                "expected indentation indicator in the range 1-9, but found 0".into(),
                s.mark,
            )
        };
        let mut c = self.peek();
        if c == '+' || c == '-' {
            chomping = Some(c == '+');
            self.forward(1);
            c = self.peek();
            if let Some(d) = c.to_digit(10) {
                if d == 0 {
                    return Err(bad_digit(self));
                }
                increment = Some(d as usize);
                self.forward(1);
            }
        } else if let Some(d) = c.to_digit(10) {
            if d == 0 {
                return Err(bad_digit(self));
            }
            increment = Some(d as usize);
            self.forward(1);
            c = self.peek();
            if c == '+' || c == '-' {
                chomping = Some(c == '+');
                self.forward(1);
            }
        }
        let c = self.peek();
        if !(c == NUL || c == ' ' || is_break(c)) {
            return Err(scanner_error(
                Some(("while scanning a block scalar", start)),
                format!(
                    "expected chomping or indentation indicators, but found {}",
                    py_repr_char(c)
                ),
                self.mark,
            ));
        }
        Ok((chomping, increment))
    }

    fn scan_block_scalar_ignored_line(&mut self, start: Mark) -> SResult<()> {
        let spaces = self.count_spaces();
        self.forward_spaces(spaces);
        if self.peek() == '#' {
            let end = self.line_end_from(self.pos);
            self.advance_to(end);
        }
        let c = self.peek();
        if !is_break_or_nul(c) {
            return Err(scanner_error(
                Some(("while scanning a block scalar", start)),
                format!(
                    "expected a comment or a line break, but found {}",
                    py_repr_char(c)
                ),
                self.mark,
            ));
        }
        self.scan_line_break();
        Ok(())
    }

    fn scan_block_scalar_indentation(&mut self) -> (String, usize, Mark) {
        let mut chunks = String::new();
        let mut max_indent = 0;
        let mut end = self.mark;
        loop {
            let spaces = self.count_spaces();
            if spaces > 0 {
                self.forward_spaces(spaces);
                max_indent = max_indent.max(self.mark.column as usize);
            } else if let Some(b) = self.scan_line_break() {
                chunks.push(b);
                end = self.mark;
            } else {
                break;
            }
        }
        (chunks, max_indent, end)
    }

    fn scan_block_scalar_breaks(&mut self, indent: usize) -> (String, Mark) {
        let mut chunks = String::new();
        let mut end = self.mark;
        self.skip_indentation(indent);
        while let Some(b) = self.scan_line_break() {
            chunks.push(b);
            end = self.mark;
            self.skip_indentation(indent);
        }
        (chunks, end)
    }

    /// Spaces up to column `indent`.
    fn skip_indentation(&mut self, indent: usize) {
        let room = indent.saturating_sub(self.mark.column as usize);
        let spaces = self.count_spaces().min(room);
        self.forward_spaces(spaces);
    }
}

pub(crate) fn escape_replacement(c: char) -> Option<char> {
    Some(match c {
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        't' | '\t' => '\t',
        'n' => '\n',
        'v' => '\u{b}',
        'f' => '\u{c}',
        'r' => '\r',
        'e' => '\u{1b}',
        ' ' => ' ',
        '"' => '"',
        '/' => '/',
        '\\' => '\\',
        'N' => '\u{85}',
        '_' => '\u{a0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        _ => return None,
    })
}

/// Python's `repr()` of a one-character string, as PyYAML's messages show
/// it.
pub(crate) fn py_repr_char(c: char) -> String {
    match c {
        '\0' => "'\\x00'".into(),
        '\t' => "'\\t'".into(),
        '\n' => "'\\n'".into(),
        '\r' => "'\\r'".into(),
        '\'' => "\"'\"".into(),
        '\\' => "'\\\\'".into(),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => format!("'\\x{:02x}'", c as u32),
        c => format!("'{c}'"),
    }
}
