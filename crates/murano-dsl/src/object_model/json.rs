//! JSON text in and out, as Python's `json` module reads and writes it
//! (Murano's API and the dashboard use `json.loads` / `json.dumps`).

use std::fmt::Write as _;

use super::error::{ErrorKind, JsonError, ObjectModelError};
use super::path::{Path, Segment};
use super::value::{json_float, Map, Value};
use crate::yaml::Int;

/// How [`Value::to_json_with`] writes JSON; the default is
/// `json.dumps(value)`.
///
/// ```
/// use murano_dsl::object_model::{JsonOptions, Value};
///
/// let value = Value::from_json(r#"{"name": "caf\u00e9", "ports": [80, 443]}"#)?;
/// assert_eq!(value.to_json()?, r#"{"name": "caf\u00e9", "ports": [80, 443]}"#);
/// let pretty = JsonOptions::default().with_indent(2).with_ensure_ascii(false);
/// assert_eq!(value.to_json_with(&pretty)?, "{\n  \"name\": \"café\",\n  \"ports\": [\n    80,\n    443\n  ]\n}");
/// # Ok::<(), murano_dsl::object_model::ObjectModelError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct JsonOptions {
    /// `indent=`: `None` writes one line with `", "` and `": "`
    /// separators; `Some(n)` writes one item per line, `n` spaces per
    /// level, with `","` and `": "`.
    pub indent: Option<usize>,
    /// `ensure_ascii=` (default true): write every non-ASCII character as
    /// `\uXXXX`.
    pub ensure_ascii: bool,
}

impl Default for JsonOptions {
    fn default() -> Self {
        JsonOptions {
            indent: None,
            ensure_ascii: true,
        }
    }
}

impl JsonOptions {
    /// Sets [`JsonOptions::indent`].
    pub fn with_indent(mut self, indent: usize) -> Self {
        self.indent = Some(indent);
        self
    }

    /// Sets [`JsonOptions::ensure_ascii`].
    pub fn with_ensure_ascii(mut self, ensure_ascii: bool) -> Self {
        self.ensure_ascii = ensure_ascii;
        self
    }
}

/// Deepest nesting the JSON reader and writer accept (Python's own limit
/// is its recursion limit, about 1000).
pub const MAX_JSON_DEPTH: usize = 512;

impl Value {
    /// Reads JSON text as `json.loads` does: a repeated key keeps its first
    /// position and its last value; `NaN`, `Infinity` and `-Infinity` are
    /// numbers; integers are unbounded. Two deliberate differences: a
    /// `\u` escape of a lone surrogate is an error (Rust strings cannot
    /// hold one), and nesting is limited to [`MAX_JSON_DEPTH`].
    ///
    /// ```
    /// use murano_dsl::object_model::Value;
    ///
    /// let value = Value::from_json(r#"{"a": 1, "b": 2, "a": 3}"#)?;
    /// assert_eq!(value.to_json()?, r#"{"a": 3, "b": 2}"#);
    /// let err = Value::from_json("[1, 2,]").unwrap_err();
    /// assert_eq!(err.to_string(), "Expecting value: line 1 column 7 (char 6)");
    /// # Ok::<(), murano_dsl::object_model::ObjectModelError>(())
    /// ```
    pub fn from_json(text: &str) -> Result<Value, ObjectModelError> {
        Reader::new(text).document()
    }

    /// Writes the value as `json.dumps(value)` does.
    pub fn to_json(&self) -> Result<String, ObjectModelError> {
        self.to_json_with(&JsonOptions::default())
    }

    /// Writes the value as `json.dumps` does with the given options. Keys
    /// that are numbers, booleans or null are written as strings (`1`,
    /// `true`, `null`) as Python does; an expression, or a list or mapping
    /// used as a key, is an error.
    pub fn to_json_with(&self, options: &JsonOptions) -> Result<String, ObjectModelError> {
        let mut writer = Writer {
            out: String::new(),
            options,
            path: Path::root(),
        };
        writer.value(self, 0)?;
        Ok(writer.out)
    }
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str) -> Reader<'a> {
        Reader {
            text,
            bytes: text.as_bytes(),
            pos: 0,
        }
    }

    fn error_at(&self, message: impl Into<String>, byte_pos: usize) -> ObjectModelError {
        let before = self.text.get(..byte_pos).unwrap_or(self.text);
        let offset = before.chars().count();
        let line = before.matches('\n').count() + 1;
        let column = match before.rfind('\n') {
            Some(nl) => before[nl + 1..].chars().count() + 1,
            None => offset + 1,
        };
        ObjectModelError::new(
            Path::root(),
            ErrorKind::Json(JsonError {
                message: message.into(),
                line,
                column,
                offset,
            }),
        )
    }

    fn document(mut self) -> Result<Value, ObjectModelError> {
        if self.text.starts_with('\u{feff}') {
            return Err(self.error_at("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0));
        }
        self.skip_ws();
        let value = self.value(0)?;
        self.skip_ws();
        if self.pos < self.bytes.len() {
            return Err(self.error_at("Extra data", self.pos));
        }
        Ok(value)
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn starts_with(&self, word: &str) -> bool {
        self.bytes[self.pos..].starts_with(word.as_bytes())
    }

    /// A value at the current position (whitespace already skipped).
    fn value(&mut self, depth: usize) -> Result<Value, ObjectModelError> {
        if depth >= MAX_JSON_DEPTH {
            return Err(ObjectModelError::new(
                Path::root(),
                ErrorKind::TooDeep(MAX_JSON_DEPTH),
            ));
        }
        match self.peek() {
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'n') if self.starts_with("null") => {
                self.pos += 4;
                Ok(Value::Null)
            }
            Some(b't') if self.starts_with("true") => {
                self.pos += 4;
                Ok(Value::Bool(true))
            }
            Some(b'f') if self.starts_with("false") => {
                self.pos += 5;
                Ok(Value::Bool(false))
            }
            Some(b'N') if self.starts_with("NaN") => {
                self.pos += 3;
                Ok(Value::Float(f64::NAN))
            }
            Some(b'I') if self.starts_with("Infinity") => {
                self.pos += 8;
                Ok(Value::Float(f64::INFINITY))
            }
            Some(b'-') if self.starts_with("-Infinity") => {
                self.pos += 9;
                Ok(Value::Float(f64::NEG_INFINITY))
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.error_at("Expecting value", self.pos)),
        }
    }

    fn number(&mut self) -> Result<Value, ObjectModelError> {
        let start = self.pos;
        let digits = |r: &mut Reader<'_>| {
            let from = r.pos;
            while let Some(b'0'..=b'9') = r.peek() {
                r.pos += 1;
            }
            r.pos - from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.error_at("Expecting value", start)),
        }
        let mut is_float = false;
        if self.peek() == Some(b'.') && matches!(self.bytes.get(self.pos + 1), Some(b'0'..=b'9')) {
            self.pos += 1;
            digits(self);
            is_float = true;
        }
        if let Some(b'e' | b'E') = self.peek() {
            let save = self.pos;
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if digits(self) == 0 {
                self.pos = save;
            } else {
                is_float = true;
            }
        }
        let text = &self.text[start..self.pos];
        if is_float {
            // Rust's parser rounds correctly, as Python's float() does;
            // overflow gives an infinity in both.
            let x: f64 = text
                .parse()
                .map_err(|_| self.error_at("Expecting value", start))?;
            return Ok(Value::Float(x));
        }
        // Python's int() refuses more than 4300 digits with a ValueError
        // (which json.loads lets through); placed here at the number.
        let digits = text.len() - usize::from(text.starts_with('-'));
        if digits > murano_yaql::pyint::MAX_STR_DIGITS {
            let message = murano_yaql::pyint::too_many_digits_message(digits);
            return Err(self.error_at(message, start));
        }
        Ok(Value::Int(parse_int(text)))
    }

    /// A string starting at the opening quote.
    fn string(&mut self) -> Result<String, ObjectModelError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let chunk_start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(&self.text[chunk_start..self.pos]);
            match self.peek() {
                None => return Err(self.error_at("Unterminated string starting at", start)),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out, start)?;
                }
                Some(_) => return Err(self.error_at("Invalid control character at", self.pos)),
            }
        }
    }

    fn escape(&mut self, out: &mut String, start: usize) -> Result<(), ObjectModelError> {
        let Some(c) = self.text[self.pos..].chars().next() else {
            return Err(self.error_at("Unterminated string starting at", start));
        };
        let simple = match c {
            '"' => Some('"'),
            '\\' => Some('\\'),
            '/' => Some('/'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            self.pos += 1;
            return Ok(());
        }
        if c != 'u' {
            return Err(self.error_at("Invalid \\escape", self.pos - 1));
        }
        let escape_pos = self.pos - 1;
        let first = self.hex4(self.pos + 1, self.pos)?;
        self.pos += 5;
        let code = if (0xd800..0xdc00).contains(&first)
            && self.pos + 6 < self.bytes.len()
            && self.text[self.pos..].starts_with("\\u")
        {
            let second = self.hex4(self.pos + 2, self.pos + 1)?;
            if (0xdc00..0xe000).contains(&second) {
                self.pos += 6;
                0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00)
            } else {
                first
            }
        } else {
            first
        };
        match char::from_u32(code) {
            Some(ch) => {
                out.push(ch);
                Ok(())
            }
            None => Err(self.error_at(
                format!("Lone surrogate \\u{code:04x} is not supported"),
                escape_pos,
            )),
        }
    }

    /// Four hex digits at `at`; errors are placed at `u_pos` (the `u`),
    /// and, as in Python's C scanner, the digits must not end the text.
    fn hex4(&self, at: usize, u_pos: usize) -> Result<u32, ObjectModelError> {
        if at + 4 >= self.bytes.len() {
            return Err(self.error_at("Invalid \\uXXXX escape", u_pos));
        }
        match self.bytes.get(at..at + 4) {
            Some(d) if d.iter().all(u8::is_ascii_hexdigit) => {
                let text = std::str::from_utf8(d).unwrap_or("0");
                Ok(u32::from_str_radix(text, 16).unwrap_or(0))
            }
            _ => Err(self.error_at("Invalid \\uXXXX escape", u_pos)),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, ObjectModelError> {
        self.pos += 1;
        let mut map = Map::new();
        self.skip_ws();
        match self.peek() {
            Some(b'}') => {
                self.pos += 1;
                return Ok(Value::Map(map));
            }
            Some(b'"') => {}
            _ => {
                return Err(self.error_at(
                    "Expecting property name enclosed in double quotes",
                    self.pos,
                ))
            }
        }
        loop {
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.error_at("Expecting ':' delimiter", self.pos));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth + 1)?;
            map.insert(Value::Str(key), value);
            self.skip_ws();
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Map(map));
                }
                Some(b',') => self.pos += 1,
                _ => return Err(self.error_at("Expecting ',' delimiter", self.pos)),
            }
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error_at(
                    "Expecting property name enclosed in double quotes",
                    self.pos,
                ));
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, ObjectModelError> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::List(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::List(items));
                }
                Some(b',') => self.pos += 1,
                _ => return Err(self.error_at("Expecting ',' delimiter", self.pos)),
            }
            self.skip_ws();
        }
    }
}

/// An integer literal (optional `-`, ASCII digits, no leading zeros).
fn parse_int(text: &str) -> Int {
    match text.parse::<i64>() {
        Ok(n) => Int::Small(n),
        Err(_) => Int::Big(text.to_owned()),
    }
}

struct Writer<'o> {
    out: String,
    options: &'o JsonOptions,
    path: Path,
}

impl Writer<'_> {
    fn fail(&self, kind: ErrorKind) -> ObjectModelError {
        ObjectModelError::new(self.path.clone(), kind)
    }

    fn newline(&mut self, level: usize) {
        if let Some(indent) = self.options.indent {
            self.out.push('\n');
            self.out.extend(std::iter::repeat_n(' ', indent * level));
        }
    }

    fn item_separator(&self) -> &'static str {
        if self.options.indent.is_some() {
            ","
        } else {
            ", "
        }
    }

    fn value(&mut self, value: &Value, depth: usize) -> Result<(), ObjectModelError> {
        if depth >= MAX_JSON_DEPTH {
            return Err(self.fail(ErrorKind::TooDeep(MAX_JSON_DEPTH)));
        }
        match value {
            Value::Null => self.out.push_str("null"),
            Value::Bool(true) => self.out.push_str("true"),
            Value::Bool(false) => self.out.push_str("false"),
            Value::Int(i) => {
                let _ = write!(self.out, "{i}");
            }
            Value::Float(x) => self.out.push_str(&json_float(*x)),
            Value::Str(s) => self.string(s),
            Value::Yaql(text) => return Err(self.fail(ErrorKind::YaqlInJson(text.clone()))),
            Value::List(items) => {
                if items.is_empty() {
                    self.out.push_str("[]");
                    return Ok(());
                }
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(self.item_separator());
                    }
                    self.newline(depth + 1);
                    self.path.push(Segment::Index(i));
                    self.value(item, depth + 1)?;
                    self.path.pop();
                }
                self.newline(depth);
                self.out.push(']');
            }
            Value::Map(map) => {
                if map.is_empty() {
                    self.out.push_str("{}");
                    return Ok(());
                }
                self.out.push('{');
                for (i, (key, item)) in map.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(self.item_separator());
                    }
                    self.newline(depth + 1);
                    let Some(key_text) = key.json_key_text() else {
                        return Err(self.fail(ErrorKind::KeyNotJson(key.type_name())));
                    };
                    self.string(&key_text);
                    self.out.push_str(": ");
                    self.path.push(Segment::Key(key.path_key_text()));
                    self.value(item, depth + 1)?;
                    self.path.pop();
                }
                self.newline(depth);
                self.out.push('}');
            }
        }
        Ok(())
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '\u{8}' => self.out.push_str("\\b"),
                '\u{c}' => self.out.push_str("\\f"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(self.out, "\\u{:04x}", c as u32);
                }
                c if self.options.ensure_ascii && !c.is_ascii() => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        let _ = write!(self.out, "\\u{unit:04x}");
                    }
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        Value::from_json(text).unwrap_err().to_string()
    }

    #[test]
    fn python_error_messages() {
        assert_eq!(err(""), "Expecting value: line 1 column 1 (char 0)");
        assert_eq!(
            err("{\"a\" 1}"),
            "Expecting ':' delimiter: line 1 column 6 (char 5)"
        );
        assert_eq!(
            err("{\"a\": 1,}"),
            "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)"
        );
        assert_eq!(
            err("{'a': 1}"),
            "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
        );
        assert_eq!(
            err("[1 2]"),
            "Expecting ',' delimiter: line 1 column 4 (char 3)"
        );
        assert_eq!(err("[1]\n x"), "Extra data: line 2 column 2 (char 5)");
        assert_eq!(
            err("\"ab"),
            "Unterminated string starting at: line 1 column 1 (char 0)"
        );
        assert_eq!(
            err("\"a\tb\""),
            "Invalid control character at: line 1 column 3 (char 2)"
        );
        assert_eq!(err("\"\\x\""), "Invalid \\escape: line 1 column 2 (char 1)");
        assert_eq!(
            err("\"\\u12\""),
            "Invalid \\uXXXX escape: line 1 column 3 (char 2)"
        );
        assert_eq!(
            err("\"\\u12x4\""),
            "Invalid \\uXXXX escape: line 1 column 3 (char 2)"
        );
        assert_eq!(
            err("\"\\ud800\\u12x4\""),
            "Invalid \\uXXXX escape: line 1 column 9 (char 8)"
        );
        assert_eq!(err("01"), "Extra data: line 1 column 2 (char 1)");
        assert_eq!(err("-"), "Expecting value: line 1 column 1 (char 0)");
        assert_eq!(
            err("\u{feff}{}"),
            "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"
        );
        assert!(err("\"\\ud800\"").starts_with("Lone surrogate"));
    }

    #[test]
    fn integers_past_pythons_digit_limit_are_refused() {
        let nines = "9".repeat(4300);
        assert!(Value::from_json(&format!("[-{nines}]")).is_ok());
        assert_eq!(
            err(&format!("[1, -{nines}9]")),
            format!(
                "{}: line 1 column 5 (char 4)",
                murano_yaql::pyint::too_many_digits_message(4301)
            )
        );
        let million = format!("{{\"a\": {}}}", "1".repeat(1_000_000));
        assert!(err(&million).contains("value has 1000000 digits"));
    }

    #[test]
    fn numbers() {
        let v = Value::from_json("[0, -0, 1.5, 1e2, 1E-2, 12345678901234567890, -9223372036854775808, NaN, -Infinity, 1.]");
        assert!(v.is_err()); // "1." is not a number in JSON
        let v = Value::from_json(
            "[0, -0, 1.5, 1e2, 1E-2, 12345678901234567890, -9223372036854775808, NaN, -Infinity]",
        )
        .unwrap();
        assert_eq!(
            v.to_json().unwrap(),
            "[0, 0, 1.5, 100.0, 0.01, 12345678901234567890, -9223372036854775808, NaN, -Infinity]"
        );
        assert_eq!(
            Value::from_json("1e400").unwrap(),
            Value::Float(f64::INFINITY)
        );
        assert_eq!(Value::from_json(" 2 ").unwrap(), Value::from(2));
    }

    #[test]
    fn strings_and_escapes() {
        let v = Value::from_json(r#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#).unwrap();
        assert_eq!(v, Value::from("a\"\\/\u{8}\u{c}\n\r\té😀"));
        assert_eq!(
            v.to_json().unwrap(),
            r#""a\"\\/\b\f\n\r\t\u00e9\ud83d\ude00""#
        );
        let raw = v
            .to_json_with(&JsonOptions::default().with_ensure_ascii(false))
            .unwrap();
        assert_eq!(raw, "\"a\\\"\\\\/\\b\\f\\n\\r\\té😀\"");
        assert_eq!(
            Value::from("\u{1}\u{7f}").to_json().unwrap(),
            "\"\\u0001\u{7f}\""
        );
    }

    #[test]
    fn keys_as_python_writes_them() {
        let map: Map = [
            (Value::Null, Value::from(1)),
            (Value::from(true), Value::from(2)),
            (Value::from(2.5), Value::from(3)),
            (Value::from(7), Value::from(4)),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            Value::Map(map).to_json().unwrap(),
            r#"{"null": 1, "true": 2, "2.5": 3, "7": 4}"#
        );
        let bad: Map = [(Value::Yaql("$.a".into()), Value::Null)]
            .into_iter()
            .collect();
        let e = Value::List(vec![Value::Map(bad)]).to_json().unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::KeyNotJson("yaql")));
        assert_eq!(e.path().to_string(), "/0");
        let e = Value::from_json(r#"{"a": [1]}"#).unwrap();
        let mut map = e.as_map().unwrap().clone();
        map.insert("b".into(), Value::List(vec![Value::Yaql("$x".into())]));
        let e = Value::Map(map).to_json().unwrap_err();
        assert_eq!(e.path().to_string(), "/b/0");
    }

    #[test]
    fn pretty_printing() {
        let v = Value::from_json(r#"{"a": [], "b": {}, "c": [1, {"d": null}]}"#).unwrap();
        let text = v
            .to_json_with(&JsonOptions::default().with_indent(1))
            .unwrap();
        assert_eq!(
            text,
            "{\n \"a\": [],\n \"b\": {},\n \"c\": [\n  1,\n  {\n   \"d\": null\n  }\n ]\n}"
        );
        assert_eq!(Value::from_json(&text).unwrap(), v);
    }

    #[test]
    fn depth_is_limited() {
        let deep = "[".repeat(MAX_JSON_DEPTH + 1) + &"]".repeat(MAX_JSON_DEPTH + 1);
        assert!(matches!(
            Value::from_json(&deep).unwrap_err().kind(),
            ErrorKind::TooDeep(_)
        ));
        let ok = "[".repeat(MAX_JSON_DEPTH) + &"]".repeat(MAX_JSON_DEPTH);
        assert!(Value::from_json(&ok).is_ok());
    }
}
