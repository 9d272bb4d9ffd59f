//! The literals and the run every match of a pattern holds (see [`Literals`]): what a built-in
//! text pattern's gate searches for before its regex is compiled. Found from the pattern's
//! parse, at build time for the built-in rules (written as bytes, [`Literals::write`]).

use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{Class, Hir, HirKind};

use super::{Reader, Writer};

/// What every match of a pattern holds (each part searched ignoring ASCII case where it says
/// so, which finds them all and a few more: a text with them still goes to the regex).
#[derive(Debug, PartialEq, Eq)]
pub struct Literals {
    /// ASCII-lowercased, none the prefix of another; `None` when a match may begin anywhere.
    pub needles: Option<Vec<Box<[u8]>>>,
    /// A run every match holds; `None` when there is none worth a scan.
    pub run: Option<Run>,
}

impl Literals {
    /// The literals of `hir`: `None` when a match may begin with anything (a pattern that
    /// starts with a wide class, or matches the empty string) and holds no long run.
    pub fn of(hir: &Hir) -> Option<Literals> {
        let needles = prefix_needles(hir);
        let run = required_run(hir).filter(|run| run.min >= MIN_RUN);
        (needles.is_some() || run.is_some()).then_some(Literals { needles, run })
    }

    pub fn write(&self, out: &mut Writer) {
        out.flag(self.needles.is_some());
        if let Some(needles) = &self.needles {
            out.count(needles.len());
            for needle in needles {
                out.bytes(needle);
            }
        }
        out.flag(self.run.is_some());
        if let Some(run) = &self.run {
            out.bits(&run.set);
            out.u64(run.min as u64);
        }
    }

    pub fn read(input: &mut Reader<'_>) -> Option<Literals> {
        let needles = if input.flag()? {
            let count = input.count()?;
            Some(
                (0..count)
                    .map(|_| Some(Box::from(input.bytes()?)))
                    .collect::<Option<Vec<_>>>()?,
            )
        } else {
            None
        };
        let run = if input.flag()? {
            let mut set = [false; 128];
            input.bits(&mut set)?;
            let min = usize::try_from(input.u64()?).ok()?;
            Some(Run { set, min })
        } else {
            None
        };
        Some(Literals { needles, run })
    }
}

/// At least `min` bytes in a row from `set` (ASCII only: a text's other bytes are parts of
/// characters no ASCII class holds).
#[derive(Debug, PartialEq, Eq)]
pub struct Run {
    pub set: [bool; 128],
    pub min: usize,
}

/// Shorter runs are too common to tell texts apart.
const MIN_RUN: usize = 8;

/// The literals, one of which begins every match: a finite sequence of prefixes (exact or
/// not); the extractor's limits make it shorter or infinite, never wrong.
fn prefix_needles(hir: &Hir) -> Option<Vec<Box<[u8]>>> {
    let seq = Extractor::new()
        .kind(ExtractKind::Prefix)
        .extract(&fold_ascii_case(hir));
    let mut needles: Vec<Box<[u8]>> = seq
        .literals()?
        .iter()
        .map(|l| l.as_bytes().to_ascii_lowercase().into_boxed_slice())
        .collect();
    if needles.iter().any(|n| n.is_empty()) {
        return None;
    }
    needles.sort();
    // Sorted, a literal's extensions follow it: finding it finds them.
    needles.dedup_by(|later, kept| later.starts_with(kept));
    Some(needles)
}

/// `hir` with each class of one ASCII letter in both cases (`(?i)w` is `[Ww]`) made that
/// letter: the needles are searched ignoring ASCII case anyway, and the extractor then makes
/// one literal of `(?i)password`, not 256 (crossing them was most of the gate's cost).
fn fold_ascii_case(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Class(class) => match ascii_letter(class) {
            Some(letter) => Hir::literal([letter]),
            None => hir.clone(),
        },
        HirKind::Concat(parts) => Hir::concat(parts.iter().map(fold_ascii_case).collect()),
        HirKind::Alternation(parts) => {
            Hir::alternation(parts.iter().map(fold_ascii_case).collect())
        }
        HirKind::Capture(capture) => Hir::capture(regex_syntax::hir::Capture {
            index: capture.index,
            name: capture.name.clone(),
            sub: Box::new(fold_ascii_case(&capture.sub)),
        }),
        HirKind::Repetition(rep) => Hir::repetition(regex_syntax::hir::Repetition {
            min: rep.min,
            max: rep.max,
            greedy: rep.greedy,
            sub: Box::new(fold_ascii_case(&rep.sub)),
        }),
        _ => hir.clone(),
    }
}

/// The lowercase letter of a class that is exactly that letter in both cases.
fn ascii_letter(class: &Class) -> Option<u8> {
    let Class::Unicode(c) = class else {
        return None;
    };
    let chars: Vec<char> = c.iter().flat_map(|r| r.start()..=r.end()).take(3).collect();
    match chars[..] {
        [upper, lower] if upper.is_ascii_uppercase() && lower == upper.to_ascii_lowercase() => {
            u8::try_from(lower).ok()
        }
        _ => None,
    }
}

/// The longest run of one ASCII class that every match of `hir` holds: a repetition of a
/// class at least `min` times, in the pattern's top-level sequence (through groups and
/// repetitions that happen at least once; not inside an alternation, whose other branch may
/// do without it).
fn required_run(hir: &Hir) -> Option<Run> {
    match hir.kind() {
        HirKind::Capture(capture) => required_run(&capture.sub),
        HirKind::Concat(parts) => parts
            .iter()
            .filter_map(required_run)
            .max_by_key(|run| run.min),
        HirKind::Repetition(rep) if rep.min >= 1 => match rep.sub.kind() {
            HirKind::Class(class) => Some(Run {
                set: ascii_set(class)?,
                min: usize::try_from(rep.min).ok()?,
            }),
            _ => required_run(&rep.sub),
        },
        _ => None,
    }
}

/// The class as a table of ASCII bytes; `None` when it holds anything else.
fn ascii_set(class: &Class) -> Option<[bool; 128]> {
    let mut set = [false; 128];
    let mut mark = |start: u32, end: u32| -> Option<()> {
        for c in start..=end {
            *set.get_mut(usize::try_from(c).ok()?)? = true;
        }
        Some(())
    };
    match class {
        Class::Unicode(c) => c
            .iter()
            .try_for_each(|r| mark(u32::from(r.start()), u32::from(r.end())))?,
        Class::Bytes(c) => c
            .iter()
            .try_for_each(|r| mark(u32::from(r.start()), u32::from(r.end())))?,
    }
    Some(set)
}

impl Run {
    /// Whether `text` holds `min` bytes of the set in a row. Linear in the text.
    pub fn is_in(&self, text: &[u8]) -> bool {
        let mut length = 0;
        for &b in text {
            if self.set.get(usize::from(b)).copied().unwrap_or(false) {
                length += 1;
                if length >= self.min {
                    return true;
                }
            } else {
                length = 0;
            }
        }
        false
    }
}
