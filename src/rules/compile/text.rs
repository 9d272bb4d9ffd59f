//! The checks of a `target = "text"` rule: a regex `pattern` scoped by `in`, or a text function.

use toml::Spanned;

use super::super::schema::RawClause;
use super::super::*;
use super::{Compiler, Result};

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
            (Some(p), None) => {
                let scope = match &c.in_ {
                    None => Scope::Any,
                    Some(s) => Scope::parse(s.get_ref()).ok_or_else(|| {
                        self.unknown(s.span(), "scope", s.get_ref(), Scope::NAMES.iter().copied())
                    })?,
                };
                // A rule file's pattern is compiled now, so a bad one is an error at its span;
                // a built-in rule's on first use (the tests compile them all): a run that reads
                // no experiment file, or shows no excerpt, never compiles `exp-secret`'s.
                let pattern = if self.builtin {
                    Pattern::lazy(p.get_ref())
                } else {
                    Pattern::new(self.regex(p)?)
                };
                Assertion::Text { pattern, scope }
            }
            (None, Some(name)) => {
                if let Some(s) = &c.in_ {
                    return Err(self.err(s.span(), "`in` goes with `pattern`"));
                }
                let f = self.function(name, c.options.as_ref())?;
                if !f.reads_text() {
                    return Err(self.err(
                        name.span(),
                        format!("function `{}` reads jobspecs, not text", name.get_ref()),
                    ));
                }
                known.extend_from_slice(f.vars());
                Assertion::Function(f)
            }
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
}
