//! Fixes: the edits that repair a finding, and how safe applying them is (ruff's `Fix`,
//! `Edit` and `Applicability`).

use super::Span;

/// Whether applying a fix can change what the job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Safety {
    /// Only tidies what the server ignores or normalises: applied by `--fix`.
    Safe,
    /// May change what the job does: applied only with `--unsafe-fixes`.
    Unsafe,
}

impl Safety {
    pub fn as_str(self) -> &'static str {
        match self {
            Safety::Safe => "safe",
            Safety::Unsafe => "unsafe",
        }
    }
}

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
