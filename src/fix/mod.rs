//! Fixes: the edits that fix a finding, made on the spec's own bytes so that every other byte
//! (indentation, key order, a minified line) stays as it was. [`edits`] turns a rule's fix into
//! edits for one finding; [`apply`] applies the fixes of a file's findings and checks the
//! result; [`diff`] shows what would change.

pub mod apply;
pub mod diff;
mod edits;
pub mod write;

pub use crate::rules::fix::Safety;
pub use edits::fix_for;

use crate::json::Span;

/// Replace the bytes of `span` with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
}

/// The edits that fix one finding, all applied or none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub safety: Safety,
    /// In position order, not overlapping.
    pub edits: Vec<Edit>,
}

/// Which fixes a run applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applicability {
    /// `--fix`: safe fixes.
    Safe,
    /// `--fix --unsafe-fixes`: every fix.
    All,
}

impl Applicability {
    pub fn takes(self, safety: Safety) -> bool {
        self == Applicability::All || safety == Safety::Safe
    }
}
