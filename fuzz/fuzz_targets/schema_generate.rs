//! JSON-schema generation for classes (see
//! `murano_testkit::fuzz::schema_generate` for the input layout).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| murano_testkit::fuzz::schema_generate(data));
