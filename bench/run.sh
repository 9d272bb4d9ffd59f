#!/usr/bin/env bash
# Reproducible benchmark: builds forgelint (release), generates spec trees, and prints a table of
# forgelint (each format, report to a file) against `cat` and `rg` on the same tree — median wall
# time of 5 runs and peak RSS — plus single-file and pre-commit-sized runs.
#
#   bash bench/run.sh                 # 10,000 and 100,000 specs
#   SIZES="20000" bash bench/run.sh   # other sizes
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SIZES=${SIZES:-"10000 100000"}
RUNS=${RUNS:-5}
WORK=${BENCH_DIR:-/tmp/forgelint-bench}
mkdir -p "$WORK"

command -v rg >/dev/null || { echo "ripgrep (rg) is needed: apt-get install ripgrep" >&2; exit 2; }
cargo build --release --quiet
BIN="$ROOT/target/release/forgelint"

echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "forgelint $("$BIN" --version | awk '{print $2}'), rg $(rg --version 2>/dev/null | awk 'NR == 1 {print $2}')"
echo

for n in $SIZES; do
  tree="$WORK/specs-$n"
  if [ ! -f "$tree/.complete" ]; then
    rm -rf "$tree"
    python3 bench/generate.py "$tree" "$n" >/dev/null
    touch "$tree/.complete"
  fi
  size=$(du -sm "$tree" | cut -f1)
  echo "### $n specs ($size MB)"
  echo
  # measure.py sends every command's output to /dev/null itself. No `> /dev/null` here: where
  # /dev/null is a regular file (some sandboxes), that redirection truncates it, and emptying
  # the 396 MB `cat` left there was timed as part of the next command (rg).
  python3 bench/measure.py --runs "$RUNS" --cwd "$tree" --baseline rg \
    "cat=find . -name '*.json' -print0 | xargs -0 cat" \
    "rg=rg --no-ignore --hidden -c apiVersion ." \
    "forgelint json=$BIN --format json -o $WORK/out.json ." \
    "forgelint sarif=$BIN --format sarif -o $WORK/out.sarif ." \
    "forgelint jsonl=$BIN --format jsonl -o $WORK/out.jsonl ." \
    "forgelint junit=$BIN --format junit -o $WORK/out.xml ." \
    "forgelint gitlab=$BIN --format gitlab -o $WORK/out.gitlab.json ." \
    "forgelint human=$BIN -o $WORK/out.txt ." \
    "forgelint json -j1=$BIN -j1 --format json -o $WORK/out.json ."
  echo
done

tree="$WORK/specs-$(echo "$SIZES" | awk '{print $1}')"
# sed reads to the end, so find never dies of SIGPIPE under pipefail.
one=$(find "$tree/archive/000" -name '*.json' | sort | sed -n 1p)
twenty=$(find "$tree/archive/000" -name '*.json' | sort | sed -n 1,20p | tr '\n' ' ')
echo "### One file and a pre-commit batch"
echo
if command -v hyperfine >/dev/null; then
  # Milliseconds: hyperfine, without a shell in between.
  (cd "$tree" && hyperfine -N -i -w 5 -r 30 --style none --export-markdown "$WORK/small.md" \
    -n "one file" "$BIN -q $one" \
    -n "20 staged files" "$BIN -q $twenty" >/dev/null)
  cat "$WORK/small.md"
else
  python3 bench/measure.py --runs 30 --cwd "$tree" \
    "one file=$BIN -q $one" \
    "20 staged files=$BIN -q $twenty"
fi
echo
echo "Library micro-benchmark (parse + lint of a 2 KB spec): cargo bench --bench parse"
