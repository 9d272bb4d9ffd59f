//! The clauses of a rule file: a check's predicates, its `when` conditions (item, cross-file
//! and combined ones) and the check itself.

use std::ops::Range;

use toml::Spanned;

use super::super::schema::RawClause;
use super::super::*;
use super::{Compiler, Result, COMMON_VARS, PLATFORM_KIND};
use crate::error::FileError;

impl Compiler<'_> {
    /// An item condition's selector, read from the check's item (its `select` less the last
    /// segment), must fit the jobspec's shape like any other; an item needs a last segment.
    pub(super) fn item_fits(
        &self,
        select: &Selector,
        condition: &Condition,
        raw: &Spanned<RawClause>,
    ) -> Result<()> {
        let Condition::Item(item, _) = condition else {
            return Ok(());
        };
        let span = raw
            .get_ref()
            .select
            .as_ref()
            .map_or(raw.span(), |s| s.span());
        let Some(last) = select.segments.len().checked_sub(1) else {
            return Err(self.err(
                span,
                "an item condition needs a check that selects values inside objects or arrays, not `$`",
            ));
        };
        if !self.jobspec {
            return Ok(());
        }
        let prefix = &select.as_str()[..select.segment_range(last).start];
        let prefix = prefix.strip_suffix('.').unwrap_or(prefix);
        let joined = format!("{prefix}{}", &item.as_str()[1..]);
        let Ok(whole) = Selector::parse(&joined) else {
            return Ok(());
        };
        if let Err(no) = super::shape::check(&whole) {
            let mut e = FileError::new(
                self.name,
                self.text,
                Some(span),
                format!("{} (read from the item: `{joined}`)", no.message),
            );
            e.help = no.help;
            return Err(Box::new(e));
        }
        Ok(())
    }

    /// A selector on another file: shaped like a jobspec's when `jobspec`; never shared.
    pub(super) fn other_selector(&self, raw: &Spanned<String>, jobspec: bool) -> Result<Selector> {
        let sel = Selector::parse(raw.get_ref()).map_err(|e| {
            self.err(
                self.inner(&raw.span(), e.offset),
                format!("bad selector: {}", e.message),
            )
        })?;
        if jobspec {
            let shaped = Compiler {
                jobspec: true,
                ..*self
            };
            shaped.fits_shape(&sel, &raw.span())?;
        }
        Ok(sel)
    }

    /// The predicates of a clause; at most one is allowed.
    pub(super) fn predicates(&self, c: &RawClause) -> Result<Vec<(Range<usize>, Predicate)>> {
        let mut out = Vec::new();
        let flag = |v: &Option<Spanned<bool>>, p: Predicate, out: &mut Vec<_>| -> Result<()> {
            if let Some(v) = v {
                if !*v.get_ref() {
                    return Err(self.err(
                        v.span(),
                        "only `true` is meaningful here; leave the key out instead",
                    ));
                }
                out.push((v.span(), p));
            }
            Ok(())
        };
        flag(&c.present, Predicate::Present, &mut out)?;
        flag(&c.non_empty, Predicate::NonEmpty, &mut out)?;
        flag(&c.absent, Predicate::Absent, &mut out)?;
        flag(&c.empty, Predicate::Empty, &mut out)?;
        flag(&c.semver, Predicate::Semver, &mut out)?;
        if let Some(v) = &c.equals {
            out.push((v.span(), Predicate::Equals(self.operand(v)?)));
        }
        if let Some(v) = &c.not_equals {
            out.push((v.span(), Predicate::NotEquals(self.operand(v)?)));
        }
        if let Some(v) = &c.one_of {
            out.push((v.span(), Predicate::OneOf(self.operand(v)?)));
        }
        if let Some(v) = &c.not_one_of {
            out.push((v.span(), Predicate::NotOneOf(self.operand(v)?)));
        }
        if let Some(v) = &c.matches {
            out.push((v.span(), Predicate::Matches(self.pattern(v)?)));
        }
        if let Some(v) = &c.not_matches {
            out.push((v.span(), Predicate::NotMatches(self.pattern(v)?)));
        }
        if let Some(v) = &c.type_ {
            let names: Vec<&str> = match v.get_ref() {
                toml::Value::String(s) => vec![s.as_str()],
                toml::Value::Array(a) => a.iter().filter_map(|x| x.as_str()).collect(),
                _ => vec![],
            };
            if names.is_empty() {
                return Err(self.err(v.span(), "`type` takes a type name or a list of them"));
            }
            let mut types = Vec::new();
            for n in names {
                types.push(JsonType::parse(n).ok_or_else(|| {
                    self.unknown(v.span(), "type", n, JsonType::NAMES.iter().copied())
                })?);
            }
            out.push((v.span(), Predicate::Type(types)));
        }
        if let Some(v) = &c.minimum {
            out.push((v.span(), Predicate::Minimum(self.number(v)?)));
        }
        if let Some(v) = &c.maximum {
            out.push((v.span(), Predicate::Maximum(self.number(v)?)));
        }
        if let Some(v) = &c.exclusive_minimum {
            out.push((v.span(), Predicate::ExclusiveMinimum(self.number(v)?)));
        }
        if let Some(v) = &c.exclusive_maximum {
            out.push((v.span(), Predicate::ExclusiveMaximum(self.number(v)?)));
        }
        for (raw, make) in [
            (
                &c.min_length,
                Predicate::MinLength as fn(usize) -> Predicate,
            ),
            (&c.max_length, Predicate::MaxLength),
        ] {
            if let Some(v) = raw {
                let n = usize::try_from(*v.get_ref())
                    .map_err(|_| self.err(v.span(), "a length bound must be 0 or more"))?;
                out.push((v.span(), make(n)));
            }
        }
        if let Some(v) = &c.semver_range {
            let op = self.operand(v)?;
            if let Operand::Literal(Lit::Str(s)) = &op {
                semver::VersionReq::parse(s)
                    .map_err(|e| self.err(v.span(), format!("bad semver range: {e}")))?;
            } else if matches!(op, Operand::Literal(_)) {
                return Err(self.err(
                    v.span(),
                    "`semver-range` takes a range string or a reference",
                ));
            }
            out.push((v.span(), Predicate::SemverRange(op)));
        }
        if out.len() > 1 {
            return Err(self.err(
                out[1].0.clone(),
                "one clause takes one predicate; split it into two checks or conditions",
            ));
        }
        Ok(out)
    }

    pub(super) fn condition(&self, raw: &Spanned<RawClause>) -> Result<Condition> {
        self.condition_at(raw, false)
    }

    /// A condition; `top`: directly in a check's `when` list, where item conditions
    /// (`select = "@.…"`) may stand.
    pub(super) fn condition_at(&self, raw: &Spanned<RawClause>, top: bool) -> Result<Condition> {
        let c = raw.get_ref();
        self.forbid_in_condition(raw)?;
        let combinators =
            c.any.is_some() as usize + c.all.is_some() as usize + c.not.is_some() as usize;
        let mut predicates = self.predicates(c)?;
        self.forbid(
            "a condition",
            &[
                (c.pattern.as_ref().map(|m| m.span()), "pattern"),
                (c.in_.as_ref().map(|m| m.span()), "in"),
            ],
        )?;
        self.forbid("a condition", &super::text::text_only_keys(raw))?;
        let subject = c.select.is_some() as usize
            + c.fact.is_some() as usize
            + c.spec.is_some() as usize
            + c.config.is_some() as usize;
        if combinators > 0 {
            if combinators > 1 || subject > 0 || !predicates.is_empty() {
                return Err(self.err(raw.span(), "a condition is either `any`, `all`, `not`, or a subject (`select`, `fact`, `spec`, `config`) with one predicate"));
            }
            return self.combined(c);
        }
        if subject != 1 {
            return Err(self.err(
                raw.span(),
                "a condition needs exactly one of `select`, `fact`, `spec` or `config`",
            ));
        }
        let Some((_, predicate)) = predicates.pop() else {
            return Err(self.err(
                raw.span(),
                "a condition needs a predicate (`equals`, `one-of`, `present`, …)",
            ));
        };
        self.subject_condition(c, top, predicate)
    }

    /// The keys of a check that a condition cannot have.
    fn forbid_in_condition(&self, raw: &Spanned<RawClause>) -> Result<()> {
        let c = raw.get_ref();
        self.forbid(
            "a condition",
            &[
                (c.when.as_ref().map(|_| raw.span()), "when"),
                (c.message.as_ref().map(|m| m.span()), "message"),
                (c.help.as_ref().map(|m| m.span()), "help"),
                (c.report_at.as_ref().map(|m| m.span()), "report-at"),
                (c.fix.as_ref().map(|m| m.span()), "fix"),
                (c.fix_safety.as_ref().map(|m| m.span()), "fix-safety"),
                (c.unique.as_ref().map(|m| m.span()), "unique"),
                (c.keys.as_ref().map(|m| m.span()), "keys"),
                (c.function.as_ref().map(|m| m.span()), "function"),
                (c.options.as_ref().map(|m| m.span()), "options"),
            ],
        )
    }

    /// `any`, `all` or `not` (exactly one of them is given).
    fn combined(&self, c: &RawClause) -> Result<Condition> {
        let list = |list: &[Spanned<RawClause>]| -> Result<Vec<Condition>> {
            list.iter().map(|x| self.condition(x)).collect()
        };
        match (&c.any, &c.all, &c.not) {
            (Some(any), _, _) => Ok(Condition::Any(list(any)?)),
            (_, Some(all), _) => Ok(Condition::All(list(all)?)),
            (_, _, Some(inner)) => Ok(Condition::Not(Box::new(self.condition(inner)?))),
            _ => unreachable!("a combinator is given"),
        }
    }

    /// A condition on its one subject: an item, a selected value, the spec or the config an
    /// experiment file's rule reads, or a fact.
    fn subject_condition(
        &self,
        c: &RawClause,
        top: bool,
        predicate: Predicate,
    ) -> Result<Condition> {
        if let Some(sel) = c.select.as_ref().filter(|s| s.get_ref().starts_with('@')) {
            return self.item_condition(sel, top, predicate);
        }
        if let Some(sel) = &c.select {
            if self.target == Target::Text {
                return Err(self.err(
                    sel.span(),
                    "a text rule has no document to select from; use `spec` or `config`",
                ));
            }
            return Ok(Condition::Select(self.selector(sel)?, predicate));
        }
        if let Some(sel) = &c.spec {
            if self.jobspec {
                return Err(self.err(
                    sel.span(),
                    "`spec` conditions are for rules on experiment files; use `select`",
                ));
            }
            let selector = self.other_selector(sel, true)?;
            return Ok(Condition::Other(OtherDoc::Spec, selector, predicate));
        }
        if let Some(sel) = &c.config {
            let selector = self.other_selector(sel, false)?;
            return Ok(Condition::Other(OtherDoc::Config, selector, predicate));
        }
        let fact = c.fact.as_ref().expect("subject is a fact");
        let name = fact.get_ref();
        let f = Fact::ALL
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| *f)
            .ok_or_else(|| {
                self.unknown(fact.span(), "fact", name, Fact::ALL.iter().map(|f| f.0))
            })?;
        Ok(Condition::Fact(f, predicate))
    }

    /// `select = "@…"`: a condition on each selected value's item, directly in a check's
    /// `when` of a rule with documents.
    fn item_condition(
        &self,
        sel: &Spanned<String>,
        top: bool,
        predicate: Predicate,
    ) -> Result<Condition> {
        if !top || self.target == Target::Text {
            return Err(self.err(
                sel.span(),
                "an item selector (`@…`) goes directly in a check's `when`, where each selected value has an item",
            ));
        }
        let item = Selector::parse_item(sel.get_ref()).map_err(|e| {
            self.err(
                self.inner(&sel.span(), e.offset),
                format!("bad selector: {}", e.message),
            )
        })?;
        Ok(Condition::Item(item, predicate))
    }

    pub(super) fn check(
        &self,
        raw: &Spanned<RawClause>,
        default_message: Option<&Spanned<String>>,
        default_help: Option<&Spanned<String>>,
    ) -> Result<Check> {
        if self.target == Target::Text {
            return self.text_check(raw, default_message, default_help);
        }
        let c = raw.get_ref();
        self.forbid_in_check(raw)?;
        let select = self.check_selector(raw)?;
        let (assertion, function_vars) = self.assertion(raw)?;
        let known = known_vars(&assertion, function_vars);
        let (message, help) = self.templates(raw, default_message, default_help, &known)?;
        let report_at = self.report_at(c)?;
        let when = self.when(c, &select)?;
        let needs = super::plan::assertion_needs(&assertion);
        let fix = self.fix(c, &assertion)?;
        Ok(Check {
            fix,
            select,
            when,
            assertion,
            message,
            help,
            report_at,
            related_label: c
                .related_label
                .clone()
                .unwrap_or_else(|| "first here".to_string()),
            needs,
        })
    }

    /// The keys a check of a jobspec or config rule cannot have.
    fn forbid_in_check(&self, raw: &Spanned<RawClause>) -> Result<()> {
        let c = raw.get_ref();
        self.forbid(
            "a check of a jobspec or config rule (`pattern` is for `target = \"text\"`)",
            &[
                (c.pattern.as_ref().map(|m| m.span()), "pattern"),
                (c.in_.as_ref().map(|m| m.span()), "in"),
                (c.spec.as_ref().map(|m| m.span()), "spec"),
                (c.config.as_ref().map(|m| m.span()), "config"),
            ],
        )?;
        self.forbid(
            "a check of a jobspec or config rule (`pattern` is for `target = \"text\"`)",
            &super::text::text_only_keys(raw),
        )?;
        self.forbid(
            "a check (use `select`; facts go in `when`)",
            &[
                (c.fact.as_ref().map(|m| m.span()), "fact"),
                (c.any.as_ref().map(|_| raw.span()), "any"),
                (c.all.as_ref().map(|_| raw.span()), "all"),
                (c.not.as_ref().map(|_| raw.span()), "not"),
            ],
        )
    }

    /// `select`: what the check looks at; the document itself for a function without one.
    fn check_selector(&self, raw: &Spanned<RawClause>) -> Result<Selector> {
        let c = raw.get_ref();
        match &c.select {
            Some(s) => self.selector(s),
            None if c.function.is_some() => Ok(Selector::parse("$").expect("root selector")),
            None => Err(self.err(
                raw.span(),
                "a check needs `select` (a selector such as `metadata.name`)",
            )),
        }
    }

    /// The check's one assertion (a predicate, `unique`, `keys` or `function`), and the
    /// placeholders a function adds to its messages.
    fn assertion(&self, raw: &Spanned<RawClause>) -> Result<(Assertion, &'static [&'static str])> {
        let c = raw.get_ref();
        let mut predicates = self.predicates(c)?;
        let assertions = predicates.len()
            + c.unique.is_some() as usize
            + c.keys.is_some() as usize
            + c.function.is_some() as usize;
        if assertions != 1 {
            return Err(self.err(raw.span(), "a check needs exactly one assertion: a predicate (`present`, `equals`, `matches`, …), `unique`, `keys` or `function`"));
        }
        if let (Some(options), None) = (&c.options, &c.function) {
            return Err(self.err(options.span(), "`options` goes with `function`"));
        }
        if let Some((_, p)) = predicates.pop() {
            return Ok((Assertion::Predicate(p), &[]));
        }
        if let Some(u) = &c.unique {
            if !*u.get_ref() {
                return Err(self.err(u.span(), "only `unique = true` is meaningful"));
            }
            return Ok((Assertion::Unique, &[]));
        }
        if let Some(k) = &c.keys {
            return Ok((Assertion::Keys(k.get_ref().clone()), &[]));
        }
        let name = c.function.as_ref().expect("a function");
        let f = self.function(name, c.options.as_ref())?;
        if f.reads_text() {
            return Err(self.err(
                name.span(),
                format!(
                    "function `{}` reads text: it needs `target = \"text\"`",
                    name.get_ref()
                ),
            ));
        }
        let vars = f.vars();
        Ok((Assertion::Function(f), vars))
    }

    /// `report-at`: the value (by default) or its key.
    fn report_at(&self, c: &RawClause) -> Result<ReportAt> {
        let Some(r) = &c.report_at else {
            return Ok(ReportAt::Value);
        };
        match r.get_ref().as_str() {
            "key" => Ok(ReportAt::Key),
            "value" => Ok(ReportAt::Value),
            other => Err(self.unknown(r.span(), "report-at", other, ["key", "value"].into_iter())),
        }
    }

    /// `when`: the check's conditions, each fitting what `select` selects.
    fn when(&self, c: &RawClause, select: &Selector) -> Result<Vec<Condition>> {
        let Some(list) = &c.when else {
            return Ok(Vec::new());
        };
        list.iter()
            .map(|x| {
                let condition = self.condition_at(x, true)?;
                self.item_fits(select, &condition, x)?;
                Ok(condition)
            })
            .collect()
    }
}

/// The placeholders a check's messages may use with `assertion` (and a function's own).
fn known_vars(assertion: &Assertion, function_vars: &[&'static str]) -> Vec<&'static str> {
    let mut known: Vec<&str> = COMMON_VARS.to_vec();
    known.extend_from_slice(function_vars);
    match assertion {
        Assertion::Keys(_) => known.extend_from_slice(&["did-you-mean", "allowed"]),
        Assertion::Predicate(p) => {
            known.extend_from_slice(super::predicate::predicate_vars(p));
            // A presence check has no value to compare with, so its `{expected}` says only
            // "a value"; this names what the platform expects instead.
            known.push(PLATFORM_KIND);
        }
        _ => {}
    }
    known
}
