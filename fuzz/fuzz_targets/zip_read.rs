//! Fuzz target: see `murano_testkit::fuzz::zip_read`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| murano_testkit::fuzz::zip_read(data));
