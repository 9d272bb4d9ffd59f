//! How serious a finding is.

/// How serious a finding is, the least first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    /// Every severity, the least first (the order `--fail-on` compares them in).
    pub const ALL: [Severity; 3] = [Severity::Note, Severity::Warning, Severity::Error];

    /// The name rule files, configs and every output format use.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
    /// The severity named `name` ([`Severity::as_str`]).
    pub fn parse(name: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
