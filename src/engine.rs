//! Linting one file's bytes: parse once, run the effective rules, stamp identity. Reading the
//! file (bounded in size) is `read.rs`'s; its entry points are re-exported here.

use std::path::Path;
use std::sync::Arc;

use crate::diagnostic::{Finding, Locator, Related, Severity, Span};
pub use crate::diagnostic::{INTERNAL_ERROR, INVALID_JSON};
use crate::json::Document;
use crate::platform::Platform;
pub use crate::project::{mentions_starforge, project_root, DirCache, RealProject, VirtualProject};
pub use crate::read::{read_bounded, read_bounded_into, with_file_bytes};
use crate::rules::eval::{
    run_check, run_when_holding, ConfigDoc, Context, Faults, Hit, Hits, Others, ProjectFs,
};
use crate::rules::plan::{needs_bits, When};
use crate::rules::Rule;
use crate::select::{Resolutions, SelectorTable};

pub use crate::read::MAX_FILE_SIZE;
/// At most this many findings are kept per file; a final note says how many more there were.
pub const MAX_FINDINGS_PER_FILE: usize = 1000;

/// The finding for a panic caught while linting `path`.
pub fn internal_error(path: &Arc<str>, payload: &(dyn std::any::Any + Send)) -> Finding {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    at_file_start(
        path,
        INTERNAL_ERROR,
        Severity::Error,
        format!(
            "forgelint crashed while linting {}: {}. This is a bug in forgelint; please report it with this file.",
            crate::escape::visible(path),
            crate::escape::visible(&what)
        ),
    )
}

/// Debug builds only: panics on the file named by `FORGELINT_PANIC_ON`, so the tests can prove
/// that a panic is contained. Release builds compile this to nothing.
pub fn panic_for_tests(path: &Path) {
    if cfg!(debug_assertions) {
        if let Some(name) = std::env::var_os("FORGELINT_PANIC_ON") {
            if path.file_name() == Some(name.as_os_str()) {
                panic!("FORGELINT_PANIC_ON matched");
            }
        }
    }
}

/// A rule as it applies to one file: its configured severity.
#[derive(Clone, Copy)]
pub struct Active<'a> {
    pub rule: &'a Rule,
    pub severity: Severity,
}

/// A finding at the very start of a file (unreadable, not a regular file, too large).
pub fn file_finding(path: &Arc<str>, rule: Active<'_>, message: String) -> Finding {
    at_file_start(path, &rule.rule.id, rule.severity, message)
}

/// A finding about a file as a whole: an empty span at 1:1.
pub(crate) fn at_file_start(
    path: &Arc<str>,
    rule: &str,
    severity: Severity,
    message: String,
) -> Finding {
    let start = crate::diagnostic::Position { line: 1, column: 1 };
    Finding {
        path: path.clone(),
        rule: Arc::from(rule),
        severity,
        message,
        help: None,
        pointer: String::new(),
        span: Span::default(),
        start,
        end: start,
        related: Vec::new(),
        value_hash: 0,
        secret: false,
        fix: None,
    }
}

thread_local! {
    /// A worker thread's parse buffers, reused from one file to the next.
    static ARENA: std::cell::Cell<crate::json::Arena> = std::cell::Cell::default();
    /// A worker thread's selector resolutions, reused from one file to the next.
    static RESOLUTIONS: std::cell::RefCell<Resolutions> = std::cell::RefCell::default();
}

/// The name a file's findings carry, made when the first of them needs it: most files have
/// no finding, and then their name is never built.
pub struct FileName<'a> {
    made: std::cell::OnceCell<Arc<str>>,
    make: Option<&'a dyn Fn() -> Arc<str>>,
}

impl<'a> FileName<'a> {
    /// A name `make` builds on first use.
    pub fn lazy(make: &'a dyn Fn() -> Arc<str>) -> FileName<'a> {
        FileName {
            made: std::cell::OnceCell::new(),
            make: Some(make),
        }
    }

    /// A name already built.
    pub fn ready(name: Arc<str>) -> FileName<'a> {
        FileName {
            made: std::cell::OnceCell::from(name),
            make: None,
        }
    }

    pub fn get(&self) -> &Arc<str> {
        self.made
            .get_or_init(|| self.make.map_or_else(|| Arc::from(""), |make| make()))
    }
}

/// An experiment's config file, read but not yet parsed.
pub struct LoadedConfig {
    /// The file as reported.
    pub path: Arc<str>,
    pub text: String,
    pub format: crate::formats::ConfigFormat,
}

impl LoadedConfig {
    /// The config's documents, or `None` when it does not parse (rules that read it then
    /// see no config).
    pub fn parse(&self) -> Option<Vec<Document<'_>>> {
        crate::formats::parse_config(self.format, &self.text).ok()
    }

    /// The config as checks read it: its first document.
    pub fn first<'a>(&'a self, docs: &'a [Document<'a>]) -> Option<ConfigDoc<'a>> {
        docs.first().map(|doc| ConfigDoc {
            doc,
            text: &self.text,
            path: &self.path,
        })
    }
}

/// The experiment directory a spec names, as the run will read it.
pub struct OpenedExperiment {
    pub dir: std::path::PathBuf,
    /// Its config file, when a rule of the spec or of the experiment reads it.
    pub config: Option<LoadedConfig>,
    /// Its files are linted with the spec (no other part of the run lints them).
    pub lint_files: bool,
}

/// What the run does with the experiment a spec names: finds it (and its config file), and
/// lints its files with the spec at hand.
pub trait SpecExperiment: Sync {
    fn open(&self, spec: &Document<'_>) -> Option<OpenedExperiment>;
    /// The findings of the experiment's files (none where the files are not read).
    fn lint_files(
        &self,
        _opened: &OpenedExperiment,
        _spec: &Document<'_>,
        _config: Option<ConfigDoc<'_>>,
    ) -> Vec<Finding> {
        Vec::new()
    }
}

/// A spec linted on its own: its experiment is neither read nor linted.
pub struct NoExperiment;

impl SpecExperiment for NoExperiment {
    fn open(&self, _: &Document<'_>) -> Option<OpenedExperiment> {
        None
    }
}

/// Lints the bytes of one jobspec with the rules active for it. `table` holds the shared
/// selectors of those rules (see [`crate::rules::selector_table`]).
pub fn lint_bytes(
    bytes: &[u8],
    path: &Arc<str>,
    rules: &[Active<'_>],
    table: &SelectorTable,
    platform: &Platform,
    project: &dyn ProjectFs,
) -> Vec<Finding> {
    let name = FileName::ready(path.clone());
    lint_named(bytes, &name, rules, table, platform, project, &NoExperiment)
}

/// [`lint_bytes`] for a file whose name is made only if it has findings, with the
/// experiment the spec names.
pub fn lint_named(
    bytes: &[u8],
    path: &FileName<'_>,
    rules: &[Active<'_>],
    table: &SelectorTable,
    platform: &Platform,
    project: &dyn ProjectFs,
    experiment: &dyn SpecExperiment,
) -> Vec<Finding> {
    // Looked up only for a file that is not JSON: most files are.
    let invalid_json = || rules.iter().find(|a| a.rule.id == INVALID_JSON);
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return invalid_json()
            .map(|r| {
                vec![file_finding(
                    path.get(),
                    *r,
                    format!(
                        "the file is larger than the {} MiB limit; it was not parsed",
                        MAX_FILE_SIZE / 1024 / 1024
                    ),
                )]
            })
            .unwrap_or_default();
    }
    // The worker's parse buffers, when no nested lint (none today) holds them.
    let mut arena = ARENA.with(|cell| cell.take());
    let parsed = match crate::json::text_of(bytes) {
        Some(text) => crate::json::parse_reusing(text, &mut arena).map(|doc| (text, doc)),
        None => crate::json::parse_bytes(bytes).map(|doc| ("", doc)),
    };
    let (text, doc) = match parsed {
        Ok(parsed) => parsed,
        Err(err) => {
            ARENA.with(|cell| cell.set(std::mem::take(&mut arena)));
            let Some(rule) = invalid_json() else {
                return Vec::new();
            };
            let (span, start, end) = match std::str::from_utf8(bytes) {
                Ok(text) => {
                    let end = text[err.offset.min(text.len())..]
                        .chars()
                        .next()
                        .map_or(err.offset, |c| err.offset + c.len_utf8());
                    Locator::new(text).positions(Span::new(err.offset, end))
                }
                // Not UTF-8: the span is the bad byte; its position comes from the valid
                // prefix before it.
                Err(e) => {
                    let at = e.valid_up_to();
                    let prefix = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
                    let (_, start, _) = Locator::new(prefix).positions(Span::new(at, at));
                    let end = crate::diagnostic::Position {
                        line: start.line,
                        column: start.column + 1,
                    };
                    (Span::new(at, (at + 1).min(bytes.len())), start, end)
                }
            };
            return vec![Finding {
                path: path.get().clone(),
                rule: Arc::from(rule.rule.id.as_str()),
                severity: rule.severity,
                message: err.message,
                help: None,
                pointer: String::new(),
                span,
                start,
                end,
                related: Vec::new(),
                value_hash: 0,
                secret: false,
                fix: None,
            }];
        }
    };
    let opened = experiment.open(&doc);
    let config_docs = opened
        .as_ref()
        .and_then(|o| o.config.as_ref())
        .and_then(|c| {
            crate::formats::parse_config(c.format, &c.text)
                .ok()
                .map(|d| (c, d))
        });
    let config = config_docs.as_ref().and_then(|(c, docs)| {
        docs.first().map(|doc| ConfigDoc {
            doc,
            text: &c.text,
            path: &c.path,
        })
    });
    let others = Others { spec: None, config };
    let mut findings = with_resolutions(table, &doc, |resolved| {
        lint_document(
            text, &doc, path, rules, platform, project, resolved, &others,
        )
    });
    if let Some(opened) = opened.as_ref().filter(|o| o.lint_files) {
        findings.extend(experiment.lint_files(opened, &doc, config));
    }
    drop(config_docs);
    arena.recycle(doc);
    ARENA.with(|cell| cell.replace(arena));
    findings
}

/// Runs `f` with `table`'s selectors resolved on `doc`, in the worker's reused buffers.
pub fn with_resolutions<R>(
    table: &SelectorTable,
    doc: &Document<'_>,
    f: impl FnOnce(&Resolutions) -> R,
) -> R {
    RESOLUTIONS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut resolved) => {
            resolved.resolve(table, doc);
            f(&resolved)
        }
        // A nested lint on the same thread (an experiment's config, linted from its spec's).
        Err(_) => {
            let mut resolved = Resolutions::default();
            resolved.resolve(table, doc);
            f(&resolved)
        }
    })
}

/// Runs the rules on a parsed document whose shared selectors are resolved.
#[allow(clippy::too_many_arguments)]
pub fn lint_document(
    text: &str,
    doc: &Document<'_>,
    path: &FileName<'_>,
    rules: &[Active<'_>],
    platform: &Platform,
    project: &dyn ProjectFs,
    resolved: &Resolutions,
    others: &Others<'_>,
) -> Vec<Finding> {
    let recipe = platform.catalog.as_ref().and_then(|c| {
        let spec = doc.get(doc.root(), "spec")?;
        let recipe = doc.get(spec, "recipe")?;
        c.get(doc.as_str(doc.get(recipe, "name")?)?)
    });
    let faults = Faults::find(doc, rules.iter().map(|a| a.rule), resolved);
    let ctx = Context {
        doc,
        platform,
        recipe,
        project,
        resolved,
        faults: &faults,
        others,
    };
    // Every rule's hits, capped as they come: a hostile file can make a check fail on each of
    // a million items, and only the first MAX_FINDINGS_PER_FILE by position are reported.
    let mut hits = Hits::new(MAX_FINDINGS_PER_FILE);
    let mut kept = KeptHits::default();
    let missing_context = !needs_bits(platform.available());
    for active in rules {
        let rule = active.rule;
        for (step, check) in rule.plan.iter().zip(&rule.checks) {
            // A type check was decided while finding the faults.
            if step.needs & missing_context != 0
                || (faults.types_pass() && step.type_mask().is_some())
            {
                continue;
            }
            match step.when(doc, resolved) {
                When::Fails => {}
                When::Holds if step.passes(doc, resolved) => {}
                When::Holds => run_when_holding(check, &ctx, &mut hits),
                When::Unknown => run_check(check, &ctx, &mut hits),
            }
        }
        if hits.is_empty() {
            continue;
        }
        // One rule, one finding per span and pointer (two checks of a rule can agree on a
        // value; two missing fields of one object share a span but are two findings).
        let (rule_hits, more) = hits.take();
        kept.add(active, rule_hits, more);
    }
    let fixer = |hit: &crate::rules::eval::Hit| {
        let spec = hit.fix.as_deref()?;
        crate::fix::fix_for(
            spec,
            doc,
            &hit.pointer,
            hit.suggestion.as_deref(),
            platform,
            recipe,
        )
    };
    locate(text, path, kept, Some(&fixer))
}

/// Makes the fix of a hit in the file being linted.
pub type Fixer<'a> = dyn Fn(&crate::rules::eval::Hit) -> Option<crate::diagnostic::Fix> + 'a;

/// The kept hits of a file's rules as findings: located (in position order, so the line
/// index is built once, on the first), stamped with rule and severity, and the last one
/// saying how many more were cut.
pub fn locate(
    text: &str,
    path: &FileName<'_>,
    kept: KeptHits<'_>,
    fixer: Option<&Fixer<'_>>,
) -> Vec<Finding> {
    let (kept, dropped) = kept.finish();
    // Located in position order: the line index is built once, on the first finding.
    let mut locator = Locator::new(text);
    let mut findings: Vec<Finding> = kept
        .into_iter()
        .map(|(active, hit)| {
            let fix = fixer
                .filter(|_| hit.fix.is_some())
                .and_then(|fixer| fixer(&hit))
                .map(Box::new);
            let (span, start, end) = locator.positions(hit.span);
            let related = hit
                .related
                .into_iter()
                .map(|(span, label)| {
                    let (span, start, end) = locator.positions(span);
                    Related {
                        path: None,
                        span,
                        start,
                        end,
                        label,
                    }
                })
                .chain(hit.elsewhere)
                .collect();
            Finding {
                path: path.get().clone(),
                rule: Arc::from(active.rule.id.as_str()),
                severity: active.severity,
                message: hit.message,
                help: hit.help,
                pointer: hit.pointer,
                span,
                start,
                end,
                related,
                value_hash: crate::diagnostic::value_hash(
                    &text[span.start as usize..span.end as usize],
                ),
                secret: active.rule.mask,
                fix,
            }
        })
        .collect();
    if dropped > 0 {
        if let Some(last) = findings.last_mut() {
            last.message.push_str(&format!(
                " ({dropped} more findings in this file not shown)"
            ));
        }
    }
    findings
}

/// The hits of a file's rules, at most [`MAX_FINDINGS_PER_FILE`] of them in the end: the first
/// by the order findings are reported in (span, then rule id, then message, then pointer:
/// two missing fields of one object share a span and a rule). Past twice the limit the list
/// is sorted and cut back to the limit, so memory stays bounded and the time is O(n log n) in
/// the number of hits.
#[derive(Default)]
pub struct KeptHits<'a> {
    hits: Vec<(Active<'a>, Hit)>,
    dropped: usize,
}

impl<'a> KeptHits<'a> {
    /// A rule's hits, and how many more it found that were cut.
    pub fn add(&mut self, active: &Active<'a>, hits: Vec<Hit>, more: usize) {
        self.dropped += more;
        for hit in hits {
            self.hits.push((*active, hit));
            if self.hits.len() >= 2 * MAX_FINDINGS_PER_FILE {
                self.cut();
            }
        }
    }

    fn cut(&mut self) {
        self.hits.sort_by(|(ra, a), (rb, b)| {
            (
                a.span.start,
                a.span.end,
                ra.rule.id.as_str(),
                &a.message,
                &a.pointer,
            )
                .cmp(&(
                    b.span.start,
                    b.span.end,
                    rb.rule.id.as_str(),
                    &b.message,
                    &b.pointer,
                ))
        });
        if self.hits.len() > MAX_FINDINGS_PER_FILE {
            self.dropped += self.hits.len() - MAX_FINDINGS_PER_FILE;
            self.hits.truncate(MAX_FINDINGS_PER_FILE);
        }
    }

    /// The kept hits in report order (when any were dropped; in rule order otherwise, as the
    /// run sorts every finding later) and how many were dropped.
    fn finish(mut self) -> (Vec<(Active<'a>, Hit)>, usize) {
        if self.hits.len() > MAX_FINDINGS_PER_FILE || self.dropped > 0 {
            self.cut();
        }
        (self.hits, self.dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rules::RuleSet;

    /// A file's name is made only when a finding needs it, and then once.
    #[test]
    fn a_file_name_is_made_only_for_findings() {
        let rules = RuleSet::builtin().expect("the built-in rules compile");
        let active: Vec<Active<'_>> = rules
            .rules
            .iter()
            .filter(|rule| rule.id == "api-version" || rule.id == INVALID_JSON)
            .map(|rule| Active {
                rule,
                severity: rule.severity,
            })
            .collect();
        let table = crate::rules::selector_table(active.iter().map(|a| a.rule));
        let project = VirtualProject { dirs: Vec::new() };
        let made = std::cell::Cell::new(0);
        let make = || -> Arc<str> {
            made.set(made.get() + 1);
            Arc::from("a/jobspec.json")
        };
        let lint = |bytes: &[u8]| {
            let name = FileName::lazy(&make);
            lint_named(
                bytes,
                &name,
                &active,
                &table,
                &Platform::default(),
                &project,
                &NoExperiment,
            )
        };
        let cases: [(&[u8], usize, usize); 4] = [
            (br#"{"apiVersion": "forge/v2"}"#, 0, 0),
            (b"{", 1, 1),
            (
                br#"{"apiVersion": "forge/v1", "a": {"apiVersion": 2}}"#,
                1,
                2,
            ),
            (br#"{"apiVersion": "forge/v2", "b": [1]}"#, 0, 2),
        ];
        for (bytes, findings, made_after) in cases {
            let found = lint(bytes);
            assert_eq!(found.len(), findings, "{found:?}");
            assert!(found.iter().all(|f| &*f.path == "a/jobspec.json"));
            assert_eq!(made.get(), made_after, "names made after {bytes:?}");
        }
    }
}
