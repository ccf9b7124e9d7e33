//! regex module (Python `re` semantics through `fancy-regex`; positions
//! count code points).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use fancy_regex::{Captures, Regex};

use super::{lazy, seq};
use crate::eval::context::Library;
use crate::eval::error::{Error, ErrorKind};
use crate::eval::func::{Arg, Call, FunctionDef, LazyExpr};
use crate::eval::value::{RegexValue, Value};

const IGNORECASE: i64 = 2;
const MULTILINE: i64 = 8;
const DOTALL: i64 = 16;

/// Patterns a [`RegexCache`] keeps; when full it starts again empty, as
/// Python's `re` module did. Small, because a hostile pattern can compile
/// to megabytes.
const REGEX_CACHE_ENTRIES: usize = 64;

/// Patterns longer than this are compiled every time, never kept.
const REGEX_CACHE_MAX_PATTERN: usize = 1024;

/// Compiled patterns by source and flags, shared by the regex functions of
/// one [`Library`]. Python's `re` caches compiled patterns the same way,
/// and most YAQL regex calls compile a pattern they compiled before;
/// compiling dominated evaluation time without it. Each source keeps one
/// compiled form per flag set it was used with, so alternating flags do
/// not evict each other.
#[derive(Default)]
pub(crate) struct RegexCache {
    patterns: Mutex<HashMap<Box<str>, Vec<Arc<RegexValue>>>>,
}

/// Flag sets one source keeps; past this it starts again empty. Only three
/// flag bits change the compiled form, so eight cover every real use.
const REGEX_CACHE_FLAG_SETS: usize = 8;

impl RegexCache {
    /// The compiled form of `pattern` with `flags`, from the cache when
    /// there.
    pub(crate) fn compile(&self, pattern: &str, flags: i64) -> Result<Arc<RegexValue>, Error> {
        if pattern.len() > REGEX_CACHE_MAX_PATTERN {
            return compile(pattern, flags);
        }
        let lock = || self.patterns.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = lock()
            .get(pattern)
            .and_then(|forms| forms.iter().find(|r| r.flags == flags))
        {
            return Ok(found.clone());
        }
        let compiled = compile(pattern, flags)?;
        let mut patterns = lock();
        match patterns.get_mut(pattern) {
            Some(forms) => {
                if forms.len() >= REGEX_CACHE_FLAG_SETS {
                    forms.clear();
                }
                forms.push(compiled.clone());
            }
            None => {
                if patterns.len() >= REGEX_CACHE_ENTRIES {
                    patterns.clear();
                }
                patterns.insert(pattern.into(), vec![compiled.clone()]);
            }
        }
        Ok(compiled)
    }
}

/// Compiles a Python pattern with `re` flags.
pub(crate) fn compile(pattern: &str, flags: i64) -> Result<Arc<RegexValue>, Error> {
    let known = flags & (IGNORECASE | MULTILINE | DOTALL);
    let regex = crate::pyre::compile(pattern, u32::try_from(known).unwrap_or(0))
        .map_err(|e| Error::new(ErrorKind::RegexError, e))?;
    Ok(Arc::new(RegexValue {
        source: pattern.to_string(),
        regex,
        flags,
    }))
}

fn regex_err(e: fancy_regex::Error) -> Error {
    Error::new(ErrorKind::RegexError, e.to_string())
}

fn char_pos(s: &str, byte: usize) -> i64 {
    s[..byte].chars().count() as i64
}

fn rx<'a>(c: &Call<'a>, i: usize) -> Result<&'a Arc<RegexValue>, Error> {
    match c.value(i)? {
        Value::Regex(r) => Ok(r),
        _ => Err(Error::mismatch()),
    }
}

fn search(r: &Regex, s: &str) -> Result<bool, Error> {
    r.is_match(s).map_err(regex_err)
}

fn group_rec(s: &str, caps: &Captures<'_>, i: usize) -> Value {
    match caps.get(i) {
        Some(m) => Value::dict([
            (Value::str("value"), Value::str(m.as_str())),
            (Value::str("start"), Value::Int(char_pos(s, m.start()))),
            (Value::str("end"), Value::Int(char_pos(s, m.end()))),
        ]),
        None => Value::dict([
            (Value::str("value"), Value::Null),
            (Value::str("start"), Value::Int(-1)),
            (Value::str("end"), Value::Int(-1)),
        ]),
    }
}

fn publish(c: &Call<'_>, r: &Regex, s: &str, caps: &Captures<'_>) -> crate::eval::context::Context {
    let mut vars: Vec<(Arc<str>, Value)> = Vec::new();
    for i in 0..caps.len() {
        vars.push((format!("${}", i + 1).into(), group_rec(s, caps, i)));
    }
    for (i, name) in r.capture_names().enumerate() {
        if let Some(name) = name {
            vars.push((format!("${name}").into(), group_rec(s, caps, i)));
        }
    }
    c.context().child_with(vars)
}

/// Expands a Python replacement template (`\1`, `\g<name>`, escapes).
fn expand(template: &str, caps: &Captures<'_>) -> String {
    let mut out = String::new();
    let chars: Vec<char> = template.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        if ch != '\\' || i + 1 == chars.len() {
            out.push(ch);
            i += 1;
            continue;
        }
        let next = chars[i + 1];
        i += 2;
        match next {
            d if d.is_ascii_digit() => {
                let mut n = d.to_digit(10).unwrap_or(0) as usize;
                if i < chars.len() && chars[i].is_ascii_digit() {
                    n = n * 10 + chars[i].to_digit(10).unwrap_or(0) as usize;
                    i += 1;
                }
                out.push_str(caps.get(n).map_or("", |m| m.as_str()));
            }
            'g' if chars.get(i) == Some(&'<') => {
                let end = chars[i..].iter().position(|c| *c == '>').map(|p| p + i);
                if let Some(end) = end {
                    let name: String = chars[i + 1..end].iter().collect();
                    let m = match name.parse::<usize>() {
                        Ok(n) => caps.get(n),
                        Err(_) => caps.name(&name),
                    };
                    out.push_str(m.map_or("", |m| m.as_str()));
                    i = end + 1;
                }
            }
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '\\' => out.push('\\'),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

fn sub(
    r: &Regex,
    s: &str,
    count: i64,
    limit: usize,
    mut repl: impl FnMut(&Captures<'_>) -> Result<String, Error>,
) -> Result<String, Error> {
    let mut out = String::new();
    let mut last = 0;
    for (n, caps) in r.captures_iter(s).enumerate() {
        let caps = caps.map_err(regex_err)?;
        if count > 0 && n as i64 >= count {
            break;
        }
        let m = caps
            .get(0)
            .ok_or_else(|| Error::new(ErrorKind::RegexError, "no match"))?;
        out.push_str(&s[last..m.start()]);
        out.push_str(&repl(&caps)?);
        if out.len() > limit {
            return Err(super::strings::string_too_long(limit));
        }
        last = m.end();
    }
    if out.len() + (s.len() - last) > limit {
        return Err(super::strings::string_too_long(limit));
    }
    out.push_str(&s[last..]);
    Ok(out)
}

fn split(r: &Regex, s: &str, max: i64) -> Result<Value, Error> {
    let mut out = Vec::new();
    let mut last = 0;
    let mut n = 0;
    for caps in r.captures_iter(s) {
        let caps = caps.map_err(regex_err)?;
        if max > 0 && n >= max {
            break;
        }
        let Some(m) = caps.get(0) else { continue };
        if m.start() == m.end() && m.start() == last && m.start() == 0 {
            continue;
        }
        out.push(Value::str(&s[last..m.start()]));
        for i in 1..caps.len() {
            out.push(caps.get(i).map_or(Value::Null, |g| Value::str(g.as_str())));
        }
        last = m.end();
        n += 1;
    }
    out.push(Value::str(&s[last..]));
    Ok(seq(out))
}

fn replace_by(c: &Call<'_>, r: &Regex, s: &str, count: i64) -> Result<Value, Error> {
    let Some(Arg::Lazy(LazyExpr(node))) = c.arg(2) else {
        return Err(Error::mismatch());
    };
    let limit = c.interp().options().max_string_len;
    let out = sub(r, s, count, limit, |caps| {
        let ctx = publish(c, r, s, caps);
        let v = c.interp().eval(node, &ctx, None)?;
        match v {
            Value::Str(t) => Ok(t.to_string()),
            other => super::strings::yaql_str(&other, limit),
        }
    })?;
    Ok(Value::from(out))
}

/// Registers the regex functions.
pub(crate) fn register(lib: &mut Library) {
    let cache = Arc::new(RegexCache::default());
    let patterns = cache.clone();
    lib.register(FunctionDef::native(
        "regex",
        "pattern, ignoreCase=, multiLine=, dotAll=",
        move |c| {
            let p = c.string(0)?;
            let flag = |i: usize, f: i64| {
                c.opt(i)
                    .map(|v| if v.is_some_and(Value::truthy) { f } else { 0 })
            };
            let flags = flag(1, IGNORECASE)? | flag(2, MULTILINE)? | flag(3, DOTALL)?;
            Ok(Value::Regex(patterns.compile(p, flags)?))
        },
    ));
    lib.register(
        FunctionDef::native("matches", "regexp, string", |c| {
            Ok(Value::Bool(search(&rx(c, 0)?.regex, c.string(1)?)?))
        })
        .method(),
    );
    let patterns = cache.clone();
    lib.register(
        FunctionDef::native("matches", "string, regexp", move |c| {
            let (s, p) = (c.string(0)?, c.string(1)?);
            Ok(Value::Bool(search(&patterns.compile(p, 0)?.regex, s)?))
        })
        .method(),
    );
    for (name, want) in [("#operator_=~", true), ("#operator_!~", false)] {
        let patterns = cache.clone();
        lib.register(FunctionDef::native(name, "string, pattern", move |c| {
            let s = c.string(0)?;
            let p = c.string(1)?;
            Ok(Value::Bool(
                search(&patterns.compile(p, 0)?.regex, s)? == want,
            ))
        }));
        lib.register(FunctionDef::native(name, "string, regexp", move |c| {
            let s = c.string(0)?;
            let found = match c.value(1)? {
                Value::Regex(r) => search(&r.regex, s)?,
                _ => return Err(Error::mismatch()),
            };
            Ok(Value::Bool(found == want))
        }));
    }
    lib.register(
        FunctionDef::native("search", "regexp, string, ~selector=", |c| {
            let r = rx(c, 0)?;
            let s = c.string(1)?;
            let Some(caps) = r.regex.captures(s).map_err(regex_err)? else {
                return Ok(Value::Null);
            };
            match c.arg(2) {
                Some(Arg::Lazy(LazyExpr(node))) => {
                    let ctx = publish(c, &r.regex, s, &caps);
                    c.interp().eval(node, &ctx, None)
                }
                _ => Ok(caps.get(0).map_or(Value::Null, |m| Value::str(m.as_str()))),
            }
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("searchAll", "regexp, string, ~selector=", |c| {
            let r = rx(c, 0)?;
            let s = c.string(1)?;
            let mut out = Vec::new();
            for caps in r.regex.captures_iter(s) {
                let caps = caps.map_err(regex_err)?;
                out.push(Ok(match c.arg(2) {
                    Some(Arg::Lazy(LazyExpr(node))) => {
                        let ctx = publish(c, &r.regex, s, &caps);
                        c.interp().eval(node, &ctx, None)?
                    }
                    _ => caps.get(0).map_or(Value::Null, |m| Value::str(m.as_str())),
                }));
            }
            Ok(lazy(out.into_iter()))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("split", "regexp, string, maxSplit=", |c| {
            split(&rx(c, 0)?.regex, c.string(1)?, c.int_or(2, 0)?)
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("split", "string, regexp, maxSplit=", |c| {
            split(&rx(c, 1)?.regex, c.string(0)?, c.int_or(2, 0)?)
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("replace", "regexp, string, repl, count=", |c| {
            let r = rx(c, 0)?;
            let (s, repl) = (c.string(1)?, c.string(2)?);
            Ok(Value::from(sub(
                &r.regex,
                s,
                c.int_or(3, 0)?,
                c.interp().options().max_string_len,
                |caps| Ok(expand(repl, caps)),
            )?))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("replace", "string, regexp, repl, count=", |c| {
            let r = rx(c, 1)?;
            let (s, repl) = (c.string(0)?, c.string(2)?);
            Ok(Value::from(sub(
                &r.regex,
                s,
                c.int_or(3, 0)?,
                c.interp().options().max_string_len,
                |caps| Ok(expand(repl, caps)),
            )?))
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("replaceBy", "regexp, string, ~repl, count=", |c| {
            let r = rx(c, 0)?;
            replace_by(c, &r.regex, c.string(1)?, c.int_or(3, 0)?)
        })
        .method(),
    );
    lib.register(
        FunctionDef::native("replaceBy", "string, regexp, ~repl, count=", |c| {
            let r = rx(c, 1)?;
            replace_by(c, &r.regex, c.string(0)?, c.int_or(3, 0)?)
        })
        .method(),
    );
    lib.register(FunctionDef::native("escapeRegex", "string", |c| {
        let mut out = String::new();
        for ch in c.string(0)?.chars() {
            if !(ch.is_alphanumeric() || ch == '_') && (ch.is_ascii() || ch.is_whitespace()) {
                out.push('\\');
            }
            out.push(ch);
        }
        Ok(Value::from(out))
    }));
    lib.register(FunctionDef::native("isRegex", "value", |c| {
        Ok(Value::Bool(matches!(c.opt(0)?, Some(Value::Regex(_)))))
    }));
}

#[cfg(test)]
mod tests {
    use super::{
        RegexCache, IGNORECASE, REGEX_CACHE_ENTRIES, REGEX_CACHE_FLAG_SETS, REGEX_CACHE_MAX_PATTERN,
    };
    use crate::eval::{Context, Engine, Library, Value};
    use std::sync::Arc;

    fn eval(text: &str) -> Value {
        let ctx = Context::new(Arc::new(Library::standard(true)));
        Engine::standard()
            .compile(text)
            .unwrap()
            .evaluate(&ctx)
            .unwrap()
    }

    #[test]
    fn dollar_matches_before_a_final_newline_as_in_python() {
        assert_eq!(eval("'abc\n'.matches('c$')"), Value::Bool(true));
        assert_eq!(eval("'abc\nd'.matches('c$')"), Value::Bool(false));
        assert_eq!(
            eval("regex('c$', multiLine => true).matches('abc\nd')"),
            Value::Bool(true)
        );
        assert_eq!(eval("'abc\n'.matches('c\\Z')"), Value::Bool(false));
    }

    #[test]
    fn compiled_patterns_are_reused_and_the_cache_stays_small() {
        let cache = RegexCache::default();
        let a = cache.compile("a+b", 0).unwrap();
        assert!(Arc::ptr_eq(&a, &cache.compile("a+b", 0).unwrap()));
        let ignoring_case = cache.compile("a+b", IGNORECASE).unwrap();
        assert!(!Arc::ptr_eq(&a, &ignoring_case));
        assert!(ignoring_case.regex.is_match("AAB").unwrap());
        // Both flag sets stay cached: alternating does not recompile.
        assert!(Arc::ptr_eq(&a, &cache.compile("a+b", 0).unwrap()));
        assert!(Arc::ptr_eq(
            &ignoring_case,
            &cache.compile("a+b", IGNORECASE).unwrap()
        ));
        for flags in 0..(3 * REGEX_CACHE_FLAG_SETS as i64) {
            cache.compile("a+b", flags).unwrap();
            let forms = cache.patterns.lock().unwrap()["a+b"].len();
            assert!(forms <= REGEX_CACHE_FLAG_SETS);
        }
        for i in 0..(3 * REGEX_CACHE_ENTRIES) {
            cache.compile(&format!("x{i}"), 0).unwrap();
            assert!(cache.patterns.lock().unwrap().len() <= REGEX_CACHE_ENTRIES);
        }
        let long = "a".repeat(REGEX_CACHE_MAX_PATTERN + 1);
        cache.compile(&long, 0).unwrap();
        assert!(!cache.patterns.lock().unwrap().contains_key(long.as_str()));
        assert!(cache.compile("(", 0).is_err());
    }
}
