//! `fix` and `fix-safety`: on a check, or at the top of the rule file for all its checks.

use std::sync::Arc;

use toml::Spanned;

use super::{Compiler, Result};
use crate::diagnostic::Safety;
use crate::rules::fix::{self, FixAction, FixSpec, RawFix, FIX_NAMES};
use crate::rules::schema::RawClause;
use crate::rules::{Assertion, Target};

impl Compiler<'_> {
    /// The fix of a check: its own `fix` and `fix-safety`, else the rule's. Only jobspec rules
    /// have fixes: their edits are JSON.
    pub(super) fn fix(&self, c: &RawClause, assertion: &Assertion) -> Result<Option<Arc<FixSpec>>> {
        let raw = c.fix.as_ref().or(self.default_fix);
        let safety = c.fix_safety.as_ref().or(self.default_fix_safety);
        let Some(raw) = raw else {
            if let Some(s) = safety {
                return Err(self.err(s.span(), "`fix-safety` goes with `fix`"));
            }
            return Ok(None);
        };
        if self.target != Target::Jobspec {
            return Err(self.err(raw.span(), "fixes are for jobspec rules"));
        }
        let action = self.fix_action(raw, assertion)?;
        let safety = match safety {
            None => Safety::Unsafe,
            Some(s) => fix::parse_safety(s).ok_or_else(|| {
                self.unknown(
                    s.span(),
                    "fix-safety",
                    s.get_ref(),
                    ["safe", "unsafe"].into_iter(),
                )
            })?,
        };
        Ok(Some(Arc::new(FixSpec { action, safety })))
    }

    fn fix_action(&self, raw: &Spanned<RawFix>, assertion: &Assertion) -> Result<FixAction> {
        match raw.get_ref() {
            RawFix::Set { set } => fix::parse_set(set)
                .map(FixAction::Set)
                .map_err(|(_, m)| self.err(raw.span(), m)),
            RawFix::Named(name) => match name.as_str() {
                "remove" => Ok(FixAction::Remove),
                "lowercase" => Ok(FixAction::Lowercase {
                    must_pass: match assertion {
                        Assertion::Predicate(p) => Some(p.clone()),
                        _ => None,
                    },
                }),
                "rename-to-suggestion" if matches!(assertion, Assertion::Keys(_)) => {
                    Ok(FixAction::RenameToSuggestion)
                }
                "rename-to-suggestion" => Err(self.err(
                    raw.span(),
                    "`rename-to-suggestion` goes with a `keys` check (its did-you-mean)",
                )),
                other => Err(self.unknown(
                    raw.span(),
                    "fix",
                    other,
                    FIX_NAMES.iter().copied().chain(["{ set = \"…\" }"]),
                )),
            },
        }
    }
}
