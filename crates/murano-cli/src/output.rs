//! Bounded printing. Everything the CLI writes to standard output goes
//! through one budget ([`set_limit`], `--max-output`), and values are
//! written as they are walked, never first expanded into a whole text or
//! a JSON tree: a value that shares one big string or list is small in
//! memory and can be exponentially long when printed. The text helpers
//! keep package text from steering a terminal ([`line`], [`block`]) and
//! cut long messages ([`cut`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use murano_yaml::convert::{self, ToJson};
use murano_yaql::eval::Value;
use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

/// The `--max-output` default: 64 MiB.
pub(crate) const DEFAULT_MAX_OUTPUT: u64 = 64 << 20;

/// The `--max-message` default, in bytes.
pub(crate) const DEFAULT_MAX_MESSAGE: usize = 4096;

/// Deepest nesting of collections written (as yaql's printer allows).
const MAX_DEPTH: usize = 1000;

/// The output limits every command that prints package values takes.
#[derive(clap::Args, Clone, Copy, Debug)]
pub(crate) struct OutputArgs {
    /// Most bytes written to standard output: longer output is cut there,
    /// with a note on standard error and exit status 1.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_OUTPUT)]
    pub(crate) max_output: u64,
    /// Longest message (an exception's, a log line's) printed whole, in
    /// bytes; a longer one is cut with a note of how much was left out.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub(crate) max_message: usize,
}

impl Default for OutputArgs {
    fn default() -> Self {
        OutputArgs {
            max_output: DEFAULT_MAX_OUTPUT,
            max_message: DEFAULT_MAX_MESSAGE,
        }
    }
}

/// Bytes standard output may still take.
static LEFT: AtomicU64 = AtomicU64::new(DEFAULT_MAX_OUTPUT);
/// The limit [`LEFT`] started from (for the note).
static LIMIT: AtomicU64 = AtomicU64::new(DEFAULT_MAX_OUTPUT);

/// Whether passing the budget ends the process (a command) or fails the
/// write (the interactive prompt, which goes on).
static EXIT_ON_CUT: AtomicBool = AtomicBool::new(true);

/// Sets the standard output budget to `limit` bytes from now on.
pub(crate) fn set_limit(limit: u64) {
    LIMIT.store(limit, Ordering::Relaxed);
    LEFT.store(limit, Ordering::Relaxed);
}

/// Makes passing the budget fail the write instead of ending the process.
pub(crate) fn keep_going_on_cut() {
    EXIT_ON_CUT.store(false, Ordering::Relaxed);
}

/// The longest prefix of `buf` of at most `n` bytes that does not split a
/// UTF-8 sequence.
fn char_prefix(buf: &[u8], n: usize) -> usize {
    let mut n = n.min(buf.len());
    while n > 0 && n < buf.len() && buf[n] & 0xC0 == 0x80 {
        n -= 1;
    }
    n
}

/// Standard output within the budget: the write that passes it writes
/// what fits, then the process ends with a note on standard error and
/// status 1 (or, after [`keep_going_on_cut`], the write fails with that
/// note). A closed standard output (`murano … | head`) ends it with
/// status 0, as a pipeline expects.
pub(crate) struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let len = buf.len() as u64;
        let left = LEFT
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |l| {
                Some(l.saturating_sub(len))
            })
            .unwrap_or(0);
        let mut out = io::stdout().lock();
        if len <= left {
            if out.write_all(buf).is_err() {
                std::process::exit(0);
            }
            return Ok(buf.len());
        }
        let n = char_prefix(buf, left as usize);
        if out.write_all(&buf[..n]).and_then(|_| out.flush()).is_err() {
            std::process::exit(0);
        }
        let _ = out.write_all(b"\n").and_then(|_| out.flush());
        let note = format!(
            "output cut at {} bytes (raise --max-output to see more)",
            LIMIT.load(Ordering::Relaxed)
        );
        if !EXIT_ON_CUT.load(Ordering::Relaxed) {
            return Err(io::Error::other(note));
        }
        eprintln!("murano: {note}");
        std::process::exit(1);
    }

    fn flush(&mut self) -> io::Result<()> {
        if io::stdout().lock().flush().is_err() {
            std::process::exit(0);
        }
        Ok(())
    }
}

/// Writes through `render` to standard output, buffered, within the
/// budget (a renderer's own error, e.g. nesting too deep, is returned).
pub(crate) fn emit(render: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, Stdout);
    render(&mut out)?;
    out.flush()
}

/// Text that stops growing at a limit: what passes it is dropped and
/// [`Capped::finish`] adds a note. For outputs built before they are
/// printed (the deploy plan, also served by `ui serve`).
pub(crate) struct Capped {
    text: String,
    limit: usize,
    cut: bool,
}

impl Capped {
    /// Empty text that holds at most `limit` bytes.
    pub(crate) fn new(limit: u64) -> Capped {
        Capped {
            text: String::new(),
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            cut: false,
        }
    }

    /// Appends `s`, or the part of it that fits.
    pub(crate) fn push_str(&mut self, s: &str) {
        if self.cut {
            return;
        }
        let room = self.limit - self.text.len();
        if s.len() <= room {
            self.text.push_str(s);
        } else {
            let n = char_prefix(s.as_bytes(), room);
            self.text.push_str(&s[..n]);
            self.cut = true;
        }
    }

    /// Appends one character.
    pub(crate) fn push(&mut self, c: char) {
        self.push_str(c.encode_utf8(&mut [0; 4]));
    }

    /// The text, with a closing note when it was cut; and whether it was.
    pub(crate) fn finish(mut self) -> (String, bool) {
        if self.cut {
            let _ = write!(
                self.text,
                "\n… output cut at {} bytes (raise --max-output to see more)",
                self.limit
            );
        }
        (self.text, self.cut)
    }
}

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.cut {
            return Err(io::Error::other("output limit reached"));
        }
        // serde_json writes whole UTF-8 sequences.
        self.push_str(&String::from_utf8_lossy(buf));
        if self.cut {
            return Err(io::Error::other("output limit reached"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// How [`JsonValue`] writes what JSON has no form for.
pub(crate) struct JsonStyle<'a> {
    /// Scalars (and opaque values) as [`convert::to_json`] writes them.
    pub(crate) scalars: ToJson,
    /// A dictionary key's text.
    pub(crate) key: &'a dyn Fn(&Value) -> String,
    /// A value written as this JSON instead (`murano run`'s objects as
    /// their model header).
    pub(crate) replace: &'a dyn Fn(&Value) -> Option<serde_json::Value>,
}

/// A YAQL value serialised as it is walked: shared parts are written
/// each time they occur, and nothing but the current path is held, so
/// printing is bounded by the output budget alone.
pub(crate) struct JsonValue<'a> {
    value: &'a Value,
    style: &'a JsonStyle<'a>,
    depth: usize,
}

impl<'a> JsonValue<'a> {
    /// `value` written in `style`.
    pub(crate) fn new(value: &'a Value, style: &'a JsonStyle<'a>) -> JsonValue<'a> {
        JsonValue {
            value,
            style,
            depth: 0,
        }
    }

    fn child(&self, value: &'a Value) -> JsonValue<'a> {
        JsonValue {
            value,
            style: self.style,
            depth: self.depth + 1,
        }
    }

    fn seq<S: Serializer>(&self, items: &'a [Value], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(items.len()))?;
        for item in items {
            seq.serialize_element(&self.child(item))?;
        }
        seq.end()
    }
}

impl Serialize for JsonValue<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Some(json) = (self.style.replace)(self.value) {
            return json.serialize(s);
        }
        let nests = matches!(
            self.value,
            Value::List(_) | Value::Tuple(_) | Value::Set(_) | Value::Dict(_)
        );
        if nests && self.depth > MAX_DEPTH {
            return Err(S::Error::custom(format!(
                "collections nest deeper than {MAX_DEPTH}"
            )));
        }
        match self.value {
            Value::Str(text) => s.serialize_str(text),
            Value::List(items) => self.seq(items, s),
            Value::Tuple(items) if self.style.scalars.tag_tuples => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_key("tuple")?;
                map.serialize_value(&TupleItems(self, items))?;
                map.end()
            }
            Value::Tuple(items) => self.seq(items, s),
            Value::Set(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items.iter() {
                    seq.serialize_element(&self.child(item))?;
                }
                seq.end()
            }
            Value::Dict(d) => {
                // As a JSON object keeps them: one entry per key text, at
                // its first place, with its last value.
                let mut entries: Vec<(String, &Value)> = Vec::with_capacity(d.len());
                let mut seen: HashMap<String, usize> = HashMap::new();
                for (k, v) in d.iter() {
                    let key = (self.style.key)(k);
                    match seen.get(&key) {
                        Some(&i) => entries[i].1 = v,
                        None => {
                            seen.insert(key.clone(), entries.len());
                            entries.push((key, v));
                        }
                    }
                }
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in &entries {
                    map.serialize_entry(k, &self.child(v))?;
                }
                map.end()
            }
            scalar => convert::to_json(scalar, &self.style.scalars).serialize(s),
        }
    }
}

/// A tagged tuple's items.
struct TupleItems<'a, 'b>(&'b JsonValue<'a>, &'a [Value]);

impl Serialize for TupleItems<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.seq(self.1, s)
    }
}

/// serde_json's pretty layout, with the characters a terminal acts on
/// that JSON leaves raw (C1 controls, bidirectional overrides; serde_json
/// already escapes C0) written as `\uXXXX` escapes: the same JSON value.
struct TerminalSafe(serde_json::ser::PrettyFormatter<'static>);

impl serde_json::ser::Formatter for TerminalSafe {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if is_unsafe(c) {
                w.write_all(&fragment.as_bytes()[start..i])?;
                // All of them are in the Basic Multilingual Plane.
                write!(w, "\\u{:04x}", c as u32)?;
                start = i + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[start..])
    }
}

/// Writes `value` as pretty JSON and a line break to standard output
/// within the budget (characters a terminal acts on escaped).
pub(crate) fn print_json(value: &impl Serialize) -> io::Result<()> {
    emit(|w| {
        write_json(&mut *w, value)?;
        w.write_all(b"\n")
    })
}

/// Writes `value` as pretty JSON to `w`, as it is walked (characters a
/// terminal acts on escaped).
pub(crate) fn write_json(w: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    let formatter = TerminalSafe(serde_json::ser::PrettyFormatter::new());
    let mut json = serde_json::Serializer::with_formatter(w, formatter);
    value.serialize(&mut json).map_err(io::Error::other)
}

/// Whether `c` must not reach a terminal raw: C0 controls, DEL, C1
/// controls, and the bidirectional overrides that reorder what is shown.
fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn escape(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    let keep = |c: char| keep_newlines && (c == '\n' || c == '\t');
    if !text.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if keep(c) || !is_unsafe(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

/// One line of package text for a terminal: control characters (line
/// breaks too, so a message cannot forge the lines around it) as visible
/// escapes (`\n`, `\u{1b}`).
pub(crate) fn line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// Several lines of package text for a terminal (a trace): as [`line`],
/// but line breaks and tabs kept.
pub(crate) fn block(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// A rendered trace for a terminal: each line cut to `max` bytes (a
/// source line can be a whole file), then [`block`].
pub(crate) fn trace(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(1 << 16));
    for l in text.split_inclusive('\n') {
        let (body, end) = l.strip_suffix('\n').map_or((l, ""), |b| (b, "\n"));
        out.push_str(&block(&cut(body, max)));
        out.push_str(end);
    }
    out
}

/// `text` whole when it has at most `max` bytes; else its first `max`
/// bytes (whole characters) and a note of how many bytes were left out.
pub(crate) fn cut(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let n = char_prefix(text.as_bytes(), max);
    Cow::Owned(format!(
        "{}… [{} more bytes cut]",
        &text[..n],
        text.len() - n
    ))
}

/// A message for a terminal: [`cut`] to `max` bytes, then [`line`].
pub(crate) fn message(text: &str, max: usize) -> String {
    line(&cut(text, max)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_visible_and_lines_stay_lines() {
        assert_eq!(line("a\x1b[31mb\x07\0\nc"), "a\\u{1b}[31mb\\u{7}\\u{0}\\nc");
        assert_eq!(block("a\x1b\nb\tc"), "a\\u{1b}\nb\tc");
        assert!(matches!(line("plain é"), Cow::Borrowed(_)));
        assert_eq!(line("\u{202e}x\u{9b}"), "\\u{202e}x\\u{9b}");
    }

    #[test]
    fn traces_cut_each_line() {
        assert_eq!(trace("ab\ncdef\x1b\n", 3), "ab\ncde… [2 more bytes cut]\n");
        assert_eq!(trace("a\x1b\nb", 3), "a\\u{1b}\nb");
    }

    #[test]
    fn cut_keeps_whole_characters_and_counts_the_rest() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcdef", 3), "abc… [3 more bytes cut]");
        assert_eq!(cut("aéé", 2), "a… [4 more bytes cut]");
    }

    #[test]
    fn capped_text_stops_at_its_limit() {
        let mut c = Capped::new(5);
        c.push_str("abc");
        c.push_str("déf");
        c.push('x');
        let (text, cut) = c.finish();
        assert!(cut);
        assert!(text.starts_with("abcd\n… output cut at 5 bytes"), "{text}");
    }

    #[test]
    fn json_escapes_what_a_terminal_acts_on_and_stays_the_same_value() {
        let text = "a\u{9b}31m\u{202e}b\u{1b}c é";
        let mut out = Vec::new();
        let mut json = serde_json::Serializer::with_formatter(
            &mut out,
            TerminalSafe(serde_json::ser::PrettyFormatter::new()),
        );
        serde_json::json!({"k": [text]})
            .serialize(&mut json)
            .unwrap();
        let printed = String::from_utf8(out).unwrap();
        assert_eq!(
            printed,
            "{\n  \"k\": [\n    \"a\\u009b31m\\u202eb\\u001bc é\"\n  ]\n}"
        );
        let back: serde_json::Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(back["k"][0], text);
    }

    #[test]
    fn shared_values_stream_and_stop_at_the_limit() {
        let mut v = Value::Int(1);
        for _ in 0..40 {
            v = Value::List(std::sync::Arc::new(vec![v.clone(), v]));
        }
        let style = JsonStyle {
            scalars: ToJson::default(),
            key: &|k| k.py_str(),
            replace: &|_| None,
        };
        let mut out = Capped::new(1 << 16);
        let r = serde_json::to_writer_pretty(&mut out, &JsonValue::new(&v, &style));
        assert!(r.is_err());
        assert!(out.finish().1);
    }
}
