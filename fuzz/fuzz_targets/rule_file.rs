//! Arbitrary text (the input bytes decoded lossily) → `forgelint::rules::compile_rule`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| forgelint_fuzz::fuzz_rule_file(&String::from_utf8_lossy(data)));
