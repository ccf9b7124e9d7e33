//! Namespaces and type names, resolved the way Murano resolves them.

use std::fmt;

use murano_yaml::py_text::is_word as is_python_word;

/// Why a type name could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum NameError {
    /// Not of the form `[prefix:]name(.name)*` (Murano's `ValueError`).
    #[error("invalid type name {0:?}")]
    InvalidTypeName(String),
    /// The prefix is not declared in `Namespaces` (Murano's `KeyError`).
    #[error("unknown namespace prefix {0:?}")]
    UnknownPrefix(String),
    /// A `Namespaces` entry whose prefix is not an identifier or `=`.
    #[error("invalid namespace prefix {0:?}")]
    InvalidPrefix(String),
    /// A `Namespaces` entry whose value is not a dotted name.
    #[error("invalid namespace {0:?}")]
    InvalidNamespace(String),
}

/// `[a-zA-Z_]\w*` with Python's Unicode `\w`.
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(is_python_word)
}

fn is_dotted(s: &str) -> bool {
    s.split('.').all(is_identifier)
}

/// Murano's `TYPE_NAME_RE`: `^([a-zA-Z_]\w*:|:)?[a-zA-Z_]\w*(\.[a-zA-Z_]\w*)*$`.
pub fn is_type_name(name: &str) -> bool {
    let body = match name.split_once(':') {
        Some((prefix, body)) => {
            if !(prefix.is_empty() || is_identifier(prefix)) {
                return false;
            }
            body
        }
        None => name,
    };
    !body.is_empty() && is_dotted(body)
}

/// The `Namespaces` section of a class: prefix → namespace, with `=` the
/// class's own namespace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Namespaces {
    entries: Vec<(String, String)>,
}

impl Namespaces {
    /// Namespaces from `(prefix, namespace)` pairs, validated as Murano
    /// validates them (a missing namespace is the empty one).
    pub fn new<I, P, N>(entries: I) -> Result<Namespaces, NameError>
    where
        I: IntoIterator<Item = (P, Option<N>)>,
        P: Into<String>,
        N: Into<String>,
    {
        let mut out = Namespaces::default();
        for (prefix, ns) in entries {
            let prefix = prefix.into();
            let ns = ns.map(Into::into).unwrap_or_default();
            if !(prefix == "=" || is_identifier(&prefix)) {
                return Err(NameError::InvalidPrefix(prefix));
            }
            if !(ns.is_empty() || is_dotted(&ns)) {
                return Err(NameError::InvalidNamespace(ns));
            }
            out.set(prefix, ns);
        }
        Ok(out)
    }

    fn set(&mut self, prefix: String, ns: String) {
        match self.entries.iter_mut().find(|(p, _)| *p == prefix) {
            Some(entry) => entry.1 = ns,
            None => self.entries.push((prefix, ns)),
        }
    }

    /// The namespace of `prefix` (`=` and the empty prefix default to the
    /// empty namespace).
    pub fn get(&self, prefix: &str) -> Option<&str> {
        match self.entries.iter().find(|(p, _)| p == prefix) {
            Some((_, ns)) => Some(ns),
            None if prefix == "=" || prefix.is_empty() => Some(""),
            None => None,
        }
    }

    /// The declared entries in order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(p, n)| (p.as_str(), n.as_str()))
    }

    /// Murano's `resolve_name`: `prefix:Name` through the prefix, a dotted
    /// name as it is, a bare name in the `=` namespace.
    ///
    /// ```
    /// use murano_dsl::model::Namespaces;
    ///
    /// let ns = Namespaces::new([("=", Some("io.murano.apps")), ("std", Some("io.murano"))])?;
    /// assert_eq!(ns.resolve("std:Application")?, "io.murano.Application");
    /// assert_eq!(ns.resolve("Tomcat")?, "io.murano.apps.Tomcat");
    /// assert_eq!(ns.resolve("io.murano.Object")?, "io.murano.Object");
    /// assert!(ns.resolve("res:Instance").is_err());
    /// # Ok::<(), murano_dsl::model::NameError>(())
    /// ```
    pub fn resolve(&self, name: &str) -> Result<String, NameError> {
        if !is_type_name(name) {
            return Err(NameError::InvalidTypeName(name.to_owned()));
        }
        let (prefix, body) = match name.split_once(':') {
            Some(("", body)) => ("=", body),
            Some((prefix, body)) => (prefix, body),
            None if name.contains('.') => ("", name),
            None => ("=", name),
        };
        let ns = self
            .get(prefix)
            .ok_or_else(|| NameError::UnknownPrefix(prefix.to_owned()))?;
        Ok(if ns.is_empty() {
            body.to_owned()
        } else {
            format!("{ns}.{body}")
        })
    }
}

impl fmt::Display for Namespaces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (p, n)) in self.entries.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}: {n}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names() {
        for ok in ["Foo", "a.b.C", "std:Foo", ":Foo", "_x.y_z"] {
            assert!(is_type_name(ok), "{ok}");
        }
        for bad in ["", "1a", "a-b", "a..b", "std:", "a:b:c", "a.", ".a"] {
            assert!(!is_type_name(bad), "{bad}");
        }
    }

    #[test]
    fn resolution() {
        let ns = Namespaces::new([("=", Some("x")), ("p", None)]).unwrap();
        assert_eq!(ns.resolve(":Foo").unwrap(), "x.Foo");
        assert_eq!(ns.resolve("p:Foo").unwrap(), "Foo");
        assert_eq!(
            Namespaces::new([("a-b", Some("x"))]),
            Err(NameError::InvalidPrefix("a-b".into()))
        );
    }
}
