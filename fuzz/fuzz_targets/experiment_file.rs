//! A name byte and arbitrary text → `forgelint::experiment::lint_in_memory` with every
//! experiment rule and a rule of each config target (the YAML, TOML and JSON converters).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| forgelint_fuzz::check_experiment_file(data));
