#!/usr/bin/env python3
"""Generates an archive of experiment runs for the experiment-directory benchmark.

    python3 bench/experiments.py OUT_DIR N [--dirty-every K] [--seed S]

Writes N run folders, each a project root holding its spec and its experiment:

    OUT_DIR/runs/run-000001/.starforge/jobspec.json        ~2 KB forge/v2 spec (bench/generate.py)
    OUT_DIR/runs/run-000001/experiments/<name>/train.py     ~1.8 KB training script
    OUT_DIR/runs/run-000001/experiments/<name>/config.yaml  ~1.2 KB nested YAML config
    OUT_DIR/runs/run-000001/experiments/<name>/README.md    ~0.8 KB

The spec's `spec.source.exp` is `experiments/<name>` and its `spec.hyperparams` holds 3-6 dotted
keys, each naming a key of config.yaml. With --composed, config.yaml composes as NeMo-RL's do: it
says `defaults: base.yaml` and keeps only `data`, `logger` and `checkpointing`; base.yaml (beside
it) holds `policy`, `grpo`, `loss` and `trainer`, so most overrides name an inherited key. Clean runs give no finding with the built-in rules (the
`/mnt/shared/old` in train.py is in a comment).

With --dirty-every K, runs K, 2K, 3K, ... get exactly one fault each, in turn:

    exp-host-path       train.py hard-codes `CORPUS = "/mnt/shared/handbook"`
    exp-secret          config.yaml holds `hub_token: hf_` + 34 letters
    hyperparam-unknown  spec.hyperparams has `policy.optimizer.kwargs.lrr`, which config.yaml lacks
    exp-large-file      experiments/<name>/model.safetensors (a few bytes)

Prints a JSON summary on stdout: runs, files, bytes per kind of file, and faults per rule id.
Run i is drawn from its own generator seeded by (seed, i), so a dirty tree differs from the clean
tree of the same seed only in its faulty runs.
"""
import argparse
import json
import os
import random
import string
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402  (bench/generate.py: the realistic spec generator)

FAULTS = ["exp-host-path", "exp-secret", "hyperparam-unknown", "exp-large-file"]

TASKS = ["gsm8k", "math", "mbpp", "humaneval", "arc", "hellaswag", "tulu", "ultrachat"]
ALGOS = {"nemo-rl/grpo": "grpo", "nemo-rl/dpo": "dpo", "nemo-rl/sft": "sft"}

# Leaves of config.yaml that a spec may override, with the values an override takes.
OVERRIDES = [
    ("policy.optimizer.kwargs.lr", [1e-6, 3e-6, 5e-7, 2e-6]),
    ("policy.optimizer.kwargs.weight_decay", [0.0, 0.01, 0.1]),
    ("policy.generation.max_new_tokens", [512, 1024, 2048]),
    ("policy.generation.temperature", [0.7, 1.0]),
    ("grpo.num_generations_per_prompt", [4, 8, 16]),
    ("grpo.num_prompts_per_step", [16, 32, 64]),
    ("loss.reference_policy_kl_penalty", [0.0, 0.01, 0.04]),
    ("trainer.max_steps", [500, 1000, 2000, 5000]),
    ("trainer.val_period", [10, 25, 50]),
    ("data.max_input_seq_length", [1024, 2048, 4096]),
    ("data.shuffle", [True, False]),
    ("checkpointing.keep_top_k", [1, 3, 5]),
]

TRAIN_PY = '''#!/usr/bin/env python3
"""{algo_upper} training entry point for {name}."""
import argparse
import json
import logging
import os
import sys
from pathlib import Path

import yaml

log = logging.getLogger("{name}")

# Corpus: mounted by the platform, its path is in DOCS_DIR.
# was /mnt/shared/old before corpora were managed by name
CORPUS = os.environ["DOCS_DIR"]
SEED = {seed}


def load_config(path, overrides):
    with open(path) as f:
        cfg = yaml.safe_load(f)
    for dotted, value in overrides.items():
        node = cfg
        *parents, leaf = dotted.split(".")
        for key in parents:
            node = node[key]
        if leaf not in node:
            raise KeyError(f"override {{dotted}} names no config key")
        node[leaf] = value
    return cfg


def parse_args(argv):
    ap = argparse.ArgumentParser(description="{algo_upper} on {task}")
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("--overrides", default="{{}}", help="JSON object of dotted keys")
    ap.add_argument("--max-steps", type=int, default={max_steps})
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    logging.basicConfig(level="INFO", format="%(asctime)s %(levelname)s %(message)s")
    cfg = load_config(args.config, json.loads(args.overrides))
    steps = min(args.max_steps, cfg["trainer"]["max_steps"])
    log.info("corpus at %s, %d documents", CORPUS, len(os.listdir(CORPUS)))
    log.info("training %s for %d steps (lr=%g, seed=%d)",
             cfg["policy"]["model_name"], steps,
             cfg["policy"]["optimizer"]["kwargs"]["lr"], SEED)
    out = Path(cfg["checkpointing"]["checkpoint_dir"])
    out.mkdir(parents=True, exist_ok=True)
    log.info("done; checkpoints in %s", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

CONFIG_YAML = '''# {algo_upper} experiment config for {name}
# spec.hyperparams overrides these keys by dotted path (policy.optimizer.kwargs.lr).
policy:
  model_name: {model}
  max_total_sequence_length: {seq_len}
  optimizer:
    name: torch.optim.AdamW
    kwargs:
      lr: {lr}
      weight_decay: {wd}
      betas: [0.9, 0.999]
      eps: 1.0e-8
  generation:
    backend: vllm
    max_new_tokens: {new_tokens}
    temperature: {temp}
    top_p: 1.0
grpo:
  num_prompts_per_step: {prompts}
  num_generations_per_prompt: {gens}
  normalize_rewards: true
  use_leave_one_out_baseline: true
loss:
  reference_policy_kl_penalty: {kl}
  ratio_clip_min: 0.2
  ratio_clip_max: 0.2
trainer:
  max_steps: {max_steps}
  val_period: {val_period}
  save_period: {save_period}
  seed: {seed}
data:
  dataset_name: {task}
  prompt_file: prompts/{task}.txt
  max_input_seq_length: {in_len}
  shuffle: true
  # held out for validation, drawn once with the trainer's seed
  val_fraction: 0.05
  num_workers: 4
# metrics go to the platform's tracker; wandb only for local runs
logger:
  log_dir: logs
  log_every: 1
  wandb_enabled: false
  project: {project}
checkpointing:
  enabled: true
  checkpoint_dir: results/{name}
  keep_top_k: {top_k}
'''

README_MD = '''# {name}

{algo_upper} fine-tuning of `{model}` on {task}, for the {project} project
(sweep {sweep}).

## Layout

- `train.py`: the entry point; reads the corpus from `$DOCS_DIR`.
- `config.yaml`: the defaults; the spec's `spec.hyperparams` overrides
  them by dotted key, e.g. `policy.optimizer.kwargs.lr`.

## Running

Submit from the run folder, which holds `.starforge/jobspec.json`:

    sf submit .starforge/jobspec.json

Checkpoints go to `results/{name}`; metrics are logged every
{val_period} steps.

## Overrides

The spec sets a few keys of `config.yaml` for this run (see
`spec.hyperparams`); change them there rather than here, so that
the sweep's runs stay comparable.

## Notes

Learning rate {lr}, {max_steps} steps, {gens} generations per prompt.
Owner: {team} team.
'''


def drawn_values(rng):
    """The template values drawn at random, in a fixed order (the same runs for the same seed)."""
    return {
        "seed": rng.randint(0, 10**6),
        "lr": rng.choice(["1.0e-6", "3.0e-6", "5.0e-7"]), "wd": rng.choice(["0.0", "0.01"]),
        "seq_len": rng.choice([2048, 4096, 8192]), "new_tokens": rng.choice([512, 1024, 2048]),
        "temp": rng.choice(["0.7", "1.0"]), "prompts": rng.choice([16, 32, 64]),
        "gens": rng.choice([4, 8, 16]), "kl": rng.choice(["0.0", "0.01", "0.04"]),
        "max_steps": rng.choice([500, 1000, 2000]), "val_period": rng.choice([10, 25, 50]),
        "save_period": rng.choice([50, 100]), "in_len": rng.choice([1024, 2048]),
        "top_k": rng.choice([1, 3]),
    }


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


def compose(config):
    """Splits a config into (config.yaml naming its base, base.yaml): the sections before `data:`
    go to the base, the header comment and the rest stay."""
    head, sep, rest = config.partition("\npolicy:")
    inherited, sep2, own = rest.partition("\ndata:")
    return head + "\ndefaults: base.yaml\ndata:" + own, "policy:" + inherited + "\n"


def run(out, i, seed, fault, composed=False):
    """Writes run `i` (1-based); returns {file kind: bytes written}."""
    rng = random.Random(seed * 10_000_000 + i)
    d = generate.spec(rng, i)
    s = d["spec"]
    algo = ALGOS[s["recipe"]["name"]]
    task = rng.choice(TASKS)
    name = f"{algo}-{task}-{generate.hexs(rng, 4)}"
    project = d["metadata"]["project"]
    s["source"]["exp"] = f"experiments/{name}"

    picked = rng.sample(OVERRIDES, rng.randint(3, 6))
    hyper = {key: rng.choice(values) for key, values in picked}
    if fault == "hyperparam-unknown":
        keys = list(hyper)
        at = keys.index("policy.optimizer.kwargs.lr") if "policy.optimizer.kwargs.lr" in keys else len(keys) - 1
        hyper = {("policy.optimizer.kwargs.lrr" if k == at else key): v
                 for k, (key, v) in enumerate(hyper.items())}
    s["hyperparams"] = hyper

    v = {
        "name": name, "algo_upper": algo.upper(), "task": task, "project": project,
        "model": s["model"]["base"], **drawn_values(rng),
        "sweep": d["metadata"]["labels"]["sweep"], "team": d["metadata"]["labels"]["team"],
    }
    train = TRAIN_PY.format(**v)
    config = CONFIG_YAML.format(**v)
    if fault == "exp-host-path":
        train = train.replace('CORPUS = os.environ["DOCS_DIR"]', 'CORPUS = "/mnt/shared/handbook"', 1)
    elif fault == "exp-secret":
        token = "hf_" + "".join(rng.choice(string.ascii_letters) for _ in range(34))
        config = config.replace("  keep_top_k:", f"  hub_token: {token}\n  keep_top_k:", 1)

    base = None
    if composed:
        config, base = compose(config)
    text = json.dumps(d, separators=(",", ":")) if rng.random() < 0.05 else json.dumps(d, indent=2)
    root = os.path.join(out, "runs", f"run-{i:06d}")
    exp = os.path.join(root, "experiments", name)
    os.makedirs(os.path.join(root, ".starforge"))
    os.makedirs(exp)
    sizes = {
        "jobspec.json": write(os.path.join(root, ".starforge", "jobspec.json"), (text + "\n").encode()),
        "train.py": write(os.path.join(exp, "train.py"), train.encode()),
        "config.yaml": write(os.path.join(exp, "config.yaml"), config.encode()),
        "README.md": write(os.path.join(exp, "README.md"), README_MD.format(**v).encode()),
    }
    if base is not None:
        sizes["base.yaml"] = write(os.path.join(exp, "base.yaml"), base.encode())
    if fault == "exp-large-file":
        # A safetensors header: its length (little-endian u64), then the (empty) JSON header.
        sizes["model.safetensors"] = write(os.path.join(exp, "model.safetensors"), struct.pack("<Q", 2) + b"{}")
    return sizes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("count", type=int)
    ap.add_argument("--dirty-every", type=int, default=0, metavar="K",
                    help="give every K-th run one fault, rotating through the kinds (0: none)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--composed", action="store_true",
                    help="config.yaml inherits most of its keys from base.yaml (`defaults:`)")
    args = ap.parse_args()
    if args.dirty_every < 0:
        ap.error("--dirty-every must be 0 or more")
    os.makedirs(os.path.join(args.out, "runs"), exist_ok=True)
    faults = {f: 0 for f in FAULTS}
    files = {}
    total = {}
    dirty = 0
    for i in range(1, args.count + 1):
        fault = None
        if args.dirty_every and i % args.dirty_every == 0:
            fault = FAULTS[dirty % len(FAULTS)]
            dirty += 1
            faults[fault] += 1
        for kind, size in run(args.out, i, args.seed, fault, args.composed).items():
            files[kind] = files.get(kind, 0) + 1
            total[kind] = total.get(kind, 0) + size
    summary = {
        "runs": args.count,
        "seed": args.seed,
        "dirty_every": args.dirty_every,
        "composed": args.composed,
        "files": sum(files.values()),
        "bytes": sum(total.values()),
        "mean_bytes": {k: round(total[k] / files[k]) for k in files},
        "faulty_runs": dirty,
        "faults": faults,
    }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
