#!/usr/bin/env python3
"""Generates a finding-dense archive of forge/v2 specs for the audit benchmarks.

    python3 bench/dense.py OUT_DIR COUNT [--findings 15] [--seed 1]

Specs are laid out as an archive is: PROJECT/YYYY-MM/run-NNNNNNN.jobspec.json. Each is a
realistic spec (bench/generate.py) with `--findings` faults a run with `--no-config` reports:
three rule faults (api-version, owner-ignored, entrypoint-set) and unknown top-level fields for
the rest; source-exp-missing adds one more, as no experiment folder is generated.
"""
import argparse
import json
import os
import random

from generate import spec, PROJECTS


def dense(rng, i, findings):
    d = spec(rng, i)
    d["apiVersion"] = "forge/v1"
    d["metadata"]["owner"] = "alice"
    d["spec"]["source"]["entrypoint"] = "python train.py"
    for k in range(max(findings - 3, 0)):
        d[f"legacy_field_{k:02d}"] = k
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("count", type=int)
    ap.add_argument("--findings", type=int, default=15)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    # A few hundred distinct specs, numbered apart: generating a million from scratch is slow.
    variants = [json.dumps(dense(rng, i, args.findings), indent=2) for i in range(256)]
    made = set()
    for i in range(args.count):
        project = PROJECTS[i % len(PROJECTS)]
        month = f"{2020 + (i // 7919) % 6}-{1 + (i // 613) % 12:02d}"
        folder = os.path.join(args.out, project, month)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        text = variants[i % len(variants)].replace('"name": "run-', f'"name": "r{i}-run-', 1)
        with open(os.path.join(folder, f"run-{i:07d}.jobspec.json"), "w") as f:
            f.write(text)
    print(f"{args.count} specs in {len(made)} folders under {args.out}")


if __name__ == "__main__":
    main()
