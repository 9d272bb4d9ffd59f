//! Arbitrary text (the input bytes decoded lossily) → `forgelint::select::Selector::parse`, then
//! resolved on a fixed document.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| forgelint_fuzz::check_selector(&String::from_utf8_lossy(data)));
