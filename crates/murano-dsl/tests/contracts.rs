//! Contract conformance (being written).
fn main() {}
