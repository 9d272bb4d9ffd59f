//! An adversarial corpus run through the real binary: hostile bytes, hostile shapes, hostile
//! sizes, hostile file systems and hostile names.
//!
//! Every case puts a known-faulty companion spec (`companion.jobspec.json`, one `owner-ignored`
//! warning) beside the hostile input and asserts that the companion is still linted, that the
//! hostile input becomes a clear finding (or a documented skip), and that the exit code is right.
//! Every run has a watchdog (a hang fails the test), and every run's stdout and stderr must be
//! UTF-8, free of a panic message, and free of raw control, escape and bidi characters. Large
//! inputs are generated into temporary directories by the tests themselves.
//!
//! Cases already covered by `tests/cli/` (a FIFO, socket, loop or dangling link one at a time,
//! an unreadable file for non-root users) and `tests/formats.rs` (a hostile value in name, owner,
//! corpus, a role key and a top-level key) are extended here, not repeated.

use crate::common;

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use common::run::forbidden;
use common::{patch, patch_first, reference, sarif_validator, Extra, Input, Run, Tree, FORMATS};

const MIB: u64 = 1024 * 1024;
const COMPANION: &str = "companion.jobspec.json";

// ---------------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------------

impl Run {
    /// The companion beside the hostile input was linted, whatever the format.
    #[track_caller]
    fn expect_companion(&self, format: &str) -> &Run {
        let ok = match format {
            "concise" => self
                .stdout
                .lines()
                .any(|l| l.starts_with("companion.jobspec.json:7:14: warning[owner-ignored]")),
            "human" => {
                self.stdout.contains("companion.jobspec.json:7:14")
                    && self.stdout.contains("warning[owner-ignored]")
            }
            "html" => {
                self.stdout
                    .contains("<code>companion.jobspec.json:7:14</code>")
                    && self
                        .stdout
                        .contains("<code class=\"id\">owner-ignored</code>")
            }
            "json" => self.json_of(COMPANION).iter().any(|f| {
                f["rule"] == "owner-ignored"
                    && f["start"]["line"] == 7
                    && f["start"]["column"] == 14
            }),
            "sarif" => self.json()["runs"][0]["results"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| {
                    r["ruleId"] == "owner-ignored"
                        && r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                            == COMPANION
                }),
            "github" => self.stdout.lines().any(|l| {
                l.starts_with("::warning file=companion.jobspec.json,line=7,")
                    && l.contains("title=owner-ignored::")
            }),
            "jsonl" => self
                .stdout
                .lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                .any(|f| {
                    f["path"] == COMPANION
                        && f["rule"] == "owner-ignored"
                        && f["start"]["line"] == 7
                        && f["start"]["column"] == 14
                }),
            "junit" => self.stdout.contains(
                "<testcase name=\"owner-ignored at 7:14\" classname=\"companion.jobspec.json\">",
            ),
            "gitlab" => self.json().as_array().unwrap().iter().any(|i| {
                i["check_name"] == "owner-ignored"
                    && i["location"]["path"] == COMPANION
                    && i["location"]["lines"]["begin"] == 7
            }),
            _ => unreachable!("{format}"),
        };
        assert!(
            ok,
            "forgelint {:?}: the companion's finding is missing\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.args, self.stdout, self.stderr
        );
        self
    }
}

// ---------------------------------------------------------------------------------------------
// Trees and specs
// ---------------------------------------------------------------------------------------------

const HYPERPARAMS: &str = r#""hyperparams": { "policy.optimizer.kwargs.lr": 1e-6 }"#;
const NAME: &str = r#""name": "grpo-gsm8k-0412""#;
const OWNER: &str = r#""owner": """#;
const POOLS: &str =
    r#""pools": [{ "name": "train", "series": "h200", "nodes": 1, "gpus_per_node": 8 }]"#;

/// The reference spec with `hyperparams` holding `{ "deep": inner }`: `inner` starts at depth 4
/// (the document, `spec` and `hyperparams` are three containers).
fn with_deep_hyperparam(inner: &str) -> String {
    patch(
        &reference(),
        HYPERPARAMS,
        &format!(r#""hyperparams": {{ "deep": {inner} }}"#),
    )
}

fn nested_arrays(n: usize) -> String {
    format!("{}{}", "[".repeat(n), "]".repeat(n))
}

fn nested_objects(n: usize) -> String {
    format!("{}1{}", "{\"k\":".repeat(n), "}".repeat(n))
}

impl Tree {
    /// A temporary project: `experiments/my-grpo` exists (so the reference spec is clean) and
    /// the companion spec sits at its root.
    fn with_companion() -> Tree {
        let tree = Tree::new();
        tree.mkdir("experiments/my-grpo")
            .write(COMPANION, patch(&reference(), OWNER, r#""owner": "alice""#));
        tree
    }
}

/// 1-based line and UTF-16 column of byte `offset` (the bytes before it must be UTF-8).
fn line_col(bytes: &[u8], offset: usize) -> String {
    let before = std::str::from_utf8(&bytes[..offset]).unwrap();
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    format!("{line}:{}", before[start..].encode_utf16().count() + 1)
}

/// stdout with SARIF's percent-encoded artifact URIs decoded, so a path can be looked for.
fn decoded_stdout(run: &Run, format: &str) -> String {
    if format != "sarif" {
        return run.stdout.clone();
    }
    let mut text = run.stdout.clone();
    for r in run.json()["runs"][0]["results"].as_array().unwrap() {
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        let bytes = uri.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            match (bytes[i], uri.get(i + 1..i + 3)) {
                (b'%', Some(hex)) if u8::from_str_radix(hex, 16).is_ok() => {
                    out.push(u8::from_str_radix(hex, 16).unwrap());
                    i += 3;
                }
                (b, _) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        text.push('\n');
        text.push_str(&String::from_utf8_lossy(&out));
    }
    text
}

#[track_caller]
fn assert_sarif_valid(run: &Run, validator: &jsonschema::Validator) -> Value {
    let doc = run.json();
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "SARIF is not schema-valid: {errors:?}");
    doc
}

/// Writes a valid spec of exactly `size` bytes: the reference spec with a hyperparameter padded
/// by `x`s, written in chunks (never held in memory whole).
fn write_padded_spec(path: &Path, size: u64) {
    let template = patch(
        &reference(),
        HYPERPARAMS,
        r#""hyperparams": { "pad": "@PAD@" }"#,
    );
    let (head, tail) = template.split_once("@PAD@").unwrap();
    let mut pad = size - head.len() as u64 - tail.len() as u64;
    let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
    out.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b'x'; MIB as usize];
    while pad > 0 {
        let n = pad.min(MIB);
        out.write_all(&chunk[..n as usize]).unwrap();
        pad -= n;
    }
    out.write_all(tail.as_bytes()).unwrap();
    out.flush().unwrap();
    assert_eq!(std::fs::metadata(path).unwrap().len(), size);
}

// ---------------------------------------------------------------------------------------------
// Bytes
// ---------------------------------------------------------------------------------------------

#[test]
fn invalid_utf8_is_invalid_json_at_the_first_bad_byte() {
    let tree = Tree::with_companion();
    // (file, bytes, offset of the first bad byte, the byte)
    let mid = patch(&reference(), NAME, "\"name\": \"é@BAD@\"");
    let mut mid_bytes = Vec::new();
    let (a, b) = mid.split_once("@BAD@").unwrap();
    mid_bytes.extend_from_slice(a.as_bytes());
    mid_bytes.extend_from_slice(b"\xff\xfe");
    mid_bytes.extend_from_slice(b.as_bytes());
    let cases: Vec<(&str, Vec<u8>, usize, u8)> = vec![
        ("utf8-mid.jobspec.json", mid_bytes, a.len(), 0xff),
        ("utf8-first.jobspec.json", b"\xff{}".to_vec(), 0, 0xff),
        // A multi-byte sequence cut off by the end of the file.
        (
            "utf8-truncated.jobspec.json",
            b"{\"a\": \"\xe2\x82".to_vec(),
            7,
            0xe2,
        ),
        // An overlong encoding of `/`.
        (
            "utf8-overlong.jobspec.json",
            b"{\"a\": \"\xc0\xaf\"}".to_vec(),
            7,
            0xc0,
        ),
        // A surrogate encoded in UTF-8 (CESU-8), after a line of CJK.
        (
            "utf8-cesu.jobspec.json",
            "{\n  \"数据\": \"🚀"
                .bytes()
                .chain(*b"\xed\xa0\x80\"}")
                .collect(),
            "{\n  \"数据\": \"🚀".len(),
            0xed,
        ),
    ];
    for (name, bytes, _, _) in &cases {
        tree.write(name, bytes);
    }
    let run = tree.run(&["--no-config", "--format", "concise", "."]);
    run.expect_code(1).expect_companion("concise");
    for (name, bytes, offset, byte) in &cases {
        let found = run.findings_of(name);
        assert_eq!(found.len(), 1, "{name}: {found:?}");
        let f = &found[0];
        assert_eq!(f.rule, "invalid-json", "{name}");
        assert_eq!(f.position, line_col(bytes, *offset), "{name}: {f:?}");
        assert!(
            f.message.contains("not valid UTF-8")
                && f.message.contains(&format!("0x{byte:02X}"))
                && f.message.contains(&format!("offset {offset}")),
            "{name}: {}",
            f.message
        );
    }
    // The mid-file case by hand: line 5, `    "name": "é` is 14 UTF-16 units.
    assert_eq!(run.findings_of("utf8-mid.jobspec.json")[0].position, "5:15");
    for format in ["human", "json", "sarif", "github"] {
        let run = tree.run(&["--no-config", "--format", format, "."]);
        run.expect_code(1).expect_companion(format);
        assert!(run.stdout.contains("UTF-8"), "{format}: {}", run.stdout);
    }
}

#[test]
fn a_lone_surrogate_escape_becomes_a_replacement_character() {
    let tree = Tree::with_companion();
    let spec = patch(
        &patch(&reference(), NAME, r#""name": "\ud800/x""#),
        r#""labels": { "team": "reasoning" }"#,
        r#""labels": { "team": "\udfff\ud800", "\ud800": "lone key" }, "\udc00": 1"#,
    );
    tree.write("surrogate.jobspec.json", &spec);
    let validator = sarif_validator();
    for format in FORMATS {
        let run = tree.run(&["--no-config", "--format", format, "."]);
        run.expect_code(1).expect_companion(format);
        // The value is printed: as U+FFFD (what the platform decodes it to) or escaped.
        assert!(
            run.stdout.contains("\u{FFFD}/x") || run.stdout.contains("\\ud800/x"),
            "{format}: {}",
            run.stdout
        );
        match format {
            "concise" => {
                let found = run.findings_of("surrogate.jobspec.json");
                let rules: Vec<&str> = found.iter().map(|f| f.rule.as_str()).collect();
                assert_eq!(rules, ["name-format", "unknown-field"], "{found:?}");
                assert_eq!(found[0].position, "5:13");
            }
            // serde_json refuses a lone surrogate escape: the documents hold none.
            "json" => assert_eq!(run.json_of("surrogate.jobspec.json").len(), 2),
            "sarif" => {
                assert_sarif_valid(&run, &validator);
            }
            _ => {}
        }
    }
}

#[test]
fn a_nul_byte_is_invalid_raw_and_shown_escaped_when_escaped() {
    let tree = Tree::with_companion();
    tree.write(
        "nul-in-string.jobspec.json",
        patch(&reference(), "\"forge/v2\"", "\"forge\0/v2\""),
    )
    .write("nul-between-tokens.jobspec.json", "{\0}")
    .write(
        "nul-escaped.jobspec.json",
        patch(
            &patch(&reference(), NAME, r#""name": "a\u0000b""#),
            OWNER,
            r#""owner": "\u0000""#,
        ),
    );
    let run = tree.run(&["--no-config", "--format", "concise", "."]);
    run.expect_code(1).expect_companion("concise");
    let raw = run.findings_of("nul-in-string.jobspec.json");
    assert_eq!(raw.len(), 1, "{raw:?}");
    assert_eq!(
        (raw[0].rule.as_str(), raw[0].position.as_str()),
        ("invalid-json", "2:23")
    );
    assert!(raw[0].message.contains("U+0000"), "{}", raw[0].message);
    let between = run.findings_of("nul-between-tokens.jobspec.json");
    assert_eq!(
        (between[0].rule.as_str(), between[0].position.as_str()),
        ("invalid-json", "1:2")
    );
    // `\u0000` is a valid escape: the spec parses, the rules see a NUL and say so, escaped.
    let escaped = run.findings_of("nul-escaped.jobspec.json");
    let rules: Vec<&str> = escaped.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(rules, ["name-format", "owner-ignored"], "{escaped:?}");
    assert!(escaped[0].message.contains(r#""a\u{0}b""#), "{escaped:?}");
    assert!(escaped[1].message.contains(r#""\u{0}""#), "{escaped:?}");
    for format in ["human", "json", "sarif", "github"] {
        let run = tree.run(&["--no-config", "--format", format, "."]);
        run.expect_code(1).expect_companion(format);
        if format == "human" {
            assert!(
                run.stdout.contains("forge␀/v2"),
                "a picture:\n{}",
                run.stdout
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------

#[test]
fn nesting_is_accepted_to_10000_containers_and_refused_beyond_in_bounded_time() {
    let tree = Tree::with_companion();
    // Containers in total, counting the document, `spec` and `hyperparams`.
    tree.write(
        "arrays-10000.jobspec.json",
        with_deep_hyperparam(&nested_arrays(10_000 - 3)),
    )
    .write(
        "objects-10000.jobspec.json",
        with_deep_hyperparam(&nested_objects(10_000 - 3)),
    )
    .write(
        "arrays-10001.jobspec.json",
        with_deep_hyperparam(&nested_arrays(10_001 - 3)),
    )
    .write(
        "objects-10001.jobspec.json",
        with_deep_hyperparam(&nested_objects(10_001 - 3)),
    )
    .write(
        "arrays-100000.jobspec.json",
        with_deep_hyperparam(&nested_arrays(100_000)),
    )
    .write(
        "objects-100000.jobspec.json",
        with_deep_hyperparam(&nested_objects(100_000)),
    )
    // Unclosed: the error is the depth, not the truncation.
    .write(
        "unclosed-100000.jobspec.json",
        format!("{{\"a\": {}", "[".repeat(100_000)),
    )
    // 10,000 deep where findings are made: an unknown key and a field of the wrong type, whose
    // values are hashed, located and shown.
    .write(
        "deep-findings.jobspec.json",
        patch(
            &patch(
                &reference(),
                NAME,
                &format!("\"name\": {}", nested_arrays(10_000 - 2)),
            ),
            "\"apiVersion\"",
            &format!("\"zzz\": {}, \"apiVersion\"", nested_objects(10_000 - 1)),
        ),
    );
    let run = tree.run(&["--no-config", "--format", "concise", "."]);
    run.expect_code(1).expect_companion("concise");
    assert!(
        run.elapsed < Duration::from_secs(30),
        "took {:?}",
        run.elapsed
    );
    for accepted in ["arrays-10000.jobspec.json", "objects-10000.jobspec.json"] {
        assert_eq!(run.findings_of(accepted), [], "{accepted}");
    }
    for refused in [
        "arrays-10001.jobspec.json",
        "objects-10001.jobspec.json",
        "arrays-100000.jobspec.json",
        "objects-100000.jobspec.json",
        "unclosed-100000.jobspec.json",
    ] {
        let found = run.findings_of(refused);
        assert_eq!(found.len(), 1, "{refused}: {found:?}");
        assert_eq!(found[0].rule, "invalid-json", "{refused}");
        assert!(
            found[0].message.contains("nesting") && found[0].message.contains("10000"),
            "{refused}: {}",
            found[0].message
        );
    }
    // The 10,001st container is where the finding points.
    let text = std::fs::read_to_string(tree.path("arrays-10001.jobspec.json")).unwrap();
    let at = text.find("\"deep\": ").unwrap() + "\"deep\": ".len() + (10_001 - 3 - 1);
    assert_eq!(
        run.findings_of("arrays-10001.jobspec.json")[0].position,
        line_col(text.as_bytes(), at)
    );
    let deep = run.findings_of("deep-findings.jobspec.json");
    let rules: Vec<&str> = deep.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(rules, ["unknown-field", "wrong-type"], "{deep:?}");
    assert!(deep.iter().all(|f| f.message.len() < 300), "{deep:?}");
    for format in ["human", "json", "sarif", "github"] {
        let run = tree.run(&["--no-config", "--format", format, "."]);
        run.expect_code(1).expect_companion(format);
        if format == "human" {
            // A window around the span of a 50,000-character line, not the line.
            assert!(run.longest_line() < 400, "{}", run.longest_line());
        }
    }
}

#[test]
fn a_100_mb_spec_is_refused_unparsed_in_bounded_time_and_memory() {
    let tree = Tree::with_companion();
    write_padded_spec(&tree.path("huge.jobspec.json"), 100 * MIB);
    for format in ["concise", "human"] {
        let run = tree.run_with(
            &["--no-config", "--format", format, "."],
            &Extra {
                measure: true,
                ..Extra::default()
            },
        );
        run.expect_code(1).expect_companion(format);
        assert!(
            run.stdout.contains("larger than the 32 MiB limit"),
            "{format}: {}",
            run.stdout
        );
        if format == "concise" {
            let found = run.findings_of("huge.jobspec.json");
            assert_eq!(found.len(), 1, "{found:?}");
            assert_eq!(
                (found[0].rule.as_str(), found[0].position.as_str()),
                ("invalid-json", "1:1")
            );
        }
        // A guard against a hang or a parse of the whole file, not a measure of speed: a debug
        // build on a loaded machine frames the file's first 32 MiB in seconds.
        assert!(
            run.elapsed < Duration::from_secs(60),
            "{format}: took {:?}",
            run.elapsed
        );
        let rss = run.peak_rss_kb.expect("peak RSS measured");
        assert!(rss < 200 * 1024, "{format}: peak RSS {rss} KiB");
        eprintln!(
            "100 MB spec, {format}: {:?}, peak RSS {rss} KiB",
            run.elapsed
        );
    }
    // The same from standard input.
    let run = tree.run_with(
        &[
            "--no-config",
            "--format",
            "concise",
            "--stdin-filename",
            "piped.jobspec.json",
            "-",
            COMPANION,
        ],
        &Extra {
            stdin: Input::File(tree.path("huge.jobspec.json")),
            measure: true,
            ..Extra::default()
        },
    );
    run.expect_code(1).expect_companion("concise");
    let found = run.findings_of("piped.jobspec.json");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].message.contains("32 MiB"), "{found:?}");
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
    let rss = run.peak_rss_kb.expect("peak RSS measured");
    assert!(rss < 200 * 1024, "stdin: peak RSS {rss} KiB");
}

#[test]
fn the_size_limit_is_exactly_32_mib() {
    let tree = Tree::with_companion();
    write_padded_spec(&tree.path("at-limit.jobspec.json"), 32 * MIB);
    write_padded_spec(&tree.path("over-limit.jobspec.json"), 32 * MIB + 1);
    let run = tree.run_with(
        &["--no-config", "--format", "concise", "."],
        &Extra {
            measure: true,
            ..Extra::default()
        },
    );
    run.expect_code(1).expect_companion("concise");
    assert_eq!(
        run.findings_of("at-limit.jobspec.json"),
        [],
        "parsed, clean"
    );
    let over = run.findings_of("over-limit.jobspec.json");
    assert_eq!(over.len(), 1, "{over:?}");
    assert!(over[0].message.contains("32 MiB"), "{over:?}");
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);
    eprintln!(
        "32 MiB specs: {:?}, peak RSS {:?} KiB",
        run.elapsed, run.peak_rss_kb
    );
}

#[test]
fn a_10_mb_string_is_linted_and_its_message_truncated() {
    let tree = Tree::with_companion();
    let long = "b".repeat(10 * MIB as usize);
    tree.write(
        "long.jobspec.json",
        patch(&reference(), NAME, &format!("\"name\": \"{long}@\"")),
    );
    let run = tree.run(&["--no-config", "--format", "json", "."]);
    run.expect_code(1).expect_companion("json");
    let found = run.json_of("long.jobspec.json");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["rule"], "name-format");
    let message = found[0]["message"].as_str().unwrap();
    assert!(message.len() < 400 && message.contains('…'), "{message}");
    assert_eq!(
        found[0]["span"]["end"].as_u64().unwrap() - found[0]["span"]["start"].as_u64().unwrap(),
        10 * MIB + 3
    );
    assert!(run.stdout.len() < 64 * 1024, "{} bytes", run.stdout.len());
    let run = tree.run(&["--no-config", "--format", "human", "."]);
    run.expect_code(1).expect_companion("human");
    assert!(run.stdout.contains("error[name-format]"), "{}", run.stdout);
    assert!(
        run.longest_line() < 400,
        "a line of {} characters",
        run.longest_line()
    );
    assert!(run.stdout.len() < 64 * 1024, "{} bytes", run.stdout.len());
}

/// The reference spec with these pools (and a trainer role on the first).
fn with_pools(pools: &[(&str, &str, &str)]) -> String {
    let pools: Vec<String> = pools
        .iter()
        .map(|(name, nodes, gpus)| {
            format!(
                r#"{{ "name": "{name}", "series": "h200", "nodes": {nodes}, "gpus_per_node": {gpus} }}"#
            )
        })
        .collect();
    patch(
        &reference(),
        POOLS,
        &format!(r#""pools": [{}]"#, pools.join(", ")),
    )
}

const QUOTA_CONFIG: &str = "[platform]\ngpu-quota = 64\n";

#[test]
fn extreme_numbers_get_sensible_verdicts() {
    let tree = Tree::with_companion();
    tree.write("forgelint.toml", QUOTA_CONFIG)
        .write(
            "types.jobspec.json",
            with_pools(&[
                ("train", "1e400", "8"),
                ("b", "-0", "8"),
                ("c", "1", "1E-400"),
                ("d", "1", "-1e-400"),
                ("e", "1", "-0"),
                ("f", "-1e-400", "0"),
            ]),
        )
        .write(
            "huge.jobspec.json",
            with_pools(&[("train", "1", "123456789012345678901234567890")]),
        )
        // Σ nodes × gpus_per_node overflows 128 bits.
        .write(
            "overflow.jobspec.json",
            with_pools(&[
                ("train", "123456789012345678901234567890", "123456789012345678901234567890"),
                ("gen", "340282366920938463463374607431768211455", "2"),
            ]),
        )
        .write(
            "hyperparams.jobspec.json",
            patch(
                &reference(),
                HYPERPARAMS,
                r#""hyperparams": { "a": 1e400, "b": -0, "c": 1E-400, "d": -1e-400, "e": 123456789012345678901234567890, "f": -123456789012345678901234567890.5e-99999 }"#,
            ),
        );
    let run = tree.run(&["--config", "forgelint.toml", "--format", "json", "."]);
    run.expect_code(1).expect_companion("json");
    let verdicts = |path: &str| -> Vec<(String, String)> {
        run.json_of(path)
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().unwrap().to_string(),
                    f["pointer"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let wrong = |pointer: &str| ("wrong-type".to_string(), pointer.to_string());
    // Not integer literals, or below the minimum; `-0` GPUs is zero GPUs.
    assert_eq!(
        verdicts("types.jobspec.json"),
        [
            wrong("/spec/resources/pools/0/nodes"),
            wrong("/spec/resources/pools/1/nodes"),
            wrong("/spec/resources/pools/2/gpus_per_node"),
            wrong("/spec/resources/pools/3/gpus_per_node"),
            wrong("/spec/resources/pools/5/nodes"),
        ]
    );
    for f in run.json_of("types.jobspec.json") {
        let message = f["message"].as_str().unwrap();
        assert!(
            ["1e400", "-0", "1E-400", "-1e-400"]
                .iter()
                .any(|n| message.ends_with(&format!("found {n}"))),
            "the literal is shown as written: {message}"
        );
    }
    let huge = run.json_of("huge.jobspec.json");
    assert_eq!(huge.len(), 1, "{huge:?}");
    assert_eq!(huge[0]["rule"], "gpu-quota");
    let message = huge[0]["message"].as_str().unwrap();
    assert!(
        message.contains("123456789012345678901234567890") && message.contains("64"),
        "{message}"
    );
    let overflow = run.json_of("overflow.jobspec.json");
    assert_eq!(overflow.len(), 1, "{overflow:?}");
    assert_eq!(overflow[0]["rule"], "gpu-quota");
    assert_eq!(verdicts("hyperparams.jobspec.json"), []);
}

#[test]
fn gpus_per_node_beyond_128_bits_still_exceeds_the_quota() {
    // Input: one pool with nodes 1 and gpus_per_node 10^40 (an integer literal), gpu-quota 64.
    // Expected: gpu-quota fires (wrong-type does not: it is an integer ≥ 0).
    // Actual: no finding at all; `raw.parse::<u128>()` fails and the pool counts as 0 GPUs.
    let tree = Tree::with_companion();
    let beyond = format!("1{}", "0".repeat(40));
    tree.write("forgelint.toml", QUOTA_CONFIG).write(
        "beyond.jobspec.json",
        with_pools(&[("train", "1", &beyond)]),
    );
    let run = tree.run(&["--config", "forgelint.toml", "--format", "concise", "."]);
    run.expect_companion("concise");
    let found = run.findings_of("beyond.jobspec.json");
    let rules: Vec<&str> = found.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(rules, ["gpu-quota"], "{found:?}");
    run.expect_code(1);
}

fn unknown_keys(n: usize) -> String {
    let keys: String = (0..n).map(|i| format!("\"u{i:06}\": {i},\n")).collect();
    // The document's opening brace: the first `{` and newline of several.
    patch_first(&reference(), "{\n", &format!("{{\n{keys}"))
}

#[test]
fn wide_objects_are_fast_and_findings_are_capped_per_file() {
    let tree = Tree::with_companion();
    let keys: Vec<String> = (0..100_000).map(|i| format!("\"k{i:06}\": {i}")).collect();
    tree.write(
        "hyperparams.jobspec.json",
        patch(
            &reference(),
            HYPERPARAMS,
            &format!("\"hyperparams\": {{ {} }}", keys.join(", ")),
        ),
    )
    .write("wide.jobspec.json", unknown_keys(100_000))
    .write("edge-1000.jobspec.json", unknown_keys(1000))
    .write("edge-1001.jobspec.json", unknown_keys(1001));
    let run = tree.run(&["--no-config", "--format", "json", "."]);
    run.expect_code(0).expect_companion("json");
    assert!(run.elapsed < Duration::from_secs(40), "{:?}", run.elapsed);
    assert_eq!(run.json_of("hyperparams.jobspec.json"), Vec::<Value>::new());
    let note = |n: usize| format!(" ({n} more findings in this file not shown)");
    for (path, dropped) in [
        ("wide.jobspec.json", Some(99_000)),
        ("edge-1000.jobspec.json", None),
        ("edge-1001.jobspec.json", Some(1)),
    ] {
        let found = run.json_of(path);
        assert_eq!(found.len(), 1000, "{path}: at most 1,000 findings per file");
        assert!(found.iter().all(|f| f["rule"] == "unknown-field"), "{path}");
        let messages: Vec<&str> = found
            .iter()
            .map(|f| f["message"].as_str().unwrap())
            .collect();
        // The first 1,000 in file order are kept; the last of them carries the note.
        assert!(messages[0].contains("u000000"), "{path}: {}", messages[0]);
        assert!(
            messages[999].contains("u000999"),
            "{path}: {}",
            messages[999]
        );
        match dropped {
            Some(n) => assert!(
                messages[999].ends_with(&note(n)),
                "{path}: {}",
                messages[999]
            ),
            None => assert!(!messages[999].contains("more findings"), "{path}"),
        }
        assert!(
            messages[..999].iter().all(|m| !m.contains("more findings")),
            "{path}: only the last finding carries the note"
        );
    }

    // Human output: 200 code frames, then one line each, with a note that says so.
    std::fs::remove_file(tree.path("edge-1000.jobspec.json")).unwrap();
    std::fs::remove_file(tree.path("edge-1001.jobspec.json")).unwrap();
    let run = tree.run(&["--no-config", "--format", "human", "."]);
    run.expect_code(0).expect_companion("human");
    assert_eq!(run.stdout.matches("╭─[").count(), 200, "code frames");
    let lines: Vec<&str> = run.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("801 more findings") && l.contains("200"))
        .unwrap_or_else(|| panic!("no note on the findings beyond 200"));
    let rest = &lines[at + 1..];
    assert_eq!(rest.len(), 801, "one line per finding after the note");
    assert!(rest
        .iter()
        .all(|l| l.starts_with("wide.jobspec.json:") && l.contains("warning[unknown-field]")));
    assert!(rest[800].ends_with(&note(99_000)), "{}", rest[800]);
}

/// Findings spilled to disk (every file's, with the debug builds' `FORGELINT_SPILL_BYTES=1`)
/// are reported exactly as findings held in memory: the same bytes in every format, with
/// `--statistics`, under a baseline and when writing one, whatever the thread count.
#[test]
fn spilled_findings_are_reported_as_held_ones() {
    if !cfg!(debug_assertions) {
        eprintln!("skipped: FORGELINT_SPILL_BYTES works in debug builds only");
        return;
    }
    let tree = Tree::with_companion();
    for i in 0..6 {
        tree.write(format!("many-{i}.jobspec.json"), unknown_keys(3));
        tree.write(format!("sub/{i}/a.jobspec.json"), unknown_keys(i));
    }
    tree.write("sub/broken.jobspec.json", "{\"a\": ");
    let spill = Extra {
        env: vec![("FORGELINT_SPILL_BYTES".into(), "1".into())],
        ..Extra::default()
    };
    let summary_line = |stderr: &str| -> String {
        // The time taken differs from run to run.
        stderr
            .lines()
            .map(|l| l.split(" (").next().unwrap_or(l).to_string())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let compare = |args: &[&str]| {
        let held = tree.run(args);
        let spilled = tree.run_with(args, &spill);
        assert_eq!(held.code, spilled.code, "{args:?}");
        assert!(
            !held.stdout.is_empty() || args.contains(&"--write-baseline"),
            "{args:?}"
        );
        assert_eq!(held.stdout, spilled.stdout, "{args:?}");
        assert_eq!(
            summary_line(&held.stderr),
            summary_line(&spilled.stderr),
            "{args:?}"
        );
    };
    for jobs in ["1", "2"] {
        for format in FORMATS {
            compare(&["--no-config", "-j", jobs, "--format", format, "."]);
        }
        for format in ["json", "concise"] {
            compare(&[
                "--no-config",
                "-j",
                jobs,
                "--statistics",
                "--format",
                format,
                ".",
            ]);
        }
    }
    let json = tree.run_with(&["--no-config", "--format", "json", "."], &spill);
    assert_eq!(json.json()["summary"]["warnings"], 34, "{}", json.stdout);
    // The unparsable file is a notification, found among spilled findings too.
    let sarif = tree.run_with(&["--no-config", "--format", "sarif", "."], &spill);
    let doc = sarif.json();
    let notes = doc["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    let errors: Vec<&serde_json::Value> = notes.iter().filter(|n| n["level"] == "error").collect();
    assert_eq!(errors.len(), 1, "{notes:?}");
    assert!(errors[0]["message"]["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("sub/broken.jobspec.json: ")));

    // A baseline written from spilled findings is the one written from held ones; applied to
    // a tree with more findings, it hides the same ones.
    let write = |extra: &Extra, name: &str| {
        tree.run_with(&["--no-config", "--write-baseline", name, "."], extra)
            .expect_code(0);
        std::fs::read_to_string(tree.path(name)).unwrap()
    };
    assert_eq!(
        write(&Extra::default(), "held.json"),
        write(&spill, "spilled.json")
    );
    tree.write("many-0.jobspec.json", unknown_keys(5));
    tree.write("new.jobspec.json", unknown_keys(2));
    for format in ["json", "sarif", "human"] {
        compare(&[
            "--no-config",
            "--baseline",
            "held.json",
            "--format",
            format,
            ".",
        ]);
        // `--max-results` keeps the same findings of spilled runs, alone and after a
        // baseline (whose filter the cut's comes after).
        for baseline in [&[][..], &["--baseline", "held.json"]] {
            let mut args = vec!["--no-config", "--max-results", "7", "--format", format];
            args.extend(baseline);
            args.push(".");
            compare(&args);
        }
    }
    let doc = tree
        .run_with(
            &[
                "--no-config",
                "--baseline",
                "held.json",
                "--format",
                "json",
                ".",
            ],
            &spill,
        )
        .json();
    assert_eq!(doc["summary"]["baseline"]["hidden"], 35, "{doc}");
    assert_eq!(doc["findings"].as_array().map(Vec::len), Some(4), "{doc}");
}

#[test]
fn escapes_in_keys_are_decoded_before_keys_are_compared() {
    let tree = Tree::with_companion();
    let escapes = [
        r#"a\"b"#,
        r#"a\\b"#,
        r#"a\/b"#,
        r#"\b"#,
        r#"\f"#,
        r#"\n"#,
        r#"\r"#,
        r#"\t"#,
        r#"\u00e9"#,
        r#"\ud83d\ude00"#,
        "x~y/z",
    ];
    let members: Vec<String> = escapes.iter().map(|k| format!("\"{k}\": 1")).collect();
    let members = members.join(", ");
    tree.write(
        // Escaped spellings of known keys are those keys.
        "known.jobspec.json",
        patch(
            &patch(
                &patch(&reference(), NAME, r#""n\u0061me": "grpo-gsm8k-0412""#),
                "\"apiVersion\"",
                r#""api\u0056ersion""#,
            ),
            "\"kind\": \"TrainingJob\"",
            r#""\u006b\u0069nd": "Tr\u0061iningJob""#,
        ),
    )
    .write(
        // Labels are a free map: any key is fine.
        "labels.jobspec.json",
        patch(
            &reference(),
            r#""team": "reasoning""#,
            &members,
        ),
    )
    .write(
        "top.jobspec.json",
        patch(&reference(), "\"apiVersion\"", &format!("{members}, \"apiVersion\"")),
    )
    .write(
        "duplicates.jobspec.json",
        patch(
            &patch(
                &reference(),
                r#""team": "reasoning""#,
                r#""a/b": 1, "a\/b": 2, "é": 3, "\u00e9": 4, "😀": 5, "\ud83d\ude00": 6, "\u0041": 7, "A": 8"#,
            ),
            r#""project": "my-lab""#,
            r#""project": "my-lab", "pr\u006fject": "my-lab""#,
        ),
    );
    let run = tree.run(&["--no-config", "--format", "json", "."]);
    run.expect_code(1).expect_companion("json");
    assert_eq!(run.json_of("known.jobspec.json"), Vec::<Value>::new());
    assert_eq!(run.json_of("labels.jobspec.json"), Vec::<Value>::new());

    let top = run.json_of("top.jobspec.json");
    let pointers: Vec<&str> = top.iter().map(|f| f["pointer"].as_str().unwrap()).collect();
    assert_eq!(
        pointers,
        [
            "/a\"b", "/a\\b", "/a~1b", "/\u{8}", "/\u{c}", "/\n", "/\r", "/\t", "/é", "/😀",
            "/x~0y~1z"
        ],
        "JSON Pointers of the decoded keys, RFC 6901-escaped"
    );
    assert!(top.iter().all(|f| f["rule"] == "unknown-field"));

    let dups = run.json_of("duplicates.jobspec.json");
    let found: Vec<(&str, &str)> = dups
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert_eq!(dups.len(), 5, "{found:?}");
    assert!(
        dups.iter().all(|f| f["rule"] == "duplicate-key"),
        "{found:?}"
    );
    for key in ["\"project\"", "\"a/b\"", "\"é\"", "\"😀\"", "\"A\""] {
        assert!(
            found.iter().any(|(_, m)| m.contains(key)),
            "no duplicate {key}: {found:?}"
        );
    }
    // Each points at the second spelling and labels the first.
    let text = std::fs::read_to_string(tree.path("duplicates.jobspec.json")).unwrap();
    for f in &dups {
        let second = f["span"]["start"].as_u64().unwrap() as usize;
        let first = f["related"][0]["span"]["start"].as_u64().unwrap() as usize;
        assert!(first < second, "{f}");
    }
    let second_a = text.find(r#""a\/b""#).unwrap();
    assert!(dups
        .iter()
        .any(|f| f["span"]["start"].as_u64() == Some(second_a as u64)));

    // Escaped keys are shown escaped in the one-line formats.
    let run = tree.run(&["--no-config", "--format", "concise", "top.jobspec.json"]);
    run.expect_code(0);
    for shown in [r#""\b""#, r#""\n""#, r#""\r""#, r#""\t""#, "😀", "é"] {
        assert!(run.stdout.contains(shown), "{shown} in\n{}", run.stdout);
    }
}

// ---------------------------------------------------------------------------------------------
// The file system
// ---------------------------------------------------------------------------------------------

#[test]
#[cfg(unix)]
fn special_files_are_findings_and_the_other_files_are_still_linted() {
    use std::os::unix::fs::PermissionsExt;
    let tree = Tree::with_companion();
    tree.write("dir/jobspec.json/inner.txt", "not a spec")
        .symlink("loop.jobspec.json", "loop.jobspec.json")
        .symlink("nowhere/jobspec.json", "dangling.jobspec.json")
        .write("locked.jobspec.json", reference());
    let status = Command::new("mkfifo")
        .arg(tree.path("fifo.jobspec.json"))
        .status()
        .unwrap();
    assert!(status.success());
    let _socket = std::os::unix::net::UnixListener::bind(tree.path("socket.jobspec.json")).unwrap();
    // (file, what its finding says)
    let mut expected = vec![
        ("dangling.jobspec.json", "dangling"),
        ("fifo.jobspec.json", "FIFO"),
        ("loop.jobspec.json", "symbolic link"),
        ("socket.jobspec.json", "socket"),
    ];
    if Path::new("/dev/zero").exists() {
        // A device behind a link: never opened (reading it would never end).
        tree.symlink("/dev/zero", "device.jobspec.json");
        expected.push(("device.jobspec.json", "device"));
    }
    // A regular file whose read fails even for root: /proc/self/mem at offset 0 is EIO.
    if std::fs::metadata("/proc/self/mem").is_ok_and(|m| m.is_file())
        && std::fs::read("/proc/self/mem").is_err()
    {
        tree.symlink("/proc/self/mem", "eio.jobspec.json");
        expected.push(("eio.jobspec.json", "cannot read the file"));
    }
    std::fs::set_permissions(
        tree.path("locked.jobspec.json"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let locked = std::fs::read(tree.path("locked.jobspec.json")).is_err();
    if locked {
        expected.push(("locked.jobspec.json", "Permission denied"));
    } else {
        eprintln!("skipped: mode 000 does not stop this user (root?); locked.jobspec.json is read");
    }
    expected.sort();

    let check = |run: &Run| {
        run.expect_companion("concise");
        for (file, says) in &expected {
            let found = run.findings_of(file);
            assert_eq!(found.len(), 1, "{file}: {found:?}\n{}", run.stdout);
            assert_eq!(
                (found[0].rule.as_str(), found[0].position.as_str()),
                ("invalid-json", "1:1"),
                "{file}"
            );
            assert!(
                found[0].message.contains(says),
                "{file}: {}",
                found[0].message
            );
        }
        assert!(
            !run.findings_of("loop.jobspec.json")[0]
                .message
                .contains("dangling"),
            "a loop is not dangling"
        );
        if !locked {
            assert_eq!(run.findings_of("locked.jobspec.json"), []);
        }
        let mut paths: Vec<String> = run.findings().into_iter().map(|f| f.path).collect();
        paths.dedup();
        let mut want: Vec<&str> = expected.iter().map(|(f, _)| *f).collect();
        want.push(COMPANION);
        want.sort();
        assert_eq!(paths, want, "nothing else is reported");
    };
    // Walked: findings, exit 1.
    let walked = tree.run(&["--no-config", "--format", "concise", "."]);
    walked.expect_code(1);
    check(&walked);
    // Named: the same findings, and exit 2 (an explicitly named file could not be read).
    let mut named: Vec<&str> = vec![
        "--no-config",
        "--format",
        "concise",
        COMPANION,
        "dir/jobspec.json",
    ];
    named.extend(expected.iter().map(|(f, _)| *f));
    let run = tree.run(&named);
    run.expect_code(2);
    check(&run);
    // SARIF: each unreadable file is also a tool execution notification.
    let validator = sarif_validator();
    let run = tree.run(&["--no-config", "--format", "sarif", "."]);
    run.expect_code(1).expect_companion("sarif");
    let doc = assert_sarif_valid(&run, &validator);
    // Besides the notes on rules that need context (--no-config gives none).
    let notes: Vec<&serde_json::Value> = doc["runs"][0]["invocations"][0]
        ["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["level"] != "note")
        .collect();
    assert_eq!(notes.len(), expected.len(), "{notes:?}");
    std::fs::set_permissions(
        tree.path("locked.jobspec.json"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
}

#[test]
fn a_file_that_vanishes_after_discovery_cannot_be_read() {
    // The library's read of a path discovered and then removed: a NotFound error, which the
    // run reports as an `invalid-json` finding ("cannot read the file: …").
    let tree = Tree::with_companion();
    tree.write("gone.jobspec.json", reference());
    let settings = forgelint::config::load_settings(
        &forgelint::config::ConfigSource {
            none: true,
            ..Default::default()
        },
        tree.root(),
    )
    .unwrap();
    let found = forgelint::discover::discover(
        &[tree.path("gone.jobspec.json"), tree.path(COMPANION)],
        &forgelint::discover::Options {
            settings: &settings,
            no_ignore: false,
            threads: 1,
            cwd: tree.root(),
            discovered_only: false,
        },
    );
    assert_eq!(found.files.len(), 2);
    std::fs::remove_file(tree.path("gone.jobspec.json")).unwrap();
    let gone = found
        .files
        .iter()
        .find(|c| c.path.ends_with("gone.jobspec.json"))
        .unwrap();
    assert!(gone.problem.is_none() && gone.explicit);
    let err = forgelint::read::read_bounded(&gone.path).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
}

#[test]
fn reading_what_replaced_a_regular_file_names_it_and_a_reused_buffer_holds_only_the_new_file() {
    // The read path checks the file type only when a read looks unusual (an error, no bytes,
    // no end): each of those outcomes must still say "not a regular file".
    let tree = Tree::with_companion();
    tree.write("big.json", "x".repeat(40_000))
        .write("small.json", "{}")
        .write("empty.json", "");
    let status = Command::new("mkfifo")
        .arg(tree.path("fifo.json"))
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::create_dir(tree.path("folder.json")).unwrap();
    let mut buffer = Vec::new();
    forgelint::read::read_bounded_into(&tree.path("big.json"), &mut buffer).unwrap();
    assert_eq!(buffer.len(), 40_000);
    // A file larger than the first read is sized from its length, not grown by doubling.
    assert!(buffer.capacity() < 48_000, "capacity {}", buffer.capacity());
    forgelint::read::read_bounded_into(&tree.path("small.json"), &mut buffer).unwrap();
    assert_eq!(buffer, b"{}");
    forgelint::read::read_bounded_into(&tree.path("empty.json"), &mut buffer).unwrap();
    assert!(buffer.is_empty());
    let mut others = vec![tree.path("fifo.json"), tree.path("folder.json")];
    // (Some sandboxes make /dev/null a regular file.)
    if std::fs::metadata("/dev/null").is_ok_and(|m| !m.is_file()) {
        others.push(PathBuf::from("/dev/null"));
    }
    for path in others {
        let err = match forgelint::read::read_bounded_into(&path, &mut buffer) {
            Ok(()) => panic!("{}: read as {} bytes", path.display(), buffer.len()),
            Err(e) => e,
        };
        assert!(
            err.to_string().contains("not a regular file"),
            "{}: {err}",
            path.display()
        );
    }
    if std::fs::metadata("/dev/zero").is_ok_and(|m| !m.is_file()) {
        let err = forgelint::read::read_bounded(Path::new("/dev/zero")).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }
}

/// Many clean specs under `specs/`, and a thread that does `act` to each, from the last, paced so
/// that it overtakes the linting (which reads in path order) after the walk has listed them.
fn race(n: usize, spec: &str, act: fn(&Path)) -> (Tree, thread::JoinHandle<()>) {
    let tree = Tree::with_companion();
    for i in 0..n {
        tree.write(format!("specs/s{i:05}.jobspec.json"), spec);
    }
    let dir = tree.path("specs");
    let handle = thread::spawn(move || {
        thread::sleep(Duration::from_millis(150));
        for i in (0..n).rev() {
            act(&dir.join(format!("s{i:05}.jobspec.json")));
            thread::sleep(Duration::from_micros(500));
        }
    });
    (tree, handle)
}

#[test]
fn files_that_vanish_mid_run_are_findings_not_crashes() {
    let (tree, deleter) = race(2000, &reference(), |p| {
        let _ = std::fs::remove_file(p);
    });
    let run = tree.run(&["--no-config", "--format", "concise", "-j", "2", "."]);
    deleter.join().unwrap();
    // Walked files that vanished are findings, not tool errors.
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    run.expect_companion("concise");
    for f in run.findings() {
        if f.path == COMPANION {
            continue;
        }
        assert!(f.path.starts_with("specs/s"), "{f:?}");
        assert_eq!(
            (f.rule.as_str(), f.position.as_str()),
            ("invalid-json", "1:1"),
            "{f:?}"
        );
        assert!(
            f.message.starts_with("cannot read the file") && f.message.contains("No such file"),
            "{f:?}"
        );
    }
    eprintln!(
        "{} of 2000 specs vanished between discovery and reading",
        run.findings().len() - 1
    );
    // Human output reads a file again for its code frame: one that is gone by then is shown
    // without a frame.
    let faulty = patch(&reference(), OWNER, r#""owner": "bob""#);
    let (tree, deleter) = race(2000, &faulty, |p| {
        let _ = std::fs::remove_file(p);
    });
    let run = tree.run(&["--no-config", "--format", "human", "-j", "2", "."]);
    deleter.join().unwrap();
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    run.expect_companion("human");
}

#[test]
fn a_file_replaced_by_a_fifo_mid_run_does_not_hang() {
    // Input: 2,000 regular specs; while forgelint runs, each (from the last) is replaced by a
    // FIFO with no writer. Expected: the run ends, the swapped files are findings ("not a
    // regular file" or "cannot read"). Actual: discovery saw regular files; `read_bounded` then
    // opens a FIFO with a blocking open(2), which waits forever for a writer: the watchdog fires.
    // (Opening with O_NONBLOCK and checking fstat before reading would close the window.)
    let (tree, swapper) = race(2000, &reference(), |p| {
        let _ = std::fs::remove_file(p);
        let _ = Command::new("mkfifo").arg(p).status();
    });
    let run = tree.run_with(
        &["--no-config", "--format", "concise", "-j", "2", "."],
        &Extra {
            timeout: Some(Duration::from_secs(30)),
            ..Extra::default()
        },
    );
    swapper.join().unwrap();
    run.expect_companion("concise");
    assert!(run.code == 0 || run.code == 1, "{run:?}");
}

// ---------------------------------------------------------------------------------------------
// A panic is contained
// ---------------------------------------------------------------------------------------------

#[test]
fn a_panic_on_one_file_is_an_internal_error_finding_and_the_run_goes_on() {
    if !cfg!(debug_assertions) {
        eprintln!("skipped: FORGELINT_PANIC_ON works in debug builds only");
        return;
    }
    let tree = Tree::with_companion();
    tree.write("sub/boom.jobspec.json", reference()).write(
        "other.jobspec.json",
        patch(&reference(), NAME, r#""name": "a/b""#),
    );
    let extra = Extra {
        env: vec![("FORGELINT_PANIC_ON".into(), "boom.jobspec.json".into())],
        contained_panic: true,
        ..Extra::default()
    };
    let validator = sarif_validator();
    for format in FORMATS {
        let run = tree.run_with(&["--no-config", "--format", format, "."], &extra);
        run.expect_code(2).expect_companion(format);
        assert!(
            run.stdout.contains("This is a bug"),
            "{format}: {}",
            run.stdout
        );
        assert!(run.stdout.contains("internal-error"), "{format}");
        assert!(
            run.stdout.contains("name-format"),
            "{format}: other.jobspec.json is linted"
        );
        match format {
            "concise" => {
                let found = run.findings_of("sub/boom.jobspec.json");
                assert_eq!(found.len(), 1, "{found:?}");
                assert_eq!(
                    (found[0].rule.as_str(), found[0].severity.as_str()),
                    ("internal-error", "error")
                );
                assert!(
                    found[0].message.contains("sub/boom.jobspec.json")
                        && found[0].message.contains("This is a bug"),
                    "{}",
                    found[0].message
                );
            }
            "json" => {
                let found = run.json_of("sub/boom.jobspec.json");
                assert_eq!(found.len(), 1);
                assert_eq!(found[0]["rule"], "internal-error");
                assert_eq!(run.json()["summary"]["files"], 3);
            }
            "sarif" => {
                let doc = assert_sarif_valid(&run, &validator);
                let results = doc["runs"][0]["results"].as_array().unwrap();
                let boom: Vec<&Value> = results
                    .iter()
                    .filter(|r| r["ruleId"] == "internal-error")
                    .collect();
                assert_eq!(boom.len(), 1);
                assert_eq!(
                    boom[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                    "sub/boom.jobspec.json"
                );
                assert_eq!(boom[0]["level"], "error");
            }
            "github" => assert!(run
                .stdout
                .lines()
                .any(|l| l.starts_with("::error file=sub/boom.jobspec.json,")
                    && l.contains("title=internal-error::"))),
            _ => {}
        }
    }
    // A hostile name on the crashing file is escaped in the finding.
    let hostile = "x\n::error::y\u{1b}[2J.jobspec.json";
    tree.write(format!("sub/{hostile}"), reference());
    let extra = Extra {
        env: vec![("FORGELINT_PANIC_ON".into(), hostile.into())],
        contained_panic: true,
        ..Extra::default()
    };
    let run = tree.run_with(&["--no-config", "--format", "github", "."], &extra);
    run.expect_code(2).expect_companion("github");
    assert_github_commands_are_ours(&run.stdout);
    assert!(
        run.stdout.contains("title=internal-error::"),
        "{}",
        run.stdout
    );
}

// ---------------------------------------------------------------------------------------------
// Nothing lost
// ---------------------------------------------------------------------------------------------

/// Every file under `root`: its bytes, modification time and mode.
fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>, SystemTime, u32)> {
    #[cfg(unix)]
    let mode =
        |meta: &std::fs::Metadata| std::os::unix::fs::PermissionsExt::mode(&meta.permissions());
    #[cfg(not(unix))]
    let mode = |meta: &std::fs::Metadata| u32::from(meta.permissions().readonly());
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.is_file() {
                out.push((
                    entry.path().strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(entry.path()).unwrap(),
                    meta.modified().unwrap(),
                    mode(&meta),
                ));
            }
        }
    }
    out.sort();
    out
}

fn lost_tree() -> Tree {
    let tree = Tree::with_companion();
    tree.write("clean.jobspec.json", reference())
        .write(
            "faulty.jobspec.json",
            patch(&reference(), NAME, r#""name": "a/b""#),
        )
        .write("broken.jobspec.json", "{\"apiVersion\": ")
        .write("latin1.jobspec.json", b"{\"a\": \"\xe9\"}")
        .write(
            "crlf.jobspec.json",
            patch(&reference(), OWNER, r#""owner": "bob""#).replace('\n', "\r\n"),
        )
        .symlink("faulty.jobspec.json", "link.jobspec.json");
    tree
}

#[test]
fn forgelint_never_writes_a_linted_file() {
    let tree = lost_tree();
    let before = snapshot(tree.root());
    // Let any write show in the modification times.
    thread::sleep(Duration::from_millis(20));
    for format in FORMATS {
        tree.run(&["--no-config", "--format", format, "."])
            .expect_code(1)
            .expect_companion(format);
        // --statistics has no place in sarif, github, junit and gitlab output, and is refused
        // there.
        let statistics = if matches!(format, "sarif" | "github" | "junit" | "gitlab") {
            2
        } else {
            1
        };
        tree.run(&["--no-config", "--format", format, "--statistics", "."])
            .expect_code(statistics);
    }
    tree.run(&["--no-config", "--write-baseline", "baseline.json", "."])
        .expect_code(0);
    tree.run(&["--no-config", "--baseline", "baseline.json", "."])
        .expect_code(0);
    tree.run(&[
        "--no-config",
        "--format",
        "sarif",
        "--output",
        "report.sarif",
        ".",
    ])
    .expect_code(1);
    // `--output` at a symbolic link to a spec replaces the link, never the spec behind it.
    tree.symlink("clean.jobspec.json", "out-link.json");
    tree.run(&[
        "--no-config",
        "--format",
        "json",
        "--output",
        "out-link.json",
        ".",
    ])
    .expect_code(1);
    assert!(std::fs::symlink_metadata(tree.path("out-link.json"))
        .unwrap()
        .is_file());
    let after = snapshot(tree.root());
    let written: Vec<&PathBuf> = after
        .iter()
        .map(|(p, ..)| p)
        .filter(|p| !before.iter().any(|(q, ..)| q == *p))
        .collect();
    assert_eq!(
        written,
        [
            Path::new("baseline.json"),
            Path::new("out-link.json"),
            Path::new("report.sarif")
        ],
        "only the files asked for are written, and no temporary file is left"
    );
    let kept: Vec<_> = after
        .into_iter()
        .filter(|(p, ..)| before.iter().any(|(q, ..)| q == p))
        .collect();
    assert_eq!(before, kept, "a linted file changed (bytes, mtime or mode)");
}

/// Runs forgelint with writes to regular files limited to 0 bytes (SIGXFSZ ignored, so a write
/// fails with EFBIG): a full disk, for root too.
fn with_no_room() -> Extra {
    Extra {
        wrapper: vec![
            "sh".into(),
            "-c".into(),
            "trap '' XFSZ; ulimit -f 0; exec \"$0\" \"$@\"".into(),
        ],
        ..Extra::default()
    }
}

#[test]
fn a_failed_output_or_baseline_write_exits_2_and_keeps_the_old_file() {
    let tree = lost_tree();
    tree.write("report.json", "old report\n")
        .write("baseline.json", "old baseline\n")
        .write("notes.txt", "notes\n");
    std::fs::create_dir(tree.path("out-dir")).unwrap();
    let before = snapshot(tree.root());
    for flag in ["--output", "--write-baseline"] {
        // A parent that is a file: the folder cannot be created (root or not).
        for target in ["notes.txt/report.json", "clean.jobspec.json/report.json"] {
            let run = tree.run(&["--no-config", "--format", "json", flag, target, "."]);
            run.expect_code(2);
            assert!(run.stdout.is_empty(), "{flag}: {}", run.stdout);
            assert!(
                run.stderr.contains(target) && run.stderr.contains("Not a directory"),
                "{flag}: {}",
                run.stderr
            );
        }
        // A folder in the way: not replaced.
        let run = tree.run(&["--no-config", flag, "out-dir", "."]);
        run.expect_code(2);
        assert!(run.stderr.contains("out-dir"), "{}", run.stderr);
        // The disk is full: the old file is kept whole, and no temporary file is left.
        let target = if flag == "--output" {
            "report.json"
        } else {
            "baseline.json"
        };
        let run = tree.run_with(
            &["--no-config", "--format", "json", flag, target, "."],
            &with_no_room(),
        );
        run.expect_code(2);
        assert!(run.stderr.contains(target), "{flag}: {}", run.stderr);
        assert!(
            run.stderr.contains("File too large"),
            "{flag}: {}",
            run.stderr
        );
    }
    assert_eq!(
        before,
        snapshot(tree.root()),
        "a failed write changed a file or left a temporary one"
    );
    assert_eq!(std::fs::read_dir(tree.path("out-dir")).unwrap().count(), 0);
}

#[test]
fn a_failed_write_says_write() {
    // Input: `--output notes.txt/report.json` where notes.txt is a file.
    // Expected: "cannot write notes.txt/report.json: Not a directory".
    // Actual: "cannot read notes.txt/report.json: Not a directory" (Error::Io is used for both).
    let tree = Tree::with_companion();
    tree.write("notes.txt", "notes\n");
    for flag in ["--output", "--write-baseline"] {
        let run = tree.run(&["--no-config", flag, "notes.txt/report.json", "."]);
        run.expect_code(2);
        assert!(
            !run.stderr.contains("cannot read") && run.stderr.contains("write"),
            "{flag}: {}",
            run.stderr
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Nothing injected
// ---------------------------------------------------------------------------------------------

/// A value that tries every trick: a workflow command after a newline, a percent-encoded newline,
/// CR, an OSC 8 hyperlink, clear-screen, bidi override and isolates, C1 CSI and NEL, and the
/// Unicode line separator.
const HOSTILE: &str = "x\n::error::x%0A::warning::w\r\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{7}\u{1b}[2J\u{202e}\u{2066}\u{2069}\u{9b}31m\u{85}\u{2028}";
/// A file name that tries the same (no `/`).
const HOSTILE_FILE: &str = "x\n::error::y%0A,a:b\u{1b}[2J\u{202e}.jobspec.json";
const HOSTILE_DIR: &str = "d\n::warning::z%0A\u{1b}]8;;\u{7}";

/// Decodes a workflow command property as the runner does.
fn runner_decode(s: &str) -> String {
    s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

/// Every line that the runner would read as a workflow command is one of ours, and its
/// properties are well-formed: known keys, values with no raw `,` `:` or line break.
#[track_caller]
fn assert_github_commands_are_ours(stdout: &str) {
    for line in stdout.lines() {
        let t = line.trim_start();
        if !t.starts_with("::") {
            continue;
        }
        if let Some(message) = ["::notice ", "::warning "]
            .iter()
            .find_map(|c| t.strip_prefix(c)?.strip_prefix("title=forgelint::"))
        {
            assert!(!message.is_empty());
            continue;
        }
        let rest = ["::error ", "::warning ", "::notice "]
            .iter()
            .find_map(|c| t.strip_prefix(c))
            .unwrap_or_else(|| panic!("injected workflow command: {line:?}"));
        assert!(rest.starts_with("file="), "{line:?}");
        let (props, message) = rest
            .split_once("::")
            .unwrap_or_else(|| panic!("no message: {line:?}"));
        assert!(!message.is_empty(), "{line:?}");
        for prop in props.split(',') {
            let (key, value) = prop
                .split_once('=')
                .unwrap_or_else(|| panic!("a raw `,` in a property: {line:?}"));
            assert!(
                ["file", "line", "endLine", "col", "endColumn", "title"].contains(&key),
                "unknown property {key:?} (a raw `,` in a value?): {line:?}"
            );
            assert!(
                !value.contains([':', ',', '\n', '\r']),
                "raw separator in {key}: {line:?}"
            );
            if key != "file" && key != "title" {
                assert!(value.parse::<u32>().is_ok_and(|n| n >= 1), "{line:?}");
            }
            assert!(!runner_decode(value).chars().any(forbidden), "{line:?}");
        }
    }
}

fn hostile_spec() -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap();
    let h = q(HOSTILE);
    let pool = |name: &str| {
        format!(r#"{{ "name": {name}, "series": "h200", "nodes": 1, "gpus_per_node": 8 }}"#)
    };
    let mut spec = patch(&reference(), NAME, &format!("\"name\": {h}"));
    spec = patch(
        &spec,
        r#""labels": { "team": "reasoning" }"#,
        &format!(r#""labels": {{ {h}: "a", {h}: "b" }}"#),
    );
    spec = patch(
        &spec,
        POOLS,
        &format!(r#""pools": [{}, {}]"#, pool(&h), pool(&h)),
    );
    spec = patch(
        &spec,
        r#""roles": { "trainer": "train" }"#,
        &format!(
            r#""roles": {{ "trainer": {h}, "generator": {} }}"#,
            q(&format!("{HOSTILE}-nope"))
        ),
    );
    spec = patch(
        &spec,
        r#""id": "alice/opsd-patch""#,
        &format!("\"id\": {h}"),
    );
    spec = patch(
        &spec,
        r#""image": """#,
        &format!("\"image\": {}", q(&format!("evil.io{HOSTILE}/img:1"))),
    );
    spec
}

#[test]
fn no_value_or_file_name_injects_a_command_or_an_escape_in_any_format() {
    let tree = Tree::with_companion();
    tree.write("forgelint.toml", "[platform]\nregistries = [\"nvcr.io\"]\n")
        .write("hostile.jobspec.json", hostile_spec())
        .write(format!("{HOSTILE_DIR}/{HOSTILE_FILE}"), hostile_spec())
        // The file text itself holds raw bidi and C1 characters (valid JSON), for the frames.
        .write(
            "raw.jobspec.json",
            patch(
                &reference(),
                OWNER,
                "\"owner\": \"\u{202e}\u{9b}\u{85}\u{2066}x\"",
            ),
        );
    let validator = sarif_validator();
    let rules = [
        "name-format",
        "duplicate-key",
        "pool-name-duplicate",
        "role-pool",
        "plugin-id-format",
        "image-registry",
    ];
    for format in FORMATS {
        let run = tree.run(&["--config", "forgelint.toml", "--format", format, "."]);
        run.expect_code(1).expect_companion(format);
        // Recognisable, escaped.
        assert!(
            run.stdout.contains("::error::x"),
            "{format}: the value is gone"
        );
        for rule in rules {
            assert!(run.stdout.contains(rule), "{format}: no {rule}");
        }
        assert!(
            decoded_stdout(&run, format).contains("::error::y"),
            "{format}: the file name is gone"
        );
        assert!(run.stdout.contains("owner-ignored"), "{format}");
        match format {
            "concise" => {
                // Each place the value was put is a finding that shows it, escaped.
                let found = run.findings_of("hostile.jobspec.json");
                for rule in rules {
                    let f = found
                        .iter()
                        .find(|f| f.rule == rule)
                        .unwrap_or_else(|| panic!("no {rule}: {found:?}"));
                    assert!(
                        f.message
                            .contains(r"x\n::error::x%0A::warning::w\r\u{1b}]8;;http://x\u{7}"),
                        "{rule}: {}",
                        f.message
                    );
                }
            }
            "github" => {
                assert_github_commands_are_ours(&run.stdout);
                // `%0A` in a value is not a newline once the runner decodes it.
                assert!(run.stdout.contains("x%250A::warning::w"), "{}", run.stdout);
                assert!(!run.stdout.contains("x%0A::warning::w"), "{}", run.stdout);
            }
            "sarif" => {
                assert_sarif_valid(&run, &validator);
            }
            "json" => {
                let doc = run.json();
                // The values are kept exactly (escaped in the document, decoded here).
                let messages: Vec<&str> = doc["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["message"].as_str().unwrap())
                    .collect();
                assert!(
                    messages.iter().any(|m| m.contains("::error::x")),
                    "{messages:?}"
                );
                let paths: Vec<&str> = doc["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["path"].as_str().unwrap())
                    .collect();
                assert!(
                    paths.contains(&format!("{HOSTILE_DIR}/{HOSTILE_FILE}").as_str()),
                    "the JSON path is the real path: {paths:?}"
                );
            }
            _ => {}
        }
    }
    // A hostile --stdin-filename, as pre-commit might pass it.
    let run = tree.run_with(
        &[
            "--config",
            "forgelint.toml",
            "--format",
            "github",
            "--stdin-filename",
            HOSTILE_FILE,
            "-",
            COMPANION,
        ],
        &Extra {
            stdin: Input::File(tree.path("hostile.jobspec.json")),
            ..Extra::default()
        },
    );
    run.expect_code(1).expect_companion("github");
    assert_github_commands_are_ours(&run.stdout);
    assert!(run.stdout.contains("::error::y"), "{}", run.stdout);
}

#[test]
#[cfg(unix)]
fn a_file_name_that_is_not_utf8_is_shown_lossily() {
    use std::os::unix::ffi::OsStrExt;
    let tree = Tree::with_companion();
    let name = std::ffi::OsStr::from_bytes(b"bad\xff\x1b[2J.jobspec.json");
    tree.write(name, patch(&reference(), NAME, r#""name": "a/b""#));
    for format in FORMATS {
        let run = tree.run(&["--no-config", "--format", format, "."]);
        run.expect_code(1).expect_companion(format);
        assert!(
            decoded_stdout(&run, format).contains("bad\u{FFFD}"),
            "{format}: {}",
            run.stdout
        );
        assert!(run.stdout.contains("name-format"), "{format}");
        if format == "github" {
            assert_github_commands_are_ours(&run.stdout);
        }
    }
}
