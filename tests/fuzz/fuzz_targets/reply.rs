//! The harness's reading of one reply line never panics and says what the line says.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| checks::reply(bytes));
