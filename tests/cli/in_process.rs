//! The library run in-process: `forgelint::run` with in-memory streams, as `main` calls it.

use super::*;

use std::path::Path;

use clap::Parser;
use forgelint::cli::Cli;
use forgelint::{Env, ExitStatus};

/// Runs forgelint in this process with `args`, `cwd` as its working directory and empty stdin.
fn run_in_process(cwd: &Path, args: &[&str]) -> (ExitStatus, String, String) {
    let cli = Cli::try_parse_from(std::iter::once("forgelint").chain(args.iter().copied()))
        .expect("the arguments parse");
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut stdin: &[u8] = &[];
    let mut env = Env {
        stdout: &mut stdout,
        stderr: &mut stderr,
        stdin: &mut stdin,
        stdout_is_terminal: false,
        no_color: true,
        cwd: cwd.to_path_buf(),
        width: 80,
    };
    let status = forgelint::run(cli, &mut env).expect("the run does its job");
    (
        status,
        String::from_utf8(stdout).expect("stdout is UTF-8"),
        String::from_utf8(stderr).expect("stderr is UTF-8"),
    )
}

#[test]
fn a_run_in_process_reports_what_the_binary_reports() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("clean.jobspec.json", reference())
        .write("warning.jobspec.json", warning_only_spec())
        .write("error.jobspec.json", error_spec());
    let root = tree.root().to_str().expect("UTF-8 temp path");
    let spec = |name: &str| format!("{root}/{name}.jobspec.json");
    for (files, status, code) in [
        (vec![spec("clean")], ExitStatus::Success, 0),
        (vec![spec("clean"), spec("warning")], ExitStatus::Success, 0),
        (vec![spec("warning"), spec("error")], ExitStatus::Failure, 1),
    ] {
        let mut args = vec!["--no-config", "--format", "concise"];
        args.extend(files.iter().map(String::as_str));
        let (got, stdout, stderr) = run_in_process(tree.root(), &args);
        assert_eq!(got, status, "{args:?}\n{stdout}\n{stderr}");
        let binary = tree.run(&args);
        binary.expect_code(code);
        assert_eq!(got as i32, binary.code);
        assert_eq!(stdout, binary.stdout, "{args:?}");
        assert_eq!(scrub_time(&stderr), scrub_time(&binary.stderr), "{args:?}");
    }
    let (_, stdout, _) = run_in_process(
        tree.root(),
        &["--no-config", "--format", "concise", &spec("error")],
    );
    let found: Vec<Finding> = stdout.lines().map(Finding::parse).collect();
    assert_eq!(found.len(), 1, "{stdout}");
    assert_eq!(
        (
            found[0].position.as_str(),
            found[0].severity.as_str(),
            found[0].rule.as_str()
        ),
        ("2:17", "error", "api-version")
    );
}
