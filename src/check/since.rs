//! `check --new-from-rev REV` (golangci-lint's `new-from-rev`): only the findings the files did
//! not have at REV are reported. The baseline is REV's tree, computed in memory: each file with
//! findings now is linted as it was at REV (its path there, renames followed), with today's
//! rules and REV's tree as its project, and a finding whose identity (the baseline's without
//! the path: rule, JSON Pointer, offending value) the file had then is hidden, counted as a
//! baseline counts. A clean tree costs one `git diff`; a file git does not track has no past.

use std::collections::HashMap;
use std::sync::Arc;

use super::history::versions::{identity, Kind, VersionLinter};
use super::history::{git_error, Place};
use super::lint::Linted;
use super::plan::Plan;
use crate::collect::Findings;
use crate::diagnostic::Finding;
use crate::error::Error;
use crate::history::git::{Change, GitError, Mode, Oid, Repo};
use crate::history::tree::Trees;
use crate::history::walk::FileVersion;
use crate::read::MAX_FILE_SIZE;
use crate::report::SinceRev;

/// Hides the findings of `linted` that their files had at `rev`.
pub fn hide_known(
    plan: &Plan<'_>,
    linted: &mut Linted,
    rev: &str,
    cwd: &std::path::Path,
) -> Result<SinceRev, Error> {
    let repo = Repo::open(cwd).map_err(git_error)?;
    let commit = repo.resolve(rev).map_err(|_| unknown_rev(rev, &repo))?;
    let Some(top) = repo.top_level().map_err(git_error)? else {
        return Err(Error::Git {
            message:
                "--new-from-rev compares the work tree with a revision: this repository is bare"
                    .into(),
            help: None,
        });
    };
    let place = Place::new(cwd, Some(&top));
    let files = files_with_findings(&linted.findings, &place).map_err(temporary)?;
    let mut hidden = 0;
    if !files.is_empty() {
        let known = known_at(plan, &repo, &place, commit, files).map_err(git_error)?;
        hidden = hide(linted, known).map_err(temporary)?;
    }
    Ok(SinceRev {
        rev: rev.to_string(),
        hidden,
    })
}

/// The error for a revision the clone does not have: a shallow checkout's usual cause.
fn unknown_rev(rev: &str, repo: &Repo) -> Error {
    let shallow = if repo.shallow.is_empty() {
        ""
    } else {
        " (this clone is shallow)"
    };
    Error::Git {
        message: format!("--new-from-rev: `{rev}` names no commit of this clone{shallow}"),
        help: Some("fetch it first; in GitHub Actions a shallow checkout has only the last commit: give actions/checkout `fetch-depth: 0`".into()),
    }
}

fn temporary(source: std::io::Error) -> Error {
    Error::Write {
        path: "a temporary file of findings".into(),
        source,
    }
}

/// The files with findings, each as named and by its git path (those outside the work tree
/// have no past).
fn files_with_findings(
    findings: &dyn Findings,
    place: &Place,
) -> std::io::Result<Vec<(Arc<str>, String)>> {
    let mut files: Vec<(Arc<str>, String)> = Vec::new();
    findings.each_batch(&mut |batch| {
        for group in batch.chunk_by(|a, b| a.path == b.path) {
            let shown = &group[0].path;
            if files.last().is_some_and(|(last, _)| last == shown) {
                continue;
            }
            if let Some(path) = place.git_path_of_shown(shown) {
                files.push((shown.clone(), path));
            }
        }
        Ok(())
    })?;
    Ok(files)
}

/// Per file (as named): the identities of the findings it had at `commit`, counted.
type Known = HashMap<Arc<str>, HashMap<u64, usize>>;

/// Lints each file of `files` as it was at `commit`, in that commit's tree.
fn known_at(
    plan: &Plan<'_>,
    repo: &Repo,
    place: &Place,
    commit: Oid,
    files: Vec<(Arc<str>, String)>,
) -> Result<Known, GitError> {
    // Where each changed file was at the commit; a file the diff does not name is where it
    // was, or untracked (then the commit has no file at its path).
    let mut then: HashMap<String, Option<String>> = HashMap::new();
    for change in repo.changes_since(&commit)? {
        match change {
            Change::Added(new) => {
                then.insert(new.path, None);
            }
            Change::Renamed { old, new, .. } => {
                then.insert(new.path, Some(old.path));
            }
            // Modified, or deleted from the index while still on disk: at its own path.
            Change::Modified { .. } | Change::Deleted(_) => {}
        }
    }
    let mut trees = Trees::new(repo.objects()?);
    let mut linter = VersionLinter::new(plan, place);
    let mut known = Known::new();
    let mut bytes = Vec::new();
    for (shown, path) in files {
        let old = match then.get(&path) {
            Some(None) => continue,
            Some(Some(old)) => old.clone(),
            None => path.clone(),
        };
        let mut tree = trees.at(commit)?;
        let Some((Mode::File, id)) = tree.entry(&old)? else {
            continue;
        };
        // At most one byte over the size limit: enough to report the file as too large.
        let Some(size) = tree.blob(id, MAX_FILE_SIZE as usize + 1, &mut bytes)? else {
            continue;
        };
        // Linted as it is linted now: a file the walk would not pick (named on the command
        // line) is a spec, as `check` takes it.
        let kind = linter
            .kind(&old)
            .or_else(|| linter.kind(&path))
            .unwrap_or(Kind::Spec);
        let version = FileVersion {
            path: &old,
            id,
            bytes: &bytes,
            size,
        };
        let found = known.entry(shown).or_default();
        for f in linter.lint_as(&kind, &version, &mut tree)? {
            *found.entry(identity(&f)).or_default() += 1;
        }
    }
    Ok(known)
}

/// Hides each finding whose file had its identity at the revision, as many as it had.
fn hide(linted: &mut Linted, known: Known) -> std::io::Result<usize> {
    let mut first = remaining(&known);
    let known = Arc::new(known);
    linted
        .findings
        .hide(&mut first, Box::new(move || Box::new(remaining(&known))))
}

/// One pass's filter: a finding is hidden while its file's count of its identity lasts.
fn remaining(known: &Known) -> impl FnMut(&Finding) -> bool + 'static {
    let mut left = known.clone();
    move |f: &Finding| {
        let Some(counts) = left.get_mut(&f.path) else {
            return false;
        };
        match counts.get_mut(&identity(f)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }
}
