#!/usr/bin/env python3
"""Times commands, round by round; prints a Markdown table of medians.

    python3 bench/measure.py --runs 5 --cwd TREE [--baseline LABEL] [--direct] "label=command" ...

For each command: the median wall time, the median CPU time (user + system, of the command and
everything it waited for), each against the baseline's, and the peak RSS. The machine's load
average is printed before and after, as a reading is only as good as the quiet it was taken in.

With --direct, each command is split into words and run without a shell or GNU time (no pipes
or redirections then): for runs of a few milliseconds, where a shell's own start would count.
Peak RSS then comes from the child's rusage.
"""
import argparse
import os
import shlex
import statistics
import tempfile
import subprocess
import time


GNU_TIME = "/usr/bin/time"


def run_once(cmd, cwd, direct):
    """Wall time, CPU time, peak RSS (MB) and exit code of `cmd`.

    Through /bin/sh unless `direct`. Peak RSS comes from GNU time when it is installed: the
    rusage of a child forked from Python counts Python's own pages from before the exec (about
    15 MB here) as the child's peak. CPU time is the child's rusage, which holds the CPU of
    every process it waited for (GNU time's and the shell's own are a millisecond or so).
    """
    rss_file = None
    if direct:
        argv = shlex.split(cmd)
    else:
        argv = ["/bin/sh", "-c", cmd]
        if os.path.exists(GNU_TIME):
            fd, rss_file = tempfile.mkstemp()
            os.close(fd)
            argv = [GNU_TIME, "-q", "-f", "%M", "-o", rss_file] + argv
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime
    code = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss / 1024.0
    if rss_file:
        with open(rss_file) as f:
            lines = [l for l in f.read().split() if l.isdigit()]
        os.unlink(rss_file)
        if lines:
            rss = int(lines[-1]) / 1024.0
    return wall, cpu, rss, code


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cwd", default=".")
    ap.add_argument("--baseline", help="label of the row the others are compared with")
    ap.add_argument("--direct", action="store_true", help="no shell, no GNU time")
    ap.add_argument("--ms", action="store_true", help="milliseconds instead of seconds")
    # The CPU column is always shown; --cpu, which once added it, is still taken.
    ap.add_argument("--cpu", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("commands", nargs="+")
    args = ap.parse_args()
    commands = [spec.split("=", 1) for spec in args.commands]
    load_before = load()
    for _, cmd in commands:
        run_once(cmd, args.cwd, args.direct)  # warm the page cache
    # Round by round, every command once a round: a slow spell of the machine then costs each
    # command alike instead of the one that happened to be running.
    by_label = {label: [] for label, _ in commands}
    for _ in range(args.runs):
        for label, cmd in commands:
            by_label[label].append(run_once(cmd, args.cwd, args.direct))
    rows = []
    for label, _ in commands:
        samples = by_label[label]
        wall = statistics.median(s[0] for s in samples)
        cpu = statistics.median(s[1] for s in samples)
        rss = max(s[2] for s in samples)
        codes = sorted({s[3] for s in samples})
        rows.append((label, wall, cpu, rss, codes))
    base = next((r for r in rows if r[0] == args.baseline), None)
    unit, scale = ("ms", 1000.0) if args.ms else ("s", 1.0)
    name = args.baseline or "base"
    print(f"Load average before: {load_before}; after: {load()} ({os.cpu_count()} cores); "
          f"medians of {args.runs} interleaved runs.")
    print()
    print(f"| command | wall ({unit}) | × {name} | CPU user+sys ({unit}) | × {name} | peak RSS (MB) | exit |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for label, wall, cpu, rss, codes in rows:
        wall_ratio = f"{wall / base[1]:.2f}" if base and base[1] else "-"
        cpu_ratio = f"{cpu / base[2]:.2f}" if base and base[2] else "-"
        print(f"| {label} | {wall * scale:.3f} | {wall_ratio} | {cpu * scale:.3f} | {cpu_ratio} "
              f"| {rss:.1f} | {','.join(map(str, codes))} |")


if __name__ == "__main__":
    main()
