//! The bulk audit: `--shard K/N` splits a tree into disjoint parts whose findings together are
//! one run's, and `--format` is repeatable with a file for each report (one lint, several
//! reports).

use super::*;
use serde_json::Value;

/// A tree with findings in many files, and an experiment named by specs in several folders.
fn archive() -> Tree {
    let tree = Tree::new();
    for i in 0..40 {
        let spec = match i % 3 {
            0 => patch(&reference(), "\"owner\": \"\"", "\"owner\": \"alice\""),
            1 => patch(&reference(), "forge/v2", "forge/v1"),
            _ => reference(),
        };
        tree.write(format!("lab/2024-{:02}/run-{i}.jobspec.json", i % 12), spec);
    }
    tree.write("broken.jobspec.json", "{\"a\": ");
    tree
}

/// `--max-results N` keeps the N most severe findings — every error before any warning, then in
/// the report's order — and counts the rest in every format's summary; the exit code counts
/// them all.
#[test]
fn max_results_keeps_the_most_severe_and_counts_the_rest() {
    let tree = Tree::new();
    let warning = patch(&reference(), "\"owner\": \"\"", "\"owner\": \"alice\"");
    let error = patch(&reference(), "forge/v2", "forge/v1");
    tree.mkdir("experiments/my-grpo")
        .write("a.jobspec.json", &warning)
        .write("b.jobspec.json", &error)
        .write("c.jobspec.json", &warning)
        .write("d.jobspec.json", &error)
        .write("e.jobspec.json", &warning);
    let run = tree.run(&["--no-config", "--format", "concise", "--max-results", "3"]);
    run.expect_code(1);
    assert_eq!(
        run.paths(),
        ["a.jobspec.json", "b.jobspec.json", "d.jobspec.json"],
        "{}",
        run.stdout
    );
    assert!(
        scrub_time(&without_skip_notes(&run.stderr)).starts_with(
            "Found 2 errors, 3 warnings in 5 of 5 files checked (TIME). 2 findings are left out of the report: --max-results 3 keeps the most severe."
        ),
        "{}",
        run.stderr
    );
    let json = tree.run(&["--no-config", "--format", "json", "--max-results", "1"]);
    assert_eq!(findings_of(&json).len(), 1);
    assert_eq!(findings_of(&json)[0]["path"], "b.jobspec.json");
    assert_eq!(json.json()["summary"]["errors"], 2);
    assert_eq!(
        json.json()["summary"]["left_out"],
        serde_json::json!({ "max_results": 1, "findings": 4 })
    );
    let sarif = tree.run(&["--no-config", "--format", "sarif", "--max-results", "2"]);
    let log = sarif.json();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(
        results.iter().all(|r| r["level"] == "error"),
        "{}",
        sarif.stdout
    );
    assert_eq!(results.len(), 2);
    let notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    assert!(
        notes.iter().any(|n| n["level"] == "warning"
            && n["message"]["text"]
                == "3 findings are left out of the report: --max-results 2 keeps the most severe."),
        "{}",
        sarif.stdout
    );
    common::sarif_validator()
        .validate(&log)
        .unwrap_or_else(|e| panic!("{e}"));
    let github = tree.run(&["--no-config", "--format", "github", "--max-results", "2"]);
    assert!(
        github
            .stdout
            .ends_with("::warning title=forgelint::3 findings are left out of the report: --max-results 2 keeps the most severe.\n"),
        "{}",
        github.stdout
    );
    let html = tree.run(&["--no-config", "--format", "html", "--max-results", "2"]);
    assert!(html
        .stdout
        .contains("3 findings are left out of the report"));
    // Nothing left out: nothing said. None kept: the exit code still counts the errors.
    let all = tree.run(&["--no-config", "--format", "json", "--max-results", "5"]);
    assert!(all.json()["summary"].get("left_out").is_none());
    let none = tree.run(&["--no-config", "--format", "concise", "--max-results", "0"]);
    none.expect_code(1);
    assert_eq!(none.stdout, "");
    // The same findings whatever the thread count.
    for jobs in ["1", "3"] {
        let again = tree.run(&[
            "--no-config",
            "--format",
            "concise",
            "--max-results",
            "3",
            "-j",
            jobs,
        ]);
        assert_eq!(again.stdout, run.stdout, "-j{jobs}");
    }
}

fn findings_of(run: &Run) -> Vec<Value> {
    run.json()["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn the_shards_findings_together_are_the_whole_runs() {
    let tree = archive();
    let whole = tree.run(&["--no-config", "--format", "json", "."]);
    whole.expect_code(1);
    let expected = findings_of(&whole);
    assert!(expected.len() > 20, "{}", whole.stdout);
    for n in [1, 2, 3, 7] {
        let mut union = Vec::new();
        let mut files = 0;
        for k in 1..=n {
            let shard = format!("{k}/{n}");
            let part = tree.run(&["--no-config", "--shard", &shard, "--format", "json", "."]);
            assert!(matches!(part.code, 0 | 1), "{shard}: {}", part.stderr);
            files += part.json()["summary"]["files"].as_u64().unwrap();
            let found = findings_of(&part);
            if n > 1 {
                assert!(found.len() < expected.len(), "{shard} holds every finding");
            }
            union.extend(found);
        }
        assert_eq!(
            files,
            whole.json()["summary"]["files"].as_u64().unwrap(),
            "{n} shards"
        );
        let key = |f: &Value| (f["path"].as_str().unwrap_or("").to_string(), f.to_string());
        union.sort_by_key(key);
        let mut sorted = expected.clone();
        sorted.sort_by_key(key);
        assert_eq!(union, sorted, "{n} shards");
    }
}

#[test]
fn a_shard_must_be_k_of_n_and_not_standard_input() {
    let tree = archive();
    for bad in ["0/4", "5/4", "1/0", "two/4", "1"] {
        let run = tree.run(&["--no-config", "--shard", bad, "."]);
        run.expect_code(2);
        assert!(run.stderr.contains("expected K/N"), "{bad}: {}", run.stderr);
    }
    let run = tree.run_stdin(&["--no-config", "--shard", "1/2", "-"], &reference());
    run.expect_code(2);
    assert!(run.stderr.contains("standard input"), "{}", run.stderr);
}

/// `--format FMT=FILE` writes that report to FILE; the one bare format goes to standard output.
/// Each report is the one a run with that format alone writes.
#[test]
fn one_run_writes_several_reports() {
    let tree = archive();
    let run = tree.run(&[
        "--no-config",
        "--format",
        "json=out/report.json",
        "--format",
        "sarif=report.sarif",
        "--format",
        "concise",
        ".",
    ]);
    run.expect_code(1);
    let alone = |format: &str| tree.run(&["--no-config", "--format", format, "."]).stdout;
    assert_eq!(run.stdout, alone("concise"));
    let file = |name: &str| std::fs::read_to_string(tree.path(name)).unwrap();
    assert_eq!(file("out/report.json"), alone("json"));
    assert_eq!(file("report.sarif"), alone("sarif"));
    assert!(run.stderr.contains("Found"), "{}", run.stderr);

    // With -o, the bare format goes to that file.
    let run = tree.run(&[
        "--no-config",
        "-o",
        "all.txt",
        "--format",
        "github=gh.txt",
        "--format",
        "concise",
        ".",
    ]);
    run.expect_code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(file("all.txt"), alone("concise"));
    assert_eq!(file("gh.txt"), alone("github"));
}

#[test]
fn reports_that_would_share_an_output_or_name_no_format_are_refused() {
    let tree = archive();
    let run = tree.run(&["--no-config", "--format", "json", "--format", "sarif", "."]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("2 --format reports would all go to standard output"),
        "{}",
        run.stderr
    );
    let run = tree.run(&["--no-config", "--format", "jsn=x.json", "."]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("invalid value 'jsn' for '--format <FMT[=FILE]>'"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("a similar value exists: 'json'"),
        "{}",
        run.stderr
    );
    let run = tree.run(&["--no-config", "--format", "json=", "."]);
    run.expect_code(2);
    assert!(run.stderr.contains("needs a file name"), "{}", run.stderr);
    let run = tree.run(&[
        "--no-config",
        "--statistics",
        "--format",
        "json",
        "--format",
        "sarif=x.sarif",
        ".",
    ]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("--statistics does not go with --format sarif"),
        "{}",
        run.stderr
    );
}

/// `forgelint merge` joins the shards' reports into the whole run's, byte for byte.
#[test]
fn merged_shard_reports_are_the_whole_runs_report() {
    let tree = archive();
    for format in ["json", "sarif"] {
        // Statistics are counted again from the merged findings.
        let statistics: &[&str] = if format == "json" {
            &["--statistics"]
        } else {
            &[]
        };
        let mut args = vec!["--no-config", "--format", format, "."];
        args.extend(statistics);
        let whole = tree.run(&args);
        let mut parts = Vec::new();
        for k in 1..=3 {
            let name = format!("part-{k}.{format}");
            let (shard, target) = (format!("{k}/3"), format!("{format}={name}"));
            let mut args = vec!["--no-config", "--shard", &shard, "--format", &target, "."];
            args.extend(statistics);
            tree.run(&args);
            parts.push(name);
        }
        let mut args = vec!["merge"];
        args.extend(parts.iter().map(String::as_str));
        let merged = tree.run(&args);
        merged.expect_code(0);
        assert_eq!(merged.stdout, whole.stdout, "{format}");
        assert_eq!(merged.stderr, "", "{format}");
        // Merging one report gives it back.
        let one = tree.run(&["merge", "-o", "one.out", &parts[0]]);
        one.expect_code(0);
        assert_eq!(
            std::fs::read_to_string(tree.path("one.out")).unwrap(),
            std::fs::read_to_string(tree.path(&parts[0])).unwrap(),
            "{format}"
        );
    }
}

#[test]
fn merge_refuses_reports_of_two_formats_and_files_that_are_no_report() {
    let tree = archive();
    tree.run(&[
        "--no-config",
        "--format",
        "json=a.json",
        "--format",
        "sarif=b.sarif",
        ".",
    ]);
    let run = tree.run(&["merge", "a.json", "b.sarif"]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("b.sarif is a sarif report and a.json a json one"),
        "{}",
        run.stderr
    );
    tree.write("junk.json", "{\"a\": 1}");
    let run = tree.run(&["merge", "a.json", "junk.json"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("not a forgelint report"),
        "{}",
        run.stderr
    );
    let truncated = std::fs::read_to_string(tree.path("a.json")).unwrap();
    tree.write("cut.json", &truncated[..truncated.len() / 2]);
    let run = tree.run(&["merge", "-o", "out.json", "a.json", "cut.json"]);
    run.expect_code(2);
    assert!(run.stderr.contains("cut.json"), "{}", run.stderr);
    assert!(
        !tree.path("out.json").exists(),
        "a failed merge writes nothing"
    );
}

/// Shard reports of `format`, `part-1.EXT` to `part-3.EXT`, and their names.
fn shard_reports(tree: &Tree, format: &str) -> Vec<String> {
    (1..=3)
        .map(|k| {
            let name = format!("part-{k}.{format}");
            let (shard, target) = (format!("{k}/3"), format!("{format}={name}"));
            tree.run(&["--no-config", "--shard", &shard, "--format", &target, "."]);
            name
        })
        .collect()
}

/// A merge refused: exit 2, no output, and the message names the input and the byte.
#[track_caller]
fn assert_refused(tree: &Tree, inputs: &[&str], input: &str, says: &str) {
    let mut args = vec!["merge"];
    args.extend(inputs);
    let run = tree.run(&args);
    run.expect_code(2);
    assert_eq!(run.stdout, "", "{inputs:?}");
    // The message as one line, without the frame's wrapping.
    let message = run
        .stderr
        .split_whitespace()
        .filter(|w| !w.starts_with(['│', '╰', '×']))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        message.contains(input) && message.contains(says),
        "{inputs:?}: expected {input:?} and {says:?} in:\n{}",
        run.stderr
    );
}

#[test]
fn merge_refuses_concatenated_duplicated_and_foreign_reports() {
    let tree = archive();
    for format in ["json", "jsonl", "sarif"] {
        let parts = shard_reports(&tree, format);
        let read = |name: &str| std::fs::read_to_string(tree.path(name)).unwrap();
        let (a, b) = (read(&parts[0]), read(&parts[1]));
        // Two reports in one file: everything after the first would have been dropped.
        let both = format!("both.{format}");
        tree.write(&both, format!("{a}{b}"));
        let says = if format == "jsonl" {
            format!("more after the summary line (two reports in one file, or trailing lines) (at byte {})", a.len())
        } else {
            format!("more after the end of the report at byte {}", a.len())
        };
        assert_refused(&tree, &[&both, &parts[2]], &both, &says);
        // Trailing bytes.
        let trailing = format!("trailing.{format}");
        tree.write(&trailing, format!("{a}garbage"));
        assert_refused(
            &tree,
            &[&parts[1], &trailing],
            &trailing,
            &format!("{}", a.len()),
        );
        // The same shard twice, by one name or by two.
        assert_refused(&tree, &[&parts[0], &parts[0]], &parts[0], "are one report");
        let copy = format!("copy.{format}");
        tree.write(&copy, &a);
        assert_refused(
            &tree,
            &[&parts[0], &parts[1], &copy],
            &copy,
            "a file belongs to one shard",
        );
        // Findings out of order.
        let unsorted = format!("unsorted.{format}");
        let reordered = match format {
            "jsonl" => {
                let mut lines: Vec<&str> = a.lines().collect();
                let summary = lines.pop().unwrap();
                lines.reverse();
                format!("{}\n{summary}\n", lines.join("\n"))
            }
            _ => {
                let mut doc: Value = serde_json::from_str(&a).unwrap();
                let list = if format == "json" {
                    &mut doc["findings"]
                } else {
                    &mut doc["runs"][0]["results"]
                };
                list.as_array_mut().unwrap().reverse();
                serde_json::to_string_pretty(&doc).unwrap()
            }
        };
        tree.write(&unsorted, reordered);
        assert_refused(&tree, &[&unsorted, &parts[1]], &unsorted, "out of order");
    }
    // Another report version, another forgelint.
    let parts = shard_reports(&tree, "json");
    let a = std::fs::read_to_string(tree.path(&parts[0])).unwrap();
    tree.write("v2.json", a.replacen("\"version\": 1", "\"version\": 2", 1));
    let at = a.find("\"version\": 1").unwrap() + "\"version\": ".len();
    assert_refused(
        &tree,
        &[&parts[1], "v2.json"],
        "v2.json",
        &format!("a report of version 2, and this forgelint merges version 1 (at byte {at})"),
    );
    let ours = format!("\"version\": \"{}\"", env!("CARGO_PKG_VERSION"));
    tree.write("old.json", a.replacen(&ours, "\"version\": \"0.0.1\"", 1));
    assert_refused(
        &tree,
        &["old.json"],
        "old.json",
        "written by forgelint 0.0.1",
    );
    let sarif = shard_reports(&tree, "sarif");
    let log = std::fs::read_to_string(tree.path(&sarif[0])).unwrap();
    tree.write(
        "old.sarif",
        log.replacen(&ours, "\"version\": \"0.0.1\"", 1),
    );
    assert_refused(
        &tree,
        &["old.sarif"],
        "old.sarif",
        "written by forgelint 0.0.1",
    );
    let mut two_runs: Value = serde_json::from_str(&log).unwrap();
    let run = two_runs["runs"][0].clone();
    two_runs["runs"].as_array_mut().unwrap().push(run);
    tree.write("two-runs.sarif", serde_json::to_string(&two_runs).unwrap());
    assert_refused(&tree, &["two-runs.sarif"], "two-runs.sarif", "a second run");
}

/// Reports read from pipes (`<(cat r.json)`) merge as the files do.
#[test]
fn merge_reads_pipes() {
    let tree = archive();
    for format in ["json", "jsonl", "sarif"] {
        let parts = shard_reports(&tree, format);
        let mut args = vec!["merge"];
        args.extend(parts.iter().map(String::as_str));
        let from_files = tree.run(&args);
        from_files.expect_code(0);
        let extra = common::Extra {
            wrapper: vec![
                "bash".into(),
                "-c".into(),
                format!(
                    "\"$1\" merge <(cat {}) <(cat {}) <(cat {})",
                    parts[0], parts[1], parts[2]
                ),
                "forgelint-merge".into(),
            ],
            ..common::Extra::default()
        };
        let from_pipes = tree.run_with(&[], &extra);
        from_pipes.expect_code(0);
        assert_eq!(from_pipes.stdout, from_files.stdout, "{format}");
    }
}
