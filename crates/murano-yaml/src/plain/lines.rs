//! The first half of the plain fast path: block YAML of the usual shapes
//! read straight from the bytes, with no tokens in between.
//!
//! Most documents (Heat templates, manifests) are block mappings and
//! sequences of scalars written on one line, literal or folded block
//! scalars, and small flow collections. For those, PyYAML's scanner
//! (simple keys, a token queue, indentation stacks) does far more work
//! than the structure needs: here a recursive descent follows the lines
//! and their indentation, and gives up (`None`) on everything it does not
//! read exactly as PyYAML would: tabs, carriage returns and the other
//! line breaks, anchors, aliases, tags, directives, explicit keys, a
//! second document, scalars that span lines (plain or quoted), block
//! scalars with an indentation digit, and every error. The tokens half
//! then takes the document.
//!
//! The reader keeps one rule: after each value, the cursor rests on the
//! first character of the next line with content (comments and blank
//! lines skipped), and [`Lines::col`] is that line's indentation, `-1` at
//! the end. A collection goes on while the column is its own, ends when
//! it is smaller, and gives up when it is larger (a plain scalar going on
//! over lines, or an error).

use std::borrow::Cow;

use super::{scalar, Assembly, PlainLoad, PlainScalar, PlainTree};
use crate::compose::implicit_tag;
use crate::error::Mark;
use crate::reader::is_printable;
use crate::scanner::{escape_replacement, plain_may_start, stop_table};

/// Reads `text` (already checked for length).
pub(super) fn load<T: PlainTree>(text: &str, out: Assembly<T>) -> PlainLoad<T> {
    if !simple_characters(text) {
        return PlainLoad::NeedsFullLoader;
    }
    let mut lines = Lines {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        line_start: 0,
        col: -1,
        out,
    };
    lines.document().unwrap_or(PlainLoad::NeedsFullLoader)
}

/// Whether every character is one this reader handles: printable, and no
/// tab, carriage return, next line, line or paragraph separator or byte
/// order mark (each changes how PyYAML splits lines or skips blanks).
fn simple_characters(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut ascii = true;
    for block in bytes.chunks(64) {
        // Branch-free per block, so it vectorizes.
        let (bad, high) = block.iter().fold((false, false), |(bad, high), &b| {
            (
                bad | ((b < 0x20) & (b != b'\n')) | (b == 0x7f),
                high | (b >= 0x80),
            )
        });
        if bad {
            return false;
        }
        ascii &= !high;
    }
    ascii
        || text.chars().all(|c| {
            c.is_ascii()
                || (c >= '\u{a0}'
                    && is_printable(c)
                    && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}'))
        })
}

/// Bytes that end a piece of plain scalar in block context (`:` only
/// before a blank). Unlike the scanner's, non-ASCII bytes are content:
/// the text has no line break beyond ASCII.
static BLOCK_STOPS: [bool; 256] = stop_table(b" \n:", false);

/// The same in flow context, where the flow indicators end it too.
static FLOW_STOPS: [bool; 256] = stop_table(b" \n:,?[]{}", false);

/// Simple keys longer than this (in bytes, so in characters too) are left
/// to the tokens half: PyYAML refuses keys over 1024 characters.
const MAX_KEY_LEN: usize = 1000;

/// A scalar as written: its text, and whether it is plain (resolved by
/// the implicit resolver) or quoted (a string).
struct Scalar<'a> {
    text: Cow<'a, str>,
    plain: bool,
    /// Where it starts in the source.
    start: usize,
}

struct Lines<'a, T> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Where the line of `pos` starts.
    line_start: usize,
    /// The column of the content the cursor rests on between values; -1
    /// at the end of the text.
    col: isize,
    out: Assembly<T>,
}

impl<'a, T: PlainTree> Lines<'a, T> {
    #[inline]
    fn byte(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    fn byte_at(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    /// Whether the byte at `at` is a blank, a line break or the end.
    #[inline]
    fn blank_at(&self, at: usize) -> bool {
        matches!(self.byte_at(at), None | Some(b' ' | b'\n'))
    }

    #[inline]
    fn skip_spaces(&mut self) {
        while self.byte() == Some(b' ') {
            self.pos += 1;
        }
    }

    /// The column of the cursor, counted in bytes: where columns matter
    /// (indentation, content after `- `) only spaces and `-` precede the
    /// cursor on its line, so bytes and characters agree.
    #[inline]
    fn column(&self) -> isize {
        (self.pos - self.line_start) as isize
    }

    /// Steps over the line break at the cursor.
    #[inline]
    fn take_break(&mut self) {
        self.pos += 1;
        self.line_start = self.pos;
    }

    /// The end of a line after a value or a block scalar's header: spaces
    /// and a comment may follow, then a line break (taken) or the end of
    /// the text (`true`); anything else gives up.
    fn end_of_line(&mut self) -> Option<bool> {
        self.skip_spaces();
        if self.byte() == Some(b'#') {
            self.skip_to_line_end();
        }
        match self.byte() {
            None => Some(true),
            Some(b'\n') => {
                self.take_break();
                Some(false)
            }
            Some(_) => None,
        }
    }

    /// Ends the line after a value, and moves to the next content.
    fn finish_line(&mut self) -> Option<()> {
        self.end_of_line()?;
        self.next_content()
    }

    fn skip_to_line_end(&mut self) {
        self.pos = memchr_newline(self.bytes, self.pos);
    }

    /// Skips spaces, blank lines and comments: the cursor rests on content
    /// or at the end.
    fn skip_blank_lines(&mut self) {
        loop {
            self.skip_spaces();
            match self.byte() {
                Some(b'\n') => self.take_break(),
                Some(b'#') => self.skip_to_line_end(),
                _ => return,
            }
        }
    }

    /// Rests on the next content, setting [`Lines::col`]. A document
    /// marker (`---`, `...` at the start of a line) gives up.
    fn next_content(&mut self) -> Option<()> {
        self.skip_blank_lines();
        match self.byte() {
            None => self.col = -1,
            Some(b) => {
                if self.pos == self.line_start && matches!(b, b'-' | b'.') && self.marker() {
                    return None;
                }
                self.col = self.column();
            }
        }
        Some(())
    }

    /// Whether a document marker starts at the cursor.
    fn marker(&self) -> bool {
        let rest = &self.bytes[self.pos..];
        (rest.starts_with(b"---") || rest.starts_with(b"...")) && self.blank_at(self.pos + 3)
    }

    /// The stream: nothing, or one document, perhaps after `---`.
    fn document(&mut self) -> Option<PlainLoad<T>> {
        // The first content, allowing one document start.
        self.skip_blank_lines();
        if self.byte().is_none() {
            return Some(PlainLoad::Empty);
        }
        if self.pos == self.line_start && self.bytes[self.pos..].starts_with(b"---") {
            if !self.blank_at(self.pos + 3) {
                // A plain scalar such as `----`: the tokens half's.
                return None;
            }
            self.pos += 3;
            self.finish_line()?;
            if self.col < 0 {
                let root = self.out.empty(0)?;
                return Some(PlainLoad::Document(root));
            }
        } else {
            self.next_content()?;
        }
        let root = self.node(self.col, -1, 0)?;
        // Anything after the root (a `...`, another document, a scalar
        // going on) is the tokens half's.
        (self.col < 0).then_some(PlainLoad::Document(root))
    }

    /// A node starting at the cursor, at column `col`, where a block
    /// collection may start (a line's content, or after `- `); `parent`
    /// is the column of the enclosing collection (-1 at the root).
    fn node(&mut self, col: isize, parent: isize, depth: u32) -> Option<T> {
        self.out.enter(depth)?;
        match self.byte()? {
            b'-' if self.blank_at(self.pos + 1) => return self.block_sequence(col, depth),
            b'[' | b'{' => return self.flow_then_line(depth),
            b'|' | b'>' => return self.block_scalar(parent),
            _ => {}
        }
        let first = self.scalar(false)?;
        self.skip_spaces();
        if self.at_block_value() {
            self.pos += 1;
            return self.block_mapping(col, first, depth);
        }
        self.finish_line()?;
        resolve(first)
    }

    /// A flow collection in block context, the last thing on its line.
    fn flow_then_line(&mut self, depth: u32) -> Option<T> {
        let value = self.flow_collection(depth)?;
        // `[a]: b` (a collection as a key) fails here too.
        self.finish_line()?;
        Some(value)
    }

    /// Whether a block mapping's `:` is at the cursor (before a blank).
    fn at_block_value(&self) -> bool {
        self.byte() == Some(b':') && self.blank_at(self.pos + 1)
    }

    /// Whether a block sequence entry (`- `) is at the cursor.
    fn at_block_entry(&self) -> bool {
        self.byte() == Some(b'-') && self.blank_at(self.pos + 1)
    }

    /// A block mapping at column `col` whose first key was read, the
    /// cursor after its `:`.
    fn block_mapping(&mut self, col: isize, first_key: Scalar<'a>, depth: u32) -> Option<T> {
        let first = self.out.pairs.len();
        let mut index = None;
        let mut key = first_key;
        loop {
            let key_node = self.key(key, depth + 1)?;
            let value = self.block_value(col, depth + 1)?;
            self.out.insert(first, &mut index, key_node, value);
            if self.col != col {
                if self.col > col {
                    return None;
                }
                break;
            }
            key = self.scalar(false)?;
            self.skip_spaces();
            if !self.at_block_value() {
                return None;
            }
            self.pos += 1;
        }
        Some(self.out.mapping(first))
    }

    /// A mapping key: a string written on one line, the cursor after its
    /// `:` (if any).
    fn key(&mut self, key: Scalar<'a>, depth: u32) -> Option<T> {
        self.out.enter(depth)?;
        if self.pos - key.start > MAX_KEY_LEN || (key.plain && implicit_tag(&key.text).is_some()) {
            return None;
        }
        Some(T::scalar(PlainScalar::Str(key.text.into_owned())))
    }

    /// The value of a block mapping's key at column `col`, the cursor
    /// after the `:`: on the same line, on the lines below, an indentless
    /// sequence, or nothing.
    fn block_value(&mut self, col: isize, depth: u32) -> Option<T> {
        self.skip_spaces();
        match self.byte() {
            None | Some(b'\n' | b'#') => self.value_below(col, depth, true),
            Some(b) => {
                self.out.enter(depth)?;
                match b {
                    b'[' | b'{' => self.flow_then_line(depth),
                    b'|' | b'>' => self.block_scalar(col),
                    _ => {
                        let value = self.scalar(false)?;
                        self.finish_line()?;
                        resolve(value)
                    }
                }
            }
        }
    }

    /// A value that starts below its `:` or `-`, the cursor at the end of
    /// that line, inside a collection at column `col`: a node indented
    /// more, an indentless sequence (a mapping's value, `indentless`), or
    /// nothing.
    fn value_below(&mut self, col: isize, depth: u32, indentless: bool) -> Option<T> {
        self.finish_line()?;
        if self.col > col {
            self.node(self.col, col, depth)
        } else if indentless && self.col == col && self.at_block_entry() {
            self.out.enter(depth)?;
            self.indentless_sequence(col, depth)
        } else {
            self.out.empty(depth)
        }
    }

    /// A block sequence whose first `-` is at the cursor, at column `col`.
    fn block_sequence(&mut self, col: isize, depth: u32) -> Option<T> {
        let first = self.out.items.len();
        loop {
            let item = self.entry(col, depth + 1)?;
            self.out.items.push(item);
            if self.col != col || !self.at_block_entry() {
                if self.col > col {
                    return None;
                }
                // A smaller column ends it; content at its own column that
                // is not an entry is the caller's to refuse.
                break;
            }
        }
        Some(self.out.sequence(first))
    }

    /// A sequence without indentation (the value of a mapping's key at
    /// column `col`, its entries at that column).
    fn indentless_sequence(&mut self, col: isize, depth: u32) -> Option<T> {
        let first = self.out.items.len();
        loop {
            let item = self.entry(col, depth + 1)?;
            self.out.items.push(item);
            if self.col > col {
                return None;
            }
            if self.col < col || !self.at_block_entry() {
                break;
            }
        }
        Some(self.out.sequence(first))
    }

    /// One entry of a block sequence at column `col`, the cursor on its
    /// `-`.
    fn entry(&mut self, col: isize, depth: u32) -> Option<T> {
        self.pos += 1;
        self.skip_spaces();
        match self.byte() {
            None | Some(b'\n' | b'#') => self.value_below(col, depth, false),
            Some(_) => self.node(self.column(), col, depth),
        }
    }

    /// A scalar on one line at the cursor: quoted, or plain by PyYAML's
    /// rules for its start and end (block or flow context).
    fn scalar(&mut self, flow: bool) -> Option<Scalar<'a>> {
        let start = self.pos;
        let text = match self.byte()? {
            b'\'' => self.quoted(false)?,
            b'"' => self.quoted(true)?,
            b => {
                // A non-ASCII lead byte stands for its character here: it
                // is neither an indicator nor a blank, as the character is
                // not (the text has no line break beyond ASCII).
                if !plain_may_start(char::from(b), self.blank_at(self.pos + 1), flow) {
                    return None;
                }
                let text = self.plain(flow);
                return Some(Scalar {
                    text: Cow::Borrowed(text),
                    plain: true,
                    start,
                });
            }
        };
        Some(Scalar {
            text,
            plain: false,
            start,
        })
    }

    /// A plain scalar's text on this line: pieces separated by spaces,
    /// up to a line break, ` #`, `: ` (and the flow indicators in flow
    /// context). The cursor ends after the last piece.
    fn plain(&mut self, flow: bool) -> &'a str {
        let stops = if flow { &FLOW_STOPS } else { &BLOCK_STOPS };
        let bytes = self.bytes;
        let start = self.pos;
        let mut end = start;
        let mut p = start;
        loop {
            let piece = p;
            loop {
                while p < bytes.len() && !stops[usize::from(bytes[p])] {
                    p += 1;
                }
                if bytes.get(p) == Some(&b':') {
                    let next = bytes.get(p + 1).copied();
                    let ends = match next {
                        None | Some(b' ' | b'\n') => true,
                        Some(b',' | b'[' | b']' | b'{' | b'}') => flow,
                        Some(_) => false,
                    };
                    if !ends {
                        p += 1;
                        continue;
                    }
                }
                break;
            }
            if p == piece {
                break;
            }
            end = p;
            while bytes.get(p) == Some(&b' ') {
                p += 1;
            }
            if matches!(bytes.get(p), None | Some(b'\n' | b'#')) {
                break;
            }
        }
        self.pos = end;
        &self.text[start..end]
    }

    /// A quoted scalar closed on its line: `''` in single quotes, escapes
    /// in double quotes decoded as the scanner decodes them (an escaped
    /// line break gives up).
    fn quoted(&mut self, double: bool) -> Option<Cow<'a, str>> {
        let (bytes, text) = (self.bytes, self.text);
        let quote = if double { b'"' } else { b'\'' };
        let start = self.pos + 1;
        let mut p = start;
        // Unescaped text up to `segment`, once there was an escape.
        let mut segment = start;
        let mut owned: Option<String> = None;
        loop {
            while p < bytes.len()
                && bytes[p] != quote
                && bytes[p] != b'\n'
                && !(double && bytes[p] == b'\\')
            {
                p += 1;
            }
            match bytes.get(p) {
                Some(&b'\'') if !double && bytes.get(p + 1) == Some(&b'\'') => {
                    owned
                        .get_or_insert_with(String::new)
                        .push_str(&text[segment..=p]);
                    p += 2;
                }
                Some(&b) if b == quote => break,
                Some(b'\\') => {
                    let s = owned.get_or_insert_with(String::new);
                    s.push_str(&text[segment..p]);
                    p = escape(text, p, s)?;
                }
                _ => return None,
            }
            segment = p;
        }
        self.pos = p + 1;
        Some(match owned {
            None => Cow::Borrowed(&text[start..p]),
            Some(mut s) => {
                s.push_str(&text[segment..p]);
                Cow::Owned(s)
            }
        })
    }

    /// A flow collection at the cursor (`[` or `{`), counted already.
    fn flow_collection(&mut self, depth: u32) -> Option<T> {
        if self.byte() == Some(b'[') {
            self.flow_sequence(depth)
        } else {
            self.flow_mapping(depth)
        }
    }

    /// White space in flow context: spaces, line breaks and comments. A
    /// document marker at the start of a line gives up.
    fn flow_space(&mut self) -> Option<()> {
        loop {
            match self.byte() {
                Some(b' ') => self.pos += 1,
                Some(b'\n') => {
                    self.take_break();
                    if matches!(self.byte(), Some(b'-' | b'.')) && self.marker() {
                        return None;
                    }
                }
                Some(b'#') => self.skip_to_line_end(),
                _ => return Some(()),
            }
        }
    }

    /// A node inside a flow collection.
    fn flow_node(&mut self, depth: u32) -> Option<T> {
        self.out.enter(depth)?;
        match self.byte()? {
            b'[' => self.flow_sequence(depth),
            b'{' => self.flow_mapping(depth),
            _ => resolve(self.scalar(true)?),
        }
    }

    /// After an item of a flow collection: a `,` (taken; `false`) or the
    /// collection's `close` (left for the caller; `true`).
    fn flow_item_end(&mut self, close: u8) -> Option<bool> {
        self.flow_space()?;
        match self.byte()? {
            b',' => {
                self.pos += 1;
                Some(false)
            }
            b if b == close => Some(true),
            _ => None,
        }
    }

    fn flow_sequence(&mut self, depth: u32) -> Option<T> {
        self.pos += 1;
        let first = self.out.items.len();
        loop {
            self.flow_space()?;
            if self.byte() == Some(b']') {
                break;
            }
            let item = self.flow_node(depth + 1)?;
            self.out.items.push(item);
            // `[a: b]` (a single-pair mapping) fails here.
            if self.flow_item_end(b']')? {
                break;
            }
        }
        self.pos += 1;
        Some(self.out.sequence(first))
    }

    fn flow_mapping(&mut self, depth: u32) -> Option<T> {
        self.pos += 1;
        let first = self.out.pairs.len();
        let mut index = None;
        loop {
            self.flow_space()?;
            if self.byte() == Some(b'}') {
                break;
            }
            // Keys that are collections, explicit (`?`) or missing (`:`)
            // fail here.
            let key = self.scalar(true)?;
            // The `:` must be on the key's line (a simple key).
            self.skip_spaces();
            let has_value = self.byte() == Some(b':');
            if has_value {
                self.pos += 1;
            }
            let key = self.key(key, depth + 1)?;
            let value = if has_value {
                self.flow_space()?;
                if matches!(self.byte(), Some(b',' | b'}')) {
                    self.out.empty(depth + 1)?
                } else {
                    self.flow_node(depth + 1)?
                }
            } else {
                self.out.empty(depth + 1)?
            };
            self.out.insert(first, &mut index, key, value);
            if self.flow_item_end(b'}')? {
                break;
            }
        }
        self.pos += 1;
        Some(self.out.mapping(first))
    }

    /// A literal (`|`) or folded (`>`) block scalar at the cursor, inside
    /// a collection at column `parent`, as PyYAML's `scan_block_scalar`
    /// reads it (without an indentation digit).
    fn block_scalar(&mut self, parent: isize) -> Option<T> {
        let folded = self.byte() == Some(b'>');
        self.pos += 1;
        let chomping = match self.byte() {
            Some(b'+') => Some(true),
            Some(b'-') => Some(false),
            _ => None,
        };
        if chomping.is_some() {
            self.pos += 1;
        }
        if !self.blank_at(self.pos) {
            // An indentation digit, or an error.
            return None;
        }
        // The rest of the header line: spaces, a comment.
        if self.end_of_line()? {
            self.col = -1;
            return Some(T::scalar(PlainScalar::Str(String::new())));
        }
        let min_indent = (parent + 1).max(1) as usize;
        // The indentation: the deepest column of the leading blank lines
        // and of the first line with content.
        let mut breaks = 0usize;
        let mut max_indent = 0;
        loop {
            self.skip_spaces();
            max_indent = max_indent.max(self.pos - self.line_start);
            if self.byte() != Some(b'\n') {
                break;
            }
            breaks += 1;
            self.take_break();
        }
        let indent = min_indent.max(max_indent);
        let mut chunks = String::new();
        let mut line_break = false;
        while self.pos - self.line_start == indent && self.pos < self.bytes.len() {
            push_breaks(&mut chunks, breaks);
            let leading_non_space = self.byte() != Some(b' ');
            let end = memchr_newline(self.bytes, self.pos);
            chunks.push_str(&self.text[self.pos..end]);
            self.pos = end;
            line_break = self.pos < self.bytes.len();
            if line_break {
                self.take_break();
            }
            breaks = self.block_scalar_breaks(indent);
            if self.pos - self.line_start == indent && self.pos < self.bytes.len() {
                if folded && line_break && leading_non_space && self.byte() != Some(b' ') {
                    if breaks == 0 {
                        chunks.push(' ');
                    }
                } else if line_break {
                    chunks.push('\n');
                }
            } else {
                break;
            }
        }
        if chomping != Some(false) && line_break {
            chunks.push('\n');
        }
        if chomping == Some(true) {
            push_breaks(&mut chunks, breaks);
        }
        if self.pos < self.bytes.len() {
            // The cursor is within the indentation of the line that ended
            // the scalar: find its content again.
            self.pos = self.line_start;
            self.next_content()?;
        } else {
            self.col = -1;
        }
        Some(T::scalar(PlainScalar::Str(chunks)))
    }

    /// PyYAML's `scan_block_scalar_breaks`: the indentation up to `indent`
    /// and the blank lines after a line of a block scalar; their count.
    fn block_scalar_breaks(&mut self, indent: usize) -> usize {
        let mut breaks = 0;
        loop {
            while self.pos - self.line_start < indent && self.byte() == Some(b' ') {
                self.pos += 1;
            }
            if self.byte() != Some(b'\n') {
                return breaks;
            }
            breaks += 1;
            self.take_break();
        }
    }
}

/// Decodes the escape whose `\\` is at `at` onto `out`, as the scanner
/// does; where the text goes on after it. An escaped line break (which
/// joins lines) and every error give up.
fn escape(text: &str, at: usize, out: &mut String) -> Option<usize> {
    let escape = *text.as_bytes().get(at + 1)?;
    if !escape.is_ascii() || escape == b'\n' {
        return None;
    }
    if let Some(c) = escape_replacement(char::from(escape)) {
        out.push(c);
        return Some(at + 2);
    }
    let len = match escape {
        b'x' => 2,
        b'u' => 4,
        b'U' => 8,
        _ => return None,
    };
    let digits = text.get(at + 2..at + 2 + len)?;
    if !digits.bytes().all(|d| d.is_ascii_hexdigit()) {
        return None;
    }
    out.push(char::from_u32(u32::from_str_radix(digits, 16).ok()?)?);
    Some(at + 2 + len)
}

fn push_breaks(chunks: &mut String, breaks: usize) {
    for _ in 0..breaks {
        chunks.push('\n');
    }
}

/// The position of the next line break from `from`, or the end.
fn memchr_newline(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |n| from + n)
}

/// A scalar value as the safe constructor builds it.
fn resolve<T: PlainTree>(value: Scalar<'_>) -> Option<T> {
    if !value.plain {
        return Some(T::scalar(PlainScalar::Str(value.text.into_owned())));
    }
    let tag = implicit_tag(&value.text);
    scalar(value.text, tag, Mark::default()).map(T::scalar)
}
