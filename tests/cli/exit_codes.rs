//! Exit codes: 0 when clean, 1 for findings at or above `--fail-on`, 2 when the tool cannot do
//! its job (bad flags, bad configs, missing paths).

use super::*;

#[test]
fn a_clean_spec_exits_0_with_a_summary() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    for format in ["human", "concise"] {
        let run = tree.run(&["--no-config", "--format", format]);
        run.expect_code(0);
        assert_eq!(run.stdout, "", "{format}");
        assert_eq!(
            scrub_time(&without_skip_notes(&run.stderr)),
            "All clear: 1 file checked, no findings (TIME).\n"
        );
    }
    let quiet = tree.run(&["--no-config", "-q"]);
    quiet.expect_code(0);
    assert_eq!(quiet.stderr, "", "--quiet prints no summary");
}

#[test]
fn errors_exit_1() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", error_spec());
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(1);
    assert_eq!(run.rules(), ["api-version"]);
    assert_eq!(
        scrub_time(&without_skip_notes(&run.stderr)),
        "Found 1 error, 0 warnings in 1 of 1 file checked (TIME).\n\
         1 finding fixable with --fix --unsafe-fixes.\n"
    );
    // --fail-on never lowers the verdict for an error.
    for level in ["error", "warning", "note"] {
        tree.run(&["--no-config", "--fail-on", level])
            .expect_code(1);
    }
}

#[test]
fn fail_on_decides_whether_warnings_fail() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", warning_only_spec());
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(0);
    assert_eq!(run.rules(), ["owner-ignored"], "a warning-only spec");
    assert_eq!(run.findings()[0].severity, "warning");
    tree.run(&["--no-config", "--fail-on", "error"])
        .expect_code(0);
    tree.run(&["--no-config", "--fail-on", "warning"])
        .expect_code(1);
    tree.run(&["--no-config", "--fail-on", "note"])
        .expect_code(1);
}

#[test]
fn fail_on_note_fails_on_notes_only() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", warning_only_spec())
        .write("forgelint.toml", "[severity]\nowner-ignored = \"note\"\n");
    let run = tree.run(&["--format", "concise"]);
    run.expect_code(0);
    assert_eq!(run.findings()[0].severity, "note");
    assert_eq!(run.rules(), ["owner-ignored"]);
    tree.run(&["--fail-on", "warning"]).expect_code(0);
    tree.run(&["--fail-on", "note"]).expect_code(1);
}

#[test]
fn bad_flags_exit_2() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    for args in [
        &["--bogus"][..],
        &["--format", "xml"],
        &["--fail-on", "bogus"],
        &["--color", "sometimes"],
        &["-j", "many"],
        &["--config", "forgelint.toml", "--no-config"],
        &["--select", "owner-ignord"],
        &["--ignore", "no-such-rule"],
        &["--stdin-filename", "x.jobspec.json"],
        &["--rules", "no-such-folder/"],
        &["explain", "no-such-rule"],
        &["--config", "missing.toml"],
    ] {
        let run = tree.run(args);
        assert_eq!(run.code, 2, "{args:?}\n{}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}: nothing on stdout");
        assert!(!run.stderr.trim().is_empty(), "{args:?}: stderr says why");
        assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
    }
    let run = tree.run(&["--select", "owner-ignord"]);
    assert!(
        run.stderr.contains("did you mean `owner-ignored`?"),
        "{}",
        run.stderr
    );
    tree.run(&["--help"]).expect_code(0);
    tree.run(&["--version"]).expect_code(0);
}

#[test]
fn a_config_with_an_unknown_key_exits_2_with_did_you_mean_and_its_position() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json").write(
        "forgelint.toml",
        "# lab settings\n[platform]\ncatalg = \"catalog.toml\"\n",
    );
    // Given with --config (shown as given) and found in the current directory (shown in full).
    let given = tree.run(&["--config", "forgelint.toml"]);
    given.expect_code(2);
    assert_eq!(given.stdout, "");
    assert!(
        given.stderr.contains("did you mean `catalog`?"),
        "{}",
        given.stderr
    );
    assert!(
        given.stderr.contains("forgelint.toml:3:1"),
        "{}",
        given.stderr
    );
    assert_named_snapshot!("config_unknown_key", tree.scrub(&given.stderr));

    let found = tree.run(&[]);
    found.expect_code(2);
    assert!(
        found.stderr.contains("did you mean `catalog`?"),
        "{}",
        found.stderr
    );
    assert!(
        found.stderr.contains("forgelint.toml:3:1"),
        "{}",
        found.stderr
    );
}

#[test]
fn other_bad_configs_exit_2_with_their_position() {
    let cases: &[(&str, &str, &str)] = &[
        ("not TOML", "[platform\nkind = 1\n", "forgelint.toml:1:10"),
        (
            "unknown rule in [severity]",
            "[severity]\nowner-ignord = \"off\"\n",
            "forgelint.toml:2:1",
        ),
        (
            "unknown severity",
            "[severity]\nowner-ignored = \"loud\"\n",
            "forgelint.toml:2:17",
        ),
        (
            "unknown rule in [per-file-ignores]",
            "[per-file-ignores]\n\"a/**\" = [\"git-dirt\"]\n",
            "forgelint.toml:2:11",
        ),
        (
            "missing catalog",
            "[platform]\ncatalog = \"nope.toml\"\n",
            "forgelint.toml:2:11",
        ),
        (
            "missing rule folder",
            "rules = [\"policies/\"]\n",
            "forgelint.toml:1:10",
        ),
        (
            "bad glob",
            "[files]\nexclude = [\"a/[b\"]\n",
            "forgelint.toml:2:12",
        ),
    ];
    for (what, config, position) in cases {
        let tree = Tree::new();
        tree.valid_project("jobspec.json")
            .write("forgelint.toml", config);
        let run = tree.run(&["--config", "forgelint.toml"]);
        assert_eq!(run.code, 2, "{what}\n{}", run.stderr);
        assert!(
            run.stderr.contains(position),
            "{what}: expected {position} in\n{}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);
    }
}

#[test]
fn a_missing_explicit_path_exits_2_but_the_other_files_are_linted() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", warning_only_spec());
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "nope.json",
        "jobspec.json",
    ]);
    run.expect_code(2);
    assert_eq!(run.rules(), ["owner-ignored"]);
    assert!(
        run.stderr.contains("nope.json: no such file or directory"),
        "{}",
        run.stderr
    );
    tree.run(&["--no-config", "nope/"]).expect_code(2);
}

/// forgelint's standard output piped into `reader` (a shell command), the pipeline's exit code
/// being forgelint's (`set -o pipefail`).
fn piped_into(cwd: &std::path::Path, reader: &str, args: &[&str]) -> Run {
    let extra = common::Extra {
        wrapper: vec![
            "bash".into(),
            "-c".into(),
            format!("set -o pipefail; \"$@\" | {reader}"),
            "forgelint-piped".into(),
        ],
        ..common::Extra::default()
    };
    common::forgelint(cwd, args, &extra)
}

/// A reader that closes the pipe early ends the output quietly, not the verdict: a failing
/// lint still fails a `set -o pipefail` script.
#[test]
fn a_closed_pipe_is_quiet_and_keeps_the_exit_code() {
    let demo = ["--config", "fixtures/demo/forgelint.toml", "fixtures/demo"];
    let run = piped_into(manifest_dir(), "true", &demo);
    run.expect_code(1);
    assert_eq!(run.stderr, "", "quiet: not even the summary");
    // Enough output that the writes after the first line find the pipe closed.
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo");
    let spec = patch(&error_spec(), r#""owner": """#, r#""owner": "bob""#);
    for i in 0..2000 {
        tree.write(format!("specs/s{i:04}.jobspec.json"), &spec);
    }
    for args in [
        vec!["--no-config", "--format", "concise"],
        vec!["--no-config", "--format", "human"],
        vec!["--no-config", "--format", "json"],
        vec!["--no-config", "--diff"],
    ] {
        let run = piped_into(tree.root(), "head -n 1 >/dev/null", &args);
        run.expect_code(1);
        assert_eq!(run.stderr, "", "{args:?}");
    }
    // A listing read only in part is a success.
    let run = piped_into(tree.root(), "head -n 1 >/dev/null", &["rules"]);
    run.expect_code(0);
    assert_eq!(run.stderr, "");
}
