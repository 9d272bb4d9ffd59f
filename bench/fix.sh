#!/usr/bin/env bash
# Fix benchmark: the time to fix an archive of generated specs (bench/generate.py, about one
# spec in five with findings), against checking it. Each round copies the pristine tree to a
# scratch folder, then times, interleaved:
#   check      forgelint --format json -o /dev/null      (the pristine copy, nothing written)
#   fix        forgelint --fix --unsafe-fixes ...         (writes every fixable spec)
#   fix again  the same on the fixed copy                 (nothing left to fix: a no-op)
# and prints the median of RUNS rounds and the count of fixes applied.
#
#   bash bench/fix.sh                       # 100,000 specs
#   SIZES="10000" RUNS=3 bash bench/fix.sh
#   FORGELINT=path/to/forgelint bash bench/fix.sh   # that binary, no build
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SIZES=${SIZES:-"100000"}
RUNS=${RUNS:-5}
WORK=${BENCH_DIR:-/tmp/forgelint-bench}
mkdir -p "$WORK"
if [ -n "${FORGELINT:-}" ]; then
  BIN=$(cd "$(dirname "$FORGELINT")" && pwd)/$(basename "$FORGELINT")
else
  cargo build --release --quiet
  BIN="$ROOT/target/release/forgelint"
fi

# Wall seconds of a command run from folder $1 (bash's own clock: no process in between).
seconds() {
  local dir=$1
  shift
  local start end
  start=$(date +%s.%N)
  (cd "$dir" && "$@" >/dev/null 2>&1) || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

for n in $SIZES; do
  tree="$WORK/specs-$n"
  if [ ! -f "$tree/.complete" ]; then
    rm -rf "$tree"
    python3 bench/generate.py "$tree" "$n" >/dev/null
    touch "$tree/.complete"
  fi
  scratch="$WORK/fix-scratch-$n"
  checks=() fixes=() agains=()
  for _ in $(seq "$RUNS"); do
    rm -rf "$scratch"
    cp -r "$tree" "$scratch"
    # Read once, so every timed run finds the copy in the page cache.
    cat "$scratch"/*/*.json "$scratch"/*/*/*.json >/dev/null 2>&1 || true
    checks+=("$(seconds "$scratch" "$BIN" --format json -o /dev/null .)")
    fixes+=("$(seconds "$scratch" "$BIN" --fix --unsafe-fixes --format json -o /dev/null .)")
    agains+=("$(seconds "$scratch" "$BIN" --fix --unsafe-fixes --format json -o /dev/null .)")
  done
  # --diff exits 1 when something would change.
  applied=$(cd "$tree" && "$BIN" --diff --unsafe-fixes . 2>&1 >/dev/null | tail -1 || true)
  printf '%s specs: check %.2f s, fix %.2f s, fix again %.2f s (medians of %s); %s\n' "$n" \
    "$(printf '%s\n' "${checks[@]}" | median)" \
    "$(printf '%s\n' "${fixes[@]}" | median)" \
    "$(printf '%s\n' "${agains[@]}" | median)" "$RUNS" "$applied"
  rm -rf "$scratch"
done
