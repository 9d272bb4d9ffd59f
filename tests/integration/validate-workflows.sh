#!/usr/bin/env bash
# Validates the GitHub integration files against the schemas GitHub's own tooling uses.
#
#   bash tests/integration/validate-workflows.sh
#
# - action.yml                    with check-jsonschema --builtin-schema vendor.github-actions
# - .github/workflows/*.yml       with check-jsonschema --builtin-schema vendor.github-workflows
# - docs/examples/*.yml           (the example user workflow) with the same workflow schema
# - docs/github-action.md         shows docs/examples/forgelint-workflow.yml verbatim
# - action.yml                    keeps its documented inputs/outputs and never pastes ${{ }} into a
#                                 `run:` script (inputs go through env:, against script injection)
# - .pre-commit-hooks.yaml        has the forgelint and forgelint-fix hooks, which pass every
#                                 staged file to `forgelint --discovered-only` (no `files`)
#
# check-jsonschema (PyPI) goes into a throw-away virtualenv; its schemas are bundled, so nothing
# else is fetched. Prints PASS/FAIL per check and ends with "N passed, M failed"; exits 1 on failure.
set -uo pipefail

# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
integration_setup workflows
cd "$ROOT" || exit 1

venv_install 'check-jsonschema>=0.28,<1'
CJS="$WORK/venv/bin/check-jsonschema"
PY="$WORK/venv/bin/python"
echo "   check-jsonschema $("$CJS" --version | awk '{print $NF}')"

# schema SCHEMA FILE: one check of FILE against a built-in schema.
schema() {
    local log="$WORK/check.log"
    if [ ! -f "$2" ]; then
        fail "$2: missing"
    elif "$CJS" --builtin-schema "$1" "$2" >"$log" 2>&1; then
        pass "$2 is valid against $1"
    else
        fail "$2 is not valid against $1" "$log"
    fi
}

schema vendor.github-actions action.yml

shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
if [ "${#workflows[@]}" -eq 0 ]; then fail ".github/workflows: no workflow files"; fi
for f in "${workflows[@]}"; do schema vendor.github-workflows "$f"; done

examples=(docs/examples/*.yml docs/examples/*.yaml)
if [ "${#examples[@]}" -eq 0 ]; then fail "docs/examples: no example workflow"; fi
for f in "${examples[@]}"; do schema vendor.github-workflows "$f"; done

# The doc shows the example file verbatim, so the validated file is what users copy.
if "$PY" - docs/github-action.md docs/examples/forgelint-workflow.yml >"$WORK/doc.log" 2>&1 <<'PY'; then
import re, sys
doc = open(sys.argv[1], encoding="utf-8").read()
example = open(sys.argv[2], encoding="utf-8").read()
blocks = re.findall(r"^```ya?ml\n(.*?)^```$", doc, flags=re.M | re.S)
if example not in blocks:
    sys.exit(f"no ```yaml block of {sys.argv[1]} equals {sys.argv[2]} ({len(blocks)} yaml blocks)")
PY
    pass "docs/github-action.md shows docs/examples/forgelint-workflow.yml verbatim"
else
    fail "docs/github-action.md does not show docs/examples/forgelint-workflow.yml verbatim" "$WORK/doc.log"
fi

if "$PY" - action.yml >"$WORK/action.log" 2>&1 <<'PY'; then
import sys
from ruamel.yaml import YAML

action = YAML(typ="safe").load(open(sys.argv[1], encoding="utf-8"))
problems = []
inputs = action.get("inputs", {})
want_inputs = {"paths": ".", "config": "", "format": "github", "fail-on": "error", "sarif-file": ""}
for name, default in want_inputs.items():
    if name not in inputs:
        problems.append(f"input {name} is missing")
    elif str(inputs[name].get("default", "")) != default:
        problems.append(f"input {name} defaults to {inputs[name].get('default')!r}, not {default!r}")
for name in ("errors", "warnings", "sarif-file"):
    if name not in action.get("outputs", {}):
        problems.append(f"output {name} is missing")
if action.get("runs", {}).get("using") != "composite":
    problems.append("runs.using is not composite")
for i, step in enumerate(action.get("runs", {}).get("steps", [])):
    if "run" in step and "${{" in step["run"]:
        problems.append(f"step {i} ({step.get('name')}) pastes ${{{{ }}}} into its script; use env:")
    if "run" in step and "shell" not in step:
        problems.append(f"step {i} ({step.get('name')}) has no shell")
if problems:
    sys.exit("\n".join(problems))
PY
    pass "action.yml has the documented inputs and outputs, and its scripts take inputs only through env:"
else
    fail "action.yml contract" "$WORK/action.log"
fi

if "$PY" - .pre-commit-hooks.yaml >"$WORK/hooks.log" 2>&1 <<'PY'; then
import sys
from ruamel.yaml import YAML

hooks = {h.get("id"): h for h in YAML(typ="safe").load(open(sys.argv[1], encoding="utf-8"))}
want = {
    "forgelint": "forgelint --discovered-only",
    "forgelint-fix": "forgelint --fix --discovered-only",
}
problems = []
if set(hooks) != set(want):
    problems.append(f"hooks are {sorted(hooks)}, not {sorted(want)}")
for hook_id, entry in want.items():
    hook = hooks.get(hook_id, {})
    expected = {"entry": entry, "language": "rust", "types": ["file"], "require_serial": True}
    problems += [f"{hook_id}: {k} is {hook.get(k)!r}, not {v!r}"
                 for k, v in expected.items() if hook.get(k) != v]
    # forgelint decides which staged files are specs or experiment files (--discovered-only):
    # a `files` pattern anchored at the root would hide a nested lab's experiments from it.
    for key in ("files", "exclude"):
        if key in hook:
            problems.append(f"{hook_id}: has {key}: {hook[key]!r}; forgelint picks the files")
if problems:
    sys.exit("\n".join(problems))
PY
    pass ".pre-commit-hooks.yaml: forgelint and forgelint-fix (language rust, require_serial) pass every staged file to --discovered-only"
else
    fail ".pre-commit-hooks.yaml" "$WORK/hooks.log"
fi

finish
