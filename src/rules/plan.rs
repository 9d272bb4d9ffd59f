//! A compact summary of a rule's checks, read for every file before the checks themselves; and
//! what context (catalog, registries, quota) a check and a rule need to run at all.
//!
//! Most checks of most files pass. For the commonest kinds (a `type`, `present` or `non-empty`
//! check without conditions) whether one passes can be told from the resolved values' kinds
//! alone: a few bytes per check in one small array, instead of a walk through the check's
//! compiled form (hundreds of bytes each, a cache miss apiece on a busy worker).

use super::{Assertion, Check, Condition, JsonType, Needs, Operand, Predicate, Setting};
use crate::json::{is_integer_literal, Value};
use crate::select::{Resolutions, NO_ID};

/// What the plan knows of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The check's selector id (`u32::MAX`: not shared, nothing decided here).
    selector: u32,
    /// The context the check needs (`NEEDS_*` bits).
    pub needs: u8,
    quick: Quick,
    gate: Gate,
}

/// The check's conditions (`when`), when the plan can decide them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gate {
    /// No conditions.
    Open,
    /// One condition: this shared selector is `non-empty` (the commonest one).
    NonEmpty(u32),
    /// Only the check itself can tell.
    Other,
}

/// Whether a check's conditions hold for a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Holds,
    Fails,
    /// Only the check itself can tell.
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quick {
    /// Only the check itself can tell.
    No,
    /// A `type` check: one `TYPE_*` bit per accepted type.
    Type(u8),
    Present,
    NonEmpty,
    /// A `keys` check, numbered across the rule set: the selector table tells whether every
    /// object it selected has only allowed keys, from the scan it makes anyway.
    Keys(u32),
}

pub const NEEDS_CATALOG: u8 = 1;
pub const NEEDS_REGISTRIES: u8 = 2;
pub const NEEDS_QUOTA: u8 = 4;

const TYPE_STRING: u8 = 1;
const TYPE_INTEGER: u8 = 2;
const TYPE_NUMBER: u8 = 4;
const TYPE_BOOLEAN: u8 = 8;
const TYPE_ARRAY: u8 = 16;
const TYPE_OBJECT: u8 = 32;
const TYPE_NULL: u8 = 64;

pub fn needs_bits(needs: Needs) -> u8 {
    (needs.catalog as u8 * NEEDS_CATALOG)
        | (needs.registries as u8 * NEEDS_REGISTRIES)
        | (needs.quota as u8 * NEEDS_QUOTA)
}

fn operand_needs(op: &Operand) -> Needs {
    match op {
        Operand::Fact(_) => Needs {
            catalog: true,
            ..Needs::default()
        },
        Operand::Setting(Setting::Registries) => Needs {
            registries: true,
            ..Needs::default()
        },
        Operand::Setting(Setting::GpuQuota) => Needs {
            quota: true,
            ..Needs::default()
        },
        _ => Needs::default(),
    }
}

/// The context a check's assertion needs.
pub fn assertion_needs(a: &Assertion) -> Needs {
    match a {
        Assertion::Predicate(p) => super::predicate::predicate_operand(p)
            .map(operand_needs)
            .unwrap_or_default(),
        Assertion::Function(f) => f.needs(),
        _ => Needs::default(),
    }
}

/// Catalog facts in top-level `when` conditions: without a catalog they can never hold.
fn when_needs(when: &[Condition]) -> Needs {
    let mut needs = Needs::default();
    for c in when {
        if let Condition::Fact(_, p) = c {
            if !matches!(p, Predicate::Absent | Predicate::Empty) {
                needs.catalog = true;
            }
        }
    }
    needs
}

/// The context a check needs to run and to have its conditions hold.
pub fn check_needs(check: &Check) -> Needs {
    check.needs.union(when_needs(&check.when))
}

/// The context a rule needs: what every one of its checks needs, with their conditions (a
/// check that can run without some context makes the rule useful without it).
pub fn rule_needs(checks: &[Check]) -> Needs {
    checks
        .iter()
        .map(check_needs)
        .reduce(|a, b| Needs {
            catalog: a.catalog && b.catalog,
            registries: a.registries && b.registries,
            quota: a.quota && b.quota,
        })
        .unwrap_or_default()
}

/// The plan of `checks`, one step each, in order. `keys` checks are numbered from `next_keys`,
/// which counts on across the rules of a set.
pub fn plan_of(checks: &[Check], next_keys: &mut u32) -> Vec<Step> {
    checks.iter().map(|c| step_of(c, next_keys)).collect()
}

fn step_of(check: &Check, next_keys: &mut u32) -> Step {
    // `Quick::Type` is exactly the checks of `faults::defines_faults`: the faults are found
    // from these steps before the rules run.
    let quick = match &check.assertion {
        _ if !check.when.is_empty() || check.select.id == NO_ID => Quick::No,
        Assertion::Keys(_) => {
            *next_keys += 1;
            Quick::Keys(*next_keys - 1)
        }
        Assertion::Predicate(Predicate::Type(types)) => Quick::Type(
            types
                .iter()
                .map(|t| match t {
                    JsonType::String => TYPE_STRING,
                    JsonType::Integer => TYPE_INTEGER,
                    JsonType::Number => TYPE_NUMBER,
                    JsonType::Boolean => TYPE_BOOLEAN,
                    JsonType::Array => TYPE_ARRAY,
                    JsonType::Object => TYPE_OBJECT,
                    JsonType::Null => TYPE_NULL,
                })
                .fold(0, |a, b| a | b),
        ),
        Assertion::Predicate(Predicate::Present) => Quick::Present,
        Assertion::Predicate(Predicate::NonEmpty) => Quick::NonEmpty,
        _ => Quick::No,
    };
    let gate = match check.when.as_slice() {
        [] => Gate::Open,
        [Condition::Select(sel, Predicate::NonEmpty)] if sel.id != NO_ID => {
            u32::try_from(sel.id).map_or(Gate::Other, Gate::NonEmpty)
        }
        _ => Gate::Other,
    };
    Step {
        selector: u32::try_from(check.select.id).unwrap_or(u32::MAX),
        needs: needs_bits(check.needs),
        quick,
        gate,
    }
}

impl Step {
    /// The accepted types (`TYPE_*` bits) of a `type` check that defines faults (see
    /// [`super::faults::defines_faults`]).
    #[inline]
    pub fn type_mask(&self) -> Option<u8> {
        match self.quick {
            Quick::Type(mask) => Some(mask),
            _ => None,
        }
    }

    /// The check's shared selector id, if it has one.
    pub fn selector_id(&self) -> Option<usize> {
        (self.selector != u32::MAX).then_some(self.selector as usize)
    }

    /// The number of this step's `keys` check, if it is one the selector table can settle.
    pub fn keys_id(&self) -> Option<u32> {
        match self.quick {
            Quick::Keys(id) => Some(id),
            _ => None,
        }
    }

    /// Do the check's conditions hold on a document with these resolutions?
    #[inline]
    pub fn when(&self, doc: &crate::json::Document<'_>, resolved: &Resolutions) -> When {
        match self.gate {
            Gate::Open => When::Holds,
            Gate::Other => When::Unknown,
            Gate::NonEmpty(selector) => match resolved.get(selector as usize) {
                // As `holds` decides it: something found, nothing missing, nothing empty.
                Some(res) => {
                    if !res.found.is_empty()
                        && res.missing.is_empty()
                        && res.found.iter().all(|m| !is_empty_value(doc.value(m.node)))
                    {
                        When::Holds
                    } else {
                        When::Fails
                    }
                }
                None => When::Unknown,
            },
        }
    }

    /// Does the check certainly pass on a document with these resolutions? `false` when it
    /// fails or when only the check can tell.
    #[inline]
    pub fn passes(&self, doc: &crate::json::Document<'_>, resolved: &Resolutions) -> bool {
        match self.quick {
            Quick::No => return false,
            Quick::Keys(id) => return resolved.keys_clean(id as usize) == Some(true),
            _ => {}
        }
        let Some(res) = resolved.get(self.selector as usize) else {
            return false;
        };
        match self.quick {
            Quick::Type(mask) => res
                .found
                .iter()
                .all(|m| type_matches(mask, doc.value(m.node))),
            Quick::Present => res.missing.is_empty(),
            Quick::NonEmpty => {
                res.missing.is_empty()
                    && res.found.iter().all(|m| !is_empty_value(doc.value(m.node)))
            }
            Quick::No | Quick::Keys(_) => false,
        }
    }
}

/// `null`, `""`, `[]` or `{}`: what `non-empty` refuses.
#[inline]
fn is_empty_value(value: &Value<'_>) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array { len, .. } | Value::Object { len, .. } => *len == 0,
        Value::Bool(_) | Value::Number(_) => false,
    }
}

/// Is `value` of one of the `mask` types? `null` always passes: it stands for "not set" and
/// is left to the rules about required fields.
#[inline]
pub fn type_matches(mask: u8, value: &Value<'_>) -> bool {
    let bit = match value {
        Value::String(_) => TYPE_STRING,
        Value::Number(raw) => {
            if mask & TYPE_NUMBER != 0 {
                return true;
            }
            return mask & TYPE_INTEGER != 0 && is_integer_literal(raw);
        }
        Value::Bool(_) => TYPE_BOOLEAN,
        Value::Array { .. } => TYPE_ARRAY,
        Value::Object { .. } => TYPE_OBJECT,
        Value::Null => return true,
    };
    mask & bit != 0
}
