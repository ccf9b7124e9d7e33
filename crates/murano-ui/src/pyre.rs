//! Python `re` patterns on top of `fancy-regex`: `$` also matches before a
//! final newline, `\Z` is the end of the text, `(?P=name)` back-references,
//! and the `/pattern/flags` notation of `regexpValidator`.
//!
//! ```
//! use murano_ui::pyre::PyRegex;
//!
//! let r = PyRegex::from_validator_text("/^abc$/i")?;
//! assert!(r.search("ABC\n"));
//! assert!(!r.search("abcd"));
//! # Ok::<(), String>(())
//! ```

/// Python `re` flag bits.
pub mod flags {
    /// `re.IGNORECASE`.
    pub const IGNORECASE: u32 = 2;
    /// `re.MULTILINE`.
    pub const MULTILINE: u32 = 8;
    /// `re.DOTALL`.
    pub const DOTALL: u32 = 16;
    /// `re.VERBOSE`.
    pub const VERBOSE: u32 = 64;
}

/// A compiled Python pattern.
#[derive(Debug, Clone)]
pub struct PyRegex {
    /// The pattern as written.
    pub pattern: String,
    /// Python flag bits.
    pub flags: u32,
    regex: fancy_regex::Regex,
}

fn octal_escape(chars: &[char], i: usize, out: &mut String) -> usize {
    // `\0`, `\0d`, `\0dd`: octal, as Python reads it.
    let mut n = 0u32;
    let mut k = i + 1;
    let mut count = 0;
    while count < 3 && k < chars.len() && ('0'..='7').contains(&chars[k]) {
        n = n * 8 + chars[k].to_digit(8).unwrap_or(0);
        k += 1;
        count += 1;
    }
    out.push_str(&format!("\\x{{{n:x}}}"));
    k
}

fn is_quantifier(chars: &[char], i: usize) -> bool {
    // `{n}`, `{n,}`, `{,m}`, `{n,m}` starting at `chars[i] == '{'`.
    let mut k = i + 1;
    let mut digits = 0;
    let mut comma = false;
    while k < chars.len() {
        match chars[k] {
            '0'..='9' => digits += 1,
            ',' if !comma => comma = true,
            '}' => return digits > 0,
            _ => return false,
        }
        k += 1;
    }
    false
}

fn translate(pattern: &str, multiline: bool) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    let mut in_class = false;
    // In a class: whether the last item can start a range, and whether
    // we are right after the opening bracket.
    let mut class_atoms = 0usize;
    let mut after_range = false;
    let mut quant_open = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            let n = chars[i + 1];
            if n == '0' {
                i = octal_escape(&chars, i + 1, &mut out);
            } else if !in_class && n == 'Z' {
                out.push_str("\\z");
                i += 2;
            } else {
                out.push(c);
                out.push(n);
                i += 2;
            }
            if in_class {
                class_atoms += 1;
                after_range = false;
            }
            continue;
        }
        if in_class {
            match c {
                ']' => {
                    in_class = false;
                    out.push(']');
                }
                '[' => {
                    out.push_str("\\[");
                    class_atoms += 1;
                    after_range = false;
                }
                '-' => {
                    let next = chars.get(i + 1).copied();
                    let literal = class_atoms == 0 || after_range || next == Some(']');
                    if literal {
                        out.push_str("\\-");
                        class_atoms += 1;
                        after_range = false;
                    } else {
                        out.push('-');
                        // the range end follows
                        i += 1;
                        if chars.get(i) == Some(&'\\') && i + 1 < chars.len() {
                            if chars[i + 1] == '0' {
                                i = octal_escape(&chars, i + 1, &mut out);
                            } else {
                                out.push('\\');
                                out.push(chars[i + 1]);
                                i += 2;
                            }
                        } else if let Some(e) = chars.get(i) {
                            if matches!(e, '[' | '&' | '~' | '-') {
                                out.push('\\');
                            }
                            out.push(*e);
                            i += 1;
                        }
                        after_range = true;
                        continue;
                    }
                }
                '&' | '~' => {
                    out.push('\\');
                    out.push(c);
                    class_atoms += 1;
                    after_range = false;
                }
                _ => {
                    out.push(c);
                    class_atoms += 1;
                    after_range = false;
                }
            }
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                class_atoms = 0;
                after_range = false;
                out.push('[');
                if chars.get(i + 1) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i + 1) == Some(&']') {
                    out.push_str("\\]");
                    class_atoms = 1;
                    i += 1;
                }
            }
            '$' if !multiline => out.push_str("(?:(?=\\n\\z)|\\z)"),
            '{' => {
                if is_quantifier(&chars, i) {
                    quant_open = true;
                    out.push('{');
                } else {
                    out.push_str("\\{");
                }
            }
            '}' => {
                if quant_open {
                    quant_open = false;
                    out.push('}');
                } else {
                    out.push_str("\\}");
                }
            }
            '(' if chars.get(i + 1) == Some(&'?')
                && chars.get(i + 2) == Some(&'P')
                && chars.get(i + 3) == Some(&'=') =>
            {
                let rest: String = chars[i + 4..].iter().collect();
                if let Some(end) = rest.find(')') {
                    out.push_str("\\k<");
                    out.push_str(&rest[..end]);
                    out.push('>');
                    i += 4 + rest[..end].chars().count() + 1;
                    continue;
                }
                out.push(c);
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

impl PyRegex {
    /// Compiles `pattern` with Python flag bits.
    pub fn new(pattern: &str, flag_bits: u32) -> Result<PyRegex, String> {
        let mut prefix = String::new();
        if flag_bits & flags::IGNORECASE != 0 {
            prefix.push('i');
        }
        if flag_bits & flags::MULTILINE != 0 {
            prefix.push('m');
        }
        if flag_bits & flags::DOTALL != 0 {
            prefix.push('s');
        }
        if flag_bits & flags::VERBOSE != 0 {
            prefix.push('x');
        }
        let body = translate(pattern, flag_bits & flags::MULTILINE != 0);
        let full = if prefix.is_empty() {
            body
        } else {
            format!("(?{prefix}){body}")
        };
        let regex = fancy_regex::RegexBuilder::new(&full)
            .backtrack_limit(1_000_000)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(PyRegex {
            pattern: pattern.to_owned(),
            flags: flag_bits,
            regex,
        })
    }

    /// The dashboard's `prepare_regexp`: `/pattern/flags` or a bare pattern.
    pub fn from_validator_text(text: &str) -> Result<PyRegex, String> {
        if let Some(rest) = text.strip_prefix('/') {
            let Some(slash) = rest.rfind('/') else {
                return Err("'NoneType' object has no attribute 'groups'".into());
            };
            let (body, letters) = (&rest[..slash], &rest[slash + 1..]);
            if !letters.chars().all(|c| c.is_ascii_alphabetic()) {
                return Err("'NoneType' object has no attribute 'groups'".into());
            }
            let mut bits = 0;
            for c in letters.chars() {
                bits |= match c.to_ascii_uppercase() {
                    'I' => flags::IGNORECASE,
                    'M' => flags::MULTILINE,
                    'S' => flags::DOTALL,
                    'X' => flags::VERBOSE,
                    _ => 0,
                };
            }
            PyRegex::new(body, bits)
        } else {
            PyRegex::new(text, 0)
        }
    }

    /// `re.search`: whether the pattern matches anywhere (a failure of the
    /// matcher, e.g. too much backtracking, counts as no match).
    pub fn search(&self, text: &str) -> bool {
        self.regex.is_match(text).unwrap_or(false)
    }

    /// `re.match`: whether the pattern matches at the start.
    pub fn match_start(&self, text: &str) -> bool {
        PyRegex::new(&format!("\\A(?:{})", self.pattern), self.flags)
            .map(|r| r.search(text))
            .unwrap_or(false)
    }
}
