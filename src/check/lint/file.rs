//! One file's lint: a spec read, parsed and linted with its experiment, or an experiment
//! file on its own; each file's failure contained to it.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::collector::FileOutcome;
use super::{walk_options, LintRun};
use crate::check::fixing::FixTarget;
use crate::check::plan::Plan;
use crate::check::profiles::Profile;
use crate::diagnostic::{Finding, INVALID_JSON};
use crate::discover::{Candidate, Kind, WalkMemo};
use crate::engine::{self, ExperimentToLint, FileName};
use crate::fix::write::ReadState;
use crate::project::{DirMemo, RealProject};
use crate::recent::Recent;
use crate::scratch::Scratch;

impl<'s> LintRun<'_, 's> {
    /// Lints one file; a panic while linting it is a bug, reported for that file, and the
    /// others are still linted (the run exits 2).
    pub(super) fn contained(&self, candidate: &Candidate, scratch: &mut Scratch) -> FileOutcome {
        let from = self.plan.profiles.shown_from();
        engine::contain(&candidate.path, from, || self.lint_file(candidate, scratch))
            .unwrap_or_else(|crashed| FileOutcome {
                findings: vec![crashed],
                tool_error: true,
                ..FileOutcome::default()
            })
    }

    fn lint_file(&self, candidate: &Candidate, scratch: &mut Scratch) -> FileOutcome {
        // A file whose config cannot be loaded is not linted: the run stops with its error.
        let profiles = &self.plan.profiles;
        let Some(profile) = profiles.for_file(&candidate.path, &mut scratch.walk.folders) else {
            return FileOutcome {
                tool_error: true,
                ..FileOutcome::default()
            };
        };
        match &candidate.kind {
            Kind::Spec => self.lint_spec(candidate, profile, scratch),
            Kind::ExperimentFile { root } => FileOutcome {
                findings: profile.experiments.lint_named_file(
                    &candidate.path,
                    root,
                    candidate.problem.clone(),
                    scratch,
                ),
                ..FileOutcome::default()
            },
        }
    }

    fn lint_spec(
        &self,
        candidate: &Candidate,
        profile: &Profile<'s>,
        scratch: &mut Scratch,
    ) -> FileOutcome {
        let from = self.plan.profiles.shown_from();
        let display = || -> Arc<str> { crate::paths::shown(&candidate.path, from) };
        let display = FileName::lazy(&display);
        let active = profile.rules_for(&candidate.path, self.cwd);
        let file_problem = |message: String| FileOutcome {
            findings: profile
                .invalid_json
                .filter(|_| active.iter().any(|a| a.rule.id == INVALID_JSON))
                .map(|r| vec![engine::file_finding(display.get(), r, message)])
                .unwrap_or_default(),
            tool_error: candidate.explicit,
            ..FileOutcome::default()
        };
        if let Some(problem) = &candidate.problem {
            return file_problem(problem.clone());
        }
        // `--fix`: what the path names, taken before the file is read, so that the fixed copy
        // replaces that file only, as it was read.
        let fixes = self.plan.options.fix.is_some_and(|m| m.write);
        let read_state = fixes.then(|| ReadState::of(&candidate.path).ok()).flatten();
        if let Some(state) = &read_state {
            let claimed = self
                .fixing
                .lock()
                .map_or(true, |mut fixing| fixing.insert(state.file_key()));
            if !claimed {
                // Reached by another path (a link and its target): linted and fixed once.
                return FileOutcome::default();
            }
        }
        let Scratch {
            lint,
            reader,
            dirs,
            walk,
            walk_lints,
            ..
        } = scratch;
        let lint = RefCell::new(lint);
        let linted = reader.with_file_bytes(&candidate.path, |read| {
            let bytes = read.map_err(|e| file_problem(format!("cannot read the file: {e}")))?;
            let project = self.project(&candidate.path, profile, dirs);
            let input = |lint_files: bool| profile.spec_input(&active, &project, lint_files);
            let lint_spec = |bytes: &[u8], lint_files: bool| {
                engine::lint_spec(bytes, &display, &input(lint_files), &mut lint.borrow_mut())
            };
            let linted = lint_spec(bytes, true);
            let target = (candidate.path.as_path(), read_state.as_ref());
            let outcome = self.fixed(target, &display, bytes, linted.findings, &|text| {
                lint_spec(text.as_bytes(), false).findings
            });
            let experiment = linted
                .experiment
                .filter(|e| self.takes(e, walk, walk_lints));
            // The spec as read, for the rules of its experiment's files that read it.
            let spec_text = experiment
                .as_ref()
                .filter(|_| profile.experiments.reads_spec)
                .and_then(|_| crate::json::text_of(bytes))
                .map(str::to_string);
            Ok((outcome, experiment, spec_text))
        });
        // The spec's check read its experiment's config in the experiment's folder, whose
        // files the worker reads next.
        let relative_to = candidate.path.is_relative().then_some(self.cwd);
        reader.adopt_folder(&mut lint.borrow_mut().config_files.folders, relative_to);
        let (mut outcome, experiment, spec_text) = match linted {
            Ok(linted) => linted,
            Err(problem) => return problem,
        };
        if let Some(experiment) = experiment {
            let spec = SpecOfExperiment {
                text: spec_text.as_deref(),
                profile,
            };
            outcome
                .findings
                .extend(self.lint_experiment(&spec, experiment, scratch));
        }
        outcome
    }

    /// Whether the run lints the files of `found`, the experiment a spec names, with the spec:
    /// not when the walk lints that experiment itself, nor when another spec claimed it first.
    fn takes(
        &self,
        found: &ExperimentToLint,
        memo: &mut WalkMemo,
        known: &mut Recent<(PathBuf, Option<PathBuf>), bool, 8>,
    ) -> bool {
        let (dir, root) = (&found.dir.dir, found.dir.starforge_root.as_deref());
        // Compared as bytes: both come from the spec's own lookup, and a miss only asks again.
        let same = |(d, r): &(PathBuf, Option<PathBuf>)| {
            d.as_os_str() == dir.as_os_str()
                && r.as_deref().map(Path::as_os_str) == root.map(Path::as_os_str)
        };
        let walked = known.get(same).unwrap_or_else(|| {
            let walked = self.walk_lints(dir, root, memo);
            known.put((dir.to_path_buf(), root.map(Path::to_path_buf)), walked);
            walked
        });
        !walked && self.claim(dir)
    }

    /// `--fix` and `--diff` on a spec whose findings are `findings`: its fixes applied, in
    /// passes that `relint` lints again, and written to `target`. The findings as they are
    /// without them.
    fn fixed(
        &self,
        target: FixTarget<'_>,
        display: &FileName<'_>,
        bytes: &[u8],
        findings: Vec<Finding>,
        relint: &dyn Fn(&str) -> Vec<Finding>,
    ) -> FileOutcome {
        let (Some(mode), Ok(text)) = (self.plan.options.fix, std::str::from_utf8(bytes)) else {
            return FileOutcome {
                findings,
                ..FileOutcome::default()
            };
        };
        let shown = display.get();
        let fixed =
            crate::check::fixing::fix_spec(Some(target), shown, text, findings, mode, relint);
        FileOutcome {
            findings: fixed.findings,
            tool_error: fixed.tool_error,
            fixed: fixed.applied,
            diff: fixed.diff.map(|d| (shown.clone(), d)),
        }
    }

    /// The project a spec at `spec` belongs to (for `spec.source.exp`), with the worker's
    /// `memo` of its directories.
    pub(super) fn project<'a>(
        &'a self,
        spec: &'a Path,
        profile: &'a Profile<'_>,
        memo: &'a RefCell<DirMemo>,
    ) -> RealProject<'a> {
        RealProject {
            spec,
            memo,
            config_root: profile.config_root.as_ref(),
            cwd: self.cwd,
            cwd_mentions_starforge: self.cwd_mentions_starforge,
            cache: &self.dir_cache,
        }
    }

    /// The files of the experiment a spec names, which the run has taken ([`Self::takes`]).
    fn lint_experiment(
        &self,
        spec: &SpecOfExperiment<'_, 's>,
        found: ExperimentToLint,
        scratch: &mut Scratch,
    ) -> Vec<Finding> {
        let dir = &found.dir.dir;
        let experiments = &spec.profile.experiments;
        // Read with the spec, or else by the experiment's linter when its rules read it.
        let config = found.config.filter(|_| experiments.reads_config);
        let config_docs = config.as_ref().and_then(|c| c.parse().map(|d| (c, d)));
        // Experiment rules with a `spec` condition read the spec that names the experiment.
        let spec_doc = spec.text.and_then(|text| crate::json::parse(text).ok());
        let options = walk_options(self.plan, self.cwd, 1);
        let mut memo = WalkMemo::default();
        // Left to others: a spec inside the experiment (the walk's, or its own candidate's), a
        // file named on the command line, and the files of an experiment the walk lints (an
        // experiment `.` holds the project's `experiments/*`).
        let mut skip = |path: &Path| {
            options.wanted(path, &mut memo)
                || (!self.named.is_empty()
                    && self
                        .named
                        .contains(&crate::paths::normalize(path, self.cwd)))
                || options
                    .experiment_of(path, &mut memo)
                    .is_some_and(|root| *root != **dir && self.walk_lints(&root, None, &mut memo))
        };
        experiments.lint_dir(
            dir,
            spec_doc.as_ref(),
            config_docs.as_ref().and_then(|(c, docs)| c.first(docs)),
            &mut skip,
            scratch,
        )
    }
}

/// The spec whose experiment's files are linted: its text, when their rules read it.
struct SpecOfExperiment<'a, 's> {
    text: Option<&'a str>,
    /// The profile of the spec: its experiment is linted with it.
    profile: &'a Profile<'s>,
}

/// The files named on the command line that are linted as experiment files.
pub(super) fn named_experiment_files(plan: &Plan<'_>, cwd: &Path) -> HashSet<PathBuf> {
    let options = walk_options(plan, cwd, 1);
    plan.options
        .paths
        .iter()
        .filter(|p| cwd.join(p).is_file())
        .filter(|p| {
            let kind = options.explicit_kind(p, &mut WalkMemo::default());
            matches!(kind, Kind::ExperimentFile { .. })
        })
        .map(|p| crate::paths::normalize(p, cwd))
        .collect()
}

impl LintRun<'_, '_> {
    /// Does the walk lint the experiment directory `dir` itself (it matches
    /// `[files] experiments` under a walked folder, or a walked folder is inside it: a run
    /// from inside the experiment lints the part it was asked to)? `starforge_root` is the
    /// spec's project root when the spec is in its `.starforge` folder: known to hold one,
    /// not asked again.
    fn walk_lints(&self, dir: &Path, starforge_root: Option<&Path>, memo: &mut WalkMemo) -> bool {
        if !self.walked.overlap(dir) {
            return false;
        }
        let options = walk_options(self.plan, self.cwd, 1);
        if let Some(tail) = starforge_root.and_then(|r| dir.strip_prefix(r).ok()) {
            let settings = options.settings.settings_at(dir, &mut memo.folders);
            if settings.is_some_and(|s| s.files.experiments.is_match(tail)) {
                return true;
            }
        }
        options.is_experiment_dir(dir, memo)
    }

    /// Whether `path` is in this run's part (`--shard`); always without it.
    pub(super) fn owns(&self, path: &Path) -> bool {
        self.plan.options.shard.is_none_or(|shard| shard.owns(path))
    }

    /// Claims `dir` for linting: true the first time only, and only in the run's part
    /// (`--shard`; by the folder's path from the current directory), so that an experiment
    /// named by specs in two parts is linted in one.
    fn claim(&self, dir: &Path) -> bool {
        let from_cwd = dir.strip_prefix(self.cwd).unwrap_or(dir);
        if !self.owns(from_cwd) {
            return false;
        }
        self.claimed
            .lock()
            .map(|mut c| c.insert(dir.to_path_buf()))
            .unwrap_or(false)
    }
}
