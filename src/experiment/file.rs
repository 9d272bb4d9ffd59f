//! One file of an experiment: read by the secret rules alone when binary, reported (not read)
//! when it is a weights file or over the size limit, else linted by the text rules and, for a
//! config file, by the config rules of its format.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::{ExperimentLinter, BINARY_PROBE};
use crate::diagnostic::Finding;
use crate::engine::{self, Active, FileName, KeptHits, LintInput};
use crate::formats::ConfigFormat;
use crate::project::VirtualProject;
use crate::rules::eval::Others;
use crate::rules::{ReportedBy, Target};
use crate::scratch::{LintScratch, RecentConfigFiles, Scratch};
use crate::text::{self, Language};

/// File extensions of model weights and checkpoints: packed into the job package on every
/// submit, whatever their size.
pub const WEIGHTS: [&str; 6] = ["safetensors", "ckpt", "pt", "pth", "bin", "gguf"];

pub const WEIGHTS_MESSAGE: &str =
    "a weights file: it is packed into the job package on every submit";

pub fn is_weights_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| WEIGHTS.iter().any(|w| e.eq_ignore_ascii_case(w)))
}

/// Experiment files not linted, by why.
#[derive(Debug, Default)]
pub struct FileCounts {
    /// Binary (a NUL in the first 8 KB) or not UTF-8: read by the secret rules alone.
    pub binary: AtomicUsize,
    /// Weights files and files over the size limit: reported, never read.
    pub large: AtomicUsize,
    /// Files of experiments linted with their spec, not found by the walk.
    pub files: AtomicUsize,
}

impl ExperimentLinter<'_> {
    /// Lints the file at `path`, which is `rel` in its experiment directory.
    pub(super) fn lint_file(
        &self,
        path: &Path,
        rel: &Path,
        problem: Option<String>,
        others: &Others<'_>,
        scratch: &mut Scratch,
    ) -> Vec<Finding> {
        let rules = self.rules_for.rules_for(path, rel);
        if rules.is_empty() {
            return Vec::new();
        }
        let make = || (self.display)(path);
        let name = FileName::lazy(&make);
        // What cannot be read is said, as for a spec (`invalid-json`: "cannot be read").
        let unreadable = |message: String| {
            self.unreadable
                .map(|r| vec![engine::file_finding(name.get(), r, message)])
                .unwrap_or_default()
        };
        if let Some(problem) = problem {
            return unreadable(problem);
        }
        if is_weights_file(path) {
            return self.too_large(&rules, &name, WEIGHTS_MESSAGE.into());
        }
        let lint = &mut scratch.lint;
        if let Some(text) = self.read_for_spec(path, &mut lint.config_files) {
            return self.lint_read(path, &name, &rules, text.as_bytes(), others, lint);
        }
        scratch.reader.with_file_bytes(path, |read| match read {
            Ok(bytes) => self.lint_read(path, &name, &rules, bytes, others, lint),
            Err(e) => unreadable(format!("cannot read the file: {e}")),
        })
    }

    /// The text of the file at `path` as the lint of a spec just read it (the experiment's
    /// config, or a base beside it), if the worker kept it: one read of the file serves both.
    fn read_for_spec(&self, path: &Path, recent: &mut RecentConfigFiles) -> Option<Arc<str>> {
        if recent.texts.is_empty() {
            return None;
        }
        recent.take_text(&self.cwd.join(path))
    }

    /// Lints the bytes read of the file at `path`: reported when too large, skipped (and
    /// counted) when binary, else linted as text.
    pub(super) fn lint_read(
        &self,
        path: &Path,
        name: &FileName<'_>,
        rules: &[Active<'_>],
        bytes: &[u8],
        others: &Others<'_>,
        scratch: &mut LintScratch,
    ) -> Vec<Finding> {
        let limit = self.platform.experiments.max_file_size;
        // A read stops one byte past its own limit: a file that long is too large.
        let size = bytes.len() as u64;
        if size > limit || size > crate::read::MAX_FILE_SIZE {
            let size = if size > crate::read::MAX_FILE_SIZE {
                format!("over {} bytes", crate::read::MAX_FILE_SIZE)
            } else {
                format!("{size} bytes")
            };
            return self.too_large(
                rules,
                name,
                format!("{size}, over the experiment file limit of {limit} bytes: it is packed into the job package on every submit"),
            );
        }
        let probe = &bytes[..bytes.len().min(BINARY_PROBE)];
        match std::str::from_utf8(bytes) {
            Ok(text) if memchr::memchr(0, probe).is_none() => {
                self.lint_text(text, path, name, rules, others, scratch)
            }
            _ => {
                self.counts.binary.fetch_add(1, Ordering::Relaxed);
                // A secret search reads every file: the rules with `mask = true` read this one
                // decoded lossily (each invalid byte a U+FFFD, whose offsets then count), no
                // other rule reads it. A suppression in it still hides their findings; one
                // that hides nothing is not reported, as the rules it may name did not run.
                let secret_rules: Vec<Active<'_>> = rules
                    .iter()
                    .filter(|a| a.rule.reads_binary_files())
                    .copied()
                    .collect();
                if secret_rules.is_empty() {
                    return Vec::new();
                }
                let text = String::from_utf8_lossy(bytes);
                self.lint_text(&text, path, name, &secret_rules, others, scratch)
            }
        }
    }

    /// An `exp-large-file` finding (when it runs), counted.
    pub(super) fn too_large(
        &self,
        rules: &[Active<'_>],
        name: &FileName<'_>,
        message: String,
    ) -> Vec<Finding> {
        self.counts.large.fetch_add(1, Ordering::Relaxed);
        rules
            .iter()
            .find(|a| a.rule.reported_by == ReportedBy::Walker)
            .map(|r| vec![engine::file_finding(name.get(), *r, message)])
            .unwrap_or_default()
    }

    /// Lints a text file: its text rules, its config rules, then its suppressions.
    pub(super) fn lint_text(
        &self,
        text: &str,
        path: &Path,
        name: &FileName<'_>,
        rules: &[Active<'_>],
        others: &Others<'_>,
        scratch: &mut LintScratch,
    ) -> Vec<Finding> {
        let language = text::language_of(path, text);
        let regions = text::scan(language, text);
        let mut kept = KeptHits::default();
        super::text::run(
            text,
            language,
            &regions,
            rules,
            self.platform,
            others,
            &mut kept,
        );
        let mut findings = engine::locate(text, name, kept, None, !scratch.skip_value_hashes);
        if let Some(format) = ConfigFormat::of_path(path) {
            findings.extend(self.lint_config(text, format, name, rules, others, scratch));
        }
        if has_comments(language) {
            super::suppress::apply(text, &regions, rules, &self.known_ids, name, &mut findings);
        }
        findings
    }

    /// The config rules of `format` on each document of the file.
    fn lint_config(
        &self,
        text: &str,
        format: ConfigFormat,
        name: &FileName<'_>,
        rules: &[Active<'_>],
        others: &Others<'_>,
        scratch: &mut LintScratch,
    ) -> Vec<Finding> {
        let target = match format {
            ConfigFormat::Yaml => Target::Yaml,
            ConfigFormat::Toml => Target::Toml,
            ConfigFormat::Json => Target::Json,
        };
        let config_rules: Vec<Active<'_>> = rules
            .iter()
            .filter(|a| a.rule.target == target)
            .copied()
            .collect();
        if config_rules.is_empty() {
            return Vec::new();
        }
        let Ok(docs) = crate::formats::parse_config(format, text) else {
            return Vec::new();
        };
        let project = VirtualProject { dirs: Vec::new() };
        let input = LintInput {
            rules: &config_rules,
            table: &self.config_table,
            platform: self.platform,
            project: &project,
        };
        let mut findings = Vec::new();
        for doc in &docs {
            findings.extend(engine::lint_document(
                text, doc, name, &input, others, scratch,
            ));
        }
        findings
    }
}

/// Languages whose `#` comments can carry a suppression.
fn has_comments(language: Language) -> bool {
    matches!(
        language,
        Language::Python | Language::Shell | Language::Yaml | Language::Toml | Language::Notebook
    )
}
