# shellcheck shell=bash
# Shared by the integration scripts (sourced, not run):
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#   integration_setup precommit        # ROOT, WORK (removed at exit unless KEEP_WORK=1)
#   venv_install 'pre-commit>=3.2,<5'  # a throw-away virtualenv in $WORK/venv, or die
#   pass "message" / fail "message" [LOG] / die "message" [LOG] / finish
#
# Every script prints PASS/FAIL per check and ends with "N passed, M failed"; it exits 1 on any
# failure.

passed=0
failed=0

# integration_setup NAME: ROOT is the repository, WORK a fresh temporary folder.
integration_setup() {
    # shellcheck disable=SC2034 # read by the scripts that source this file
    ROOT="$(cd "$(dirname "${BASH_SOURCE[1]}")/../.." && pwd)"
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/forgelint-$1.XXXXXX")"
    trap integration_cleanup EXIT
}

# shellcheck disable=SC2317 # called by the EXIT trap
integration_cleanup() {
    if [ "${KEEP_WORK:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}

pass() {
    passed=$((passed + 1))
    echo "PASS: $1"
}

# fail MESSAGE [LOG]: counts a failure and shows the end of LOG.
fail() {
    failed=$((failed + 1))
    echo "FAIL: $1"
    if [ -n "${2:-}" ] && [ -f "$2" ]; then
        echo "----- last lines of $(basename "$2") -----"
        tail -n 80 "$2"
        echo "-----"
    fi
}

finish() {
    echo "$passed passed, $failed failed"
    if [ "$failed" -eq 0 ]; then exit 0; else exit 1; fi
}

# die MESSAGE [LOG]: a failure after which nothing else can be checked.
die() {
    fail "$@"
    finish
}

# venv_install REQUIREMENT...: pip-installs into $WORK/venv (PyPI), or dies with the log.
venv_install() {
    echo "== installing $* into a virtualenv"
    {
        python3 -m venv "$WORK/venv" &&
            PIP_DISABLE_PIP_VERSION_CHECK=1 "$WORK/venv/bin/python" -m pip install -q "$@"
    } >"$WORK/venv.log" 2>&1 || die "setup: install $*" "$WORK/venv.log"
}

# copy_work_tree DEST [PATHSPEC]: the files of the work tree of $ROOT (or of PATHSPEC in it) that
# git tracks or would track — not those it ignores — as they are now, into DEST: a clean clone
# and a work tree with uncommitted changes behave the same.
copy_work_tree() {
    local dest="$1"
    shift
    mkdir -p "$dest"
    (
        cd "$ROOT" || exit 1
        git ls-files -z --cached --others --exclude-standard -- "$@" |
            while IFS= read -r -d '' f; do
                if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
            done |
            tar --null -T - -cf -
    ) | tar -C "$dest" -xf -
}
