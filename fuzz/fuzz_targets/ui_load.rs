//! Dynamic UI definitions loaded and run through the wizard (see
//! `murano_testkit::fuzz::ui_load` for the input layout).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| murano_testkit::fuzz::ui_load(data));
