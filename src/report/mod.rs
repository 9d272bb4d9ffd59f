//! Reporters: one function per output format behind one `match`.

mod chunked;
pub mod concise;
mod format;
pub mod github;
pub mod gitlab;
pub mod history;
pub mod html;
pub mod human;
pub mod json;
pub mod jsonl;
pub mod junit;
pub mod sarif;
pub mod statistics;

pub use format::Format;

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::collect::Findings;
#[cfg(test)]
use crate::diagnostic::Finding;
use crate::diagnostic::LineIndex;
use crate::rules::Rule;
use crate::secrets::{Detector, Secrets};

/// Findings read in batches of a given size, for the writers' tests: a file's findings, and
/// identical findings, cross from one batch to the next.
#[cfg(test)]
struct BatchedForTests<'a>(&'a [Finding], usize);

#[cfg(test)]
impl Findings for BatchedForTests<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }

    fn each_batch(
        &self,
        each: &mut dyn FnMut(&[Finding]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.0.chunks(self.1).try_for_each(each)
    }
}

/// A related place with a span and positions at their limits, for the writers' tests.
#[cfg(test)]
fn related_for_tests(label: &str) -> crate::diagnostic::Related {
    use crate::diagnostic::Position;
    crate::diagnostic::Related {
        path: None,
        span: crate::diagnostic::Span::new(3, 9),
        start: Position { line: 2, column: 1 },
        end: Position {
            line: u32::MAX,
            column: 7,
        },
        label: label.to_string(),
    }
}

/// At most this many findings get a graphical frame; the rest are printed one per line, so a
/// huge audit stays fast and nothing is dropped.
pub const MAX_GRAPHICAL: usize = 200;

/// What a run amounts to, for the summary line and the exit code.
#[derive(Debug, Default, Clone)]
pub struct Summary {
    pub files: usize,
    /// Of `files`, experiment files skipped as binary (or not UTF-8).
    pub binary: usize,
    pub files_with_findings: usize,
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
    pub elapsed: Duration,
    /// With `--baseline`: findings hidden, and entries that matched nothing.
    pub baseline: Option<crate::baseline::Applied>,
    /// Some path could not be linted (exit 2): the line must not say "All clear".
    pub incomplete: bool,
    /// Rules that ran on nothing for want of context, one group per reason.
    pub skipped: Vec<Skipped>,
    pub fixes: Fixes,
    /// `--max-results`: the findings it left out of the reports, when it left some.
    pub left_out: Option<LeftOut>,
    /// A history audit: what it read of git (`files` counts the versions linted).
    pub history: Option<HistoryRead>,
    /// `--new-from-rev`: the findings hidden because the files had them at the revision.
    pub new_from_rev: Option<SinceRev>,
}

/// What `--max-results N` left out: the findings past the N most severe. The counts of the
/// summary (errors, warnings, notes, files) are of every finding; the reports list the N.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LeftOut {
    /// N.
    pub max_results: usize,
    /// Findings not in the reports.
    pub findings: usize,
}

impl LeftOut {
    /// "120 findings are left out of the report: --max-results 25000 keeps the most severe"
    /// (no full stop).
    pub fn text(&self) -> String {
        let verb = if self.findings == 1 { "is" } else { "are" };
        format!(
            "{} {verb} left out of the report: --max-results {} keeps the most severe",
            plural(self.findings, "finding"),
            self.max_results
        )
    }
}

/// What a history audit read of git, for the summary.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HistoryRead {
    pub commits: usize,
    /// Distinct versions of files linted.
    pub versions: usize,
    /// Where history stops (a shallow clone): the commits whose parents are not in the clone.
    pub shallow: Vec<String>,
    /// Submodules met, not read: their history is another repository's.
    pub submodules: Vec<String>,
    /// Files whose versions were Git LFS pointers, not read: their content is not in git.
    pub lfs: Vec<String>,
}

/// `--new-from-rev REV`: the findings the files had at REV, hidden.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SinceRev {
    pub rev: String,
    pub hidden: usize,
}

/// Fixes applied by the run (`--fix`), and those its findings offer that it did not apply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Fixes {
    pub applied: usize,
    /// Not applied: safe fixes (without `--fix`), and unsafe ones (without `--unsafe-fixes`).
    pub safe_available: usize,
    pub unsafe_available: usize,
}

impl Fixes {
    pub fn is_none(&self) -> bool {
        *self == Fixes::default()
    }

    /// The line after the summary that says what was fixed and what more could be, if any:
    /// "Fixed 3 findings; 2 more are fixable with --unsafe-fixes."
    pub fn line(&self, fix_flag: bool) -> Option<String> {
        let mut parts = Vec::new();
        if self.applied > 0 {
            parts.push(format!("Fixed {}", plural(self.applied, "finding")));
        }
        if self.safe_available > 0 {
            parts.push(format!(
                "{} fixable with --fix",
                plural(self.safe_available, "finding")
            ));
        }
        if self.unsafe_available > 0 {
            let with = if fix_flag {
                "--unsafe-fixes"
            } else {
                "--fix --unsafe-fixes"
            };
            let more = if self.applied + self.safe_available > 0 {
                " more"
            } else {
                ""
            };
            let n = self.unsafe_available;
            let word = if n == 1 { "finding" } else { "findings" };
            parts.push(format!("{n}{more} {word} fixable with {with}"));
        }
        (!parts.is_empty()).then(|| format!("{}.", parts.join("; ")))
    }
}

/// Rules that could not run at all, and why: "no catalog", set by "[platform] catalog".
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    pub reason: String,
    /// The configuration that would make them run.
    pub setting: String,
    /// Their ids, in run order.
    pub rules: Vec<String>,
}

impl Skipped {
    /// "4 rules skipped: no catalog — set [platform] catalog (recipe-unknown, …)", without a
    /// full stop; at most [`Skipped::NAMED`] ids are named.
    pub fn text(&self) -> String {
        let mut ids: Vec<String> = self
            .rules
            .iter()
            .take(Self::NAMED)
            .map(|id| crate::escape::visible(id).into_owned())
            .collect();
        if self.rules.len() > Self::NAMED {
            ids.push(format!("… {} more", self.rules.len() - Self::NAMED));
        }
        format!(
            "{} skipped: {} — set {} ({})",
            plural(self.rules.len(), "rule"),
            self.reason,
            self.setting,
            ids.join(", ")
        )
    }

    const NAMED: usize = 8;
}

impl Summary {
    pub fn line(&self) -> String {
        let ms = self.elapsed.as_secs_f64() * 1000.0;
        let time = if ms < 1000.0 {
            format!("{ms:.1} ms")
        } else {
            format!("{:.2} s", ms / 1000.0)
        };
        let baseline = match self.baseline {
            Some(b) => format!(
                " {} hidden by the baseline; {} {} stale.",
                plural(b.hidden, "finding"),
                b.stale,
                if b.stale == 1 {
                    "baseline entry is"
                } else {
                    "baseline entries are"
                }
            ),
            None => String::new(),
        };
        let baseline = match &self.new_from_rev {
            Some(since) => format!(
                "{baseline} {} hidden: the files had {} at {}.",
                plural(since.hidden, "finding"),
                if since.hidden == 1 { "it" } else { "them" },
                crate::escape::visible(&since.rev)
            ),
            None => baseline,
        };
        let files = match (&self.history, self.binary) {
            (Some(h), _) => format!(
                "{} ({})",
                plural(h.versions, "file version"),
                plural(h.commits, "commit")
            ),
            (None, 0) => plural(self.files, "file"),
            (None, binary) => format!("{} ({binary} binary skipped)", plural(self.files, "file")),
        };
        if self.errors + self.warnings + self.notes == 0 && self.incomplete {
            return format!(
                "No findings in {files} checked, but not every path could be linted: see the errors above ({time}).{baseline}"
            );
        }
        if self.errors + self.warnings + self.notes == 0 {
            return format!("All clear: {files} checked, no findings ({time}).{baseline}");
        }
        let left_out = match self.left_out {
            Some(left) => format!(" {}.", left.text()),
            None => String::new(),
        };
        let mut parts = vec![
            plural(self.errors, "error"),
            plural(self.warnings, "warning"),
        ];
        if self.notes > 0 {
            parts.push(plural(self.notes, "note"));
        }
        format!(
            "Found {} in {} of {files} checked ({time}).{baseline}{left_out}",
            parts.join(", "),
            self.files_with_findings,
        )
    }
}

/// `n word`, with an `s` unless `n` is 1.
pub fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// A file's text as code frames show it: with its secrets, found in the text itself (not among
/// the findings), which every frame masks.
pub struct Source {
    pub text: Arc<str>,
    pub secrets: Secrets,
}

impl Source {
    pub fn new(text: Arc<str>, detector: &Detector) -> Source {
        let secrets = detector.find(&text);
        Source { text, secrets }
    }
}

/// Where the text of a file with findings comes from when a format shows code frames.
pub trait Sources {
    /// The text `finding`'s span is in (its file's, and in a history audit its version's), with
    /// its secrets; `None` when it cannot be read again.
    fn source(&self, finding: &crate::diagnostic::Finding) -> Option<Source>;
}

pub struct ReportOptions {
    pub format: Format,
    pub color: bool,
    pub width: usize,
    /// `--group-depth`: the folders of the HTML report's breakdown.
    pub group_depth: usize,
    /// The folder the report is written to (its file's); `None` for standard output, taken
    /// to be the working folder. The HTML report's links to policy files are relative to it.
    pub dir: Option<std::path::PathBuf>,
}

/// Everything a reporter may need; `findings` are sorted.
pub struct ReportInput<'a> {
    pub findings: &'a dyn Findings,
    pub summary: &'a Summary,
    /// The rules that ran, by id.
    pub rules: &'a [&'a Rule],
    /// The working folder: findings name their files from it.
    pub cwd: &'a Path,
    /// The folder GitHub annotations and SARIF name files from (SARIF's `%SRCROOT%`):
    /// `GITHUB_WORKSPACE` when the working folder is in it, else the git work tree's root,
    /// else the working folder. GitHub attaches an annotation or a result only to a path
    /// relative to the repository.
    pub root: &'a Path,
    /// `--statistics`: counts per rule instead of (human, concise) or beside (json) findings.
    pub statistics: bool,
    /// The run could not do its whole job (exit 2).
    pub tool_error: bool,
    /// Threads that may render a long report (`-j`).
    pub threads: usize,
}

impl ReportInput<'_> {
    /// A finding's `path` (named from the working folder, or absolute) from [`Self::root`]
    /// when it lies under it, with `/` between its folders; as it is otherwise.
    pub fn path_from_root<'p>(&self, path: &'p str) -> std::borrow::Cow<'p, str> {
        if self.root == self.cwd && !path.starts_with("..") && !Path::new(path).is_absolute() {
            return path.into();
        }
        let absolute = crate::paths::normalize(Path::new(path), self.cwd);
        match absolute.strip_prefix(self.root) {
            Ok(inside) if !inside.as_os_str().is_empty() => {
                let from = crate::paths::ShownFrom::as_given();
                String::from(&*crate::paths::shown(inside, from)).into()
            }
            _ => path.into(),
        }
    }
}

/// The one dispatch point over output formats.
pub fn write(
    out: &mut dyn Write,
    input: &ReportInput<'_>,
    sources: &dyn Sources,
    opts: &ReportOptions,
) -> std::io::Result<()> {
    let findings = input.findings;
    match opts.format {
        Format::Human | Format::Concise if input.statistics => {
            statistics::write_table(out, findings)
        }
        Format::Json => json::write(out, input),
        Format::Sarif => sarif::write(out, input),
        Format::Github => github::write(out, input),
        Format::Html => {
            let links_from = opts.dir.as_deref().unwrap_or(input.cwd);
            html::write(out, input, sources, opts.group_depth, links_from)
        }
        Format::Jsonl => jsonl::write(out, input),
        Format::Junit => junit::write(out, input),
        Format::Gitlab => gitlab::write(out, input),
        Format::Concise => concise::write(out, findings, input.threads),
        Format::Human => write_human(out, input, sources, opts),
    }
}

/// Code frames for the first [`MAX_GRAPHICAL`] findings, then one line per finding.
fn write_human(
    out: &mut dyn Write,
    input: &ReportInput<'_>,
    sources: &dyn Sources,
    opts: &ReportOptions,
) -> std::io::Result<()> {
    let renderer = human::HumanRenderer::new(&human::HumanOptions {
        color: opts.color,
        width: opts.width,
    });
    let total = input.findings.count();
    let mut shown = 0;
    input.findings.each_batch(&mut |batch| {
        let framed = batch.len().min(MAX_GRAPHICAL.saturating_sub(shown));
        let (with_frames, rest) = batch.split_at(framed);
        for group in with_frames.chunk_by(|a, b| a.same_source(b)) {
            // The text of the file (or of its version), loaded once, with its secrets.
            let loaded = sources.source(&group[0]).map(|source| {
                let index = LineIndex::new(&source.text);
                (source, index)
            });
            for f in group {
                let source = loaded.as_ref().map(|(s, i)| (s, i));
                renderer.render(out, f, source)?;
                writeln!(out)?;
            }
        }
        if shown < MAX_GRAPHICAL && shown + batch.len() >= MAX_GRAPHICAL && total > MAX_GRAPHICAL
        {
            writeln!(
                out,
                "{} more findings, one per line (code frames are shown for the first {MAX_GRAPHICAL}):",
                total - MAX_GRAPHICAL
            )?;
        }
        shown += batch.len();
        concise::write_slice(out, rest, input.threads)
    })
}
