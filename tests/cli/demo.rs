//! The demo repository under `fixtures/demo`, linted in place: snapshots, and the same report
//! for every thread count.

use super::*;

fn demo(format: &str, jobs: Option<&str>) -> Run {
    let mut args = vec![
        "--config",
        "fixtures/demo/forgelint.toml",
        "--format",
        format,
    ];
    if let Some(j) = jobs {
        args.extend(["-j", j]);
    }
    args.push("fixtures/demo");
    run_in(manifest_dir(), &args)
}

fn demo_is_deterministic(format: &str) -> Run {
    let one = demo(format, Some("1"));
    one.expect_code(1);
    for jobs in [Some("2"), Some("8"), None] {
        let other = demo(format, jobs);
        other.expect_code(1);
        assert_eq!(
            one.stdout, other.stdout,
            "--format {format}: -j 1 and -j {jobs:?} differ"
        );
        assert_eq!(scrub_time(&one.stderr), scrub_time(&other.stderr));
    }
    one
}

/// Long reports are rendered on several threads in chunks: the document is the same for every
/// `-j`, across chunk boundaries.
#[test]
fn long_reports_are_the_same_for_every_thread_count() {
    let tree = Tree::new();
    // At least two findings per spec (owner-ignored and api-version), 700 specs: several
    // chunks.
    let spec = patch(&error_spec(), r#""owner": """#, r#""owner": "bob""#);
    for i in 0..700 {
        tree.write(format!("specs/{:03}/s{i}.jobspec.json", i % 37), &spec);
    }
    for format in common::FORMATS {
        let one = tree.run(&["--no-config", "--format", format, "-j", "1", "."]);
        one.expect_code(1);
        let count = match format {
            "json" | "sarif" | "gitlab" => {
                let value: serde_json::Value =
                    serde_json::from_str(&one.stdout).expect("valid JSON");
                match format {
                    "json" => value["findings"].as_array().map(Vec::len),
                    "gitlab" => value.as_array().map(Vec::len),
                    _ => value["runs"][0]["results"].as_array().map(Vec::len),
                }
            }
            // The findings' lines, and the summary's.
            "jsonl" => Some(one.stdout.lines().count() - 1),
            "junit" => Some(one.stdout.matches("<testcase ").count()),
            // A page shows the first findings of each rule; its totals count them all.
            "html" => ["errors", "warnings"]
                .iter()
                .map(|kind| {
                    let at = format!("id=\"total-{kind}\" data-count=\"");
                    let rest = &one.stdout[one.stdout.find(&at)? + at.len()..];
                    rest[..rest.find('"')?].parse::<usize>().ok()
                })
                .sum(),
            _ => Some(
                one.stdout
                    .lines()
                    .filter(|l| l.contains(".jobspec.json:"))
                    .count(),
            ),
        };
        assert!(count.unwrap_or(0) >= 1400, "--format {format}: {count:?}");
        for jobs in ["2", "3"] {
            let other = tree.run(&["--no-config", "--format", format, "-j", jobs, "."]);
            assert!(
                one.stdout == other.stdout,
                "--format {format}: -j 1 and -j {jobs} differ"
            );
        }
    }
}

#[test]
fn demo_human() {
    let run = demo_is_deterministic("human");
    assert_named_snapshot!("demo_human", scrub_time(&transcript(&run)));
}

#[test]
fn demo_concise() {
    let run = demo_is_deterministic("concise");
    // Sorted by path, then position, then rule id.
    let findings = run.findings();
    let key = |f: &Finding| {
        let (line, col) = f.position.split_once(':').unwrap();
        (
            f.path.clone(),
            line.parse::<u32>().unwrap(),
            col.parse::<u32>().unwrap(),
            f.rule.clone(),
        )
    };
    let mut sorted = findings.clone();
    sorted.sort_by_key(key);
    assert_eq!(findings, sorted, "concise output is sorted");
    assert_named_snapshot!("demo_concise", scrub_time(&transcript(&run)));
}
