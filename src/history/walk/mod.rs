//! The audit of a history: the range's commits read oldest first, in windows; each window's
//! versions not seen before read in one batch and linted once, each in the tree of the commit
//! that brought it; then the window's changes handed to the [`Ledger`] in order. At the end,
//! the tips' files say which findings are still there.
//!
//! What the audit lints, and how, is the [`Linter`]'s business: the walk knows files only as
//! paths and bytes, and findings only as an identity and a value it keeps.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::git::{self, Change, Commit, GitError, Kind, Mode, Oid, Range, Repo, Side};
use super::ledger::{Ledger, Record, Stamp, Version};
use super::tree::{Snapshot, Trees};

/// Commits read ahead: their new versions are read from git in one batch. (Three in tests, so
/// that they cross windows.)
const WINDOW: usize = if cfg!(test) { 3 } else { 256 };

/// One version of a file, as the linter gets it.
pub struct FileVersion<'a> {
    /// Its path in the commit's tree.
    pub path: &'a str,
    pub id: Oid,
    /// Its bytes, at most [`Linter::size_limit`] of them.
    pub bytes: &'a [u8],
    /// Its full size: more than `bytes` holds when the file is over the limit.
    pub size: u64,
}

/// What the audit lints, and how.
pub trait Linter {
    type Finding;

    /// Whether the file at `path` is one to lint (a spec, a file of an experiment folder).
    fn wants(&mut self, path: &str) -> bool;

    /// The most bytes of a file read for linting.
    fn size_limit(&self) -> usize;

    /// Lints one version of a file, in the tree of its commit (its project: configs, the
    /// experiment a spec names). Each finding with its identity (see the ledger).
    fn lint(
        &mut self,
        file: &FileVersion<'_>,
        tree: &mut Snapshot<'_>,
    ) -> Result<Vec<(u64, Self::Finding)>, GitError>;
}

/// What the audit met besides findings, for the run's summary.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Notes {
    pub commits: usize,
    /// Distinct file versions linted.
    pub versions: usize,
    /// Where history stops: the commits of a shallow clone whose parents are not in it.
    pub shallow: Vec<Stamp>,
    /// Submodules met: skipped, their history is another repository's.
    pub submodules: BTreeSet<String>,
    /// Paths whose versions were Git LFS pointers: skipped, their content is not in git.
    pub lfs: BTreeSet<String>,
    /// What git itself warned (rename detection skipped in a huge commit, say).
    pub warnings: String,
    /// The versions that were LFS pointers: every path that has one is noted, though each is
    /// read once.
    lfs_versions: HashSet<Oid>,
}

/// The audit's findings and notes.
pub struct Audit<F> {
    pub records: Vec<Record<F>>,
    pub notes: Notes,
}

/// Lints every version of the files `linter` wants in `range` (limited to the pathspecs
/// `paths`, when there are any) and says which commit introduced and removed each finding.
pub fn audit<L: Linter>(
    repo: &Repo,
    range: &Range,
    paths: &[String],
    linter: &mut L,
) -> Result<Audit<L::Finding>, GitError> {
    let mut walk = Walk {
        repo,
        linter,
        blobs: repo.objects()?,
        trees: Trees::new(repo.objects()?),
        known: HashMap::new(),
        ledger: Ledger::new(),
        notes: Notes::default(),
        buf: Vec::new(),
    };
    let mut log = repo.log(range, paths)?;
    loop {
        let window = log
            .by_ref()
            .take(WINDOW)
            .collect::<Result<Vec<Commit>, GitError>>()?;
        if window.is_empty() {
            break;
        }
        walk.trees.announce(window.iter().map(|c| (c.id, c.tree)));
        let mut fresh = walk.lint_new(&window)?;
        for commit in &window {
            walk.record(commit, &mut fresh)?;
        }
    }
    walk.notes.warnings = log.warnings().to_string();
    for tip in repo.tips(range)? {
        // Every file of the tip: pathspecs are the log's business (relative to the current
        // folder, as git reads them), and a tip's file with no finding on record costs a
        // lookup.
        for side in repo.files(&tip)? {
            walk.at_tip(&side?, tip)?;
        }
    }
    Ok(Audit {
        records: walk.ledger.finish(),
        notes: walk.notes,
    })
}

/// The findings of the versions a window linted, until the ledger takes them.
type Fresh<F> = HashMap<Oid, Vec<(u64, F)>>;

struct Walk<'a, L: Linter> {
    repo: &'a Repo,
    linter: &'a mut L,
    /// Reads the window's new versions in batches.
    blobs: git::Objects,
    /// Reads trees for the linter, and versions read again.
    trees: Trees,
    /// Every version linted: its findings' identities (most are empty).
    known: HashMap<Oid, Box<[u64]>>,
    ledger: Ledger<L::Finding>,
    notes: Notes,
    buf: Vec<u8>,
}

impl<L: Linter> Walk<'_, L> {
    /// The side of a change to lint: a regular file the linter wants. Notes a submodule.
    fn lintable<'s>(&mut self, side: Option<&'s Side>) -> Option<&'s Side> {
        let side = side?;
        match side.mode {
            Mode::File => self.linter.wants(&side.path).then_some(side),
            Mode::Submodule => {
                if !self.notes.submodules.contains(&side.path) {
                    self.notes.submodules.insert(side.path.clone());
                }
                None
            }
            // A link's blob is its target's name; the target's own history is read.
            _ => None,
        }
    }

    /// Reads and lints, in one batch, the versions of `window` not linted before: a new side
    /// in the tree of its commit, an old side (there before the range began) in its parent's.
    fn lint_new(&mut self, window: &[Commit]) -> Result<Fresh<L::Finding>, GitError> {
        let mut todo: Vec<(Oid, String, Oid)> = Vec::new();
        let mut queued = HashSet::new();
        for commit in window {
            for change in &commit.changes {
                let sides = [
                    (change.after(), Some(commit.id)),
                    (change.before(), commit.parents.first().copied()),
                ];
                for (side, context) in sides {
                    let (Some(side), Some(context)) = (self.lintable(side), context) else {
                        continue;
                    };
                    if !self.known.contains_key(&side.id) && queued.insert(side.id) {
                        todo.push((side.id, side.path.clone(), context));
                    }
                }
            }
        }
        let ids: Vec<Oid> = todo.iter().map(|t| t.0).collect();
        let mut fresh = Fresh::default();
        let mut failed = None;
        let limit = self.linter.size_limit();
        let Walk {
            blobs,
            trees,
            linter,
            known,
            notes,
            ..
        } = self;
        blobs.read_each(&ids, limit, &mut |i, object, bytes| {
            if failed.is_some() {
                return;
            }
            let (id, path, context) = &todo[i];
            let findings = match object {
                Some(o) if o.kind == Kind::Blob => {
                    let file = FileVersion {
                        path,
                        id: *id,
                        bytes,
                        size: o.size,
                    };
                    match lint_version(&mut **linter, trees, notes, &file, *context) {
                        Ok(findings) => findings,
                        Err(e) => {
                            failed = Some(e);
                            return;
                        }
                    }
                }
                // Not in this clone (a partial clone's missing blob): nothing to lint.
                _ => Vec::new(),
            };
            notes.versions += 1;
            known.insert(*id, findings.iter().map(|f| f.0).collect());
            fresh.insert(*id, findings);
        })?;
        match failed {
            Some(e) => Err(e),
            None => Ok(fresh),
        }
    }

    /// Hands one commit's changes to the ledger.
    fn record(&mut self, commit: &Commit, fresh: &mut Fresh<L::Finding>) -> Result<(), GitError> {
        self.notes.commits += 1;
        let boundary = commit.parents.is_empty() && self.repo.is_boundary(&commit.id);
        let stamp = Stamp {
            commit: commit.id.to_string(),
            date: commit.date.clone(),
            author: format!("{} <{}>", commit.author, commit.email),
            boundary,
        };
        if boundary {
            self.notes.shallow.push(stamp.clone());
        }
        self.ledger.begin(stamp);
        for change in &commit.changes {
            let before = self.lintable(change.before());
            let after = self.lintable(change.after());
            for side in after.iter().chain(&before) {
                if self.notes.lfs_versions.contains(&side.id)
                    && !self.notes.lfs.contains(&side.path)
                {
                    self.notes.lfs.insert(side.path.clone());
                }
            }
            let Some(path) = after.or(before).map(|s| s.path.as_str()) else {
                continue;
            };
            if let Change::Renamed { old, new, .. } = change {
                self.ledger.rename(&old.path, &new.path);
            }
            let keys = |side: Option<&Side>, known: &HashMap<Oid, Box<[u64]>>| {
                side.and_then(|s| known.get(&s.id))
                    .map_or(Vec::new(), |k| k.to_vec())
            };
            let old = keys(before, &self.known);
            let new = keys(after, &self.known);
            let mut failed = None;
            let parent = commit.parents.first().copied();
            let Walk {
                ledger,
                linter,
                trees,
                notes,
                buf,
                ..
            } = self;
            let mut findings = |version: Version| {
                let (side, context) = match version {
                    Version::Old => (before, parent),
                    Version::New => (after, Some(commit.id)),
                };
                let (Some(side), Some(context)) = (side, context) else {
                    return Vec::new();
                };
                if version == Version::New {
                    if let Some(findings) = fresh.remove(&side.id) {
                        return findings;
                    }
                }
                relint_or_fail(&mut **linter, trees, notes, buf, side, context, &mut failed)
            };
            ledger.change(path, &old, &new, &mut findings);
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    }

    /// A file of a tip: its findings on record are still there.
    fn at_tip(&mut self, side: &Side, tip: Oid) -> Result<(), GitError> {
        if side.mode != Mode::File
            || !self.linter.wants(&side.path)
            || !self.ledger.has_findings(&side.path)
        {
            return Ok(());
        }
        let Walk {
            ledger,
            linter,
            trees,
            notes,
            buf,
            known,
            ..
        } = self;
        let mut failed = None;
        let mut relinted = None;
        let keys = match known.get(&side.id) {
            Some(keys) => keys.to_vec(),
            None => {
                let findings =
                    relint_or_fail(&mut **linter, trees, notes, buf, side, tip, &mut failed);
                let keys = findings.iter().map(|f| f.0).collect();
                relinted = Some(findings);
                keys
            }
        };
        let mut findings = || {
            relinted.take().unwrap_or_else(|| {
                relint_or_fail(&mut **linter, trees, notes, buf, side, tip, &mut failed)
            })
        };
        ledger.at_tip(&side.path, &keys, &mut findings);
        failed.map_or(Ok(()), Err)
    }
}

/// Lints a version in the tree of `context`; an LFS pointer is noted, not linted.
fn lint_version<L: Linter>(
    linter: &mut L,
    trees: &mut Trees,
    notes: &mut Notes,
    file: &FileVersion<'_>,
    context: Oid,
) -> Result<Vec<(u64, L::Finding)>, GitError> {
    if git::is_lfs_pointer(file.bytes) {
        notes.lfs_versions.insert(file.id);
        return Ok(Vec::new());
    }
    let mut tree = trees.at(context)?;
    linter.lint(file, &mut tree)
}

/// Reads a version again (its findings were dropped: only identities are kept) and lints it.
/// For a ledger's question, which cannot fail: a failure is kept in `failed`, and the answer
/// is then empty.
fn relint_or_fail<L: Linter>(
    linter: &mut L,
    trees: &mut Trees,
    notes: &mut Notes,
    buf: &mut Vec<u8>,
    side: &Side,
    context: Oid,
    failed: &mut Option<GitError>,
) -> Vec<(u64, L::Finding)> {
    let limit = linter.size_limit();
    let found = trees.blob(side.id, limit, buf).and_then(|size| {
        let Some(size) = size else {
            return Ok(Vec::new());
        };
        let file = FileVersion {
            path: &side.path,
            id: side.id,
            bytes: buf,
            size,
        };
        lint_version(linter, trees, notes, &file, context)
    });
    found.unwrap_or_else(|e| {
        *failed = Some(e);
        Vec::new()
    })
}

#[cfg(test)]
mod tests;
