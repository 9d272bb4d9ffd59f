//! Linting one file's bytes: parse once, run the effective rules, stamp identity. [`findings`]
//! makes the findings; [`experiment_config`] reads the config of the experiment a spec names
//! when its rules need it. The engine never lints an experiment's files: it returns the
//! experiment a spec names, and the run schedules that as a step of its own.

mod config_store;
mod experiment_config;
mod findings;

use std::sync::Arc;

pub use config_store::ConfigStore;
pub use experiment_config::{
    config_keys_present, load_config, reads, spec_rule_reads_config, ExperimentConfigs,
    ExperimentLookup, ExperimentSite, ExperimentToLint, LoadedConfig, CONFIG_INVALID,
};
pub use findings::{
    at_file_start, contain, file_finding, internal_error, locate, panic_for_tests, FileName, Fixer,
    KeptHits,
};

use crate::diagnostic::{Finding, Locator, Position, Severity, Span, INVALID_JSON};
use crate::json::Document;
use crate::platform_facts::Platform;
use crate::read::MAX_FILE_SIZE;
use crate::rules::eval::{run_check, run_when_holding, Context, Faults, Others, ProjectFs};
use crate::rules::plan::{needs_bits, When};
use crate::rules::Rule;
use crate::scratch::LintScratch;
use crate::select::SelectorTable;

/// At most this many findings are kept per file; a final note says how many more there were.
pub const MAX_FINDINGS_PER_FILE: usize = 1000;

/// A rule as it applies to one file: its configured severity.
#[derive(Clone, Copy)]
pub struct Active<'a> {
    pub rule: &'a Rule,
    pub severity: Severity,
}

/// The rules that lint a document, and what they read besides it: their shared selectors
/// (see [`crate::rules::selector_table`]), the platform, and the project of the file.
pub struct LintInput<'a> {
    pub rules: &'a [Active<'a>],
    pub table: &'a SelectorTable,
    pub platform: &'a Platform,
    pub project: &'a dyn ProjectFs,
}

/// What linting a spec reads besides its bytes: its rules' input, and where the config of the
/// experiment it names comes from.
pub struct SpecInput<'a> {
    pub lint: LintInput<'a>,
    pub experiment: ExperimentLookup<'a>,
}

/// A spec's lint: its findings, and the experiment it names when the run asked for it (the
/// run decides whether to lint that experiment's files, as a step of its own).
pub struct SpecLint {
    pub findings: Vec<Finding>,
    pub experiment: Option<ExperimentToLint>,
}

/// Lints the bytes of one jobspec with the rules active for it, on its own: its experiment is
/// neither read nor returned. For tools and tests; a run reuses its workers' [`Scratch`].
pub fn lint_bytes(
    bytes: &[u8],
    path: &Arc<str>,
    rules: &[Active<'_>],
    table: &SelectorTable,
    platform: &Platform,
    project: &dyn ProjectFs,
) -> Vec<Finding> {
    let input = SpecInput {
        lint: LintInput {
            rules,
            table,
            platform,
            project,
        },
        experiment: ExperimentLookup::None,
    };
    let mut scratch = LintScratch::default();
    lint_spec(bytes, &FileName::ready(path.clone()), &input, &mut scratch).findings
}

/// Lints the bytes of one jobspec, named `path` (made only if it has findings): parsed once,
/// its experiment's config read when a rule needs it, its rules run.
pub fn lint_spec(
    bytes: &[u8],
    path: &FileName<'_>,
    input: &SpecInput<'_>,
    scratch: &mut LintScratch,
) -> SpecLint {
    let rules = input.lint.rules;
    // Looked up only for a file that is not JSON: most files are.
    let invalid_json = || rules.iter().find(|a| a.rule.id == INVALID_JSON);
    if bytes.len() as u64 > MAX_FILE_SIZE {
        let message = format!(
            "the file is larger than the {} MiB limit; it was not parsed",
            MAX_FILE_SIZE / 1024 / 1024
        );
        let findings = invalid_json()
            .map(|r| vec![file_finding(path.get(), *r, message)])
            .unwrap_or_default();
        return SpecLint::alone(findings);
    }
    let mut arena = std::mem::take(&mut scratch.arena);
    let parsed = match crate::json::text_of(bytes) {
        Some(text) => crate::json::parse_reusing(text, &mut arena).map(|doc| (text, doc)),
        None => crate::json::parse_bytes(bytes).map(|doc| ("", doc)),
    };
    let (text, doc) = match parsed {
        Ok(parsed) => parsed,
        Err(err) => {
            scratch.arena = arena;
            let findings = invalid_json()
                .map(|rule| vec![parse_error(bytes, path, *rule, err)])
                .unwrap_or_default();
            return SpecLint::alone(findings);
        }
    };
    let opened = input
        .experiment
        .open(&doc, rules, &mut scratch.config_files);
    let config = opened.config.as_deref().filter(|_| opened.for_spec);
    let parsed = config.map(|c| (c, c.parse_or_error()));
    let mut problems = Vec::new();
    let mut composed = None;
    match &parsed {
        Some((c, Err(error))) => problems.push(c.invalid(error)),
        Some((c, Ok(docs))) if reads_composed(rules) => {
            if let Some(first) = docs.first() {
                composed = input.experiment.composed(&opened, c, first);
            }
        }
        _ => {}
    }
    if let Some(composed) = &composed {
        problems.extend(composed.problems.iter().cloned());
    }
    let others = Others {
        spec: None,
        config: parsed
            .as_ref()
            .and_then(|(c, docs)| c.first(docs.as_ref().ok()?)),
        composed: composed.as_deref(),
    };
    let mut findings = lint_document(text, &doc, path, &input.lint, &others, scratch);
    findings.extend(input.experiment.config_findings(&problems, rules));
    drop(parsed);
    arena.recycle(doc);
    scratch.arena = arena;
    SpecLint {
        findings,
        experiment: opened.into_to_lint(),
    }
}

/// Does a check of `rules` read the experiment's config composed (`config-key`)?
fn reads_composed(rules: &[Active<'_>]) -> bool {
    rules.iter().any(|a| {
        a.rule.checks.iter().any(|c| {
            matches!(&c.assertion, crate::rules::Assertion::Function(f) if f.is(crate::rules::functions::CONFIG_KEY))
        })
    })
}

impl SpecLint {
    /// Findings of a spec whose experiment was not looked for.
    fn alone(findings: Vec<Finding>) -> SpecLint {
        SpecLint {
            findings,
            experiment: None,
        }
    }
}

/// The `invalid-json` finding of a spec that does not parse: at the error, or at the first
/// byte that is not UTF-8.
fn parse_error(
    bytes: &[u8],
    path: &FileName<'_>,
    rule: Active<'_>,
    err: crate::json::ParseError,
) -> Finding {
    let (span, start, end) = match std::str::from_utf8(bytes) {
        Ok(text) => {
            let end = text[err.offset.min(text.len())..]
                .chars()
                .next()
                .map_or(err.offset, |c| err.offset + c.len_utf8());
            Locator::new(text).positions(Span::new(err.offset, end))
        }
        // Not UTF-8: the span is the bad byte; its position comes from the valid prefix
        // before it.
        Err(e) => {
            let at = e.valid_up_to();
            let prefix = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
            let (_, start, _) = Locator::new(prefix).positions(Span::new(at, at));
            let end = Position {
                line: start.line,
                column: start.column + 1,
            };
            (Span::new(at, (at + 1).min(bytes.len())), start, end)
        }
    };
    Finding {
        span,
        start,
        end,
        ..at_file_start(path.get(), &rule.rule.id, rule.severity, err.message)
    }
}

/// Runs the rules of `input` on a parsed document (a spec, or an experiment's config file),
/// with its shared selectors resolved in the worker's buffers.
pub fn lint_document(
    text: &str,
    doc: &Document<'_>,
    path: &FileName<'_>,
    input: &LintInput<'_>,
    others: &Others<'_>,
    scratch: &mut LintScratch,
) -> Vec<Finding> {
    let LintInput {
        rules,
        table,
        platform,
        project,
    } = *input;
    scratch.resolutions.resolve(table, doc);
    let resolved = &scratch.resolutions;
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
        suggestions: &scratch.suggestions,
    };
    // Every rule's hits, capped as they come: a hostile file can make a check fail on each of
    // a million items, and only the first MAX_FINDINGS_PER_FILE by position are reported.
    let hits = &mut scratch.hits;
    hits.reset(MAX_FINDINGS_PER_FILE);
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
                When::Holds => run_when_holding(check, &ctx, hits),
                When::Unknown => run_check(check, &ctx, hits),
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
    locate(text, path, kept, Some(&fixer), !scratch.skip_value_hashes)
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
        let project = crate::project::VirtualProject { dirs: Vec::new() };
        let made = std::cell::Cell::new(0);
        let make = || -> Arc<str> {
            made.set(made.get() + 1);
            Arc::from("a/jobspec.json")
        };
        let lint = |bytes: &[u8]| {
            let name = FileName::lazy(&make);
            let input = SpecInput {
                lint: LintInput {
                    rules: &active,
                    table: &table,
                    platform: &Platform::default(),
                    project: &project,
                },
                experiment: ExperimentLookup::None,
            };
            lint_spec(bytes, &name, &input, &mut LintScratch::default()).findings
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
