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
use crate::text::{kind_at, Region, RegionKind};

/// Runs the text rules among `rules` on `text`, whose regions are `regions`.
pub fn run<'r>(
    text: &str,
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
    for active in rules.iter().filter(|a| a.rule.target == Target::Text) {
        let mut hits = Hits::new(MAX_FINDINGS_PER_FILE);
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
                Assertion::Function(f) if f.is(HOST_PATH) => host_paths(
                    check,
                    text,
                    regions,
                    &platform.experiments.host_path_roots,
                    &mut hits,
                ),
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

/// `host-path`: every string literal whose content is a host path under one of `roots`.
fn host_paths(check: &Check, text: &str, regions: &[Region], roots: &[String], hits: &mut Hits) {
    for region in regions.iter().filter(|r| r.kind == RegionKind::String) {
        let content = &text[region.content.clone()];
        let Some(root) = host_path_root(content, roots) else {
            continue;
        };
        // The literal with its quotes; the value alone after `NAME=` or `--opt=` in a shell word.
        let span = if text[region.span.start..region.content.start].contains('=') {
            region.content.clone()
        } else {
            region.span.clone()
        };
        let vars = Vars {
            value: quote(content, MAX_VALUE_CHARS),
            extra: vec![
                ("match", quote(content, MAX_VALUE_CHARS)),
                ("root", quote(root, MAX_VALUE_CHARS)),
            ],
            ..Vars::default()
        };
        hits.push(emit(
            check,
            Span::new(span.start, span.end),
            String::new(),
            vars,
            Vec::new(),
        ));
    }
}

/// The root `path` lies under, if it is a host path: the root itself or below it (`/mnt`,
/// `/mnt/x`, not `/mnt2`), `~` or `~/…`, or a scheme such as `file:` in any case.
pub fn host_path_root<'r>(path: &str, roots: &'r [String]) -> Option<&'r str> {
    roots
        .iter()
        .find(|root| {
            let root = root.as_str();
            if root.ends_with(':') {
                return path
                    .get(..root.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(root));
            }
            path.strip_prefix(root)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
        .map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_paths_are_under_a_root_not_beside_it() {
        let roots: Vec<String> = crate::platform_facts::DEFAULT_HOST_PATH_ROOTS
            .map(String::from)
            .to_vec();
        for yes in [
            "/mnt",
            "/mnt/shared/x",
            "~",
            "~/data",
            "FILE:///x",
            "/home/me",
        ] {
            assert!(host_path_root(yes, &roots).is_some(), "{yes}");
        }
        for no in [
            "/mnt2",
            "mnt/x",
            "~user",
            "",
            "https://x",
            "/usr/lib",
            "$DOCS_DIR/x",
        ] {
            assert!(host_path_root(no, &roots).is_none(), "{no}");
        }
    }

    #[test]
    fn masking_keeps_four_characters() {
        assert_eq!(masked("hf_abcdefgh"), "hf_a…");
        assert_eq!(masked("ab"), "ab…");
    }
}
