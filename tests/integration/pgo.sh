#!/usr/bin/env bash
# The profile-guided release build, as .github/workflows/release.yml makes it:
#
#   bash tests/integration/pgo.sh
#
# - packaging/pgo.sh makes a profile (an instrumented build trained on bench/'s trees)
# - a release build with `-Cprofile-use` of it compiles and runs
# - its reports are the plain release build's, byte for byte but for the run's time, in every
#   format, with the same exit codes, on the training trees and on fixtures/demo
#
# The profile is merged by the toolchain's llvm-profdata (rustup's llvm-tools component): when
# rustup cannot add it on this machine, the script says so and checks nothing else.
set -uo pipefail

# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
integration_setup pgo
cd "$ROOT" || exit 1

if ! rustup component add llvm-tools >"$WORK/rustup.log" 2>&1; then
    echo "SKIP: rustup cannot add llvm-tools here; the profile-guided build is not checked"
    cat "$WORK/rustup.log"
    finish
fi

if profile="$(bash packaging/pgo.sh 2>"$WORK/pgo.log" | tail -n 1)" && [ -s "$profile" ]; then
    pass "packaging/pgo.sh: profile $(wc -c <"$profile" | tr -d ' ') bytes"
else
    die "packaging/pgo.sh made no profile" "$WORK/pgo.log"
fi

if RUSTFLAGS="-Cprofile-use=$profile" CARGO_TARGET_DIR="$ROOT/target/pgo/optimized" \
    cargo build --release --locked --quiet >"$WORK/build.log" 2>&1; then
    pass "release build with -Cprofile-use"
else
    die "release build with -Cprofile-use" "$WORK/build.log"
fi
cargo build --release --locked --quiet >"$WORK/plain.log" 2>&1 || die "plain release build" "$WORK/plain.log"
optimized="$ROOT/target/pgo/optimized/release/forgelint"
plain="$ROOT/target/release/forgelint"

# The run's time in a summary ("(46.2 ms)", "1.52 s"): the one thing two runs may differ in.
without_times() {
    sed -E 's/[0-9]+(\.[0-9]+)? (ms|s)\b/TIME/g'
}

# same_reports DIR ARGS...: both binaries' reports in every format on DIR, byte for byte.
same_reports() {
    local dir="$1" format differ=""
    shift
    for format in human concise json jsonl sarif github junit gitlab html; do
        local a="$WORK/plain.$format" b="$WORK/optimized.$format" rc_a=0 rc_b=0
        (cd "$dir" && "$plain" "$@" --format "$format" . >"$a.raw" 2>&1) || rc_a=$?
        (cd "$dir" && "$optimized" "$@" --format "$format" . >"$b.raw" 2>&1) || rc_b=$?
        without_times <"$a.raw" >"$a"
        without_times <"$b.raw" >"$b"
        if [ "$rc_a" -ne "$rc_b" ] || ! cmp -s "$a" "$b"; then
            differ="$differ $format(exit $rc_a/$rc_b)"
        fi
    done
    if [ -z "$differ" ]; then
        pass "$(basename "$dir"): every format the same as the plain build's"
    else
        fail "$(basename "$dir"): reports differ:$differ"
    fi
}

same_reports "$ROOT/target/pgo/trees/realistic"
same_reports "$ROOT/target/pgo/trees/dense" --no-config
same_reports "$ROOT/fixtures/demo"
finish
