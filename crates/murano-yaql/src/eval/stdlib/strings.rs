//! strings module (positions count code points, as Python does).

use std::sync::Arc;

use super::seq;
use crate::eval::context::Library;
use crate::eval::error::{Error, ErrorKind};
use crate::eval::func::{Arg, Call, FunctionDef};
use crate::eval::value::Value;

/// yaql's `str()`: `null`, `true`, `false`, otherwise Python `str()`;
/// text longer than `limit` bytes is an error.
pub(crate) fn yaql_str(v: &Value, limit: usize) -> Result<String, Error> {
    Ok(match v {
        Value::Null => "null".into(),
        Value::Bool(true) => "true".into(),
        Value::Bool(false) => "false".into(),
        v => v.py_str_within(limit)?,
    })
}

/// The error of a string that would pass [`Options::max_string_len`](crate::eval::Options).
pub(crate) fn string_too_long(limit: usize) -> Error {
    Error::new(
        ErrorKind::MemoryQuotaExceeded,
        format!("Expression consumed too much memory: a string passes the limit of {limit} bytes"),
    )
}

/// yaql's `join()`: the items' `str()` between separators, refused as
/// soon as the text would pass `limit` bytes.
/// The items are taken one at a time, so a long lazy sequence is never
/// held whole.
fn join_within(items: crate::eval::ValueIter, sep: &str, limit: usize) -> Result<Value, Error> {
    let mut out = String::new();
    for (i, item) in items.enumerate() {
        let item = &item?;
        if i > 0 {
            if out.len() + sep.len() > limit {
                return Err(string_too_long(limit));
            }
            out.push_str(sep);
        }
        let text = yaql_str(item, limit - out.len())?;
        out.push_str(&text);
    }
    Ok(Value::from(out))
}

/// Python slice bounds for a sequence of `len` items.
pub(crate) fn py_slice(len: usize, start: i64, stop: i64) -> (usize, usize) {
    let n = len as i64;
    let norm = |i: i64| -> usize {
        let i = if i < 0 { (i + n).max(0) } else { i.min(n) };
        i as usize
    };
    let (a, b) = (norm(start), norm(stop));
    (a, b.max(a))
}

fn chars(s: &str) -> Vec<char> {
    s.chars().collect()
}

/// Python `str.find`/`rfind` on code points in `[start, end)`.
pub(crate) fn find(hay: &[char], needle: &[char], start: i64, end: i64, rev: bool) -> i64 {
    let (a, b) = py_slice(hay.len(), start, end);
    if needle.len() > b.saturating_sub(a) {
        return -1;
    }
    let positions = a..=(b - needle.len());
    let hit = |i: &usize| hay[*i..*i + needle.len()] == *needle;
    let found = if rev {
        positions.rev().find(hit)
    } else {
        positions.into_iter().find(hit)
    };
    found.map_or(-1, |i| i as i64)
}

fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

fn strip<'a>(s: &'a str, chars: Option<&str>, left: bool, right: bool) -> &'a str {
    let pred = |c: char| match chars {
        None => is_py_space(c),
        Some(set) => set.contains(c),
    };
    let mut s = s;
    if left {
        s = s.trim_start_matches(pred);
    }
    if right {
        s = s.trim_end_matches(pred);
    }
    s
}

/// Python `str.split(sep, maxsplit)`.
pub(crate) fn py_split(
    s: &str,
    sep: Option<&str>,
    max: i64,
    right: bool,
) -> Result<Vec<String>, Error> {
    let max = if max < 0 { usize::MAX } else { max as usize };
    match sep {
        Some("") => Err(Error::new(ErrorKind::ValueError, "empty separator")),
        Some(sep) => Ok(if right {
            let mut v: Vec<String> = s
                .rsplitn(max.saturating_add(1), sep)
                .map(String::from)
                .collect();
            v.reverse();
            v
        } else {
            s.splitn(max.saturating_add(1), sep)
                .map(String::from)
                .collect()
        }),
        None => {
            // One word past what the result can hold is enough to know.
            let words: Vec<&str> = s
                .split(is_py_space)
                .filter(|w| !w.is_empty())
                .take(max.saturating_add(2))
                .collect();
            if words.len() <= max.saturating_add(1) {
                return Ok(words.into_iter().map(String::from).collect());
            }
            // Keep the remainder unsplit (leading/trailing space trimmed
            // on the split side only).
            if right {
                let mut out = Vec::new();
                let mut rest = s.trim_end_matches(is_py_space);
                for _ in 0..max {
                    let cut = rest
                        .rfind(is_py_space)
                        .map(|i| i + rest[i..].chars().next().map_or(1, char::len_utf8));
                    let Some(cut) = cut else { break };
                    out.push(rest[cut..].to_string());
                    rest = rest[..cut].trim_end_matches(is_py_space);
                }
                out.push(rest.to_string());
                out.reverse();
                Ok(out)
            } else {
                let mut out = Vec::new();
                let mut rest = s.trim_start_matches(is_py_space);
                for _ in 0..max {
                    let Some(cut) = rest.find(is_py_space) else {
                        break;
                    };
                    out.push(rest[..cut].to_string());
                    rest = rest[cut..].trim_start_matches(is_py_space);
                }
                out.push(rest.to_string());
                Ok(out)
            }
        }
    }
}

/// Python `str.replace(old, new, count)`.
/// Python `str.replace`, refused when the result would pass `limit` bytes
/// (measured before it is built).
pub(crate) fn py_replace_within(
    s: &str,
    old: &str,
    new: &str,
    count: i64,
    limit: usize,
) -> Result<String, Error> {
    let found = if old.is_empty() {
        s.chars().count() + 1
    } else {
        s.matches(old).count()
    };
    let replaced = if count < 0 {
        found
    } else {
        found.min(count as usize)
    };
    let len = s.len() - replaced * old.len() + replaced.saturating_mul(new.len());
    if len > limit {
        return Err(string_too_long(limit));
    }
    Ok(py_replace(s, old, new, count))
}

pub(crate) fn py_replace(s: &str, old: &str, new: &str, count: i64) -> String {
    if count < 0 {
        if old.is_empty() {
            let mut out = String::from(new);
            for c in s.chars() {
                out.push(c);
                out.push_str(new);
            }
            return out;
        }
        return s.replace(old, new);
    }
    if old.is_empty() {
        let mut out = String::new();
        let mut n = 0;
        for c in s.chars() {
            if n < count {
                out.push_str(new);
                n += 1;
            }
            out.push(c);
        }
        if n < count {
            out.push_str(new);
        }
        return out;
    }
    s.replacen(old, new, count as usize)
}

/// The error of a collection longer than `limit` items
/// (`yaql.limitIterators`), as output conversion raises it.
fn collection_too_large(limit: usize) -> Error {
    Error::new(
        ErrorKind::CollectionTooLarge,
        format!("Collection length exceeds {limit} elements"),
    )
}

/// [`py_split`] whose result may hold at most `limit` items: the splits
/// stop one past it (Python builds the whole list, and yaql refuses it
/// when it is output; a string of tens of millions of words made GBs of
/// items first).
fn split_within(
    s: &str,
    sep: Option<&str>,
    max: i64,
    right: bool,
    limit: Option<usize>,
) -> Result<Value, Error> {
    let Some(limit) = limit else {
        return Ok(strs(py_split(s, sep, max, right)?));
    };
    // At most `limit` splits: a result of `limit + 1` items means the
    // whole one has that many or more.
    let cap = i64::try_from(limit).unwrap_or(i64::MAX);
    let capped = if max < 0 { cap } else { max.min(cap) };
    let items = py_split(s, sep, capped, right)?;
    if items.len() > limit {
        return Err(collection_too_large(limit));
    }
    Ok(strs(items))
}

fn strs(v: Vec<String>) -> Value {
    seq(v.into_iter().map(Value::from).collect())
}

fn string_args<'a>(c: &Call<'a>, from: usize) -> Result<Vec<&'a str>, Error> {
    c.rest(from)
        .iter()
        .map(|a| match a {
            Arg::Value(Value::Str(s)) => Ok(&**s),
            _ => Err(Error::mismatch()),
        })
        .collect()
}

/// Registers the string functions.
pub(crate) fn register(lib: &mut Library) {
    // `concat(strings…)`, also `+` on strings.
    for name in ["concat", "#operator_+"] {
        lib.register(FunctionDef::native(name, "*args", |c| {
            let parts = string_args(c, 0)?;
            let limit = c.interp().options().max_string_len;
            if parts
                .iter()
                .map(|p| p.len())
                .fold(0usize, usize::saturating_add)
                > limit
            {
                return Err(string_too_long(limit));
            }
            Ok(Value::from(parts.concat()))
        }));
    }
    lib.register(
        FunctionDef::native("toUpper", "string", |c| {
            Ok(Value::from(c.string(0)?.to_uppercase()))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("toLower", "string", |c| {
            Ok(Value::from(c.string(0)?.to_lowercase()))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("len", "string", |c| {
            Ok(Value::Int(c.string(0)?.chars().count() as i64))
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("split", "string, separator=, maxSplits=", |c| {
            let s = c.string(0)?;
            let limit = c.interp().options().limit_iterators;
            split_within(s, c.opt_string(1)?, c.int_or(2, -1)?, false, limit)
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("rightSplit", "string, separator=, maxSplits=", |c| {
            let s = c.string(0)?;
            let limit = c.interp().options().limit_iterators;
            split_within(s, c.opt_string(1)?, c.int_or(2, -1)?, true, limit)
        })
        .method(),
    );
    // `sequence.join(separator)` and `separator.join(sequence)`.
    lib.register(
        FunctionDef::native("join", "sequence, separator", |c| {
            let sep = c.string(1)?;
            join_within(c.iterable(0)?, sep, c.interp().options().max_string_len)
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("join", "separator, sequence", |c| {
            let sep = c.string(0)?;
            join_within(c.iterable(1)?, sep, c.interp().options().max_string_len)
        })
        .method(),
    );
    lib.register(FunctionDef::native("str", "value", |c| {
        let limit = c.interp().options().max_string_len;
        Ok(Value::from(yaql_str(
            c.opt(0)?.unwrap_or(&Value::Null),
            limit,
        )?))
    }));
    for (name, l, r) in [
        ("trim", true, true),
        ("trimLeft", true, false),
        ("trimRight", false, true),
    ] {
        lib.register(
            FunctionDef::native(name, "string, chars=", move |c| {
                Ok(Value::str(strip(c.string(0)?, c.opt_string(1)?, l, r)))
            })
            .method(),
        );
    }
    lib.register(
        FunctionDef::native("norm", "string, chars=", |c| {
            let Some(s) = c.opt_string(0)? else {
                return Ok(Value::Null);
            };
            let t = strip(s, c.opt_string(1)?, true, true);
            Ok(if t.is_empty() {
                Value::Null
            } else {
                Value::str(t)
            })
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("isEmpty", "string, trim=, chars=", |c| {
            let Some(s) = c.opt_string(0)? else {
                return Ok(Value::Bool(true));
            };
            let trim = match c.opt(1)? {
                None => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(Error::mismatch()),
            };
            let s = if trim {
                strip(s, c.opt_string(2)?, true, true)
            } else {
                s
            };
            Ok(Value::Bool(s.is_empty()))
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("replace", "string, old, new, count=", |c| {
            let (s, old, new) = (c.string(0)?, c.string(1)?, c.string(2)?);
            let limit = c.interp().options().max_string_len;
            Ok(Value::from(py_replace_within(
                s,
                old,
                new,
                c.int_or(3, -1)?,
                limit,
            )?))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("replace", "string, replacements, count=", |c| {
            let s = c.string(0)?;
            let Value::Dict(d) = c.value(1)? else {
                return Err(Error::mismatch());
            };
            let count = c.int_or(2, -1)?;
            let mut s = s.to_string();
            for (k, v) in d.iter() {
                let limit = c.interp().options().max_string_len;
                s = py_replace_within(
                    &s,
                    &yaql_str(k, limit)?,
                    &yaql_str(v, limit)?,
                    count,
                    limit,
                )?;
            }
            Ok(Value::from(s))
        })
        .method(),
    );
    lib.register(FunctionDef::native("#operator_*", "left, right", |c| {
        let (s, n) = match (c.value(0)?, c.value(1)?) {
            (Value::Str(s), Value::Int(n)) | (Value::Int(n), Value::Str(s)) => (s, *n),
            (Value::Str(s), Value::Bool(b)) | (Value::Bool(b), Value::Str(s)) => (s, i64::from(*b)),
            _ => return Err(Error::mismatch()),
        };
        let n = n.max(0) as usize;
        let limit = c.interp().options().max_string_len;
        if s.len().saturating_mul(n) > limit {
            return Err(string_too_long(limit));
        }
        Ok(Value::from(s.repeat(n)))
    }));
    lib.register(FunctionDef::native(
        "#operator_in",
        "left, right",
        |c| match (c.value(0)?, c.value(1)?) {
            (Value::Str(a), Value::Str(b)) => Ok(Value::Bool(b.contains(&**a))),
            _ => Err(Error::mismatch()),
        },
    ));
    lib.register(
        FunctionDef::native("substring", "string, start, length=", |c| {
            let s = chars(c.string(0)?);
            let mut start = c.int(1)?;
            let mut length = c.int_or(2, -1)?;
            let n = s.len() as i64;
            if length < 0 {
                length = n;
            }
            if start < 0 {
                start += n;
            }
            let (a, b) = py_slice(s.len(), start, start.saturating_add(length));
            Ok(Value::from(s[a..b].iter().collect::<String>()))
        })
        .method(),
    );
    for (name, rev) in [("indexOf", false), ("lastIndexOf", true)] {
        lib.register(
            FunctionDef::native(name, "string, sub, start=", move |c| {
                let s = chars(c.string(0)?);
                let sub = chars(c.string(1)?);
                let start = c.int_or(2, 0)?;
                Ok(Value::Int(find(&s, &sub, start, i64::MAX, rev)))
            })
            .method(),
        );
        lib.register(
            FunctionDef::native(name, "string, sub, start, length", move |c| {
                let s = chars(c.string(0)?);
                let sub = chars(c.string(1)?);
                let mut start = c.int(2)?;
                let mut length = c.int(3)?;
                let n = s.len() as i64;
                if start < 0 {
                    start += n;
                }
                if length < 0 {
                    length = n - start;
                }
                Ok(Value::Int(find(
                    &s,
                    &sub,
                    start,
                    start.saturating_add(length),
                    rev,
                )))
            })
            .method(),
        );
    }
    lib.register(
        FunctionDef::native("toCharArray", "string", |c| {
            let s = c.string(0)?;
            // Counted before any item is made (see `split_within`).
            if let Some(limit) = c.interp().options().limit_iterators {
                if s.chars().nth(limit).is_some() {
                    return Err(collection_too_large(limit));
                }
            }
            Ok(seq(s
                .chars()
                .map(|ch| Value::from(ch.to_string()))
                .collect()))
        })
        .method(),
    );
    lib.register(FunctionDef::native(
        "characters",
        "digits=, hexdigits=, asciiLowercase=, asciiUppercase=, asciiLetters=, letters=, octdigits=, punctuation=, printable=, lowercase=, uppercase=, whitespace=",
        |c| {
            const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
            const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
            const PUNCT: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
            const WS: &str = " \t\n\r\x0b\x0c";
            let letters = format!("{LOWER}{UPPER}");
            let printable = format!("0123456789{LOWER}{UPPER}{PUNCT}{WS}");
            let sets: [&str; 12] = [
                "0123456789",
                "0123456789abcdefABCDEF",
                LOWER,
                UPPER,
                &letters,
                &letters,
                "01234567",
                PUNCT,
                &printable,
                LOWER,
                UPPER,
                WS,
            ];
            let mut out = crate::eval::value::Set::default();
            for (i, set) in sets.iter().enumerate() {
                if c.opt(i)?.is_some_and(Value::truthy) {
                    for ch in set.chars() {
                        out.insert(Value::from(ch.to_string()));
                    }
                }
            }
            Ok(seq(out.into_iter().collect()))
        },
    ));
    lib.register(FunctionDef::native("isString", "arg", |c| {
        Ok(Value::Bool(matches!(c.opt(0)?, Some(Value::Str(_)))))
    }));
    for (name, start) in [("startsWith", true), ("endsWith", false)] {
        lib.register(
            FunctionDef::native(name, "string, *prefixes", move |c| {
                let s = c.string(0)?;
                let ps = string_args(c, 1)?;
                Ok(Value::Bool(ps.iter().any(|p| {
                    if start {
                        s.starts_with(p)
                    } else {
                        s.ends_with(p)
                    }
                })))
            })
            .method(),
        );
    }
    lib.register(FunctionDef::native("hex", "num", |c| match c.opt(0)? {
        Some(Value::Int(n)) => Ok(Value::from(if *n < 0 {
            format!("-0x{:x}", n.unsigned_abs())
        } else {
            format!("0x{n:x}")
        })),
        Some(Value::Float(_)) => Err(Error::new(
            ErrorKind::TypeError,
            "'float' object cannot be interpreted as an integer",
        )),
        Some(Value::Null) | None => Err(Error::new(
            ErrorKind::TypeError,
            "'NoneType' object cannot be interpreted as an integer",
        )),
        _ => Err(Error::mismatch()),
    }));
    let _ = Arc::<str>::from("");
}
