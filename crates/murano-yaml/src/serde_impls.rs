//! `serde::Serialize` impls that a derive cannot give (feature `serde`):
//! dates and timestamps as their ISO 8601 text, YAQL scalars as their
//! expression text.

use serde::ser::{Serialize, Serializer};

use crate::{Date, Timestamp, YaqlScalar};

impl Serialize for Date {
    /// `YYYY-MM-DD`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl Serialize for Timestamp {
    /// ISO 8601, as `Display` writes it.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl Serialize for YaqlScalar {
    /// The expression text.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.text())
    }
}
