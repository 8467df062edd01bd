//! `verdict` agrees with `Case::from_json` and `model::outcome` on any bytes.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| checks::verdict(bytes));
