//! [`Path`]: where an element sits in an object model.

use std::fmt;

/// One step of a [`Path`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Segment {
    /// A mapping key (a non-string key by its JSON text, an expression
    /// key by its text).
    Key(String),
    /// A list index.
    Index(usize),
}

/// The location of an element, written as a JSON pointer (RFC 6901):
/// `/applications/0/?/type`; `~` and `/` inside keys are written `~0` and
/// `~1`; the root is the empty string.
///
/// ```
/// use murano_dsl::object_model::Path;
///
/// let path = Path::root().key("applications").index(0).key("?").key("type");
/// assert_eq!(path.to_string(), "/applications/0/?/type");
/// assert_eq!(Path::root().key("a/b").to_string(), "/a~1b");
/// assert!(Path::root().is_root());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Path(Vec<Segment>);

impl Path {
    /// The root.
    pub fn root() -> Path {
        Path::default()
    }

    /// This path followed by key `key`.
    pub fn key(&self, key: impl Into<String>) -> Path {
        let mut path = self.clone();
        path.0.push(Segment::Key(key.into()));
        path
    }

    /// This path followed by list index `index`.
    pub fn index(&self, index: usize) -> Path {
        let mut path = self.clone();
        path.0.push(Segment::Index(index));
        path
    }

    /// The steps from the root.
    pub fn segments(&self) -> &[Segment] {
        &self.0
    }

    /// Whether this is the root.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `self` is `other` or lies inside it.
    pub fn starts_with(&self, other: &Path) -> bool {
        self.0.starts_with(&other.0)
    }

    /// `other`'s steps appended to this path.
    pub fn join(&self, other: &Path) -> Path {
        let mut path = self.clone();
        path.0.extend(other.0.iter().cloned());
        path
    }

    pub(crate) fn push(&mut self, segment: Segment) {
        self.0.push(segment);
    }

    pub(crate) fn pop(&mut self) {
        self.0.pop();
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for segment in &self.0 {
            match segment {
                Segment::Key(key) => {
                    f.write_str("/")?;
                    for c in key.chars() {
                        match c {
                            '~' => f.write_str("~0")?,
                            '/' => f.write_str("~1")?,
                            c => fmt::Write::write_char(f, c)?,
                        }
                    }
                }
                Segment::Index(i) => write!(f, "/{i}")?,
            }
        }
        Ok(())
    }
}
