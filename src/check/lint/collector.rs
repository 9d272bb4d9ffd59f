//! What the workers found, gathered: findings masked and kept, fixes counted, diffs.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::diagnostic::Finding;
use crate::error::Error;
use crate::secrets::Detector;

/// What the lint run found.
pub struct Linted {
    /// Sorted; held in memory or spilled to disk.
    pub findings: crate::collect::Collected,
    pub files: usize,
    /// A file named on the command line could not be read, or linting one crashed: exit 2.
    pub tool_error: bool,
    /// The spec read from standard input, by its reported name, for code frames.
    pub stdin_source: Option<(Arc<str>, Arc<str>)>,
    /// Experiment files skipped as binary (or not UTF-8).
    pub binary_files: usize,
    /// Fixes applied (`--fix`), or that would be (`--diff`).
    pub fixes_applied: usize,
    /// `--diff`: each changed file's diff, by path.
    pub diffs: Vec<(Arc<str>, String)>,
    /// `--fix` on standard input: the fixed spec (the spec as read when nothing applied).
    pub stdin_fixed: Option<String>,
    /// A history audit: what it read of git.
    pub history: Option<crate::report::HistoryRead>,
    /// `--new-from-rev`: the findings hidden because the files had them at the revision.
    pub new_from_rev: Option<crate::report::SinceRev>,
    /// The secret detector of the run's rules: code frames mask what it finds.
    pub detector: Detector,
}

#[derive(Default)]
pub(super) struct FileOutcome {
    pub(super) findings: Vec<Finding>,
    /// An explicitly named file that could not be read: exit 2.
    pub(super) tool_error: bool,
    /// Fixes applied to the file (`--fix`), or that would be (`--diff`).
    pub(super) fixed: usize,
    /// `--diff`: what fixing the file would change.
    pub(super) diff: Option<(Arc<str>, String)>,
}

/// The findings of every file, gathered from the worker threads.
pub(super) struct Collector {
    pub(super) files: AtomicUsize,
    pub(super) failed: AtomicBool,
    pub(super) findings: crate::collect::Spool,
    pub(super) fixed: AtomicUsize,
    pub(super) diffs: Mutex<Vec<(Arc<str>, String)>>,
    /// Masks the secrets in what findings quote of the files.
    pub(super) detector: Detector,
    /// The run compares findings with another run's (a baseline applied or written,
    /// `--new-from-rev`): the findings' value hashes, part of their identity, are kept. A
    /// report does not read them, so otherwise they are dropped as the findings are kept (a
    /// spilled finding then takes 8 bytes fewer).
    keeps_hashes: bool,
}

impl Collector {
    pub(super) fn new(detector: Detector, keeps_hashes: bool) -> Collector {
        Collector {
            files: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
            findings: crate::collect::Spool::new(),
            fixed: AtomicUsize::new(0),
            diffs: Mutex::new(Vec::new()),
            detector,
            keeps_hashes,
        }
    }

    /// Keeps findings, their messages, help and labels masked: every output (reports, the
    /// baseline) is written from what is kept here.
    pub(super) fn keep_findings(&self, mut findings: Vec<Finding>) {
        self.detector.mask_findings(&mut findings);
        self.drop_hashes(&mut findings);
        self.findings.keep(findings);
    }

    /// [`Collector::keep_findings`] for one file of a worker's batch: masked with what the
    /// worker found clean in its earlier files, and gathered with the batch's others.
    pub(super) fn gather_findings(
        &self,
        gathered: &mut crate::collect::Gathered,
        mut findings: Vec<Finding>,
        clean: &mut crate::secrets::CleanTexts,
    ) {
        self.detector.mask_findings_with(&mut findings, clean);
        self.drop_hashes(&mut findings);
        self.findings.gather(gathered, findings);
    }

    fn drop_hashes(&self, findings: &mut [Finding]) {
        if !self.keeps_hashes {
            findings.iter_mut().for_each(|f| f.value_hash = 0);
        }
    }

    /// Keeps a file's `--diff`, to be printed in path order.
    pub(super) fn keep_diff(&self, diff: Option<(Arc<str>, String)>) {
        if let (Some(diff), Ok(mut diffs)) = (diff, self.diffs.lock()) {
            diffs.push(diff);
        }
    }

    pub(super) fn keep(&self, outcome: FileOutcome) {
        if outcome.tool_error {
            self.failed.store(true, Ordering::Relaxed);
        }
        if outcome.fixed > 0 {
            self.fixed.fetch_add(outcome.fixed, Ordering::Relaxed);
        }
        self.keep_diff(outcome.diff);
        self.keep_findings(outcome.findings);
    }

    pub(super) fn finish(self, paths_missing: bool) -> Result<Linted, Error> {
        let findings = self.findings.finish().map_err(|source| Error::Write {
            path: "a temporary file of findings".into(),
            source,
        })?;
        Ok(Linted {
            findings,
            files: self.files.into_inner(),
            tool_error: paths_missing || self.failed.into_inner(),
            stdin_source: None,
            binary_files: 0,
            fixes_applied: self.fixed.into_inner(),
            diffs: self.diffs.into_inner().unwrap_or_else(|e| e.into_inner()),
            stdin_fixed: None,
            history: None,
            new_from_rev: None,
            detector: self.detector,
        })
    }
}
