//! Emitting generated YAML as PyYAML does (for example the HOT package's
//! generated class and UI definition).
//!
//! Murano prints them with PyYAML's `yaml.dump(tree, Dumper=Dumper,
//! default_style='"')`, where `Dumper` is a safe dumper that writes YAQL
//! objects as scalars tagged `!yaql`. [`Gen::to_text`] writes the same
//! bytes as PyYAML 6.0.1 does for the same tree:
//!
//! * mapping keys sorted the way Python's `sorted()` sorts the `(key,
//!   value)` pairs, and kept in insertion order when two keys cannot be
//!   compared (Python raises `TypeError` and PyYAML keeps the list as is);
//! * every scalar double-quoted, non-string scalars tagged (`!!int`,
//!   `!!bool`, `!!null`, `!!float`, `!!timestamp`) and YAQL tagged `!yaql`;
//! * block collections indented by two, sequences under a mapping key not
//!   indented, empty collections in flow style (`{}`, `[]`);
//! * characters outside printable ASCII escaped;
//! * long scalars folded at a space after column 80 with a trailing `\`;
//! * `? ` complex keys when a key is too long or spans lines.

use std::cmp::Ordering;

/// A generated YAML tree, emitted as PyYAML prints the same Python tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Gen {
    /// Python's `None`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer, as its decimal digits (Python's `str()`).
    Int(String),
    /// A float.
    Float(f64),
    /// A date or timestamp, as Python's `str()` writes it.
    Time(String),
    /// A string.
    Str(String),
    /// A scalar tagged `!yaql`.
    Yaql(String),
    /// A list.
    Seq(Vec<Gen>),
    /// A dict, in insertion order.
    Map(Vec<(Gen, Gen)>),
}

/// A string scalar.
pub fn string(text: &str) -> Gen {
    Gen::Str(text.to_owned())
}

/// A YAQL scalar.
pub fn yaql(text: &str) -> Gen {
    Gen::Yaql(text.to_owned())
}

/// A mapping with these entries (in insertion order; sorted when emitted).
pub fn mapping(entries: Vec<(Gen, Gen)>) -> Gen {
    Gen::Map(entries)
}

/// PyYAML's preferred line width.
const BEST_WIDTH: usize = 80;
/// PyYAML's indentation step.
const BEST_INDENT: usize = 2;
/// A key is written as a simple key only when its tag and text together
/// are shorter than this.
const SIMPLE_KEY_LIMIT: usize = 128;

/// A scalar as the serializer hands it to the emitter.
struct Scalar {
    /// The tag as written before the scalar, if it is written.
    written_tag: Option<&'static str>,
    /// The length of the short form of the scalar's tag (written or not).
    tag_len: usize,
    /// The scalar's text.
    text: String,
}

impl Gen {
    /// The scalar event of a scalar node, `None` for collections.
    fn scalar(&self) -> Option<Scalar> {
        let tagged = |tag: &'static str, text: String| Scalar {
            written_tag: Some(tag),
            tag_len: tag.len(),
            text,
        };
        Some(match self {
            Gen::Null => tagged("!!null", "null".to_owned()),
            Gen::Bool(b) => tagged("!!bool", if *b { "true" } else { "false" }.to_owned()),
            Gen::Int(digits) => tagged("!!int", digits.clone()),
            Gen::Float(x) => tagged("!!float", float_text(*x)),
            Gen::Time(text) => tagged("!!timestamp", text.clone()),
            // `!!str` is implicit for a double-quoted scalar, but still
            // counts towards the simple-key length.
            Gen::Str(text) => Scalar {
                written_tag: None,
                tag_len: "!!str".len(),
                text: text.clone(),
            },
            Gen::Yaql(text) => tagged("!yaql", text.clone()),
            Gen::Seq(_) | Gen::Map(_) => return None,
        })
    }

    /// The YAML text PyYAML prints for this tree (see the module docs).
    pub fn to_text(&self) -> String {
        let mut emitter = Emitter {
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
            indent: None,
        };
        emitter.node(self, false, false);
        // The document end: a line break unless at the start of a line.
        emitter.write_indent();
        emitter.out
    }
}

/// The representer's text of a float: `repr()` in lower case, with `.0`
/// added to a mantissa without a point.
fn float_text(x: f64) -> String {
    if x.is_nan() {
        return ".nan".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { ".inf" } else { "-.inf" }.to_owned();
    }
    let text = murano_yaql::python_float_repr(x).to_lowercase();
    if !text.contains('.') && text.contains('e') {
        text.replacen('e', ".0e", 1)
    } else {
        text
    }
}

/// The emitter's state, as PyYAML's `Emitter` keeps it.
struct Emitter {
    /// The text so far.
    out: String,
    /// The current column, in characters.
    column: usize,
    /// The last character written is a space or line break.
    whitespace: bool,
    /// Only indentation has been written on the current line so far.
    indention: bool,
    /// The current indentation (`None` before the root collection).
    indent: Option<usize>,
}

impl Emitter {
    /// Raises the indentation; returns the previous one for restoring.
    fn increase_indent(&mut self, flow: bool, indentless: bool) -> Option<usize> {
        let previous = self.indent;
        self.indent = match previous {
            None if flow => Some(BEST_INDENT),
            None => Some(0),
            Some(i) if indentless => Some(i),
            Some(i) => Some(i + BEST_INDENT),
        };
        previous
    }

    /// An indicator (or tag), after a space unless one was just written
    /// and `need_space`; `space` says it counts as whitespace, `indention`
    /// whether the line may still count as indentation.
    fn write_indicator(&mut self, indicator: &str, need_space: bool, space: bool, indention: bool) {
        if !self.whitespace && need_space {
            self.out.push(' ');
            self.column += 1;
        }
        self.out.push_str(indicator);
        self.column += indicator.chars().count();
        self.whitespace = space;
        self.indention = self.indention && indention;
    }

    /// A line break.
    fn write_line_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
        self.whitespace = true;
        self.indention = true;
    }

    /// Moves to the current indentation, on a new line unless the line
    /// so far holds only indentation short of it.
    fn write_indent(&mut self) {
        let indent = self.indent.unwrap_or(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.write_line_break();
        }
        if self.column < indent {
            self.whitespace = true;
            self.out
                .extend(std::iter::repeat_n(' ', indent - self.column));
            self.column = indent;
        }
    }

    /// Characters written as they are.
    fn write_chars(&mut self, chars: &[char]) {
        self.out.extend(chars.iter());
        self.column += chars.len();
    }

    /// One node. `mapping` says it is a mapping's key or value, `simple_key`
    /// that it is a key written without `? `.
    fn node(&mut self, node: &Gen, mapping: bool, simple_key: bool) {
        match node {
            Gen::Seq(items) if items.is_empty() => self.empty_flow("[", "]"),
            Gen::Map(entries) if entries.is_empty() => self.empty_flow("{", "}"),
            Gen::Seq(items) => {
                let indentless = mapping && !self.indention;
                let previous = self.increase_indent(false, indentless);
                for item in items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, false, false);
                }
                self.indent = previous;
            }
            Gen::Map(entries) => {
                let previous = self.increase_indent(false, false);
                for (key, value) in sorted_entries(entries) {
                    self.write_indent();
                    if is_simple_key(key) {
                        self.node(key, true, true);
                        self.write_indicator(":", false, false, false);
                    } else {
                        self.write_indicator("?", true, false, true);
                        self.node(key, true, false);
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    self.node(value, true, false);
                }
                self.indent = previous;
            }
            scalar => {
                if let Some(scalar) = scalar.scalar() {
                    if let Some(tag) = scalar.written_tag {
                        self.write_indicator(tag, true, false, false);
                    }
                    let previous = self.increase_indent(true, false);
                    self.write_double_quoted(&scalar.text, !simple_key);
                    self.indent = previous;
                }
            }
        }
    }

    /// An empty collection, in flow style.
    fn empty_flow(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        let previous = self.increase_indent(true, false);
        self.indent = previous;
        self.write_indicator(close, false, false, false);
    }

    /// A double-quoted scalar, folded at spaces (or after escapes) past the
    /// best width when `split`.
    fn write_double_quoted(&mut self, text: &str, split: bool) {
        self.write_indicator("\"", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        let len = chars.len();
        // `start` may pass `end` by one right after an escape.
        let mut start = 0usize;
        let mut end = 0usize;
        while end <= len {
            let ch = chars.get(end).copied();
            if ch.is_none_or(needs_escape) {
                if start < end {
                    self.write_chars(&chars[start..end]);
                    start = end;
                }
                if let Some(c) = ch {
                    let escaped = escape(c);
                    self.column += escaped.len();
                    self.out.push_str(&escaped);
                    start = end + 1;
                }
            }
            let pending = (self.column + end) as isize - start as isize;
            if split
                && 0 < end
                && end + 1 < len
                && (ch == Some(' ') || start >= end)
                && pending > BEST_WIDTH as isize
            {
                if start < end {
                    self.write_chars(&chars[start..end]);
                    start = end;
                }
                self.out.push('\\');
                self.column += 1;
                self.write_indent();
                self.whitespace = false;
                self.indention = false;
                if chars.get(start) == Some(&' ') {
                    self.out.push('\\');
                    self.column += 1;
                }
            }
            end += 1;
        }
        self.write_indicator("\"", false, false, false);
    }
}

/// Whether a double-quoted scalar writes this character escaped
/// (`allow_unicode` is off: everything outside printable ASCII).
fn needs_escape(c: char) -> bool {
    matches!(
        c,
        '"' | '\\' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{FEFF}'
    ) || !(' '..='~').contains(&c)
}

/// The escape sequence of a character.
fn escape(c: char) -> String {
    let short = match c {
        '\0' => Some('0'),
        '\u{07}' => Some('a'),
        '\u{08}' => Some('b'),
        '\t' => Some('t'),
        '\n' => Some('n'),
        '\u{0B}' => Some('v'),
        '\u{0C}' => Some('f'),
        '\r' => Some('r'),
        '\u{1B}' => Some('e'),
        '"' => Some('"'),
        '\\' => Some('\\'),
        '\u{85}' => Some('N'),
        '\u{A0}' => Some('_'),
        '\u{2028}' => Some('L'),
        '\u{2029}' => Some('P'),
        _ => None,
    };
    let code = c as u32;
    match short {
        Some(e) => format!("\\{e}"),
        None if code <= 0xFF => format!("\\x{code:02X}"),
        None if code <= 0xFFFF => format!("\\u{code:04X}"),
        None => format!("\\U{code:08X}"),
    }
}

/// Whether a key is written as `key: value` rather than `? key\n: value`.
fn is_simple_key(key: &Gen) -> bool {
    match key {
        // An empty collection is simple (its `!!seq`/`!!map` tag is short).
        Gen::Seq(items) => items.is_empty(),
        Gen::Map(entries) => entries.is_empty(),
        other => other.scalar().is_some_and(|scalar| {
            let text = &scalar.text;
            scalar.tag_len + text.chars().count() < SIMPLE_KEY_LIMIT
                && !text.is_empty()
                && !text.contains(['\n', '\u{85}', '\u{2028}', '\u{2029}'])
        }),
    }
}

/// The entries in the order PyYAML writes them: `sorted(dict.items())`, or
/// insertion order when that raises `TypeError`.
fn sorted_entries(entries: &[(Gen, Gen)]) -> Vec<&(Gen, Gen)> {
    let mut items: Vec<&(Gen, Gen)> = entries.iter().collect();
    let pair_lt = |a: &&(Gen, Gen), b: &&(Gen, Gen)| -> Result<bool, Incomparable> {
        if !py_eq(&a.0, &b.0) {
            py_lt(&a.0, &b.0)
        } else if !py_eq(&a.1, &b.1) {
            py_lt(&a.1, &b.1)
        } else {
            Ok(false)
        }
    };
    match python_sort(&mut items, pair_lt) {
        Ok(()) => items,
        Err(Incomparable) => entries.iter().collect(),
    }
}

/// Python raised `TypeError` on a `<`.
#[derive(Debug, Clone, Copy)]
struct Incomparable;

/// Python's `list.sort()` on a short list: the leading run (reversed when
/// strictly descending), then binary insertion of the rest. Only `<` is
/// used, as CPython uses it, so the same comparisons fail. Longer lists are
/// sorted the same way; with a consistent `<` the result is the same.
fn python_sort<T: Copy>(
    items: &mut Vec<T>,
    lt: impl Fn(&T, &T) -> Result<bool, Incomparable>,
) -> Result<(), Incomparable> {
    let n = items.len();
    if n < 2 {
        return Ok(());
    }
    let mut run = 2;
    if lt(&items[1], &items[0])? {
        while run < n && lt(&items[run], &items[run - 1])? {
            run += 1;
        }
        items[..run].reverse();
    } else {
        while run < n && !lt(&items[run], &items[run - 1])? {
            run += 1;
        }
    }
    for start in run..n {
        let pivot = items[start];
        let (mut lo, mut hi) = (0, start);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if lt(&pivot, &items[mid])? {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        items.remove(start);
        items.insert(lo, pivot);
    }
    Ok(())
}

/// Python's `a == b` for two values of the tree. YAQL objects are equal
/// only to themselves, and no two nodes of a tree are the same object.
fn py_eq(a: &Gen, b: &Gen) -> bool {
    if let (Some(x), Some(y)) = (Number::of(a), Number::of(b)) {
        return x.compare(&y) == Some(Ordering::Equal);
    }
    match (a, b) {
        (Gen::Null, Gen::Null) => true,
        (Gen::Str(x), Gen::Str(y)) => x == y,
        (Gen::Time(x), Gen::Time(y)) => match (Moment::parse(x), Moment::parse(y)) {
            (Some(p), Some(q)) => matches!(p.compare(&q), Ok(Ordering::Equal)),
            _ => x == y,
        },
        (Gen::Seq(x), Gen::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Gen::Map(x), Gen::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| py_eq(k, k2) && py_eq(v, v2)))
        }
        _ => false,
    }
}

/// Python's `a < b`, or the `TypeError` it raises.
fn py_lt(a: &Gen, b: &Gen) -> Result<bool, Incomparable> {
    if let (Some(x), Some(y)) = (Number::of(a), Number::of(b)) {
        return Ok(x.compare(&y) == Some(Ordering::Less));
    }
    match (a, b) {
        (Gen::Str(x), Gen::Str(y)) => Ok(x < y),
        (Gen::Time(x), Gen::Time(y)) => match (Moment::parse(x), Moment::parse(y)) {
            (Some(p), Some(q)) => Ok(p.compare(&q)? == Ordering::Less),
            _ => Err(Incomparable),
        },
        (Gen::Seq(x), Gen::Seq(y)) => match x.iter().zip(y).find(|(p, q)| !py_eq(p, q)) {
            Some((p, q)) => py_lt(p, q),
            None => Ok(x.len() < y.len()),
        },
        _ => Err(Incomparable),
    }
}

/// A Python number: `bool`, `int` or `float`.
enum Number {
    /// An integer: negative, and its digits without leading zeros.
    Int(bool, String),
    /// A float.
    Float(f64),
}

impl Number {
    /// The number a scalar is, if it is one (`bool` counts as `int`).
    fn of(g: &Gen) -> Option<Number> {
        match g {
            Gen::Bool(b) => Some(Number::Int(false, if *b { "1" } else { "0" }.to_owned())),
            Gen::Int(text) => {
                let text = text.trim();
                let (negative, digits) = match text.strip_prefix('-') {
                    Some(rest) => (true, rest),
                    None => (false, text.strip_prefix('+').unwrap_or(text)),
                };
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                Some(int_number(negative, digits))
            }
            Gen::Float(x) => Some(Number::Float(*x)),
            _ => None,
        }
    }

    /// Exact comparison, as Python compares mixed `int` and `float`;
    /// `None` when a NaN is involved.
    fn compare(&self, other: &Number) -> Option<Ordering> {
        match (self, other) {
            (Number::Float(x), Number::Float(y)) => x.partial_cmp(y),
            (Number::Int(n, a), Number::Int(m, b)) => Some(compare_ints((*n, a), (*m, b))),
            (Number::Int(n, a), Number::Float(x)) => compare_int_float((*n, a), *x),
            (Number::Float(x), Number::Int(n, a)) => {
                compare_int_float((*n, a), *x).map(Ordering::reverse)
            }
        }
    }
}

/// An integer number from a sign and decimal digits.
fn int_number(negative: bool, digits: &str) -> Number {
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        Number::Int(false, "0".to_owned())
    } else {
        Number::Int(negative, digits.to_owned())
    }
}

/// Compares two integers given as sign and digits.
fn compare_ints(a: (bool, &str), b: (bool, &str)) -> Ordering {
    let magnitude = |x: &str, y: &str| x.len().cmp(&y.len()).then_with(|| x.cmp(y));
    match (a.0, b.0) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => magnitude(a.1, b.1),
        (true, true) => magnitude(b.1, a.1),
    }
}

/// Compares an integer with a float exactly; `None` for NaN.
fn compare_int_float(n: (bool, &str), x: f64) -> Option<Ordering> {
    if x.is_nan() {
        return None;
    }
    if x.is_infinite() {
        return Some(if x > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        });
    }
    let floor = x.floor();
    let Number::Int(negative, digits) = float_integer(floor) else {
        return None;
    };
    Some(match compare_ints(n, (negative, &digits)) {
        Ordering::Equal if x > floor => Ordering::Less,
        other => other,
    })
}

/// The exact integer value of an integral float.
fn float_integer(x: f64) -> Number {
    if x.abs() < 9.0e15 {
        let i = x as i64;
        return int_number(i < 0, &i.unsigned_abs().to_string());
    }
    // x = mantissa * 2^exponent with exponent > 0 here.
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1075;
    let mantissa = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    // Little-endian decimal digits.
    let mut digits: Vec<u8> = mantissa
        .to_string()
        .bytes()
        .rev()
        .map(|b| b - b'0')
        .collect();
    for _ in 0..exponent.max(0) {
        let mut carry = 0;
        for d in digits.iter_mut() {
            let v = *d * 2 + carry;
            *d = v % 10;
            carry = v / 10;
        }
        if carry > 0 {
            digits.push(carry);
        }
    }
    let text: String = digits.iter().rev().map(|d| char::from(b'0' + d)).collect();
    int_number(x < 0.0, &text)
}

/// A `datetime.date` or `datetime.datetime` read back from its `str()`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Moment {
    /// A date, as days since the epoch.
    Date(i64),
    /// A naive datetime, as microseconds since the epoch.
    Naive(i128),
    /// An aware datetime, as UTC microseconds since the epoch.
    Aware(i128),
}

impl Moment {
    /// Parses `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS[.ffffff][±HH:MM[:SS]]`.
    fn parse(text: &str) -> Option<Moment> {
        let number = |s: &str| -> Option<i64> {
            // Python's fields are short; longer ones are not its output.
            if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            s.parse().ok()
        };
        let (date, time) = match text.split_once([' ', 'T']) {
            Some((d, t)) => (d, Some(t)),
            None => (text, None),
        };
        let mut parts = date.splitn(3, '-');
        let year = number(parts.next()?)?;
        let month = number(parts.next()?)?;
        let day = number(parts.next()?)?;
        let days = days_from_civil(year, month, day);
        let Some(time) = time else {
            return Some(Moment::Date(days));
        };
        let (clock, offset) = match time.find(['+', '-']) {
            Some(i) => (&time[..i], Some(&time[i..])),
            None => (time, None),
        };
        let (hms, fraction) = match clock.split_once('.') {
            Some((h, f)) => (h, Some(f)),
            None => (clock, None),
        };
        let seconds = hms_seconds(hms)?;
        let micros = match fraction {
            Some(f) => {
                let padded = format!("{f:0<6}");
                number(padded.get(..6)?)?
            }
            None => 0,
        };
        let local =
            (i128::from(days) * 86_400 + i128::from(seconds)) * 1_000_000 + i128::from(micros);
        let Some(offset) = offset else {
            return Some(Moment::Naive(local));
        };
        let (sign, rest) = offset.split_at(1);
        let rest = rest.split_once('.').map_or(rest, |(r, _)| r);
        let shift = i128::from(hms_seconds(rest)?) * 1_000_000;
        Some(Moment::Aware(if sign == "-" {
            local + shift
        } else {
            local - shift
        }))
    }

    /// Python's ordering: dates, naive and aware datetimes each compare
    /// only among themselves.
    fn compare(&self, other: &Moment) -> Result<Ordering, Incomparable> {
        match (self, other) {
            (Moment::Date(a), Moment::Date(b)) => Ok(a.cmp(b)),
            (Moment::Naive(a), Moment::Naive(b)) | (Moment::Aware(a), Moment::Aware(b)) => {
                Ok(a.cmp(b))
            }
            _ => Err(Incomparable),
        }
    }
}

/// Seconds of `HH:MM` or `HH:MM:SS`.
fn hms_seconds(text: &str) -> Option<i64> {
    let mut total = 0i64;
    let mut count = 0;
    for part in text.split(':') {
        if count == 3 || part.is_empty() || part.len() > 9 {
            return None;
        }
        if !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        total = total * 60 + part.parse::<i64>().ok()?;
        count += 1;
    }
    match count {
        2 => Some(total * 60),
        3 => Some(total),
        _ => None,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    //! Expected texts printed by PyYAML 6.0.1 for the same Python trees.
    use super::*;
    use super::{mapping as map, string as s, yaql as y};

    fn int(n: i64) -> Gen {
        Gen::Int(n.to_string())
    }

    #[test]
    fn tagged_scalars_and_nested_collections() {
        let tree = map(vec![
            (
                s("b"),
                Gen::Seq(vec![
                    Gen::Null,
                    Gen::Bool(true),
                    int(5),
                    Gen::Float(0.1),
                    Gen::Float(1e20),
                    Gen::Float(f64::INFINITY),
                    Gen::Float(f64::NAN),
                    Gen::Time("2014-01-01".into()),
                    Gen::Time("2014-01-01 10:00:00-05:00".into()),
                ]),
            ),
            (s("a"), y("$.x")),
            (s("c"), map(vec![])),
            (
                s("d"),
                Gen::Seq(vec![
                    Gen::Seq(vec![]),
                    Gen::Seq(vec![int(1), Gen::Seq(vec![int(2)])]),
                ]),
            ),
        ]);
        assert_eq!(
            tree.to_text(),
            "\"a\": !yaql \"$.x\"\n\"b\":\n- !!null \"null\"\n- !!bool \"true\"\n\
             - !!int \"5\"\n- !!float \"0.1\"\n- !!float \"1.0e+20\"\n- !!float \".inf\"\n\
             - !!float \".nan\"\n- !!timestamp \"2014-01-01\"\n\
             - !!timestamp \"2014-01-01 10:00:00-05:00\"\n\"c\": {}\n\"d\":\n- []\n\
             - - !!int \"1\"\n  - - !!int \"2\"\n"
        );
    }

    #[test]
    fn escapes_outside_printable_ascii() {
        let tree = map(vec![(
            s("t"),
            s("caf\u{e9} \u{2603} \u{1F600} \u{a0}\u{85}\u{feff}\t\"\\"),
        )]);
        assert_eq!(
            tree.to_text(),
            "\"t\": \"caf\\xE9 \\u2603 \\U0001F600 \\_\\N\\uFEFF\\t\\\"\\\\\"\n"
        );
    }

    #[test]
    fn long_scalars_fold_at_spaces() {
        let words = "word ".repeat(20) + "end";
        let expr = "x".repeat(75) + " => y";
        let tree = Gen::Seq(vec![map(vec![(s("key"), s(&words)), (s("k"), y(&expr))])]);
        let want = format!(
            "- \"k\": !yaql \"{}\\\n    \\ => y\"\n  \"key\": \"{}word\\\n    \\ {}end\"\n",
            "x".repeat(75),
            "word ".repeat(14),
            "word ".repeat(5)
        );
        assert_eq!(tree.to_text(), want);
    }

    #[test]
    fn complex_keys() {
        let long = "k".repeat(123);
        let tree = map(vec![
            (s(&long), int(1)),
            (s("a\nb"), map(vec![(s("x"), s("y"))])),
            (s(""), Gen::Seq(vec![int(1)])),
        ]);
        assert_eq!(
            tree.to_text(),
            format!(
                "? \"\"\n: - !!int \"1\"\n? \"a\\nb\"\n: \"x\": \"y\"\n? \"{long}\"\n: !!int \"1\"\n"
            )
        );
    }

    #[test]
    fn incomparable_keys_keep_insertion_order() {
        let tree = map(vec![
            (s("b"), int(1)),
            (int(2), s("x")),
            (s("a"), Gen::Null),
        ]);
        assert_eq!(
            tree.to_text(),
            "\"b\": !!int \"1\"\n!!int \"2\": \"x\"\n\"a\": !!null \"null\"\n"
        );
    }

    #[test]
    fn numeric_keys_sort_together() {
        let tree = map(vec![
            (int(2), s("a")),
            (Gen::Bool(true), s("b")),
            (Gen::Float(0.5), s("c")),
            (int(-3), s("d")),
        ]);
        assert_eq!(
            tree.to_text(),
            "!!int \"-3\": \"d\"\n!!float \"0.5\": \"c\"\n!!bool \"true\": \"b\"\n!!int \"2\": \"a\"\n"
        );
    }

    #[test]
    fn empty_root() {
        assert_eq!(map(vec![]).to_text(), "{}\n");
    }
}
