//! The text scanners on realistic experiment files, hostile bytes and pathological sizes.

use std::ops::Range;
use std::path::Path;

use forgelint::text::{kind_at, language_of, scan, suppressions, Language, Region, RegionKind};

const LANGUAGES: [Language; 6] = [
    Language::Python,
    Language::Shell,
    Language::Yaml,
    Language::Toml,
    Language::Json,
    Language::Other,
];

/// Regions cover the text in order, without gaps, overlaps or empty regions; contents lie in
/// their spans (equal for code and comments); every boundary is on a char boundary.
fn check_invariants(lang: Language, text: &str, regions: &[Region]) {
    let mut at = 0;
    for region in regions {
        let Range { start, end } = region.span.clone();
        assert_eq!(start, at, "{lang:?}: gap or overlap at {at} in {text:?}");
        assert!(start < end, "{lang:?}: empty region at {start} in {text:?}");
        let content = region.content.clone();
        assert!(
            start <= content.start && content.start <= content.end && content.end <= end,
            "{lang:?}: content {content:?} outside {start}..{end} in {text:?}"
        );
        if region.kind != RegionKind::String {
            assert_eq!(content, region.span, "{lang:?}: {text:?}");
        }
        for offset in [start, end, content.start, content.end] {
            assert!(
                text.is_char_boundary(offset),
                "{lang:?}: {offset} in {text:?}"
            );
        }
        at = end;
    }
    assert_eq!(
        at,
        text.len(),
        "{lang:?}: the end is not covered in {text:?}"
    );
}

fn scan_checked(lang: Language, text: &str) -> Vec<Region> {
    let regions = scan(lang, text);
    check_invariants(lang, text, &regions);
    regions
}

/// (kind, content) of the regions that are not code.
fn parts(lang: Language, text: &str) -> Vec<(RegionKind, &str)> {
    scan_checked(lang, text)
        .into_iter()
        .filter(|r| r.kind != RegionKind::Code)
        .map(|r| (r.kind, &text[r.content]))
        .collect()
}

/// The kind at the first occurrence of `needle`.
fn kind_of(lang: Language, text: &str, needle: &str) -> RegionKind {
    let regions = scan_checked(lang, text);
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in text"));
    kind_at(&regions, at)
}

const TRAIN_PY: &str = r##"#!/usr/bin/env python3
"""Fine-tune a model.

Data used to live in /mnt/old/data (kept here for history).
"""
import argparse, os  # the data was on /mnt/legacy

DATA = os.environ.get("DATA_DIR", "/mnt/shared/datasets/c4")
CKPT = f"{DATA}/ckpt-{os.getpid():06d}"
PATTERN = r"\d+\.pt"

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--out', default='/scratch/out')  # not /mnt/out
    args = parser.parse_args()
    total = 1 + \
        2
    print(f'writing to {args.out!r}', "# not a comment")

if __name__ == "__main__":
    main()
"##;

const RUN_SH: &str = r##"#!/bin/bash
set -euo pipefail
# Old runs read from /mnt/old.
export DATA_DIR=/mnt/shared/datasets
OUT="${HOME}/runs/$(date +%F)"
cd "$(dirname "$0")"
for seed in 1 2 3; do
  python train.py --data "$DATA_DIR/c4" --seed=$seed \
    --out /mnt/results/$seed 2>&1 | tee "$OUT/log.txt"  # keep the log
done
cat > "$OUT/config.json" <<EOF
{"data": "/mnt/in/heredoc", "note": "# not a comment"}
EOF
python - <<'PY'
print("/mnt/py")
PY
echo "done: $OUT"
"##;

const CONFIG_YAML: &str = r##"# Experiment config; old data lived at /mnt/old
experiment:
  name: grpo-llama  # short name
  data_path: /mnt/datasets/c4
  tags: [rl, "llama 3", 'grpo']
  output: "s3://bucket/run #1"
steps:
  - name: train
    run: |
      python train.py \
        --data /mnt/datasets/c4
  - name: eval
    env: {SPLIT: test, PATH_HINT: /mnt/eval}
defaults: &defaults
  lr: 3.0e-4
  warmup: 100
"##;

#[test]
fn train_py() {
    let lang = language_of(Path::new("train.py"), TRAIN_PY);
    assert_eq!(lang, Language::Python);
    assert_eq!(kind_of(lang, TRAIN_PY, "/mnt/old"), RegionKind::String);
    assert_eq!(kind_of(lang, TRAIN_PY, "/mnt/legacy"), RegionKind::Comment);
    assert_eq!(kind_of(lang, TRAIN_PY, "/mnt/shared"), RegionKind::String);
    assert_eq!(kind_of(lang, TRAIN_PY, "/scratch/out"), RegionKind::String);
    assert_eq!(kind_of(lang, TRAIN_PY, "/mnt/out"), RegionKind::Comment);
    assert_eq!(
        kind_of(lang, TRAIN_PY, "# not a comment"),
        RegionKind::String
    );
    assert_eq!(kind_of(lang, TRAIN_PY, "def main"), RegionKind::Code);
    let p = parts(lang, TRAIN_PY);
    assert!(p.contains(&(RegionKind::String, "/mnt/shared/datasets/c4")));
    assert!(p.contains(&(RegionKind::String, "{DATA}/ckpt-{os.getpid():06d}")));
    assert!(p.contains(&(RegionKind::String, "\\d+\\.pt")));
    assert!(p.contains(&(RegionKind::String, "writing to {args.out!r}")));
    assert_eq!(p[0], (RegionKind::Comment, "#!/usr/bin/env python3"));
}

#[test]
fn run_sh() {
    let lang = language_of(Path::new("launch"), RUN_SH);
    assert_eq!(lang, Language::Shell);
    assert_eq!(kind_of(lang, RUN_SH, "/mnt/old"), RegionKind::Comment);
    assert_eq!(kind_of(lang, RUN_SH, "/mnt/results"), RegionKind::String);
    assert_eq!(kind_of(lang, RUN_SH, "/mnt/in/heredoc"), RegionKind::String);
    assert_eq!(kind_of(lang, RUN_SH, "# not a comment"), RegionKind::String);
    assert_eq!(kind_of(lang, RUN_SH, "/mnt/py"), RegionKind::String);
    assert_eq!(kind_of(lang, RUN_SH, "# keep the log"), RegionKind::Comment);
    assert_eq!(kind_of(lang, RUN_SH, "| tee"), RegionKind::Code);
    assert_eq!(kind_of(lang, RUN_SH, "done\n"), RegionKind::Code);
    let p = parts(lang, RUN_SH);
    for expected in [
        "/mnt/shared/datasets",
        "${HOME}/runs/$(date +%F)",
        "$(dirname \"$0\")",
        "$DATA_DIR/c4",
        "$seed",
        "/mnt/results/$seed",
        "{\"data\": \"/mnt/in/heredoc\", \"note\": \"# not a comment\"}\n",
        "print(\"/mnt/py\")\n",
        "done: $OUT",
    ] {
        assert!(
            p.contains(&(RegionKind::String, expected)),
            "{expected:?} in {p:#?}"
        );
    }
    let comments: Vec<&str> = p
        .iter()
        .filter(|(k, _)| *k == RegionKind::Comment)
        .map(|(_, c)| *c)
        .collect();
    assert_eq!(
        comments,
        [
            "#!/bin/bash",
            "# Old runs read from /mnt/old.",
            "# keep the log"
        ]
    );
}

#[test]
fn config_yaml() {
    let lang = language_of(Path::new("config.yaml"), CONFIG_YAML);
    assert_eq!(lang, Language::Yaml);
    assert_eq!(kind_of(lang, CONFIG_YAML, "/mnt/old"), RegionKind::Comment);
    assert_eq!(
        kind_of(lang, CONFIG_YAML, "/mnt/datasets"),
        RegionKind::String
    );
    assert_eq!(kind_of(lang, CONFIG_YAML, "data_path"), RegionKind::Code);
    assert_eq!(kind_of(lang, CONFIG_YAML, "#1"), RegionKind::String);
    assert_eq!(kind_of(lang, CONFIG_YAML, "/mnt/eval"), RegionKind::String);
    assert_eq!(kind_of(lang, CONFIG_YAML, "SPLIT"), RegionKind::Code);
    assert_eq!(kind_of(lang, CONFIG_YAML, "&defaults"), RegionKind::Code);
    let p = parts(lang, CONFIG_YAML);
    for expected in [
        "grpo-llama",
        "rl",
        "llama 3",
        "grpo",
        "s3://bucket/run #1",
        "      python train.py \\\n        --data /mnt/datasets/c4",
        "test",
        "3.0e-4",
        "100",
    ] {
        assert!(
            p.contains(&(RegionKind::String, expected)),
            "{expected:?} in {p:#?}"
        );
    }
}

#[test]
fn path_in_comment_versus_string() {
    for (lang, text) in [
        (Language::Python, "# /mnt/c\nx = '/mnt/s'\n"),
        (Language::Shell, "# /mnt/c\nls /mnt/s\n"),
        (Language::Yaml, "# /mnt/c\nx: /mnt/s\n"),
        (Language::Toml, "# /mnt/c\nx = '/mnt/s'\n"),
    ] {
        assert_eq!(
            kind_of(lang, text, "/mnt/c"),
            RegionKind::Comment,
            "{lang:?}"
        );
        assert_eq!(
            kind_of(lang, text, "/mnt/s"),
            RegionKind::String,
            "{lang:?}"
        );
    }
    assert_eq!(
        kind_of(Language::Json, "{\"k\": \"/mnt/s\"}", "/mnt/s"),
        RegionKind::String
    );
    assert_eq!(
        kind_of(Language::Other, "# /mnt/c", "/mnt/c"),
        RegionKind::Code
    );
}

#[test]
fn unterminated_literals() {
    use RegionKind::{Comment as C, String as S};
    // Single-line forms end with their line; forms that may span lines run to the end.
    assert_eq!(
        parts(Language::Python, "a = 'x\nb = 2  # c"),
        [(S, "x"), (C, "# c")]
    );
    assert_eq!(parts(Language::Python, "a = \"\"\"x\n# c"), [(S, "x\n# c")]);
    assert_eq!(
        parts(Language::Shell, "echo 'x\n# c"),
        [(S, "echo"), (S, "x\n# c")]
    );
    assert_eq!(
        parts(Language::Shell, "cat <<E\nx\n# c"),
        [(S, "cat"), (S, "x\n# c")]
    );
    assert_eq!(parts(Language::Yaml, "a: \"x\n# c"), [(S, "x\n# c")]);
    assert_eq!(
        parts(Language::Toml, "a = \"x\n# c"),
        [(S, "x"), (C, "# c")]
    );
    assert_eq!(parts(Language::Toml, "a = '''x\n# c"), [(S, "x\n# c")]);
    assert_eq!(parts(Language::Json, "[\"x\n\"y\"]"), [(S, "x"), (S, "y")]);
}

#[test]
fn heredocs() {
    use RegionKind::String as S;
    let text = "cat <<-END | sort\n\tb /mnt/x\n\ta\n\tEND\ncat <<\"Q\" >> f\n$NOT expanded\nQ\n";
    let p = parts(Language::Shell, text);
    assert_eq!(
        p,
        [
            (S, "cat"),
            (S, "sort"),
            (S, "\tb /mnt/x\n\ta\n"),
            (S, "cat"),
            (S, "f"),
            (S, "$NOT expanded\n"),
        ]
    );
    // The terminator line is in the span, not the content.
    let regions = scan_checked(Language::Shell, text);
    let body = regions
        .iter()
        .find(|r| text[r.content.clone()].starts_with("\tb"))
        .map(|r| &text[r.span.clone()]);
    assert_eq!(body, Some("\tb /mnt/x\n\ta\n\tEND"));
    // A terminator indented without `-` does not end the body.
    assert_eq!(
        parts(Language::Shell, "cat <<E\n  E\nE\n"),
        [(S, "cat"), (S, "  E\n")]
    );
}

#[test]
fn yaml_block_scalars() {
    use RegionKind::{Comment as C, String as S};
    let text = "a:\n  script: >\n    one /mnt/a\n\n    two\n  # a comment\n  keep: |2-\n     x\nb: |\nc: d\n";
    assert_eq!(
        parts(Language::Yaml, text),
        [
            (S, "    one /mnt/a\n\n    two"),
            (C, "# a comment"),
            (S, "     x"),
            (S, "d"),
        ]
    );
}

#[test]
fn crlf() {
    use RegionKind::{Comment as C, String as S};
    assert_eq!(
        parts(Language::Python, "x = 'a'  # c\r\ny = \"b\r\n"),
        [(S, "a"), (C, "# c"), (S, "b")]
    );
    assert_eq!(
        parts(
            Language::Shell,
            "ls /mnt/a # c\r\ncat <<E\r\nbody\r\nE\r\necho\r\n"
        ),
        [
            (S, "ls"),
            (S, "/mnt/a"),
            (C, "# c"),
            (S, "cat"),
            (S, "body\r\n"),
            (S, "echo")
        ]
    );
    assert_eq!(
        parts(Language::Yaml, "k: v # c\r\nb: |\r\n  x\r\n  y\r\nz: w\r\n"),
        [(S, "v"), (C, "# c"), (S, "  x\r\n  y"), (S, "w")]
    );
    assert_eq!(
        parts(Language::Toml, "a = 'x' # c\r\n"),
        [(S, "x"), (C, "# c")]
    );
}

#[test]
fn suppressions_in_a_script() {
    let text =
        "# forgelint: ignore[host-path] legacy mount\nls /mnt/x\necho '# forgelint: ignore[x]'\n";
    let regions = scan_checked(Language::Shell, text);
    let (found, problems) = suppressions(text, &regions);
    assert!(problems.is_empty());
    assert_eq!(found.len(), 1);
    let line = forgelint::text::line_of(
        &forgelint::text::line_starts(text),
        text.find("/mnt").unwrap_or(0),
    );
    assert!(found[0].covers("host-path", line));
    assert_eq!(found[0].reason.as_deref(), Some("legacy mount"));
}

/// A tiny deterministic generator: no dependency, same cases on every run.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Fragments that matter to some scanner, and a few multi-byte chars around them.
const FRAGMENTS: &[&str] = &[
    "'",
    "\"",
    "'''",
    "\"\"\"",
    "#",
    "\\",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    "<<",
    "<<-",
    "EOF",
    "'EOF'",
    "$(",
    "${",
    ")",
    "}",
    "(",
    "{",
    "[",
    "]",
    "`",
    "$'",
    "=",
    "--a=",
    "X=",
    ":",
    ": ",
    "- ",
    "|",
    ">",
    "|-",
    "---",
    "&a",
    "*a",
    "!t",
    ",",
    "rb",
    "f",
    "é",
    "名",
    "😀",
    "\u{0}",
    "forgelint: ignore[",
    "a",
    "/mnt/x",
    "&",
    ";",
    "2>&1",
    "\\\n",
];

#[test]
fn random_inputs_keep_the_invariants() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for case in 0..4000 {
        let mut text = String::new();
        let pieces = rng.below(40);
        for _ in 0..pieces {
            if rng.below(4) == 0 {
                // Any char, not only the interesting ones.
                let c = char::from_u32(rng.below(0x2_0000) as u32).unwrap_or('?');
                text.push(c);
            } else {
                text.push_str(FRAGMENTS[rng.below(FRAGMENTS.len())]);
            }
        }
        for lang in LANGUAGES {
            let regions = scan_checked(lang, &text);
            for offset in [0, text.len() / 2, text.len()] {
                let _ = kind_at(&regions, offset);
            }
            let (_found, problems) = suppressions(&text, &regions);
            for (span, _) in problems {
                assert!(span.end <= text.len(), "case {case}");
            }
        }
    }
}

#[test]
fn random_bytes_made_text_keep_the_invariants() {
    let mut rng = XorShift(42);
    for _ in 0..2000 {
        let len = rng.below(64);
        let bytes: Vec<u8> = (0..len)
            .map(|_| b" \n'\"#\\$<>(){}[]|:-=&`E\x80\xc3\xa9"[rng.below(24)])
            .collect();
        let text = String::from_utf8_lossy(&bytes);
        for lang in LANGUAGES {
            scan_checked(lang, &text);
        }
    }
}

/// About 5 MB of one pathological line repeated, for the scanner it targets (about a second
/// each in a debug build): each must stay linear (a quadratic one would not finish). No timing
/// is asserted.
#[test]
fn pathological_inputs_are_linear() {
    use Language::{Json, Python, Shell, Toml, Yaml};
    let cases = [
        ("\"\n", Python),
        ("'''\n", Python),
        ("\\\n", Python),
        ("<<EOF\n", Shell),
        ("x <<A <<B\n", Shell),
        ("\"$(\"\n", Shell),
        ("'\n", Shell),
        ("${\n", Shell),
        ("key: |\n", Yaml),
        ("a: \"\n", Yaml),
        ("- [\n", Yaml),
        ("[\n", Toml),
        ("'''\n", Toml),
        ("{\"a\":\n", Json),
        ("\"\n", Json),
    ];
    for (pattern, lang) in cases {
        let text = pattern.repeat(5_000_000 / pattern.len());
        let regions = scan(lang, &text);
        assert_eq!(regions.last().map(|r| r.span.end), Some(text.len()));
        let _ = suppressions(&text, &regions);
    }
    // One long line of nesting.
    let text = "$(".repeat(1_000_000) + &"\"".repeat(1_000_000) + &"[{".repeat(1_000_000);
    for lang in [Python, Shell, Yaml, Toml, Json] {
        let regions = scan(lang, &text);
        assert_eq!(regions.last().map(|r| r.span.end), Some(text.len()));
    }
}
