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
pub use murano_yaql::pyre::flags;

/// A compiled Python pattern.
#[derive(Debug, Clone)]
pub struct PyRegex {
    /// The pattern as written.
    pub pattern: String,
    /// Python flag bits.
    pub flags: u32,
    regex: fancy_regex::Regex,
}

impl PyRegex {
    /// Compiles `pattern` with Python flag bits.
    pub fn new(pattern: &str, flag_bits: u32) -> Result<PyRegex, String> {
        let regex = murano_yaql::pyre::compile(pattern, flag_bits).map_err(|e| e.to_string())?;
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
