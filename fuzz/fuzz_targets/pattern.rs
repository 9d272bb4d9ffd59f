//! A regular expression and a text → `forgelint::rules::Pattern`, cross-checked with the regex.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| forgelint_fuzz::check_pattern(data));
