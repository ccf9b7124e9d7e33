//! Tokens, exactly as PyYAML's scanner produces them.
//!
//! YAML 1.1 as PyYAML reads it: `\x85`, `\u2028` and `\u2029` break lines,
//! only spaces indent or separate (a tab cannot start a token), a simple
//! key must fit on one line and in 1024 characters, and a plain scalar
//! ends at `: ` (or, in flow context, at `:` before a flow indicator and at
//! `,?[]{}`). Marks count characters; a byte order mark does not move the
//! column.

use std::collections::VecDeque;

use super::error::{Mark, YamlError, YamlErrorClass};

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
pub(crate) enum TokenKind {
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
    /// Handle (`None` for a verbatim `!<…>` or a lone `!`) and suffix.
    Tag(Option<String>, String),
    Scalar(String, ScalarStyle),
}

impl TokenKind {
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
pub(crate) struct Token {
    pub(crate) kind: TokenKind,
    pub(crate) start: Mark,
    pub(crate) end: Mark,
}

#[derive(Debug, Clone, Copy)]
struct SimpleKey {
    token_number: usize,
    required: bool,
    index: usize,
    line: usize,
    column: usize,
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

pub(crate) struct Scanner {
    chars: Vec<char>,
    mark: Mark,
    done: bool,
    flow_level: usize,
    tokens: VecDeque<Token>,
    tokens_taken: usize,
    indent: isize,
    indents: Vec<isize>,
    allow_simple_key: bool,
    /// One slot per flow level (index 0 = block context).
    possible_simple_keys: Vec<Option<SimpleKey>>,
}

type SResult<T> = Result<T, YamlError>;

fn scanner_error(context: Option<(&str, Mark)>, problem: String, mark: Mark) -> YamlError {
    let err = YamlError::new(YamlErrorClass::Scanner, problem, Some(mark));
    match context {
        Some((c, m)) => err.with_context(c, Some(m)),
        None => err,
    }
}

impl Scanner {
    pub(crate) fn new(chars: Vec<char>) -> Scanner {
        let mut scanner = Scanner {
            chars,
            mark: Mark::default(),
            done: false,
            flow_level: 0,
            tokens: VecDeque::new(),
            tokens_taken: 0,
            indent: -1,
            indents: Vec::new(),
            allow_simple_key: true,
            possible_simple_keys: vec![None],
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

    fn peek_at(&self, offset: usize) -> char {
        self.chars
            .get(self.mark.index + offset)
            .copied()
            .unwrap_or(NUL)
    }

    fn peek(&self) -> char {
        self.peek_at(0)
    }

    /// PyYAML's reader ends the text with a NUL; a NUL in the text itself
    /// never gets here (the reader refuses it).
    fn at_end(&self) -> bool {
        self.mark.index >= self.chars.len()
    }

    fn prefix(&self, length: usize) -> String {
        let start = self.mark.index.min(self.chars.len());
        let end = (self.mark.index + length).min(self.chars.len());
        self.chars[start..end].iter().collect()
    }

    fn forward(&mut self, length: usize) {
        for _ in 0..length {
            let Some(&c) = self.chars.get(self.mark.index) else {
                return;
            };
            self.mark.index += 1;
            let next = self.chars.get(self.mark.index).copied().unwrap_or(NUL);
            if matches!(c, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}') || (c == '\r' && next != '\n')
            {
                self.mark.line += 1;
                self.mark.column = 0;
            } else if c != '\u{FEFF}' {
                self.mark.column += 1;
            }
        }
    }

    // ----- the token queue -----

    /// The next token without consuming it.
    pub(crate) fn peek_token(&mut self) -> SResult<&Token> {
        while self.need_more_tokens()? {
            self.fetch_more_tokens()?;
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

    /// Consumes the next token.
    pub(crate) fn next_token(&mut self) -> SResult<Token> {
        self.peek_token()?;
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

    fn push(&mut self, kind: TokenKind, start: Mark, end: Mark) {
        self.tokens.push_back(Token { kind, start, end });
    }

    fn fetch_more_tokens(&mut self) -> SResult<()> {
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
            '-' if is_blank_or_end(self.peek_at(1)) => return self.fetch_block_entry(),
            '?' if self.flow_level > 0 || is_blank_or_end(self.peek_at(1)) => {
                return self.fetch_key()
            }
            ':' if self.flow_level > 0 || is_blank_or_end(self.peek_at(1)) => {
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
        self.mark.column == 0
            && self.peek_at(0) == c
            && self.peek_at(1) == c
            && self.peek_at(2) == c
            && is_blank_or_end(self.peek_at(3))
    }

    fn check_plain(&self) -> bool {
        let c = self.peek();
        let next = self.peek_at(1);
        !(is_blank_or_end(c) || "-?:,[]{}#&*!|>'\"%@`".contains(c))
            || (!is_blank_or_end(next)
                && (c == '-' || (self.flow_level == 0 && (c == '?' || c == ':'))))
    }

    // ----- simple keys -----

    fn stale_possible_simple_keys(&mut self) -> SResult<()> {
        for level in 0..self.possible_simple_keys.len() {
            let Some(key) = self.possible_simple_keys[level] else {
                continue;
            };
            if key.line != self.mark.line || self.mark.index - key.index > 1024 {
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
        Ok(())
    }

    fn save_possible_simple_key(&mut self) -> SResult<()> {
        let required = self.flow_level == 0 && self.indent == self.mark.column as isize;
        if self.allow_simple_key {
            self.remove_possible_simple_key()?;
            let key = SimpleKey {
                token_number: self.tokens_taken + self.tokens.len(),
                required,
                index: self.mark.index,
                line: self.mark.line,
                column: self.mark.column,
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

    fn fetch_directive(&mut self) -> SResult<()> {
        self.unwind_indent(-1);
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        let start = self.mark;
        // Directives (%YAML, %TAG) are read to the end of the line; the
        // parser only needs to know there was one.
        self.forward(1);
        let name_len = (0..).take_while(|&i| is_word_char(self.peek_at(i))).count();
        if name_len == 0 {
            return Err(scanner_error(
                Some(("while scanning a directive", start)),
                format!(
                    "expected alphabetic or numeric character, but found {}",
                    py_repr_char(self.peek())
                ),
                self.mark,
            ));
        }
        while !is_break_or_nul(self.peek()) {
            self.forward(1);
        }
        let end = self.mark;
        self.push(TokenKind::Directive, start, end);
        Ok(())
    }

    fn fetch_document_indicator(&mut self, kind: TokenKind) -> SResult<()> {
        self.unwind_indent(-1);
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        let start = self.mark;
        self.forward(3);
        let end = self.mark;
        self.push(kind, start, end);
        Ok(())
    }

    fn fetch_flow_collection_start(&mut self, kind: TokenKind) -> SResult<()> {
        self.save_possible_simple_key()?;
        self.flow_level += 1;
        if self.possible_simple_keys.len() <= self.flow_level {
            self.possible_simple_keys.push(None);
        }
        self.possible_simple_keys[self.flow_level] = None;
        self.allow_simple_key = true;
        let start = self.mark;
        self.forward(1);
        let end = self.mark;
        self.push(kind, start, end);
        Ok(())
    }

    fn fetch_flow_collection_end(&mut self, kind: TokenKind) -> SResult<()> {
        self.remove_possible_simple_key()?;
        if self.flow_level > 0 {
            self.possible_simple_keys[self.flow_level] = None;
            self.flow_level -= 1;
        }
        self.allow_simple_key = false;
        let start = self.mark;
        self.forward(1);
        let end = self.mark;
        self.push(kind, start, end);
        Ok(())
    }

    fn fetch_flow_entry(&mut self) -> SResult<()> {
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        let start = self.mark;
        self.forward(1);
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
        self.forward(1);
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
        self.forward(1);
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
            if self.flow_level == 0 && self.add_indent(key.column as isize) {
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
        self.forward(1);
        let end = self.mark;
        self.push(TokenKind::Value, start, end);
        Ok(())
    }

    fn fetch_anchor(&mut self, alias: bool) -> SResult<()> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let start = self.mark;
        self.forward(1);
        let length = (0..).take_while(|&i| is_word_char(self.peek_at(i))).count();
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
        let name = self.prefix(length);
        self.forward(length);
        let c = self.peek();
        if !(is_blank_or_end(c) || "?:,]}%@`".contains(c)) {
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

    fn fetch_tag(&mut self) -> SResult<()> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let start = self.mark;
        let next = self.peek_at(1);
        let (handle, suffix);
        if next == '<' {
            self.forward(2);
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
            let mut length = 1;
            let mut use_handle = false;
            let mut c = next;
            while !(c == NUL || c == ' ' || is_break(c)) {
                if c == '!' {
                    use_handle = true;
                    break;
                }
                length += 1;
                c = self.peek_at(length);
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
        self.push(TokenKind::Tag(handle, suffix), start, end);
        Ok(())
    }

    fn scan_tag_handle(&mut self, start: Mark) -> SResult<String> {
        let mut length = 1;
        let mut c = self.peek_at(1);
        if c != ' ' {
            while is_word_char(c) {
                length += 1;
                c = self.peek_at(length);
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
        let value = self.prefix(length);
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

    fn fetch_block_scalar(&mut self, style: ScalarStyle) -> SResult<()> {
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        let token = self.scan_block_scalar(style)?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_flow_scalar(&mut self, style: ScalarStyle) -> SResult<()> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_flow_scalar(style)?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_plain(&mut self) -> SResult<()> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_plain()?;
        self.tokens.push_back(token);
        Ok(())
    }

    // ----- white space -----

    fn scan_to_next_token(&mut self) {
        if self.mark.index == 0 && self.peek() == '\u{FEFF}' {
            self.forward(1);
        }
        loop {
            while self.peek() == ' ' {
                self.forward(1);
            }
            if self.peek() == '#' {
                while !is_break_or_nul(self.peek()) {
                    self.forward(1);
                }
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
        let c = self.peek();
        match c {
            '\r' | '\n' | '\u{85}' => {
                if c == '\r' && self.peek_at(1) == '\n' {
                    self.forward(2);
                } else {
                    self.forward(1);
                }
                Some('\n')
            }
            '\u{2028}' | '\u{2029}' => {
                self.forward(1);
                Some(c)
            }
            _ => None,
        }
    }

    // ----- plain scalars -----

    fn scan_plain(&mut self) -> SResult<Token> {
        let mut chunks = String::new();
        let start = self.mark;
        let mut end = self.mark;
        let indent = self.indent + 1;
        let mut spaces = String::new();
        loop {
            if self.peek() == '#' {
                break;
            }
            let mut length = 0;
            loop {
                let c = self.peek_at(length);
                let next = self.peek_at(length + 1);
                let flow = self.flow_level > 0;
                if is_blank_or_end(c)
                    || (c == ':' && (is_blank_or_end(next) || (flow && ",[]{}".contains(next))))
                    || (flow && ",?[]{}".contains(c))
                {
                    break;
                }
                length += 1;
            }
            if length == 0 {
                break;
            }
            self.allow_simple_key = false;
            chunks.push_str(&spaces);
            chunks.push_str(&self.prefix(length));
            self.forward(length);
            end = self.mark;
            spaces = match self.scan_plain_spaces() {
                Some(s) => s,
                None => break,
            };
            if spaces.is_empty()
                || self.peek() == '#'
                || (self.flow_level == 0 && (self.mark.column as isize) < indent)
            {
                break;
            }
        }
        Ok(Token {
            kind: TokenKind::Scalar(chunks, ScalarStyle::Plain),
            start,
            end,
        })
    }

    /// The white space after a piece of plain scalar, folded. `None` when a
    /// document marker follows a line break (the scalar ends there).
    fn scan_plain_spaces(&mut self) -> Option<String> {
        let mut chunks = String::new();
        let length = (0..).take_while(|&i| self.peek_at(i) == ' ').count();
        let whitespaces = self.prefix(length);
        self.forward(length);
        let c = self.peek();
        if is_break(c) {
            let line_break = self.scan_line_break().unwrap_or('\n');
            self.allow_simple_key = true;
            if self.at_document_marker() {
                return None;
            }
            let mut breaks = String::new();
            while self.peek() == ' ' || is_break(self.peek()) {
                if self.peek() == ' ' {
                    self.forward(1);
                } else {
                    breaks.push(self.scan_line_break().unwrap_or('\n'));
                    if self.at_document_marker() {
                        return None;
                    }
                }
            }
            if line_break != '\n' {
                chunks.push(line_break);
            } else if breaks.is_empty() {
                chunks.push(' ');
            }
            chunks.push_str(&breaks);
        } else if !whitespaces.is_empty() {
            chunks.push_str(&whitespaces);
        }
        Some(chunks)
    }

    fn at_document_marker(&self) -> bool {
        let p = self.prefix(3);
        (p == "---" || p == "...") && is_blank_or_end(self.peek_at(3))
    }

    // ----- quoted scalars -----

    fn scan_flow_scalar(&mut self, style: ScalarStyle) -> SResult<Token> {
        let double = style == ScalarStyle::DoubleQuoted;
        let mut chunks = String::new();
        let start = self.mark;
        let quote = self.peek();
        self.forward(1);
        chunks.push_str(&self.scan_flow_scalar_non_spaces(double, start)?);
        while self.peek() != quote {
            chunks.push_str(&self.scan_flow_scalar_spaces(start)?);
            chunks.push_str(&self.scan_flow_scalar_non_spaces(double, start)?);
        }
        self.forward(1);
        let end = self.mark;
        Ok(Token {
            kind: TokenKind::Scalar(chunks, style),
            start,
            end,
        })
    }

    fn scan_flow_scalar_non_spaces(&mut self, double: bool, start: Mark) -> SResult<String> {
        let mut chunks = String::new();
        loop {
            let length = (0..)
                .take_while(|&i| {
                    let c = self.peek_at(i);
                    !("'\"\\".contains(c) || is_blank_or_end(c))
                })
                .count();
            if length > 0 {
                chunks.push_str(&self.prefix(length));
                self.forward(length);
            }
            let c = self.peek();
            if !double && c == '\'' && self.peek_at(1) == '\'' {
                chunks.push('\'');
                self.forward(2);
            } else if (double && c == '\'') || (!double && (c == '"' || c == '\\')) {
                chunks.push(c);
                self.forward(1);
            } else if double && c == '\\' {
                self.forward(1);
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
                    let code = u32::from_str_radix(&self.prefix(len), 16).unwrap_or(u32::MAX);
                    let Some(decoded) = char::from_u32(code) else {
                        return Err(scanner_error(
                            Some(("while scanning a double-quoted scalar", start)),
                            format!("escape \\{e}{} is not a character", self.prefix(len)),
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
                return Ok(chunks);
            }
        }
    }

    fn scan_flow_scalar_spaces(&mut self, start: Mark) -> SResult<String> {
        let mut chunks = String::new();
        let length = (0..)
            .take_while(|&i| matches!(self.peek_at(i), ' ' | '\t'))
            .count();
        let whitespaces = self.prefix(length);
        self.forward(length);
        let c = self.peek();
        if self.at_end() {
            return Err(scanner_error(
                Some(("while scanning a quoted scalar", start)),
                "found unexpected end of stream".into(),
                self.mark,
            ));
        }
        if is_break(c) {
            let line_break = self.scan_line_break().unwrap_or('\n');
            let breaks = self.scan_flow_scalar_breaks(start)?;
            if line_break != '\n' {
                chunks.push(line_break);
            } else if breaks.is_empty() {
                chunks.push(' ');
            }
            chunks.push_str(&breaks);
        } else {
            chunks.push_str(&whitespaces);
        }
        Ok(chunks)
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
                self.forward(1);
            }
            if is_break(self.peek()) {
                chunks.push(self.scan_line_break().unwrap_or('\n'));
            } else {
                return Ok(chunks);
            }
        }
    }

    // ----- block scalars -----

    fn scan_block_scalar(&mut self, style: ScalarStyle) -> SResult<Token> {
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
        let mut line_break = String::new();
        while self.mark.column == indent && !self.at_end() {
            chunks.push_str(&breaks);
            let leading_non_space = !matches!(self.peek(), ' ' | '\t');
            let length = (0..)
                .take_while(|&i| !is_break_or_nul(self.peek_at(i)))
                .count();
            chunks.push_str(&self.prefix(length));
            self.forward(length);
            line_break = self.scan_line_break().map(String::from).unwrap_or_default();
            let (b, e) = self.scan_block_scalar_breaks(indent);
            breaks = b;
            end = e;
            if self.mark.column == indent && !self.at_end() {
                if folded
                    && line_break == "\n"
                    && leading_non_space
                    && !matches!(self.peek(), ' ' | '\t')
                {
                    if breaks.is_empty() {
                        chunks.push(' ');
                    }
                } else {
                    chunks.push_str(&line_break);
                }
            } else {
                break;
            }
        }
        if chomping != Some(false) {
            chunks.push_str(&line_break);
        }
        if chomping == Some(true) {
            chunks.push_str(&breaks);
        }
        Ok(Token {
            kind: TokenKind::Scalar(chunks, style),
            start,
            end,
        })
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
        while self.peek() == ' ' {
            self.forward(1);
        }
        if self.peek() == '#' {
            while !is_break_or_nul(self.peek()) {
                self.forward(1);
            }
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
        while self.peek() == ' ' || is_break(self.peek()) {
            if self.peek() != ' ' {
                chunks.push(self.scan_line_break().unwrap_or('\n'));
                end = self.mark;
            } else {
                self.forward(1);
                max_indent = max_indent.max(self.mark.column);
            }
        }
        (chunks, max_indent, end)
    }

    fn scan_block_scalar_breaks(&mut self, indent: usize) -> (String, Mark) {
        let mut chunks = String::new();
        let mut end = self.mark;
        while self.mark.column < indent && self.peek() == ' ' {
            self.forward(1);
        }
        while is_break(self.peek()) {
            chunks.push(self.scan_line_break().unwrap_or('\n'));
            end = self.mark;
            while self.mark.column < indent && self.peek() == ' ' {
                self.forward(1);
            }
        }
        (chunks, end)
    }
}

fn escape_replacement(c: char) -> Option<char> {
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
