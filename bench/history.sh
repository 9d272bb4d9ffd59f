#!/usr/bin/env bash
# forgelint history on a generated repository (bench/history.py), against what it should cost:
# `git log --raw` (the walk git does for it) plus linting the distinct versions it reads, written
# out as files and linted by `forgelint check`; and against `git log -p` (a history read with
# every diff). Median wall time and CPU of interleaved runs, peak RSS.
#
#   bash bench/history.sh                          # 10,000 commits, 5,000 specs
#   COMMITS=2000 SPECS=1000 RUNS=3 bash bench/history.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
COMMITS=${COMMITS:-10000}
SPECS=${SPECS:-5000}
RUNS=${RUNS:-5}
WORK=${BENCH_DIR:-/tmp/forgelint-bench}
mkdir -p "$WORK"

cargo build --release --quiet
BIN="$ROOT/target/release/forgelint"
repo="$WORK/history-$COMMITS-$SPECS"
if [ ! -f "$repo/.git/bench-complete" ]; then
  rm -rf "$repo"
  python3 bench/history.py "$repo" --commits "$COMMITS" --specs "$SPECS" >"$WORK/history-$COMMITS-$SPECS.json"
  touch "$repo/.git/bench-complete"
fi

# The distinct versions of the files history lints (specs, files of experiments/*), written out
# once: specs as specs/<id>.jobspec.json, experiment files as experiments/<id>/<name>, beside the
# tip's config, catalog and experiment folders (so that each spec's experiment and config are
# there, as in its commit's tree).
versions="$WORK/history-$COMMITS-$SPECS-versions"
if [ ! -f "$versions/.complete" ]; then
  rm -rf "$versions"
  python3 - "$repo" "$versions" <<'PY'
import os, shutil, subprocess, sys, threading
repo, out = sys.argv[1:]
listed = subprocess.run(["git", "-C", repo, "rev-list", "--objects", "HEAD"],
                        capture_output=True, text=True, check=True).stdout.split("\n")
wanted = {}
for line in listed:
    oid, _, path = line.partition(" ")
    if path.endswith(".jobspec.json") or (path.startswith("experiments/") and path.count("/") >= 2):
        wanted.setdefault(oid, path)
cat = subprocess.Popen(["git", "-C", repo, "cat-file", "--batch"], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE)
# Asked on a thread: git answers as it reads, and a full pipe each way would stall both.
def ask():
    cat.stdin.write("".join(f"{oid}\n" for oid in wanted).encode())
    cat.stdin.close()
threading.Thread(target=ask).start()
count = 0
for oid, path in wanted.items():
    oid_out, kind, size = cat.stdout.readline().split()
    body = cat.stdout.read(int(size))
    cat.stdout.read(1)
    if kind != b"blob":
        continue
    if path.endswith(".jobspec.json"):
        target = os.path.join(out, "specs", f"{oid}.jobspec.json")
    else:
        target = os.path.join(out, "experiments", oid, os.path.basename(path))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as f:
        f.write(body)
    count += 1
cat.wait()
for name in ("forgelint.toml", "catalog.toml"):
    shutil.copy(os.path.join(repo, name), out)
shutil.copytree(os.path.join(repo, "experiments"), os.path.join(out, "experiments"), dirs_exist_ok=True)
print(f"{count} distinct versions written")
PY
  touch "$versions/.complete"
fi

echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "forgelint $("$BIN" --version | awk '{print $2}'), $(git --version)"
echo "Repository: $COMMITS commits, $SPECS specs; $(find "$versions/specs" "$versions/experiments" -type f | wc -l) files in the versions tree"
echo
log="git log -z --raw --no-abbrev --root -M --diff-merges=first-parent --topo-order --reverse HEAD"
python3 bench/measure.py --runs "$RUNS" --cwd "$repo" --cpu --baseline "git log --raw" \
  "git log --raw=$log" \
  "git log -p=git log -p --root -M --diff-merges=first-parent --topo-order --reverse HEAD" \
  "check the versions -j1=cd $versions && $BIN check -j1 --format json -o $WORK/versions.json ." \
  "check the versions=cd $versions && $BIN check --format json -o $WORK/versions.json ." \
  "forgelint history=$BIN history --format json -o $WORK/history.json"
