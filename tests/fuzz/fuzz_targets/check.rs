//! `check` on any case and outcome never panics and judges the same twice.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| checks::check(bytes));
