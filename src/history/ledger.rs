//! Which commit brought each finding into a file's history, and which took it out.
//!
//! The history is read as events: a commit changed a path from one blob to another (against
//! its first parent), so the findings of the old blob that the new one lacks were removed there,
//! and those the new one has that the old lacked were introduced there. Commits come oldest
//! first (parents before children), so the first introduction seen is the earliest and the last
//! removal seen is the latest; at the end, the tips' files say which findings are still there.
//! Diffing each commit against its first parent also makes merges right: a side branch's commits
//! introduce its findings, and the merge that brings them to the main line changes nothing that
//! an earlier commit had not introduced already.
//!
//! A finding is known by its identity, a `u64` the caller computes as the baseline does (rule,
//! JSON Pointer, hash of the offending value without whitespace: never a line number), so a
//! finding survives edits around it. Its file is known by its lineage: the paths it had, joined
//! by renames (a union of paths, so a path reused after a deletion, or two branches' renames of
//! one file, are one lineage). Each (lineage, identity) is one [`Record`]: reported once, with
//! its first introduction and, when it is gone from every tip, its last removal.
//!
//! Memory: a record per distinct finding, a node per distinct path, and one [`Stamp`] per commit
//! that introduced or removed something; nothing grows with the number of commits times files.

use std::collections::HashMap;

/// A commit as a finding's `introduced` or `removed` object shows it.
pub use crate::diagnostic::Stamp;

/// Which side of a change a ledger asks the findings of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// Before the commit.
    Old,
    /// After it.
    New,
}

/// One finding of one file's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<F> {
    /// The finding as the caller made it: from the tip's version of the file when it is still
    /// there, else from the version that introduced it.
    pub finding: F,
    /// The path of the version the finding was taken from.
    pub path: String,
    /// The commit that introduced it; `None` when it was there before the range began.
    pub introduced: Option<Stamp>,
    /// The commit that removed it; `None` when it is still at a tip.
    pub removed: Option<Stamp>,
}

/// The history's findings, with the commits that introduced and removed them.
pub struct Ledger<F> {
    /// Paths to lineage nodes; a node's parent, towards its lineage's root.
    nodes: HashMap<Box<str>, u32>,
    parent: Vec<u32>,
    /// Per lineage root: its findings by identity.
    lineages: HashMap<u32, HashMap<u64, Entry<F>>>,
    /// The commits events happened in, as events refer to them.
    stamps: Vec<Stamp>,
    /// The commit being read, until its first event interns it.
    current: Option<Stamp>,
    current_index: Option<u32>,
}

struct Entry<F> {
    finding: F,
    path: Box<str>,
    introduced: Option<u32>,
    removed: Option<u32>,
    at_tip: bool,
}

impl<F> Default for Ledger<F> {
    fn default() -> Ledger<F> {
        Ledger {
            nodes: HashMap::new(),
            parent: Vec::new(),
            lineages: HashMap::new(),
            stamps: Vec::new(),
            current: None,
            current_index: None,
        }
    }
}

impl<F> Ledger<F> {
    pub fn new() -> Ledger<F> {
        Ledger::default()
    }

    /// The commit whose changes come next.
    pub fn begin(&mut self, commit: Stamp) {
        self.current = Some(commit);
        self.current_index = None;
    }

    /// The current commit's index in `stamps`, interned on first use.
    fn stamp(&mut self) -> Option<u32> {
        if self.current_index.is_none() {
            let stamp = self.current.take()?;
            self.stamps.push(stamp);
            self.current_index = Some((self.stamps.len() - 1) as u32);
        }
        self.current_index
    }

    fn node(&mut self, path: &str) -> u32 {
        if let Some(&n) = self.nodes.get(path) {
            return n;
        }
        let n = self.parent.len() as u32;
        self.parent.push(n);
        self.nodes.insert(path.into(), n);
        n
    }

    fn root(&mut self, mut n: u32) -> u32 {
        while self.parent[n as usize] != n {
            let up = self.parent[n as usize];
            // Path halving: every other node points to its grandparent.
            self.parent[n as usize] = self.parent[up as usize];
            n = up;
        }
        n
    }

    /// The lineage `path` belongs to, if it has one yet.
    fn lineage_of(&mut self, path: &str) -> Option<u32> {
        let n = *self.nodes.get(path)?;
        Some(self.root(n))
    }

    /// `old` was renamed `new` in the current commit: from now on they are one file.
    pub fn rename(&mut self, old: &str, new: &str) {
        let a = self.node(old);
        let b = self.node(new);
        let (a, b) = (self.root(a), self.root(b));
        if a == b {
            return;
        }
        // The lineage with more findings absorbs the other (small into large: n log n).
        let size = |l: &HashMap<u32, HashMap<u64, Entry<F>>>, r| l.get(&r).map_or(0, HashMap::len);
        let (keep, gone) = if size(&self.lineages, a) >= size(&self.lineages, b) {
            (a, b)
        } else {
            (b, a)
        };
        self.parent[gone as usize] = keep;
        let Some(moved) = self.lineages.remove(&gone) else {
            return;
        };
        let into = self.lineages.entry(keep).or_default();
        for (identity, entry) in moved {
            match into.get_mut(&identity) {
                None => {
                    into.insert(identity, entry);
                }
                Some(kept) => {
                    // The same finding in both: the earlier introduction, the later removal.
                    kept.introduced = min_some(kept.introduced, entry.introduced);
                    kept.removed = kept.removed.max(entry.removed);
                    kept.at_tip |= entry.at_tip;
                }
            }
        }
    }

    /// The current commit changed `path` from a blob with the findings `old` (identities; empty
    /// for an added file) to one with `new` (empty for a deleted file).
    ///
    /// The findings themselves are asked of `findings` only when needed, each version at most
    /// once: the new one's when one of `new` is new to this file (so a blob is linted once
    /// however often it comes back), the old one's when one of `old` goes that no commit of
    /// the range introduced (it was there before the range began; recorded with no
    /// introduction).
    pub fn change(
        &mut self,
        path: &str,
        old: &[u64],
        new: &[u64],
        findings: &mut dyn FnMut(Version) -> Vec<(u64, F)>,
    ) {
        // Sorted sets, so a file with thousands of findings costs n log n, not n².
        let set = |keys: &[u64]| {
            let mut keys = keys.to_vec();
            keys.sort_unstable();
            keys.dedup();
            keys
        };
        let (old, new) = (set(old), set(new));
        let introduced: Vec<u64> = new
            .iter()
            .copied()
            .filter(|k| old.binary_search(k).is_err())
            .collect();
        let removed: Vec<u64> = old
            .iter()
            .copied()
            .filter(|k| new.binary_search(k).is_err())
            .collect();
        if introduced.is_empty() && removed.is_empty() {
            return;
        }
        let stamp = self.stamp();
        let node = self.node(path);
        let lineage = self.root(node);
        let records = self.lineages.entry(lineage).or_default();
        let mut unseen = false;
        for identity in &removed {
            match records.get_mut(identity) {
                Some(entry) => entry.removed = stamp,
                None => unseen = true,
            }
        }
        if unseen {
            let old = findings(Version::Old);
            add_new(records, old, &removed, path, None, stamp);
        }
        let mut unknown = false;
        for identity in &introduced {
            match records.get_mut(identity) {
                Some(entry) => entry.introduced = min_some(entry.introduced, stamp),
                None => unknown = true,
            }
        }
        if unknown {
            let new = findings(Version::New);
            add_new(records, new, &introduced, path, stamp, None);
        }
    }

    /// Whether `path` has findings on record (the caller then lists its findings at a tip).
    pub fn has_findings(&mut self, path: &str) -> bool {
        self.lineage_of(path)
            .and_then(|l| self.lineages.get(&l))
            .is_some_and(|records| !records.is_empty())
    }

    /// A tip's file at `path` has the findings `identities`: they are still there, so have no
    /// removal. `findings` gives them (to show the tip's version); called only when one of them
    /// is on record.
    pub fn at_tip(
        &mut self,
        path: &str,
        identities: &[u64],
        findings: &mut dyn FnMut() -> Vec<(u64, F)>,
    ) {
        let Some(lineage) = self.lineage_of(path) else {
            return;
        };
        let Some(records) = self.lineages.get_mut(&lineage) else {
            return;
        };
        if !identities.iter().any(|k| records.contains_key(k)) {
            return;
        }
        for (identity, finding) in findings() {
            if let Some(entry) = records.get_mut(&identity) {
                entry.at_tip = true;
                entry.finding = finding;
                entry.path = path.into();
            }
        }
    }

    /// Every record, in no particular order (the report sorts).
    pub fn finish(self) -> Vec<Record<F>> {
        let stamps = self.stamps;
        let stamp = |i: Option<u32>| i.map(|i| stamps[i as usize].clone());
        self.lineages
            .into_values()
            .flat_map(HashMap::into_values)
            .map(|e| Record {
                finding: e.finding,
                path: e.path.into(),
                introduced: stamp(e.introduced),
                removed: if e.at_tip { None } else { stamp(e.removed) },
            })
            .collect()
    }
}

/// Records those of `findings` whose identity is in `wanted` (sorted) and not on record yet.
fn add_new<F>(
    records: &mut HashMap<u64, Entry<F>>,
    findings: Vec<(u64, F)>,
    wanted: &[u64],
    path: &str,
    introduced: Option<u32>,
    removed: Option<u32>,
) {
    for (identity, finding) in findings {
        if wanted.binary_search(&identity).is_ok() {
            records.entry(identity).or_insert(Entry {
                finding,
                path: path.into(),
                introduced,
                removed,
                at_tip: false,
            });
        }
    }
}

/// The smaller of two optional commit indexes, `None` only when both are.
fn min_some(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(n: u32) -> Stamp {
        Stamp {
            commit: format!("c{n}"),
            date: format!("2024-01-{n:02}T00:00:00Z"),
            author: "Ada Lovelace <ada@lab.example>".into(),
            boundary: false,
        }
    }

    /// Findings named after their identities, as a linter would give them.
    fn named(keys: &[u64]) -> Vec<(u64, String)> {
        keys.iter().map(|&k| (k, format!("finding {k}"))).collect()
    }

    /// A change whose findings are those of the identities, counting what is asked.
    fn change(ledger: &mut Ledger<String>, path: &str, old: &[u64], new: &[u64]) -> usize {
        let mut asked = 0;
        ledger.change(path, old, new, &mut |version| {
            asked += 1;
            named(if version == Version::Old { old } else { new })
        });
        asked
    }

    fn summary(ledger: Ledger<String>) -> Vec<(String, String, Option<String>, Option<String>)> {
        let mut out: Vec<_> = ledger
            .finish()
            .into_iter()
            .map(|r| {
                (
                    r.path,
                    r.finding,
                    r.introduced.map(|s| s.commit),
                    r.removed.map(|s| s.commit),
                )
            })
            .collect();
        out.sort();
        out
    }

    fn row(
        path: &str,
        k: u64,
        i: Option<u32>,
        r: Option<u32>,
    ) -> (String, String, Option<String>, Option<String>) {
        (
            path.into(),
            format!("finding {k}"),
            i.map(|n| format!("c{n}")),
            r.map(|n| format!("c{n}")),
        )
    }

    #[test]
    fn a_finding_is_introduced_then_removed_once() {
        let mut l = Ledger::new();
        l.begin(stamp(1));
        change(&mut l, "a", &[], &[]);
        l.begin(stamp(2));
        change(&mut l, "a", &[], &[7]);
        l.begin(stamp(3));
        // Edited around it: the same identity, no event.
        assert_eq!(change(&mut l, "a", &[7], &[7]), 0);
        l.begin(stamp(4));
        change(&mut l, "a", &[7], &[]);
        assert_eq!(summary(l), [row("a", 7, Some(2), Some(4))]);
    }

    #[test]
    fn a_finding_still_at_the_tip_has_no_removal() {
        let mut l = Ledger::new();
        l.begin(stamp(1));
        change(&mut l, "a", &[], &[1, 2]);
        l.begin(stamp(2));
        change(&mut l, "a", &[1, 2], &[2]);
        l.at_tip("a", &[2], &mut || vec![(2, "finding 2".to_string())]);
        assert_eq!(
            summary(l),
            [row("a", 1, Some(1), Some(2)), row("a", 2, Some(1), None)]
        );
    }

    #[test]
    fn a_finding_follows_its_file_across_renames() {
        let mut l = Ledger::new();
        l.begin(stamp(1));
        change(&mut l, "old", &[], &[5]);
        l.begin(stamp(2));
        l.rename("old", "new");
        assert_eq!(change(&mut l, "new", &[5], &[5]), 0);
        l.begin(stamp(3));
        l.rename("new", "newer");
        change(&mut l, "newer", &[5], &[]);
        assert!(!l.has_findings("elsewhere"));
        assert!(l.has_findings("newer") && l.has_findings("old"));
        assert_eq!(summary(l), [row("old", 5, Some(1), Some(3))]);
    }

    #[test]
    fn a_finding_that_comes_back_is_one_finding() {
        let mut l = Ledger::new();
        for (n, keys) in [(1, &[3][..]), (2, &[]), (3, &[3]), (4, &[])] {
            let old: &[u64] = if n % 2 == 0 { &[3] } else { &[] };
            l.begin(stamp(n));
            change(&mut l, "a", old, keys);
        }
        // First introduced, last removed.
        assert_eq!(summary(l), [row("a", 3, Some(1), Some(4))]);
    }

    #[test]
    fn a_finding_from_before_the_range_has_no_introduction() {
        let mut l = Ledger::new();
        l.begin(stamp(9));
        assert_eq!(change(&mut l, "a", &[4], &[]), 1);
        assert_eq!(summary(l), [row("a", 4, None, Some(9))]);
    }

    #[test]
    fn findings_are_asked_for_only_when_new_to_the_file() {
        let mut l = Ledger::new();
        l.begin(stamp(1));
        assert_eq!(change(&mut l, "a", &[], &[1]), 1);
        l.begin(stamp(2));
        assert_eq!(change(&mut l, "a", &[1], &[]), 0);
        l.begin(stamp(3));
        // Back again (a revert): known to this file, nothing asked.
        assert_eq!(change(&mut l, "a", &[], &[1]), 0);
        // The same content in another file: new there.
        assert_eq!(change(&mut l, "b", &[], &[1]), 1);
        // A commit with no event interns no stamp.
        l.begin(stamp(4));
        assert_eq!(change(&mut l, "a", &[1], &[1]), 0);
        assert_eq!(l.stamps.len(), 3);
    }

    #[test]
    fn joined_lineages_keep_the_earliest_introduction() {
        let mut l = Ledger::new();
        l.begin(stamp(1));
        change(&mut l, "a", &[], &[1]);
        l.begin(stamp(2));
        change(&mut l, "b", &[], &[1, 2]);
        // Two branches' versions of one file meet: `b` is renamed onto `a`'s lineage.
        l.begin(stamp(3));
        l.rename("b", "a");
        change(&mut l, "a", &[1, 2], &[1, 2]);
        l.at_tip("a", &[1, 2], &mut || named(&[1, 2]));
        assert_eq!(
            summary(l),
            [row("a", 1, Some(1), None), row("a", 2, Some(2), None)]
        );
    }

    #[test]
    fn many_findings_in_one_file_cost_n_log_n() {
        let mut l = Ledger::new();
        let keys: Vec<u64> = (0..200_000).collect();
        l.begin(stamp(1));
        change(&mut l, "a", &[], &keys);
        l.begin(stamp(2));
        change(&mut l, "a", &keys, &keys[1..]);
        let records = l.finish();
        assert_eq!(records.len(), 200_000);
        assert_eq!(records.iter().filter(|r| r.removed.is_some()).count(), 1);
    }
}
