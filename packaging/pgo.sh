#!/usr/bin/env bash
# Profile-guided optimisation of the release binary: the profile the release workflow builds its
# binaries and wheels with (docs/performance.md, "Release builds are profile-guided").
#
#   profile=$(bash packaging/pgo.sh)      # target/pgo/forgelint.profdata, its path printed
#   RUSTFLAGS="-Cprofile-use=$profile" cargo build --release
#
# It builds an instrumented binary (target/pgo/instrumented), runs it over trees bench/ lays out
# (realistic specs with their experiments and config, a finding-dense archive, one staged spec)
# in every report format, and merges what the runs counted with the toolchain's own
# llvm-profdata (rustup's llvm-tools component, added when missing): its LLVM is the compiler's,
# which reads the profile.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
# rustc on Windows reads native paths (D:/a/…), which Git Bash's own also work as.
if command -v cygpath > /dev/null; then ROOT=$(cygpath -m "$ROOT"); fi
# RUSTFLAGS is split at spaces: the checkout's path must have none.
OUT="$ROOT/target/pgo"
SPECS=${PGO_SPECS:-2000}

# Windows runners name their Python `python`.
python=python3
command -v python3 > /dev/null || python=python
host=$(rustc -vV | sed -n 's/^host: //p')
exe=""
case "$host" in *windows*) exe=".exe" ;; esac
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata$exe"
if [ ! -x "$profdata" ]; then
  rustup component add llvm-tools
fi
test -x "$profdata" || { echo "pgo.sh: no llvm-profdata at $profdata" >&2; exit 1; }

rm -rf "$OUT/raw" "$OUT/trees" "$OUT/forgelint.profdata"
mkdir -p "$OUT/raw" "$OUT/trees"
echo "pgo.sh: building the instrumented binary" >&2
RUSTFLAGS="-Cprofile-generate=$OUT/raw" CARGO_TARGET_DIR="$OUT/instrumented" \
  cargo build --release --locked --quiet
bin="$OUT/instrumented/release/forgelint$exe"

echo "pgo.sh: laying out the training trees" >&2
trees="$OUT/trees"
"$python" bench/generate.py "$trees/realistic" "$SPECS" --faults-per-spec 2.6 > /dev/null
"$python" bench/dense.py "$trees/dense" "$SPECS" --findings 20 > /dev/null
"$python" bench/experiments.py "$trees/staged" 1 > /dev/null
staged="$trees/staged/runs/run-000001"
cp "$trees/realistic/forgelint.toml" "$trees/realistic/catalog.toml" "$staged/"

echo "pgo.sh: training" >&2
export LLVM_PROFILE_FILE="$OUT/raw/forgelint-%p-%m.profraw"
report="$OUT/trees/report"
(
  cd "$trees/realistic"
  for format in human concise json jsonl sarif github junit gitlab html; do
    "$bin" --exit-zero -q --format "$format" -o "$report" .
  done
  "$bin" --exit-zero -q --statistics -o "$report" .
)
(
  cd "$trees/dense"
  for format in jsonl json sarif human; do
    "$bin" --no-config --exit-zero -q --format "$format" -o "$report" .
  done
)
(
  # A pre-commit run: one staged spec with its experiment, many times over (the start-up).
  cd "$staged"
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    "$bin" --exit-zero -q .starforge/jobspec.json > /dev/null
  done
)

"$profdata" merge -o "$OUT/forgelint.profdata" "$OUT"/raw/*.profraw
test -s "$OUT/forgelint.profdata"
echo "$OUT/forgelint.profdata"
