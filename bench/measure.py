#!/usr/bin/env python3
"""Times commands (median wall of N runs) and reads their peak RSS; prints a Markdown table.

    python3 bench/measure.py --runs 5 --cwd TREE "label=command" ...
"""
import argparse
import os
import shlex
import statistics
import subprocess
import time


def run_once(cmd, cwd):
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, shell=True, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024.0, code


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cwd", default=".")
    ap.add_argument("--baseline", help="label of the row the others are compared with")
    ap.add_argument("commands", nargs="+")
    args = ap.parse_args()
    rows = []
    for spec in args.commands:
        label, cmd = spec.split("=", 1)
        run_once(cmd, args.cwd)  # warm the page cache
        samples = [run_once(cmd, args.cwd) for _ in range(args.runs)]
        wall = statistics.median(s[0] for s in samples)
        rss = max(s[1] for s in samples)
        codes = sorted({s[2] for s in samples})
        rows.append((label, wall, rss, codes))
    base = next((r[1] for r in rows if r[0] == args.baseline), None)
    print(f"| command | median wall (s) | × {args.baseline or 'base'} | peak RSS (MB) | exit |")
    print("|---|---:|---:|---:|---|")
    for label, wall, rss, codes in rows:
        ratio = f"{wall / base:.2f}" if base else "-"
        print(f"| {label} | {wall:.3f} | {ratio} | {rss:.1f} | {','.join(map(str, codes))} |")


if __name__ == "__main__":
    main()
