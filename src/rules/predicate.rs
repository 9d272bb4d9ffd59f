//! Values and predicates: what a check compares, and whether a value passes.

use crate::escape::quote;
use crate::json::{is_integer_literal, Document, NodeId, Value};
use crate::select::Match;

use super::{JsonType, Operand, Predicate};

/// How long a quoted value may get in a message.
pub const MAX_VALUE_CHARS: usize = 80;

/// How many items of a list a message names before "and N more": a spec's list can hold a
/// million items, and a message is read by a person.
pub const MAX_LIST_ITEMS: usize = 10;

/// `items` joined with ", ", the first [`MAX_LIST_ITEMS`] of them and then how many more.
pub fn render_list(items: impl Iterator<Item = String>) -> String {
    let mut shown = Vec::new();
    let mut more = 0usize;
    for item in items {
        if shown.len() < MAX_LIST_ITEMS {
            shown.push(item);
        } else {
            more += 1;
        }
    }
    let mut out = shown.join(", ");
    if more > 0 {
        out.push_str(&format!(" and {more} more"));
    }
    out
}

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
            Lit::List(items) => render_list(items.iter().map(Lit::render)),
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

/// An operand's value for one document, borrowed where it can be: from the rule (a literal), the
/// configuration (a setting) or the catalog (a fact). Nothing is copied per check.
#[derive(Debug, Clone)]
pub(crate) enum Given<'a> {
    Lit(&'a Lit),
    One(Val<'a>),
    /// A list of strings, e.g. the registries allowlist or the catalog's recipe names.
    Strs(&'a [String]),
    /// The values another selector found in this document (its scalars count).
    Found(&'a Document<'a>, &'a [Match]),
    /// A version range from the catalog, with its compiled form.
    Range(&'a str, &'a semver::VersionReq),
    /// Built for this document.
    Owned(Lit),
}

impl Given<'_> {
    /// The operand as a value of its own (a list is an array of its length).
    pub(crate) fn val(&self) -> Val<'_> {
        match self {
            Given::Lit(l) => lit_val(l),
            Given::One(v) => *v,
            Given::Strs(items) => Val::Array(items.len()),
            Given::Found(doc, found) => Val::Array(scalars(doc, found).count()),
            Given::Range(text, _) => Val::Str(text),
            Given::Owned(l) => lit_val(l),
        }
    }

    /// Is `v` equal to the operand (a list equals nothing)?
    fn equals(&self, v: Val<'_>) -> bool {
        match self {
            Given::Lit(l) => equal(v, l),
            Given::Owned(l) => equal(v, l),
            Given::One(x) => equal_vals(v, *x),
            Given::Range(text, _) => equal_vals(v, Val::Str(text)),
            Given::Strs(_) | Given::Found(..) => false,
        }
    }

    /// Is `v` one of the operand's items (the operand itself, when it is not a list)?
    fn contains(&self, v: Val<'_>) -> bool {
        match self {
            Given::Lit(l) => l.items().iter().any(|x| equal(v, x)),
            Given::Owned(l) => l.items().iter().any(|x| equal(v, x)),
            Given::One(x) => equal_vals(v, *x),
            Given::Strs(items) => {
                matches!(v, Val::Str(s) if items.iter().any(|i| same_text(i, s)))
            }
            Given::Found(doc, found) => scalars(doc, found).any(|x| equal_vals(v, x)),
            Given::Range(text, _) => equal_vals(v, Val::Str(text)),
        }
    }

    fn number(&self) -> Option<f64> {
        match self.val() {
            Val::Num { value, .. } => Some(value),
            _ => None,
        }
    }

    fn string(&self) -> Option<&str> {
        match self {
            Given::Lit(Lit::Str(s)) | Given::Owned(Lit::Str(s)) => Some(s),
            Given::One(Val::Str(s)) | Given::Range(s, _) => Some(s),
            _ => None,
        }
    }

    fn render(&self) -> String {
        match self {
            Given::Lit(l) => l.render(),
            Given::Owned(l) => l.render(),
            Given::One(v) => render_val(*v),
            Given::Range(text, _) => quote(text, MAX_VALUE_CHARS),
            Given::Found(doc, found) => render_list(scalars(doc, found).map(|v| match v {
                Val::Num { value, .. } => format_number(value),
                other => render_val(other),
            })),
            Given::Strs(items) => render_list(items.iter().map(|s| quote(s, MAX_VALUE_CHARS))),
        }
    }
}

/// The items of a long `one-of` / `not-one-of` list, hashed once per check: tested item by
/// item, a spec's million roles against its million pools would take a trillion comparisons.
pub(crate) struct Membership<'g> {
    strs: std::collections::HashSet<&'g str>,
    nums: std::collections::HashSet<u64>,
    bools: [bool; 2],
}

impl<'g> Membership<'g> {
    /// Lists of at most this many items are searched as they are.
    const MIN_ITEMS: usize = 16;

    /// The hashed items of `operand`, for a membership predicate over a long list.
    pub(crate) fn of<'a: 'g>(p: &Predicate, operand: &'g Given<'a>) -> Option<Membership<'g>> {
        if !matches!(p, Predicate::OneOf(_) | Predicate::NotOneOf(_)) {
            return None;
        }
        let items: Box<dyn Iterator<Item = Val<'g>> + 'g> = match operand {
            Given::Lit(l) if l.items().len() > Self::MIN_ITEMS => {
                Box::new(l.items().iter().map(lit_val))
            }
            Given::Owned(l) if l.items().len() > Self::MIN_ITEMS => {
                Box::new(l.items().iter().map(lit_val))
            }
            Given::Strs(items) if items.len() > Self::MIN_ITEMS => {
                Box::new(items.iter().map(|s| Val::Str(s)))
            }
            Given::Found(doc, found) if found.len() > Self::MIN_ITEMS => {
                Box::new(scalars(doc, found))
            }
            _ => return None,
        };
        let mut set = Membership {
            strs: std::collections::HashSet::new(),
            nums: std::collections::HashSet::new(),
            bools: [false; 2],
        };
        for item in items {
            match item {
                Val::Str(s) => {
                    set.strs.insert(s);
                }
                Val::Num { value, .. } => {
                    set.nums.extend(number_identity(value));
                }
                Val::Bool(b) => set.bools[usize::from(b)] = true,
                _ => {}
            }
        }
        Some(set)
    }

    fn contains(&self, v: Val<'_>) -> bool {
        match v {
            Val::Str(s) => self.strs.contains(s),
            Val::Num { value, .. } => {
                number_identity(value).is_some_and(|n| self.nums.contains(&n))
            }
            Val::Bool(b) => self.bools[usize::from(b)],
            _ => false,
        }
    }

    /// What [`test`] says of `v` for the membership predicate `p`.
    pub(crate) fn test(&self, p: &Predicate, v: Val<'_>) -> Outcome {
        match p {
            Predicate::NotOneOf(_) => pass_if(!self.contains(v)),
            _ => pass_if(self.contains(v)),
        }
    }
}

/// A number as a hashable key that equal numbers share (`0` and `-0` too); none for NaN,
/// which equals nothing.
pub(crate) fn number_identity(value: f64) -> Option<u64> {
    if value.is_nan() {
        None
    } else if value == 0.0 {
        Some(0)
    } else {
        Some(value.to_bits())
    }
}

/// The strings, numbers and booleans among `found`.
fn scalars<'a>(doc: &'a Document<'a>, found: &'a [Match]) -> impl Iterator<Item = Val<'a>> + 'a {
    found
        .iter()
        .map(|m| node_val(doc, m.node))
        .filter(|v| matches!(v, Val::Str(_) | Val::Num { .. } | Val::Bool(_)))
}

/// String equality without a call to `memcmp` for the short strings most values are.
#[inline(always)]
fn same_text(a: &str, b: &str) -> bool {
    crate::json::same_key(a.as_bytes(), b.as_bytes())
}

fn equal_vals(a: Val<'_>, b: Val<'_>) -> bool {
    match (a, b) {
        (Val::Str(a), Val::Str(b)) => same_text(a, b),
        (Val::Num { value: a, .. }, Val::Num { value: b, .. }) => a == b,
        (Val::Bool(a), Val::Bool(b)) => a == b,
        _ => false,
    }
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Val<'a> {
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

pub(crate) fn node_val<'a>(doc: &'a Document<'a>, id: NodeId) -> Val<'a> {
    match doc.value(id) {
        Value::Null => Val::Null,
        Value::Bool(b) => Val::Bool(*b),
        Value::Number(raw) => Val::Num {
            value: number_value(raw),
            integer: is_integer_literal(raw),
            raw: Some(raw.as_ref()),
        },
        Value::String(s) => Val::Str(s),
        Value::Array { len, .. } => Val::Array(*len as usize),
        Value::Object { len, .. } => Val::Object(*len as usize),
    }
}

/// A JSON number literal's value. Short integers, the usual case (`"nodes": 4`), are read
/// directly; the rest go through the float parser.
fn number_value(raw: &str) -> f64 {
    let (negative, digits) = match raw.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, raw),
    };
    if !digits.is_empty() && digits.len() <= 15 && digits.bytes().all(|b| b.is_ascii_digit()) {
        let magnitude = digits
            .bytes()
            .fold(0u64, |n, b| n * 10 + u64::from(b - b'0')) as f64;
        return if negative { -magnitude } else { magnitude };
    }
    raw.parse().unwrap_or(f64::NAN)
}

pub(crate) fn lit_val(l: &Lit) -> Val<'_> {
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

pub(crate) fn render_val(v: Val<'_>) -> String {
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

pub(crate) fn is_empty(v: Val<'_>) -> bool {
    matches!(v, Val::Null | Val::Str("") | Val::Array(0) | Val::Object(0))
}

pub(crate) fn equal(v: Val<'_>, l: &Lit) -> bool {
    match (v, l) {
        (Val::Str(a), Lit::Str(b)) => same_text(a, b),
        (Val::Num { value, .. }, Lit::Num(b)) => value == *b,
        (Val::Bool(a), Lit::Bool(b)) => a == *b,
        _ => false,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
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

pub(crate) fn test(p: &Predicate, v: Val<'_>, operand: Option<&Given<'_>>) -> Outcome {
    use Outcome::*;
    match p {
        Predicate::Present => Pass,
        Predicate::NonEmpty => pass_if(!is_empty(v)),
        Predicate::Absent => Fail,
        Predicate::Empty => pass_if(is_empty(v)),
        Predicate::Equals(_) => match operand {
            Some(g) => pass_if(g.equals(v)),
            None => Skip,
        },
        Predicate::NotEquals(_) => match operand {
            Some(g) => pass_if(!g.equals(v)),
            None => Skip,
        },
        Predicate::OneOf(_) => match operand {
            Some(g) => pass_if(g.contains(v)),
            None => Skip,
        },
        Predicate::NotOneOf(_) => match operand {
            Some(g) => pass_if(!g.contains(v)),
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
        Predicate::Type(types) => type_test(types, v),
        Predicate::Minimum(_)
        | Predicate::Maximum(_)
        | Predicate::ExclusiveMinimum(_)
        | Predicate::ExclusiveMaximum(_) => bound_test(p, v, operand),
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
        Predicate::SemverRange(_) => semver_range_test(v, operand),
    }
}

/// `type`: the value has one of `types`. null stands for "not set", like an absent key,
/// unless the rule asks about it.
#[inline]
fn type_test(types: &[JsonType], v: Val<'_>) -> Outcome {
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
    if !ok && v == Val::Null {
        Outcome::Skip
    } else {
        pass_if(ok)
    }
}

/// `minimum`, `maximum` and their exclusive forms: a number against the bound.
#[inline]
fn bound_test(p: &Predicate, v: Val<'_>, operand: Option<&Given<'_>>) -> Outcome {
    let (Val::Num { value, .. }, Some(bound)) = (v, operand.and_then(Given::number)) else {
        return Outcome::Skip;
    };
    pass_if(match p {
        Predicate::Minimum(_) => value >= bound,
        Predicate::Maximum(_) => value <= bound,
        Predicate::ExclusiveMinimum(_) => value > bound,
        _ => value < bound,
    })
}

/// `semver-range`: a version in the range given (compiled, or a string to compile). A version
/// that is not semver is the `semver` predicate's finding, not this one's.
fn semver_range_test(v: Val<'_>, operand: Option<&Given<'_>>) -> Outcome {
    let Val::Str(s) = v else {
        return Outcome::Skip;
    };
    let compiled;
    let req = match operand {
        Some(Given::Range(_, req)) => *req,
        Some(other) => match other.string().map(semver::VersionReq::parse) {
            Some(Ok(req)) => {
                compiled = req;
                &compiled
            }
            _ => return Outcome::Skip,
        },
        None => return Outcome::Skip,
    };
    match semver::Version::parse(s) {
        Ok(version) => pass_if(req.matches(&version)),
        Err(_) => Outcome::Skip,
    }
}

pub(crate) fn expected(p: &Predicate, operand: Option<&Given<'_>>) -> String {
    let lit = || operand.map(Given::render).unwrap_or_default();
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

/// The placeholders a predicate adds to the common ones: the raw values its `{expected}` phrase
/// is made of, for messages that word it themselves.
pub(crate) fn predicate_vars(p: &Predicate) -> &'static [&'static str] {
    match p {
        Predicate::Minimum(_)
        | Predicate::Maximum(_)
        | Predicate::ExclusiveMinimum(_)
        | Predicate::ExclusiveMaximum(_) => &["limit"],
        Predicate::MinLength(_) | Predicate::MaxLength(_) => &["limit", "length"],
        Predicate::Matches(_) | Predicate::NotMatches(_) => &["pattern"],
        _ => &[],
    }
}

/// The values of [`predicate_vars`] for a failing value `v`.
pub(crate) fn predicate_values(
    p: &Predicate,
    operand: Option<&Given<'_>>,
    v: Val<'_>,
) -> Vec<(&'static str, String)> {
    let limit = || operand.map(Given::render).unwrap_or_default();
    match p {
        Predicate::Minimum(_)
        | Predicate::Maximum(_)
        | Predicate::ExclusiveMinimum(_)
        | Predicate::ExclusiveMaximum(_) => vec![("limit", limit())],
        Predicate::MinLength(n) | Predicate::MaxLength(n) => {
            // Measured as the predicate measures it: characters, items or keys.
            let length = match v {
                Val::Str(s) => s.chars().count().to_string(),
                Val::Array(len) | Val::Object(len) => len.to_string(),
                _ => String::new(),
            };
            vec![("limit", n.to_string()), ("length", length)]
        }
        Predicate::Matches(re) | Predicate::NotMatches(re) => {
            vec![("pattern", re.as_str().to_string())]
        }
        _ => Vec::new(),
    }
}

/// `Some(f(operand))` for the predicates that compare against an operand.
macro_rules! with_operand {
    ($p:expr, $op:ident => $e:expr) => {
        match $p {
            Predicate::Equals($op)
            | Predicate::NotEquals($op)
            | Predicate::OneOf($op)
            | Predicate::NotOneOf($op)
            | Predicate::Minimum($op)
            | Predicate::Maximum($op)
            | Predicate::ExclusiveMinimum($op)
            | Predicate::ExclusiveMaximum($op)
            | Predicate::SemverRange($op) => Some($e),
            _ => None,
        }
    };
}

pub(crate) fn predicate_operand(p: &Predicate) -> Option<&Operand> {
    with_operand!(p, op => op)
}

pub(crate) fn predicate_operand_mut(p: &mut Predicate) -> Option<&mut Operand> {
    with_operand!(p, op => op)
}

/// Whether the string `s` satisfies `p` (or `p` cannot tell without an operand): what a fix
/// that rewrites a string checks before it is offered.
pub(crate) fn string_passes(p: &Predicate, s: &str) -> bool {
    !matches!(test(p, Val::Str(s), None), Outcome::Fail)
}

#[cfg(test)]
mod tests {
    use super::number_value;

    #[test]
    fn number_values_agree_with_the_float_parser() {
        for raw in [
            "0",
            "-0",
            "7",
            "-42",
            "999999999999999",
            "9999999999999999",
            "1.5",
            "-2e3",
            "1E400",
            "123456789012345678901234567890",
        ] {
            let expected: f64 = raw.parse().unwrap();
            let got = number_value(raw);
            assert!(
                got == expected && got.is_sign_negative() == expected.is_sign_negative(),
                "{raw}: {got} != {expected}"
            );
        }
    }

    /// A long list hashed once answers `one-of` and `not-one-of` exactly as the item-by-item
    /// search does, for strings, numbers (1 and 1.0, 0 and -0, infinities), booleans, and
    /// values a list never holds (arrays, objects, null, a nested list).
    #[test]
    fn hashed_lists_answer_like_the_search() {
        use super::{lit_val, test, Given, Lit, Membership, Outcome, Val};
        use crate::rules::{Operand, Predicate};
        let mut items: Vec<Lit> = (0..40).map(|i| Lit::Str(format!("pool-{i}"))).collect();
        items.extend([
            Lit::Num(1.0),
            Lit::Num(-0.0),
            Lit::Num(f64::INFINITY),
            Lit::Num(2.5),
            Lit::Bool(false),
            Lit::List(vec![Lit::Str("nested".into())]),
        ]);
        let list = Lit::List(items);
        let values = [
            Val::Str("pool-0"),
            Val::Str("pool-39"),
            Val::Str("pool-40"),
            Val::Str("nested"),
            Val::Str(""),
            Val::Num {
                value: 1.0,
                integer: true,
                raw: Some("1"),
            },
            Val::Num {
                value: 1.0,
                integer: false,
                raw: Some("1.0"),
            },
            Val::Num {
                value: 0.0,
                integer: true,
                raw: Some("0"),
            },
            Val::Num {
                value: f64::INFINITY,
                integer: false,
                raw: Some("1e999"),
            },
            Val::Num {
                value: 2.0,
                integer: true,
                raw: Some("2"),
            },
            Val::Bool(false),
            Val::Bool(true),
            Val::Null,
            Val::Array(0),
            Val::Object(1),
        ];
        for p in [
            Predicate::OneOf(Operand::Literal(list.clone())),
            Predicate::NotOneOf(Operand::Literal(list.clone())),
        ] {
            for given in [Given::Lit(&list), Given::Owned(list.clone())] {
                let set = Membership::of(&p, &given).expect("a long list is hashed");
                for v in values {
                    assert_eq!(set.test(&p, v), test(&p, v, Some(&given)), "{v:?}");
                }
            }
        }
        assert_eq!(
            test(
                &Predicate::OneOf(Operand::Literal(list.clone())),
                lit_val(&Lit::Num(-0.0)),
                Some(&Given::Lit(&list))
            ),
            Outcome::Pass
        );
        // Short lists are searched as they are.
        let short = Lit::List(vec![Lit::Str("a".into())]);
        let p = Predicate::OneOf(Operand::Literal(short.clone()));
        assert!(Membership::of(&p, &Given::Lit(&short)).is_none());
    }

    #[test]
    fn long_lists_name_ten_items_and_count_the_rest() {
        let items = |n: usize| (0..n).map(|i| i.to_string());
        assert_eq!(super::render_list(items(0)), "");
        assert_eq!(super::render_list(items(3)), "0, 1, 2");
        assert_eq!(
            super::render_list(items(10)),
            "0, 1, 2, 3, 4, 5, 6, 7, 8, 9"
        );
        assert_eq!(
            super::render_list(items(1_000_000)),
            "0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 999990 more"
        );
    }
}
