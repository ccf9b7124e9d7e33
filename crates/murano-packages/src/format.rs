//! Package Format identifiers (being written).
