//! Python `re` pattern syntax on top of `fancy-regex`, shared by the
//! evaluator's regex functions and the dashboard's validators.

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

/// Most backtracking steps one match may take: catastrophic patterns end
/// with an error instead of running for hours.
pub const BACKTRACK_LIMIT: usize = 1_000_000;

/// Compiles a Python pattern with Python's `re` flag bits (the four of
/// [`flags`]; others are ignored): the one place both the evaluator's
/// regex functions and the dashboard's validators build a regex.
///
/// ```
/// use murano_yaql::pyre::{compile, flags};
/// let r = compile("^abc$", flags::IGNORECASE).unwrap();
/// assert!(r.is_match("ABC\n").unwrap());
/// ```
pub fn compile(pattern: &str, flag_bits: u32) -> Result<fancy_regex::Regex, String> {
    let mut prefix = String::new();
    for (bit, letter) in [
        (flags::IGNORECASE, 'i'),
        (flags::MULTILINE, 'm'),
        (flags::DOTALL, 's'),
        (flags::VERBOSE, 'x'),
    ] {
        if flag_bits & bit != 0 {
            prefix.push(letter);
        }
    }
    let body = translate(pattern, flag_bits & flags::MULTILINE != 0);
    let full = if prefix.is_empty() {
        body
    } else {
        format!("(?{prefix}){body}")
    };
    fancy_regex::RegexBuilder::new(&full)
        .backtrack_limit(BACKTRACK_LIMIT)
        .build()
        .map_err(|e| e.to_string())
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

/// The quantifier starting at `chars[i]` (`*`, `+`, `?`, `{n}`, `{n,}`,
/// `{,m}`, `{n,m}`, each maybe followed by a lazy `?` or possessive `+`):
/// its length in chars and whether it allows zero repetitions.
fn quantifier_at(chars: &[char], i: usize) -> Option<(usize, bool)> {
    let (len, zero) = match chars.get(i)? {
        '*' | '?' => (1, true),
        '+' => (1, false),
        '{' if is_quantifier(chars, i) => {
            let end = chars[i..].iter().position(|&c| c == '}')? + i;
            let min: String = chars[i + 1..end]
                .iter()
                .take_while(|c| **c != ',')
                .collect();
            let zero = min.is_empty() || min.bytes().all(|b| b == b'0');
            (end + 1 - i, zero)
        }
        _ => return None,
    };
    match chars.get(i + len) {
        Some('?' | '+') => Some((len + 1, zero)),
        _ => Some((len, zero)),
    }
}

/// Rewrites a Python `re` pattern for `fancy-regex`: `$` (without
/// `multiline`) also matches before a final newline, `\Z` is the end of
/// the text, `(?P=name)` is a back-reference, `\0` octal escapes, braces
/// that are not a quantifier and `[`, `&`, `~` inside classes are literal.
/// A quantified lookaround (`(?=x)*`, which Python accepts and
/// `fancy-regex` rejects) is what Python makes of it: a zero-width
/// assertion repeated is the assertion once when the quantifier needs at
/// least one repetition, and nothing when it allows none.
///
/// ```
/// use murano_yaql::pyre::translate;
/// assert_eq!(translate("a$", false), "a(?:(?=\\n\\z)|\\z)");
/// assert_eq!(translate("a$", true), "a$");
/// assert_eq!(translate("x{y}", false), "x\\{y\\}");
/// assert_eq!(translate("a(?=b)*c", false), "a(?:)c");
/// assert_eq!(translate("a(?!b){1,2}c", false), "a(?!b)c");
/// ```
pub fn translate(pattern: &str, multiline: bool) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    let mut in_class = false;
    // In a class: whether the last item can start a range, and whether
    // we are right after the opening bracket.
    let mut class_atoms = 0usize;
    let mut after_range = false;
    let mut quant_open = false;
    // Open groups: where each starts in `out`, and whether it is a
    // lookaround.
    let mut groups: Vec<(usize, bool)> = Vec::new();
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
            '(' => {
                let rest = |k: usize, s: &str| {
                    s.chars()
                        .enumerate()
                        .all(|(j, e)| chars.get(i + k + j) == Some(&e))
                };
                let look = rest(1, "?=") || rest(1, "?!") || rest(1, "?<=") || rest(1, "?<!");
                groups.push((out.len(), look));
                out.push(c);
            }
            ')' => {
                out.push(c);
                if let Some((start, true)) = groups.pop() {
                    if let Some((len, zero)) = quantifier_at(&chars, i + 1) {
                        if zero {
                            out.truncate(start);
                            out.push_str("(?:)");
                        }
                        i += 1 + len;
                        continue;
                    }
                }
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}
