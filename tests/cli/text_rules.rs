//! What a rule file says about a text pattern's matches: `allow`, `allow-line`, `stop-words`,
//! `min-entropy`, `keywords` and `decode`, on a team's own rules (the example pack's), and the
//! mistakes in them, refused at their own place.

use super::*;

fn lines(run: &Run) -> Vec<String> {
    run.findings()
        .iter()
        .map(|f| format!("{}:{} {}", f.path, f.position, f.rule))
        .collect()
}

/// A project whose config loads the example pack's `torch-load-weights-only` and `lab-token`.
fn policy_tree() -> Tree {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    for name in ["torch-load-weights-only.toml", "lab-token.toml"] {
        let text = std::fs::read_to_string(manifest_dir().join("rules/examples").join(name))
            .expect("the example exists");
        tree.write(format!("policies/{name}"), text);
    }
    tree.write("forgelint.toml", "rules = [\"policies/\"]\n");
    tree
}

#[test]
fn allow_line_excuses_a_call_and_keywords_gate_the_pattern() {
    let tree = policy_tree();
    tree.write(
        "experiments/my-grpo/train.py",
        "import torch\nsafe = torch.load(p, weights_only=True)\nbad = torch.load(p)\nalso = torch.load(\n    p,\n    weights_only=True,\n)\n",
    )
    // The pattern would match `torch . load(` spelt with its module aliased; the keyword
    // `torch.load` is not in the file, so it is never searched.
    .write(
        "experiments/my-grpo/alias.py",
        "from torch import load as torch_load\nx = torch_load(p)\n",
    );
    let run = tree.run(&["--format", "concise", "--select", "torch-load-weights-only"]);
    run.expect_code(1);
    assert_eq!(
        lines(&run),
        ["experiments/my-grpo/train.py:3:7 torch-load-weights-only"],
        "{}",
        run.stdout
    );
}

/// A team's secret rule: its placeholders are not reported (entropy floor, allow), its tokens
/// are, masked; and its pattern masks every excerpt, a frame of another rule's finding included,
/// placeholders too.
#[test]
fn a_teams_token_rule_reports_real_tokens_and_masks_every_match() {
    let tree = policy_tree();
    let real = "lab_IQbLQr5zTNvujqh4pu7HNLKuHPXaW2D0";
    tree.write(
        "experiments/my-grpo/client.py",
        format!(
            "TOKEN = \"{real}\"\nDATA = \"/mnt/shared/x\"\nEXAMPLE = \"lab_EXAMPLE7Rq2sLx9VbN4mKcTz8WdYf3H2\"\nZERO = \"lab_00000000000000000000000000000000\"\nMORE = \"/mnt/shared/y\"\n"
        ),
    );
    let run = tree.run(&["--format", "concise", "--select", "lab-token"]);
    run.expect_code(1);
    assert_eq!(
        lines(&run),
        ["experiments/my-grpo/client.py:1:10 lab-token"],
        "{}",
        run.stdout
    );
    let human = tree.run(&["--format", "human", "--select", "exp-host-path"]);
    human.expect_code(1);
    // Each frame shows the line around its finding: the token, the sample and the zeros.
    assert!(
        human.stdout.contains("TOKEN = \"lab_…\"")
            && human.stdout.contains("EXAMPLE = \"lab_…\"")
            && human.stdout.contains("ZERO = \"lab_…\""),
        "{}",
        human.stdout
    );
    for hidden in [&real[5..], "7Rq2sLx9VbN4", "00000000000000"] {
        assert!(
            !human.stdout.contains(hidden),
            "{hidden}:\n{}",
            human.stdout
        );
    }
}

/// A `mask = true` rule of the team reads the files other rules skip as binary; a text rule
/// without `mask` does not.
#[test]
fn only_secret_rules_read_binary_files() {
    let tree = policy_tree();
    tree.write(
        "experiments/my-grpo/dump.py",
        b"\x00\x01log\xff\nstate = torch.load(p)\ntoken lab_woTiEndapDIGk8ziPtEUTz01hNTrmwnk\n",
    );
    let run = tree.run(&[
        "--format",
        "concise",
        "--select",
        "lab-token,torch-load-weights-only",
    ]);
    run.expect_code(1);
    assert_eq!(
        lines(&run),
        ["experiments/my-grpo/dump.py:3:7 lab-token"],
        "{}",
        run.stdout
    );
}

/// Lints a valid spec with the rule file `policies/bad.toml`; the run exits 2 and names the
/// file at `position`. Returns stderr.
fn refused(rule: &str, position: &str) -> String {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write("policies/bad.toml", rule);
    let run = tree.run(&[
        "--no-config",
        "--rules",
        "policies/bad.toml",
        "jobspec.json",
    ]);
    run.expect_code(2);
    let location = format!("policies/bad.toml:{position}");
    assert!(
        run.stderr.contains(&location),
        "expected {location} in\n{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run.stderr
}

const TEXT_HEAD: &str = "id = \"t\"\nseverity = \"warning\"\ntarget = \"text\"\nsummary = \"s\"\nmessage = \"{match}\"\n\n[[check]]\npattern = '(?P<at>tok_[a-z]{8})'\n";

#[test]
fn mistakes_in_the_keys_are_refused_at_their_place() {
    let err = refused(&format!("{TEXT_HEAD}allow = ['ok', '[unclosed']\n"), "9:16");
    assert!(err.contains("bad regex"), "{err}");
    let err = refused(&format!("{TEXT_HEAD}allow-line = ['(']\n"), "9:15");
    assert!(err.contains("bad regex"), "{err}");
    let err = refused(&format!("{TEXT_HEAD}keywords = []\n"), "9:12");
    assert!(err.contains("one keyword at least"), "{err}");
    let err = refused(&format!("{TEXT_HEAD}keywords = [\"tok\", \"\"]\n"), "9:20");
    assert!(err.contains("not empty"), "{err}");
    let err = refused(&format!("{TEXT_HEAD}stop-words = [\"\"]\n"), "9:15");
    assert!(err.contains("not empty"), "{err}");
    let err = refused(&format!("{TEXT_HEAD}min-entropy = -2.5\n"), "9:15");
    assert!(err.contains("bits a character"), "{err}");
    let err = refused(&format!("{TEXT_HEAD}decode = \"base46\"\n"), "9:10");
    assert!(err.contains("base64"), "{err}");
    // A decoded value is the group `at`: a pattern without one has nothing to decode.
    let err = refused(
        &(TEXT_HEAD.replace("(?P<at>tok_[a-z]{8})", "tok_[a-z]{8}") + "decode = \"base64\"\n"),
        "8:11",
    );
    assert!(err.contains("names the encoded value"), "{err}");
    // With a function, in a condition, on a jobspec check.
    let function = TEXT_HEAD.replace(
        "pattern = '(?P<at>tok_[a-z]{8})'",
        "function = \"host-path\"",
    ) + "keywords = [\"/mnt\"]\n";
    let err = refused(&function, "9:12");
    assert!(err.contains("`keywords` goes with `pattern`"), "{err}");
    let condition = format!(
        "{TEXT_HEAD}when = [{{ spec = \"metadata.name\", present = true, min-entropy = 1.0 }}]\n"
    );
    let err = refused(&condition, "9:65");
    assert!(
        err.contains("`min-entropy` is not allowed in a condition"),
        "{err}"
    );
    let jobspec = "id = \"j\"\nseverity = \"error\"\nsummary = \"s\"\nmessage = \"m\"\n\n[[check]]\nselect = \"metadata.name\"\nnon-empty = true\nstop-words = [\"x\"]\n";
    let err = refused(jobspec, "9:14");
    assert!(err.contains("`stop-words` is not allowed"), "{err}");
}
