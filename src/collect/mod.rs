//! Collecting a run's findings in bounded memory. Findings are held until they pass a budget;
//! then they are sorted and spilled to an anonymous temporary file as a sorted run. Reports
//! read them back merged, in the order a sort of all of them would give, one batch at a time
//! (see [`Collected`]): memory is bounded by the budget, not by the findings.

mod codec;
mod encoded;
mod merge;
mod spill;

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::diagnostic::{sort_findings, Finding, RuleId};
use encoded::Encoded;
use merge::MAX_FAN_IN;
use spill::{narrow, Heads, Run, RunOut, SpillFile};

/// Findings held in memory before they are spilled, by their estimated size in bytes.
pub const SPILL_BUDGET: usize = 8 << 20;

/// The spill budget: [`SPILL_BUDGET`]. Debug builds take a smaller one from
/// `FORGELINT_SPILL_BYTES`, so the tests can spill a few findings; release builds always use
/// the constant.
fn spill_budget() -> usize {
    if cfg!(debug_assertions) {
        if let Some(n) = std::env::var("FORGELINT_SPILL_BYTES")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            return n;
        }
    }
    SPILL_BUDGET
}

/// The run's findings in sorted order (files in path order, a file's findings by position),
/// read whole in one or more passes: held in memory, or merged from sorted runs spilled to
/// disk. A reporter never holds on to a batch: memory stays bounded by one batch. A file's
/// findings are never split between two batches.
pub trait Findings: Sync {
    /// How many findings there are.
    fn count(&self) -> usize;
    /// Calls `each` with consecutive batches that together are every finding, in order: one
    /// whole pass.
    fn each_batch(
        &self,
        each: &mut dyn FnMut(&[Finding]) -> std::io::Result<()>,
    ) -> std::io::Result<()>;

    /// [`Findings::each_batch`], each batch with its text where `render` made it on the thread
    /// that read the batch (spilled findings: the merge's decoding threads, beside the merge
    /// and the writing), or `None` for the caller to render it.
    fn each_batch_rendered(
        &self,
        render: &Render<'_>,
        each: &mut EachRendered<'_>,
    ) -> std::io::Result<()> {
        let _ = render;
        self.each_batch(&mut |batch| each(batch, None))
    }

    /// Calls `each` with every file's path and number of findings, in order: one pass, which
    /// decodes no finding where they were spilled (see [`Collected`]).
    fn each_file(&self, each: &mut EachFile<'_>) -> io::Result<()> {
        files_of_batches(self, each)
    }

    /// Whether some finding may be of `rule`: `false` only when none is, so that a pass
    /// looking for that rule's findings alone can be skipped.
    fn may_hold(&self, rule: &str) -> bool {
        let _ = rule;
        true
    }
}

/// Takes a file's path and its number of findings.
pub type EachFile<'a> = dyn FnMut(&str, usize) -> io::Result<()> + 'a;

/// [`Findings::each_file`] from a pass over the findings: a file's findings may cross from
/// one batch to the next.
fn files_of_batches(
    findings: &(impl Findings + ?Sized),
    each: &mut EachFile<'_>,
) -> io::Result<()> {
    // The file in progress, by its own name (a batch is not held on to), and its count.
    let mut current: Option<(Arc<str>, usize)> = None;
    findings.each_batch(&mut |batch| {
        for run in batch.chunk_by(|a, b| a.path == b.path) {
            match &mut current {
                Some((path, n)) if **path == *run[0].path => *n += run.len(),
                _ => {
                    if let Some((path, n)) = current.replace((run[0].path.clone(), run.len())) {
                        each(&path, n)?;
                    }
                }
            }
        }
        Ok(())
    })?;
    match current {
        Some((path, n)) => each(&path, n),
        None => Ok(()),
    }
}

/// Takes a batch of findings, with its text when it was rendered beside the merge.
pub type EachRendered<'a> = dyn FnMut(&[Finding], Option<&[u8]>) -> std::io::Result<()> + 'a;

/// Renders a batch of findings into a buffer: `render(batch, before, buffer)`, where `before`
/// findings of the pass came before the batch.
pub type Render<'a> = dyn Fn(&[Finding], usize, &mut Vec<u8>) -> std::io::Result<()> + Sync + 'a;

impl Findings for Vec<Finding> {
    fn count(&self) -> usize {
        self.len()
    }

    fn may_hold(&self, rule: &str) -> bool {
        self.as_slice().may_hold(rule)
    }

    fn each_batch(
        &self,
        each: &mut dyn FnMut(&[Finding]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.as_slice().each_batch(each)
    }
}

impl Findings for [Finding] {
    fn count(&self) -> usize {
        self.len()
    }

    fn may_hold(&self, rule: &str) -> bool {
        self.iter().any(|f| *f.rule == *rule)
    }

    fn each_batch(
        &self,
        each: &mut dyn FnMut(&[Finding]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        each(self)
    }
}

/// What a pass that only counts findings learns: how many of each severity, how many with a
/// fix of each safety, and in how many files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// By severity: note, warning, error.
    pub severities: [usize; 3],
    /// Findings with a fix, by its safety: safe, unsafe.
    pub fixes: [usize; 2],
    pub files: usize,
}

impl Counts {
    /// Counts `f`, but not its file.
    fn add(&mut self, f: &Finding) {
        self.severities[f.severity as usize] += 1;
        if let Some(fix) = &f.fix {
            self.fixes[fix.safety as usize] += 1;
        }
    }

    /// Adds `other`'s counts to these.
    fn add_all(&mut self, other: &Counts) {
        for (total, n) in self.severities.iter_mut().zip(other.severities) {
            *total += n;
        }
        for (total, n) in self.fixes.iter_mut().zip(other.fixes) {
            *total += n;
        }
        self.files += other.files;
    }

    /// Counts `sorted`, findings in order: each change of path is one more file.
    fn of_sorted(sorted: &dyn Findings) -> io::Result<Counts> {
        let mut counts = Counts::default();
        let mut last_path: Option<Arc<str>> = None;
        sorted.each_batch(&mut |batch| {
            for f in batch {
                counts.add(f);
                if last_path.as_deref() != Some(&*f.path) {
                    counts.files += 1;
                    last_path = Some(f.path.clone());
                }
            }
            Ok(())
        })?;
        Ok(counts)
    }
}

/// Where the worker threads put their findings.
pub struct Spool {
    held: Mutex<Held>,
    /// The sorted runs spilled so far, each with its place in the order of arrival.
    runs: Mutex<Vec<(usize, Run)>>,
    spill_file: Mutex<SpillFile>,
    /// The first error writing a run: the run's findings would be lost, so the run fails.
    failed: Mutex<Option<io::Error>>,
    budget: usize,
    /// A run has been spilled: the findings are many, and are kept encoded from then on. A
    /// hint only (a spill writes held findings of both kinds), so relaxed loads suffice.
    spilling: AtomicBool,
}

#[derive(Default)]
struct Held {
    findings: Vec<Finding>,
    /// Findings kept since the first spill, encoded by the workers that made them.
    encoded: Encoded,
    bytes: usize,
    /// The number of runs taken so far: the next run's place.
    runs: usize,
    /// The rules of every finding kept, each once.
    rules: Vec<RuleId>,
}

impl Held {
    fn add_rules(&mut self, rules: &[RuleId]) {
        for rule in rules {
            if !self.rules.contains(rule) {
                self.rules.push(*rule);
            }
        }
    }
}

/// The rules of `findings`, each once. A file's findings of one rule mostly come together, and
/// the rules are a few dozen.
fn rules_of(findings: &[Finding]) -> Vec<RuleId> {
    let mut rules: Vec<RuleId> = Vec::new();
    add_rules_of(&mut rules, findings);
    rules
}

/// Adds to `rules` those of `findings` it does not hold yet.
fn add_rules_of(rules: &mut Vec<RuleId>, findings: &[Finding]) {
    let mut last: Option<RuleId> = None;
    for f in findings {
        if last != Some(f.rule) && !rules.contains(&f.rule) {
            rules.push(f.rule);
        }
        last = Some(f.rule);
    }
}

/// A worker's findings of a few files, on their way to one [`Spool::keep_gathered`].
#[derive(Default)]
pub struct Gathered {
    findings: Vec<Finding>,
    encoded: Encoded,
    rules: Vec<RuleId>,
}

impl Default for Spool {
    fn default() -> Spool {
        Spool::new()
    }
}

impl Spool {
    pub fn new() -> Spool {
        Spool::with_budget(spill_budget())
    }

    /// A spool that spills once it holds `budget` bytes of findings.
    pub fn with_budget(budget: usize) -> Spool {
        Spool {
            held: Mutex::default(),
            runs: Mutex::default(),
            spill_file: Mutex::default(),
            failed: Mutex::default(),
            budget,
            spilling: AtomicBool::new(false),
        }
    }

    /// Keeps one file's findings (or a few files', each file's together).
    pub fn keep(&self, mut findings: Vec<Finding>) {
        if findings.is_empty() {
            return;
        }
        let rules = rules_of(&findings);
        if self.spilling.load(Ordering::Relaxed) {
            // Encoded here, on the worker that made them, and freed here.
            match Encoded::encode(&mut findings) {
                Ok(encoded) => self.keep_encoded(encoded, &rules),
                Err(e) => self.fail(e),
            }
            return;
        }
        let bytes: usize = findings.iter().map(footprint).sum();
        let full = {
            let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
            held.add_rules(&rules);
            held.bytes += bytes;
            if held.findings.is_empty() {
                held.findings = findings;
            } else {
                held.findings.extend(findings);
            }
            self.take_if_full(&mut held)
        };
        if let Some(full) = full {
            self.spill(full);
        }
    }

    /// Adds one file's findings (or a few files', each file's together) to what a worker
    /// gathers for [`Spool::keep_gathered`]: once the spool spills they are encoded here, as
    /// they are made, and freed; a batch of files is not copied together first.
    pub fn gather(&self, gathered: &mut Gathered, mut findings: Vec<Finding>) {
        if findings.is_empty() {
            return;
        }
        add_rules_of(&mut gathered.rules, &findings);
        if !self.spilling.load(Ordering::Relaxed) {
            gathered.findings.append(&mut findings);
        } else if let Err(e) = gathered.encoded.add(&mut findings) {
            self.fail(e);
        }
    }

    /// Keeps what a worker gathered, under one lock for both kinds.
    pub fn keep_gathered(&self, gathered: Gathered) {
        let Gathered {
            findings,
            encoded,
            rules,
        } = gathered;
        if !encoded.is_empty() {
            self.keep_encoded(encoded, &rules);
        }
        if !findings.is_empty() {
            self.keep(findings);
        }
    }

    fn keep_encoded(&self, encoded: Encoded, rules: &[RuleId]) {
        let full = {
            let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
            held.add_rules(rules);
            held.bytes += encoded.bytes();
            held.encoded.append(encoded);
            self.take_if_full(&mut held)
        };
        if let Some(full) = full {
            self.spill(full);
        }
    }

    /// What is held, with its place among the runs, when it has passed the budget.
    fn take_if_full(&self, held: &mut Held) -> Option<Full> {
        if held.bytes < self.budget {
            return None;
        }
        self.spilling.store(true, Ordering::Relaxed);
        held.bytes = 0;
        held.runs += 1;
        Some(Full {
            place: held.runs - 1,
            findings: std::mem::take(&mut held.findings),
            encoded: std::mem::take(&mut held.encoded),
        })
    }

    /// Writes what was held as one sorted run, outside the lock on what is held: the other
    /// workers go on meanwhile.
    fn spill(&self, full: Full) {
        let Full {
            place,
            findings,
            encoded,
        } = full;
        let spilled = self
            .spill_file
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .append(Heads::Indexed, |out| write_held(out, findings, encoded));
        match spilled {
            Ok(run) => self
                .runs
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((place, run)),
            Err(e) => self.fail(e),
        }
    }

    /// Remembers the first error keeping findings: the run fails with it.
    fn fail(&self, e: io::Error) {
        self.failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert(e);
    }

    /// Every finding kept, sorted: in memory when nothing was spilled, else in sorted runs
    /// (what is still held is spilled too).
    pub fn finish(self) -> io::Result<Collected> {
        if let Some(e) = self.failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
        let mut held = self.held.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut runs = self.runs.into_inner().unwrap_or_else(|e| e.into_inner());
        let count = held.findings.len()
            + held.encoded.findings()
            + runs.iter().map(|(_, r)| r.count).sum::<usize>();
        if runs.is_empty() && held.encoded.is_empty() {
            sort_findings(&mut held.findings);
            return Ok(Collected {
                held: held.findings,
                runs: Vec::new(),
                count,
                hidden: None,
                rules: Vec::new(),
            });
        }
        let mut spill_file = self
            .spill_file
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        let last = spill_file.append(Heads::Indexed, |out| {
            write_held(out, held.findings, held.encoded)
        })?;
        runs.push((held.runs, last));
        runs.sort_by_key(|(place, _)| *place);
        Ok(Collected {
            held: Vec::new(),
            runs: narrow(runs.into_iter().map(|(_, run)| run).collect(), MAX_FAN_IN)?,
            count,
            hidden: None,
            rules: held.rules,
        })
    }
}

/// What a spool held when it passed its budget, and the run's place in the order of arrival.
struct Full {
    place: usize,
    findings: Vec<Finding>,
    encoded: Encoded,
}

/// Writes held findings as one sorted run; returns how many. Findings kept as they were made
/// are encoded here, each file's as one record; then the records are ordered by path.
fn write_held(
    out: &mut RunOut<'_>,
    mut findings: Vec<Finding>,
    encoded: Encoded,
) -> io::Result<usize> {
    let mut all = Encoded::encode(&mut findings)?;
    drop_elsewhere(findings);
    all.append(encoded);
    all.write_sorted(out)
}

/// The findings of a run, sorted: held in memory, or merged from the runs spilled to disk
/// each time they are read.
pub struct Collected {
    held: Vec<Finding>,
    runs: Vec<Run>,
    count: usize,
    /// Hides findings as the spilled ones are read (held ones are filtered at once): a fresh
    /// filter for each pass, so that every pass hides the same findings.
    hidden: Option<NewFilter>,
    /// The rules of the spilled findings (hidden ones too), each once.
    rules: Vec<RuleId>,
}

/// A filter of findings read in sorted order: true hides the finding. It may keep state (a
/// baseline entry hides as many findings as it counts), so each pass takes a fresh one.
pub type Filter<'a> = Box<dyn FnMut(&Finding) -> bool + 'a>;

/// Makes a fresh [`Filter`] for one pass over the findings.
pub type NewFilter = Box<dyn Fn() -> Filter<'static> + Send + Sync>;

impl Collected {
    /// Hides the findings `first` says to on the first pass, which it sees before any other;
    /// every later pass hides the same ones with a fresh filter from `again`. Returns how many
    /// are hidden. Called again (`--new-from-rev`, then a baseline, then `--max-results`), each
    /// filter sees only the findings the earlier ones left, and the passes after it hide what
    /// all of them hid.
    pub fn hide(
        &mut self,
        first: &mut dyn FnMut(&Finding) -> bool,
        again: NewFilter,
    ) -> io::Result<usize> {
        if self.runs.is_empty() {
            let before = self.held.len();
            self.held.retain(|f| !first(f));
            self.count = self.held.len();
            return Ok(before - self.held.len());
        }
        // Hidden before (`--new-from-rev`, then a baseline): this pass sees only what is left,
        // and every later pass hides both.
        let before = self.hidden.take();
        let mut earlier = before.as_ref().map(|b| b());
        let mut hidden = 0;
        merge::each_batch(&self.runs, None, &mut |batch, _| {
            for f in batch {
                let gone = earlier.as_mut().is_some_and(|e| e(f));
                hidden += usize::from(!gone && first(f));
            }
            Ok(())
        })?;
        self.count -= hidden;
        self.hidden = Some(match before {
            None => again,
            Some(before) => Box::new(move || {
                let (mut earlier, mut now) = (before(), again());
                Box::new(move |f: &Finding| earlier(f) || now(f))
            }),
        });
        Ok(hidden)
    }

    /// The findings' [`Counts`]. Spilled findings none of which is hidden are counted from
    /// their records' headers, without decoding one (a file in several runs counted once).
    pub fn counts(&self) -> io::Result<Counts> {
        if self.runs.is_empty() || self.hidden.is_some() {
            return Counts::of_sorted(self);
        }
        let mut counts = Counts::default();
        merge::each_file(&self.runs, &mut |_, file| {
            counts.add_all(&file);
            Ok(())
        })?;
        Ok(counts)
    }

    /// Whether any finding was spilled to disk.
    #[cfg(test)]
    pub fn spilled(&self) -> bool {
        !self.runs.is_empty()
    }
}

impl Findings for Collected {
    fn count(&self) -> usize {
        self.count
    }

    fn each_batch(&self, each: &mut dyn FnMut(&[Finding]) -> io::Result<()>) -> io::Result<()> {
        if self.runs.is_empty() {
            return self.held.each_batch(each);
        }
        let Some(new_filter) = &self.hidden else {
            return merge::each_batch(&self.runs, None, &mut |batch, _| each(batch));
        };
        let mut hide = new_filter();
        merge::each_batch(&self.runs, None, &mut |batch, _| {
            let shown: Vec<Finding> = batch.iter().filter(|f| !hide(f)).cloned().collect();
            if shown.is_empty() {
                return Ok(());
            }
            each(&shown)
        })
    }

    fn each_batch_rendered(
        &self,
        render: &Render<'_>,
        each: &mut EachRendered<'_>,
    ) -> io::Result<()> {
        if !self.merged_unfiltered() {
            return self.each_batch(&mut |batch| each(batch, None));
        }
        merge::each_batch(&self.runs, Some(render), each)
    }

    /// Spilled findings none of which is hidden: from the records' heads, decoding none.
    fn each_file(&self, each: &mut EachFile<'_>) -> io::Result<()> {
        if !self.merged_unfiltered() {
            return files_of_batches(self, each);
        }
        merge::each_file(&self.runs, &mut |path, counts| {
            each(path, counts.severities.iter().sum())
        })
    }

    fn may_hold(&self, rule: &str) -> bool {
        if self.runs.is_empty() {
            return self.held.may_hold(rule);
        }
        self.rules.iter().any(|r| **r == *rule)
    }
}

impl Collected {
    /// Spilled findings none of which is hidden: read through the merge, rendered beside it.
    fn merged_unfiltered(&self) -> bool {
        !self.runs.is_empty() && self.hidden.is_none()
    }
}

impl Drop for Collected {
    fn drop(&mut self) {
        drop_elsewhere(std::mem::take(&mut self.held));
    }
}

/// An estimate of the memory a finding holds, its own and what it owns.
fn footprint(f: &Finding) -> usize {
    std::mem::size_of::<Finding>()
        + f.message.capacity()
        + f.pointer.capacity()
        + f.help.as_ref().map_or(0, String::capacity)
        + f.related
            .iter()
            .map(|r| std::mem::size_of_val(r) + r.label.capacity())
            .sum::<usize>()
        + f.fix.as_ref().map_or(0, |fix| {
            fix.edits
                .iter()
                .map(|e| std::mem::size_of_val(e) + e.replacement.capacity())
                .sum()
        })
}

/// Frees `findings` on a thread of their own: an audit's tens of thousands of findings take
/// milliseconds to free, and the run need not wait for that.
pub fn drop_elsewhere(findings: Vec<Finding>) {
    if findings.len() < 1024 {
        return;
    }
    // A thread that cannot be started hands the closure back dropped: freed here, as before.
    let _ = std::thread::Builder::new().spawn(move || drop(findings));
}

#[cfg(test)]
mod tests;
