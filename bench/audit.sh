#!/usr/bin/env bash
# The bulk-audit benchmark: finding-dense archives (bench/dense.py, 15 findings per spec) audited
# in every format, each report written to a file: median wall time and peak RSS of RUNS runs,
# beside rg reading the same files.
#
#   bash bench/audit.sh                          # 100,000 specs
#   SIZES="100000 1000000" RUNS=1 bash bench/audit.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SIZES=${SIZES:-"100000"}
RUNS=${RUNS:-3}
WORK=${BENCH_DIR:-/tmp/forgelint-audit}
FORMATS=${FORMATS:-"json jsonl sarif concise human github junit gitlab html"}
mkdir -p "$WORK"

command -v rg >/dev/null || { echo "ripgrep (rg) is needed: apt-get install ripgrep" >&2; exit 2; }
cargo build --release --quiet
BIN="$ROOT/target/release/forgelint"

echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo

for n in $SIZES; do
  tree="$WORK/specs-$n"
  if [ ! -f "$tree/.complete" ]; then
    rm -rf "$tree"
    python3 bench/dense.py "$tree" "$n"
    touch "$tree/.complete"
  fi
  echo "### $n specs ($(du -sm "$tree" | cut -f1) MB)"
  echo
  commands=("rg=rg --no-ignore --hidden -c apiVersion .")
  for format in $FORMATS; do
    commands+=("$format=$BIN --no-config --exit-zero -q --format $format -o $WORK/out.$format .")
  done
  commands+=("--write-baseline=$BIN --no-config -q --write-baseline $WORK/baseline.json .")
  commands+=("--shard 1/4 json=$BIN --no-config --exit-zero -q --shard 1/4 --format json -o $WORK/out.json .")
  python3 bench/measure.py --runs "$RUNS" --cwd "$tree" --baseline rg "${commands[@]}"
  echo
  echo "Findings: $(cd "$tree" && "$BIN" --no-config --exit-zero -q --format concise . | wc -l)"
  rm -f "$WORK"/out.* "$WORK/baseline.json"
  echo
done
