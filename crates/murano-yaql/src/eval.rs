//! YAQL evaluation (being written).
