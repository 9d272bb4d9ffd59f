//! The run form of a pattern (see [`Runs`]): made from its parse, at build time for the built-in
//! rules' patterns (written as bytes, [`Runs::write`]) and at first use for a rule file's.

use regex_syntax::hir::{Class, ClassUnicodeRange, Hir, HirKind, Look};

use super::{Reader, Writer};

/// Patterns of more runs than this are left to the regex.
const MAX_RUNS: usize = 256;

/// Patterns of more alternatives than this are left to the regex, whose time is linear in the
/// text whatever the pattern.
const MAX_BRANCHES: usize = 16;

/// A set of bytes, as a table: one load per test.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct ByteSet([bool; 256]);

impl ByteSet {
    const EMPTY: ByteSet = ByteSet([false; 256]);

    /// The ASCII bytes of a class. A run of it stops at a byte past 0x7F, so on other text it
    /// takes only what the class holds (and a miss there is left to the regex).
    fn ascii_of(class: &Class) -> ByteSet {
        let mut set = ByteSet::EMPTY;
        let mut add = |start: u32, end: u32| {
            for b in start..=end.min(0x7F) {
                set.0[b as usize] = true;
            }
        };
        match class {
            Class::Unicode(c) => c.iter().for_each(|r| add(r.start() as u32, r.end() as u32)),
            Class::Bytes(c) => c.iter().for_each(|r| add(r.start() as u32, r.end() as u32)),
        }
        set
    }

    fn byte(b: u8) -> ByteSet {
        let mut set = ByteSet::EMPTY;
        set.0[b as usize] = true;
        set
    }

    fn overlaps(&self, other: &ByteSet) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| *a && *b)
    }

    fn add(&mut self, other: &ByteSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= *b;
        }
    }

    #[inline(always)]
    pub(crate) fn contains(&self, b: u8) -> bool {
        self.0[b as usize]
    }

    /// Whether a byte of `text` is in the set.
    #[inline(always)]
    pub(crate) fn any_in(&self, text: &[u8]) -> bool {
        // Eight table loads joined, one branch per eight bytes: the text is usually clean.
        let mut chunks = text.chunks_exact(8);
        chunks
            .by_ref()
            .any(|chunk| chunk.iter().fold(false, |any, &b| any | self.contains(b)))
            || chunks.remainder().iter().any(|&b| self.contains(b))
    }
}

impl std::fmt::Debug for ByteSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bytes: String = (0..0x80u8)
            .filter(|&b| self.contains(b))
            .flat_map(|b| std::ascii::escape_default(b).map(char::from))
            .collect();
        write!(f, "[{bytes}]")
    }
}

/// `min..=max` bytes of a set (`max` is `u32::MAX` for no bound).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Run {
    pub(crate) set: ByteSet,
    pub(crate) min: u32,
    pub(crate) max: u32,
    /// The class holds every character, not only the ASCII ones of `set`: only such a run may
    /// be skipped over text the set says nothing about (a "contains" branch).
    every_char: bool,
}

impl Run {
    fn of_class(class: &Class, min: u32, max: Option<u32>) -> Run {
        Run {
            set: ByteSet::ascii_of(class),
            min,
            max: max.unwrap_or(u32::MAX),
            every_char: holds_every_char(class),
        }
    }

    fn of_byte(b: u8, min: u32, max: Option<u32>) -> Run {
        Run {
            set: ByteSet::byte(b),
            min,
            max: max.unwrap_or(u32::MAX),
            every_char: false,
        }
    }
}

/// `(?s:.)`, `[\s\S]`, `\p{Any}`: a set of all 128 ASCII bytes is not enough (`[\x00-\x7F]`).
fn holds_every_char(class: &Class) -> bool {
    match class {
        // Ranges are kept sorted and merged: every character is one range.
        Class::Unicode(c) => c.ranges() == [ClassUnicodeRange::new('\0', char::MAX)],
        // A byte class of a UTF-8 pattern holds ASCII bytes only.
        Class::Bytes(_) => false,
    }
}

/// One alternative for the text after the head.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Branch {
    /// These runs, each as long as it can be; `end`: they must reach the end of the text.
    Runs {
        runs: Vec<Run>,
        end: bool,
        /// Lengths the branch can match, to skip it at once on a text that cannot fit.
        min_len: usize,
        max_len: usize,
    },
    /// A byte of the set somewhere in the rest (`(?s:.)*[set](?s:.)*`).
    Contains(Box<ByteSet>),
}

/// A pattern that is runs of byte sets: `^head(branch|branch|...)`, or an unanchored single
/// class (the text contains a byte of it).
#[derive(Debug, PartialEq, Eq)]
pub struct Runs {
    pub(crate) anchored: bool,
    /// The head's leading single bytes, compared at once (`sha256:`).
    pub(crate) prefix: Box<[u8]>,
    pub(crate) head: Vec<Run>,
    pub(crate) branches: Vec<Branch>,
}

/// The pattern flattened: runs, anchors, and at most one alternation.
#[derive(Debug, Clone)]
enum Part {
    Run(Box<Run>),
    Start,
    End,
    Either(Vec<Vec<Part>>),
}

fn run_part(run: Run) -> Part {
    Part::Run(Box::new(run))
}

/// Flattens `hir` into parts, or `None` for anything else (word boundaries, line anchors,
/// repeated groups, non-ASCII literals).
fn flatten(hir: &Hir, out: &mut Vec<Part>) -> Option<()> {
    match hir.kind() {
        HirKind::Empty => {}
        HirKind::Literal(lit) => {
            for &b in lit.0.iter() {
                if !b.is_ascii() {
                    return None;
                }
                out.push(run_part(Run::of_byte(b, 1, Some(1))));
            }
        }
        HirKind::Class(class) => out.push(run_part(Run::of_class(class, 1, Some(1)))),
        HirKind::Look(Look::Start) => out.push(Part::Start),
        HirKind::Look(Look::End) => out.push(Part::End),
        HirKind::Look(_) => return None,
        HirKind::Repetition(rep) => match rep.sub.kind() {
            HirKind::Class(class) => out.push(run_part(Run::of_class(class, rep.min, rep.max))),
            HirKind::Literal(lit) if lit.0.len() == 1 && lit.0[0].is_ascii() => {
                out.push(run_part(Run::of_byte(lit.0[0], rep.min, rep.max)))
            }
            // `(group)?`: the group or nothing.
            _ if rep.min == 0 && rep.max == Some(1) => {
                let mut inner = Vec::new();
                flatten(&rep.sub, &mut inner)?;
                out.push(Part::Either(vec![inner, Vec::new()]));
            }
            _ => return None,
        },
        HirKind::Capture(capture) => flatten(&capture.sub, out)?,
        HirKind::Concat(hirs) => {
            for h in hirs {
                flatten(h, out)?;
            }
        }
        HirKind::Alternation(hirs) => {
            let mut branches = Vec::with_capacity(hirs.len());
            for h in hirs {
                let mut branch = Vec::new();
                flatten(h, &mut branch)?;
                branches.push(branch);
            }
            out.push(Part::Either(branches));
        }
    }
    Some(())
}

/// Only runs, then optionally the end anchor: the runs and whether the end is required.
fn runs_then_end(parts: &[Part]) -> Option<(Vec<Run>, bool)> {
    let (parts, end) = match parts.split_last() {
        Some((Part::End, rest)) => (rest, true),
        _ => (parts, false),
    };
    let runs = parts
        .iter()
        .map(|p| match p {
            Part::Run(run) => Some(Run::clone(run)),
            _ => None,
        })
        .collect::<Option<Vec<Run>>>()?;
    Some((runs, end))
}

fn branch_of(parts: &[Part], end_after: bool) -> Option<Branch> {
    let (runs, end) = runs_then_end(parts)?;
    // `(?s:.)*[set](?s:.)*`, with or without the end anchor.
    if let [any_before, one, any_after] = runs.as_slice() {
        let is_any_star = |r: &Run| r.min == 0 && r.max == u32::MAX && r.every_char;
        if is_any_star(any_before) && is_any_star(any_after) && one.min == 1 && one.max == 1 {
            return Some(Branch::Contains(Box::new(one.set.clone())));
        }
    }
    let min_len = runs.iter().map(|r| r.min as usize).sum();
    let max_len = runs
        .iter()
        .try_fold(0usize, |sum, r| sum.checked_add(r.max as usize))
        .unwrap_or(usize::MAX);
    Some(Branch::Runs {
        runs,
        end: end || end_after,
        min_len,
        max_len,
    })
}

/// The bytes that can start what follows `runs[i]` (up to the first run that must match at
/// least once; then the branches' first bytes).
fn first_after(runs: &[Run], i: usize, tail: &ByteSet) -> ByteSet {
    let mut first = ByteSet::EMPTY;
    for run in &runs[i + 1..] {
        first.add(&run.set);
        if run.min > 0 {
            return first;
        }
    }
    first.add(tail);
    first
}

/// Matching each run greedily gives the regex's answer when no run of variable length can
/// stop early to let what follows start with a byte it would have taken: its set must not
/// overlap the bytes that can come next.
fn greedy_is_exact(runs: &[Run], tail: &ByteSet) -> bool {
    (0..runs.len())
        .all(|i| runs[i].min == runs[i].max || !runs[i].set.overlaps(&first_after(runs, i, tail)))
}

impl Runs {
    /// The run form of `hir`, when there is one that gives exactly the regex's answers on
    /// ASCII text, and only matches of the regex on other text.
    pub fn from_hir(hir: &Hir) -> Option<Runs> {
        let mut parts = Vec::new();
        flatten(hir, &mut parts)?;
        if parts.first().is_some_and(|p| matches!(p, Part::Start)) {
            parts.remove(0);
        } else {
            // Unanchored: only a single class (or a run of one, at least once) is taken.
            return match parts.as_slice() {
                [Part::Run(run)] if run.min == 1 => Some(Runs {
                    anchored: false,
                    prefix: Box::default(),
                    head: Vec::new(),
                    branches: vec![Branch::Contains(Box::new(run.set.clone()))],
                }),
                _ => None,
            };
        }
        let end_after = parts.last().is_some_and(|p| matches!(p, Part::End));
        if end_after {
            parts.pop();
        }
        let (head_parts, branch_parts) = match parts.split_last() {
            Some((Part::Either(branches), head)) => (head, branches.clone()),
            _ => (parts.as_slice(), vec![Vec::new()]),
        };
        let (mut head, head_end) = runs_then_end(head_parts)?;
        if head_end {
            return None;
        }
        let branches = branch_parts
            .iter()
            .map(|b| branch_of(b, end_after))
            .collect::<Option<Vec<Branch>>>()?;
        let mut tail = ByteSet::EMPTY;
        for branch in &branches {
            match branch {
                Branch::Runs { runs, .. } => {
                    if !greedy_is_exact(runs, &ByteSet::EMPTY) {
                        return None;
                    }
                    let mut first = ByteSet::EMPTY;
                    for run in runs {
                        first.add(&run.set);
                        if run.min > 0 {
                            break;
                        }
                    }
                    tail.add(&first);
                }
                Branch::Contains(_) => tail = ByteSet([true; 256]),
            }
        }
        // A table per run: a long literal is left to the regex rather than kept as tables.
        let runs = head.len()
            + branches
                .iter()
                .map(|b| match b {
                    Branch::Runs { runs, .. } => runs.len(),
                    Branch::Contains(_) => 1,
                })
                .sum::<usize>();
        // Each branch may read the rest of the text: their number bounds the work per byte.
        if runs > MAX_RUNS || branches.len() > MAX_BRANCHES || !greedy_is_exact(&head, &tail) {
            return None;
        }
        let single_byte = |run: &Run| {
            let mut bytes = (0..=0x7Fu8).filter(|&b| run.set.contains(b));
            match (run.min, run.max, bytes.next(), bytes.next()) {
                (1, 1, Some(b), None) => Some(b),
                _ => None,
            }
        };
        let prefix: Box<[u8]> = head.iter().map_while(single_byte).collect();
        head.drain(..prefix.len());
        Some(Runs {
            anchored: true,
            prefix,
            head,
            branches,
        })
    }
}

/// The byte form: a set as 32 bytes of bits, numbers as little-endian `u32`/`u64`.
impl Runs {
    pub fn write(&self, out: &mut Writer) {
        out.flag(self.anchored);
        out.bytes(&self.prefix);
        write_runs(out, &self.head);
        out.count(self.branches.len());
        for branch in &self.branches {
            match branch {
                Branch::Runs {
                    runs,
                    end,
                    min_len,
                    max_len,
                } => {
                    out.flag(false);
                    write_runs(out, runs);
                    out.flag(*end);
                    out.u64(*min_len as u64);
                    out.u64(*max_len as u64);
                }
                Branch::Contains(set) => {
                    out.flag(true);
                    set.write(out);
                }
            }
        }
    }

    pub fn read(input: &mut Reader<'_>) -> Option<Runs> {
        let anchored = input.flag()?;
        let prefix = input.bytes()?.into();
        let head = read_runs(input)?;
        let branches = (0..input.count()?)
            .map(|_| {
                Some(if input.flag()? {
                    Branch::Contains(Box::new(ByteSet::read(input)?))
                } else {
                    Branch::Runs {
                        runs: read_runs(input)?,
                        end: input.flag()?,
                        min_len: usize::try_from(input.u64()?).ok()?,
                        max_len: usize::try_from(input.u64()?).unwrap_or(usize::MAX),
                    }
                })
            })
            .collect::<Option<Vec<Branch>>>()?;
        Some(Runs {
            anchored,
            prefix,
            head,
            branches,
        })
    }
}

fn write_runs(out: &mut Writer, runs: &[Run]) {
    out.count(runs.len());
    for run in runs {
        run.set.write(out);
        out.u32(run.min);
        out.u32(run.max);
        out.flag(run.every_char);
    }
}

fn read_runs(input: &mut Reader<'_>) -> Option<Vec<Run>> {
    (0..input.count()?)
        .map(|_| {
            Some(Run {
                set: ByteSet::read(input)?,
                min: input.u32()?,
                max: input.u32()?,
                every_char: input.flag()?,
            })
        })
        .collect()
}

impl ByteSet {
    fn write(&self, out: &mut Writer) {
        out.bits(&self.0);
    }

    fn read(input: &mut Reader<'_>) -> Option<ByteSet> {
        let mut set = ByteSet::EMPTY;
        input.bits(&mut set.0)?;
        Some(set)
    }
}
