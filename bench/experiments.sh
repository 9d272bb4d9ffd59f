#!/usr/bin/env bash
# Experiment-archive benchmark: builds forgelint (release), generates archives of run folders
# with bench/experiments.py (each run: .starforge/jobspec.json and experiments/<name>/ with
# train.py, config.yaml, README.md), and prints forgelint (json and sarif, report to a file)
# against `rg --no-ignore --hidden -c .` walking and reading the same files: median wall time of
# RUNS interleaved runs, the ratio to rg, and peak RSS. Then lints a dirty archive (one fault
# every 100 runs) with --statistics, beside the generator's own count of each fault.
#
#   bash bench/experiments.sh                  # 10,000 and 100,000 runs
#   SIZES="20000" bash bench/experiments.sh    # other sizes
#   FORGELINT=path/to/forgelint bash bench/experiments.sh   # time that binary, no build
#   COMPOSED=1 bash bench/experiments.sh       # configs inherit from a base (`defaults:`)
#
# Trees are cached in ${BENCH_DIR:-/tmp/forgelint-bench}/runs-$n (a `.complete` marker says a
# tree was written whole); delete one to regenerate it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SIZES=${SIZES:-"10000 100000"}
RUNS=${RUNS:-5}
DIRTY_EVERY=${DIRTY_EVERY:-100}
# With COMPOSED=1 each run's config.yaml names base.yaml in `defaults:` (bench/experiments.py
# --composed), and hyperparam-unknown composes the two for every spec.
COMPOSED_ARGS=()
SUFFIX=""
if [ -n "${COMPOSED:-}" ]; then
  COMPOSED_ARGS=(--composed)
  SUFFIX="-composed"
fi
WORK=${BENCH_DIR:-/tmp/forgelint-bench}
mkdir -p "$WORK"

command -v rg >/dev/null || { echo "ripgrep (rg) is needed: apt-get install ripgrep" >&2; exit 2; }
if [ -n "${FORGELINT:-}" ]; then
  BIN=$(cd "$(dirname "$FORGELINT")" && pwd)/$(basename "$FORGELINT")
else
  cargo build --release --quiet
  BIN="$ROOT/target/release/forgelint"
fi

# Generates OUT_DIR with bench/experiments.py unless it is complete; keeps the summary it printed.
generate() {
  local tree=$1 n=$2
  shift 2
  if [ ! -f "$tree/.complete" ]; then
    rm -rf "$tree"
    mkdir -p "$tree"
    python3 bench/experiments.py "$tree" "$n" "$@" > "$WORK/summary.tmp"
    mv "$WORK/summary.tmp" "$tree/summary.json"
    touch "$tree/.complete"
  fi
}

echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "forgelint $("$BIN" --version | awk '{print $2}'), rg $(rg --version 2>/dev/null | awk 'NR == 1 {print $2}')"
echo

for n in $SIZES; do
  tree="$WORK/runs-$n$SUFFIX"
  generate "$tree" "$n" ${COMPOSED_ARGS[@]+"${COMPOSED_ARGS[@]}"}
  size=$(du -sm "$tree/runs" | cut -f1)
  files=$(rg --files --no-ignore --hidden "$tree/runs" | wc -l)
  echo "### $n runs ($files files, $size MB on disk)"
  echo
  # As in bench/run.sh: measure.py sends output to /dev/null itself, no `> /dev/null` here.
  python3 bench/measure.py --runs "$RUNS" --cwd "$tree" --baseline rg \
    "rg=rg --no-ignore --hidden -c . runs" \
    "forgelint json=$BIN check --no-config --format json -o $WORK/exp-out.json runs" \
    "forgelint sarif=$BIN check --no-config --format sarif -o $WORK/exp-out.sarif runs"
  echo
done

n=$(echo "$SIZES" | awk '{print $1}')
tree="$WORK/runs-$n-dirty$DIRTY_EVERY$SUFFIX"
generate "$tree" "$n" --dirty-every "$DIRTY_EVERY" ${COMPOSED_ARGS[@]+"${COMPOSED_ARGS[@]}"}
echo "### $n runs, one fault every $DIRTY_EVERY runs"
echo
echo "Written by bench/experiments.py (rule ids of the experiment checks):"
echo
python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
for rule, count in s["faults"].items():
    print(f"    {count:5d}  {rule}")' "$tree/summary.json"
echo
echo "Found by forgelint --statistics:"
echo
(cd "$tree" && "$BIN" check --no-config --statistics --color never runs 2>&1 | sed 's/^/    /') || true
