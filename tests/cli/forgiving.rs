//! A command line that forgives typos and says what happened: a misspelt command, flags that
//! cannot go together, `--exit-zero`, `--write-baseline`'s own output, completions, causes
//! said once, and values never broken across lines.

use super::*;

#[test]
fn a_misspelt_command_is_named_not_taken_for_two_missing_files() {
    let tree = Tree::new();
    let run = tree.run(&["explian", "gpu-quota"]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("`explian` is neither a file nor a command"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("did you mean `forgelint explain`?"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("All clear"), "{}", run.stderr);
    // A file of that name is linted as asked.
    tree.write("explian", "{}");
    let run = tree.run(&["--no-config", "--format", "concise", "explian"]);
    run.expect_code(1);
    assert!(run.stdout.contains("explian:1:1"), "{}", run.stdout);
}

#[test]
fn lint_is_check() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", error_spec());
    let run = tree.run(&["lint", "--no-config", "--format", "concise"]);
    run.expect_code(1);
    assert_eq!(run.rules(), ["api-version"]);
    // A near miss of it is named, as of the other commands.
    let run = tree.run(&["lnit"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("did you mean `forgelint lint`?"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_misspelt_format_gets_the_formats_and_the_nearest() {
    let tree = Tree::new();
    for given in ["sairf", "SAIRF=out.sarif"] {
        let run = tree.run(&["--format", given]);
        run.expect_code(2);
        assert!(
            run.stderr.contains("a similar value exists: 'sarif'"),
            "{given}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains(
                "[possible values: human, concise, json, sarif, github, jsonl, junit, gitlab, html]"
            ),
            "{given}: {}",
            run.stderr
        );
    }
    let run = tree.run(&["--format", "sarif="]);
    run.expect_code(2);
    assert!(run.stderr.contains("needs a file name"), "{}", run.stderr);
}

#[test]
fn help_lists_every_format() {
    let tree = Tree::new();
    for args in [&["--help"][..], &["check", "--help"]] {
        let run = tree.run(args);
        run.expect_code(0);
        let help: String = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            help.contains(
                "[possible values: human, concise, json, sarif, github, jsonl, junit, gitlab, html]"
            ),
            "{args:?}: {}",
            run.stdout
        );
    }
}

#[test]
fn a_run_with_errors_never_says_all_clear() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    let run = tree.run(&["--no-config", "jobspec.json", "missing.jobspec.json"]);
    run.expect_code(2);
    assert!(!run.stderr.contains("All clear"), "{}", run.stderr);
    assert!(
        scrub_time(&run.stderr).contains(
            "No findings in 1 file checked, but not every path could be linted: see the errors above (TIME)."
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn statistics_are_refused_where_the_format_has_no_place_for_them() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    for format in ["sarif", "github", "junit", "gitlab"] {
        let run = tree.run(&["--no-config", "--statistics", "--format", format]);
        run.expect_code(2);
        assert!(
            run.stderr
                .contains(&format!("--statistics does not go with --format {format}")),
            "{format}: {}",
            run.stderr
        );
        assert_eq!(run.stdout, "", "{format}");
    }
    for format in ["human", "concise", "json", "jsonl", "html"] {
        tree.run(&["--no-config", "--statistics", "--format", format])
            .expect_code(0);
    }
}

#[test]
fn exit_zero_keeps_findings_but_not_tool_errors() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", error_spec());
    let run = tree.run(&["--no-config", "--exit-zero", "--format", "concise"]);
    run.expect_code(0);
    assert_eq!(run.rules(), ["api-version"]);
    assert!(
        scrub_time(&without_skip_notes(&run.stderr)).starts_with("Found 1 error"),
        "{}",
        run.stderr
    );
    tree.run(&["--no-config", "--exit-zero", "missing.json"])
        .expect_code(2);
}

#[test]
fn writing_a_baseline_says_what_it_wrote_and_prints_no_report() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", error_spec());
    let run = tree.run(&["--no-config", "--write-baseline", "baseline.json"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "");
    // The notes on skipped rules follow: the baseline lacks what they would have found.
    assert_eq!(
        without_skip_notes(&run.stderr),
        "Wrote 1 finding in 1 file to the baseline baseline.json; a run with --baseline baseline.json reports only findings not in it.\n"
    );
    assert!(run.stderr.contains("skipped: no catalog"), "{}", run.stderr);
    assert!(tree.path("baseline.json").is_file());
    // With -o the report is written there as well.
    let run = tree.run(&[
        "--no-config",
        "--write-baseline",
        "b2.json",
        "--format",
        "json",
        "-o",
        "report.json",
    ]);
    run.expect_code(0);
    assert!(std::fs::read_to_string(tree.path("report.json"))
        .unwrap()
        .contains("api-version"));
}

#[test]
fn completions_for_every_shell() {
    let tree = Tree::new();
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef forgelint"),
        ("fish", "complete -c forgelint"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion"),
    ] {
        let run = tree.run(&["completions", shell]);
        run.expect_code(0);
        assert!(run.stdout.contains(marker), "{shell}: {}", run.stdout);
        assert!(run.stdout.contains("--fail-on"), "{shell}");
    }
    tree.run(&["completions", "tcsh"]).expect_code(2);
}

/// Rule ids after `explain`, `--select` and `--ignore`, formats after `--format`: values of the
/// scripts themselves, for the shells whose scripts carry an option's values.
#[test]
fn completions_offer_rule_ids_and_formats() {
    let tree = Tree::new();
    let formats = "human concise json sarif github jsonl junit gitlab html";
    let zsh = tree.run(&["completions", "zsh"]);
    zsh.expect_code(0);
    let line = |needle: &str| {
        zsh.stdout
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle}:\n{}", zsh.stdout))
            .to_string()
    };
    assert!(line("'*--format=").contains(&format!("({formats})")));
    for flag in ["'*--select=", "'*--ignore="] {
        let values = line(flag);
        for id in ["api-version", "exp-secret", "gpu-quota", "wrong-type"] {
            assert!(values.contains(id), "{flag}: {values}");
        }
    }
    let explain = line("':rule -- The rule id:(");
    assert!(explain.contains("unused-suppression"), "{explain}");
    let bash = tree.run(&["completions", "bash"]);
    let explain_opts = bash
        .stdout
        .split("forgelint__subcmd__explain)")
        .nth(1)
        .and_then(|rest| rest.lines().nth(1))
        .unwrap_or_default();
    assert!(explain_opts.contains("gpu-quota"), "{explain_opts}");
    assert!(bash.stdout.contains(formats), "bash: the formats");
    let fish = tree.run(&["completions", "fish"]);
    // fish lists an option's values one per line, after the option's own line.
    let select = fish.stdout.split("-l select").nth(1).unwrap_or_default();
    let select = select.split("complete -c").next().unwrap_or_default();
    assert!(select.contains("exp-secret"), "fish --select: {select}");
}

#[test]
fn a_read_error_says_its_cause_once() {
    let tree = Tree::new();
    let run = tree.run(&["--config", "missing.toml", "."]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("cannot read missing.toml"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("No such file or directory").count(),
        1,
        "{}",
        run.stderr
    );
}

#[test]
fn human_output_never_breaks_inside_a_value() {
    let tree = Tree::new();
    // The message wraps at 80 columns; before, it broke after the `/` or a `-` of the value.
    let value = "run/grpo-gsm8k-0401-with-a-longer-name/checkpoint@step=latest";
    let spec = patch(
        &reference(),
        r#""init_from": "run/grpo-gsm8k-0401/checkpoint@step=1200""#,
        &format!(r#""init_from": "{value}""#),
    );
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", spec);
    let run = tree.run(&["--no-config"]);
    run.expect_code(1);
    assert!(run.stdout.contains("init-from-format"), "{}", run.stdout);
    let whole = format!("\"{value}\"");
    assert!(
        run.stdout.lines().any(|l| l.contains(&whole)),
        "the value is broken across lines:\n{}",
        run.stdout
    );
}

#[test]
fn a_config_or_baseline_that_is_not_a_file_is_refused_by_what_it_is() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    tree.mkfifo("pipe.toml");
    let run = tree.run(&["--config", "pipe.toml"]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("the configuration pipe.toml is a FIFO, not a regular file"),
        "{}",
        run.stderr
    );
    let run = tree.run(&["--no-config", "--baseline", "/dev/zero"]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("the baseline /dev/zero is a character device, not a regular file"),
        "{}",
        run.stderr
    );
    let run = tree.run(&["--config", "."]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("the configuration . is a directory"),
        "{}",
        run.stderr
    );
}

/// `--rules` naming a FIFO says what it is (not "Not a directory"), without opening it.
#[test]
fn a_rules_path_that_is_a_fifo_says_so() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json").mkfifo("rules.fifo");
    let run = tree.run(&["--rules", "rules.fifo"]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("rule path rules.fifo is a FIFO, not a regular file or folder"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("Not a directory"), "{}", run.stderr);
}

/// A report file whose folder cannot be made names the folder and why, not what the write
/// then meets ("No such file or directory").
#[test]
fn a_report_folder_that_cannot_be_made_says_why() {
    if !std::path::Path::new("/sys/kernel").is_dir() {
        eprintln!("skipped: needs /sys, where no folder can be made");
        return;
    }
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    let run = tree.run(&["--format", "json=/sys/forgelint-test/sub/a.json"]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("cannot make the folder /sys/forgelint-test/sub:"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("No such file or directory"),
        "{}",
        run.stderr
    );
}

/// A `--select` or `--ignore` value is echoed with its escapes shown, never sent raw.
#[test]
fn rule_ids_on_the_command_line_are_echoed_escaped() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    for flag in ["--select", "--ignore"] {
        // The runner fails on any raw control character in the output.
        let run = tree.run(&[flag, "\u{1b}[2J\u{1b}]0;owned\u{7}kind"]);
        run.expect_code(2);
        assert!(
            run.stderr.contains(&format!(
                "{flag}: unknown rule `\\u{{1b}}[2J\\u{{1b}}]0;owned\\u{{7}}kind`"
            )),
            "{}",
            run.stderr
        );
    }
}
