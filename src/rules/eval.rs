//! Evaluating compiled checks against one parsed document.

use std::borrow::Cow;

use crate::catalog::Recipe;
use crate::config::Platform;
use crate::escape::quote;
use crate::json::{is_integer_literal, Document, NodeId, Span, Value};
use crate::select::{display_segments, Match, Missing, Resolution, Segment};

use super::{Assertion, Check, Condition, Fact, JsonType, Operand, Predicate, ReportAt, Setting};

/// How long a quoted value may get in a message.
pub const MAX_VALUE_CHARS: usize = 80;

/// A literal written in a rule file, or a value looked up from the context.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    Bool(bool),
    Num(f64),
    Str(String),
    List(Vec<Lit>),
}

impl Lit {
    pub fn from_toml(v: &toml::Value) -> Result<Lit, String> {
        Ok(match v {
            toml::Value::String(s) => Lit::Str(s.clone()),
            toml::Value::Integer(i) => Lit::Num(*i as f64),
            toml::Value::Float(f) => Lit::Num(*f),
            toml::Value::Boolean(b) => Lit::Bool(*b),
            toml::Value::Array(a) => Lit::List(a.iter().map(Lit::from_toml).collect::<Result<_, _>>()?),
            toml::Value::Datetime(_) => return Err("dates are not JSON values; quote it as a string".into()),
            toml::Value::Table(_) => {
                return Err("a table here must be a reference: { fact = \"…\" }, { setting = \"…\" } or { select = \"…\" }".into())
            }
        })
    }

    pub fn render(&self) -> String {
        match self {
            Lit::Bool(b) => b.to_string(),
            Lit::Num(n) => format_number(*n),
            Lit::Str(s) => quote(s, MAX_VALUE_CHARS),
            Lit::List(items) => items.iter().map(Lit::render).collect::<Vec<_>>().join(", "),
        }
    }

    /// The items of a list, or the value itself.
    fn items(&self) -> &[Lit] {
        match self {
            Lit::List(items) => items,
            other => std::slice::from_ref(other),
        }
    }
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// The directories of the project, for rules about `spec.source.exp`.
pub trait ProjectFs: Sync {
    fn dir_exists(&self, relative: &str) -> bool;
}

/// Everything a check may read while linting one document.
pub struct Context<'a> {
    pub doc: &'a Document<'a>,
    pub platform: &'a Platform,
    /// The catalog entry of `spec.recipe.name`, when there is a catalog and it has one.
    pub recipe: Option<&'a Recipe>,
    pub project: &'a dyn ProjectFs,
    /// This document's number (see [`next_document_number`]).
    pub document: u64,
}

/// A violation found by a check, before the engine stamps rule id and severity on it.
#[derive(Debug, Clone)]
pub struct Hit {
    pub span: Span,
    pub pointer: String,
    pub message: String,
    pub help: Option<String>,
    pub related: Vec<(Span, String)>,
}

/// The placeholders of one violation.
#[derive(Debug, Default)]
pub struct Vars {
    pub value: String,
    pub expected: String,
    pub path: String,
    pub key: String,
    pub pointer: String,
    pub extra: Vec<(&'static str, String)>,
}

impl Vars {
    fn lookup(&self, name: &str) -> Option<&str> {
        Some(match name {
            "value" => &self.value,
            "expected" => &self.expected,
            "path" => &self.path,
            "key" => &self.key,
            "pointer" => &self.pointer,
            _ => {
                return self
                    .extra
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.as_str())
            }
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Val<'a> {
    Null,
    Bool(bool),
    Num {
        value: f64,
        integer: bool,
        raw: Option<&'a str>,
    },
    Str(&'a str),
    Array(usize),
    Object(usize),
}

fn node_val<'a>(doc: &'a Document<'a>, id: NodeId) -> Val<'a> {
    match doc.value(id) {
        Value::Null => Val::Null,
        Value::Bool(b) => Val::Bool(*b),
        Value::Number(raw) => Val::Num {
            value: raw.parse().unwrap_or(f64::NAN),
            integer: is_integer_literal(raw),
            raw: Some(raw),
        },
        Value::String(s) => Val::Str(s),
        Value::Array { len, .. } => Val::Array(*len as usize),
        Value::Object { len, .. } => Val::Object(*len as usize),
    }
}

fn lit_val(l: &Lit) -> Val<'_> {
    match l {
        Lit::Bool(b) => Val::Bool(*b),
        Lit::Num(n) => Val::Num {
            value: *n,
            integer: n.fract() == 0.0,
            raw: None,
        },
        Lit::Str(s) => Val::Str(s),
        Lit::List(items) => Val::Array(items.len()),
    }
}

fn render_val(v: Val<'_>) -> String {
    match v {
        Val::Null => "null".into(),
        Val::Bool(b) => b.to_string(),
        Val::Num { raw: Some(raw), .. } => raw.chars().take(MAX_VALUE_CHARS).collect(),
        Val::Num { value, .. } => format_number(value),
        Val::Str(s) => quote(s, MAX_VALUE_CHARS),
        Val::Array(n) => format!("an array of {n} item{}", if n == 1 { "" } else { "s" }),
        Val::Object(n) => format!("an object with {n} key{}", if n == 1 { "" } else { "s" }),
    }
}

fn is_empty(v: Val<'_>) -> bool {
    matches!(v, Val::Null | Val::Str("") | Val::Array(0) | Val::Object(0))
}

fn equal(v: Val<'_>, l: &Lit) -> bool {
    match (v, l) {
        (Val::Str(a), Lit::Str(b)) => a == b,
        (Val::Num { value, .. }, Lit::Num(b)) => value == *b,
        (Val::Bool(a), Lit::Bool(b)) => a == *b,
        _ => false,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Pass,
    Fail,
    /// The predicate does not apply to this value (a regex on a number): wrong-type's business.
    Skip,
}

fn pass_if(ok: bool) -> Outcome {
    if ok {
        Outcome::Pass
    } else {
        Outcome::Fail
    }
}

/// An operand looked up for one document; `None` when its context is missing. Literals are
/// borrowed, not copied: this runs for every check of every file.
fn resolve<'a>(op: &'a Operand, ctx: &Context<'_>) -> Option<Cow<'a, Lit>> {
    let owned = match op {
        Operand::Literal(l) => return Some(Cow::Borrowed(l)),
        Operand::Fact(f) => fact(*f, ctx),
        Operand::Setting(Setting::Kind) => Some(Lit::Str(ctx.platform.kind.clone())),
        Operand::Setting(Setting::Registries) => ctx
            .platform
            .registries
            .as_ref()
            .map(|r| Lit::List(r.iter().map(|s| Lit::Str(s.clone())).collect())),
        Operand::Setting(Setting::GpuQuota) => ctx
            .platform
            .quota_for(project(ctx.doc))
            .map(|q| Lit::Num(q as f64)),
        Operand::Select(sel) => {
            let res = sel.resolve(ctx.doc);
            let items = res
                .found
                .iter()
                .filter_map(|m| match node_val(ctx.doc, m.node) {
                    Val::Str(s) => Some(Lit::Str(s.to_string())),
                    Val::Num { value, .. } => Some(Lit::Num(value)),
                    Val::Bool(b) => Some(Lit::Bool(b)),
                    _ => None,
                })
                .collect();
            Some(Lit::List(items))
        }
    };
    owned.map(Cow::Owned)
}

/// `metadata.project`, when it is a string.
pub fn project<'a>(doc: &'a Document<'a>) -> Option<&'a str> {
    let metadata = doc.get(doc.root(), "metadata")?;
    doc.as_str(doc.get(metadata, "project")?)
}

fn fact(f: Fact, ctx: &Context<'_>) -> Option<Lit> {
    let catalog = ctx.platform.catalog.as_ref()?;
    let str_lit = |s: &Option<String>| s.as_ref().map(|s| Lit::Str(s.clone()));
    match f {
        Fact::CatalogRecipes => Some(Lit::List(
            catalog
                .names()
                .iter()
                .map(|n| Lit::Str(n.clone()))
                .collect(),
        )),
        Fact::RecipeKnown => Some(Lit::Bool(ctx.recipe.is_some())),
        Fact::RecipeVersion => str_lit(&ctx.recipe?.version),
        Fact::RecipeDigest => str_lit(&ctx.recipe?.digest),
        Fact::RecipeRuntimeId => str_lit(&ctx.recipe?.runtime_id),
        Fact::RecipeObservability => ctx
            .recipe?
            .observability
            .map(|o| Lit::Str(o.as_str().into())),
        Fact::RecipeCustom => Some(Lit::Bool(ctx.recipe?.custom)),
        Fact::RecipeRequiresCore => ctx
            .recipe?
            .requires_core
            .as_ref()
            .map(|(s, _)| Lit::Str(s.clone())),
    }
}

fn test(p: &Predicate, v: Val<'_>, operand: &Option<Cow<'_, Lit>>) -> Outcome {
    let operand = &operand.as_deref();
    use Outcome::*;
    match p {
        Predicate::Present => Pass,
        Predicate::NonEmpty => pass_if(!is_empty(v)),
        Predicate::Absent => Fail,
        Predicate::Empty => pass_if(is_empty(v)),
        Predicate::Equals(_) => match operand {
            Some(l) => pass_if(equal(v, l)),
            None => Skip,
        },
        Predicate::NotEquals(_) => match operand {
            Some(l) => pass_if(!equal(v, l)),
            None => Skip,
        },
        Predicate::OneOf(_) => match operand {
            Some(l) => pass_if(l.items().iter().any(|x| equal(v, x))),
            None => Skip,
        },
        Predicate::NotOneOf(_) => match operand {
            Some(l) => pass_if(!l.items().iter().any(|x| equal(v, x))),
            None => Skip,
        },
        Predicate::Matches(re) => match v {
            Val::Str(s) => pass_if(re.is_match(s)),
            _ => Skip,
        },
        Predicate::NotMatches(re) => match v {
            Val::Str(s) => pass_if(!re.is_match(s)),
            _ => Skip,
        },
        Predicate::Type(types) => {
            let ok = types.iter().any(|t| match (t, v) {
                (JsonType::String, Val::Str(_)) => true,
                (JsonType::Integer, Val::Num { integer, .. }) => integer,
                (JsonType::Number, Val::Num { .. }) => true,
                (JsonType::Boolean, Val::Bool(_)) => true,
                (JsonType::Array, Val::Array(_)) => true,
                (JsonType::Object, Val::Object(_)) => true,
                (JsonType::Null, Val::Null) => true,
                _ => false,
            });
            // null stands for "not set", like an absent key, unless the rule asks about it.
            if !ok && v == Val::Null {
                Skip
            } else {
                pass_if(ok)
            }
        }
        Predicate::Minimum(_)
        | Predicate::Maximum(_)
        | Predicate::ExclusiveMinimum(_)
        | Predicate::ExclusiveMaximum(_) => {
            let (Val::Num { value, .. }, Some(Lit::Num(bound))) = (v, operand) else {
                return Skip;
            };
            pass_if(match p {
                Predicate::Minimum(_) => value >= *bound,
                Predicate::Maximum(_) => value <= *bound,
                Predicate::ExclusiveMinimum(_) => value > *bound,
                _ => value < *bound,
            })
        }
        Predicate::MinLength(n) | Predicate::MaxLength(n) => {
            let len = match v {
                Val::Str(s) => s.chars().count(),
                Val::Array(len) | Val::Object(len) => len,
                _ => return Skip,
            };
            pass_if(if matches!(p, Predicate::MinLength(_)) {
                len >= *n
            } else {
                len <= *n
            })
        }
        Predicate::Semver => match v {
            Val::Str(s) => pass_if(semver::Version::parse(s).is_ok()),
            _ => Skip,
        },
        Predicate::SemverRange(_) => {
            let (Val::Str(s), Some(Lit::Str(range))) = (v, operand) else {
                return Skip;
            };
            match (semver::Version::parse(s), semver::VersionReq::parse(range)) {
                (Ok(version), Ok(req)) => pass_if(req.matches(&version)),
                // A version that is not semver is the `semver` predicate's finding.
                _ => Skip,
            }
        }
    }
}

fn expected(p: &Predicate, operand: &Option<Cow<'_, Lit>>) -> String {
    let lit = || operand.as_deref().map(Lit::render).unwrap_or_default();
    match p {
        Predicate::Present => "a value".into(),
        Predicate::NonEmpty => "a non-empty value".into(),
        Predicate::Absent => "no value".into(),
        Predicate::Empty => "an empty value".into(),
        Predicate::Equals(_) => lit(),
        Predicate::NotEquals(_) => format!("anything but {}", lit()),
        Predicate::OneOf(_) => format!("one of {}", lit()),
        Predicate::NotOneOf(_) => format!("none of {}", lit()),
        Predicate::Matches(re) => format!("a match for /{}/", re.as_str()),
        Predicate::NotMatches(re) => format!("no match for /{}/", re.as_str()),
        Predicate::Type(types) => types
            .iter()
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(" or "),
        Predicate::Minimum(_) => format!("at least {}", lit()),
        Predicate::Maximum(_) => format!("at most {}", lit()),
        Predicate::ExclusiveMinimum(_) => format!("more than {}", lit()),
        Predicate::ExclusiveMaximum(_) => format!("less than {}", lit()),
        Predicate::MinLength(n) => format!("a length of at least {n}"),
        Predicate::MaxLength(n) => format!("a length of at most {n}"),
        Predicate::Semver => "a semantic version such as 1.2.3".into(),
        Predicate::SemverRange(_) => format!("a version in {}", lit()),
    }
}

fn predicate_operand(p: &Predicate) -> Option<&Operand> {
    match p {
        Predicate::Equals(op)
        | Predicate::NotEquals(op)
        | Predicate::OneOf(op)
        | Predicate::NotOneOf(op)
        | Predicate::Minimum(op)
        | Predicate::Maximum(op)
        | Predicate::ExclusiveMinimum(op)
        | Predicate::ExclusiveMaximum(op)
        | Predicate::SemverRange(op) => Some(op),
        _ => None,
    }
}

/// A resolution cached for one document.
#[derive(Default)]
struct Cached {
    document: u64,
    /// Lent out to a caller right now (a nested use of the same selector resolves afresh).
    busy: bool,
    resolution: Resolution,
}

thread_local! {
    /// Per worker thread, by selector id: each distinct selector is resolved once per document,
    /// and the buffers are reused from one document to the next.
    static RESOLUTIONS: std::cell::RefCell<Vec<Cached>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Each linted document gets a number, so cached resolutions of another are never reused.
static DOCUMENTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

pub fn next_document_number() -> u64 {
    DOCUMENTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Resolves `selector` (once per document when it has a shared id) and hands it to `f`.
fn with_resolution<R>(
    selector: &crate::select::Selector,
    ctx: &Context<'_>,
    f: impl FnOnce(&Resolution) -> R,
) -> R {
    let id = selector.id;
    if id == crate::select::NO_ID {
        return f(&selector.resolve(ctx.doc));
    }
    let lent = RESOLUTIONS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() <= id {
            cache.resize_with(id + 1, Cached::default);
        }
        let slot = &mut cache[id];
        if slot.busy {
            return None;
        }
        if slot.document != ctx.document {
            selector.resolve_into(ctx.doc, &mut slot.resolution);
            slot.document = ctx.document;
        }
        slot.busy = true;
        Some(std::mem::take(&mut slot.resolution))
    });
    match lent {
        Some(resolution) => {
            let out = f(&resolution);
            RESOLUTIONS.with(|cache| {
                let slot = &mut cache.borrow_mut()[id];
                slot.resolution = resolution;
                slot.busy = false;
            });
            out
        }
        None => f(&selector.resolve(ctx.doc)),
    }
}

/// Does `p` hold of everything `res` selected? (Absent/empty hold of nothing.)
fn holds_for(p: &Predicate, res: &Resolution, ctx: &Context<'_>) -> bool {
    let operand = predicate_operand(p).map(|op| resolve(op, ctx));
    if matches!(operand, Some(None)) {
        return false;
    }
    let operand = operand.flatten();
    let all = res
        .found
        .iter()
        .all(|m| test(p, node_val(ctx.doc, m.node), &operand) == Outcome::Pass);
    match p {
        Predicate::Absent | Predicate::Empty => all,
        Predicate::Present | Predicate::NonEmpty => {
            all && !res.found.is_empty() && res.missing.is_empty()
        }
        _ => all && !res.found.is_empty(),
    }
}

pub fn holds(c: &Condition, ctx: &Context<'_>) -> bool {
    match c {
        Condition::Select(sel, p) => with_resolution(sel, ctx, |res| holds_for(p, res, ctx)),
        Condition::Fact(f, p) => match fact(*f, ctx) {
            None => matches!(p, Predicate::Absent | Predicate::Empty),
            Some(value) => {
                let operand = predicate_operand(p).map(|op| resolve(op, ctx));
                if matches!(operand, Some(None)) {
                    return false;
                }
                test(p, lit_val(&value), &operand.flatten()) == Outcome::Pass
            }
        },
        Condition::Any(list) => list.iter().any(|c| holds(c, ctx)),
        Condition::All(list) => list.iter().all(|c| holds(c, ctx)),
        Condition::Not(inner) => !holds(inner, ctx),
    }
}

/// Where a match is reported.
pub fn match_span(ctx: &Context<'_>, m: &Match, at: ReportAt) -> Span {
    match (at, m.key_span) {
        (ReportAt::Key, Some(k)) => k,
        _ => ctx.doc.span(m.node),
    }
}

/// Where an absent value is reported: the key of the object that lacks it, or that object's
/// opening brace.
fn missing_span(ctx: &Context<'_>, miss: &Missing) -> Span {
    match miss.parent_key_span {
        Some(k) => k,
        None => {
            let s = ctx.doc.span(miss.parent);
            Span {
                start: s.start,
                end: s.start + 1,
            }
        }
    }
}

/// The last key (or index) of a JSON Pointer, unescaped.
pub fn last_key(pointer: &str) -> String {
    pointer
        .rsplit('/')
        .next()
        .unwrap_or("")
        .replace("~1", "/")
        .replace("~0", "~")
}

pub fn emit(
    check: &Check,
    span: Span,
    pointer: String,
    vars: Vars,
    related: Vec<(Span, String)>,
) -> Hit {
    let message = check.message.render(|k| vars.lookup(k));
    let help = check.help.as_ref().map(|h| h.render(|k| vars.lookup(k)));
    Hit {
        span,
        pointer,
        message,
        help,
        related,
    }
}

/// A `path` placeholder from a JSON Pointer: `spec.resources.pools[1].name`.
pub fn pointer_path(pointer: &str) -> String {
    let segments: Vec<Segment> = pointer
        .split('/')
        .skip(1)
        .map(|s| {
            let s = s.replace("~1", "/").replace("~0", "~");
            match s.parse::<usize>() {
                Ok(i) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                    Segment::Index(i)
                }
                _ => Segment::Key(s),
            }
        })
        .collect();
    crate::escape::visible(&display_segments(&segments)).into_owned()
}

/// The placeholders of a violation at a selected value.
fn match_vars(ctx: &Context<'_>, m: &Match, value: String, expected: String) -> (String, Vars) {
    let pointer = m.pointer(ctx.doc);
    let vars = Vars {
        value,
        expected,
        path: pointer_path(&pointer),
        key: quote(&last_key(&pointer), MAX_VALUE_CHARS),
        pointer: pointer.clone(),
        extra: Vec::new(),
    };
    (pointer, vars)
}

/// A comparable identity of a scalar, for `unique`.
#[derive(PartialEq)]
enum Identity<'a> {
    Str(&'a str),
    Num(f64),
    Bool(bool),
}

/// Runs one check on the document, appending its violations.
pub fn run_check(check: &Check, ctx: &Context<'_>, out: &mut Vec<Hit>) {
    if !check.when.iter().all(|c| holds(c, ctx)) {
        return;
    }
    with_resolution(&check.select, ctx, |res| assert(check, ctx, res, out));
}

fn assert(check: &Check, ctx: &Context<'_>, res: &Resolution, out: &mut Vec<Hit>) {
    match &check.assertion {
        Assertion::Predicate(p) => {
            let operand = match predicate_operand(p) {
                Some(op) => match resolve(op, ctx) {
                    Some(l) => Some(l),
                    None => return,
                },
                None => None,
            };
            for m in &res.found {
                let v = node_val(ctx.doc, m.node);
                if test(p, v, &operand) == Outcome::Fail {
                    let (pointer, vars) = match_vars(ctx, m, render_val(v), expected(p, &operand));
                    out.push(emit(
                        check,
                        match_span(ctx, m, check.report_at),
                        pointer,
                        vars,
                        Vec::new(),
                    ));
                }
            }
            if matches!(p, Predicate::Present | Predicate::NonEmpty) {
                for miss in &res.missing {
                    let pointer = check.select.missing_pointer(ctx.doc, miss);
                    let vars = Vars {
                        value: "missing".into(),
                        expected: expected(p, &operand),
                        path: pointer_path(&pointer),
                        key: quote(check.select.missing_key(miss), MAX_VALUE_CHARS),
                        pointer: pointer.clone(),
                        extra: Vec::new(),
                    };
                    out.push(emit(
                        check,
                        missing_span(ctx, miss),
                        pointer,
                        vars,
                        Vec::new(),
                    ));
                }
            }
        }
        Assertion::Unique => {
            let mut seen: Vec<(Identity<'_>, &Match)> = Vec::new();
            for m in &res.found {
                let identity = match node_val(ctx.doc, m.node) {
                    Val::Str(s) => Identity::Str(s),
                    Val::Num { value, .. } => Identity::Num(value),
                    Val::Bool(b) => Identity::Bool(b),
                    _ => continue,
                };
                if let Some((_, first)) = seen.iter().find(|(k, _)| *k == identity) {
                    let value = render_val(node_val(ctx.doc, m.node));
                    let (pointer, vars) =
                        match_vars(ctx, m, value, "a value used only once".into());
                    let related = vec![(
                        match_span(ctx, first, check.report_at),
                        check.related_label.clone(),
                    )];
                    out.push(emit(
                        check,
                        match_span(ctx, m, check.report_at),
                        pointer,
                        vars,
                        related,
                    ));
                } else {
                    seen.push((identity, m));
                }
            }
        }
        Assertion::Keys(allowed) => {
            for m in &res.found {
                for member in ctx.doc.members(m.node) {
                    if allowed.iter().any(|a| *a == member.key) {
                        continue;
                    }
                    let mut pointer = m.pointer(ctx.doc);
                    crate::json::push_pointer_segment(&mut pointer, &member.key);
                    let did_you_mean = match crate::error::suggest(
                        &member.key,
                        allowed.iter().map(String::as_str),
                    ) {
                        Some(s) => format!("; did you mean {}?", quote(s, MAX_VALUE_CHARS)),
                        None => String::new(),
                    };
                    let vars = Vars {
                        value: render_val(node_val(ctx.doc, member.value)),
                        expected: allowed.join(", "),
                        path: pointer_path(&pointer),
                        key: quote(&member.key, MAX_VALUE_CHARS),
                        pointer: pointer.clone(),
                        extra: vec![
                            ("did-you-mean", did_you_mean),
                            ("allowed", allowed.join(", ")),
                        ],
                    };
                    out.push(emit(check, member.key_span, pointer, vars, Vec::new()));
                }
            }
        }
        Assertion::Function(f) => f.run(check, ctx, res, out),
    }
}
