//! Rule file (TOML) → compiled [`Rule`]. Every error points at the rule file's own span.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use toml::Spanned;

use super::cases::{cases_start, compile_cases};
use super::eval::Lit;
use super::functions::Function;
use super::schema::{RawClause, RawRule};
use super::template::Template;
use super::*;
use crate::error::FileError;

/// Placeholders every check can use in its message.
pub const COMMON_VARS: [&str; 5] = ["value", "expected", "path", "key", "pointer"];
/// The placeholder of the configured `[platform] kind`, for the messages of predicate checks.
pub const PLATFORM_KIND: &str = "platform.kind";

#[derive(Clone, Copy)]
struct Compiler<'a> {
    name: &'a str,
    text: &'a Arc<str>,
    /// A built-in rule: its patterns are known to compile (a test compiles them), so they are
    /// compiled on first use instead of at start-up.
    builtin: bool,
    /// Selectors must fit the forge/v2 shape (the rule reads jobspecs).
    jobspec: bool,
    target: Target,
}

type Result<T> = std::result::Result<T, Box<FileError>>;

impl Compiler<'_> {
    fn err(&self, span: Range<usize>, message: impl Into<String>) -> Box<FileError> {
        Box::new(FileError::new(self.name, self.text, Some(span), message))
    }

    /// The source range of byte `offset` of a string value whose TOML span is `span`: the
    /// literal is walked as TOML decodes it (escapes, the newline after `"""`), so an error
    /// inside a decoded string points at the right character of the rule file.
    fn inner(&self, span: &Range<usize>, offset: usize) -> Range<usize> {
        let raw = &self.text[span.clone()];
        let at = span.start + source_offset(raw, offset);
        let end = self.text[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8())
            .min(span.end.max(at));
        at..end
    }

    /// An item condition's selector, read from the check's item (its `select` less the last
    /// segment), must fit the jobspec's shape like any other; an item needs a last segment.
    fn item_fits(
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
    fn other_selector(&self, raw: &Spanned<String>, jobspec: bool) -> Result<Selector> {
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

    fn selector(&self, raw: &Spanned<String>) -> Result<Selector> {
        let sel = Selector::parse(raw.get_ref()).map_err(|e| {
            self.err(
                self.inner(&raw.span(), e.offset),
                format!("bad selector: {}", e.message),
            )
        })?;
        self.fits_shape(&sel, &raw.span())?;
        Ok(sel)
    }

    /// A selector that cannot match a jobspec would load and never fire, so it is an error at
    /// the segment that leaves the forge/v2 shape. `span` is the TOML string holding it.
    fn fits_shape(&self, sel: &Selector, span: &Range<usize>) -> Result<()> {
        if !self.jobspec {
            return Ok(());
        }
        let Err(no) = super::shape::check(sel) else {
            return Ok(());
        };
        let range = sel.segment_range(no.segment);
        let start = self.inner(span, range.start).start;
        let end = self.inner(span, range.end).start.max(start);
        let mut e = FileError::new(self.name, self.text, Some(start..end), no.message);
        e.help = no.help;
        Err(Box::new(e))
    }

    /// The span of the string value of the one-entry inline table `span` (`{ select = "…" }`),
    /// or the whole table when it cannot be found.
    fn table_string(&self, span: Range<usize>) -> Range<usize> {
        let raw = &self.text[span.clone()];
        raw.find('=')
            .and_then(|eq| {
                let from = eq + 1 + raw[eq + 1..].find(|c: char| !c.is_whitespace())?;
                let quote = raw[from..].chars().next()?;
                if quote != '"' && quote != '\'' {
                    return None;
                }
                let mut end = from + 1;
                let bytes = raw.as_bytes();
                while end < raw.len() && bytes[end] as char != quote {
                    end += if bytes[end] == b'\\' && quote == '"' {
                        2
                    } else {
                        1
                    };
                }
                Some(span.start + from..span.start + (end + 1).min(raw.len()))
            })
            .unwrap_or(span)
    }

    fn regex(&self, raw: &Spanned<String>) -> Result<regex::Regex> {
        super::pattern::build_regex(raw.get_ref()).map_err(|e| {
            let detail = e.to_string();
            let last = detail.lines().last().unwrap_or("").trim();
            let last = last.strip_prefix("error: ").unwrap_or(last).to_string();
            self.err(raw.span(), format!("bad regex: {last}"))
        })
    }

    /// A compiled pattern, shared with every other check of the process that uses the same
    /// text: compiled once, and one set of search caches per worker instead of one per check.
    fn pattern(&self, raw: &Spanned<String>) -> Result<Pattern> {
        static COMPILED: std::sync::OnceLock<std::sync::Mutex<HashMap<String, Pattern>>> =
            std::sync::OnceLock::new();
        let compiled = COMPILED.get_or_init(Default::default);
        if let Some(p) = compiled
            .lock()
            .ok()
            .and_then(|c| c.get(raw.get_ref()).cloned())
        {
            return Ok(p);
        }
        let pattern = if self.builtin {
            Pattern::deferred(raw.get_ref())
        } else {
            Pattern::new(self.regex(raw)?)
        };
        if let Ok(mut c) = compiled.lock() {
            c.insert(raw.get_ref().clone(), pattern.clone());
        }
        Ok(pattern)
    }

    fn template(&self, raw: &Spanned<String>, known: &[&str]) -> Result<Template> {
        Template::parse(raw.get_ref(), known)
            .map_err(|(offset, message)| self.err(self.inner(&raw.span(), offset), message))
    }

    fn operand(&self, raw: &Spanned<toml::Value>) -> Result<Operand> {
        if let toml::Value::Table(t) = raw.get_ref() {
            if t.len() == 1 {
                let (k, v) = t.iter().next().expect("one entry");
                let name = v
                    .as_str()
                    .ok_or_else(|| self.err(raw.span(), format!("`{k}` takes a string")))?;
                return match k.as_str() {
                    "fact" => Fact::ALL
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, f)| Operand::Fact(*f))
                        .ok_or_else(|| self.unknown(raw.span(), "fact", name, Fact::ALL.iter().map(|f| f.0))),
                    "setting" => Setting::ALL
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, s)| Operand::Setting(*s))
                        .ok_or_else(|| self.unknown(raw.span(), "setting", name, Setting::ALL.iter().map(|f| f.0))),
                    "select" => {
                        let sel = Selector::parse(name)
                            .map_err(|e| self.err(raw.span(), format!("bad selector: {}", e.message)))?;
                        self.fits_shape(&sel, &self.table_string(raw.span()))?;
                        Ok(Operand::Select(sel))
                    }
                    _ => Err(self.err(
                        raw.span(),
                        format!("unknown reference `{k}`: use {{ fact = \"…\" }}, {{ setting = \"…\" }} or {{ select = \"…\" }}"),
                    )),
                };
            }
        }
        Lit::from_toml(raw.get_ref())
            .map(Operand::Literal)
            .map_err(|m| self.err(raw.span(), m))
    }

    fn unknown<'n>(
        &self,
        span: Range<usize>,
        what: &str,
        name: &str,
        known: impl Iterator<Item = &'n str> + Clone,
    ) -> Box<FileError> {
        let mut e = FileError::new(
            self.name,
            self.text,
            Some(span),
            format!("unknown {what} `{name}`"),
        );
        e.help = Some(match crate::error::suggest(name, known.clone()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("known: {}", known.collect::<Vec<_>>().join(", ")),
        });
        Box::new(e)
    }

    fn number(&self, raw: &Spanned<toml::Value>) -> Result<Operand> {
        let op = self.operand(raw)?;
        if let Operand::Literal(lit) = &op {
            if !matches!(lit, Lit::Num(_)) {
                return Err(self.err(raw.span(), "a bound must be a number or a reference"));
            }
        }
        Ok(op)
    }

    /// The predicates of a clause; at most one is allowed.
    fn predicates(&self, c: &RawClause) -> Result<Vec<(Range<usize>, Predicate)>> {
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

    fn forbid(&self, what: &str, spans: &[(Option<Range<usize>>, &str)]) -> Result<()> {
        for (span, key) in spans {
            if let Some(span) = span {
                return Err(self.err(span.clone(), format!("`{key}` is not allowed in {what}")));
            }
        }
        Ok(())
    }

    fn condition(&self, raw: &Spanned<RawClause>) -> Result<Condition> {
        self.condition_at(raw, false)
    }

    /// A condition; `top`: directly in a check's `when` list, where item conditions
    /// (`select = "@.…"`) may stand.
    fn condition_at(&self, raw: &Spanned<RawClause>, top: bool) -> Result<Condition> {
        let c = raw.get_ref();
        self.forbid(
            "a condition",
            &[
                (c.when.as_ref().map(|_| raw.span()), "when"),
                (c.message.as_ref().map(|m| m.span()), "message"),
                (c.help.as_ref().map(|m| m.span()), "help"),
                (c.report_at.as_ref().map(|m| m.span()), "report-at"),
                (c.unique.as_ref().map(|m| m.span()), "unique"),
                (c.keys.as_ref().map(|m| m.span()), "keys"),
                (c.function.as_ref().map(|m| m.span()), "function"),
                (c.options.as_ref().map(|m| m.span()), "options"),
            ],
        )?;
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
        let subject = c.select.is_some() as usize
            + c.fact.is_some() as usize
            + c.spec.is_some() as usize
            + c.config.is_some() as usize;
        if combinators > 0 {
            if combinators > 1 || subject > 0 || !predicates.is_empty() {
                return Err(self.err(raw.span(), "a condition is either `any`, `all`, `not`, or a subject (`select`, `fact`, `spec`, `config`) with one predicate"));
            }
            if let Some(list) = &c.any {
                return Ok(Condition::Any(
                    list.iter()
                        .map(|x| self.condition(x))
                        .collect::<Result<_>>()?,
                ));
            }
            if let Some(list) = &c.all {
                return Ok(Condition::All(
                    list.iter()
                        .map(|x| self.condition(x))
                        .collect::<Result<_>>()?,
                ));
            }
            if let Some(inner) = &c.not {
                return Ok(Condition::Not(Box::new(self.condition(inner)?)));
            }
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
        if let Some(sel) = c.select.as_ref().filter(|s| s.get_ref().starts_with('@')) {
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
            return Ok(Condition::Item(item, predicate));
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
            return Ok(Condition::Other(
                OtherDoc::Spec,
                self.other_selector(sel, true)?,
                predicate,
            ));
        }
        if let Some(sel) = &c.config {
            return Ok(Condition::Other(
                OtherDoc::Config,
                self.other_selector(sel, false)?,
                predicate,
            ));
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

    /// A check of a text rule: a `pattern` or a text function.
    fn text_check(
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
                // Compiled now even for a built-in rule: `find_iter` needs the regex itself.
                let pattern = Pattern::new(self.regex(p)?);
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
        let message_raw = c.message.as_ref().or(default_message).ok_or_else(|| {
            self.err(
                raw.span(),
                "a check needs a `message` (here or at the top of the rule file)",
            )
        })?;
        let message = self.template(message_raw, &known)?;
        let help = match c.help.as_ref().or(default_help) {
            Some(h) => Some(self.template(h, &known)?),
            None => None,
        };
        let when = match &c.when {
            Some(list) => list
                .iter()
                .map(|x| self.condition(x))
                .collect::<Result<Vec<_>>>()?,
            None => Vec::new(),
        };
        Ok(Check {
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

    fn function(
        &self,
        name: &Spanned<String>,
        options: Option<&Spanned<toml::Table>>,
    ) -> Result<Function> {
        Function::compile(name.get_ref(), options.map(|o| o.get_ref())).map_err(
            |(on_options, message)| {
                let span = if on_options {
                    options.map(|o| o.span()).unwrap_or(name.span())
                } else {
                    name.span()
                };
                let mut e = FileError::new(self.name, self.text, Some(span), message);
                if !on_options {
                    e.help = Some(
                        match crate::error::suggest(name.get_ref(), Function::NAMES.iter().copied())
                        {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => format!("built-in functions: {}", Function::NAMES.join(", ")),
                        },
                    );
                }
                Box::new(e)
            },
        )
    }

    fn check(
        &self,
        raw: &Spanned<RawClause>,
        default_message: Option<&Spanned<String>>,
        default_help: Option<&Spanned<String>>,
    ) -> Result<Check> {
        if self.target == Target::Text {
            return self.text_check(raw, default_message, default_help);
        }
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
            "a check (use `select`; facts go in `when`)",
            &[
                (c.fact.as_ref().map(|m| m.span()), "fact"),
                (c.any.as_ref().map(|_| raw.span()), "any"),
                (c.all.as_ref().map(|_| raw.span()), "all"),
                (c.not.as_ref().map(|_| raw.span()), "not"),
            ],
        )?;
        let select = match &c.select {
            Some(s) => self.selector(s)?,
            None if c.function.is_some() => Selector::parse("$").expect("root selector"),
            None => {
                return Err(self.err(
                    raw.span(),
                    "a check needs `select` (a selector such as `metadata.name`)",
                ))
            }
        };
        let mut predicates = self.predicates(c)?;
        let mut assertions = predicates.len();
        assertions +=
            c.unique.is_some() as usize + c.keys.is_some() as usize + c.function.is_some() as usize;
        if assertions != 1 {
            return Err(self.err(raw.span(), "a check needs exactly one assertion: a predicate (`present`, `equals`, `matches`, …), `unique`, `keys` or `function`"));
        }
        if let (Some(options), None) = (&c.options, &c.function) {
            return Err(self.err(options.span(), "`options` goes with `function`"));
        }
        let mut function_vars: &[&str] = &[];
        let assertion = if let Some((_, p)) = predicates.pop() {
            Assertion::Predicate(p)
        } else if let Some(u) = &c.unique {
            if !*u.get_ref() {
                return Err(self.err(u.span(), "only `unique = true` is meaningful"));
            }
            Assertion::Unique
        } else if let Some(k) = &c.keys {
            Assertion::Keys(k.get_ref().clone())
        } else {
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
            function_vars = f.vars();
            Assertion::Function(f)
        };
        let mut known: Vec<&str> = COMMON_VARS.to_vec();
        known.extend_from_slice(function_vars);
        match &assertion {
            Assertion::Keys(_) => known.extend_from_slice(&["did-you-mean", "allowed"]),
            Assertion::Predicate(p) => {
                known.extend_from_slice(super::predicate::predicate_vars(p));
                // A presence check has no value to compare with, so its `{expected}` says only
                // "a value"; this names what the platform expects instead.
                known.push(PLATFORM_KIND);
            }
            _ => {}
        }
        let message_raw = c.message.as_ref().or(default_message).ok_or_else(|| {
            self.err(
                raw.span(),
                "a check needs a `message` (here or at the top of the rule file)",
            )
        })?;
        let message = self.template(message_raw, &known)?;
        let help = match c.help.as_ref().or(default_help) {
            Some(h) => Some(self.template(h, &known)?),
            None => None,
        };
        let report_at = match &c.report_at {
            None => ReportAt::Value,
            Some(r) => match r.get_ref().as_str() {
                "key" => ReportAt::Key,
                "value" => ReportAt::Value,
                other => {
                    return Err(self.unknown(
                        r.span(),
                        "report-at",
                        other,
                        ["key", "value"].into_iter(),
                    ))
                }
            },
        };
        let when = match &c.when {
            Some(list) => list
                .iter()
                .map(|x| {
                    let condition = self.condition_at(x, true)?;
                    self.item_fits(&select, &condition, x)?;
                    Ok(condition)
                })
                .collect::<Result<Vec<_>>>()?,
            None => Vec::new(),
        };
        let needs = super::plan::assertion_needs(&assertion);
        Ok(Check {
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
}

/// Where byte `offset` of the decoded value of the TOML string literal `raw` lies in `raw`.
fn source_offset(raw: &str, offset: usize) -> usize {
    let (delimiter, basic) = if raw.starts_with("\"\"\"") {
        (3, true)
    } else if raw.starts_with("'''") {
        (3, false)
    } else if raw.starts_with('"') {
        (1, true)
    } else if raw.starts_with('\'') {
        (1, false)
    } else {
        return offset.min(raw.len());
    };
    let multiline = delimiter == 3;
    let bytes = raw.as_bytes();
    let mut i = delimiter;
    // A newline right after the opening delimiter of a multi-line string is not part of it.
    if multiline {
        if raw[i..].starts_with("\r\n") {
            i += 2;
        } else if raw[i..].starts_with('\n') {
            i += 1;
        }
    }
    let body_end = raw.len().saturating_sub(delimiter).max(i);
    let mut decoded = 0;
    while decoded < offset && i < body_end {
        if basic && bytes[i] == b'\\' {
            let hex = |digits: usize| {
                raw.get(i + 2..i + 2 + digits)
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .and_then(char::from_u32)
                    .map_or(1, char::len_utf8)
            };
            match bytes.get(i + 1) {
                Some(b'u') => {
                    decoded += hex(4);
                    i += 6;
                }
                Some(b'U') => {
                    decoded += hex(8);
                    i += 10;
                }
                Some(b'x') => {
                    decoded += hex(2);
                    i += 4;
                }
                // A line-ending backslash drops the line break and the indentation after it.
                Some(b' ' | b'\t' | b'\r' | b'\n') if multiline => {
                    i += 1;
                    while i < body_end && matches!(bytes[i], b' ' | b'\t' | b'\r' | b'\n') {
                        i += 1;
                    }
                }
                Some(_) => {
                    decoded += 1;
                    i += 2;
                }
                None => break,
            }
        } else {
            let len = raw[i..].chars().next().map_or(1, char::len_utf8);
            decoded += len;
            i += len;
        }
    }
    i.min(raw.len())
}

/// Compiles one rule file. A built-in rule's cases (`[[valid]]`, `[[invalid]]`, 40% of its
/// text) are compiled only when asked for ([`Rule::cases`]): a lint never reads them.
pub fn compile_rule(
    name: &str,
    text: Arc<str>,
    builtin: bool,
) -> std::result::Result<Rule, Box<FileError>> {
    compile(name, text, builtin, !builtin)
}

pub(super) fn compile(
    name: &str,
    text: Arc<str>,
    builtin: bool,
    with_cases: bool,
) -> std::result::Result<Rule, Box<FileError>> {
    let parsed = if with_cases {
        &text[..]
    } else {
        &text[..cases_start(&text)]
    };
    let raw: RawRule =
        toml::from_str(parsed).map_err(|e| Box::new(FileError::from_toml(name, &text, &e)))?;
    let mut c = Compiler {
        name,
        text: &text,
        builtin,
        jobspec: false,
        target: Target::Jobspec,
    };
    let id = raw.id.get_ref();
    let id_ok = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && id.as_bytes()[0].is_ascii_lowercase();
    if !id_ok {
        return Err(c.err(
            raw.id.span(),
            "a rule id is lowercase letters, digits and `-`, starting with a letter",
        ));
    }
    let severity = Severity::parse(raw.severity.get_ref()).ok_or_else(|| {
        c.unknown(
            raw.severity.span(),
            "severity",
            raw.severity.get_ref(),
            ["error", "warning", "note"].into_iter(),
        )
    })?;
    let target = match &raw.target {
        None => Target::Jobspec,
        Some(t) => Target::parse(t.get_ref()).ok_or_else(|| {
            c.unknown(
                t.span(),
                "target",
                t.get_ref(),
                Target::NAMES.iter().copied(),
            )
        })?,
    };
    c.jobspec = target == Target::Jobspec;
    c.target = target;
    let reported_by = match &raw.reported_by {
        None => ReportedBy::Checks,
        Some(r) if !builtin => {
            return Err(c.err(r.span(), "`reported-by` is reserved for built-in rules"))
        }
        Some(r) => match r.get_ref().as_str() {
            "parser" => ReportedBy::Parser,
            "walker" => ReportedBy::Walker,
            "suppressions" => ReportedBy::Suppressions,
            other => return Err(c.err(r.span(), format!("unknown `reported-by` {other}"))),
        },
    };
    if raw.check.is_empty() && reported_by == ReportedBy::Checks {
        return Err(c.err(raw.id.span(), "a rule needs at least one [[check]]"));
    }
    let mask = match &raw.mask {
        Some(m) if target != Target::Text => {
            return Err(c.err(m.span(), "`mask` goes with `target = \"text\"`"))
        }
        Some(m) => *m.get_ref(),
        None => false,
    };
    let checks = raw
        .check
        .iter()
        .map(|x| c.check(x, raw.message.as_ref(), raw.help.as_ref()))
        .collect::<Result<Vec<_>>>()?;
    let help = match &raw.help {
        Some(h) => Some(c.template(h, &COMMON_VARS)?),
        None => None,
    };
    let needs = super::plan::rule_needs(&checks);
    let cases = compile_cases(name, &text, 0, &raw.valid, &raw.invalid)?;
    for case in &cases {
        match (target.is_experiment(), &case.file) {
            (true, None) => {
                return Err(c.err(
                    case.span.clone(),
                    "a case of a rule on experiment files needs `file` (its path in the experiment) and `text`",
                ))
            }
            (false, Some(_)) => {
                return Err(c.err(
                    case.span.clone(),
                    "`file` and `text` are for rules on experiment files; a jobspec case takes `patch` or `document`",
                ))
            }
            _ => {}
        }
    }
    let globs = |patterns: &[Spanned<String>]| -> Result<Option<globset::GlobSet>> {
        if patterns.is_empty() {
            return Ok(None);
        }
        let mut builder = globset::GlobSetBuilder::new();
        for p in patterns {
            let glob = globset::GlobBuilder::new(p.get_ref())
                .literal_separator(true)
                .build()
                .map_err(|e| c.err(p.span(), format!("bad glob: {}", e.kind())))?;
            builder.add(glob);
        }
        builder
            .build()
            .map(Some)
            .map_err(|e| c.err(0..0, e.to_string()))
    };
    let files = match &raw.files {
        Some(list) if list.is_empty() => Some(globset::GlobSet::empty()),
        Some(list) => globs(list)?,
        None => None,
    };
    let ignores = globs(&raw.ignores)?;
    Ok(Rule {
        files,
        ignores,
        id: id.clone(),
        severity,
        summary: raw.summary.trim().to_string(),
        explanation: raw.explanation.unwrap_or_default().trim().to_string(),
        help,
        target,
        mask,
        reported_by,
        // Selectors are numbered (and `keys` checks with them) when the rule joins a set.
        plan: super::plan::plan_of(&checks, &mut 0),
        checks,
        needs,
        origin: Origin {
            name: name.to_string(),
            text: text.clone(),
            builtin,
            id_span: raw.id.span(),
        },
        cases: if with_cases {
            std::sync::OnceLock::from(cases)
        } else {
            std::sync::OnceLock::new()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::source_offset;

    fn at(raw: &str, offset: usize) -> &str {
        let i = source_offset(raw, offset);
        &raw[i..i + 1]
    }

    #[test]
    fn decoded_offsets_map_back_to_the_literal() {
        // `{` is byte 7 of the decoded `ééé {x}` (é is two bytes).
        assert_eq!(at(r#""\u00e9\u00e9\u00e9 {x}""#, 7), "{");
        assert_eq!(at("'''\nab {x}'''", 3), "{");
        assert_eq!(at(r#""a\"b}""#, 3), "}");
        assert_eq!(at("'abc'", 1), "b");
    }
}
