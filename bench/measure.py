#!/usr/bin/env python3
"""Times commands (median wall of N runs) and reads their peak RSS; prints a Markdown table.

    python3 bench/measure.py --runs 5 --cwd TREE [--cpu] "label=command" ...

With --cpu, the median CPU time (user and system, the command's children included) too.
"""
import argparse
import os
import statistics
import tempfile
import subprocess
import time


GNU_TIME = "/usr/bin/time"


def run_once(cmd, cwd):
    """Wall time, peak RSS (MB), exit code and CPU time of `cmd` run by /bin/sh.

    Peak RSS comes from GNU time when it is installed: the rusage of a child forked from Python
    counts Python's own pages from before the exec (about 15 MB here) as the child's peak.
    """
    rss_file = None
    argv = ["/bin/sh", "-c", cmd]
    if os.path.exists(GNU_TIME):
        fd, rss_file = tempfile.mkstemp()
        os.close(fd)
        argv = [GNU_TIME, "-q", "-f", "%M", "-o", rss_file] + argv
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss / 1024.0
    # The waited child's rusage counts the children it waited for (the command under sh).
    cpu = usage.ru_utime + usage.ru_stime
    if rss_file:
        with open(rss_file) as f:
            lines = [l for l in f.read().split() if l.isdigit()]
        os.unlink(rss_file)
        if lines:
            rss = int(lines[-1]) / 1024.0
    return wall, rss, code, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cwd", default=".")
    ap.add_argument("--baseline", help="label of the row the others are compared with")
    ap.add_argument("--cpu", action="store_true", help="a column of median CPU time")
    ap.add_argument("commands", nargs="+")
    args = ap.parse_args()
    commands = [spec.split("=", 1) for spec in args.commands]
    for _, cmd in commands:
        run_once(cmd, args.cwd)  # warm the page cache
    # Round by round, every command once a round: a slow spell of the machine then costs each
    # command alike instead of the one that happened to be running.
    by_label = {label: [] for label, _ in commands}
    for _ in range(args.runs):
        for label, cmd in commands:
            by_label[label].append(run_once(cmd, args.cwd))
    rows = []
    for label, _ in commands:
        samples = by_label[label]
        wall = statistics.median(s[0] for s in samples)
        rss = max(s[1] for s in samples)
        codes = sorted({s[2] for s in samples})
        cpu = statistics.median(s[3] for s in samples)
        rows.append((label, wall, rss, codes, cpu))
    base = next((r[1] for r in rows if r[0] == args.baseline), None)
    cpu_head, cpu_rule = (" median CPU (s) |", "---:|") if args.cpu else ("", "")
    print(f"| command | median wall (s) | × {args.baseline or 'base'} |{cpu_head} peak RSS (MB) | exit |")
    print(f"|---|---:|---:|{cpu_rule}---:|---|")
    for label, wall, rss, codes, cpu in rows:
        ratio = f"{wall / base:.2f}" if base else "-"
        cpu_cell = f" {cpu:.3f} |" if args.cpu else ""
        print(f"| {label} | {wall:.3f} | {ratio} |{cpu_cell} {rss:.1f} | {','.join(map(str, codes))} |")


if __name__ == "__main__":
    main()
