//! YAQL evaluation conformance (being written).
fn main() {}
