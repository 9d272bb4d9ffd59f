#!/usr/bin/env bash
# Proves the `forgelint` hook of .pre-commit-hooks.yaml with the real pre-commit.
#
#   bash tests/integration/precommit.sh
#
# 1. pre-commit goes into a throw-away virtualenv (pip, PyPI).
# 2. The forgelint repository is snapshotted as a one-commit git repository: every tracked and
#    untracked-but-not-ignored file of the working tree, so a clean clone and a work tree with
#    uncommitted changes behave the same (`try-repo` alone would miss untracked files).
# 3. A throw-away "lab" repository gets clean and broken specs, and:
#    - `pre-commit try-repo … forgelint --all-files` passes on the clean specs and leaves alone a
#      broken JSON file that is not a job spec (the hook passes every file; forgelint keeps those
#      its walk would lint, --discovered-only);
#    - `pre-commit try-repo … forgelint --files <broken specs>` fails with forgelint's diagnostics;
#    - the hook installed with `pre-commit install` blocks a `git commit` of a broken spec and lets
#      a clean one through; `forgelint-fix` in its place fixes what it safely can;
#    - in a monorepo, a Hugging Face token in `labs/vision/experiments/seg/config.yaml` under the
#      lab's own forgelint.toml blocks the commit, and so does a host path in a folder a lab's
#      custom `[files] experiments` glob names; the commit prints one summary.
#
# pre-commit builds forgelint with `cargo install --path .` (language: rust, the system toolchain),
# once per pre-commit store: `try-repo` always uses a fresh store, so the three scenarios build it
# three times. CARGO_TARGET_DIR is shared between them so that the dependencies compile only once.
# Needs git, python3 with venv, cargo, and PyPI + crates.io. KEEP_WORK=1 keeps the temporary folder.
# Prints PASS/FAIL per check and ends with "N passed, M failed"; exits 1 on any failure.
set -uo pipefail

# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
integration_setup precommit
# has LOG REGEX: LOG has a line matching the extended REGEX.
has() { grep -Eq -- "$2" "$1"; }

for tool in git python3 cargo tar; do
    command -v "$tool" >/dev/null 2>&1 || die "setup: '$tool' is not on PATH"
done
[ -f "$ROOT/.pre-commit-hooks.yaml" ] || die "setup: $ROOT/.pre-commit-hooks.yaml is missing"

# --- pre-commit in a virtualenv -------------------------------------------------------------------
venv_install 'pre-commit>=3.2,<5'
PRE_COMMIT="$WORK/venv/bin/pre-commit"
echo "   $("$PRE_COMMIT" --version), $(cargo --version), $(git --version)"

# --- snapshot of the forgelint work tree (before git is isolated from the user's config) ----------
echo "== snapshotting $ROOT"
HOOK_REPO="$WORK/forgelint-repo"
copy_work_tree "$HOOK_REPO" || die "setup: copy the work tree of $ROOT (is it a git repository?)"

# From here on git sees only this script's settings: no signing, hooksPath or templates of the user.
export GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL="$WORK/gitconfig"
git config --global user.name "forgelint integration test"
git config --global user.email "forgelint-test@example.invalid"
git config --global init.defaultBranch main
git config --global commit.gpgsign false
git config --global advice.detachedHead false

(cd "$HOOK_REPO" && git init -q && git add -A && git commit -q -m "forgelint snapshot") \
    >"$WORK/snapshot.log" 2>&1 || die "setup: commit the snapshot" "$WORK/snapshot.log"
HOOK_REV="$(git -C "$HOOK_REPO" rev-parse HEAD)"

export PRE_COMMIT_HOME="$WORK/pre-commit-home"
export CARGO_TARGET_DIR="$WORK/cargo-target"
export NO_COLOR=1

# --- the lab repository ---------------------------------------------------------------------------
LAB="$WORK/lab"
mkdir -p "$LAB/experiments/my-grpo" "$LAB/specs" "$LAB/notes"
cd "$LAB" || die "setup: cd $LAB"
git init -q
cp "$ROOT/rules/reference/jobspec.json" jobspec.json
echo 'print("train")' >experiments/my-grpo/train.py
# Writes the reference spec with one change: a second clean spec, and the two broken ones.
python3 - "$ROOT/rules/reference/jobspec.json" <<'PY' || die "setup: write the lab's specs"
import json, sys

ref = json.load(open(sys.argv[1]))

sft = json.loads(json.dumps(ref))
sft["metadata"]["name"] = "sft-gsm8k-0413"
open("specs/sft.jobspec.json", "w").write(json.dumps(sft, indent=2) + "\n")

v1 = json.loads(json.dumps(ref))
v1["apiVersion"] = "forge/v1"
text = json.dumps(v1, indent=2) + "\n"
open("wrong-api.jobspec.json", "w").write(text)
# Not a job spec name: the hook must never see it.
open("notes/jobspec.json.bak", "w").write(text)

trailing = json.dumps(ref, indent=2)
assert trailing.endswith("\n}")
open("trailing-comma.jobspec.json", "w").write(trailing[: -len("\n}")] + ",\n}\n")
PY
# Broken JSON, but not a job spec: the hook must never see it.
printf '{"name": "not-a-spec",}\n' >package.json
mkdir -p broken
mv wrong-api.jobspec.json broken/jobspec.json
mv trailing-comma.jobspec.json broken/train.jobspec.json
git add jobspec.json specs experiments notes package.json
git commit -q -m "clean specs" >"$WORK/lab-commit.log" 2>&1 ||
    die "setup: first commit in the lab repository" "$WORK/lab-commit.log"

PASSED_LINE='^forgelint\.+Passed$'
FAILED_LINE='^forgelint\.+Failed$'
FIX_FAILED_LINE='^forgelint \(fix\)\.+Failed$'

# --- 1. try-repo on the clean tree ----------------------------------------------------------------
echo "== pre-commit try-repo --all-files on clean specs (builds forgelint: a few minutes)"
start=$SECONDS
"$PRE_COMMIT" try-repo --color never "$HOOK_REPO" forgelint --ref "$HOOK_REV" --all-files \
    >"$WORK/try-clean.log" 2>&1
rc=$?
echo "   exit $rc after $((SECONDS - start)) s"
# The hook's installation time (a build from source), for wheel.sh to print beside the wheel's.
if [ -n "${FORGELINT_HOOK_TIMES:-}" ]; then
    echo "build from source: $((SECONDS - start))" >>"$FORGELINT_HOOK_TIMES"
fi
if [ "$rc" -eq 0 ] && has "$WORK/try-clean.log" "$PASSED_LINE"; then
    pass "try-repo --all-files: clean jobspec.json and specs/sft.jobspec.json pass; package.json and notes/jobspec.json.bak are not linted"
else
    fail "try-repo --all-files on clean specs (exit $rc, expected 0 and 'forgelint....Passed')" "$WORK/try-clean.log"
fi

# --- 2. try-repo on broken specs ------------------------------------------------------------------
git add broken
echo "== pre-commit try-repo --files on broken specs (builds forgelint again)"
start=$SECONDS
"$PRE_COMMIT" try-repo --color never "$HOOK_REPO" forgelint --ref "$HOOK_REV" \
    --files broken/jobspec.json broken/train.jobspec.json jobspec.json >"$WORK/try-broken.log" 2>&1
rc=$?
echo "   exit $rc after $((SECONDS - start)) s"
if [ "$rc" -eq 1 ] && has "$WORK/try-broken.log" "$FAILED_LINE"; then
    pass "try-repo --files: the hook fails on broken specs"
else
    fail "try-repo --files on broken specs (exit $rc, expected 1 and 'forgelint....Failed')" "$WORK/try-broken.log"
fi
if has "$WORK/try-broken.log" 'api-version' && has "$WORK/try-broken.log" 'broken/jobspec\.json:2:'; then
    pass "try-repo --files: reports api-version at broken/jobspec.json:2"
else
    fail "try-repo --files: no api-version finding for broken/jobspec.json" "$WORK/try-broken.log"
fi
if has "$WORK/try-broken.log" 'invalid-json' && has "$WORK/try-broken.log" 'broken/train\.jobspec\.json:[0-9]+:'; then
    pass "try-repo --files: reports invalid-json (trailing comma) in broken/train.jobspec.json"
else
    fail "try-repo --files: no invalid-json finding for broken/train.jobspec.json" "$WORK/try-broken.log"
fi
if ! has "$WORK/try-broken.log" '(^|[^/.[:alnum:]_-])jobspec\.json:[0-9]+:[0-9]+'; then
    pass "try-repo --files: the clean jobspec.json passed alongside has no finding"
else
    fail "try-repo --files: the clean jobspec.json has a finding" "$WORK/try-broken.log"
fi

# --- 2b. a staged experiment file -----------------------------------------------------------------
echo 'CORPUS = "/mnt/shared/handbook"' >experiments/my-grpo/data.py
git add experiments/my-grpo/data.py
echo "== pre-commit try-repo --files on an experiment file with a hard-coded mount"
"$PRE_COMMIT" try-repo --color never "$HOOK_REPO" forgelint --ref "$HOOK_REV" \
    --files experiments/my-grpo/data.py jobspec.json >"$WORK/try-experiment.log" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && has "$WORK/try-experiment.log" 'exp-host-path' &&
    has "$WORK/try-experiment.log" 'experiments/my-grpo/data\.py:1:10'; then
    pass "try-repo --files: reports exp-host-path at experiments/my-grpo/data.py:1:10"
else
    fail "try-repo --files: no exp-host-path finding for experiments/my-grpo/data.py (exit $rc)" "$WORK/try-experiment.log"
fi
if [ "$(grep -c 'exp-host-path' "$WORK/try-experiment.log")" -eq 1 ]; then
    pass "try-repo --files: the file named and the experiment the spec names give one finding"
else
    fail "try-repo --files: exp-host-path reported more than once" "$WORK/try-experiment.log"
fi
git rm -q --cached experiments/my-grpo/data.py && rm experiments/my-grpo/data.py

# --- 3. the installed hook guards `git commit` ----------------------------------------------------
# use_hook ID: the lab's .pre-commit-config.yaml runs that one hook (staged: pre-commit refuses an
# unstaged config).
use_hook() {
    cat >.pre-commit-config.yaml <<EOF
repos:
  - repo: $HOOK_REPO
    rev: $HOOK_REV
    hooks:
      - id: $1
EOF
    git add .pre-commit-config.yaml
}
use_hook forgelint
"$PRE_COMMIT" install >"$WORK/install.log" 2>&1 || die "setup: pre-commit install" "$WORK/install.log"
echo "== git commit through the installed hook (builds forgelint into PRE_COMMIT_HOME)"
before="$(git rev-parse HEAD)"
start=$SECONDS
git commit -m "add broken specs" >"$WORK/commit-broken.log" 2>&1
rc=$?
echo "   exit $rc after $((SECONDS - start)) s"
if [ "$rc" -ne 0 ] && [ "$(git rev-parse HEAD)" = "$before" ] &&
    has "$WORK/commit-broken.log" "$FAILED_LINE" && has "$WORK/commit-broken.log" 'api-version'; then
    pass "pre-commit install: git commit of broken specs is refused with forgelint's findings"
else
    fail "pre-commit install: git commit of broken specs (exit $rc) was not refused" "$WORK/commit-broken.log"
fi

git rm -q -r --cached broken && rm -rf broken
git commit -m "add the pre-commit config" >"$WORK/commit-clean.log" 2>&1
rc=$?
# Only the config is staged: forgelint is given it, finds nothing to lint, and passes.
python3 - <<'PY'
import json
d = json.load(open("specs/sft.jobspec.json"))
d["metadata"]["labels"]["stage"] = "sft"
open("specs/sft.jobspec.json", "w").write(json.dumps(d, indent=2) + "\n")
PY
git add specs/sft.jobspec.json
git commit -m "label the sft spec" >>"$WORK/commit-clean.log" 2>&1
rc2=$?
if [ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] && has "$WORK/commit-clean.log" "$PASSED_LINE" &&
    [ -z "$(git status --porcelain --untracked-files=no)" ]; then
    pass "pre-commit install: git commit of a clean spec goes through"
else
    fail "pre-commit install: git commit of a clean spec (exit $rc, $rc2)" "$WORK/commit-clean.log"
fi

# --- 4. the forgelint-fix hook fixes what it safely can -------------------------------------------
# An owner is the one safe fix: the hook removes it, fails the commit (pre-commit's rule for a
# hook that changed files), and the fixed file, staged again, commits.
use_hook forgelint-fix
git commit -q -m "fix on commit" >"$WORK/commit-use-fix.log" 2>&1 ||
    die "setup: commit the forgelint-fix config" "$WORK/commit-use-fix.log"
python3 - <<'PY'
import json
d = json.load(open("specs/sft.jobspec.json"))
d["metadata"]["owner"] = "bob@lab"
open("specs/sft.jobspec.json", "w").write(json.dumps(d, indent=2) + "\n")
PY
git add specs/sft.jobspec.json
before="$(git rev-parse HEAD)"
git commit -m "set an owner" >"$WORK/commit-fix.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$(git rev-parse HEAD)" = "$before" ] &&
    has "$WORK/commit-fix.log" "$FIX_FAILED_LINE" &&
    has "$WORK/commit-fix.log" 'files were modified by this hook' &&
    ! grep -q '"owner"' specs/sft.jobspec.json; then
    pass "forgelint-fix: removes the owner, and the commit stops to have the fix staged"
else
    fail "forgelint-fix: the owner was not fixed (exit $rc)" "$WORK/commit-fix.log"
fi
git add specs/sft.jobspec.json
git commit -m "set an owner, fixed" >>"$WORK/commit-fix.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ "$(git rev-parse HEAD)" != "$before" ]; then
    pass "forgelint-fix: the fixed spec commits"
else
    fail "forgelint-fix: the fixed spec did not commit (exit $rc)" "$WORK/commit-fix.log"
fi

# --- 5. a monorepo: nested configs, experiments at any depth, custom experiment globs -------------
use_hook forgelint
git commit -q -m "lint on commit" >"$WORK/commit-use-lint.log" 2>&1 ||
    die "setup: commit the forgelint config" "$WORK/commit-use-lint.log"
mkdir -p labs/vision/experiments/seg labs/nlp/runs/a
printf '# The vision lab: the platform defaults.\n' >labs/vision/forgelint.toml
printf 'model: segformer\nhub:\n  token: hf_QpZkVbXwLmNrTsYuCdEfGhJaKoPiUyTrEwQl\n' \
    >labs/vision/experiments/seg/config.yaml
git add labs/vision
echo "== git commit of a nested experiment's config with a Hugging Face token"
before="$(git rev-parse HEAD)"
git commit -m "add the segmentation experiment" >"$WORK/commit-monorepo.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$(git rev-parse HEAD)" = "$before" ] &&
    has "$WORK/commit-monorepo.log" "$FAILED_LINE" &&
    has "$WORK/commit-monorepo.log" 'labs/vision/experiments/seg/config\.yaml:3:10' &&
    has "$WORK/commit-monorepo.log" 'exp-secret' &&
    ! grep -q 'pZkVbXwLm' "$WORK/commit-monorepo.log"; then
    pass "monorepo: a token in labs/vision/experiments/seg/config.yaml (nested forgelint.toml) blocks the commit, masked"
else
    fail "monorepo: the nested experiment's token was not reported (exit $rc)" "$WORK/commit-monorepo.log"
fi
if [ "$(grep -cE '^(Found|All clear|No findings)' "$WORK/commit-monorepo.log")" -eq 1 ]; then
    pass "monorepo: one forgelint process for the commit, one summary"
else
    fail "monorepo: expected one summary line" "$WORK/commit-monorepo.log"
fi
git rm -q -r --cached labs/vision && rm -rf labs/vision

printf '[files]\nexperiments = ["runs/*"]\n' >labs/nlp/forgelint.toml
printf 'CORPUS = "/lustre/corpora/handbook"\n' >labs/nlp/runs/a/train.py
printf '# notes\n' >labs/nlp/NOTES.md
git add labs/nlp
echo "== git commit of a file in a folder a custom [files] experiments glob names"
before="$(git rev-parse HEAD)"
git commit -m "add an nlp run" >"$WORK/commit-glob.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$(git rev-parse HEAD)" = "$before" ] &&
    has "$WORK/commit-glob.log" 'labs/nlp/runs/a/train\.py:1:10' &&
    has "$WORK/commit-glob.log" 'exp-host-path' &&
    ! has "$WORK/commit-glob.log" 'NOTES\.md'; then
    pass "monorepo: [files] experiments = [\"runs/*\"] in labs/nlp/forgelint.toml is honoured"
else
    fail "monorepo: the custom experiments glob was not honoured (exit $rc)" "$WORK/commit-glob.log"
fi
printf 'import os\nCORPUS = os.environ["DOCS_DIR"]\n' >labs/nlp/runs/a/train.py
git add labs/nlp
git commit -m "add an nlp run, reading DOCS_DIR" >>"$WORK/commit-glob.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && has "$WORK/commit-glob.log" "$PASSED_LINE"; then
    pass "monorepo: the fixed run commits"
else
    fail "monorepo: the fixed run did not commit (exit $rc)" "$WORK/commit-glob.log"
fi

finish
