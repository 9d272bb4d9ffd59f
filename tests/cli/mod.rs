//! End-to-end tests of the `forgelint` binary: exit codes, the human and concise formats,
//! bad configuration and rule files, discovery, the project root, positions, and hostile input.
//!
//! Every run uses `NO_COLOR=1`, `COLUMNS=80`, a fixed working directory and a timeout (a run that
//! hangs — on a FIFO, say — fails instead of blocking the suite). Trees are generated in temporary
//! directories; the demo repository under `fixtures/demo` is linted in place.
//!
//! One binary, one module per topic; the shared harness (the runner, `Tree`, `reference()`,
//! `patch()`) is `tests/common/`.

use crate::common;

mod audit;
mod composition;
mod config_tree;
mod demo;
mod discovery;
mod exit_codes;
mod experiments;
mod fix_safety;
mod fixing;
mod forgiving;
mod hostile;
mod in_process;
mod masking;
mod one_fault;
mod positions;
mod project_root;
mod rule_files;
mod rules_command;
mod skipped;
mod text_rules;
mod unusual_shapes;

use common::{
    manifest_dir, patch, reference, run_in, scrub_time, without_skip_notes, Finding, Run, Tree,
};

/// The exit code, stdout and stderr of a run, for a snapshot.
fn transcript(run: &Run) -> String {
    format!(
        "exit code: {}\n--- stdout ---\n{}--- stderr ---\n{}",
        run.code, run.stdout, run.stderr
    )
}

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/// A spec whose only finding is the warning `owner-ignored` at 7:14.
fn warning_only_spec() -> String {
    patch(&reference(), r#""owner": """#, r#""owner": "bob""#)
}

/// A spec whose only finding is the error `api-version` at 2:17.
fn error_spec() -> String {
    patch(
        &reference(),
        r#""apiVersion": "forge/v2""#,
        r#""apiVersion": "forge/v1""#,
    )
}

/// `json` without whitespace outside strings: one line.
fn minify(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

/// 1-based UTF-16 column of byte offset `at` in its line of `text`.
fn utf16_column(text: &str, at: usize) -> usize {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..at].encode_utf16().count() + 1
}

/// 1-based line of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}
