#!/usr/bin/env bash
# Proves the HTML audit report (`--format html`) in a real browser: headless Chromium.
#
#   bash tests/integration/chromium.sh
#
# 1. Chromium: $CHROMIUM when set, else Debian's `chromium` (or `chromium-headless-shell`, or a
#    runner's `chromium-browser` / `google-chrome`), installed with apt-get when none is there
#    (sudo when not root).
# 2. The release binary writes the report of fixtures/demo (run from that folder, as the README
#    shows it), and its JSON summary.
# 3. Chromium loads the report from file:// and dumps the DOM: the totals it shows are the JSON
#    summary's, every rule with findings has its group and its bar, and the page logs nothing to
#    the console (no script of its own, so any message is a fault: a blocked injection, a refused
#    load). A control page that does log proves the console check can fail.
# 4. A tree with a hostile file name and a hostile value: the page's DOM holds no element the
#    values made (no <script>, no <img>), and the console stays silent.
# 5. A screenshot of the demo's report (1280×2000); with UPDATE_SCREENSHOT=1 it replaces
#    docs/audit-report.png, the README's picture.
#
# Needs cargo, python3, and apt-get (or chromium on PATH). KEEP_WORK=1 keeps the temporary folder.
# Prints PASS/FAIL per check and ends with "N passed, M failed"; exits 1 on any failure.
set -uo pipefail

# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
integration_setup chromium

for tool in cargo python3; do
    command -v "$tool" >/dev/null 2>&1 || die "setup: '$tool' is not on PATH"
done

# --- Chromium -------------------------------------------------------------------------------------
find_chromium() {
    if [ -n "${CHROMIUM:-}" ]; then command -v "$CHROMIUM"; return; fi
    command -v chromium || command -v chromium-headless-shell ||
        command -v chromium-browser || command -v google-chrome
}
if ! CHROMIUM="$(find_chromium)"; then
    CHROMIUM=""
    echo "== installing chromium (apt-get)"
    SUDO=()
    if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi
    {
        "${SUDO[@]}" apt-get update -qq &&
            DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq chromium
    } >"$WORK/apt.log" 2>&1 || die "setup: apt-get install chromium" "$WORK/apt.log"
    CHROMIUM="$(find_chromium)" || die "setup: chromium is still not on PATH" "$WORK/apt.log"
fi
echo "   $("$CHROMIUM" --version 2>/dev/null | tail -n 1)"

# browse ARGS... URL: headless Chromium, its messages (console included) in $WORK/browser.log.
browse() {
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$WORK/profile" --enable-logging=stderr --v=0 "$@" 2>"$WORK/browser.log"
}
# console_messages [LOG]: the page's console lines in LOG (default: the last run's).
console_messages() { grep -E ':CONSOLE[:(]' "${1:-$WORK/browser.log}"; }

# --- the binary -----------------------------------------------------------------------------------
echo "== cargo build --release"
(cd "$ROOT" && cargo build --release --quiet) >"$WORK/build.log" 2>&1 ||
    die "setup: cargo build --release" "$WORK/build.log"
FORGELINT="${CARGO_TARGET_DIR:-$ROOT/target}/release/forgelint"
[ -x "$FORGELINT" ] || die "setup: no binary at $FORGELINT"

# --- the demo's report ----------------------------------------------------------------------------
REPORT="$WORK/audit.html"
(cd "$ROOT/fixtures/demo" && "$FORGELINT" check --format html -o "$REPORT" .) >"$WORK/report.log" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && [ -s "$REPORT" ]; then
    pass "forgelint --format html -o audit.html writes the demo's report (exit 1: it has errors)"
else
    die "forgelint --format html on fixtures/demo (exit $rc, expected 1 and a report)" "$WORK/report.log"
fi
(cd "$ROOT/fixtures/demo" && "$FORGELINT" check --format json .) >"$WORK/demo.json" 2>"$WORK/json.log"

browse --dump-dom "file://$REPORT" >"$WORK/dom.html"
rc=$?
[ "$rc" -eq 0 ] && [ -s "$WORK/dom.html" ] || die "chromium --dump-dom (exit $rc)" "$WORK/browser.log"
cp "$WORK/browser.log" "$WORK/browser-demo.log"

# Compares the DOM with the JSON run: one line per mismatch on stdout.
python3 - "$WORK/demo.json" "$WORK/dom.html" >"$WORK/compare.log" 2>&1 <<'PY'
import json, re, sys

doc = json.load(open(sys.argv[1]))
dom = open(sys.argv[2], encoding="utf-8").read()
summary = doc["summary"]
for key, id in [("files", "files"), ("files_with_findings", "files-with-findings"),
                ("errors", "errors"), ("warnings", "warnings"), ("notes", "notes")]:
    m = re.search(r'id="total-%s" data-count="(\d+)">([\d,]+)<' % id, dom)
    if not m:
        print(f"no total-{id} in the DOM")
    elif int(m.group(1)) != summary[key] or int(m.group(2).replace(",", "")) != summary[key]:
        print(f"total-{id}: the page shows {m.group(2)}, the JSON summary says {summary[key]}")
rules = {f["rule"] for f in doc["findings"]}
groups = re.findall(r'<details class="rule" id="rule-\d+">\s*<summary><code class="id">([^<]*)</code>', dom)
if sorted(groups) != sorted(rules):
    print(f"rule groups {sorted(groups)} != the JSON's rules {sorted(rules)}")
bars = len(re.findall(r'<a href="#rule-\d+">', dom))
if bars != len(rules):
    print(f"{bars} bars in the chart for {len(rules)} rules")
PY
if [ ! -s "$WORK/compare.log" ]; then
    pass "the DOM shows the JSON summary's totals, one group and one bar per rule"
else
    fail "the DOM disagrees with forgelint --format json" "$WORK/compare.log"
fi

if ! console_messages "$WORK/browser-demo.log" >/dev/null; then
    pass "the demo's report logs nothing to the console"
else
    fail "the demo's report logs to the console" "$WORK/browser-demo.log"
fi

# The control: a page that logs an error must be caught by the same check.
printf '<!DOCTYPE html><title>control</title><script>console.error("forgelint-control")</script>\n' \
    >"$WORK/control.html"
browse --dump-dom "file://$WORK/control.html" >/dev/null
if console_messages | grep -q forgelint-control; then
    pass "control: a console error on a page is detected"
else
    fail "control: the console error of control.html went unseen (is --enable-logging honoured?)" "$WORK/browser.log"
fi

# --- hostile names and values ---------------------------------------------------------------------
HOSTILE="$WORK/hostile"
mkdir -p "$HOSTILE/<script>alert(1)<"
python3 - "$ROOT/rules/reference/jobspec.json" "$HOSTILE" <<'PY' || die "setup: write the hostile specs"
import json, os, sys

ref = json.load(open(sys.argv[1]))
root = sys.argv[2]
spec = json.loads(json.dumps(ref))
spec["metadata"]["name"] = "</details><script>alert(2)</script><img src=x onerror=alert(3)>"
spec["metadata"]["owner"] = "\"><svg onload=alert(4)>"
# A file named <script>alert(1)</script>.jobspec.json (its '/' makes the first part a folder).
open(os.path.join(root, "<script>alert(1)<", "script>.jobspec.json"), "w").write(json.dumps(spec, indent=2))
open(os.path.join(root, "<img src=x onerror=alert(5)>.jobspec.json"), "w").write(json.dumps(spec, indent=2))
PY
(cd "$HOSTILE" && "$FORGELINT" check --no-config --format html -o "$WORK/hostile.html" .) \
    >"$WORK/hostile-report.log" 2>&1
browse --dump-dom "file://$WORK/hostile.html" >"$WORK/hostile-dom.html"
if [ -s "$WORK/hostile-dom.html" ] && ! grep -Eiq '<(script|img|svg onload)' "$WORK/hostile-dom.html" &&
    grep -q '&lt;script&gt;alert(1)&lt;/script&gt;.jobspec.json' "$WORK/hostile-dom.html" &&
    grep -q '&lt;/details&gt;&lt;script&gt;alert(2)' "$WORK/hostile-dom.html"; then
    pass "hostile file names and values are text in the DOM, never elements"
else
    fail "a hostile name or value became an element (or is missing)" "$WORK/hostile-report.log"
fi
if ! console_messages >/dev/null; then
    pass "the hostile report logs nothing to the console (nothing tried to run)"
else
    fail "the hostile report logs to the console" "$WORK/browser.log"
fi

# --- the screenshot -------------------------------------------------------------------------------
SHOT="$WORK/audit-report.png"
browse --hide-scrollbars --screenshot="$SHOT" --window-size=1280,2000 "file://$REPORT" >/dev/null
if [ -s "$SHOT" ] && [ "$(head -c 8 "$SHOT" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    pass "a 1280×2000 screenshot of the demo's report ($(wc -c <"$SHOT") bytes)"
    if [ "${UPDATE_SCREENSHOT:-0}" = 1 ]; then
        cp "$SHOT" "$ROOT/docs/audit-report.png" && echo "   wrote docs/audit-report.png"
    fi
else
    fail "chromium --screenshot of the demo's report" "$WORK/browser.log"
fi

finish
