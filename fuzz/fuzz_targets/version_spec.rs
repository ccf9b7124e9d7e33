//! Fuzz target: see `murano_testkit::fuzz::version_spec`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| murano_testkit::fuzz::version_spec(data));
