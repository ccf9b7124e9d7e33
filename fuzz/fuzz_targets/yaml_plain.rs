//! The plain YAML fast path, each half alone, against the general loader
//! (see `murano_testkit::fuzz::yaml_plain`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| murano_testkit::fuzz::yaml_plain(data));
