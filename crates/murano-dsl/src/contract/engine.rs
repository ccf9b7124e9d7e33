//! The functions Murano's engine adds to yaql's library
//! (`murano.engine.system.yaql_functions`), so contracts and their
//! `check()` predicates see what they see inside Murano: the ones that
//! depend on nothing outside the expression. Functions that need the
//! deployment (`config`, `logger`, `decryptData`, `patch`) and the object
//! functions of `murano.dsl.yaql_functions` are the host's.

use std::sync::atomic::{AtomicU32, Ordering};

use murano_yaql::eval::{Error, ErrorKind, FunctionDef, Library, Value};

/// Registers Murano's engine functions for runtime `major.minor` in a new
/// innermost layer of `lib`.
pub(crate) fn register(lib: &mut Library, version: (u32, u32)) {
    lib.push_layer();
    lib.register(
        FunctionDef::native("base64encode", "value", |c| {
            Ok(Value::from(murano_yaml::base64::encode(
                c.string(0)?.as_bytes(),
            )))
        })
        .extension(),
    );
    lib.register(
        FunctionDef::native("base64decode", "value", |c| {
            let bytes = murano_yaml::base64::decode(c.string(0)?)
                .map_err(|e| Error::new(ErrorKind::ValueError, e.to_string()))?;
            String::from_utf8(bytes).map(Value::from).map_err(|_| {
                Error::new(
                    ErrorKind::ValueError,
                    "'utf-8' codec can't decode the decoded bytes",
                )
            })
        })
        .extension(),
    );
    // `pselect`: `select` run in parallel; the result is a list.
    lib.register(
        FunctionDef::native("pselect", "collection, ~composer", |c| {
            let f = c.need_lambda(1)?;
            let mut out = Vec::new();
            for item in c.iterable(0)? {
                out.push(f.call(&[item?])?);
            }
            Ok(Value::List(std::sync::Arc::new(out)))
        })
        .extension(),
    );
    lib.register(FunctionDef::native("randomName", "", |_| {
        Ok(Value::from(random_name()))
    }));
    if version <= (1, 1) {
        lib.register(
            FunctionDef::native("substr", "string, start, length=", |c| {
                let s = c.string(0)?;
                let start = c.int(1)?;
                let length = c.int_or(2, -1)?;
                c.call_method(
                    "substring",
                    Value::str(s),
                    vec![Value::Int(start), Value::Int(length)],
                )
            })
            .extension(),
        );
        lib.register(
            FunctionDef::native("firstOrDefault", "collection, default=", |c| {
                let default = c.opt(1)?.cloned().unwrap_or_default();
                Ok(c.iterable(0)?.next().transpose()?.unwrap_or(default))
            })
            .extension(),
        );
        for name in [
            "toLower",
            "toUpper",
            "trim",
            "join",
            "split",
            "startsWith",
            "endsWith",
            "matches",
            "replace",
            "flatten",
        ] {
            lib.make_extension(name);
        }
    }
}

static COUNTER: AtomicU32 = AtomicU32::new(1);

fn base36(mut x: u64) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if x == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while x > 0 {
        out.push(DIGITS[(x % 36) as usize]);
        x /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Murano's `randomName()`: five random lowercase letters, the time in
/// milliseconds in base 36 (8 digits at most) and a counter in base 36.
fn random_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let counter = COUNTER
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
            Some((c + 1) % 1296)
        })
        .unwrap_or(1);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(millis);
    let mut r = h.finish();
    let prefix: String = (0..5)
        .map(|_| {
            let ch = char::from(b'a' + (r % 26) as u8);
            r /= 26;
            ch
        })
        .collect();
    let stamp: String = base36(millis).chars().take(8).collect();
    format!("{prefix}{stamp}{}", base36(u64::from(counter.max(1))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_names_have_murano_shape() {
        let a = random_name();
        assert!(a.len() >= 7 && a.chars().all(|c| c.is_ascii_alphanumeric()));
        assert!(a[..5].chars().all(|c| c.is_ascii_lowercase()));
    }
}
