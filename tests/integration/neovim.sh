#!/usr/bin/env bash
# Proves `forgelint lsp` in a real editor: headless Neovim's built-in LSP client.
#
#   bash tests/integration/neovim.sh
#
# 1. forgelint is built (cargo build, the dev profile the tests use).
# 2. Headless Neovim opens the demo's faulty spec fixtures/demo/specs/grpo-70b.jobspec.json,
#    starts `forgelint lsp` on it (workspace root fixtures/demo) and waits for its diagnostics:
#    `vim.lsp.start` where Neovim has it (0.8+), else `vim.lsp.start_client` and
#    `vim.lsp.buf_attach_client` (Debian's 0.7). It writes each diagnostic's rule code and
#    1-based line:column (UTF-16, as forgelint counts) to a file, then asks for the quick fixes
#    on the first diagnostic's line and the hover on its start.
# 3. The diagnostics must be exactly `forgelint check --format concise` on that spec; the quick
#    fix and hover must name the rule.
#
# Installs nothing: `nvim` must be on PATH (.ci/run installs Debian's neovim when it is not).
# KEEP_WORK=1 keeps the temporary folder (Neovim's LSP log is in it).
# Prints PASS/FAIL per check and ends with "N passed, M failed"; exits 1 on any failure.
set -uo pipefail

# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
integration_setup neovim

for tool in nvim cargo timeout; do
    command -v "$tool" >/dev/null 2>&1 || die "setup: '$tool' is not on PATH"
done
echo "   $(nvim --version | head -n 1), $(cargo --version)"

echo "== building forgelint"
(cd "$ROOT" && cargo build --quiet --bin forgelint) >"$WORK/build.log" 2>&1 ||
    die "setup: cargo build" "$WORK/build.log"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/forgelint"
case "$BIN" in /*) ;; *) BIN="$ROOT/$BIN" ;; esac
[ -x "$BIN" ] || die "setup: no binary at $BIN"

DEMO="$ROOT/fixtures/demo"
REL="specs/grpo-70b.jobspec.json"

# --- what check says ------------------------------------------------------------------------------
(cd "$DEMO" && NO_COLOR=1 "$BIN" check --format concise --quiet "$REL") >"$WORK/check.txt" 2>"$WORK/check.err"
rc=$?
[ "$rc" -eq 1 ] || die "setup: forgelint check exited $rc, expected 1" "$WORK/check.err"
# `path:line:col: severity[rule] message` → `line:col rule`, the spec's own findings only.
sed -n "s|^$REL:\([0-9]*\):\([0-9]*\): [a-z]*\[\([^]]*\)\].*|\1:\2 \3|p" "$WORK/check.txt" |
    LC_ALL=C sort >"$WORK/expected.txt"
[ -s "$WORK/expected.txt" ] || die "setup: check reported nothing on $REL" "$WORK/check.txt"

# --- what Neovim shows ----------------------------------------------------------------------------
cat >"$WORK/lsp.lua" <<'LUA'
local bin, root = os.getenv('FORGELINT_BIN'), os.getenv('FORGELINT_ROOT')
local spec, out = os.getenv('FORGELINT_SPEC'), os.getenv('FORGELINT_REPORT')
local report = {}
local function say(line) table.insert(report, line) end

local function run()
  vim.lsp.set_log_level('debug')
  vim.cmd('edit ' .. vim.fn.fnameescape(spec))
  local buf = vim.api.nvim_get_current_buf()
  local config = { name = 'forgelint', cmd = { bin, 'lsp' }, root_dir = root }
  if vim.lsp.start then
    vim.lsp.start(config)
    say('client vim.lsp.start')
  else
    local id = vim.lsp.start_client(config)
    assert(id, 'vim.lsp.start_client failed')
    vim.lsp.buf_attach_client(buf, id)
    say('client vim.lsp.start_client')
  end
  local published = vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  assert(published, 'no diagnostics within 30 s')
  local diagnostics = vim.diagnostic.get(buf)
  for _, d in ipairs(diagnostics) do
    -- Neovim holds byte columns; forgelint counts UTF-16 units.
    local line = vim.api.nvim_buf_get_lines(buf, d.lnum, d.lnum + 1, false)[1] or ''
    local _, utf16 = vim.str_utfindex(line, d.col)
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    say(string.format('diagnostic %d:%d %s', d.lnum + 1, utf16 + 1, tostring(code)))
  end
  table.sort(diagnostics, function(a, b) return a.lnum < b.lnum end)
  local first = diagnostics[1]
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = first.lnum, character = 0 }, ['end'] = { line = first.lnum + 1, character = 0 } },
    context = { diagnostics = {} },
  }
  for _, answer in pairs(vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 10000) or {}) do
    for _, action in ipairs(answer.result or {}) do say('action ' .. action.title) end
  end
  local position = { textDocument = params.textDocument, position = { line = first.lnum, character = first.col } }
  for _, answer in pairs(vim.lsp.buf_request_sync(buf, 'textDocument/hover', position, 10000) or {}) do
    if answer.result then say('hover ' .. answer.result.contents.value:gsub('\n', ' ')) end
  end
  say('first ' .. tostring(first.code or first.user_data.lsp.code))
end

local ok, err = pcall(run)
if not ok then say('error ' .. tostring(err)) end
vim.fn.writefile(report, out)
vim.lsp.stop_client(vim.lsp.get_active_clients())
vim.wait(2000, function() return #vim.lsp.get_active_clients() == 0 end, 50)
vim.cmd('qa!')
LUA

echo "== headless Neovim on $REL"
export XDG_CACHE_HOME="$WORK/cache" XDG_STATE_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config" XDG_DATA_HOME="$WORK/data"
export FORGELINT_BIN="$BIN" FORGELINT_ROOT="$DEMO" FORGELINT_SPEC="$DEMO/$REL"
export FORGELINT_REPORT="$WORK/nvim.txt"
timeout 120 nvim --headless -n -i NONE -u NONE -c "luafile $WORK/lsp.lua" </dev/null >"$WORK/nvim.log" 2>&1
rc=$?
LSP_LOG="$(find "$WORK/cache" "$WORK/state" -name lsp.log 2>/dev/null | head -n 1)"
if [ "$rc" -ne 0 ] || [ ! -s "$WORK/nvim.txt" ]; then
    [ -n "$LSP_LOG" ] && cat "$LSP_LOG" >>"$WORK/nvim.log"
    die "headless Neovim exited $rc without a report" "$WORK/nvim.log"
fi
if grep -q '^error ' "$WORK/nvim.txt"; then
    [ -n "$LSP_LOG" ] && tail -n 40 "$LSP_LOG" >>"$WORK/nvim.txt"
    fail "Neovim's script failed" "$WORK/nvim.txt"
fi

sed -n 's/^diagnostic //p' "$WORK/nvim.txt" | LC_ALL=C sort >"$WORK/got.txt"
if [ -s "$WORK/got.txt" ] && cmp -s "$WORK/expected.txt" "$WORK/got.txt"; then
    pass "Neovim shows check's $(wc -l <"$WORK/expected.txt") findings on $REL: same rules, same line:col"
else
    diff -u "$WORK/expected.txt" "$WORK/got.txt" >"$WORK/diff.txt"
    fail "Neovim's diagnostics differ from forgelint check --format concise" "$WORK/diff.txt"
fi

first="$(sed -n 's/^first //p' "$WORK/nvim.txt")"
if [ -n "$first" ] && grep -q "^action Fix $first (" "$WORK/nvim.txt"; then
    pass "Neovim gets a quick fix of $first"
else
    fail "no quick fix of '$first' on its line" "$WORK/nvim.txt"
fi
if [ -n "$first" ] && grep -q "^hover .*$first" "$WORK/nvim.txt"; then
    pass "Neovim's hover explains $first"
else
    fail "no hover naming '$first'" "$WORK/nvim.txt"
fi

finish
