#!/usr/bin/env python3
"""Generates specs at the 32 MiB size limit built to stress one check each.

    python3 bench/hostile.py OUT_DIR

Each spec is the reference spec with one part blown up until the file is just under 32 MiB:

- same-pool-names: pools that all share one name (pool-name-duplicate)
- distinct-pool-names: pools with distinct names (pool-name-duplicate, role-pool)
- many-roles: roles that all name a missing pool, beside many pools (role-pool)
- one-missing-role: one role naming a missing pool beside many pools (role-pool's message)
- one-leaf-plugins: plugins that all unpack to one leaf (plugin-leaf-collision)
- wide-hyperparams: a hyperparams map of distinct keys, for a `unique` rule over its values
- repeated-hyperparams: the same, with each value repeated

OUT_DIR also gets `unique-hyperparams.toml`, a platform rule file with `unique = true` over
`spec.hyperparams.*`, for the last two. bench/hostile.sh times each spec.
"""
import json
import os
import sys

LIMIT = 32 * 1024 * 1024
HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "rules", "reference", "jobspec.json")

RULE = '''id = "hyperparams-unique"
severity = "warning"
summary = "Every hyperparameter value is used once"
message = "{value} is used twice"

[[check]]
select = "spec.hyperparams.*"
unique = true
'''


def reference():
    with open(REFERENCE) as f:
        return json.load(f)


def fill(name, make_item, place):
    """The largest spec under the limit with `place(spec, items)`, items from `make_item(i)`."""
    def size(count):
        spec = reference()
        place(spec, [make_item(i) for i in range(count)])
        return len(json.dumps(spec))

    small, large = size(1000), size(2000)
    per_item = (large - small) / 1000
    n = int(1000 + (LIMIT - small - 4096) / per_item)
    while True:
        spec = reference()
        place(spec, [make_item(i) for i in range(n)])
        text = json.dumps(spec)
        if len(text.encode()) < LIMIT:
            return name, n, text
        n = int(n * 0.98)


def pools(spec, items):
    spec["spec"]["resources"]["pools"] = items


def roles_and_pools(count_pools):
    def place(spec, items):
        spec["spec"]["resources"]["pools"] = [
            {"name": f"pool-{i}", "series": "h200", "nodes": 1, "gpus_per_node": 8}
            for i in range(count_pools)
        ]
        spec["spec"]["resources"]["roles"] = dict(items)
    return place


def plugins(spec, items):
    spec["spec"]["plugins"] = items


def hyperparams(spec, items):
    spec["spec"]["hyperparams"] = dict(items)


def specs():
    pool = lambda name: {"name": name, "series": "h200", "nodes": 1, "gpus_per_node": 8}
    yield fill("same-pool-names", lambda i: pool("train"), pools)
    yield fill("distinct-pool-names", lambda i: pool(f"pool-{i}"), pools)
    yield fill("many-roles", lambda i: (f"role-{i}", "missing"), roles_and_pools(1000))

    # One role naming a missing pool, beside as many pools as fit.
    spec = reference()
    n = LIMIT // 80
    while True:
        spec["spec"]["resources"]["pools"] = [pool(f"pool-{i}") for i in range(n)]
        spec["spec"]["resources"]["roles"] = {"trainer": "missing"}
        text = json.dumps(spec)
        if len(text.encode()) < LIMIT:
            break
        n = int(n * 0.98)
    yield "one-missing-role", n, text

    digest = "sha256:" + "0" * 64
    yield fill("one-leaf-plugins",
               lambda i: {"id": f"owner-{i}/leaf", "version": "1.0.0", "digest": digest}, plugins)
    yield fill("wide-hyperparams", lambda i: (f"k{i}", i), hyperparams)
    yield fill("repeated-hyperparams", lambda i: (f"k{i}", i // 2), hyperparams)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "unique-hyperparams.toml"), "w") as f:
        f.write(RULE)
    for name, n, text in specs():
        with open(os.path.join(out, f"{name}.jobspec.json"), "w") as f:
            f.write(text)
        print(f"{name}: {n} items, {len(text.encode()) / 1048576:.1f} MiB")


if __name__ == "__main__":
    main()
