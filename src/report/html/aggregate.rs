//! The first pass over the findings: counts per rule, per folder and per file, and the few
//! findings of each rule the page shows. Findings arrive in path order and may number millions:
//! everything kept here is a count or bounded by a constant, whatever their number.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::path::{Component, Path};
use std::sync::Arc;

use crate::collect::Findings;
use crate::diagnostic::{Finding, Position, Severity};

/// How much of the findings the page shows, per rule and overall.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Findings of a rule shown with a code frame (the first, in path order).
    pub framed: usize,
    /// Findings of a rule shown on one line each, after the framed ones.
    pub listed: usize,
    /// Files in the table of the files with the most findings.
    pub top_files: usize,
    /// Folders in the breakdown; findings in folders past these are counted together.
    pub folders: usize,
    /// Characters of a message kept for a one-line entry.
    pub message_chars: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            framed: 50,
            listed: 200,
            top_files: 20,
            folders: 1000,
            message_chars: 400,
        }
    }
}

/// Counts by severity, indexed by `Severity as usize` (note, warning, error).
pub type Counts = [usize; 3];

pub fn total(counts: &Counts) -> usize {
    counts.iter().sum()
}

/// A finding shown on one line: what it takes to print it, nothing more.
#[derive(Debug)]
pub struct Line {
    pub path: Arc<str>,
    pub start: Position,
    pub severity: Severity,
    pub message: String,
    /// In a history audit: its commits, briefly.
    pub commits: Option<String>,
}

/// A finding shown with its code frame (filled in by the second pass).
#[derive(Debug)]
pub struct Framed {
    pub finding: Finding,
    /// The frame's HTML, when the file could be read again.
    pub frame: Option<String>,
}

#[derive(Debug)]
pub struct RuleGroup {
    pub id: crate::diagnostic::RuleId,
    pub counts: Counts,
    /// Files with a finding of this rule.
    pub files: usize,
    /// The number of the last file counted in `files`.
    last_file: usize,
    pub framed: Vec<Framed>,
    pub listed: Vec<Line>,
}

impl RuleGroup {
    pub fn total(&self) -> usize {
        total(&self.counts)
    }

    /// Findings neither framed nor listed.
    pub fn rest(&self) -> usize {
        self.total() - self.framed.len() - self.listed.len()
    }
}

#[derive(Debug, Default, Clone)]
pub struct Folder {
    pub counts: Counts,
    pub files: usize,
}

/// A file and its findings, ordered so that the file with the most findings is the greatest
/// (ties: the first path).
#[derive(Debug, PartialEq, Eq)]
pub struct FileCount {
    pub path: Arc<str>,
    pub counts: Counts,
}

impl Ord for FileCount {
    fn cmp(&self, other: &Self) -> Ordering {
        total(&self.counts)
            .cmp(&total(&other.counts))
            .then_with(|| other.path.cmp(&self.path))
    }
}

impl PartialOrd for FileCount {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Debug, Default)]
pub struct Aggregate {
    /// In order of first appearance; [`Aggregate::finish`] sorts them.
    pub rules: Vec<RuleGroup>,
    by_id: HashMap<crate::diagnostic::RuleId, usize>,
    pub folders: BTreeMap<String, Folder>,
    /// Findings and files in folders past [`Limits::folders`].
    pub other_folders: Folder,
    /// The files with the most findings, the fewest on top (a bounded min-heap).
    top: BinaryHeap<Reverse<FileCount>>,
    pub counts: Counts,
    pub files: usize,
    /// The file being counted: its findings are consecutive.
    current: Option<FileCount>,
    limits: Limits,
    group_depth: usize,
    /// A history audit's findings per month.
    pub timeline: super::timeline::Timeline,
}

impl Aggregate {
    /// One pass over `findings`.
    pub fn collect<F: Findings + ?Sized>(
        findings: &F,
        limits: Limits,
        group_depth: usize,
    ) -> std::io::Result<Aggregate> {
        let mut agg = Aggregate {
            limits,
            group_depth,
            ..Aggregate::default()
        };
        findings.each_batch(&mut |batch| {
            for f in batch {
                agg.add(f);
            }
            Ok(())
        })?;
        agg.end_file();
        agg.finish();
        Ok(agg)
    }

    fn add(&mut self, f: &Finding) {
        if self.current.as_ref().map(|c| &*c.path) != Some(&*f.path) {
            self.end_file();
            self.files += 1;
            self.current = Some(FileCount {
                path: f.path.clone(),
                counts: Counts::default(),
            });
        }
        let severity = f.severity as usize;
        self.counts[severity] += 1;
        self.timeline.add(f);
        if let Some(current) = self.current.as_mut() {
            current.counts[severity] += 1;
        }
        let at = match self.by_id.get(&f.rule) {
            Some(&at) => at,
            None => {
                self.by_id.insert(f.rule, self.rules.len());
                self.rules.push(RuleGroup {
                    id: f.rule,
                    counts: Counts::default(),
                    files: 0,
                    last_file: 0,
                    framed: Vec::new(),
                    listed: Vec::new(),
                });
                self.rules.len() - 1
            }
        };
        let (files, limits) = (self.files, self.limits);
        let group = &mut self.rules[at];
        group.counts[severity] += 1;
        if group.last_file != files {
            group.last_file = files;
            group.files += 1;
        }
        if group.framed.len() < limits.framed {
            let mut finding = f.clone();
            // Never shown: no need to hold it.
            finding.fix = None;
            group.framed.push(Framed {
                finding,
                frame: None,
            });
        } else if group.listed.len() < limits.listed {
            group.listed.push(Line {
                path: f.path.clone(),
                start: f.start,
                severity: f.severity,
                message: cut(&f.message, limits.message_chars),
                commits: f.history.as_ref().map(|h| crate::report::history::brief(h)),
            });
        }
    }

    /// The current file's counts go to its folder and to the top files.
    fn end_file(&mut self) {
        let Some(file) = self.current.take() else {
            return;
        };
        let folder = folder_of(&file.path, self.group_depth);
        let room = self.folders.len() < self.limits.folders;
        let entry = if room || self.folders.contains_key(&folder) {
            self.folders.entry(folder).or_default()
        } else {
            &mut self.other_folders
        };
        entry.files += 1;
        for (sum, n) in entry.counts.iter_mut().zip(file.counts) {
            *sum += n;
        }
        if self.limits.top_files == 0 {
            return;
        }
        if self.top.len() < self.limits.top_files {
            self.top.push(Reverse(file));
        } else if self.top.peek().is_some_and(|Reverse(least)| file > *least) {
            self.top.pop();
            self.top.push(Reverse(file));
        }
    }

    /// Rules with the most findings first, ties by id.
    fn finish(&mut self) {
        self.rules
            .sort_by(|a, b| b.total().cmp(&a.total()).then_with(|| a.id.cmp(&b.id)));
        self.by_id.clear();
    }

    /// The files with the most findings, the most first.
    pub fn top_files(&self) -> Vec<&FileCount> {
        let mut top: Vec<&FileCount> = self.top.iter().map(|Reverse(f)| f).collect();
        top.sort_by(|a, b| b.cmp(a));
        top
    }
}

/// `s` cut to `max` characters, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// The folder a file is counted in: the first `depth` folders of its path ("." for a file with
/// none). `project/2025-01/run-7/jobspec.json` at depth 2 is `project/2025-01`.
pub fn folder_of(path: &str, depth: usize) -> String {
    let path = Path::new(path);
    let mut folder = String::new();
    let mut taken = 0;
    // The last component is the file's own name.
    let mut components = path.components().peekable();
    while let Some(c) = components.next() {
        if components.peek().is_none() || taken == depth {
            break;
        }
        let part = match c {
            Component::Prefix(p) => {
                folder.push_str(&p.as_os_str().to_string_lossy());
                continue;
            }
            Component::RootDir => {
                folder.push('/');
                continue;
            }
            Component::CurDir => continue,
            Component::ParentDir => "..".into(),
            Component::Normal(name) => name.to_string_lossy(),
        };
        if !folder.is_empty() && !folder.ends_with('/') {
            folder.push('/');
        }
        folder.push_str(&part);
        taken += 1;
    }
    if folder.is_empty() {
        folder.push('.');
    }
    folder
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Span;

    fn finding(path: &str, rule: &str, severity: Severity, at: u32) -> Finding {
        Finding {
            severity,
            message: format!("message {at}"),
            span: Span::new(at as usize, at as usize + 1),
            ..Finding::for_tests(path, rule, 1)
        }
    }

    #[test]
    fn folders_are_the_first_components_of_the_path() {
        let cases = [
            ("jobspec.json", 2, "."),
            ("./jobspec.json", 2, "."),
            ("a/jobspec.json", 2, "a"),
            ("./a/b/c/jobspec.json", 2, "a/b"),
            ("a/b/c/jobspec.json", 1, "a"),
            ("a/b/c/jobspec.json", 3, "a/b/c"),
            ("a/b/c/jobspec.json", 9, "a/b/c"),
            ("/srv/a/b/jobspec.json", 2, "/srv/a"),
            ("../x/y/jobspec.json", 2, "../x"),
            ("-", 2, "."),
        ];
        for (path, depth, folder) in cases {
            assert_eq!(folder_of(path, depth), folder, "{path} at {depth}");
        }
    }

    #[test]
    fn counts_files_folders_and_keeps_a_bounded_sample_per_rule() {
        let limits = Limits {
            framed: 2,
            listed: 3,
            top_files: 2,
            folders: 2,
            message_chars: 4,
        };
        let mut findings = Vec::new();
        for (path, n) in [
            ("p/2025-01/a.jobspec.json", 3),
            ("p/2025-02/b.jobspec.json", 5),
            ("p/2025-03/c.jobspec.json", 1),
            ("q/d.jobspec.json", 4),
        ] {
            for at in 0..n {
                findings.push(finding(path, "r", Severity::Error, at));
            }
        }
        findings.push(finding("q/d.jobspec.json", "s", Severity::Warning, 9));
        let agg = Aggregate::collect(&findings[..], limits, 2).unwrap();
        assert_eq!(agg.counts, [0, 1, 13]);
        assert_eq!(agg.files, 4);
        let ids: Vec<&str> = agg.rules.iter().map(|r| &*r.id).collect();
        assert_eq!(ids, ["r", "s"]);
        let r = &agg.rules[0];
        assert_eq!(
            (r.total(), r.files, r.framed.len(), r.listed.len()),
            (13, 4, 2, 3)
        );
        assert_eq!(r.rest(), 8);
        assert_eq!(r.listed[0].message, "mess…");
        let folders: Vec<(&str, usize)> = agg
            .folders
            .iter()
            .map(|(k, v)| (k.as_str(), total(&v.counts)))
            .collect();
        assert_eq!(folders, [("p/2025-01", 3), ("p/2025-02", 5)]);
        assert_eq!(
            (agg.other_folders.files, total(&agg.other_folders.counts)),
            (2, 6)
        );
        let top: Vec<(&str, usize)> = agg
            .top_files()
            .iter()
            .map(|f| (&*f.path, total(&f.counts)))
            .collect();
        assert_eq!(
            top,
            [("p/2025-02/b.jobspec.json", 5), ("q/d.jobspec.json", 5)]
        );
    }
}
