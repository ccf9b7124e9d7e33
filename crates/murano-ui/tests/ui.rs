//! Dynamic UI conformance (being written).
fn main() {}
