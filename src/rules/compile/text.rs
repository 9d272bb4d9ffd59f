//! The checks of a `target = "text"` rule: a regex `pattern` scoped by `in`, or a text function.

use toml::Spanned;

use std::ops::Range;

use super::super::pattern::{Codec, Filters};
use super::super::schema::RawClause;
use super::super::*;
use super::{Compiler, Result};

/// The keys only a text check's `pattern` takes, with their spans when given: refused anywhere
/// else.
pub(super) fn text_only_keys(
    raw: &Spanned<RawClause>,
) -> [(Option<Range<usize>>, &'static str); 6] {
    let c = raw.get_ref();
    [
        (c.allow.as_ref().map(|m| m.span()), "allow"),
        (c.allow_line.as_ref().map(|m| m.span()), "allow-line"),
        (c.stop_words.as_ref().map(|m| m.span()), "stop-words"),
        (c.min_entropy.as_ref().map(|m| m.span()), "min-entropy"),
        (c.keywords.as_ref().map(|m| m.span()), "keywords"),
        (c.decode.as_ref().map(|m| m.span()), "decode"),
    ]
}

/// Whether the regex `source` has a capture group named `name` (parsed, not compiled: a
/// built-in pattern is compiled on first use).
fn has_group(source: &str, name: &str) -> bool {
    use regex_syntax::hir::{Hir, HirKind};
    fn named(hir: &Hir, name: &str) -> bool {
        match hir.kind() {
            HirKind::Capture(c) => c.name.as_deref() == Some(name) || named(&c.sub, name),
            HirKind::Repetition(r) => named(&r.sub, name),
            HirKind::Concat(subs) | HirKind::Alternation(subs) => {
                subs.iter().any(|h| named(h, name))
            }
            _ => false,
        }
    }
    regex_syntax::Parser::new()
        .parse(source)
        .is_ok_and(|hir| named(&hir, name))
}

/// Links the text patterns of a rule's checks once all are compiled: one keyword set for the
/// rule, searched once per file, and the checks a `decode` check searches its values with.
pub(super) fn link_text_checks(checks: &mut [Check]) {
    let patterns: Vec<TextPattern> = checks
        .iter()
        .filter_map(|c| match &c.assertion {
            Assertion::Text { pattern, .. } => Some(pattern.clone()),
            _ => None,
        })
        .collect();
    if patterns.is_empty() {
        return;
    }
    let mut linked = TextPattern::link(&patterns).into_iter();
    for check in checks {
        if let Assertion::Text { pattern, .. } = &mut check.assertion {
            if let Some(p) = linked.next() {
                *pattern = p;
            }
        }
    }
}

impl Compiler<'_> {
    /// A check of a text rule: a `pattern` or a text function.
    pub(super) fn text_check(
        &self,
        raw: &Spanned<RawClause>,
        default_message: Option<&Spanned<String>>,
        default_help: Option<&Spanned<String>>,
    ) -> Result<Check> {
        let c = raw.get_ref();
        self.forbid(
            "a text check (it matches a `pattern`)",
            &[
                (c.select.as_ref().map(|m| m.span()), "select"),
                (c.fact.as_ref().map(|m| m.span()), "fact"),
                (c.spec.as_ref().map(|m| m.span()), "spec"),
                (c.config.as_ref().map(|m| m.span()), "config"),
                (c.any.as_ref().map(|_| raw.span()), "any"),
                (c.all.as_ref().map(|_| raw.span()), "all"),
                (c.not.as_ref().map(|_| raw.span()), "not"),
                (c.unique.as_ref().map(|m| m.span()), "unique"),
                (c.keys.as_ref().map(|m| m.span()), "keys"),
                (c.report_at.as_ref().map(|m| m.span()), "report-at"),
            ],
        )?;
        if let Some((span, _)) = self.predicates(c)?.first() {
            return Err(self.err(
                span.clone(),
                "a text check matches a `pattern`; predicates go in `when` conditions",
            ));
        }
        let mut known: Vec<&str> = vec!["match", "value", "path"];
        let assertion = match (&c.pattern, &c.function) {
            (Some(p), None) => self.pattern_assertion(c, p)?,
            (None, Some(name)) => self.text_function(raw, name, &mut known)?,
            (Some(p), Some(_)) => {
                return Err(self.err(
                    p.span(),
                    "a text check has `pattern` or `function`, not both",
                ))
            }
            (None, None) => {
                return Err(self.err(
                    raw.span(),
                    "a text check needs `pattern` (a regex) or `function`",
                ))
            }
        };
        let (message, help) = self.templates(raw, default_message, default_help, &known)?;
        let when = match &c.when {
            Some(list) => list
                .iter()
                .map(|x| self.condition(x))
                .collect::<Result<Vec<_>>>()?,
            None => Vec::new(),
        };
        let fix = self.fix(c, &assertion)?;
        Ok(Check {
            fix,
            select: Selector::parse("$").expect("root selector"),
            when,
            needs: super::plan::assertion_needs(&assertion),
            assertion,
            message,
            help,
            report_at: ReportAt::Value,
            related_label: c
                .related_label
                .clone()
                .unwrap_or_else(|| "first here".to_string()),
        })
    }

    /// The assertion of a `pattern` check: the regex, its scope, filters, keywords, decoding.
    fn pattern_assertion(&self, c: &RawClause, p: &Spanned<String>) -> Result<Assertion> {
        let scope = match &c.in_ {
            None => Scope::Any,
            Some(s) => Scope::parse(s.get_ref()).ok_or_else(|| {
                self.unknown(s.span(), "scope", s.get_ref(), Scope::NAMES.iter().copied())
            })?,
        };
        // A rule file's pattern is compiled now, so a bad one is an error at its span; a
        // built-in rule's on first use (the tests compile them all): a run that reads no
        // experiment file, or shows no excerpt, never compiles `exp-secret`'s.
        let pattern = if self.builtin {
            debug_assert!(super::super::pattern::is_prebuilt(p.get_ref()), "{p:?}");
            Pattern::lazy(p.get_ref())
        } else {
            Pattern::new(self.regex(p)?)
        };
        let decode = match &c.decode {
            None => None,
            Some(d) => Some(Codec::parse(d.get_ref()).ok_or_else(|| {
                self.unknown(
                    d.span(),
                    "decoding",
                    d.get_ref(),
                    Codec::NAMES.iter().copied(),
                )
            })?),
        };
        if decode.is_some() && !has_group(pattern.as_str(), "at") {
            return Err(self.err(
                p.span(),
                "a `decode` check's pattern names the encoded value with a group `(?P<at>…)`",
            ));
        }
        let pattern = TextPattern::new(pattern, self.filters(c)?, self.keywords(c)?, decode);
        Ok(Assertion::Text { pattern, scope })
    }

    /// The assertion of a `function` check that reads text; its variables join `known`.
    fn text_function(
        &self,
        raw: &Spanned<RawClause>,
        name: &Spanned<String>,
        known: &mut Vec<&'static str>,
    ) -> Result<Assertion> {
        let c = raw.get_ref();
        if let Some(s) = &c.in_ {
            return Err(self.err(s.span(), "`in` goes with `pattern`"));
        }
        if let Some((span, key)) = text_only_keys(raw)
            .into_iter()
            .find_map(|(s, k)| s.map(|s| (s, k)))
        {
            return Err(self.err(span, format!("`{key}` goes with `pattern`")));
        }
        let f = self.function(name, c.options.as_ref())?;
        if !f.reads_text() {
            return Err(self.err(
                name.span(),
                format!("function `{}` reads jobspecs, not text", name.get_ref()),
            ));
        }
        known.extend_from_slice(f.vars());
        Ok(Assertion::Function(f))
    }
}

/// The keys of a pattern check that decide which matches are reported.
impl Compiler<'_> {
    fn filters(&self, c: &RawClause) -> Result<Filters> {
        let regexes = |list: &Option<Spanned<Vec<Spanned<String>>>>| -> Result<Vec<Pattern>> {
            list.iter()
                .flat_map(|l| l.get_ref())
                .map(|r| {
                    // Compiled now, as the pattern is: a bad one is an error at its span. A
                    // built-in rule's on first use.
                    if self.builtin {
                        debug_assert!(super::super::pattern::is_prebuilt(r.get_ref()), "{r:?}");
                        Ok(Pattern::deferred(r.get_ref()))
                    } else {
                        self.regex(r).map(Pattern::new)
                    }
                })
                .collect()
        };
        let mut stop_words = Vec::new();
        for word in c.stop_words.iter().flat_map(|l| l.get_ref()) {
            if word.get_ref().is_empty() {
                return Err(self.err(word.span(), "a stop word is not empty"));
            }
            stop_words.push(word.get_ref().to_ascii_lowercase());
        }
        let min_entropy = match &c.min_entropy {
            Some(e) if !(e.get_ref().is_finite() && *e.get_ref() >= 0.0) => {
                return Err(self.err(
                    e.span(),
                    "`min-entropy` is bits a character: a number from 0 (about 4 for random letters and digits)",
                ))
            }
            Some(e) => Some(*e.get_ref()),
            None => None,
        };
        Ok(Filters {
            allow: regexes(&c.allow)?,
            allow_line: regexes(&c.allow_line)?,
            stop_words,
            min_entropy,
        })
    }

    fn keywords(&self, c: &RawClause) -> Result<Vec<String>> {
        let Some(list) = &c.keywords else {
            return Ok(Vec::new());
        };
        if list.get_ref().is_empty() {
            return Err(self.err(
                list.span(),
                "`keywords` needs one keyword at least: the file must hold one for the pattern to run",
            ));
        }
        list.get_ref()
            .iter()
            .map(|k| match k.get_ref().is_empty() {
                true => Err(self.err(k.span(), "a keyword is not empty")),
                false => Ok(k.get_ref().clone()),
            })
            .collect()
    }
}
