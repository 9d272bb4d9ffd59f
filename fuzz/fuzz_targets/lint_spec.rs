//! Arbitrary bytes → `forgelint::engine::lint_bytes` with every built-in rule and every context.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| forgelint_fuzz::check_lint_spec(data));
