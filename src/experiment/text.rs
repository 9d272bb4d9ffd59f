//! The text rules of one file: regex `pattern`s matched in the regions their `in` names, and
//! the `host-path` function over string literals.

use crate::diagnostic::Span;
use crate::engine::{Active, KeptHits, MAX_FINDINGS_PER_FILE};
use crate::escape::quote;
use crate::json::Document;
use crate::platform_facts::Platform;
use crate::rules::eval::{emit, holds, Context, Faults, Hits, Others, Vars, MAX_VALUE_CHARS};
use crate::rules::functions::HOST_PATH;
use crate::rules::pattern::KeywordsFound;
use crate::rules::{Assertion, Check, Scope, Target, TextMatch};
use crate::select::Resolutions;
use crate::text::host_path::HostPathCheck;
use crate::text::{kind_at, Language, Region, RegionKind};

/// Runs the text rules among `rules` on `text`, in `language`, whose regions are `regions`.
pub fn run<'r>(
    text: &str,
    language: Language,
    regions: &[Region],
    rules: &[Active<'r>],
    platform: &Platform,
    others: &Others<'_>,
    kept: &mut KeptHits<'r>,
) {
    // Conditions of a text rule read only the other files (`spec`, `config`) and facts; they
    // are evaluated against an empty document.
    let empty = Document::empty_object();
    let resolved = Resolutions::default();
    let faults = Faults::default();
    let project = crate::project::VirtualProject { dirs: Vec::new() };
    let ctx = Context {
        doc: &empty,
        platform,
        recipe: None,
        project: &project,
        resolved: &resolved,
        faults: &faults,
        others,
        // No key of a text file is reported unknown.
        suggestions: &Default::default(),
    };
    // The keywords found in the text, by rule: each rule's are looked for once.
    let mut keywords = KeywordsFound::default();
    let mut hits = Hits::new(MAX_FINDINGS_PER_FILE);
    for active in rules.iter().filter(|a| a.rule.target == Target::Text) {
        for check in &active.rule.checks {
            if !check.when.iter().all(|c| holds(c, &ctx)) {
                continue;
            }
            let mask = active.rule.mask;
            match &check.assertion {
                Assertion::Text { pattern, scope } => pattern_hits(
                    check,
                    pattern.reported(text, &mut keywords),
                    *scope,
                    text,
                    regions,
                    mask,
                    &mut hits,
                ),
                Assertion::Function(f) if f.is(HOST_PATH) => {
                    if let Some(host_path) = f.host_path() {
                        let roots = &platform.experiments.host_path_roots;
                        host_paths(check, host_path, roots, language, text, regions, &mut hits);
                    }
                }
                _ => {}
            }
        }
        if !hits.is_empty() {
            let (rule_hits, more) = hits.take();
            kept.add(active, rule_hits, more);
        }
    }
}

/// A secret as it may be shown: its first four characters and `…`.
pub fn masked(secret: &str) -> String {
    let mut out: String = secret.chars().take(4).collect();
    out.push('…');
    out
}

/// The findings of a pattern check: its reported matches (`matches`) that start in `scope`.
fn pattern_hits(
    check: &Check,
    matches: Vec<TextMatch>,
    scope: Scope,
    text: &str,
    regions: &[Region],
    mask: bool,
    hits: &mut Hits,
) {
    let in_scope = |at: usize| match scope {
        Scope::Any => true,
        Scope::String => kind_at(regions, at) == RegionKind::String,
        Scope::Comment => kind_at(regions, at) == RegionKind::Comment,
        Scope::Code => kind_at(regions, at) == RegionKind::Code,
    };
    let mut push = |start: usize, end: usize| {
        if !in_scope(start) {
            return;
        }
        let found = &text[start..end];
        let shown = if mask {
            quote(&masked(found), MAX_VALUE_CHARS)
        } else {
            quote(found, MAX_VALUE_CHARS)
        };
        let vars = Vars {
            value: shown.clone(),
            extra: vec![("match", shown)],
            ..Vars::default()
        };
        hits.push(emit(
            check,
            Span::new(start, end),
            String::new(),
            vars,
            Vec::new(),
        ));
    };
    for m in matches {
        push(m.at.start, m.at.end);
    }
}

/// `host-path`: every string value that is a host path under one of `roots` (see
/// [`crate::text::host_path`]).
fn host_paths(
    check: &Check,
    host_path: &HostPathCheck,
    roots: &[String],
    language: Language,
    text: &str,
    regions: &[Region],
    hits: &mut Hits,
) {
    crate::text::host_path::find(host_path, roots, language, text, regions, &mut |found| {
        let shown = quote(&found.value, MAX_VALUE_CHARS);
        let (kind, instead) = found.kind.map_or((DEFAULT_KIND, DEFAULT_INSTEAD), |k| {
            (k.kind.as_str(), k.instead.as_str())
        });
        let vars = Vars {
            value: shown.clone(),
            extra: vec![
                ("match", shown),
                ("root", quote(found.root, MAX_VALUE_CHARS)),
                ("kind", crate::escape::visible(kind).into_owned()),
                ("instead", crate::escape::visible(instead).into_owned()),
            ],
            ..Vars::default()
        };
        hits.push(emit(
            check,
            Span::new(found.span.start, found.span.end),
            String::new(),
            vars,
            Vec::new(),
        ));
    });
}

/// `{kind}` and `{instead}` of a host path no kind of the rule's options names.
const DEFAULT_KIND: &str = "a host path";
const DEFAULT_INSTEAD: &str = "the platform mounts the corpus and sets DOCS_DIR";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masking_keeps_four_characters() {
        assert_eq!(masked("hf_abcdefgh"), "hf_a…");
        assert_eq!(masked("ab"), "ab…");
    }
}
