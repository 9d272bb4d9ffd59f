//! Stress test of the walk → lint hand-over: the binary, run many times with 3 to 16 worker
//! threads on a tree large enough to fill the hand-over queue, must finish every time (a
//! watchdog kills a run that does not) and write the same report as a one-thread run. A debug
//! build runs 8 rounds per thread count, an optimised one 50 (`FORGELINT_STRESS_RUNS` sets it).
//!
//! From `-j3` the directory walk runs on several threads that all hand files over to the
//! workers; a lost wake-up between them hung such runs for good. On the 2-core machine the
//! unfixed queue hung the first run of this test, and 17–20 of 20 runs of `-j3` and `-j8` on
//! such a tree.

use crate::common;

use std::path::Path;
use std::time::Duration;

/// A run that takes longer than this is taken for a hang (a run takes about 0.2 s).
const WATCHDOG: Duration = Duration::from_secs(20);

/// Runs per thread count with optimisations (`cargo test --release`): the count the lost
/// wake-up was found with.
const RUNS: usize = 50;

/// Runs per thread count in a debug build, where a run is slower but the queue is the same:
/// every interleaving the test can reach is reached in fewer rounds.
const DEBUG_RUNS: usize = 8;

/// The runs per thread count: `FORGELINT_STRESS_RUNS` when set, else [`RUNS`] with
/// optimisations and [`DEBUG_RUNS`] without.
fn runs() -> usize {
    std::env::var("FORGELINT_STRESS_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) {
            DEBUG_RUNS
        } else {
            RUNS
        })
}

/// 64 folders of 125 specs: more files than the queue holds (32 batches of 128), spread over
/// folders so every walker thread has some to hand over.
fn make_tree(root: &Path) {
    for folder in 0..64 {
        let dir = root.join(format!("lab-{folder:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        for file in 0..125 {
            let text = if file % 10 == 0 {
                // A finding-dense spec now and then, so findings from many batches meet.
                "{}".to_string()
            } else {
                format!(r#"{{"apiVersion": "forge/v2", "metadata": {{"name": "run-{file}"}}}}"#)
            };
            std::fs::write(dir.join(format!("run-{file:03}.jobspec.json")), text).unwrap();
        }
    }
}

/// Runs forgelint on `tree` with `jobs` threads and two rules (the hand-over, not the rules,
/// is under test), its JSON report in `out`.
fn lint(tree: &Path, jobs: usize, out: &Path) -> i32 {
    let jobs = jobs.to_string();
    let (tree, out) = (tree.to_string_lossy(), out.to_string_lossy());
    let args = [
        "--no-config",
        "--select",
        "api-version,kind",
        "--format",
        "json",
        "-q",
        "-j",
        &jobs,
        "-o",
        &out,
        &tree,
    ];
    common::run_within(Path::new("."), &args, WATCHDOG).code
}

/// The report without its timing, which differs between runs.
fn report_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|line| !line.trim_start().starts_with("\"elapsed"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn many_threads_never_hang_and_agree_with_one() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    make_tree(&tree);
    let out = dir.path().join("report.json");
    assert_eq!(lint(&tree, 1, &out), 1);
    let expected = report_of(&out);
    assert!(expected.contains("\"files\": 8000"), "{expected:.2000}");
    for jobs in [3, 4, 8, 16] {
        for run in 0..runs() {
            assert_eq!(lint(&tree, jobs, &out), 1, "-j{jobs}, run {run}");
            assert!(
                report_of(&out) == expected,
                "-j{jobs}, run {run}: the report differs from the one-thread run"
            );
        }
    }
}
