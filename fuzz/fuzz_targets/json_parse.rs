//! Arbitrary bytes → `forgelint::json::parse_bytes`, cross-checked with serde_json.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| forgelint_fuzz::check_json_parse(data));
