//! What a rule file says about a text pattern's matches: `allow`, `allow-line`, `stop-words`,
//! `min-entropy`, `keywords` and `decode`, on a team's own rules (the example pack's), and the
//! mistakes in them, refused at their own place.

use super::rule_files::bad_rules;
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

/// `test-rules` runs the cases of rules whose verdicts these keys decide: each key removed, a
/// case fails.
#[test]
fn test_rules_holds_the_cases_the_keys_decide() {
    let tree = policy_tree();
    let entropy = "id = \"hf-token\"\nseverity = \"error\"\ntarget = \"text\"\nsummary = \"s\"\nmessage = \"{match}\"\n\n[[check]]\npattern = '(?-u:\\b)(?P<at>hf_[A-Za-z]{20,})'\nmin-entropy = 3.0\n\n[[valid]]\nname = \"a placeholder\"\nfile = \"a.py\"\ntext = 'TOKEN = \"hf_xxxxxxxxxxxxxxxxxxxx\"'\n\n[[invalid]]\nname = \"a random token\"\nfile = \"a.py\"\ntext = 'TOKEN = \"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\"'\nat = \"1:10\"\ncount = 1\n";
    tree.write("policies/hf-token.toml", entropy);
    let run = tree.run(&["test-rules", "policies/"]);
    run.expect_code(0);
    assert!(run.stdout.contains("0 failed"), "{}", run.stdout);
    let torch = std::fs::read_to_string(tree.path("policies/torch-load-weights-only.toml"))
        .expect("written");
    let lab = std::fs::read_to_string(tree.path("policies/lab-token.toml")).expect("written");
    for (file, text, key) in [
        (
            "policies/torch-load-weights-only.toml",
            torch.as_str(),
            "allow-line = ",
        ),
        ("policies/lab-token.toml", lab.as_str(), "min-entropy = "),
        ("policies/lab-token.toml", lab.as_str(), "allow = "),
        ("policies/hf-token.toml", entropy, "min-entropy = "),
    ] {
        let without: String = text
            .lines()
            .filter(|l| !l.starts_with(key))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_ne!(without, text, "{file} has {key}");
        tree.write(file, &without);
        let run = tree.run(&["test-rules", file]);
        run.expect_code(1);
        tree.write(file, text);
    }
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

const TEXT_HEAD: &str = "id = \"t\"\nseverity = \"warning\"\ntarget = \"text\"\nsummary = \"s\"\nmessage = \"{match}\"\n\n[[check]]\npattern = '(?P<at>tok_[a-z]{8})'\n";

#[test]
fn mistakes_in_the_keys_are_refused_at_their_place() {
    let head = |more: &str| format!("{TEXT_HEAD}{more}\n");
    // A decoded value is the group `at`: a pattern without one has nothing to decode.
    let no_group =
        TEXT_HEAD.replace("(?P<at>tok_[a-z]{8})", "tok_[a-z]{8}") + "decode = \"base64\"\n";
    let function = TEXT_HEAD.replace(
        "pattern = '(?P<at>tok_[a-z]{8})'",
        "function = \"host-path\"",
    ) + "keywords = [\"/mnt\"]\n";
    let condition =
        head("when = [{ spec = \"metadata.name\", present = true, min-entropy = 1.0 }]");
    let jobspec = "id = \"j\"\nseverity = \"error\"\nsummary = \"s\"\nmessage = \"m\"\n\n[[check]]\nselect = \"metadata.name\"\nnon-empty = true\nstop-words = [\"x\"]\n".to_string();
    for (rule, position, says) in [
        (head("allow = ['ok', '[unclosed']"), "9:16", "bad regex"),
        (head("allow-line = ['(']"), "9:15", "bad regex"),
        (head("keywords = []"), "9:12", "one keyword at least"),
        (head("keywords = [\"tok\", \"\"]"), "9:20", "not empty"),
        (head("stop-words = [\"\"]"), "9:15", "not empty"),
        (head("min-entropy = -2.5"), "9:15", "bits a character"),
        (head("decode = \"base46\""), "9:10", "base64"),
        (no_group, "8:11", "names the encoded value"),
        // With a function, in a condition, on a jobspec check.
        (function, "9:12", "`keywords` goes with `pattern`"),
        (
            condition,
            "9:65",
            "`min-entropy` is not allowed in a condition",
        ),
        (jobspec, "9:14", "`stop-words` is not allowed"),
    ] {
        let err = bad_rules(&[("bad.toml", &rule)], "policies/bad.toml", position);
        assert!(err.contains(says), "{rule}\n{err}");
    }
}
