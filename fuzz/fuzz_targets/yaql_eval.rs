//! YAQL evaluation of an expression against data under limits (see
//! `murano_testkit::fuzz::yaql_eval` for the input layout).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| murano_testkit::fuzz::yaql_eval(data));
