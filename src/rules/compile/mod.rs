//! Rule file (TOML) → compiled [`Rule`]. Every error points at the rule file's own span.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use serde::Deserialize;
use toml::Spanned;

use super::cases::{cases_start, compile_cases};
use super::eval::Lit;
use super::functions::{Function, Syntax};
use super::schema::{RawClause, RawRule};
use super::template::Template;
use super::*;
use crate::error::FileError;

mod clauses;
mod fix;
mod offsets;
mod text;

use offsets::source_offset;

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
    /// Check that selectors fit the forge/v2 shape, and the syntax of the regexes a function's
    /// options give. Not for a built-in rule at start-up (a test checks theirs): the shape
    /// costs a fifth of compiling the built-in rules, and `host-path`'s regexes a twentieth of
    /// a one-file run.
    check_shape: bool,
    /// Selectors must fit the forge/v2 shape (the rule reads jobspecs).
    jobspec: bool,
    target: Target,
    /// The rule's own `fix` and `fix-safety`, for the checks that give none.
    default_fix: Option<&'a Spanned<super::fix::RawFix>>,
    default_fix_safety: Option<&'a Spanned<String>>,
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
        if !self.jobspec || !self.check_shape {
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
            debug_assert!(super::pattern::is_prebuilt(raw.get_ref()), "{raw:?}");
            Pattern::deferred(raw.get_ref())
        } else {
            Pattern::new(self.regex(raw)?)
        };
        if let Ok(mut c) = compiled.lock() {
            c.insert(raw.get_ref().clone(), pattern.clone());
        }
        Ok(pattern)
    }

    /// A check's message and help templates: its own, else the rule file's defaults; a check
    /// needs a message.
    fn templates(
        &self,
        raw: &Spanned<RawClause>,
        default_message: Option<&Spanned<String>>,
        default_help: Option<&Spanned<String>>,
        known: &[&str],
    ) -> Result<(Template, Option<Template>)> {
        let c = raw.get_ref();
        let message = c.message.as_ref().or(default_message).ok_or_else(|| {
            self.err(
                raw.span(),
                "a check needs a `message` (here or at the top of the rule file)",
            )
        })?;
        let help = match c.help.as_ref().or(default_help) {
            Some(h) => Some(self.template(h, known)?),
            None => None,
        };
        Ok((self.template(message, known)?, help))
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

    fn forbid(&self, what: &str, spans: &[(Option<Range<usize>>, &str)]) -> Result<()> {
        for (span, key) in spans {
            if let Some(span) = span {
                return Err(self.err(span.clone(), format!("`{key}` is not allowed in {what}")));
            }
        }
        Ok(())
    }

    fn function(
        &self,
        name: &Spanned<String>,
        options: Option<&Spanned<toml::Table>>,
    ) -> Result<Function> {
        let syntax = if self.check_shape {
            Syntax::Check
        } else {
            Syntax::Trusted
        };
        Function::compile(name.get_ref(), options.map(|o| o.get_ref()), syntax).map_err(
            |(on_options, message)| {
                let span = if on_options {
                    options.map(|o| o.span()).unwrap_or(name.span())
                } else {
                    name.span()
                };
                let mut e = FileError::new(self.name, self.text, Some(span), message);
                if !on_options {
                    e.help = Some(
                        match crate::error::suggest(name.get_ref(), Function::names()) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => format!(
                                "built-in functions: {}",
                                Function::names().collect::<Vec<_>>().join(", ")
                            ),
                        },
                    );
                }
                Box::new(e)
            },
        )
    }
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
    compile_checked(name, text, builtin, with_cases, !builtin)
}

/// A built-in rule, from its text and the TOML tree `build.rs` parsed of it
/// ([`super::prebuilt`]), without its cases.
pub(super) fn compile_builtin(
    name: &str,
    text: &'static str,
    tree: &'static [u8],
) -> std::result::Result<Rule, Box<FileError>> {
    let text = Arc::<str>::from(text);
    // A tree that does not read as a rule is reported as its text would be.
    let raw = match super::prebuilt::decode(tree)
        .and_then(|root| RawRule::deserialize(toml::de::Deserializer::from(root)).ok())
    {
        Some(raw) => raw,
        None => parse(name, &text, false)?,
    };
    compile_raw(name, text, raw, true, false, false)
}

/// The rule file `text`, parsed; without its cases unless `with_cases`.
fn parse(name: &str, text: &Arc<str>, with_cases: bool) -> Result<RawRule> {
    let parsed = if with_cases {
        &text[..]
    } else {
        &text[..cases_start(text)]
    };
    toml::from_str(parsed).map_err(|e| Box::new(FileError::from_toml(name, text, &e)))
}

/// [`compile`], with or without the checks of selectors against the forge/v2 shape.
fn compile_checked(
    name: &str,
    text: Arc<str>,
    builtin: bool,
    with_cases: bool,
    check_shape: bool,
) -> std::result::Result<Rule, Box<FileError>> {
    let raw = parse(name, &text, with_cases)?;
    compile_raw(name, text, raw, builtin, with_cases, check_shape)
}

/// A parsed rule file, compiled.
fn compile_raw(
    name: &str,
    text: Arc<str>,
    raw: RawRule,
    builtin: bool,
    with_cases: bool,
    check_shape: bool,
) -> std::result::Result<Rule, Box<FileError>> {
    let mut c = Compiler {
        name,
        text: &text,
        builtin,
        check_shape,
        jobspec: false,
        target: Target::Jobspec,
        default_fix: raw.fix.as_ref(),
        default_fix_safety: raw.fix_safety.as_ref(),
    };
    c.check_id(&raw.id)?;
    let severity = c.severity(&raw.severity)?;
    let target = c.target_of(raw.target.as_ref())?;
    c.jobspec = target == Target::Jobspec;
    c.target = target;
    let reported_by = c.reported_by(raw.reported_by.as_ref())?;
    if raw.check.is_empty() && reported_by == ReportedBy::Checks {
        return Err(c.err(raw.id.span(), "a rule needs at least one [[check]]"));
    }
    let mask = c.mask(raw.mask.as_ref())?;
    let mut checks = raw
        .check
        .iter()
        .map(|x| c.check(x, raw.message.as_ref(), raw.help.as_ref()))
        .collect::<Result<Vec<_>>>()?;
    text::link_text_checks(&mut checks);
    let help = match &raw.help {
        Some(h) => Some(c.template(h, &COMMON_VARS)?),
        None => None,
    };
    let cases = compile_cases(name, &text, 0, &raw.valid, &raw.invalid)?;
    c.check_case_kinds(&cases)?;
    let (files, ignores) = c.scope(raw.files.as_deref(), &raw.ignores)?;
    let rule_id = crate::diagnostic::RuleId::new(raw.id.get_ref());
    offer_texts(rule_id, &checks);
    Ok(Rule {
        files,
        ignores,
        id: raw.id.get_ref().clone(),
        rule_id,
        severity,
        summary: raw.summary.trim().to_string(),
        explanation: raw.explanation.unwrap_or_default().trim().to_string(),
        help,
        target,
        mask,
        reported_by,
        // Selectors are numbered (and `keys` checks with them) when the rule joins a set.
        plan: super::plan::plan_of(&checks, &mut 0),
        needs: super::plan::rule_needs(&checks),
        checks,
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

/// Offers `rule`'s checks' common literal starts of message and help (see
/// [`crate::diagnostic::RuleTexts`]): a spilled finding is written without them.
fn offer_texts(rule: crate::diagnostic::RuleId, checks: &[Check]) {
    let messages = checks.iter().map(|c| c.message.literal_start());
    let helps = checks.iter().filter_map(|c| c.help.as_ref());
    rule.offer_texts(
        common_start(messages),
        common_start(helps.map(Template::literal_start)),
    );
}

/// The longest text all of `texts` start with ("" for none), ending where a character does.
fn common_start<'t>(mut texts: impl Iterator<Item = &'t str>) -> &'t str {
    let Some(mut common) = texts.next() else {
        return "";
    };
    for text in texts {
        let same = common.bytes().zip(text.bytes()).take_while(|(a, b)| a == b);
        let mut len = same.count();
        while !common.is_char_boundary(len) {
            len -= 1;
        }
        common = &common[..len];
    }
    common
}

/// The parts of a rule file's top level, each checked and compiled on its own.
impl Compiler<'_> {
    /// A rule id is lowercase letters, digits and `-`, starting with a letter.
    fn check_id(&self, id: &Spanned<String>) -> Result<()> {
        let text = id.get_ref();
        let ok = !text.is_empty()
            && text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && text.as_bytes()[0].is_ascii_lowercase();
        if ok {
            return Ok(());
        }
        Err(self.err(
            id.span(),
            "a rule id is lowercase letters, digits and `-`, starting with a letter",
        ))
    }

    fn severity(&self, raw: &Spanned<String>) -> Result<Severity> {
        Severity::parse(raw.get_ref()).ok_or_else(|| {
            self.unknown(
                raw.span(),
                "severity",
                raw.get_ref(),
                Severity::ALL.iter().rev().map(|s| s.as_str()),
            )
        })
    }

    /// `target`: jobspecs when it is left out.
    fn target_of(&self, raw: Option<&Spanned<String>>) -> Result<Target> {
        let Some(t) = raw else {
            return Ok(Target::Jobspec);
        };
        Target::parse(t.get_ref()).ok_or_else(|| {
            self.unknown(
                t.span(),
                "target",
                t.get_ref(),
                Target::NAMES.iter().copied(),
            )
        })
    }

    /// `reported-by`: who reports a built-in rule's findings, when its checks do not.
    fn reported_by(&self, raw: Option<&Spanned<String>>) -> Result<ReportedBy> {
        let Some(r) = raw else {
            return Ok(ReportedBy::Checks);
        };
        if !self.builtin {
            return Err(self.err(r.span(), "`reported-by` is reserved for built-in rules"));
        }
        match r.get_ref().as_str() {
            "parser" => Ok(ReportedBy::Parser),
            "walker" => Ok(ReportedBy::Walker),
            "suppressions" => Ok(ReportedBy::Suppressions),
            other => Err(self.err(r.span(), format!("unknown `reported-by` {other}"))),
        }
    }

    /// `mask`: for text rules only.
    fn mask(&self, raw: Option<&Spanned<bool>>) -> Result<bool> {
        match raw {
            Some(m) if self.target != Target::Text => {
                Err(self.err(m.span(), "`mask` goes with `target = \"text\"`"))
            }
            Some(m) => Ok(*m.get_ref()),
            None => Ok(false),
        }
    }

    /// A case of a rule on experiment files names a file; a jobspec rule's case does not.
    fn check_case_kinds(&self, cases: &[Case]) -> Result<()> {
        for case in cases {
            match (self.target.is_experiment(), &case.file) {
                (true, None) => {
                    return Err(self.err(
                        case.span.clone(),
                        "a case of a rule on experiment files needs `file` (its path in the experiment) and `text`",
                    ))
                }
                (false, Some(_)) => {
                    return Err(self.err(
                        case.span.clone(),
                        "`file` and `text` are for rules on experiment files; a jobspec case takes `patch` or `document`",
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// `files` and `ignores`: the globs that scope the rule. `files = []` matches nothing.
    fn scope(
        &self,
        files: Option<&[Spanned<String>]>,
        ignores: &[Spanned<String>],
    ) -> Result<(Option<globset::GlobSet>, Option<globset::GlobSet>)> {
        let globs = |patterns: &[Spanned<String>]| -> Result<Option<globset::GlobSet>> {
            if patterns.is_empty() {
                return Ok(None);
            }
            crate::paths::glob_set(patterns.iter().map(|p| (p.get_ref().as_str(), p.span())))
                .map(Some)
                .map_err(|(span, message)| self.err(span.unwrap_or(0..0), message))
        };
        let files = match files {
            Some([]) => Some(globset::GlobSet::empty()),
            Some(list) => globs(list)?,
            None => None,
        };
        Ok((files, globs(ignores)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::prebuilt::{decode, encoder::encode};
    use crate::rules::{BUILTIN, BUILTIN_TREES};

    /// Each built-in rule's tree, made at build time, is the tree of its text as it is now, and
    /// reads as the rule its text reads as: every value and every span.
    #[test]
    fn builtin_trees_read_as_their_text() {
        assert_eq!(BUILTIN.len(), BUILTIN_TREES.len());
        for (&(name, text), &tree) in BUILTIN.iter().zip(BUILTIN_TREES) {
            assert_eq!(encode(text).as_deref(), Some(tree), "{name}");
            let root = decode(tree).unwrap_or_else(|| panic!("{name}: the tree reads"));
            let from_tree = RawRule::deserialize(toml::de::Deserializer::from(root))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let from_text: RawRule = toml::from_str(&text[..cases_start(text)]).unwrap();
            assert_eq!(format!("{from_tree:?}"), format!("{from_text:?}"), "{name}");
        }
    }

    /// Numbers, dates, nested arrays and tables, escapes and multi-line strings read back
    /// with their spans; a tree cut short, or with bytes after it, does not read.
    #[test]
    fn trees_read_back_and_cut_trees_do_not() {
        let text = "a = 0x1F\nb = -2.5e3\nc = 1979-05-27T07:32:00Z\nd = [[1, 'x'], { e = true }]\n\
                    f = \"\\u00e9\\t\"\ng = \"\"\"\nline\n\"\"\"\n[h.i]\nj = inf\n[[k]]\nl = 1_000\n";
        let tree = encode(text).expect("TOML");
        let from_tree =
            toml::Value::deserialize(toml::de::Deserializer::from(decode(&tree).unwrap()));
        let from_text: toml::Value = toml::from_str(text).unwrap();
        assert_eq!(from_tree.unwrap(), from_text);
        type Spans = std::collections::BTreeMap<String, toml::Spanned<toml::Value>>;
        let spans = |root| Spans::deserialize(toml::de::Deserializer::from(root)).unwrap();
        let (a, b) = (
            spans(decode(&tree).unwrap()),
            toml::from_str::<Spans>(text).unwrap(),
        );
        for (key, value) in &b {
            assert_eq!(a[key].span(), value.span(), "{key}");
        }
        for cut in 0..tree.len() {
            assert!(decode(&tree[..cut]).is_none(), "cut at {cut}");
        }
        let mut longer = tree.clone();
        longer.push(0);
        assert!(decode(&longer).is_none());
        assert_eq!(encode("a = "), None);
    }

    /// A built-in rule whose tree does not read is compiled from its text: the same rule, or
    /// the text's own error.
    #[test]
    fn a_tree_that_does_not_read_falls_back_to_the_text() {
        let (name, text) = BUILTIN[0];
        let from_tree = compile_builtin(name, text, BUILTIN_TREES[0]).unwrap();
        let from_text = compile_builtin(name, text, &[1, 2, 3]).unwrap();
        assert_eq!(from_tree.id, from_text.id);
        assert_eq!(from_tree.origin.id_span, from_text.origin.id_span);
        assert_eq!(from_tree.checks.len(), from_text.checks.len());
        let broken = compile_builtin("rules/broken.toml", "id = ", &[]).unwrap_err();
        assert_eq!(broken.source.name(), "rules/broken.toml");
        assert_eq!(broken.span, Some(5..5), "{}", broken.message);
    }

    /// The built-in rules' selectors fit the forge/v2 shape, and their functions' regexes
    /// parse: a run skips those checks for them.
    #[test]
    fn builtin_selectors_fit_the_shape() {
        for (name, text) in BUILTIN {
            if let Err(e) = compile_checked(name, (*text).into(), true, false, true) {
                panic!("{name}: {e:?}");
            }
        }
    }

    #[test]
    fn common_starts_end_where_characters_do() {
        assert_eq!(common_start([].into_iter()), "");
        assert_eq!(
            common_start(["unknown field "].into_iter()),
            "unknown field "
        );
        assert_eq!(common_start(["ab", "abc", "abd"].into_iter()), "ab");
        assert_eq!(common_start(["ab", ""].into_iter()), "");
        // 'é' is C3 A9 and 'ê' C3 AA: the shared C3 is half a character.
        assert_eq!(common_start(["xé", "xê"].into_iter()), "x");
    }

    /// A compiled rule offers its checks' common literal starts for the spill.
    #[test]
    fn a_compiled_rule_offers_its_checks_common_starts() {
        let text = r#"
id = "compile-test-offers-starts"
severity = "warning"
summary = "s"
help = "set it: the server needs {path}"

[[check]]
select = "/spec/a"
type = "string"
message = "field a is {value}"

[[check]]
select = "/spec/b"
type = "string"
message = "field b is {value}"
"#;
        let rule = compile_checked("t.toml", text.into(), false, false, false)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let texts = rule.rule_id.texts().unwrap();
        assert_eq!(&*texts.message, "field ");
        assert_eq!(&*texts.help, "set it: the server needs ");
    }
}
