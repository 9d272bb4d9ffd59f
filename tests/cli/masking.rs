//! No secret is shown, whatever shows it: code frames (human, HTML) of other findings, messages
//! that quote a value, `explain`, and errors that quote a file. A secret the run does not report
//! — suppressed by a comment, hidden by the baseline or per-file ignores, in a file `exp-secret`
//! does not read, or with `exp-secret` not selected — is masked all the same, and a private
//! key block is masked whole, from its header to its END line.

use super::*;

/// Suppressed by a comment on its line.
const SUPPRESSED: &str = "hf_SuppressedTokenAbCdEfGhIjKlMnOpQrStUv";
/// Reported, then hidden by the baseline.
const BASELINED: &str = "AKIAZ7BASELINEDKEY42";
/// In a file per-file ignores take out of `exp-secret`.
const IGNORED: &str = "ghp_IgnoredByPerFileIgnores0123456789abc";
/// In a spec: `exp-secret` reads only experiment files, and `owner-ignored` quotes the value.
const IN_SPEC: &str = "sk-proj-InTheSpecOwnerField0123456789abcdefghij";
const KEY_BODY: [&str; 2] = [
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB",
    "AAAAMwAAAAtzc2gtZWQyNTUxOQAAACBodW50ZXIyaHVudGVyMmh1",
];

/// The text of a secret that must never show: all but its first four characters.
fn tails() -> Vec<String> {
    let mut tails: Vec<String> = [SUPPRESSED, BASELINED, IGNORED, IN_SPEC]
        .iter()
        .map(|s| s[4..].to_string())
        .collect();
    tails.extend(KEY_BODY.iter().map(|l| l.to_string()));
    tails.push("END OPENSSH".into());
    tails
}

fn assert_masked(what: &str, text: &str) {
    for tail in tails() {
        assert!(
            !text.contains(&tail),
            "{what} shows the secret {tail:?}:\n{text}"
        );
    }
}

fn secret_tree() -> Tree {
    let tree = Tree::new();
    let spec = patch(
        &reference(),
        r#""owner": """#,
        &format!(r#""owner": "{IN_SPEC}""#),
    );
    tree.write(
        "forgelint.toml",
        "[per-file-ignores]\n\"experiments/my-grpo/deploy.sh\" = [\"exp-secret\"]\n",
    )
    .write("jobspec.json", spec)
    .write(
        "experiments/my-grpo/train.py",
        format!(
            "import os\nTOKEN = \"{SUPPRESSED}\"  # forgelint: ignore[exp-secret] a revoked test token\nCORPUS = \"/mnt/shared/handbook\"\nAWS = \"{BASELINED}\"\nDOCS = os.environ[\"DOCS_DIR\"]\n"
        ),
    )
    .write(
        "experiments/my-grpo/deploy.sh",
        format!("#!/bin/sh\nexport GH_TOKEN={IGNORED}\npython train.py --data /mnt/shared/x\n"),
    )
    .write(
        "experiments/my-grpo/config.yaml",
        format!(
            "policy:\n  lr: 1.0e-5\nssh_key: |\n  -----BEGIN OPENSSH PRIVATE KEY-----\n  {}\n  {}\n  -----END OPENSSH PRIVATE KEY-----\ndata: /mnt/shared/corpus\n",
            KEY_BODY[0], KEY_BODY[1]
        ),
    );
    tree
}

#[test]
fn no_secret_shows_in_any_output_whatever_is_reported() {
    let tree = secret_tree();
    let baseline = tree.path("baseline.json");
    let baseline = baseline.to_str().unwrap();
    // The baseline hides what is reported now: the private key and the AWS key among them.
    let written = tree.run(&["--write-baseline", baseline]);
    written.expect_code(0);
    assert_masked("the baseline", &std::fs::read_to_string(baseline).unwrap());
    tree.write(
        "experiments/my-grpo/train.py",
        std::fs::read_to_string(tree.path("experiments/my-grpo/train.py"))
            .unwrap()
            .replace("/mnt/shared/handbook", "/mnt/shared/handbook2"),
    );
    for extra in [
        vec![],
        vec!["--baseline", baseline],
        vec!["--select", "exp-host-path,owner-ignored"],
    ] {
        for format in common::FORMATS {
            let mut args = vec!["--format", format];
            args.extend(&extra);
            let run = tree.run(&args);
            run.expect_code(1);
            let what = format!("{args:?}");
            assert_masked(&format!("{what} stdout"), &run.stdout);
            assert_masked(&format!("{what} stderr"), &run.stderr);
        }
    }
    // The frames that show the secrets' lines are there, masked: beside a finding the
    // baseline does not hide, and in a run without it.
    let human = tree.run(&["--baseline", baseline, "--format", "human"]);
    for shown in ["hf_S…", "AKIA…"] {
        assert!(human.stdout.contains(shown), "{shown}:\n{}", human.stdout);
    }
    let human = tree.run(&["--format", "human"]);
    for shown in ["hf_S…", "AKIA…", "ghp_…", "sk-p…", "----…"] {
        assert!(human.stdout.contains(shown), "{shown}:\n{}", human.stdout);
    }
    let html = tree.run(&["--baseline", baseline, "--format", "html"]);
    assert!(html.stdout.contains("hf_S<span class=\"secret\">…</span>"));
    // A diff's lines are an excerpt too: the owner (a secret) goes, and shows masked.
    let diff = tree.run(&["--diff"]);
    diff.expect_code(1);
    assert!(
        diff.stdout.contains("-    \"owner\": \"sk-p…\","),
        "{}",
        diff.stdout
    );
    assert_masked("--diff", &diff.stdout);
    // A spec on standard input.
    let spec = std::fs::read_to_string(tree.path("jobspec.json")).unwrap();
    let run = tree.run_stdin(&["--format", "human", "-"], &spec);
    run.expect_code(0);
    assert!(run.stdout.contains("\"sk-p…\""), "{}", run.stdout);
    assert_masked("standard input", &run.stdout);
}

#[test]
fn a_private_key_under_its_own_finding_shows_no_body_line() {
    let tree = secret_tree();
    let run = tree.run(&["--format", "human", "--select", "exp-secret"]);
    run.expect_code(1);
    assert!(run.stdout.contains("----…"), "{}", run.stdout);
    assert_masked("the key's frame", &run.stdout);
    // The body lines are there, one `…` each: the frame keeps its lines.
    assert!(run.stdout.contains(" 5 │ …\n"), "{}", run.stdout);
}

#[test]
fn explain_shows_its_examples_masked() {
    let tree = Tree::new();
    let run = tree.run(&["explain", "exp-secret"]);
    run.expect_code(0);
    for example in [
        "84b5a20db86c2597e3507fd3bee8f235a99ae8c7",
        "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",
        "AKIADFSWWU6ACHFJPAB5",
        "4sOxFKLpPeFVPPK7Yh5ZZwvAmE",
        "ZWRiYmNjYmQ0N2M2NzQwZjMyNzhjODcwZmU1ODhhMjg3YTVjMzA5Mg",
        // The look-alikes of the passing cases are masked too: masking asks no filter.
        "AKIAIOSFODNN7EXAMPLE",
    ] {
        assert!(!run.stdout.contains(example), "{example}:\n{}", run.stdout);
    }
    assert!(run.stdout.contains("\"84b5…\""), "{}", run.stdout);
}

#[test]
fn an_error_that_quotes_a_file_masks_its_secrets() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json").write(
        "forgelint.toml",
        format!("[platform]\nkind = \"TrainingJob\"\ntoken = \"{IGNORED}\"\n"),
    );
    let run = tree.run(&[]);
    run.expect_code(2);
    assert!(run.stderr.contains("token"), "{}", run.stderr);
    assert_masked("the config error", &run.stderr);
}
