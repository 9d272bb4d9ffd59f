#!/usr/bin/env bash
# One spec at the 32 MiB size limit per check it stresses (bench/hostile.py): forgelint's
# median wall time and peak RSS on each, against `cat` reading it. Every check is linear or
# n log n in what it reads, so each should take well under a second.
#
#   bash bench/hostile.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS=${RUNS:-5}
WORK=${BENCH_DIR:-/tmp/forgelint-bench}/hostile
cargo build --release --quiet
BIN="$ROOT/target/release/forgelint"
if [ ! -f "$WORK/.complete" ]; then
  rm -rf "$WORK"
  python3 bench/hostile.py "$WORK"
  touch "$WORK/.complete"
fi

commands=()
for spec in "$WORK"/*.jobspec.json; do
  name=$(basename "$spec" .jobspec.json)
  rules=""
  case "$name" in *hyperparams*) rules="--rules unique-hyperparams.toml" ;; esac
  commands+=("cat $name=cat $spec")
  commands+=("forgelint $name=$BIN --no-config $rules --format json -o $WORK/out.json $spec")
done
python3 bench/measure.py --runs "$RUNS" --cwd "$WORK" "${commands[@]}"
