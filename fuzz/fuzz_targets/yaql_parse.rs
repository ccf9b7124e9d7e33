//! YAQL lexing and parsing in every built-in grammar (see
//! `murano_testkit::fuzz::yaql_parse` for the invariants).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| murano_testkit::fuzz::yaql_parse(data));
