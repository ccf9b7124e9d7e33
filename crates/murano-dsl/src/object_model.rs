//! Murano object models (being written).
