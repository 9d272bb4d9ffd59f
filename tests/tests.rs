//! forgelint's integration tests: one binary with a module per topic, as ripgrep's
//! `tests/tests.rs`, so a change relinks one test binary instead of seventeen. Run one topic with
//! `cargo test --test tests <module>::`.

/// `insta::assert_snapshot!` under the name the snapshot had when each topic was a test binary
/// of its own (`<module path>__<name>`, the `tests::` of this binary left out): the snapshot
/// files keep their names and contents.
macro_rules! assert_named_snapshot {
    ($name:expr, $value:expr $(,)?) => {{
        let module = module_path!();
        let module = module
            .strip_prefix("tests::")
            .unwrap_or(module)
            .replace("::", "__");
        insta::with_settings!({ prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(format!("{module}__{}", $name), $value);
        });
    }};
}

// The harness: the binary under a watchdog, temporary trees, the reference spec.
mod common;

// The command line, end to end: exit codes, formats, configs, discovery, hostile input.
mod adoption;
mod adversarial;
mod cli;
mod formats;
mod linear;
mod stress;

// The rules: their own cases, policies, the docs and schemas made from them.
mod docs;
mod policies;
mod readme;
mod rule_cases;
mod schemas;

// Library parts on generated input.
mod fix_properties;
mod fuzz_regressions;
mod json_suite;
mod pattern_shapes;
mod text_scan;

// The language server, through a scripted client.
mod lsp;

// The shape of src/: no import cycle, a leaf diagnostics module, short functions.
mod architecture;

// `forgelint history` and `check --new-from-rev` on repositories written with git.
mod history;
