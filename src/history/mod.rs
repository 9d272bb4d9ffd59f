//! The audit of history: `forgelint history [REV-RANGE]... [-- PATHS]` lints every version of
//! every spec and experiment file reachable in the range (default: `HEAD`'s history), each
//! distinct content once, and reports each finding once, with the commit that introduced it and
//! the commit that removed it (none while it is still at the tip); `forgelint check
//! --new-from-rev REV` reports only the findings the files did not have at REV.
//!
//! # How a history is read
//!
//! [`git`] reads the repository through the `git` program (why, with figures, is in that
//! module): `git log --raw -z -M --diff-merges=first-parent --topo-order --reverse` streams the
//! commits oldest first, each with the paths it changed against its first parent, renames
//! followed; one `git cat-file --batch` reads objects. [`walk`] takes the commits in windows of
//! 256: the versions of wanted files that no earlier commit had are read in one batch and
//! linted once each, in the tree of the commit that brought them ([`tree::Snapshot`]: the
//! project as of that commit: its configs, the experiment folder a spec names, that folder's
//! config); then [`ledger`] turns each change into events: the findings a new version has that
//! the old lacked were introduced by the commit, those it lacks were removed. At the end the
//! tips' files say which findings are still there; those are shown as the tip has them.
//!
//! A finding's identity is the baseline's ([`crate::baseline`]) without the path: rule, JSON
//! Pointer, and the hash of the offending value without whitespace, so it survives moved lines
//! and edits around it; the path is the file's *lineage*, its names joined by renames. Each
//! (lineage, identity) is reported once: introduced by the first commit that brought it in,
//! removed by the last that took it out, and not removed when a tip still has it. A fault that
//! was fixed and came back is one finding, with its first introduction.
//!
//! Merges: diffing against the first parent, a side branch's commits introduce what they wrote
//! (a token committed and deleted on a branch is reported with those two commits, though the
//! main line never had it), and the merge that brings a finding to the main line does not
//! introduce it again: the earlier commit is kept.
//!
//! What is skipped, and said in the summary: submodules (their history is another
//! repository's: run forgelint there), Git LFS pointers (the content is not in git), symbolic
//! links (a link's blob is its target's name; the target's own history is read). A shallow
//! clone's history stops at its boundary commits: what they hold is reported as introduced
//! there, marked `boundary` ("there or before"), and the summary names where history stops.
//! A partial clone's missing blobs are fetched by git from its promisor remote.
//!
//! Memory does not grow with the number of commits: one window of commits, the identities
//! found in each distinct version (most have none), a record per distinct finding, a budget of
//! parsed trees. On 100,000 commits and 117,000 distinct versions (`bench/history.py`) the
//! walk's own peak is 26 MB; `git log` holds its list of commits (about 0.5 KB each: 72 MB
//! there, 50 MB with a commit-graph file) besides the pack it maps from disk.
//!
//! Limits: a version is linted once, in the tree of the commit that brought it, so a finding
//! that depends on another file (`hyperparam-unknown` on the experiment's config,
//! `source-exp-missing` on the folder) is that of the spec's own commits, not re-judged each
//! time the other file changes. A path that is not UTF-8 is shown with replacement characters.
//!
//! # What a user sees
//!
//! Every format carries the two commits. In `json`, `jsonl` and `sarif` (in each result's
//! `properties`) a finding gets
//!
//! ```json
//! "introduced": {"commit": "<40 hex>", "date": "2024-03-02T10:04:00+01:00",
//!                "author": "Ada Lovelace <ada@lab.example>"},
//! "removed": null
//! ```
//!
//! (`introduced` is `null` for a finding there before the range began; `"boundary": true` is
//! added where a shallow clone's history stops). The date is the author date, as `git log`
//! shows it. `human` adds a line under each finding: "introduced in 1a2b3c4 on 2024-03-02 by
//! Ada Lovelace; removed in 5d6e7f8 on 2024-04-10 by Alan Turing" or "…; still at the tip";
//! `concise` appends the two short hashes and dates. The frame of a removed finding is the text
//! of the version that introduced it (`git show <introduced>:<path>`), masked as everywhere: a
//! secret found in history is never shown, and its help says "revoke it: it stays in every
//! clone". `github` annotates the files of findings still at the tip and reports removed ones
//! without a file (their lines are gone). The `html` report gains a column for each commit and
//! a timeline of findings per month: introduced and removed in each month, and open at its end,
//! counted from the records in one pass. The summary says how many commits and distinct
//! versions were read, and what was skipped.
//!
//! # `check --new-from-rev REV`
//!
//! The baseline is computed in memory from REV's tree, with no file: REV is resolved (exit 2
//! with a clear message when the clone does not have it: a shallow checkout needs
//! `fetch-depth: 0`), `git diff --raw -z -M REV` maps each changed file to its path at REV
//! (renames followed; a file git does not track has no past), and each file with findings now
//! is linted as it was at REV, in memory: its REV version, today's rules and settings, and REV's
//! tree as its project (the experiment folder and config it named then). A finding is hidden
//! when the file had the same identity at REV, counted as a baseline counts; the rest are new.
//! Only files with findings now are read at REV, so a clean tree costs one `git diff`. For a
//! pull request: `--new-from-rev origin/main`, or the Action's `new-from-rev` input with the
//! pull request's base commit.
//!
//! The module imports only the finding's parts from the rest of the crate
//! ([`crate::diagnostic::Stamp`]): the linting is the caller's, behind [`walk::Linter`]
//! (`check/history/` lints each version as `check` lints the file, and reports through the
//! same collection and formats; `check/since.rs` is `--new-from-rev`).

pub mod git;
pub mod ledger;
pub mod tree;
pub mod walk;

#[cfg(test)]
mod fixture;
