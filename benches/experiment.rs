//! One experiment's files, as `forgelint check` lints them: the demo's `train.py` and a
//! realistic `config.yaml` (the shape `bench/experiments.py` writes) through every experiment
//! rule, and the config read for `hyperparam-unknown` two ways — the full YAML parse and the
//! key scan that answers for plain block configs.
//!
//! `cargo bench --bench experiment`.

use std::path::Path;

use divan::counter::BytesCount;
use divan::{black_box, Bencher};
use forgelint::engine::Active;
use forgelint::formats::{has_key_paths, parse_config, ConfigFormat};
use forgelint::platform_facts::Platform;
use forgelint::rules::eval::Others;
use forgelint::rules::RuleSet;

fn main() {
    divan::main();
}

const TRAIN: &str = include_str!("../fixtures/demo/experiments/dpo-sweep/train.py");

const CONFIG: &str = "# GRPO experiment config\npolicy:\n  model_name: Qwen/Qwen2.5-7B\n  max_total_sequence_length: 4096\n  optimizer:\n    name: torch.optim.AdamW\n    kwargs:\n      lr: 1.0e-6\n      weight_decay: 0.0\n      betas: [0.9, 0.999]\n      eps: 1.0e-8\n  generation:\n    backend: vllm\n    max_new_tokens: 1024\n    temperature: 1.0\n    top_p: 1.0\ngrpo:\n  num_prompts_per_step: 16\n  num_generations_per_prompt: 4\n  normalize_rewards: true\nloss:\n  reference_policy_kl_penalty: 0.04\n  ratio_clip_min: 0.2\ntrainer:\n  max_steps: 500\n  val_period: 10\n  save_period: 100\n  seed: 339500\ndata:\n  dataset_name: mbpp\n  prompt_file: prompts/mbpp.txt\n  shuffle: true\n  # held out for validation\n  val_fraction: 0.05\nlogger:\n  log_dir: logs\n  wandb_enabled: false\ncheckpointing:\n  enabled: true\n  checkpoint_dir: results/grpo\n";

const KEYS: [&str; 4] = [
    "policy.optimizer.kwargs.lr",
    "trainer.max_steps",
    "grpo.num_generations_per_prompt",
    "loss.reference_policy_kl_penalty",
];

fn lint_file(bencher: Bencher, name: &str, text: &str) {
    let rules = RuleSet::builtin().expect("the built-in rules compile");
    let active: Vec<Active<'_>> = rules
        .rules
        .iter()
        .map(|rule| Active {
            rule,
            severity: rule.severity,
        })
        .collect();
    let platform = Platform::default();
    bencher.counter(BytesCount::of_str(text)).bench_local(|| {
        forgelint::experiment::lint_in_memory(
            Path::new(name),
            black_box(text),
            &active,
            &platform,
            &Others::NONE,
        )
        .len()
    });
}

/// `train.py` through every experiment rule: scanned into regions, the secret patterns, host
/// paths in string literals, suppressions.
#[divan::bench(sample_count = 500, sample_size = 20)]
fn lint_train_py(bencher: Bencher) {
    lint_file(bencher, "train.py", TRAIN);
}

/// `config.yaml` through every experiment rule (text rules; no config rule is built in).
#[divan::bench(sample_count = 500, sample_size = 20)]
fn lint_config_yaml(bencher: Bencher) {
    lint_file(bencher, "config.yaml", CONFIG);
}

/// The full YAML parse into a span-keeping document (saphyr-parser).
#[divan::bench(sample_count = 500, sample_size = 20)]
fn config_full_parse(bencher: Bencher) {
    bencher
        .counter(BytesCount::of_str(CONFIG))
        .bench(|| parse_config(ConfigFormat::Yaml, black_box(CONFIG)).map(|d| d.len()));
}

/// The key scan that `hyperparam-unknown` tries first.
#[divan::bench(sample_count = 500, sample_size = 20)]
fn config_key_scan(bencher: Bencher) {
    bencher
        .counter(BytesCount::of_str(CONFIG))
        .bench(|| has_key_paths(black_box(CONFIG), &KEYS));
}
