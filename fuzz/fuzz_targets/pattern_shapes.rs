//! Bytes → a pattern of a shape the run matcher takes and a text mixing ASCII with other
//! characters → `forgelint::rules::Pattern`, cross-checked with the regex.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| forgelint_fuzz::check_pattern_shapes(data));
