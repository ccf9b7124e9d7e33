//! MuranoPL classes executed under tight limits: objects loaded, every
//! method called, the model serialised (see
//! `murano_testkit::fuzz::engine_run` for the input layout).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| murano_testkit::fuzz::engine_run(data));
