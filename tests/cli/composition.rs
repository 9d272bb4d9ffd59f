//! `hyperparam-unknown` and `config-invalid` on configs that compose, laid out as the training
//! frameworks lay them out: NeMo-RL's `defaults: base.yaml` chains and verl's Hydra defaults
//! lists with a `hydra.searchpath` into the framework's checkout. Each case is a shape taken from
//! those repositories, written small: an inherited override (never reported), a misspelt one
//! (reported, with the key it meant), Hydra's override syntax, and a base that is missing or
//! does not parse.

use super::*;

/// The reference spec with `hyperparams` replaced by `json`.
fn spec_with(json: &str) -> String {
    patch(
        &reference(),
        r#""hyperparams": { "policy.optimizer.kwargs.lr": 1e-6 }"#,
        &format!(r#""hyperparams": {json}"#),
    )
}

fn check(tree: &Tree) -> Run {
    tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--select",
        "hyperparam-unknown,config-invalid,exp-host-path",
    ])
}

/// NeMo-RL: the experiment's config names a recipe, which names the family's base, three files
/// in all (`grpo_math_8B.yaml` → `grpo_math_1B.yaml`).
fn nemo_rl_tree(hyperparams: &str) -> Tree {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write("jobspec.json", spec_with(hyperparams))
        .write(
            "experiments/my-grpo/config.yaml",
            "defaults: \"../../examples/configs/grpo_math_8B.yaml\"\npolicy:\n  model_name: Qwen/Qwen3-8B\n",
        )
        .write(
            "examples/configs/grpo_math_8B.yaml",
            "defaults: grpo_math_1B.yaml\npolicy:\n  optimizer:\n    kwargs:\n      lr: 3.0e-7\n",
        )
        .write(
            "examples/configs/grpo_math_1B.yaml",
            "loss_fn:\n  reference_policy_kl_penalty: 0.01\ncheckpointing:\n  enabled: true\n  keep_top_k: 3\npolicy:\n  optimizer:\n    name: torch.optim.AdamW\n    kwargs:\n      lr: 5.0e-6\n      weight_decay: 0.01\n      betas: [0.9, 0.999]\n",
        );
    tree
}

#[test]
fn nemo_rl_inherited_overrides_pass_and_a_typo_is_named() {
    let tree = nemo_rl_tree(
        r#"{
        "policy.optimizer.kwargs.lr": 1e-6,
        "loss_fn.reference_policy_kl_penalty": 0.02,
        "checkpointing.keep_top_k": 5,
        "policy.optimizer.kwargs.betas.1": 0.95,
        "+trainer.new_flag": true,
        "~checkpointing.enabled": null,
        "policy.optimizer.kwargs.weight_decy": 0.1
    }"#,
    );
    let run = check(&tree);
    run.expect_code(0);
    let found = run.findings();
    assert_eq!(found.len(), 1, "{}", run.stdout);
    assert_eq!(found[0].rule, "hyperparam-unknown");
    assert_eq!(found[0].path, "jobspec.json");
    assert!(
        found[0]
            .message
            .contains("\"policy.optimizer.kwargs.weight_decy\"")
            && found[0]
                .message
                .contains("did you mean \"policy.optimizer.kwargs.weight_decay\"?")
            && found[0].message.contains("or its bases"),
        "{}",
        run.stdout
    );
}

#[test]
fn inherited_keys_alone_give_nothing() {
    // Every key is in one file of the chain or another: the quick scan answers.
    let tree = nemo_rl_tree(
        r#"{"policy.model_name": "x", "policy.optimizer.kwargs.lr": 1e-6, "loss_fn.reference_policy_kl_penalty": 0.02, "policy.optimizer.name": "sgd"}"#,
    );
    let run = check(&tree);
    run.expect_code(0);
    assert_eq!(run.stdout, "");
}

#[test]
fn a_base_outside_the_project_is_never_read() {
    let tree = nemo_rl_tree(r#"{"policy.optimizer.kwargs.lr": 1e-6, "secret.key": 1}"#);
    // The base climbs out of the project root: not read, so nothing is called unknown.
    tree.write(
        "project/jobspec.json",
        spec_with(r#"{"policy.optimizer.kwargs.lr": 1e-6, "secret.key": 1}"#),
    )
    .write("project/forgelint.toml", "")
    .write(
        "project/experiments/my-grpo/config.yaml",
        "defaults: ../../../examples/configs/grpo_math_1B.yaml
",
    )
    .write(
        "examples/configs/grpo_math_1B.yaml",
        "secret:\n  key: 1\npolicy:\n  optimizer:\n    kwargs:\n      lr: 1\n",
    );
    let run = tree.run_in(
        "project",
        &["--format", "concise", "--select", "hyperparam-unknown"],
    );
    run.expect_code(0);
    let found = run.findings();
    assert_eq!(found.len(), 1, "{}", run.stdout);
    assert_eq!(found[0].severity, "note", "{}", run.stdout);
    assert!(found[0].message.contains("is not found"), "{}", run.stdout);
}

#[test]
fn a_list_index_past_the_end_and_deleting_a_missing_key_are_reported() {
    let tree = nemo_rl_tree(
        r#"{"policy.optimizer.kwargs.betas.2": 0.95, "~checkpointing.keep_top_kk": null}"#,
    );
    let run = check(&tree);
    run.expect_code(0);
    let rules = run.rules();
    assert_eq!(
        rules,
        ["hyperparam-unknown", "hyperparam-unknown"],
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("did you mean \"~checkpointing.keep_top_k\"?"),
        "{}",
        run.stdout
    );
}

/// verl: a recipe's config searches the framework's config folder (relative to the project
/// root, the job's working folder) and composes `ppo_trainer`, whose group options put
/// `actor/dp_actor.yaml` (itself composing `../optim@optim: fsdp`) and
/// `algorithm/rollout_correction.yaml` at their packages.
fn verl_tree(hyperparams: &str) -> Tree {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write("jobspec.json", spec_with(hyperparams))
        .write(
            "experiments/my-grpo/config.yaml",
            "hydra:\n  searchpath:\n    - file://verl/trainer/config\n\ndefaults:\n  - ppo_trainer\n  - _self_\n\ntrainer:\n  project_name: dapo\n",
        )
        .write(
            "verl/trainer/config/ppo_trainer.yaml",
            "defaults:\n  - actor@actor_rollout_ref.actor: dp_actor\n  - algorithm@algorithm.rollout_correction: rollout_correction\n  - _self_\n\nactor_rollout_ref:\n  hybrid_engine: true\ntrainer:\n  total_epochs: 30\n  project_name: verl_examples\n",
        )
        .write(
            "verl/trainer/config/actor/dp_actor.yaml",
            "defaults:\n  - ../optim@optim: fsdp\n  - _self_\n\nstrategy: fsdp\nppo_mini_batch_size: 256\n",
        )
        .write(
            "verl/trainer/config/optim/fsdp.yaml",
            "lr: 1.0e-6\nlr_warmup_steps: -1\nbetas: [0.9, 0.999]\n",
        )
        .write(
            "verl/trainer/config/algorithm/rollout_correction.yaml",
            "rollout_is: null\nrollout_is_threshold: 2.0\n",
        );
    tree
}

#[test]
fn verl_search_paths_and_group_options_compose() {
    let tree = verl_tree(
        r#"{
        "actor_rollout_ref.actor.optim.lr": 1e-6,
        "algorithm.rollout_correction.rollout_is_threshold": 3.0,
        "trainer.project_name": "x",
        "actor_rollout_ref.actor.optim.lr_warmup_step": 10,
        "trainer.total_epoch": 2
    }"#,
    );
    let run = check(&tree);
    run.expect_code(0);
    // The search path in the config is no host path either.
    let messages: Vec<String> = run.findings().into_iter().map(|f| f.message).collect();
    assert_eq!(messages.len(), 2, "{}", run.stdout);
    assert!(
        messages[0].contains("did you mean \"actor_rollout_ref.actor.optim.lr_warmup_steps\"?"),
        "{}",
        run.stdout
    );
    assert!(
        messages[1].contains("did you mean \"trainer.total_epochs\"?"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_base_not_found_is_one_note_and_no_key_is_called_unknown() {
    let tree = verl_tree(r#"{"actor_rollout_ref.actor.optim.lr": 1e-6, "trainer.total_epoch": 2}"#);
    std::fs::remove_dir_all(tree.path("verl")).unwrap();
    let run = check(&tree);
    run.expect_code(0);
    let found = run.findings();
    assert_eq!(found.len(), 1, "{}", run.stdout);
    let note = &found[0];
    assert_eq!(
        (
            note.path.as_str(),
            note.position.as_str(),
            note.severity.as_str()
        ),
        ("experiments/my-grpo/config.yaml", "6:5", "note"),
        "{}",
        run.stdout
    );
    assert!(
        note.message.contains("\"ppo_trainer\" is not found")
            && note.message.contains("file://verl/trainer/config"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_base_that_does_not_parse_is_config_invalid_at_its_line() {
    let tree = verl_tree(r#"{"actor_rollout_ref.actor.optim.lr": 1e-6}"#);
    tree.write(
        "verl/trainer/config/optim/fsdp.yaml",
        "lr: 1.0e-6\n  lr_warmup_steps: [1\n",
    );
    let run = check(&tree);
    run.expect_code(1);
    let found = run.findings();
    assert_eq!(found.len(), 1, "{}", run.stdout);
    assert_eq!(found[0].rule, "config-invalid");
    assert_eq!(found[0].path, "verl/trainer/config/optim/fsdp.yaml");
    assert!(found[0].position.starts_with("2:"), "{}", run.stdout);
    // Said once, however many specs compose it.
    tree.write(
        "b.jobspec.json",
        spec_with(r#"{"actor_rollout_ref.actor.optim.lr": 1e-6}"#),
    );
    let run = check(&tree);
    assert_eq!(run.rules(), ["config-invalid"], "{}", run.stdout);
}

/// The texts the spec's check read (a config and the base beside it) are the ones the walk's
/// lint of those files reports on, each file once, at its own lines: two projects whose files
/// have the same names and different contents do not trade texts.
#[test]
fn the_config_read_for_a_spec_is_linted_as_its_own_file() {
    let tree = Tree::new();
    for (project, data) in [("a", "/mnt/shared/a-corpus"), ("b", "/mnt/shared/b-corpus")] {
        let exp = format!("{project}/experiments/my-grpo");
        tree.write(
            format!("{project}/.starforge/jobspec.json"),
            spec_with(r#"{"policy.optimizer.kwargs.lr": 1e-6, "data.shuffle": false}"#),
        )
        .write(
            format!("{exp}/config.yaml"),
            format!("defaults: base.yaml\n# {project}\ndata:\n  shuffle: true\n  path: {data}\n"),
        )
        .write(
            format!("{exp}/base.yaml"),
            format!("policy:\n  optimizer:\n    kwargs:\n      lr: 1.0e-6\n  cache: /data/{project}-cache\n"),
        );
    }
    let run = check(&tree);
    run.expect_code(1);
    let mut found: Vec<String> = run
        .findings()
        .iter()
        .map(|f| format!("{} {} {}", f.path, f.position, f.rule))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            "a/experiments/my-grpo/base.yaml 5:10 exp-host-path",
            "a/experiments/my-grpo/config.yaml 5:9 exp-host-path",
            "b/experiments/my-grpo/base.yaml 5:10 exp-host-path",
            "b/experiments/my-grpo/config.yaml 5:9 exp-host-path",
        ],
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("a-corpus") && run.stdout.contains("b-corpus"));
    for line in run.stdout.lines() {
        let (path, _) = line.split_once(':').unwrap();
        let project = &path[..1];
        assert!(
            !line.contains("-corpus") || line.contains(&format!("{project}-corpus")),
            "{line}"
        );
    }
}
