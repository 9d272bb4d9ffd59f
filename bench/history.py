#!/usr/bin/env python3
"""Generates a git repository whose history is a lab's years of specs and experiments.

    python3 bench/history.py OUT_DIR [--commits 10000] [--specs 5000] [--merge-every 40]
                             [--bare] [--seed 1]

The repository is written in one pass through `git fast-import` (seconds for 10,000 commits).
Its tip looks like a lab repository:

    forgelint.toml, catalog.toml                      every built-in rule runs (bench/generate.py)
    experiments/<project>/train.py, config.yaml       one experiment per project (bench/experiments.py)
    specs/<project>/run-NNNNNN.jobspec.json           ~2 KB forge/v2 specs, some moved to specs/<project>/archive/

and its history holds what a real one does: each commit adds a spec or edits one or two (a new
hyperparameter value, a fault put in, a fault fixed), now and then edits an experiment file,
moves a spec into `archive/` (a rename, with an edit half the time) or deletes one. Every
`--merge-every` commits a side branch of two or three commits is merged back without
fast-forward, so the history is not a line. Commits are an hour or so apart from 2024-01-01, by
one of five authors.

Fixed events, at fixed fractions of the history, are printed in the JSON summary on stdout with
their commit hashes, so a test or a benchmark can check what a history audit reports:

    secret        experiments/rlhf/config.yaml gets `hub_token: hf_...` at 30% of the commits,
                  and loses it at 60% (so the tip has none, and every clone still has it)
    tip_fault     specs/my-lab/run-000000.jobspec.json gets `owner-ignored` at 40%, kept to the tip
    renamed       specs/vision/run-000004.jobspec.json moves to specs/vision/archive/ at 50%

Everything is drawn from one generator seeded with --seed: the same arguments make the same
repository, byte for byte (commit hashes included).
"""
import argparse
import copy
import json
import os
import random
import string
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import experiments  # noqa: E402  (bench/experiments.py: the experiment file templates)
import generate  # noqa: E402  (bench/generate.py: the realistic spec generator and its faults)

AUTHORS = [("Ada Lovelace", "ada@lab.example"), ("Alan Turing", "alan@lab.example"),
           ("Grace Hopper", "grace@lab.example"), ("Edsger Dijkstra", "edsger@lab.example"),
           ("Barbara Liskov", "barbara@lab.example")]
START = 1704067200  # 2024-01-01T00:00:00Z
SECRET_PROJECT = "rlhf"
TIP_FAULT_SPEC = 0
RENAMED_SPEC = 4


class Writer:
    """The fast-import stream: blobs and commits with marks."""

    def __init__(self, out):
        self.out = out
        self.mark = 0
        self.blobs = {}  # content -> mark: each distinct content is written once

    def next_mark(self):
        self.mark += 1
        return self.mark

    def data(self, payload):
        self.out.write(b"data %d\n" % len(payload))
        self.out.write(payload)
        self.out.write(b"\n")

    def blob(self, text):
        payload = text.encode()
        mark = self.blobs.get(payload)
        if mark is None:
            mark = self.next_mark()
            self.blobs[payload] = mark
            self.out.write(b"blob\nmark :%d\n" % mark)
            self.data(payload)
        return mark

    def commit(self, ref, author, when, message, parents, ops):
        """`ops`: ("M", path, blob mark), ("D", path) or ("R", old, new). Returns the mark."""
        mark = self.next_mark()
        name, email = author
        ident = f"{name} <{email}> {when} +0000".encode()
        self.out.write(b"commit %s\nmark :%d\nauthor %s\ncommitter %s\n" % (ref.encode(), mark, ident, ident))
        self.data(message.encode())
        if parents:
            self.out.write(b"from :%d\n" % parents[0])
            for p in parents[1:]:
                self.out.write(b"merge :%d\n" % p)
        for op in ops:
            if op[0] == "M":
                self.out.write(b"M 100644 :%d %s\n" % (op[2], op[1].encode()))
            elif op[0] == "D":
                self.out.write(b"D %s\n" % op[1].encode())
            else:
                self.out.write(b"R %s %s\n" % (op[1].encode(), op[2].encode()))
        self.out.write(b"\n")
        return mark


def experiment_values(rng, project):
    algo = rng.choice(["grpo", "dpo", "sft"])
    task = rng.choice(experiments.TASKS)
    return {"name": f"{algo}-{task}", "algo_upper": algo.upper(), "task": task, "project": project,
            "model": "Qwen/Qwen2.5-7B", **experiments.drawn_values(rng),
            "sweep": f"sweep-{rng.randint(0, 40)}", "team": "infra"}


class Lab:
    """The files of the repository as of the branch being written."""

    def __init__(self, rng):
        self.rng = rng
        self.specs = {}  # spec number -> [path, clean dict, fault kind or None]
        self.exp = {}  # project -> values of its experiment files
        self.secret = None  # the token while experiments/rlhf/config.yaml holds it
        # While a side branch is written: spec number -> its path before the branch, and the
        # projects whose experiment changed, for the merge to bring in.
        self.side_specs = None
        self.side_projects = None

    def touch_spec(self, n):
        if self.side_specs is not None and n not in self.side_specs:
            self.side_specs[n] = self.specs[n][0]

    def touch_project(self, p):
        if self.side_projects is not None:
            self.side_projects.add(p)

    def spec_text(self, number):
        path, clean, kind = self.specs[number]
        d = copy.deepcopy(clean)
        edit = None
        if kind:
            edit = generate.fault(random.Random(number * 1000 + len(kind)), d, kind)
        text = json.dumps(d, indent=2)
        if edit:
            text = text.replace(edit[0], edit[1], 1)
        return text + "\n"

    def config_text(self, project):
        text = experiments.CONFIG_YAML.format(**self.exp[project])
        if project == SECRET_PROJECT and self.secret:
            text = text.replace("  keep_top_k:", f"  hub_token: {self.secret}\n  keep_top_k:", 1)
        return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--commits", type=int, default=10000)
    ap.add_argument("--specs", type=int, default=5000)
    ap.add_argument("--merge-every", type=int, default=40, metavar="K",
                    help="merge a side branch every K commits (0: a straight line)")
    ap.add_argument("--bare", action="store_true", help="write a bare repository")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.commits < 10 or args.specs < 8:
        ap.error("at least 10 commits and 8 specs")
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    init = ["git", "init", "-q", "-b", "main"] + (["--bare"] if args.bare else []) + [args.out]
    subprocess.run(init, check=True)
    git_dir = args.out if args.bare else os.path.join(args.out, ".git")
    marks_file = os.path.join(git_dir, "bench-marks")
    proc = subprocess.Popen(["git", "--git-dir", git_dir, "fast-import", "--quiet",
                             f"--export-marks={marks_file}"], stdin=subprocess.PIPE)
    w = Writer(proc.stdin)
    lab = Lab(rng)
    events = {}
    when = START

    # The first commit: config, catalog and one experiment per project.
    ops = []
    catalog = "".join(
        f'[[recipe]]\nname = "{r[0]}"\nversion = "{r[1]}"\ndigest = "sha256:{r[2]}"\n'
        f'runtime_id = "{r[3]}"\nobservability = "{r[4]}"\nrequires = {{ core = "{r[5]}" }}\n\n'
        for r in generate.RECIPES)
    ops.append(("M", "catalog.toml", w.blob(catalog)))
    ops.append(("M", "forgelint.toml", w.blob(
        '[platform]\ncatalog = "catalog.toml"\nregistries = ["nvcr.io", "registry.internal:5000"]\n'
        'gpu-quota = 64\n\n[platform.project-quota]\nbig-lab = 256\n')))
    for p in generate.PROJECTS:
        lab.exp[p] = experiment_values(rng, p)
        ops.append(("M", f"experiments/{p}/train.py", w.blob(experiments.TRAIN_PY.format(**lab.exp[p]))))
        ops.append(("M", f"experiments/{p}/config.yaml", w.blob(lab.config_text(p))))
    main_tip = w.commit("refs/heads/main", AUTHORS[0], when, "Start the lab repository\n", [], ops)
    commit_marks = [main_tip]
    # How many specs exist after commit k: added evenly over the first 90% of the history.
    adding_until = max(2, int(args.commits * 0.9))
    next_spec = 0

    def add_spec(ops):
        nonlocal next_spec
        n = next_spec
        next_spec += 1
        d = generate.spec(rng, n)
        project = d["metadata"]["project"]
        if n == TIP_FAULT_SPEC:
            project = d["metadata"]["project"] = "my-lab"
        if n == RENAMED_SPEC:
            project = d["metadata"]["project"] = "vision"
        d["spec"]["source"]["exp"] = f"experiments/{project}"
        lab.specs[n] = [f"specs/{project}/run-{n:06d}.jobspec.json", d, None]
        ops.append(("M", lab.specs[n][0], w.blob(lab.spec_text(n))))
        return f"Add run {n:06d}"

    def edit_spec(ops, n, kind="keep"):
        lab.touch_spec(n)
        path, clean, fault = lab.specs[n]
        if kind == "keep":
            clean["spec"]["hyperparams"]["seed"] = rng.randint(0, 10**6)
        else:
            lab.specs[n][2] = kind
        ops.append(("M", path, w.blob(lab.spec_text(n))))

    def random_change(ops):
        """One ordinary change; returns the commit message."""
        live = [n for n in lab.specs if n not in (TIP_FAULT_SPEC, RENAMED_SPEC)]
        if not live:
            return "Touch nothing"
        roll = rng.random()
        if roll < 0.06:
            p = rng.choice(generate.PROJECTS)
            lab.touch_project(p)
            lab.exp[p]["lr"] = rng.choice(["1.0e-6", "3.0e-6", "5.0e-7", "2.0e-6"])
            lab.exp[p]["seed"] = rng.randint(0, 10**6)
            if rng.random() < 0.5:
                ops.append(("M", f"experiments/{p}/train.py", w.blob(experiments.TRAIN_PY.format(**lab.exp[p]))))
            ops.append(("M", f"experiments/{p}/config.yaml", w.blob(lab.config_text(p))))
            return f"Tune the {p} experiment"
        n = rng.choice(live)
        lab.touch_spec(n)
        path, clean, fault = lab.specs[n]
        if roll < 0.08 and "/archive/" not in path:
            new = path.replace(f"specs/{clean['metadata']['project']}/", f"specs/{clean['metadata']['project']}/archive/")
            ops.append(("R", path, new))
            lab.specs[n][0] = new
            if rng.random() < 0.5:
                edit_spec(ops, n)
            return f"Archive run {n:06d}"
        if roll < 0.085 and len(live) > 10:
            ops.append(("D", path))
            del lab.specs[n]
            return f"Drop run {n:06d}"
        if roll < 0.25:
            edit_spec(ops, n, rng.choice(generate.FAULTS))
            return f"Change run {n:06d}"
        if roll < 0.35 and fault:
            edit_spec(ops, n, None)
            return f"Fix run {n:06d}"
        edit_spec(ops, n)
        if rng.random() < 0.3:
            m = rng.choice(live)
            if m != n:
                edit_spec(ops, m)
        return f"Retune run {n:06d}"

    def fixed_events(k, ops):
        """The events the summary promises, at their fractions of the history."""
        said = []

        def due(name, fraction):
            return name not in events and k >= int(args.commits * fraction)

        if due("secret_added", 0.3):
            lab.secret = "hf_" + "".join(rng.choice(string.ascii_letters) for _ in range(34))
            ops.append(("M", f"experiments/{SECRET_PROJECT}/config.yaml", w.blob(lab.config_text(SECRET_PROJECT))))
            said.append("secret_added")
        if due("secret_removed", 0.6) and "secret_added" in events:
            lab.secret = None
            ops.append(("M", f"experiments/{SECRET_PROJECT}/config.yaml", w.blob(lab.config_text(SECRET_PROJECT))))
            said.append("secret_removed")
        if due("tip_fault", 0.4) and TIP_FAULT_SPEC in lab.specs:
            edit_spec(ops, TIP_FAULT_SPEC, "owner-ignored")
            said.append("tip_fault")
        if due("renamed", 0.5) and RENAMED_SPEC in lab.specs:
            path = lab.specs[RENAMED_SPEC][0]
            new = path.replace("specs/vision/", "specs/vision/archive/")
            ops.append(("R", path, new))
            lab.specs[RENAMED_SPEC][0] = new
            said.append("renamed")
        return said

    k = 1
    while k < args.commits:
        if args.merge_every and k % args.merge_every == 0 and k + 4 < args.commits:
            # A side branch of two or three commits, then a merge that brings its files in.
            side = main_tip
            lab.side_specs, lab.side_projects = {}, set()
            for _ in range(rng.randint(2, 3)):
                when += rng.randint(600, 7200)
                ops = []
                message = random_change(ops)
                side = w.commit("refs/heads/side", rng.choice(AUTHORS), when, message + "\n", [side], ops)
                commit_marks.append(side)
                k += 1
            # The merge's tree is the side branch's: fast-import starts from the first parent's.
            ops = []
            for n, path in sorted(lab.side_specs.items()):
                if n not in lab.specs or lab.specs[n][0] != path:
                    ops.append(("D", path))
                if n in lab.specs:
                    ops.append(("M", lab.specs[n][0], w.blob(lab.spec_text(n))))
            for p in sorted(lab.side_projects):
                ops.append(("M", f"experiments/{p}/train.py", w.blob(experiments.TRAIN_PY.format(**lab.exp[p]))))
                ops.append(("M", f"experiments/{p}/config.yaml", w.blob(lab.config_text(p))))
            lab.side_specs = lab.side_projects = None
            when += rng.randint(600, 3600)
            main_tip = w.commit("refs/heads/main", rng.choice(AUTHORS), when, "Merge branch 'side'\n",
                                [main_tip, side], ops)
            commit_marks.append(main_tip)
            k += 1
            continue
        when += rng.randint(1800, 7200)
        ops = []
        said = fixed_events(k, ops)
        due = int(args.specs * k / adding_until) if k < adding_until else args.specs
        if next_spec < args.specs and (next_spec < due or len(lab.specs) <= 2):
            message = add_spec(ops)
        else:
            message = random_change(ops)
        if said:
            message = ", ".join(said).replace("_", " ").capitalize() + f"; {message.lower()}"
        main_tip = w.commit("refs/heads/main", rng.choice(AUTHORS), when, message + "\n", [main_tip], ops)
        commit_marks.append(main_tip)
        for e in said:
            events[e] = main_tip
        k += 1
    w.out.write(b"done\n")
    proc.stdin.close()
    if proc.wait() != 0:
        sys.exit("git fast-import failed")
    marks = {}
    with open(marks_file) as f:
        for line in f:
            m, h = line.split()
            marks[int(m[1:])] = h
    os.remove(marks_file)
    subprocess.run(["git", "--git-dir", git_dir, "branch", "-q", "-D", "side"], check=False)
    if not args.bare:
        subprocess.run(["git", "-C", args.out, "checkout", "-q", "main"], check=True)
    summary = {
        "commits": len(commit_marks),
        "specs_added": next_spec,
        "specs_at_tip": len(lab.specs),
        "distinct_blobs": len(w.blobs),
        "bare": args.bare,
        "seed": args.seed,
        "events": {e: marks[m] for e, m in sorted(events.items())},
        "secret_path": f"experiments/{SECRET_PROJECT}/config.yaml",
        "tip_fault_path": f"specs/my-lab/run-{TIP_FAULT_SPEC:06d}.jobspec.json",
        "renamed_path": f"specs/vision/archive/run-{RENAMED_SPEC:06d}.jobspec.json",
    }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
