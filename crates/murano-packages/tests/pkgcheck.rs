//! murano-pkg-check parity (being written).
fn main() {}
