#!/usr/bin/env bash
# Runs the composite action in action.yml locally, the way the runner does, and checks what it does.
#
#   bash tests/integration/action.sh
#
# A small harness reads action.yml, fills in its inputs (with the declared defaults), evaluates the
# `${{ inputs.* }}` / `${{ steps.*.outputs.* }}` expressions of env: and with:, and runs every `run:`
# step as GitHub does (`bash --noprofile --norc -eo pipefail FILE`, a fresh GITHUB_OUTPUT per step,
# GITHUB_ACTION_PATH = this repository, RUNNER_OS=Linux, RUNNER_ARCH=X64). `uses:` steps
# (actions/cache) are skipped.
#
# The install step is tested against release folders laid out here as
# .github/workflows/release.yml lays out a release (`vX.Y.Z/forgelint-vX.Y.Z-TARGET.tar.gz` and its
# `.sha256`, X.Y.Z being Cargo.toml's version), given to the action as `download-url: file://…`;
# the archive holds this checkout's debug build (`cargo build`), as the install step is what is
# tested. A good release installs without cargo on PATH; a checksum that does not match stops the
# job; no release and no cargo is a clear error; no release builds from source with
# `cargo install --locked --path` (a release build: a few minutes). RUNNER_TEMP is kept across the
# lint scenarios, like the steps of one job: the later ones take the installed binary.
#
# Needs git, python3 with venv (PyYAML goes into a throw-away virtualenv), curl, sha256sum, tar,
# cargo.
# Prints PASS/FAIL per check and ends with "N passed, M failed"; exits 1 on any failure.
set -uo pipefail

# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
integration_setup action

venv_install 'PyYAML>=6,<7'
PY="$WORK/venv/bin/python"

cat >"$WORK/run_action.py" <<'PY'
"""run_action.py ACTION_YML WORKSPACE RUNNER_TEMP RESULT_JSON [NAME=VALUE]...

Runs a composite action's `run:` steps like the GitHub runner; writes a JSON result:
{"steps": [{"name", "id", "status", "exit", "skipped"}], "outputs": {...}, "summary": "..."}.
The combined stdout/stderr of the steps goes to this process's stdout (the job log).
"""
import json, os, re, subprocess, sys, tempfile
import yaml

action_yml, workspace, runner_temp, result_path, *pairs = sys.argv[1:]
action = yaml.safe_load(open(action_yml, encoding="utf-8"))
given = dict(p.split("=", 1) for p in pairs)
inputs = {name: str(spec.get("default", "")) for name, spec in action.get("inputs", {}).items()}
unknown = set(given) - set(inputs)
if unknown:
    sys.exit(f"unknown inputs: {sorted(unknown)}")
inputs.update(given)
for k, v in inputs.items():  # runner: \\n-escaped values from the harness command line
    inputs[k] = v.replace("\\n", "\n")
steps_outputs = {}
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def value(expr):
    m = re.fullmatch(r"inputs\.([\w-]+)", expr)
    if m:
        return inputs[m[1]]
    m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
    if m:
        return steps_outputs.get(m[1], {}).get(m[2], "")
    if expr == "github.action_path":
        return os.path.dirname(os.path.abspath(action_yml))
    if expr == "runner.temp":
        return runner_temp
    raise SystemExit(f"harness: unsupported expression {expr!r}")


def render(text):
    return EXPR.sub(lambda m: value(m[1]), str(text))


def condition(expr):
    """`A == 'x'`, `A != 'x'`, joined by `&&`."""
    expr = EXPR.sub(lambda m: m[1], str(expr)).strip()
    result = True
    for part in expr.split("&&"):
        m = re.fullmatch(r"([\w.-]+)\s*(==|!=)\s*'([^']*)'", part.strip())
        if not m:
            raise SystemExit(f"harness: unsupported if: {expr!r}")
        result = result and ((value(m[1]) == m[3]) == (m[2] == "=="))
    return result


def parse_output_file(path):
    out, lines, i = {}, open(path, encoding="utf-8").read().split("\n"), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delim = line.split("<<", 1)
            body = []
            while lines[i] != delim:
                body.append(lines[i])
                i += 1
            i += 1
            out[key] = "\n".join(body)
        else:
            key, val = line.split("=", 1)
            out[key] = val
    return out


env_base = dict(os.environ)
env_base.update({
    "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": workspace,
    "GITHUB_ACTION_PATH": os.path.dirname(os.path.abspath(action_yml)),
    "RUNNER_TEMP": runner_temp, "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64",
    "GITHUB_STEP_SUMMARY": os.path.join(runner_temp, "step-summary.md"),
})
open(env_base["GITHUB_STEP_SUMMARY"], "w").close()
result = {"steps": []}
failed = False
for step in action["runs"]["steps"]:
    record = {"name": step.get("name"), "id": step.get("id"), "skipped": False, "exit": None}
    result["steps"].append(record)
    if failed or "uses" in step or ("if" in step and not condition(step["if"])):
        record["skipped"] = True
        print(f"## skipped: {step.get('name') or step.get('uses')}", flush=True)
        continue
    assert step.get("shell") == "bash", "this harness runs bash steps only"
    print(f"## step: {step.get('name')}", flush=True)
    env = dict(env_base)
    env.update({k: render(v) for k, v in (step.get("env") or {}).items()})
    fd, out_file = tempfile.mkstemp(prefix="output-", dir=runner_temp)
    os.close(fd)
    env["GITHUB_OUTPUT"] = out_file
    fd, script = tempfile.mkstemp(prefix="step-", suffix=".sh", dir=runner_temp)
    with os.fdopen(fd, "w") as f:
        f.write(step["run"])  # GitHub does not expand ${{ }} inside run: here — we refuse it
    if "${{" in step["run"]:
        raise SystemExit(f"harness: step {step.get('name')!r} has ${{{{ }}}} in its script")
    cwd = os.path.join(workspace, render(step.get("working-directory", ".")))
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                          cwd=cwd, env=env, stdin=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    sys.stdout.flush()
    record["exit"] = proc.returncode
    if step.get("id"):
        steps_outputs[step["id"]] = parse_output_file(out_file)
    if proc.returncode != 0:
        failed = True
result["outputs"] = {k: render(spec["value"]) for k, spec in action.get("outputs", {}).items()}
result["summary"] = open(env_base["GITHUB_STEP_SUMMARY"], encoding="utf-8").read()
result["failed"] = failed
json.dump(result, open(result_path, "w"), indent=2)
PY

RUNNER_TEMP_DIR="$WORK/runner-temp"
mkdir -p "$RUNNER_TEMP_DIR"

# run_action NAME WORKSPACE [input=value]...: runs the action; the job log goes to $WORK/NAME.log and
# the result to $WORK/NAME.json. RUNNER_TEMP is $RT when set (a job of its own), else the shared one.
run_action() {
    local name="$1" ws="$2"
    shift 2
    mkdir -p "${RT:-$RUNNER_TEMP_DIR}"
    "$PY" "$WORK/run_action.py" "$ROOT/action.yml" "$ws" "${RT:-$RUNNER_TEMP_DIR}" "$WORK/$name.json" "$@" \
        >"$WORK/$name.log" 2>&1
}
step_exit() { get "$1" "[s['exit'] for s in r['steps'] if s['name'] == '$2'][0]"; }
step_skipped() { get "$1" "[s['skipped'] for s in r['steps'] if s['name'] == '$2'][0]"; }
# get NAME EXPR: a Python expression over the result `r` of scenario NAME, printed.
get() { "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$WORK/$1.json" "$2"; }
lint_exit() { get "$1" '[s["exit"] for s in r["steps"] if s["id"] == "lint"][0]'; }
out() { get "$1" "r['outputs']['$2']"; }

# --- workspaces ------------------------------------------------------------------------------------
LAB="$WORK/lab"
mkdir -p "$LAB/experiments/my-grpo" "$LAB/specs"
echo 'print("train")' >"$LAB/experiments/my-grpo/train.py"
"$PY" - "$ROOT/rules/reference/jobspec.json" "$LAB" <<'PY' || { fail "setup: write the specs"; finish; }
import json, os, sys
ref = json.load(open(sys.argv[1]))
lab = sys.argv[2]
def write(rel, doc=None, text=None):
    path = os.path.join(lab, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write(text if text is not None else json.dumps(doc, indent=2) + "\n")
write("jobspec.json", ref)
sft = json.loads(json.dumps(ref)); sft["metadata"]["name"] = "sft-gsm8k-0413"
write("specs/sft.jobspec.json", sft)
v1 = json.loads(json.dumps(ref)); v1["apiVersion"] = "forge/v1"
write("broken/jobspec.json", v1)
write("broken/train.jobspec.json", text=json.dumps(ref, indent=2)[:-2] + ",\n}\n")
dirty = json.loads(json.dumps(ref)); dirty["provenance"]["git_dirty"] = True
write("dirty/jobspec.json", dirty)
PY
printf '[severity]\ngit-dirty = "error"\n' >"$LAB/strict.toml"

# --- release folders: good, tampered, none --------------------------------------------------------
VERSION="$(sed -n '/^\[package\]/,/^\[/{s/^version *= *"\([^"]*\)".*/\1/p;}' "$ROOT/Cargo.toml" | head -n 1)"
TARGET=x86_64-unknown-linux-gnu
NAME="forgelint-v$VERSION-$TARGET"
echo "== laying out release v$VERSION for $TARGET (cargo build: the debug binary of this checkout)"
(cd "$ROOT" && cargo build --locked --quiet) >"$WORK/cargo-build.log" 2>&1 || die "setup: cargo build" "$WORK/cargo-build.log"
TARGET_DIR="$(cd "$ROOT" && cargo metadata --no-deps --format-version 1 |
    "$PY" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
mkdir -p "$WORK/stage/$NAME" "$WORK/releases/good/v$VERSION" "$WORK/releases/tampered/v$VERSION" "$WORK/releases/none"
cp "$TARGET_DIR/debug/forgelint" "$ROOT/README.md" "$WORK/stage/$NAME/"
tar -czf "$WORK/releases/good/v$VERSION/$NAME.tar.gz" -C "$WORK/stage" "$NAME"
(cd "$WORK/releases/good/v$VERSION" && sha256sum "$NAME.tar.gz" >"$NAME.tar.gz.sha256")
# The same sum over an archive one byte longer.
cp "$WORK/releases/good/v$VERSION/"* "$WORK/releases/tampered/v$VERSION/"
printf 'x' >>"$WORK/releases/tampered/v$VERSION/$NAME.tar.gz"
GOOD="file://$WORK/releases/good"
# PATH without cargo (nor rustup's proxies): the release path needs no Rust toolchain.
NO_CARGO_PATH="$(printf '%s' "$PATH" | tr ':' '\n' | while IFS= read -r d; do
    [ -n "$d" ] && [ ! -e "$d/cargo" ] && printf '%s:' "$d"; done)"
NO_CARGO_PATH="${NO_CARGO_PATH%:}"
if PATH="$NO_CARGO_PATH" command -v cargo >/dev/null; then die "setup: cargo is still on the PATH without it"; fi

# --- 0. the install step's failures ---------------------------------------------------------------
RT="$WORK/rt-tampered" run_action tampered "$LAB" paths=specs "download-url=file://$WORK/releases/tampered"
if [ "$(step_exit tampered 'Install forgelint from its release')" = 1 ] &&
    grep -q "^::error title=forgelint::the SHA-256 of file://.*$NAME.tar.gz is [0-9a-f]\{64\}, not [0-9a-f]\{64\}" "$WORK/tampered.log" &&
    [ ! -e "$WORK/rt-tampered/forgelint-action/bin/forgelint" ] && [ "$(step_skipped tampered 'Run forgelint')" = True ]; then
    pass "install step: an archive whose SHA-256 differs from its .sha256 is refused (exit 1), nothing installed, nothing run"
else
    fail "install step: a tampered archive was not refused" "$WORK/tampered.log"
fi
PATH="$NO_CARGO_PATH" RT="$WORK/rt-nothing" run_action nothing "$LAB" paths=specs \
    "download-url=file://$WORK/releases/none" cache=false
if [ "$(step_exit nothing 'Install forgelint from its release')" = 0 ] &&
    grep -q "^::notice title=forgelint::no release $NAME.tar.gz at file://.*: building forgelint from source" "$WORK/nothing.log" &&
    [ "$(step_exit nothing 'Build forgelint from source')" = 2 ] &&
    grep -q "^::error title=forgelint::no release of forgelint $VERSION for this runner, and cargo is not on PATH" "$WORK/nothing.log"; then
    pass "install step: no release and no cargo is a clear error (exit 2)"
else
    fail "install step: no release and no cargo" "$WORK/nothing.log"
fi

# --- 1. clean specs, installed from the release, SARIF --------------------------------------------
echo "== clean specs; the install step fetches the laid-out release, without cargo on PATH"
PATH="$NO_CARGO_PATH" run_action clean "$LAB" paths='jobspec.json specs' sarif-file=reports/forgelint.sarif \
    "download-url=$GOOD"
if [ -x "$RUNNER_TEMP_DIR/forgelint-action/bin/forgelint" ] &&
    [ "$(step_exit clean 'Install forgelint from its release')" = 0 ] &&
    [ "$(step_skipped clean 'Build forgelint from source')" = True ] &&
    grep -q "^forgelint from the release: forgelint $VERSION ($NAME.tar.gz, SHA-256 [0-9a-f]\{64\})" "$WORK/clean.log"; then
    pass "install step: the release for Linux X64 at the action's version, SHA-256 checked, installed in RUNNER_TEMP without cargo"
else
    fail "install step did not install the release" "$WORK/clean.log"
fi
if [ "$(lint_exit clean)" = 0 ] && [ "$(out clean errors)" = 0 ] && [ "$(out clean warnings)" = 0 ] &&
    [ "$(get clean 'r["failed"]')" = False ]; then
    pass "clean specs: the action succeeds with outputs errors=0 warnings=0"
else
    fail "clean specs: expected success and 0/0 (lint exit $(lint_exit clean))" "$WORK/clean.log"
fi
if [ "$(out clean sarif-file)" = reports/forgelint.sarif ] &&
    "$PY" - "$LAB/reports/forgelint.sarif" <<'PY'; then
import json, sys
s = json.load(open(sys.argv[1]))
assert s["version"] == "2.1.0", s["version"]
assert s["runs"][0]["tool"]["driver"]["name"] == "forgelint"
assert s["runs"][0]["results"] == [], s["runs"][0]["results"]
PY
    pass "sarif-file: SARIF 2.1.0 written to reports/forgelint.sarif (folder created) and set as output"
else
    fail "sarif-file: no SARIF report / output (output: '$(out clean sarif-file)')" "$WORK/clean.log"
fi
if grep -q '0 errors, 0 warnings' "$RUNNER_TEMP_DIR/step-summary.md" 2>/dev/null; then
    pass "the job summary gets the counts"
else
    fail "no counts in the job summary" "$WORK/clean.log"
fi

# --- 2. broken specs: annotations, failure --------------------------------------------------------
run_action broken "$LAB" paths='jobspec.json broken' "download-url=$GOOD"
if [ "$(lint_exit broken)" = 1 ] && [ "$(get broken 'r["failed"]')" = True ] &&
    [ "$(out broken errors)" = 2 ] && [ "$(out broken warnings)" = 0 ] && [ -z "$(out broken sarif-file)" ]; then
    pass "broken specs: the action fails with forgelint's exit code 1, errors=2, no sarif-file"
else
    fail "broken specs: expected exit 1 and errors=2 (lint exit $(lint_exit broken))" "$WORK/broken.log"
fi
if grep -Eq '^::error file=broken/jobspec\.json,line=2,.*title=api-version::' "$WORK/broken.log" &&
    grep -Eq '^::error file=broken/train\.jobspec\.json,.*title=invalid-json::' "$WORK/broken.log"; then
    pass "broken specs: ::error annotations for api-version and invalid-json with file and line"
else
    fail "broken specs: missing ::error annotations" "$WORK/broken.log"
fi
if grep -q "forgelint $VERSION from an earlier step of this job" "$WORK/broken.log"; then
    pass "a second run takes the installed binary instead of fetching it again"
else
    fail "the second run fetched forgelint again" "$WORK/broken.log"
fi

# --- 3. fail-on and config -----------------------------------------------------------------------
run_action warn-default "$LAB" paths=dirty
run_action warn-failon "$LAB" paths=dirty fail-on=warning
if [ "$(lint_exit warn-default)" = 0 ] && [ "$(out warn-default warnings)" = 1 ] &&
    [ "$(out warn-default errors)" = 0 ] && [ "$(lint_exit warn-failon)" = 1 ] &&
    grep -Eq '^::warning file=dirty/jobspec\.json,.*title=git-dirty::' "$WORK/warn-default.log"; then
    pass "fail-on: a warning annotates and passes by default, and fails with fail-on=warning"
else
    fail "fail-on (exits $(lint_exit warn-default) / $(lint_exit warn-failon))" "$WORK/warn-failon.log"
fi
run_action config "$LAB" paths=dirty config=strict.toml format=concise
if [ "$(lint_exit config)" = 1 ] && [ "$(out config errors)" = 1 ] &&
    grep -Eq '^dirty/jobspec\.json:[0-9]+:[0-9]+: error\[git-dirty\]' "$WORK/config.log"; then
    pass "config and format: --config strict.toml makes git-dirty an error, printed in the concise format"
else
    fail "config=strict.toml format=concise (lint exit $(lint_exit config))" "$WORK/config.log"
fi
run_action multi "$LAB" 'paths=specs\n  jobspec.json\n'
# The two specs, and the one file of the experiment jobspec.json names (linted with it).
if [ "$(lint_exit multi)" = 0 ] && grep -q '3 files' "$WORK/multi.log"; then
    pass "paths: newline-separated paths are linted, only those (and the experiment a spec names)"
else
    fail "paths on several lines (lint exit $(lint_exit multi))" "$WORK/multi.log"
fi

# --- 4. hostile inputs ---------------------------------------------------------------------------
# shellcheck disable=SC2016 # the quotes are the point: these inputs must reach the action as text
run_action inject-paths "$LAB" 'paths=$(touch pwned1) `touch pwned2`;touch${IFS}pwned3' \
    'config=x"; touch pwned4; echo "'
# shellcheck disable=SC2016
run_action inject-sarif "$LAB" paths=specs 'sarif-file=out/$(touch pwned5)`touch pwned6`.sarif'
run_action inject-format "$LAB" 'format=github --output pwned7' paths=specs
run_action newline-sarif "$LAB" paths=specs 'sarif-file=a.sarif\nerrors=0'
pwned="$(cd "$LAB" && find . -name 'pwned*' | sort | tr '\n' ' ')"
if [ -z "$pwned" ] && [ "$(lint_exit inject-paths)" = 2 ] && [ "$(lint_exit inject-sarif)" = 0 ] &&
    [ -f "$LAB/out/\$(touch pwned5)\`touch pwned6\`.sarif" ]; then
    pass "inputs are data: shell syntax in paths, config and sarif-file runs nothing"
else
    fail "hostile inputs ran something: '${pwned}' (exits $(lint_exit inject-paths)/$(lint_exit inject-sarif))" "$WORK/inject-paths.log"
fi
if [ "$(lint_exit inject-format)" = 2 ] && grep -q '^::error title=forgelint action::format must be' "$WORK/inject-format.log" &&
    [ "$(lint_exit newline-sarif)" = 2 ] && [ -z "$(out newline-sarif errors)" ]; then
    pass "a bad format or a sarif-file with a newline is refused (exit 2) before forgelint runs"
else
    fail "bad format / newline in sarif-file (exits $(lint_exit inject-format)/$(lint_exit newline-sarif))" "$WORK/inject-format.log"
fi

# --- 5. every format; SARIF capped at GitHub's limit ---------------------------------------------
refused=""
for format in human concise json sarif github jsonl junit gitlab html; do
    run_action "format-$format" "$LAB" paths=broken "format=$format"
    if [ "$(lint_exit "format-$format")" != 1 ]; then refused="$refused $format"; fi
done
if [ -z "$refused" ]; then
    pass "format: the nine formats are taken (each run exits 1 on the broken specs)"
else
    fail "format: refused or failed:$refused" "$WORK/format-${refused##* }.log"
fi
# 26 specs with 1,000 unknown keys each: 26,000 warnings, over code scanning's 25,000 per run.
"$PY" - "$ROOT/rules/reference/jobspec.json" "$WORK/dense" <<'PY' || die "setup: write the dense specs"
import json, os, sys
ref = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2], exist_ok=True)
for n in range(26):
    doc = dict(ref)
    doc.update({f"extra_{n}_{k:04}": k for k in range(1000)})
    open(os.path.join(sys.argv[2], f"run-{n:02}.jobspec.json"), "w").write(json.dumps(doc, indent=1))
PY
mkdir -p "$WORK/dense/experiments/my-grpo"
run_action dense "$WORK/dense" paths=. sarif-file=dense.sarif format=concise
if [ "$(lint_exit dense)" = 0 ] && [ "$(out dense warnings)" = 26000 ] &&
    "$PY" - "$WORK/dense/dense.sarif" <<'PY'; then
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
assert len(run["results"]) == 25000, len(run["results"])
notes = [n["message"]["text"] for n in run["invocations"][0]["toolExecutionNotifications"]]
assert "1000 findings are left out of the report: --max-results 25000 keeps the most severe." in notes, notes
PY
    pass "sarif-file: 26,000 findings give a SARIF of 25,000 results (GitHub's limit) saying 1,000 were left out; the outputs count all"
else
    fail "sarif-file: the SARIF of 26,000 findings (lint exit $(lint_exit dense), warnings $(out dense warnings))" "$WORK/dense.log"
fi

# --- 6. no release for this version: built from source --------------------------------------------
echo "== no release: the install step builds from source with cargo install --locked (a few minutes)"
start=$SECONDS
RT="$WORK/rt-source" run_action source "$LAB" paths='jobspec.json specs' "download-url=file://$WORK/releases/none"
echo "   $((SECONDS - start)) s"
if grep -q "^::notice title=forgelint::no release $NAME.tar.gz at file://.*: building forgelint from source" "$WORK/source.log" &&
    [ "$(step_exit source 'Build forgelint from source')" = 0 ] &&
    [ "$("$WORK/rt-source/forgelint-action/bin/forgelint" --version 2>&1)" = "forgelint $VERSION" ] &&
    [ "$(lint_exit source)" = 0 ] && [ "$(out source errors)" = 0 ]; then
    pass "install step: without a release, cargo install --locked --path <action checkout> builds forgelint $VERSION, which runs"
else
    fail "install step: the build from source (lint exit $(lint_exit source))" "$WORK/source.log"
fi

# --- 7. new-from-rev: only what a pull request brings ---------------------------------------------
PR="$WORK/pr"
git_pr() { git -C "$PR" -c user.name=Ada -c user.email=ada@lab.example "$@"; }
mkdir -p "$PR/specs" "$PR/experiments"
cp -r "$LAB/experiments/my-grpo" "$PR/experiments/"
cp "$LAB/jobspec.json" "$PR/specs/ok.jobspec.json"
# The base already has a fault (a warning made an error), which the pull request does not touch.
cp "$LAB/dirty/jobspec.json" "$PR/specs/dirty.jobspec.json"
printf '[severity]\ngit-dirty = "error"\n' >"$PR/forgelint.toml"
git init -q -b main "$PR" && git_pr add -A && git_pr commit -q -m base
base="$(git -C "$PR" rev-parse HEAD)"
"$PY" - "$PR/specs/ok.jobspec.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["apiVersion"] = "forge/v1"
open(sys.argv[1], "w").write(json.dumps(doc, indent=2) + "\n")
PY
git_pr commit -q -am "a pull request with a fault"
printf '{"pull_request": {"base": {"sha": "%s"}}}\n' "$base" >"$WORK/event.json"
run_action since-all "$PR"
run_action since-rev "$PR" new-from-rev=HEAD~1
GITHUB_EVENT_PATH="$WORK/event.json" run_action since-base "$PR" new-from-rev=pull-request-base
if [ "$(out since-all errors)" = 2 ] && [ "$(lint_exit since-rev)" = 1 ] && [ "$(out since-rev errors)" = 1 ] &&
    [ "$(out since-base errors)" = 1 ] &&
    grep -Eq '^::error file=specs/ok\.jobspec\.json,.*title=api-version::' "$WORK/since-base.log" &&
    ! grep -q 'title=git-dirty' "$WORK/since-base.log" &&
    grep -q '1 finding hidden: the files had it at' "$WORK/since-base.log"; then
    pass "new-from-rev: only the pull request's own fault is reported (HEAD~1, and pull-request-base from the event)"
else
    fail "new-from-rev: expected errors=2 without, 1 with (got $(out since-all errors) / $(out since-rev errors) / $(out since-base errors))" "$WORK/since-base.log"
fi
git clone -q --depth 1 "file://$PR" "$WORK/shallow"
GITHUB_EVENT_PATH="$WORK/event.json" run_action since-shallow "$WORK/shallow" new-from-rev=pull-request-base
GITHUB_EVENT_PATH=/nonexistent run_action since-no-event "$PR" new-from-rev=pull-request-base
run_action since-newline "$PR" 'new-from-rev=HEAD~1\n--output=x'
if [ "$(lint_exit since-shallow)" = 2 ] && grep -q '^::error title=forgelint action::new-from-rev: the revision is not in this clone; give actions/checkout fetch-depth: 0' "$WORK/since-shallow.log" &&
    [ "$(lint_exit since-no-event)" = 2 ] && grep -q 'pull-request-base needs a pull_request event' "$WORK/since-no-event.log" &&
    [ "$(lint_exit since-newline)" = 2 ] && [ ! -e "$PR/x" ]; then
    pass "new-from-rev: a shallow checkout asks for fetch-depth: 0; no event, or a newline, is refused (exit 2)"
else
    fail "new-from-rev refusals (exits $(lint_exit since-shallow) / $(lint_exit since-no-event) / $(lint_exit since-newline))" "$WORK/since-shallow.log"
fi

finish
