//! JSON-schema conformance (being written).
fn main() {}
