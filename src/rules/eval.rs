//! Evaluating compiled checks against one parsed document.

use std::borrow::Cow;

use crate::catalog::Recipe;
use crate::diagnostic::Span;
use crate::escape::quote;
use crate::json::{same_key, Document};
use crate::platform_facts::Platform;
use crate::select::{Match, Missing, Resolutions, Resolved};

use super::predicate::{
    expected, node_val, predicate_operand, predicate_values, predicate_vars, render_val, test,
    Given, Membership, Outcome, Val,
};
pub use super::predicate::{Lit, MAX_VALUE_CHARS};
use super::{Assertion, Check, Condition, Fact, Operand, OtherDoc, Predicate, ReportAt, Setting};

/// The directories of the project, for rules about `spec.source.exp`.
pub trait ProjectFs {
    fn dir_exists(&self, relative: &str) -> bool;
}

/// The other files a check may read: the spec that names an experiment, and the experiment's
/// config file.
#[derive(Default, Clone, Copy)]
pub struct Others<'a> {
    pub spec: Option<&'a Document<'a>>,
    pub config: Option<ConfigDoc<'a>>,
    /// The experiment's config composed with its bases (`hyperparam-unknown` reads it).
    pub composed: Option<&'a crate::formats::compose::Composed>,
}

impl Others<'_> {
    pub const NONE: Others<'static> = Others {
        spec: None,
        config: None,
        composed: None,
    };
}

/// An experiment's config file, parsed (its first document, for YAML).
#[derive(Clone, Copy)]
pub struct ConfigDoc<'a> {
    pub doc: &'a Document<'a>,
    pub text: &'a str,
    /// The file as reported.
    pub path: &'a std::sync::Arc<str>,
}

/// Everything a check may read while linting one document.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    pub doc: &'a Document<'a>,
    pub platform: &'a Platform,
    /// The catalog entry of `spec.recipe.name`, when there is a catalog and it has one.
    pub recipe: Option<&'a Recipe>,
    pub project: &'a dyn ProjectFs,
    /// Every shared selector of the rule set, resolved for this document.
    pub resolved: &'a Resolutions,
    /// The values of the wrong type, which no other check reports on.
    pub faults: &'a Faults,
    pub others: &'a Others<'a>,
    /// The worker's recent did-you-mean answers.
    pub suggestions: &'a std::cell::RefCell<crate::error::Suggestions>,
}

pub use super::faults::Faults;
pub use super::hits::{Hit, Hits};
pub use super::path::pointer_path;
use super::path::{member_path, plain_object_path};

/// The placeholders of one violation.
#[derive(Debug, Default)]
pub struct Vars<'a> {
    pub value: String,
    /// Borrowed where one phrase serves all of a check's failures in a file.
    pub expected: Cow<'a, str>,
    /// Borrowed where the path is text the document already holds (a top-level key's).
    pub path: Cow<'a, str>,
    pub key: String,
    pub pointer: String,
    pub extra: Vec<(&'static str, String)>,
    /// The did-you-mean key, unquoted, for a fix that renames to it.
    pub suggestion: Option<String>,
}

impl Vars<'_> {
    fn lookup(&self, name: &str) -> Option<&str> {
        Some(match name {
            "value" => &self.value,
            "expected" => self.expected.as_ref(),
            "path" => self.path.as_ref(),
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

/// An operand looked up for one document; `None` when its context is missing. Borrowed from the
/// rule, the configuration or the catalog: this runs for every check of every file.
fn resolve<'a>(op: &'a Operand, ctx: &Context<'a>) -> Option<Given<'a>> {
    match op {
        Operand::Literal(l) => Some(Given::Lit(l)),
        Operand::Fact(f) => fact(*f, ctx),
        Operand::Setting(Setting::Kind) => Some(Given::One(Val::Str(&ctx.platform.kind))),
        Operand::Setting(Setting::Registries) => {
            ctx.platform.registries.as_deref().map(Given::Strs)
        }
        Operand::Setting(Setting::GpuQuota) => ctx.platform.quota_for(project(ctx.doc)).map(|q| {
            Given::One(Val::Num {
                value: q as f64,
                integer: true,
                raw: None,
            })
        }),
        Operand::Select(sel) => match ctx.resolved.get(sel.id) {
            Some(res) => Some(Given::Found(ctx.doc, res.found)),
            None => {
                let items = sel
                    .resolve(ctx.doc)
                    .found
                    .iter()
                    .filter_map(|m| match node_val(ctx.doc, m.node) {
                        Val::Str(s) => Some(Lit::Str(s.to_string())),
                        Val::Num { value, .. } => Some(Lit::Num(value)),
                        Val::Bool(b) => Some(Lit::Bool(b)),
                        _ => None,
                    })
                    .collect();
                Some(Given::Owned(Lit::List(items)))
            }
        },
    }
}

/// `metadata.project`, when it is a string.
pub fn project<'a>(doc: &'a Document<'a>) -> Option<&'a str> {
    let metadata = doc.get(doc.root(), "metadata")?;
    doc.as_str(doc.get(metadata, "project")?)
}

fn fact<'a>(f: Fact, ctx: &Context<'a>) -> Option<Given<'a>> {
    let catalog = ctx.platform.catalog.as_ref()?;
    let text = |s: &'a Option<String>| s.as_deref().map(|s| Given::One(Val::Str(s)));
    match f {
        Fact::CatalogRecipes => Some(Given::Strs(catalog.names())),
        Fact::RecipeKnown => Some(Given::One(Val::Bool(ctx.recipe.is_some()))),
        Fact::RecipeVersion => text(&ctx.recipe?.version),
        Fact::RecipeDigest => text(&ctx.recipe?.digest),
        Fact::RecipeRuntimeId => text(&ctx.recipe?.runtime_id),
        Fact::RecipeObservability => ctx
            .recipe?
            .observability
            .map(|o| Given::One(Val::Str(o.as_str()))),
        Fact::RecipeCustom => Some(Given::One(Val::Bool(ctx.recipe?.custom))),
        Fact::RecipeRequiresCore => ctx
            .recipe?
            .requires_core
            .as_ref()
            .map(|(s, req)| Given::Range(s, req)),
    }
}

/// Hands `selector`'s resolution to `f`: from the document's table when the selector is
/// shared, else resolved on its own.
fn with_resolution<R>(
    selector: &crate::select::Selector,
    ctx: &Context<'_>,
    f: impl FnOnce(Resolved<'_>) -> R,
) -> R {
    match ctx.resolved.get(selector.id) {
        Some(resolved) => f(resolved),
        None => f(selector.resolve(ctx.doc).view()),
    }
}

/// Does `p` hold of everything `res` selected? (Absent/empty hold of nothing.)
fn holds_for(p: &Predicate, res: Resolved<'_>, ctx: &Context<'_>) -> bool {
    let operand = match predicate_operand(p) {
        Some(op) => match resolve(op, ctx) {
            Some(given) => Some(given),
            None => return false,
        },
        None => None,
    };
    let all = res
        .found
        .iter()
        .all(|m| test(p, node_val(ctx.doc, m.node), operand.as_ref()) == Outcome::Pass);
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
                let operand = match predicate_operand(p) {
                    Some(op) => match resolve(op, ctx) {
                        Some(given) => Some(given),
                        None => return false,
                    },
                    None => None,
                };
                test(p, value.val(), operand.as_ref()) == Outcome::Pass
            }
        },
        Condition::Other(which, sel, p) => {
            let doc = match which {
                OtherDoc::Spec => ctx.others.spec,
                OtherDoc::Config => ctx.others.config.map(|c| c.doc),
            };
            match doc {
                None => matches!(p, Predicate::Absent | Predicate::Empty),
                Some(doc) => {
                    let on_other = Context { doc, ..*ctx };
                    holds_for(p, sel.resolve(doc).view(), &on_other)
                }
            }
        }
        // Decided per selected value, when the check asserts (`assert`).
        Condition::Item(..) => true,
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
    let last = pointer.rsplit('/').next().unwrap_or("");
    if last.contains('~') {
        last.replace("~1", "/").replace("~0", "~")
    } else {
        last.to_string()
    }
}

pub fn emit(
    check: &Check,
    span: Span,
    pointer: String,
    vars: Vars<'_>,
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
        elsewhere: Vec::new(),
        fix: check.fix.clone(),
        suggestion: vars.suggestion,
    }
}

/// A violation at a selected value: the pointer is computed once, and `path`, `key` and
/// `pointer` are filled in where the caller left them empty.
pub fn emit_at(
    check: &Check,
    ctx: &Context<'_>,
    m: &Match,
    mut vars: Vars<'_>,
    related: Vec<(Span, String)>,
) -> Hit {
    let pointer = m.pointer(ctx.doc);
    if vars.path.is_empty() && check.uses("path") {
        vars.path = Cow::Owned(pointer_path(&pointer));
    }
    if vars.key.is_empty() && check.uses("key") {
        vars.key = quote(&last_key(&pointer), MAX_VALUE_CHARS);
    }
    if check.uses("pointer") {
        vars.pointer = pointer.clone();
    }
    emit(
        check,
        match_span(ctx, m, check.report_at),
        pointer,
        vars,
        related,
    )
}

/// A violation at `m` that repeats the earlier `first`, which is shown as the related location.
pub fn emit_repeat(
    check: &Check,
    ctx: &Context<'_>,
    m: &Match,
    first: &Match,
    vars: Vars<'_>,
) -> Hit {
    let related = vec![(
        match_span(ctx, first, check.report_at),
        check.related_label.clone(),
    )];
    emit_at(check, ctx, m, vars, related)
}

/// A comparable identity of a scalar, for `unique`: numbers by value (`1` and `1.0` are one,
/// as are `0` and `-0`).
#[derive(PartialEq, Eq, Hash)]
enum Identity<'a> {
    Str(&'a str),
    Num(u64),
    Bool(bool),
}

impl Identity<'_> {
    /// The identity of a number; none for NaN, which equals nothing.
    fn number(value: f64) -> Option<Identity<'static>> {
        super::predicate::number_identity(value).map(Identity::Num)
    }
}

/// Does a predicate check without operand find nothing to report in `res`? Decided without
/// building anything, since almost every check passes; a check that fails (or that this cannot
/// decide) goes through [`assert`], which reports.
#[inline]
fn quietly_passes(check: &Check, ctx: &Context<'_>, res: Resolved<'_>) -> bool {
    let Assertion::Predicate(p) = &check.assertion else {
        return false;
    };
    // `type`, `present` and `non-empty` are decided earlier, by the rule's plan.
    match p {
        Predicate::Matches(_)
        | Predicate::NotMatches(_)
        | Predicate::Empty
        | Predicate::MinLength(_)
        | Predicate::MaxLength(_)
        | Predicate::Semver => res
            .found
            .iter()
            .all(|m| test(p, node_val(ctx.doc, m.node), None) != Outcome::Fail),
        _ => false,
    }
}

/// Runs one check on the document, appending its violations.
pub fn run_check(check: &Check, ctx: &Context<'_>, out: &mut Hits) {
    if check.when.iter().all(|c| holds(c, ctx)) {
        run_when_holding(check, ctx, out);
    }
}

/// Runs one check whose conditions are known to hold (or that has none).
pub fn run_when_holding(check: &Check, ctx: &Context<'_>, out: &mut Hits) {
    if !ctx.faults.is_empty() {
        return run_around_faults(check, ctx, out);
    }
    match ctx.resolved.get(check.select.id) {
        Some(res) => {
            if !quietly_passes(check, ctx, res) {
                assert(check, ctx, res, out);
            }
        }
        None => assert(check, ctx, check.select.resolve(ctx.doc).view(), out),
    }
}

/// Runs one check on a document with values of the wrong type: one fault, one finding. A
/// check that reads a faulty place through a condition or operand says nothing; otherwise it
/// skips the values at or beneath a fault (the check that defines a fault, those beneath
/// one), and the missing keys of faulty objects.
#[cold]
#[inline(never)]
fn run_around_faults(check: &Check, ctx: &Context<'_>, out: &mut Hits) {
    let faults = ctx.faults;
    if faults.taint(ctx.doc, check) {
        return;
    }
    // What passes over every selected value passes over those kept clear of the faults.
    if let Some(res) = ctx.resolved.get(check.select.id) {
        if quietly_passes(check, ctx, res) {
            return;
        }
    }
    let defines = super::faults::defines_faults(check);
    let kept = |res: Resolved<'_>| crate::select::Resolution {
        found: res
            .found
            .iter()
            .filter(|m| {
                if defines {
                    !faults.beneath(ctx.doc, m.node)
                } else {
                    !faults.covers(ctx.doc, m.node)
                }
            })
            .copied()
            .collect(),
        missing: res
            .missing
            .iter()
            .filter(|miss| !faults.covers(ctx.doc, miss.parent))
            .copied()
            .collect(),
    };
    let own = with_resolution(&check.select, ctx, kept);
    assert(check, ctx, own.view(), out);
}

fn assert(check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits) {
    if check.when.iter().any(|c| matches!(c, Condition::Item(..))) {
        let kept = items_holding(check, ctx, res);
        return assert_on(check, ctx, kept.view(), out);
    }
    assert_on(check, ctx, res, out)
}

/// The selected values (and missing ones) whose item — the object that holds them — meets the
/// check's item conditions (`@.series`).
#[cold]
fn items_holding(check: &Check, ctx: &Context<'_>, res: Resolved<'_>) -> crate::select::Resolution {
    let doc = ctx.doc;
    let holds_at = |item: crate::json::NodeId| {
        check.when.iter().all(|c| match c {
            Condition::Item(sel, p) => holds_for(p, sel.resolve_from(doc, item).view(), ctx),
            _ => true,
        })
    };
    let last = check.select.segments.len().saturating_sub(1);
    crate::select::Resolution {
        found: res
            .found
            .iter()
            .filter(|m| doc.parent_of(m.node).is_some_and(holds_at))
            .copied()
            .collect(),
        // A value missing from its item: the item is the object that lacks it.
        missing: res
            .missing
            .iter()
            .filter(|miss| miss.depth == last && holds_at(miss.parent))
            .copied()
            .collect(),
    }
}

fn assert_on(check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits) {
    match &check.assertion {
        Assertion::Predicate(p) => {
            let operand = match predicate_operand(p) {
                Some(op) => match resolve(op, ctx) {
                    Some(l) => Some(l),
                    None => return,
                },
                None => None,
            };
            let members = operand.as_ref().and_then(|g| Membership::of(p, g));
            // The expected text is the same for every value: made once, on the first failure,
            // and only for a message or help that shows it (most do not); so are the raw values
            // it is made of.
            let mut expected_text = None;
            let shows_expected = check.uses("expected");
            let shows_raw = predicate_vars(p).iter().any(|name| check.uses(name));
            for m in res.found {
                let v = node_val(ctx.doc, m.node);
                let outcome = match &members {
                    Some(set) => set.test(p, v),
                    None => test(p, v, operand.as_ref()),
                };
                if outcome == Outcome::Fail {
                    let expected = if shows_expected {
                        expected_text
                            .get_or_insert_with(|| expected(p, operand.as_ref()))
                            .as_str()
                    } else {
                        ""
                    };
                    let raw = if shows_raw {
                        predicate_values(p, operand.as_ref(), v)
                    } else {
                        Vec::new()
                    };
                    report_value(check, expected, raw, ctx, m, v, out);
                }
            }
            if matches!(p, Predicate::Present | Predicate::NonEmpty) && !res.missing.is_empty() {
                let expected = expected_text.get_or_insert_with(|| expected(p, operand.as_ref()));
                report_missing(check, expected, ctx, res.missing, out);
            }
        }
        // One value cannot repeat another.
        Assertion::Unique if res.found.len() < 2 => {}
        Assertion::Unique => assert_unique(check, ctx, res, out),
        Assertion::Keys(allowed) => {
            // Hashed once for all the unknown keys (the did-you-mean answers are kept by it).
            let mut allowed_hash = None;
            for m in res.found {
                // The object's pointer (and dotted path), found once for all its unknown keys.
                let mut object_place: Option<(String, Option<String>)> = None;
                for member in ctx.doc.members(m.node) {
                    let key = member.key.as_bytes();
                    if !allowed.iter().any(|a| same_key(a.as_bytes(), key)) {
                        let allowed = (allowed.as_slice(), &mut allowed_hash);
                        let (pointer, path) = object_place.get_or_insert_with(|| {
                            let pointer = m.pointer(ctx.doc);
                            let path = check
                                .uses("path")
                                .then(|| plain_object_path(&pointer))
                                .flatten();
                            (pointer, path)
                        });
                        let object = (pointer.as_str(), path.as_deref());
                        report_unknown_key(check, allowed, ctx, object, member, out);
                    }
                }
            }
        }
        Assertion::Function(f) => f.run(check, ctx, res, out),
        // Text checks read a file's text, not a document (the experiment linter runs them).
        Assertion::Text { .. } => {}
    }
}

// The reporting paths below are rare (most values pass) and kept out of line, so the checking
// loops above stay small.

#[cold]
#[inline(never)]
fn report_value(
    check: &Check,
    expected: &str,
    extra: Vec<(&'static str, String)>,
    ctx: &Context<'_>,
    m: &Match,
    v: Val<'_>,
    out: &mut Hits,
) {
    let vars = Vars {
        value: if_used(check, "value", || render_val(v)),
        expected: Cow::Borrowed(if check.uses("expected") { expected } else { "" }),
        extra: extra.into_iter().chain(platform_vars(check, ctx)).collect(),
        ..Vars::default()
    };
    out.push(emit_at(check, ctx, m, vars, Vec::new()));
}

/// The text of the placeholder `name`, made only when the check's message or help shows it
/// (empty otherwise: nothing reads it).
fn if_used(check: &Check, name: &str, make: impl FnOnce() -> String) -> String {
    if check.uses(name) {
        make()
    } else {
        String::new()
    }
}

/// The platform settings a predicate check's message or help names (none, mostly: nothing
/// is built for a template that does not use them).
fn platform_vars(check: &Check, ctx: &Context<'_>) -> Vec<(&'static str, String)> {
    let name = super::compile::PLATFORM_KIND;
    if check.message.uses(name) || check.help.as_ref().is_some_and(|h| h.uses(name)) {
        vec![(name, quote(&ctx.platform.kind, MAX_VALUE_CHARS))]
    } else {
        Vec::new()
    }
}

#[cold]
#[inline(never)]
fn report_missing(
    check: &Check,
    expected: &str,
    ctx: &Context<'_>,
    missing: &[Missing],
    out: &mut Hits,
) {
    for miss in missing {
        let pointer = check.select.missing_pointer(ctx.doc, miss);
        let vars = Vars {
            value: "missing".into(),
            expected: Cow::Borrowed(if check.uses("expected") { expected } else { "" }),
            path: if_used(check, "path", || pointer_path(&pointer)).into(),
            key: if_used(check, "key", || {
                quote(check.select.missing_key(miss), MAX_VALUE_CHARS)
            }),
            pointer: if_used(check, "pointer", || pointer.clone()),
            extra: platform_vars(check, ctx),
            suggestion: None,
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

fn assert_unique(check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits) {
    let identity = |m: &Match| match node_val(ctx.doc, m.node) {
        Val::Str(s) => Some(Identity::Str(s)),
        Val::Num { value, .. } => Identity::number(value),
        Val::Bool(b) => Some(Identity::Bool(b)),
        _ => None,
    };
    for_each_repeat(res.found, identity, |m, first| {
        let value = render_val(node_val(ctx.doc, m.node));
        let vars = Vars {
            value,
            expected: Cow::Borrowed("a value used only once"),
            ..Vars::default()
        };
        out.push(emit_repeat(check, ctx, m, first, vars));
    });
}

/// Calls `repeat(item, first)` for each item whose key (`None`: no key, never a repeat) an
/// earlier item has, `first` being the earliest of those. A few items are compared pairwise,
/// with nothing allocated (a spec has a few pools and plugins); more go through a hash map of
/// the keys seen, so a million items cost a million lookups.
pub fn for_each_repeat<'m, K: Eq + std::hash::Hash>(
    items: &'m [Match],
    key: impl Fn(&'m Match) -> Option<K>,
    mut repeat: impl FnMut(&'m Match, &'m Match),
) {
    if items.len() <= 16 {
        for (i, m) in items.iter().enumerate() {
            let Some(k) = key(m) else { continue };
            if let Some(first) = items[..i].iter().find(|e| key(e).as_ref() == Some(&k)) {
                repeat(m, first);
            }
        }
        return;
    }
    let mut seen: std::collections::HashMap<K, &Match> =
        std::collections::HashMap::with_capacity(items.len());
    for m in items {
        let Some(k) = key(m) else { continue };
        match seen.entry(k) {
            std::collections::hash_map::Entry::Occupied(first) => repeat(m, first.get()),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(m);
            }
        }
    }
}

#[cold]
#[inline(never)]
/// An unknown key of an object: `allowed` are the keys it may have, with their
/// [`crate::error::candidates_hash`] once made.
fn report_unknown_key(
    check: &Check,
    (allowed, allowed_hash): (&[String], &mut Option<u64>),
    ctx: &Context<'_>,
    (object_pointer, object_path): (&str, Option<&str>),
    member: &crate::json::Member<'_>,
    out: &mut Hits,
) {
    let mut pointer = String::with_capacity(object_pointer.len() + 1 + member.key.len());
    pointer.push_str(object_pointer);
    crate::json::push_pointer_segment(&mut pointer, &member.key);
    // The did-you-mean (remembered per worker) for the message, and for a fix that renames.
    let (suggestion, only) = if check.uses("did-you-mean") || check.fix.is_some() {
        let list = *allowed_hash.get_or_insert_with(|| crate::error::candidates_hash(allowed));
        let kept = &mut ctx.suggestions.borrow_mut();
        crate::error::suggestions_among(&member.key, allowed, list, kept)
    } else {
        (None, None)
    };
    let did_you_mean = match suggestion {
        Some(s) => format!("; did you mean {}?", quote(s, MAX_VALUE_CHARS)),
        None => String::new(),
    };
    // No suggestion fills `{did-you-mean}` with nothing: no list to allocate for it.
    let mut extra = Vec::new();
    if !did_you_mean.is_empty() {
        extra.push(("did-you-mean", did_you_mean));
    }
    if check.uses("allowed") {
        extra.push(("allowed", allowed.join(", ")));
    }
    let vars = Vars {
        value: if_used(check, "value", || {
            render_val(node_val(ctx.doc, member.value))
        }),
        expected: if_used(check, "expected", || allowed.join(", ")).into(),
        path: if check.uses("path") {
            member_path(object_path, &member.key, &pointer)
        } else {
            Cow::Borrowed("")
        },
        key: if_used(check, "key", || quote(&member.key, MAX_VALUE_CHARS)),
        pointer: if_used(check, "pointer", || pointer.clone()),
        extra,
        // A rename fix only when the misspelling is close to one key alone.
        suggestion: only.map(str::to_string),
    };
    out.push(emit(check, member.key_span, pointer, vars, Vec::new()));
}

#[cfg(test)]
mod tests;
