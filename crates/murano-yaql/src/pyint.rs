//! Python's `int()` of a string, shared by the evaluator's `int()` and
//! MuranoPL contracts, within this crate's 64-bit integers.

/// Why a string is not an integer here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntError {
    /// Python raises ValueError too.
    Invalid,
    /// Python would give an integer that does not fit in 64 bits.
    Overflow,
    /// More decimal digits than [`MAX_STR_DIGITS`]: Python refuses the
    /// conversion with a `ValueError` before reading the digits. Holds the
    /// number of digits.
    TooManyDigits(usize),
}

/// Python's default limit on the digits of an integer converted from or
/// to decimal text (`sys.get_int_max_str_digits()`, 4300 since Python
/// 3.11): longer conversions raise `ValueError` instead of taking time
/// quadratic in the length. Every integer reader of the workspace
/// applies it where Python would.
pub const MAX_STR_DIGITS: usize = 4300;

/// Python's message when text with `digits` decimal digits is refused by
/// `int()`.
///
/// ```
/// use murano_yaql::pyint::too_many_digits_message;
/// assert_eq!(
///     too_many_digits_message(5000),
///     "Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits; \
///      use sys.set_int_max_str_digits() to increase the limit"
/// );
/// ```
pub fn too_many_digits_message(digits: usize) -> String {
    format!(
        "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion: \
         value has {digits} digits; use sys.set_int_max_str_digits() to increase the limit"
    )
}

/// Python's message when an integer too long for decimal text is printed
/// (`str()` of an integer above [`MAX_STR_DIGITS`] digits).
pub fn too_long_to_print_message() -> String {
    format!(
        "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion; \
         use sys.set_int_max_str_digits() to increase the limit"
    )
}

/// The code points of `0` in every run of ten Unicode decimal digits
/// (category `Nd`, Unicode 14.0.0); Python's `int()` accepts all of them.
const DIGIT_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66,
    0xde6, 0xe50, 0xed0, 0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90,
    0x1b50, 0x1bb0, 0x1c40, 0x1c50, 0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10,
    0x104a0, 0x10d30, 0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450, 0x114d0, 0x11650,
    0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50, 0x11da0, 0x16a60, 0x16ac0, 0x16b50,
    0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0,
];

/// The value of `c` if it is a Unicode decimal digit: what Python's `\d`
/// matches and `int()` reads.
///
/// ```
/// use murano_yaql::pyint::decimal_value;
/// assert_eq!(decimal_value('7'), Some(7));
/// assert_eq!(decimal_value('\u{663}'), Some(3)); // ARABIC-INDIC DIGIT THREE
/// assert_eq!(decimal_value('\u{b2}'), None); // SUPERSCRIPT TWO
/// ```
pub fn decimal_value(c: char) -> Option<u8> {
    let code = u32::from(c);
    if c.is_ascii_digit() {
        return Some((code - 0x30) as u8);
    }
    if code < 0x80 {
        return None;
    }
    // The runs are sorted: find the last start not above `code`.
    let index = DIGIT_ZEROS.partition_point(|&zero| zero <= code);
    let zero = *DIGIT_ZEROS.get(index.checked_sub(1)?)?;
    let offset = code - zero;
    (offset < 10).then_some(offset as u8)
}

/// Python's `str.isspace()`.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `int(text)` in base 10: surrounding white space, one sign,
/// single `_` between digits, any Unicode decimal digits.
///
/// ```
/// use murano_yaql::pyint::{parse, IntError};
/// assert_eq!(parse(" -1_000 "), Ok(-1000));
/// assert_eq!(parse("\u{663}"), Ok(3)); // ARABIC-INDIC DIGIT THREE
/// assert_eq!(parse("1__0"), Err(IntError::Invalid));
/// assert_eq!(parse("99999999999999999999"), Err(IntError::Overflow));
/// assert_eq!(parse(&"9".repeat(4301)), Err(IntError::TooManyDigits(4301)));
/// ```
///
/// Linear in the length of `text`.
pub fn parse(text: &str) -> Result<i64, IntError> {
    let s = text.trim_matches(is_py_space);
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if body.is_empty() || body.starts_with('_') || body.ends_with('_') {
        return Err(IntError::Invalid);
    }
    let mut n: i128 = 0;
    let mut overflow = false;
    let mut previous_underscore = false;
    let mut digits = 0usize;
    // Python counts the run of digits before it converts them, and
    // refuses a long run even when junk follows it.
    let too_many = |digits: usize| {
        if digits > MAX_STR_DIGITS {
            IntError::TooManyDigits(digits)
        } else {
            IntError::Invalid
        }
    };
    for c in body.chars() {
        if c == '_' {
            if previous_underscore {
                return Err(IntError::Invalid);
            }
            previous_underscore = true;
            continue;
        }
        previous_underscore = false;
        let d = u32::from(decimal_value(c).ok_or_else(|| too_many(digits))?);
        digits += 1;
        if !overflow {
            n = n * 10 + i128::from(d);
            overflow = n > i128::from(i64::MAX) + 1;
        }
    }
    if digits > MAX_STR_DIGITS {
        return Err(IntError::TooManyDigits(digits));
    }
    if overflow {
        return Err(IntError::Overflow);
    }
    let n = if negative { -n } else { n };
    i64::try_from(n).map_err(|_| IntError::Overflow)
}
