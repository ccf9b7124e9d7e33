//! Base64 as Python's `binascii` does it: the one implementation behind
//! PyYAML's `!!binary`, Murano's `base64encode`/`base64decode` and the
//! `$bytes` values of the Heat oracle's JSON.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Why [`decode`] failed, with Python's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The text holds a character beyond ASCII (`ValueError: string
    /// argument should contain only ASCII characters`).
    NotAscii,
    /// The symbols do not end on a whole group (`binascii.Error:
    /// Incorrect padding`).
    Padding,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DecodeError::NotAscii => "string argument should contain only ASCII characters",
            DecodeError::Padding => "Incorrect padding",
        })
    }
}

impl std::error::Error for DecodeError {}

/// Standard base64 with padding (`base64.b64encode`).
///
/// ```
/// assert_eq!(murano_yaml::base64::encode(b"foobar"), "Zm9vYmFy");
/// assert_eq!(murano_yaml::base64::encode(b"fo"), "Zm8=");
/// ```
pub fn encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Python's lenient `base64.b64decode` / `decodebytes` (`binascii.
/// a2b_base64` without `strict_mode`): characters outside the alphabet
/// are skipped, decoding stops at the padding, and a group left short of
/// its padding is an error.
///
/// ```
/// use murano_yaml::base64::{decode, DecodeError};
/// assert_eq!(decode("Zm9v\nYmFy").unwrap(), b"foobar");
/// assert_eq!(decode("Zm8").unwrap_err(), DecodeError::Padding);
/// ```
pub fn decode(text: &str) -> Result<Vec<u8>, DecodeError> {
    if !text.is_ascii() {
        return Err(DecodeError::NotAscii);
    }
    let mut bits: u32 = 0;
    let mut count = 0;
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut padding = 0;
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                padding += 1;
                continue;
            }
            _ => continue,
        };
        if padding > 0 {
            break;
        }
        bits = (bits << 6) | u32::from(v);
        count += 1;
        if count == 4 {
            out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8, bits as u8]);
            bits = 0;
            count = 0;
        }
    }
    match count {
        0 => {}
        2 if padding >= 2 => out.push((bits >> 4) as u8),
        3 if padding >= 1 => out.extend_from_slice(&[(bits >> 10) as u8, (bits >> 2) as u8]),
        _ => return Err(DecodeError::Padding),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_python_leniency() {
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "солнце"] {
            let e = encode(text.as_bytes());
            assert_eq!(decode(&e).as_deref(), Ok(text.as_bytes()), "{e}");
        }
        assert_eq!(encode(b"ab"), "YWI=");
        assert_eq!(decode("Zm 9v!YmFy").as_deref(), Ok(&b"foobar"[..]));
        assert_eq!(decode("Zm8"), Err(DecodeError::Padding));
        assert_eq!(decode("Zg=="), Ok(b"f".to_vec()));
        assert_eq!(decode("é"), Err(DecodeError::NotAscii));
    }
}
