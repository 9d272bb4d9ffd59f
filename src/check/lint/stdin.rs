//! The spec on standard input: linted as if read from the file it is named as.

use std::cell::RefCell;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::{walk_options, Collector, LintRun};
use crate::discover::Kind;
use crate::engine::{self, ExperimentLookup, FileName, LintInput, SpecInput};
use crate::env::Env;
use crate::error::Error;
use crate::read::MAX_FILE_SIZE;
use crate::scratch::{LintScratch, Scratch};

/// Lints the spec on standard input, reported as `name`, with the config of the folder it
/// names.
pub(super) fn lint_stdin(
    linter: &LintRun<'_, '_>,
    name: &Path,
    env: &mut Env<'_>,
    collector: &Collector,
) -> Result<Stdin, Error> {
    collector.files.fetch_add(1, Ordering::Relaxed);
    let mut scratch = Scratch::default();
    let profiles = &linter.plan.profiles;
    let Some(profile) = profiles.for_file(name, &mut scratch.walk.folders) else {
        return Err(profiles
            .configs()
            .take_errors()
            .into_iter()
            .next()
            .unwrap_or_else(|| {
                Error::usage("the configuration of standard input's spec cannot be loaded")
            }));
    };
    let mut bytes = Vec::new();
    let read = env.stdin.take(MAX_FILE_SIZE + 1).read_to_end(&mut bytes);
    if let Err(e) = read {
        collector.failed.store(true, Ordering::Relaxed);
        writeln!(env.stderr, "error: cannot read standard input: {e}").ok();
        return Ok(Stdin::default());
    }
    let display: Arc<str> = crate::paths::shown(name, profiles.shown_from());
    let options = walk_options(linter.plan, linter.cwd, 1);
    // Named as a file of an experiment: linted as that file would be.
    if let Kind::ExperimentFile { root } = options.explicit_kind(name, &mut scratch.walk) {
        let findings = profile
            .experiments
            .lint_given(name, &root, &bytes, &mut scratch);
        collector.keep_findings(findings);
        return Ok(Stdin {
            source: Some((display, Arc::from(String::from_utf8_lossy(&bytes).as_ref()))),
            fixed: None,
        });
    }
    let active = profile.rules_for(name, linter.cwd);
    let project = linter.project(name, profile, &scratch.dirs);
    // A spec on standard input is linted on its own: its experiment is not read.
    let input = SpecInput {
        lint: LintInput {
            rules: &active,
            table: &profile.table,
            platform: &profile.settings.platform,
            project: &project,
        },
        experiment: ExperimentLookup::None,
    };
    let lint_scratch = RefCell::new(LintScratch::default());
    let name = FileName::ready(display.clone());
    let lint = |bytes: &[u8]| {
        engine::lint_spec(bytes, &name, &input, &mut lint_scratch.borrow_mut()).findings
    };
    let findings = lint(&bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    match (linter.plan.options.fix, std::str::from_utf8(&bytes)) {
        (Some(mode), Ok(original)) => {
            let relint = |text: &str| lint(text.as_bytes());
            let fixed =
                crate::check::fixing::fix_spec(None, &display, original, findings, mode, &relint);
            collector.keep_findings(fixed.findings);
            if fixed.tool_error {
                collector.failed.store(true, Ordering::Relaxed);
            }
            collector.fixed.fetch_add(fixed.applied, Ordering::Relaxed);
            collector.keep_diff(fixed.diff.map(|diff| (display.clone(), diff)));
            // The report's code frames are drawn from the text its positions are in.
            let shown = fixed.text.unwrap_or(text);
            Ok(Stdin {
                source: Some((display, Arc::from(shown.as_str()))),
                fixed: Some(shown),
            })
        }
        _ => {
            collector.keep_findings(findings);
            Ok(Stdin {
                source: Some((display, Arc::from(text.as_str()))),
                fixed: None,
            })
        }
    }
}

/// What linting standard input leaves besides findings.
#[derive(Default)]
pub(super) struct Stdin {
    /// The spec by its reported name, for code frames.
    pub(super) source: Option<(Arc<str>, Arc<str>)>,
    /// `--fix`: the fixed spec.
    pub(super) fixed: Option<String>,
}
