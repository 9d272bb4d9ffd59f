#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the repository's own inputs. Safe to rerun: it only adds files
# (named by content hash, so a seed already there is not copied twice).
set -euo pipefail
cd "$(dirname "$0")"
root=..

copy() { # copy TARGET FILE...
    local target=$1
    shift
    mkdir -p "corpus/$target"
    local f sum
    for f in "$@"; do
        [ -f "$f" ] || continue
        sum=$(sha1sum "$f" | cut -c1-16)
        cp "$f" "corpus/$target/seed-$sum"
    done
}

# Any text: one seed file per line of stdin.
copy_lines() { # copy_lines TARGET < lines
    local target=$1 line sum
    mkdir -p "corpus/$target"
    while IFS= read -r line; do
        sum=$(printf '%s' "$line" | sha1sum | cut -c1-16)
        printf '%s' "$line" >"corpus/$target/seed-$sum"
    done
}

shopt -s nullglob globstar dotglob
specs=("$root"/fixtures/**/*.json "$root"/rules/reference/jobspec.json)
suite=("$root"/tests/data/jsontestsuite/*.json)
rules=("$root"/rules/*.toml "$root"/rules/examples/*.toml)

copy json_parse "${specs[@]}" "${suite[@]}"
copy lint_spec "${specs[@]}" "${suite[@]}"
copy rule_file "${rules[@]}"

# The saved regressions of each target (tests/data/fuzz-regressions/<target>-<short-name>).
for t in json_parse lint_spec rule_file selector pattern pattern_shapes experiment_file; do
    copy "$t" "$root"/tests/data/fuzz-regressions/"$t"-*
done

# Each demo experiment file under each of the target's seven names (the first byte picks it).
mkdir -p corpus/experiment_file
for f in "$root"/fixtures/demo/experiments/**/*; do
    [ -f "$f" ] || continue
    for pick in 0 1 2 3 4 5 6; do
        sum=$( (printf "\\$(printf '%03o' "$pick")"; cat "$f") | sha1sum | cut -c1-16)
        (printf "\\$(printf '%03o' "$pick")"; cat "$f") >"corpus/experiment_file/seed-$sum"
    done
done

# The README's selectors, and a few edge cases of the grammar.
copy_lines selector <<'SELECTORS'
$
metadata.name
metadata.labels.team
spec.resources.pools[*].name
spec.resources.pools[*].series
spec.resources.roles.*
spec.plugins[0].id
spec.plugins
spec.hyperparams."policy.optimizer.kwargs.lr"
spec.hyperparams['policy.optimizer.kwargs.lr']
spec.hyperparams."trainer.debug"
$.spec.hyperparams['policy.optimizer.kwargs.lr']
$["metadata"]['labels'][*]
a.*.b
a[3]
"\u00e9\"".x
'it\'s'.y
SELECTORS

# Every pattern of the built-in rules, with a few texts (the pattern, a newline, the text).
mkdir -p corpus/pattern
grep -ho "matches = '[^']*'" "$root"/rules/*.toml | sed "s/.*matches = '//; s/'\$//" | sort -u |
    while IFS= read -r pattern; do
        for text in "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" \
            "alice/gsm8k-8@v2" "run/run-000206/checkpoint@step=3190" "../x" 'C:\x' "a b"; do
            sum=$(printf '%s\n%s' "$pattern" "$text" | sha1sum | cut -c1-16)
            printf '%s\n%s' "$pattern" "$text" >"corpus/pattern/seed-$sum"
        done
    done

for t in json_parse lint_spec rule_file selector pattern pattern_shapes experiment_file; do
    echo "$t: $(find "corpus/$t" -type f | wc -l) files"
done
