//! Murano versions and version specs (being written).
