//! Heat templates loaded, validated, checked with parameter values and
//! resolved (see `murano_testkit::fuzz::hot_validate` for the input
//! layout).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| murano_testkit::fuzz::hot_validate(data));
