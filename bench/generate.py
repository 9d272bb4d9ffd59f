#!/usr/bin/env python3
"""Generates a realistic tree of forge/v2 job specs for benchmarks.

    python3 bench/generate.py OUT_DIR COUNT [--fault-rate 0.2] [--faults-per-spec F] [--seed 1]
                              [--folder-per-spec]

Specs are ~2 KB, varied (names, projects, pools, plugins, hyperparameters, labels), pretty-printed
(5% minified), and a share of them carry one fault of a random kind from the whole rule table. The
tree gets a forgelint.toml with a catalog, a registry allowlist and quotas, so every built-in rule
runs.

With --faults-per-spec F (an archive as users keep it: most specs have something to say), every
spec carries faults of distinct kinds instead, floor(F) or ceil(F) of them so that they average F;
`invalid-json` (which hides every other finding) only alone. F = 2.6 gives about 2.7 findings a
spec with the tree's config (some faults make two findings, some hide others).

Specs go to archive/NNN/run-NNNNNN.jobspec.json, a thousand a folder; with --folder-per-spec
each gets a folder of its own instead, as runs/run-NNNNNN/jobspec.json (what `sf submit` leaves
in a run's folder), where the walk's and the lookups' cost per folder shows.
"""
import argparse
import json
import os
import random

PROJECTS = ["my-lab", "big-lab", "rlhf", "vision", "speech", "agents", "eval", "infra"]
RECIPES = [
    ("nemo-rl/grpo", "0.7.0", "4f3c2a1b0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b", "nemo-rl-0.7.0-cu128", "platform", ">=0.3.0, <0.4.0"),
    ("nemo-rl/dpo", "0.7.1", "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d", "nemo-rl-0.7.1-cu128", "external", ">=0.3.0"),
    ("nemo-rl/sft", "0.6.2", "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809", "nemo-rl-0.6.2-cu124", "platform", ">=0.2.0, <0.4.0"),
]
SERIES = ["h100", "h200", "b200"]
FAULTS = [
    "invalid-json", "duplicate-key", "wrong-type", "unknown-field", "missing-field", "api-version",
    "kind", "owner-ignored", "entrypoint-set", "image-required", "image-registry",
    "observability-url-required", "observability-url-forbidden", "init-from-format",
    "corpus-host-path", "corpus-format", "pools-empty", "gpu-quota", "plugin-id-format",
    "digest-format", "digest-hex", "plugin-leaf-collision", "recipe-unknown", "recipe-handshake",
    "core-version", "role-pool", "pool-name-duplicate", "name-format", "source-exp-escape",
    "source-exp-missing", "git-dirty", "dataset-format",
]


def hexs(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def spec(rng, i):
    recipe = rng.choice(RECIPES)
    project = rng.choice(PROJECTS)
    pools = []
    for p in range(rng.randint(1, 3)):
        pools.append({"name": ["train", "gen", "ref"][p], "series": rng.choice(SERIES),
                      "nodes": rng.randint(1, 2), "gpus_per_node": rng.choice([4, 8])})
    roles = {"trainer": "train"}
    if len(pools) > 1:
        roles["generator"] = "gen"
    plugins = [{"id": f"{rng.choice(['alice', 'bob', 'carol'])}/plugin-{k}-{rng.randint(0, 99)}",
                "version": f"{rng.randint(0, 3)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}",
                "digest": "sha256:" + hexs(rng, 64)} for k in range(rng.randint(0, 3))]
    hyper = {"policy.optimizer.kwargs.lr": rng.choice([1e-6, 3e-6, 5e-7]),
             "policy.optimizer.kwargs.weight_decay": 0.01,
             "grpo.num_generations": rng.choice([4, 8, 16]),
             "grpo.max_new_tokens": rng.choice([512, 1024, 2048]),
             "data.max_length": 4096,
             "schedule": {"warmup_steps": rng.randint(0, 500), "milestones": [100, 200, 400]},
             "seed": rng.randint(0, 10**6)}
    return {
        "apiVersion": "forge/v2",
        "kind": "TrainingJob",
        "metadata": {"name": f"run-{i:06d}-{hexs(rng, 6)}", "project": project, "owner": "",
                     "labels": {"team": rng.choice(["reasoning", "infra", "evals"]),
                                "sweep": f"sweep-{rng.randint(0, 40)}"}},
        "spec": {
            "recipe": {"name": recipe[0], "version": recipe[1], "digest": "sha256:" + recipe[2]},
            "source": {"exp": f"experiments/{project}"},
            "framework": {"kind": "nemo-rl", "version": recipe[1], "runtime_id": recipe[3],
                          "image": "", "observability_url": "https://mlflow.example/" + project if recipe[4] == "external" else ""},
            "resources": {"pools": pools, "roles": roles},
            "model": {"base": "Qwen/Qwen2.5-7B", "init_from": f"run/run-{rng.randint(0, i + 1):06d}/checkpoint@step={rng.randint(0, 5000)}"},
            "data": {"train": {"dataset": f"alice/gsm8k-{rng.randint(0, 9)}@v{rng.randint(1, 3)}", "path": "train.parquet"},
                     "corpus": "alice/handbook@v1"},
            "hyperparams": hyper,
            "lifecycle": {"on_success": ["export"]},
            "plugins": plugins,
        },
        "provenance": {"git_commit": hexs(rng, 40), "git_dirty": False, "config_sha": hexs(rng, 64),
                       "core_version": "0.3." + str(rng.randint(0, 9))},
    }


def fault(rng, d, kind):
    s = d["spec"]
    text_edit = None
    if kind == "invalid-json":
        text_edit = ("\"core_version\"", "\"core_version\",,")
    elif kind == "duplicate-key":
        text_edit = ("\"project\":", "\"project\": \"dup\", \"project\":")
    elif kind == "wrong-type":
        s["resources"]["pools"][0]["nodes"] = "2"
    elif kind == "unknown-field":
        s["resources"]["pools"][0]["gpu_per_node"] = 8
    elif kind == "missing-field":
        del d["metadata"]["project"]
    elif kind == "api-version":
        d["apiVersion"] = "forge/v1"
    elif kind == "kind":
        d["kind"] = "InferenceJob"
    elif kind == "owner-ignored":
        d["metadata"]["owner"] = "alice"
    elif kind == "entrypoint-set":
        s["source"]["entrypoint"] = "python train.py"
    elif kind == "image-required":
        s["recipe"]["name"] = "custom/custom"
    elif kind == "image-registry":
        s["framework"]["image"] = "pytorch/pytorch:2.3.0"
    elif kind == "observability-url-required":
        r = RECIPES[1]
        s["recipe"] = {"name": r[0], "version": r[1], "digest": "sha256:" + r[2]}
        s["framework"]["runtime_id"] = r[3]
        s["framework"]["observability_url"] = ""
    elif kind == "observability-url-forbidden":
        r = RECIPES[0]
        s["recipe"] = {"name": r[0], "version": r[1], "digest": "sha256:" + r[2]}
        s["framework"]["runtime_id"] = r[3]
        s["framework"]["observability_url"] = "https://mlflow.example"
    elif kind == "init-from-format":
        s["model"]["init_from"] = "checkpoint-1200"
    elif kind == "corpus-host-path":
        s["data"]["corpus"] = "/mnt/shared/handbook"
    elif kind == "corpus-format":
        s["data"]["corpus"] = "handbook"
    elif kind == "pools-empty":
        s["resources"]["pools"] = []
        s["resources"]["roles"] = {}
    elif kind == "gpu-quota":
        s["resources"]["pools"][0]["nodes"] = 64
    elif kind == "plugin-id-format":
        s["plugins"].append({"id": "loose-plugin", "version": "1.0.0", "digest": "sha256:" + hexs(rng, 64)})
    elif kind == "digest-format":
        s["plugins"].append({"id": "alice/x", "version": "1.0.0", "digest": hexs(rng, 64)})
    elif kind == "digest-hex":
        s["plugins"].append({"id": "alice/y", "version": "1.0.0", "digest": "sha256:" + hexs(rng, 12)})
    elif kind == "plugin-leaf-collision":
        s["plugins"] += [{"id": "alice/patch", "version": "1.0.0", "digest": "sha256:" + hexs(rng, 64)},
                         {"id": "bob/patch", "version": "1.0.0", "digest": "sha256:" + hexs(rng, 64)}]
    elif kind == "recipe-unknown":
        s["recipe"]["name"] = "nemo-rl/gpro"
    elif kind == "recipe-handshake":
        s["recipe"]["version"] = "0.5.0"
    elif kind == "core-version":
        d["provenance"]["core_version"] = "0.1.9"
    elif kind == "role-pool":
        s["resources"]["roles"]["trainer"] = "trian"
    elif kind == "pool-name-duplicate":
        s["resources"]["pools"].append(dict(s["resources"]["pools"][0]))
    elif kind == "name-format":
        d["metadata"]["name"] = "my run/2"
    elif kind == "source-exp-escape":
        s["source"]["exp"] = "../elsewhere"
    elif kind == "source-exp-missing":
        s["source"]["exp"] = "experiments/gone"
    elif kind == "git-dirty":
        d["provenance"]["git_dirty"] = True
    elif kind == "dataset-format":
        s["data"]["train"]["dataset"] = "gsm8k"
    return text_edit


def many_faults(rng, d, mean):
    """Gives `d` faults of distinct kinds, floor(mean) or ceil(mean) of them (averaging `mean`);
    at most one edit of the text. Returns that edit, None, or False when `d` got no fault."""
    k = int(mean) + (rng.random() < mean - int(mean))
    if k == 0:
        return False
    kinds = rng.sample([f for f in FAULTS if f != "invalid-json"], k) if k > 1 else [rng.choice(FAULTS)]
    edit = None
    for kind in kinds:
        if kind in ("invalid-json", "duplicate-key") and edit is not None:
            continue
        try:
            edit = fault(rng, d, kind) or edit
        except (IndexError, KeyError):
            pass  # an earlier fault took what this one edits (no pools left, say)
    return edit


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("count", type=int)
    ap.add_argument("--fault-rate", type=float, default=0.2)
    ap.add_argument("--faults-per-spec", type=float, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--folder-per-spec", action="store_true")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    for p in PROJECTS:
        os.makedirs(os.path.join(args.out, "experiments", p), exist_ok=True)
    with open(os.path.join(args.out, "catalog.toml"), "w") as f:
        for r in RECIPES:
            f.write(f'[[recipe]]\nname = "{r[0]}"\nversion = "{r[1]}"\ndigest = "sha256:{r[2]}"\n'
                    f'runtime_id = "{r[3]}"\nobservability = "{r[4]}"\nrequires = {{ core = "{r[5]}" }}\n\n')
        f.write('[[recipe]]\nname = "custom/custom"\nversion = "1.0.0"\ndigest = "sha256:' + "1" * 64 + '"\nruntime_id = "custom-1.0.0"\ncustom = true\n')
    with open(os.path.join(args.out, "forgelint.toml"), "w") as f:
        f.write('[platform]\ncatalog = "catalog.toml"\nregistries = ["nvcr.io", "registry.internal:5000"]\n'
                'gpu-quota = 64\n\n[platform.project-quota]\nbig-lab = 256\n')
    faulty = 0
    for i in range(args.count):
        d = spec(rng, i)
        edit = None
        if args.faults_per_spec is not None:
            edit = many_faults(rng, d, args.faults_per_spec)
            faulty += edit is not False
            edit = edit or None
        elif rng.random() < args.fault_rate:
            faulty += 1
            edit = fault(rng, d, rng.choice(FAULTS))
        text = json.dumps(d, separators=(",", ":")) if rng.random() < 0.05 else json.dumps(d, indent=2)
        if edit:
            text = text.replace(edit[0], edit[1], 1)
        if args.folder_per_spec:
            path = os.path.join(args.out, "runs", f"run-{i:06d}", "jobspec.json")
        else:
            shard = os.path.join(args.out, "archive", f"{i // 1000:03d}")
            path = os.path.join(shard, f"run-{i:06d}.jobspec.json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text + "\n")
    print(f"{args.count} specs ({faulty} with a fault) in {args.out}")


if __name__ == "__main__":
    main()
