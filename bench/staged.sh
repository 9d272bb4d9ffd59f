#!/usr/bin/env bash
# The pre-commit benchmark: one staged spec with its experiment (a spec, train.py, config.yaml,
# README.md: bench/experiments.py's first run) in a project with generate.py's forgelint.toml
# (catalog, registries, quotas: every built-in rule runs), linted as the hook runs it, against
# `forgelint --version`, the cost of starting the process. Commands are run without a shell
# (measure.py --direct), interleaved; medians of RUNS rounds of CPU (user + system) and wall.
# The goal: at most 3 ms of CPU beyond `--version`.
#
#   bash bench/staged.sh
#   RUNS=200 FORGELINT=target/release/forgelint bash bench/staged.sh
#
# For where the time goes, count instructions (the machine's other work does not change them):
#   valgrind --tool=callgrind forgelint -q .starforge/jobspec.json   (in the printed folder)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS=${RUNS:-100}
WORK=${BENCH_DIR:-/tmp/forgelint-bench}
if [ -n "${FORGELINT:-}" ]; then
  BIN=$(cd "$(dirname "$FORGELINT")" && pwd)/$(basename "$FORGELINT")
else
  cargo build --release --quiet
  BIN="$ROOT/target/release/forgelint"
fi

project="$WORK/staged/runs/run-000001"
if [ ! -f "$WORK/staged/.complete" ]; then
  rm -rf "$WORK/staged"
  mkdir -p "$WORK/staged"
  python3 bench/experiments.py "$WORK/staged" 1 >/dev/null
  # The project's config and catalog, as bench/generate.py writes them.
  python3 bench/generate.py "$WORK/staged/config" 0 >/dev/null
  cp "$WORK/staged/config/forgelint.toml" "$WORK/staged/config/catalog.toml" "$project/"
  touch "$WORK/staged/.complete"
fi

echo "Machine: $(nproc) cores, $(uname -sr); forgelint $("$BIN" --version | awk '{print $2}')"
echo "Project: $project ($(find "$project" -type f | wc -l) files)"
echo
python3 bench/measure.py --direct --ms --runs "$RUNS" --cwd "$project" --baseline version \
  "version=$BIN --version" \
  "one staged spec=$BIN -q .starforge/jobspec.json"
