//! Fuzz target: see `murano_testkit::fuzz::yaml_load`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| murano_testkit::fuzz::yaml_load(data));
