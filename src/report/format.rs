//! The output formats, by name: what `--format` accepts and what [`super::write`] dispatches on.

/// One output format. The command line names them; the reporters own them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// miette reports with a code frame.
    #[default]
    Human,
    /// One line per finding: `path:line:col: severity[rule] message`.
    Concise,
    /// One JSON document with every finding and a summary.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// JSON Lines: one finding (as in json) per line, then a summary line.
    Jsonl,
    /// JUnit XML, for CI test reports: one test suite per file, one failure per finding.
    Junit,
    /// A GitLab Code Quality report (`artifacts:reports:codequality`).
    Gitlab,
    /// A self-contained HTML audit page: totals, a chart, findings by rule with code frames.
    Html,
}

impl Format {
    /// Every format, in the order `--help` and errors list them.
    pub const ALL: [Format; 9] = [
        Format::Human,
        Format::Concise,
        Format::Json,
        Format::Sarif,
        Format::Github,
        Format::Jsonl,
        Format::Junit,
        Format::Gitlab,
        Format::Html,
    ];

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Human => "human",
            Format::Concise => "concise",
            Format::Json => "json",
            Format::Sarif => "sarif",
            Format::Github => "github",
            Format::Jsonl => "jsonl",
            Format::Junit => "junit",
            Format::Gitlab => "gitlab",
            Format::Html => "html",
        }
    }

    /// The format named `name`, in any case.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    /// Whether `--statistics` has a place in it: SARIF, GitHub annotations, JUnit and GitLab
    /// reports have none for counts per rule.
    pub fn takes_statistics(self) -> bool {
        !matches!(
            self,
            Format::Sarif | Format::Github | Format::Junit | Format::Gitlab
        )
    }
}
