//! MuranoPL contracts applied to data under runtimes 1.0 and 1.4 (see
//! `murano_testkit::fuzz::contract_apply` for the input layout).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| murano_testkit::fuzz::contract_apply(data));
