#!/usr/bin/env bash
# Proves the PyPI wheel (pyproject.toml, maturin) and the fast pre-commit hook of
# packaging/pre-commit/ with the real tools.
#
#   bash tests/integration/wheel.sh
#
# 1. maturin and pre-commit go into a throw-away virtualenv (pip, PyPI).
# 2. `maturin sdist` lists what the source distribution holds (no target/, fuzz/, loom/, bench/,
#    tests/), and `maturin build --release` builds this platform's wheel: one release build (fat
#    LTO, one codegen unit: a few minutes). It uses cargo's usual target folder ($CARGO_TARGET_DIR,
#    or target/), so a second run only packs the wheel again.
# 3. The wheel goes into a fresh virtualenv, from the built file only (no index): its `forgelint`
#    prints its version, fails on fixtures/demo with findings and passes the reference spec.
# 4. packaging/pre-commit/ is snapshotted as a one-commit git repository (the mirror), and in a
#    throw-away lab repository `pre-commit try-repo <mirror> forgelint` installs the hook with pip
#    pointed at the built wheel (PIP_FIND_LINKS, PIP_NO_INDEX: the pin forgelint==<version>
#    resolves to it, and the mirror's build backend to a setuptools wheel downloaded beforehand).
#    The hook fails on a broken spec with forgelint's diagnostics and passes a clean one; installed
#    with `pre-commit install`, it refuses a `git commit` of the broken spec, and its environment
#    holds the very binary of the built wheel. pip's cache is off, so every installation is a
#    first one. The first try-repo's wall time is the hook's installation: printed as
#    "hook install (wheel)", beside the build-from-source hook's when tests/integration/precommit.sh
#    recorded one in $FORGELINT_HOOK_TIMES (.ci/run sets it).
# 5. The README's install routes of today, its first two `sh` blocks under "## Install", run as
#    they are written, line by line in bash, in a fresh copy of the repository: `cargo install
#    --locked --path .` (into CARGO_INSTALL_ROOT, a folder of this run, not ~/.cargo) and the
#    wheel built with maturin from PyPI into `.venv` (cargo's target folder is this checkout's,
#    so the dependencies are not compiled again).
#
# Needs git, python3 with venv, cargo, and PyPI + crates.io. KEEP_WORK=1 keeps the temporary folder.
# Prints PASS/FAIL per check and ends with "N passed, M failed"; exits 1 on any failure.
set -uo pipefail

# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
integration_setup wheel
# has LOG REGEX: LOG has a line matching the extended REGEX.
has() { grep -Eq -- "$2" "$1"; }
# now: the wall clock in seconds, with microseconds.
now() { printf '%s\n' "${EPOCHREALTIME/,/.}"; }
# since START: seconds elapsed since START (from now), one decimal.
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

for tool in git python3 cargo tar; do
    command -v "$tool" >/dev/null 2>&1 || die "setup: '$tool' is not on PATH"
done
MIRROR_SRC="$ROOT/packaging/pre-commit"
for f in "$ROOT/pyproject.toml" "$MIRROR_SRC/pyproject.toml" "$MIRROR_SRC/.pre-commit-hooks.yaml"; do
    [ -f "$f" ] || die "setup: $f is missing"
done

# --- maturin and pre-commit in a virtualenv -------------------------------------------------------
venv_install 'maturin>=1.5,<2' 'pre-commit>=3.2,<5'
MATURIN="$WORK/venv/bin/maturin"
PRE_COMMIT="$WORK/venv/bin/pre-commit"
PY="$WORK/venv/bin/python"
echo "   $("$MATURIN" --version), $("$PRE_COMMIT" --version), $(cargo --version)"

VERSION="$(cargo metadata --no-deps --format-version 1 --manifest-path "$ROOT/Cargo.toml" |
    "$PY" -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "forgelint"))')" ||
    die "setup: read forgelint's version with cargo metadata"
echo "   forgelint $VERSION (Cargo.toml)"

# --- the mirror's metadata agrees with the top-level hook and Cargo.toml --------------------------
if "$PY" - "$ROOT/.pre-commit-hooks.yaml" "$MIRROR_SRC/.pre-commit-hooks.yaml" \
    "$MIRROR_SRC/pyproject.toml" "$VERSION" >"$WORK/mirror-meta.log" 2>&1 <<'PY'; then
import re, sys
import yaml

def hook(path, hook_id):
    hooks = yaml.safe_load(open(path, encoding="utf-8"))
    return next((h for h in hooks if h.get("id") == hook_id), None) or sys.exit(f"{path}: no {hook_id} hook")

problems = []
for hook_id in ("forgelint", "forgelint-fix"):
    source, mirror = hook(sys.argv[1], hook_id), hook(sys.argv[2], hook_id)
    problems += [f"{hook_id}: {k} is {mirror.get(k)!r}, not {source.get(k)!r} as in .pre-commit-hooks.yaml"
                 for k in ("name", "description", "entry", "files", "types", "require_serial") if mirror.get(k) != source.get(k)]
    if mirror.get("language") != "python":
        problems.append(f"{hook_id}: language is {mirror.get('language')!r}, not 'python'")
# The pins of the dependencies array (tomllib is not in every Python 3 that CI may have).
deps = re.search(r"^dependencies = \[(.*?)^\]", open(sys.argv[3], encoding="utf-8").read(), re.M | re.S)
pins = re.findall(r'"([^"]*)"', deps.group(1)) if deps else []
if pins != [f"forgelint=={sys.argv[4]}"]:
    problems.append(f"pyproject.toml dependencies are {pins}, not ['forgelint=={sys.argv[4]}']")
if problems:
    sys.exit("\n".join(problems))
PY
    pass "packaging/pre-commit: forgelint and forgelint-fix in python, the top-level hooks' entry/files/types, pins forgelint==$VERSION"
else
    fail "packaging/pre-commit metadata" "$WORK/mirror-meta.log"
fi

# --- the source distribution ----------------------------------------------------------------------
cd "$ROOT" || die "setup: cd $ROOT"
SDIST_DIR="$WORK/sdist"
if "$MATURIN" sdist -o "$SDIST_DIR" >"$WORK/sdist.log" 2>&1 &&
    tar -tzf "$SDIST_DIR/forgelint-$VERSION.tar.gz" >"$WORK/sdist-files.txt" 2>>"$WORK/sdist.log"; then
    missing=""
    for f in Cargo.toml Cargo.lock pyproject.toml README.md build.rs src/main.rs rules/reference/jobspec.json; do
        grep -qxF "forgelint-$VERSION/$f" "$WORK/sdist-files.txt" || missing="$missing $f"
    done
    if [ -n "$missing" ]; then
        fail "maturin sdist: missing$missing" "$WORK/sdist-files.txt"
    elif has "$WORK/sdist-files.txt" "^forgelint-$VERSION/(target|fuzz|loom|bench|tests|packaging|\.github|\.ci)/"; then
        fail "maturin sdist: holds target/, fuzz/, loom/, bench/, tests/, packaging/ or CI files" "$WORK/sdist-files.txt"
    else
        pass "maturin sdist: $(wc -l <"$WORK/sdist-files.txt") files, the crate's sources without target/, fuzz/, loom/, bench/, tests/"
    fi
else
    fail "maturin sdist" "$WORK/sdist.log"
fi

# --- the wheel ------------------------------------------------------------------------------------
WHEELS="$WORK/wheels"
echo "== maturin build --release (one release build: a few minutes the first time)"
start="$(now)"
"$MATURIN" build --release --locked -o "$WHEELS" >"$WORK/build.log" 2>&1 ||
    die "maturin build --release" "$WORK/build.log"
echo "   wheel build: $(since "$start") s"
wheels=("$WHEELS"/forgelint-"$VERSION"-*.whl)
if [ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ]; then
    pass "maturin build: $(basename "${wheels[0]}") ($(du -k "${wheels[0]}" | cut -f1) KiB)"
else
    die "maturin build: expected one forgelint-$VERSION wheel in $WHEELS" "$WORK/build.log"
fi
# The wheel holds the binary and its metadata, nothing else.
"$PY" - "${wheels[0]}" >"$WORK/wheel-files.txt" 2>&1 <<'PY'
import sys, zipfile
print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))
PY
if [ "$(grep -vcE '^forgelint-[^/]+\.dist-info/' "$WORK/wheel-files.txt")" -eq 1 ] &&
    has "$WORK/wheel-files.txt" '^forgelint-[^/]+\.data/scripts/forgelint$'; then
    pass "the wheel holds the forgelint binary (.data/scripts/forgelint) and its metadata only"
else
    fail "the wheel's files" "$WORK/wheel-files.txt"
fi

# --- the wheel in a fresh virtualenv --------------------------------------------------------------
echo "== installing the wheel into a fresh virtualenv (no index)"
{
    python3 -m venv "$WORK/fresh" &&
        PIP_DISABLE_PIP_VERSION_CHECK=1 "$WORK/fresh/bin/python" -m pip install -q \
            --no-index --find-links "$WHEELS" "forgelint==$VERSION"
} >"$WORK/fresh.log" 2>&1 || die "pip install the wheel into a fresh virtualenv" "$WORK/fresh.log"
FORGELINT="$WORK/fresh/bin/forgelint"
export NO_COLOR=1

"$FORGELINT" --version >"$WORK/version.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ "$(cat "$WORK/version.log")" = "forgelint $VERSION" ]; then
    pass "pip install: forgelint --version prints 'forgelint $VERSION'"
else
    fail "pip install: forgelint --version (exit $rc)" "$WORK/version.log"
fi

"$FORGELINT" fixtures/demo >"$WORK/demo.log" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && has "$WORK/demo.log" 'gpu-quota' &&
    has "$WORK/demo.log" 'fixtures/demo/specs/grpo-70b\.jobspec\.json:[0-9]+:[0-9]+'; then
    pass "pip install: forgelint fixtures/demo exits 1 with findings (gpu-quota in specs/grpo-70b.jobspec.json)"
else
    fail "pip install: forgelint fixtures/demo (exit $rc, expected 1 with a gpu-quota finding)" "$WORK/demo.log"
fi

"$FORGELINT" --no-config rules/reference/jobspec.json >"$WORK/clean.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
    pass "pip install: forgelint --no-config rules/reference/jobspec.json exits 0"
else
    fail "pip install: forgelint --no-config on the reference spec (exit $rc, expected 0)" "$WORK/clean.log"
fi

# --- the README's install routes, as written ------------------------------------------------------
echo "== the README's install commands, in a fresh copy of the repository"
CLONE="$WORK/readme-clone"
copy_work_tree "$CLONE" || die "setup: copy the work tree of $ROOT"
TARGET_DIR="$(cargo metadata --no-deps --format-version 1 --manifest-path "$ROOT/Cargo.toml" |
    "$PY" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
# The blocks: the `sh` blocks of "## Install" before "What the first release adds".
"$PY" - "$ROOT/README.md" "$WORK/readme-install" <<'PY' || die "setup: find the README's install blocks"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("\n## Install\n", 1)[1].split("**What the first release adds**", 1)[0]
blocks = re.findall(r"^```sh\n(.*?)^```", section, re.S | re.M)
assert len(blocks) == 2, blocks
for i, block in enumerate(blocks):
    open(f"{sys.argv[2]}-{i}.sh", "w").write(block)
PY
for i in 0 1; do
    start="$(now)"
    (cd "$CLONE" && CARGO_TARGET_DIR="$TARGET_DIR" CARGO_INSTALL_ROOT="$WORK/cargo-root" \
        PIP_DISABLE_PIP_VERSION_CHECK=1 bash -euo pipefail "$WORK/readme-install-$i.sh") \
        >"$WORK/readme-install-$i.log" 2>&1
    rc=$?
    echo "   README install block $((i + 1)): exit $rc after $(since "$start") s"
    if [ "$rc" -ne 0 ]; then fail "README install block $((i + 1)) (exit $rc)" "$WORK/readme-install-$i.log"; fi
done
if [ "$("$WORK/cargo-root/bin/forgelint" --version 2>&1)" = "forgelint $VERSION" ]; then
    pass "README: cargo install --locked --path . installs forgelint $VERSION"
else
    fail "README: cargo install --locked --path . did not install forgelint $VERSION" "$WORK/readme-install-0.log"
fi
if [ "$(tail -n 1 "$WORK/readme-install-1.log")" = "forgelint $VERSION" ] &&
    [ -n "$(find "$CLONE/dist" -name "forgelint-$VERSION-*.whl" 2>/dev/null)" ]; then
    pass "README: the wheel built with maturin from PyPI installs and runs (forgelint $VERSION)"
else
    fail "README: the maturin wheel route" "$WORK/readme-install-1.log"
fi

# --- the setuptools wheel that builds the mirror's metadata-only package --------------------------
BACKEND="$WORK/backend"
"$WORK/venv/bin/python" -m pip download -q --disable-pip-version-check --only-binary :all: --no-deps \
    -d "$BACKEND" 'setuptools>=70.1' >"$WORK/backend.log" 2>&1 ||
    die "setup: download a setuptools wheel (the mirror's build backend)" "$WORK/backend.log"

# --- snapshot of packaging/pre-commit (before git is isolated from the user's config) -------------
echo "== snapshotting packaging/pre-commit as the mirror repository"
MIRROR="$WORK/mirror"
copy_work_tree "$WORK/mirror-tree" packaging/pre-commit &&
    mv "$WORK/mirror-tree/packaging/pre-commit" "$MIRROR" ||
    die "setup: copy packaging/pre-commit (is $ROOT a git repository?)"

# From here on git sees only this script's settings: no signing, hooksPath or templates of the user.
export GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL="$WORK/gitconfig"
git config --global user.name "forgelint integration test"
git config --global user.email "forgelint-test@example.invalid"
git config --global init.defaultBranch main
git config --global commit.gpgsign false
git config --global advice.detachedHead false

(cd "$MIRROR" && git init -q && git add -A && git commit -q -m "forgelint pre-commit mirror") \
    >"$WORK/snapshot.log" 2>&1 || die "setup: commit the mirror snapshot" "$WORK/snapshot.log"
MIRROR_REV="$(git -C "$MIRROR" rev-parse HEAD)"

export PRE_COMMIT_HOME="$WORK/pre-commit-home"
# pip, as pre-commit runs it, sees only the built wheel and the build backend.
export PIP_FIND_LINKS="$WHEELS $BACKEND"
export PIP_NO_INDEX=1
export PIP_DISABLE_PIP_VERSION_CHECK=1
export PIP_NO_CACHE_DIR=1

# --- the lab repository ---------------------------------------------------------------------------
LAB="$WORK/lab"
mkdir -p "$LAB/broken" "$LAB/specs"
cd "$LAB" || die "setup: cd $LAB"
git init -q
cp "$ROOT/rules/reference/jobspec.json" specs/clean.jobspec.json
git add specs
git commit -q -m "a clean spec" >"$WORK/lab-commit.log" 2>&1 ||
    die "setup: commit in the lab repository" "$WORK/lab-commit.log"
# The reference spec with the old API version: one api-version error at line 2. Staged, not committed.
sed 's|"apiVersion": "forge/v2"|"apiVersion": "forge/v1"|' "$ROOT/rules/reference/jobspec.json" \
    >broken/jobspec.json
grep -q '"forge/v1"' broken/jobspec.json || die "setup: write broken/jobspec.json"
git add broken

PASSED_LINE='^forgelint\.+Passed$'
FAILED_LINE='^forgelint\.+Failed$'

# --- try-repo on a broken spec: installs the hook -------------------------------------------------
echo "== pre-commit try-repo <mirror> forgelint on a broken spec (installs the hook from the wheel)"
start="$(now)"
"$PRE_COMMIT" try-repo --color never "$MIRROR" forgelint --ref "$MIRROR_REV" \
    --files broken/jobspec.json >"$WORK/try-broken.log" 2>&1
rc=$?
install_time="$(since "$start")"
echo "   exit $rc after $install_time s"
if [ "$rc" -eq 1 ] && has "$WORK/try-broken.log" "$FAILED_LINE"; then
    pass "try-repo (wheel): the hook fails on broken/jobspec.json"
else
    fail "try-repo (wheel) on a broken spec (exit $rc, expected 1 and 'forgelint....Failed')" "$WORK/try-broken.log"
fi
if has "$WORK/try-broken.log" 'api-version' && has "$WORK/try-broken.log" 'broken/jobspec\.json:2:'; then
    pass "try-repo (wheel): reports api-version at broken/jobspec.json:2"
else
    fail "try-repo (wheel): no api-version finding for broken/jobspec.json" "$WORK/try-broken.log"
fi

# --- try-repo on a clean spec ---------------------------------------------------------------------
echo "== pre-commit try-repo <mirror> forgelint on a clean spec"
start="$(now)"
"$PRE_COMMIT" try-repo --color never "$MIRROR" forgelint --ref "$MIRROR_REV" \
    --files specs/clean.jobspec.json >"$WORK/try-clean.log" 2>&1
rc=$?
echo "   exit $rc after $(since "$start") s"
if [ "$rc" -eq 0 ] && has "$WORK/try-clean.log" "$PASSED_LINE"; then
    pass "try-repo (wheel): the hook passes specs/clean.jobspec.json"
else
    fail "try-repo (wheel) on a clean spec (exit $rc, expected 0 and 'forgelint....Passed')" "$WORK/try-clean.log"
fi

# --- the installed hook guards `git commit` -------------------------------------------------------
cat >.pre-commit-config.yaml <<EOF
repos:
  - repo: $MIRROR
    rev: $MIRROR_REV
    hooks:
      - id: forgelint
EOF
git add .pre-commit-config.yaml
"$PRE_COMMIT" install >"$WORK/install.log" 2>&1 || die "setup: pre-commit install" "$WORK/install.log"
echo "== git commit of the broken spec through the installed hook"
before="$(git rev-parse HEAD)"
git commit -m "add a broken spec" >"$WORK/commit-broken.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$(git rev-parse HEAD)" = "$before" ] &&
    has "$WORK/commit-broken.log" "$FAILED_LINE" && has "$WORK/commit-broken.log" 'api-version'; then
    pass "pre-commit install: git commit of a broken spec is refused with forgelint's findings"
else
    fail "pre-commit install: git commit of a broken spec (exit $rc) was not refused" "$WORK/commit-broken.log"
fi
# The hook's environment (in PRE_COMMIT_HOME, unlike try-repo's temporary store) runs the very
# binary of the built wheel, which the fresh virtualenv holds too.
hook_bins=()
while IFS= read -r -d '' f; do hook_bins+=("$f"); done < <(find "$PRE_COMMIT_HOME" -path '*/bin/forgelint' -type f -print0)
if [ "${#hook_bins[@]}" -eq 1 ] && cmp -s "${hook_bins[0]}" "$FORGELINT"; then
    pass "pre-commit install: the hook's environment holds the built wheel's binary"
else
    fail "pre-commit install: ${#hook_bins[@]} forgelint binaries in the pre-commit store, expected the wheel's one"
fi

echo "hook install (wheel): $install_time s"
if [ -n "${FORGELINT_HOOK_TIMES:-}" ] && [ -f "$FORGELINT_HOOK_TIMES" ]; then
    source_time="$(sed -n 's/^build from source: //p' "$FORGELINT_HOOK_TIMES" | tail -n 1)"
    if [ -n "$source_time" ]; then
        echo "hook install (build from source, tests/integration/precommit.sh): $source_time s"
    fi
fi

finish
