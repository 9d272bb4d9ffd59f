//! The walk on small repositories, with a stand-in linter: a finding for each line that
//! holds `TOKEN` or `FAULT`, its identity the line's text.

use std::collections::HashMap;

use super::*;
use crate::history::fixture::TestRepo;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    path: String,
    line: usize,
    text: String,
    /// What `mode.cfg` said in the tree the version was linted in.
    mode: String,
}

#[derive(Default)]
struct Lines {
    /// Lints per version.
    linted: HashMap<Oid, usize>,
}

fn identity(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Linter for Lines {
    type Finding = Line;

    fn wants(&mut self, path: &str) -> bool {
        path.ends_with(".txt") || path.ends_with(".jobspec.json")
    }

    fn size_limit(&self) -> usize {
        1 << 20
    }

    fn lint(
        &mut self,
        file: &FileVersion<'_>,
        tree: &mut Snapshot<'_>,
    ) -> Result<Vec<(u64, Line)>, GitError> {
        *self.linted.entry(file.id).or_default() += 1;
        let mut mode = Vec::new();
        tree.read("mode.cfg", 100, &mut mode)?;
        let mode = String::from_utf8_lossy(&mode).trim().to_string();
        let text = String::from_utf8_lossy(file.bytes);
        Ok(text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains("TOKEN") || l.contains("FAULT"))
            .map(|(i, l)| {
                let line = Line {
                    path: file.path.to_string(),
                    line: i + 1,
                    text: l.trim().to_string(),
                    mode: mode.clone(),
                };
                (identity(l.trim()), line)
            })
            .collect())
    }
}

/// (path, text, introduced, removed), sorted.
type Row = (String, String, Option<Oid>, Option<Oid>);

fn run(repo_dir: &std::path::Path, range: &Range) -> (Vec<Row>, Audit<Line>, Lines) {
    let repo = Repo::open(repo_dir).expect("open");
    let mut linter = Lines::default();
    let audit = audit(&repo, range, &[], &mut linter).expect("audit");
    let id = |s: &Option<Stamp>| {
        s.as_ref()
            .map(|s| Oid::from_hex(s.commit.as_bytes()).expect("an id"))
    };
    let mut rows: Vec<Row> = audit
        .records
        .iter()
        .map(|r| {
            (
                r.path.clone(),
                r.finding.text.clone(),
                id(&r.introduced),
                id(&r.removed),
            )
        })
        .collect();
    rows.sort();
    (rows, audit, linter)
}

fn row(path: &str, text: &str, introduced: Option<Oid>, removed: Option<Oid>) -> Row {
    (path.into(), text.into(), introduced, removed)
}

#[test]
fn a_token_deleted_later_and_a_fault_still_at_the_tip_are_reported_with_their_commits() {
    let mut t = TestRepo::new();
    t.write("specs/a.jobspec.json", "{\n  \"name\": \"a\"\n}\n");
    t.write("exp/config.txt", "lr: 1\n");
    t.write("README.md", "not linted: TOKEN\n");
    t.commit("start");
    t.write("exp/config.txt", "lr: 1\nkey: TOKEN-123\n");
    let added = t.commit("add a token");
    t.write("exp/other.txt", "nothing\n");
    t.commit("unrelated");
    t.write("exp/config.txt", "lr: 2\n");
    let deleted = t.commit("drop the token");
    t.write(
        "specs/a.jobspec.json",
        "{\n  \"name\": \"a\",\n  \"FAULT\": 1\n}\n",
    );
    let fault = t.commit("a fault");
    t.remove("specs/a.jobspec.json");
    t.write(
        "specs/archive/a.jobspec.json",
        "{\n  \"name\": \"a\",\n  \"old\": true,\n  \"FAULT\": 1\n}\n",
    );
    t.commit("archive it, edited");

    let (rows, audit, _) = run(t.path(), &Range::default());
    assert_eq!(
        rows,
        [
            row(
                "exp/config.txt",
                "key: TOKEN-123",
                Some(added),
                Some(deleted)
            ),
            row(
                "specs/archive/a.jobspec.json",
                "\"FAULT\": 1",
                Some(fault),
                None
            ),
        ]
    );
    // Still at the tip: shown as the tip has it, at its new place and line.
    let at_tip = audit.records.iter().find(|r| r.removed.is_none());
    assert_eq!(at_tip.map(|r| r.finding.line), Some(4));
    assert_eq!(audit.notes.commits, 6);
    assert!(audit.notes.shallow.is_empty() && audit.notes.submodules.is_empty());
    let stamp = audit.records[0].introduced.as_ref().expect("introduced");
    assert_eq!(stamp.author, "Ada Lovelace <ada@lab.example>");
    assert!(stamp.date.starts_with("2024-01-"), "{}", stamp.date);
}

#[test]
fn each_version_is_linted_once() {
    let mut t = TestRepo::new();
    for i in 0..8 {
        // Two contents in turn, one with a finding: four changes each way.
        let text = if i % 2 == 0 { "clean\n" } else { "FAULT\n" };
        t.write("a.txt", text);
        t.commit(&format!("{i}"));
    }
    let (rows, audit, linter) = run(t.path(), &Range::default());
    assert_eq!(audit.notes.versions, 2);
    // Each version once in the walk; the one with a finding once more, at the tip.
    let mut counts: Vec<usize> = linter.linted.values().copied().collect();
    counts.sort();
    assert_eq!(counts, [1, 2]);
    assert_eq!(rows.len(), 1);
    assert!(rows[0].3.is_none(), "at the tip");
}

#[test]
fn a_finding_written_on_a_side_branch_was_introduced_there() {
    let mut t = TestRepo::new();
    t.write("a.txt", "clean\n");
    t.commit("start");
    t.git(&["checkout", "-q", "-b", "side"]);
    t.write("b.txt", "FAULT on the side\n");
    let side = t.commit("side");
    t.write("c.txt", "TOKEN then gone\n");
    let token = t.commit("side token");
    t.remove("c.txt");
    let gone = t.commit("side token gone");
    t.git(&["checkout", "-q", "main"]);
    t.write("a.txt", "main moves on\n");
    t.commit("main");
    t.merge("side");
    let (rows, _, _) = run(t.path(), &Range::default());
    assert_eq!(
        rows,
        [
            row("b.txt", "FAULT on the side", Some(side), None),
            row("c.txt", "TOKEN then gone", Some(token), Some(gone)),
        ]
    );
}

#[test]
fn a_version_is_linted_in_the_tree_of_its_commit() {
    let mut t = TestRepo::new();
    t.write("mode.cfg", "strict\n");
    t.write("a.txt", "FAULT one\n");
    t.commit("strict");
    t.write("mode.cfg", "lax\n");
    t.write("b.txt", "FAULT two\n");
    t.commit("lax");
    let (_, audit, _) = run(t.path(), &Range::default());
    let mut modes: Vec<(String, String)> = audit
        .records
        .iter()
        .map(|r| (r.path.clone(), r.finding.mode.clone()))
        .collect();
    modes.sort();
    // At the tip, both are shown as linted in the tip's tree.
    assert_eq!(
        modes,
        [
            ("a.txt".into(), "lax".into()),
            ("b.txt".into(), "lax".into())
        ]
    );
    // A version gone before the tip keeps the tree of the commit that brought it.
    t.write("a.txt", "fixed\n");
    t.commit("fix a");
    let (_, audit, _) = run(t.path(), &Range::default());
    let a = audit
        .records
        .iter()
        .find(|r| r.path == "a.txt")
        .expect("a.txt");
    assert_eq!(a.finding.mode, "strict");
}

#[test]
fn submodules_and_lfs_pointers_are_skipped_and_said() {
    let mut t = TestRepo::new();
    t.write("a.txt", "clean\n");
    let c1 = t.commit("start");
    t.stage_submodule("vendor/lib.txt", c1);
    t.write(
        "weights.txt",
        "version https://git-lfs.github.com/spec/v1\noid sha256:FAULT\nsize 12\n",
    );
    t.git(&["add", "weights.txt"]);
    t.git(&["commit", "-q", "-m", "vendor and weights"]);
    let (rows, audit, _) = run(t.path(), &Range::default());
    assert!(rows.is_empty(), "{rows:?}");
    assert_eq!(
        audit.notes.submodules.iter().collect::<Vec<_>>(),
        ["vendor/lib.txt"]
    );
    assert_eq!(audit.notes.lfs.iter().collect::<Vec<_>>(), ["weights.txt"]);
}

#[test]
fn a_shallow_clone_says_where_its_history_stops() {
    let mut t = TestRepo::new();
    t.write("a.txt", "FAULT from the start\n");
    t.commit("1");
    for i in 2..5 {
        t.write("b.txt", &format!("{i}\n"));
        t.commit(&format!("{i}"));
    }
    let (_clone, target) = t.clone_with(&["--depth", "2"]);
    let (rows, audit, _) = run(&target, &Range::default());
    assert_eq!(rows.len(), 1);
    let introduced = audit.records[0].introduced.as_ref().expect("introduced");
    assert!(introduced.boundary, "introduced there or before");
    assert_eq!(audit.notes.shallow.len(), 1);
    assert_eq!(audit.notes.shallow[0].commit, introduced.commit);
}

#[test]
fn a_range_reports_what_its_commits_changed() {
    let mut t = TestRepo::new();
    t.write("a.txt", "FAULT old\n");
    t.write("b.txt", "FAULT kept\n");
    let base = t.commit("before the range");
    t.write("a.txt", "fixed\n");
    let fixed = t.commit("fix a");
    t.write("c.txt", "FAULT new\n");
    let new = t.commit("break c");
    let range = Range {
        revs: vec![format!("{base}..HEAD")],
        all: false,
    };
    let (rows, _, _) = run(t.path(), &range);
    // b.txt's fault is older than the range and untouched in it: not this range's.
    assert_eq!(
        rows,
        [
            row("a.txt", "FAULT old", None, Some(fixed)),
            row("c.txt", "FAULT new", Some(new), None),
        ]
    );
}
