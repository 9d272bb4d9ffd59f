//! A compact binary form of findings for the sorted runs spilled to disk: one record per
//! file (its path once, then its findings), integers as LEB128 varints (a finding's value hash
//! as 8 little-endian bytes), strings as a length and their UTF-8 bytes. Each record starts
//! with its size (4 bytes, little-endian), so that it is read whole into a buffer and decoded
//! from there, not a byte at a time through a reader, then its findings' [`Counts`] (five
//! more), so that a pass that only counts reads no finding.
//!
//! A dense audit spilled ~100 bytes a finding, and copying them into the page cache was a
//! tenth of its time, so a finding repeats little: its rule is named by its place among the
//! record's rules after the first time; its message and help leave out what its rule's start
//! with ([`crate::diagnostic::RuleTexts`]); its severity shares a byte with its flags; a value
//! hash of 0 (a run without a baseline keeps none) takes no bytes; its pointer keeps only what
//! does not end its message (`unknown field x`, `/x`); a span on one line takes half the bytes
//! of one across lines.
//! Only this process reads what it wrote, so there is no version.

use std::io::{self, BufRead, Read};
use std::sync::Arc;

use super::Counts;
use crate::diagnostic::{
    Edit, Finding, Fix, Position, Provenance, Related, RuleId, Safety, Severity, Span, Stamp,
};

/// The size and the counts before a record's path: six little-endian `u32`s.
const HEADER: usize = 4 + 4 * COUNTED;
/// The counts a record's header holds: by severity (3), then fixes by safety (2).
const COUNTED: usize = 5;

/// Appends one file's findings (all with the path of the first, taken in `order`) to `out` as
/// one record, encoded in place.
pub fn write_group<'f>(
    out: &mut Vec<u8>,
    mut findings: impl ExactSizeIterator<Item = &'f Finding>,
) -> io::Result<()> {
    let count = findings.len();
    let Some(first) = findings.next() else {
        return Ok(());
    };
    let at = out.len();
    out.extend_from_slice(&[0; HEADER]);
    write_str(out, &first.path);
    write_varint(out, count as u64);
    let mut counts = Counts::default();
    let mut rules = RecordRules::default();
    counts.add(first);
    write_finding(out, first, &mut rules);
    for f in findings {
        counts.add(f);
        write_finding(out, f, &mut rules);
    }
    let too_big = || io::Error::new(io::ErrorKind::InvalidInput, "a file's findings past 4 GiB");
    let size = u32::try_from(out.len() - at - 4).map_err(|_| too_big())?;
    out[at..at + 4].copy_from_slice(&size.to_le_bytes());
    let counted = counts.severities.iter().chain(&counts.fixes);
    for (i, &n) in counted.enumerate() {
        let n = u32::try_from(n).map_err(|_| too_big())?;
        out[at + 4 + 4 * i..at + 8 + 4 * i].copy_from_slice(&n.to_le_bytes());
    }
    Ok(())
}

/// The rules a record has named so far, in order: a later finding names its rule by its place
/// here. Writer and reader fill it alike, up to [`RECORD_RULES`]; a rule past those is written
/// out each time.
#[derive(Default)]
struct RecordRules {
    rules: [Option<RuleId>; RECORD_RULES],
    len: usize,
}

/// The rules a record names by place; more than a file's findings ever have.
const RECORD_RULES: usize = 32;
/// The rule byte saying the rule's id follows as text.
const NEW_RULE: u8 = 0xff;

impl RecordRules {
    /// The place of `rule`, compared by address: ids are interned, and an id held twice would
    /// only be written twice.
    fn place_of(&self, rule: RuleId) -> Option<u8> {
        let same = |r: &Option<RuleId>| r.is_some_and(|r| std::ptr::eq(r.as_str(), rule.as_str()));
        self.rules[..self.len]
            .iter()
            .position(same)
            .map(|i| i as u8)
    }

    fn get(&self, place: u8) -> Option<RuleId> {
        self.rules[..self.len]
            .get(usize::from(place))
            .copied()
            .flatten()
    }

    fn add(&mut self, rule: RuleId) {
        if let Some(slot) = self.rules.get_mut(self.len) {
            *slot = Some(rule);
            self.len += 1;
        }
    }
}

/// A finding's flags byte: its severity in the low two bits, then these.
const SECRET: u8 = 1 << 2;
const HAS_HELP: u8 = 1 << 3;
const HAS_FIX: u8 = 1 << 4;
const HAS_HISTORY: u8 = 1 << 5;
const SHORT_PLACE: u8 = 1 << 6;
const HAS_HASH: u8 = 1 << 7;

fn write_finding(out: &mut Vec<u8>, f: &Finding, rules: &mut RecordRules) {
    write_rule(out, f.rule, rules);
    let short = short_place(f.span, f.start, f.end);
    out.push(
        f.severity as u8
            | if f.secret { SECRET } else { 0 }
            | if f.help.is_some() { HAS_HELP } else { 0 }
            | if f.fix.is_some() { HAS_FIX } else { 0 }
            | if f.history.is_some() { HAS_HISTORY } else { 0 }
            | if short.is_some() { SHORT_PLACE } else { 0 }
            | if f.value_hash != 0 { HAS_HASH } else { 0 },
    );
    let (message_start, help_start) = starts_of(f.rule);
    write_after_start(out, &f.message, message_start);
    if let Some(help) = &f.help {
        write_after_start(out, help, help_start);
    }
    write_pointer(out, &f.pointer, &f.message);
    match short {
        Some(place) => out.extend_from_slice(&place),
        None => write_place(out, f.span, f.start, f.end),
    }
    // A hash fills its 64 bits: as a varint it would take ten bytes and a loop. A run with no
    // baseline keeps none (0).
    if f.value_hash != 0 {
        out.extend_from_slice(&f.value_hash.to_le_bytes());
    }
    write_varint(out, f.related.len() as u64);
    for r in &f.related {
        match &r.path {
            Some(path) => {
                out.push(1);
                write_str(out, path);
            }
            None => out.push(0),
        }
        write_place(out, r.span, r.start, r.end);
        write_str(out, &r.label);
    }
    if let Some(fix) = &f.fix {
        out.push(fix.safety as u8);
        write_varint(out, fix.edits.len() as u64);
        for edit in &fix.edits {
            write_varint(out, edit.span.start.into());
            write_varint(out, edit.span.end.into());
            write_str(out, &edit.replacement);
        }
    }
    if let Some(history) = &f.history {
        write_provenance(out, history);
    }
}

/// A rule's place among the record's rules, or [`NEW_RULE`] and its id.
fn write_rule(out: &mut Vec<u8>, rule: RuleId, rules: &mut RecordRules) {
    match rules.place_of(rule) {
        Some(place) => out.push(place),
        None => {
            out.push(NEW_RULE);
            write_str(out, &rule);
            rules.add(rule);
        }
    }
}

/// What `rule`'s messages and help start with ([`crate::diagnostic::RuleTexts`]).
fn starts_of(rule: RuleId) -> (&'static str, &'static str) {
    rule.texts()
        .map_or(("", ""), |texts| (&texts.message, &texts.help))
}

/// A message or help: when it begins with `start` (its rule's), the rest only, and a length
/// shifted once, whose low bit says so.
fn write_after_start(out: &mut Vec<u8>, text: &str, start: &str) {
    let (rest, started) = match text.strip_prefix(start) {
        Some(rest) if !start.is_empty() => (rest, 1),
        _ => (text, 0),
    };
    write_varint(out, (rest.len() as u64) << 1 | started);
    out.extend_from_slice(rest.as_bytes());
}

/// A pointer as the number of its last bytes that also end the message, then the rest: an
/// unknown field's message ends with its key, as its pointer does.
fn write_pointer(out: &mut Vec<u8>, pointer: &str, message: &str) {
    let mut shared = common_suffix(pointer.as_bytes(), message.as_bytes());
    // The rest is written as text: it ends where a character starts.
    while !pointer.is_char_boundary(pointer.len() - shared) {
        shared -= 1;
    }
    write_varint(out, shared as u64);
    write_str(out, &pointer[..pointer.len() - shared]);
}

/// The version, then each of `introduced` and `removed`: a flag byte (0: none, 1: a commit,
/// 3: a commit where history stops), then its id, date and author.
fn write_provenance(out: &mut Vec<u8>, history: &Provenance) {
    write_str(out, &history.version);
    for stamp in [&history.introduced, &history.removed] {
        match stamp {
            None => out.push(0),
            Some(s) => {
                out.push(1 | u8::from(s.boundary) << 1);
                for text in [&s.commit, &s.date, &s.author] {
                    write_str(out, text);
                }
            }
        }
    }
}

/// How many bytes `a` and `b` end with alike, compared eight at a time.
fn common_suffix(mut a: &[u8], mut b: &[u8]) -> usize {
    let mut shared = 0;
    while let (Some((a_rest, x)), Some((b_rest, y))) =
        (a.split_last_chunk::<8>(), b.split_last_chunk::<8>())
    {
        // Little-endian: the last bytes are the high ones.
        let differ = u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y);
        if differ != 0 {
            return shared + (differ.leading_zeros() / 8) as usize;
        }
        shared += 8;
        (a, b) = (a_rest, b_rest);
    }
    let pairs = a.iter().rev().zip(b.iter().rev());
    shared + pairs.take_while(|(x, y)| x == y).count()
}

/// A span and its positions as six fixed-width numbers: read back with six loads, where
/// varints cost a branch or two each (every finding has at least one place).
fn write_place(out: &mut Vec<u8>, span: Span, start: Position, end: Position) {
    let mut place = [0u8; PLACE_BYTES];
    let numbers = [
        span.start,
        span.end,
        start.line,
        start.column,
        end.line,
        end.column,
    ];
    for (bytes, n) in place.chunks_exact_mut(4).zip(numbers) {
        bytes.copy_from_slice(&n.to_le_bytes());
    }
    out.extend_from_slice(&place);
}

/// The bytes of a place: six little-endian `u32`s.
const PLACE_BYTES: usize = 24;

/// A place on one line, of at most 64 KiB and within its first 65,536 lines, as the span's
/// start (`u32`), then its length, line and columns (`u16`s); `None` for any other.
fn short_place(span: Span, start: Position, end: Position) -> Option<[u8; SHORT_PLACE_BYTES]> {
    if end.line != start.line {
        return None;
    }
    let narrow = |n: u32| u16::try_from(n).ok().map(u16::to_le_bytes);
    let length = narrow(span.end.checked_sub(span.start)?)?;
    let [line, column, end_column] = [start.line, start.column, end.column].map(narrow);
    let mut place = [0u8; SHORT_PLACE_BYTES];
    place[..4].copy_from_slice(&span.start.to_le_bytes());
    place[4..6].copy_from_slice(&length);
    place[6..8].copy_from_slice(&line?);
    place[8..10].copy_from_slice(&column?);
    place[10..].copy_from_slice(&end_column?);
    Some(place)
}

/// The bytes of a short place: a `u32` and four `u16`s.
const SHORT_PLACE_BYTES: usize = 12;

fn write_str(out: &mut Vec<u8>, s: &str) {
    write_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn write_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n & 0x7f) as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Reads records back, sharing one `Arc` per record's path; rule ids (there are few) are
/// interned once per decoder.
#[derive(Default)]
pub struct Decoder {
    rules: Vec<RuleId>,
    /// The record being decoded, reused.
    record: Vec<u8>,
}

impl Decoder {
    /// Reads the next record's findings into `into`; `false` at the end of the input.
    #[cfg(test)]
    pub fn read_group(
        &mut self,
        input: &mut impl BufRead,
        into: &mut Vec<Finding>,
    ) -> io::Result<bool> {
        if !self.read_record(input)? {
            return Ok(false);
        }
        let record = std::mem::take(&mut self.record);
        let mut filled = into.len();
        let decoded = self.decode_over(&record, into, &mut filled);
        self.record = record;
        decoded.map(|()| true)
    }

    /// Reads the next record's path and adds its counts to `counts`, decoding no finding;
    /// `None` at the end of the input. The path's bytes are not checked as text here: most
    /// are only compared, and the caller checks those it uses as text.
    pub fn read_counts<'d>(
        &'d mut self,
        input: &mut impl BufRead,
        counts: &mut Counts,
    ) -> io::Result<Option<&'d [u8]>> {
        if !self.read_record(input)? {
            return Ok(None);
        }
        let mut cursor = Cursor {
            bytes: &self.record,
        };
        let counted = cursor.counts()?;
        for (total, n) in counts.severities.iter_mut().zip(&counted[..3]) {
            *total += *n as usize;
        }
        for (total, n) in counts.fixes.iter_mut().zip(&counted[3..]) {
            *total += *n as usize;
        }
        Ok(Some(cursor.bytes()?))
    }

    /// Reads the next record whole, undecoded (see [`record_head`], [`Decoder::decode_over`]);
    /// `None` at the end of the input.
    pub fn next_record(&mut self, input: &mut impl BufRead) -> io::Result<Option<&[u8]>> {
        Ok(self.read_record(input)?.then_some(&self.record[..]))
    }

    /// The record [`Decoder::next_record`] read last.
    pub fn record(&self) -> &[u8] {
        &self.record
    }

    /// Reads the next record whole into `self.record` (its size read, its counts kept);
    /// `false` at the end of the input.
    fn read_record(&mut self, input: &mut impl BufRead) -> io::Result<bool> {
        if input.fill_buf()?.is_empty() {
            return Ok(false);
        }
        let size = read_size(input)?;
        self.record.clear();
        // Grows as the bytes arrive: a damaged size cannot ask for an absurd allocation.
        let read = input.take(size as u64).read_to_end(&mut self.record)?;
        if read != size {
            return Err(corrupt());
        }
        Ok(true)
    }

    /// Decodes one record from [`Decoder::next_record`] into `into` from `*filled` on: the
    /// findings already there are overwritten, their strings' buffers reused (a batch of
    /// findings handed back is refilled without allocating), and the rest pushed. `*filled`
    /// moves past them.
    pub fn decode_over(
        &mut self,
        record: &[u8],
        into: &mut Vec<Finding>,
        filled: &mut usize,
    ) -> io::Result<()> {
        let mut input = Cursor { bytes: record };
        input.counts()?;
        let path: Arc<str> = Arc::from(input.str()?);
        let count = input.len()?;
        into.reserve((*filled + count).saturating_sub(into.len()).min(1024));
        let mut rules = RecordRules::default();
        for _ in 0..count {
            let rule = self.read_rule(&mut input, &mut rules)?;
            let slot = match into.get_mut(*filled) {
                Some(slot) => {
                    slot.path = path.clone();
                    slot.rule = rule;
                    slot
                }
                None => {
                    into.push(Finding::blank(path.clone(), rule));
                    let last = into.len() - 1;
                    &mut into[last]
                }
            };
            read_finding_into(&mut input, slot)?;
            *filled += 1;
        }
        if !input.bytes.is_empty() {
            return Err(corrupt());
        }
        Ok(())
    }

    /// A finding's rule: by its place among the record's rules, or its id, interned.
    fn read_rule(&mut self, input: &mut Cursor<'_>, rules: &mut RecordRules) -> io::Result<RuleId> {
        let [place] = input.array::<1>()?;
        if place != NEW_RULE {
            return rules.get(place).ok_or_else(corrupt);
        }
        let rule = self.rule(input.str()?);
        rules.add(rule);
        Ok(rule)
    }

    fn rule(&mut self, id: &str) -> RuleId {
        if let Some(known) = self.rules.iter().find(|r| **r == *id) {
            return *known;
        }
        let rule = RuleId::new(id);
        self.rules.push(rule);
        rule
    }
}

/// Reads the rest of a finding (after its rule) over `f`, reusing its strings' buffers.
fn read_finding_into(input: &mut Cursor<'_>, f: &mut Finding) -> io::Result<()> {
    let [flags] = input.array::<1>()?;
    f.severity = match flags & 3 {
        0 => Severity::Note,
        1 => Severity::Warning,
        2 => Severity::Error,
        _ => return Err(corrupt()),
    };
    f.secret = flags & SECRET != 0;
    let (message_start, help_start) = starts_of(f.rule);
    input.text_after_start_into(&mut f.message, message_start)?;
    if flags & HAS_HELP != 0 {
        input.text_after_start_into(f.help.get_or_insert_with(String::new), help_start)?;
    } else {
        f.help = None;
    }
    input.pointer_into(&mut f.pointer, &f.message)?;
    (f.span, f.start, f.end) = if flags & SHORT_PLACE != 0 {
        input.short_place()?
    } else {
        input.place()?
    };
    f.value_hash = if flags & HAS_HASH != 0 {
        u64::from_le_bytes(input.array::<8>()?)
    } else {
        0
    };
    let related_count = input.len()?;
    f.related.clear();
    for _ in 0..related_count {
        let [has_path] = input.array::<1>()?;
        let path = if has_path == 1 {
            Some(Arc::from(input.str()?))
        } else {
            None
        };
        let (span, start, end) = input.place()?;
        let label = input.string()?;
        f.related.push(Related {
            path,
            span,
            start,
            end,
            label,
        });
    }
    f.fix = if flags & HAS_FIX != 0 {
        Some(Box::new(input.fix()?))
    } else {
        None
    };
    f.history = if flags & HAS_HISTORY != 0 {
        Some(Box::new(input.provenance()?))
    } else {
        None
    };
    Ok(())
}

/// Appends to `heads` the head of each of `records` (whole records, each with its size): its
/// counts and path, framed as a record, so that [`Decoder::read_counts`] reads either.
pub fn push_heads(mut records: &[u8], heads: &mut Vec<u8>) -> io::Result<()> {
    while let Some((size, rest)) = records.split_first_chunk::<4>() {
        let size = usize::try_from(u32::from_le_bytes(*size)).map_err(|_| corrupt())?;
        let record = rest.get(..size).ok_or_else(corrupt)?;
        let mut cursor = Cursor { bytes: record };
        cursor.counts()?;
        cursor.str()?;
        let head = &record[..record.len() - cursor.bytes.len()];
        let head_size = u32::try_from(head.len()).map_err(|_| corrupt())?;
        heads.extend_from_slice(&head_size.to_le_bytes());
        heads.extend_from_slice(head);
        records = &rest[size..];
    }
    if records.is_empty() {
        Ok(())
    } else {
        Err(corrupt())
    }
}

/// A record's number of findings (from its counts) and its path, decoding no finding.
pub fn record_head(record: &[u8]) -> io::Result<(usize, &str)> {
    let mut cursor = Cursor { bytes: record };
    let counted = cursor.counts()?;
    let findings = counted[..3].iter().map(|&n| n as usize).sum();
    Ok((findings, cursor.str()?))
}

/// A record's size.
fn read_size(input: &mut impl BufRead) -> io::Result<usize> {
    let mut size = [0u8; 4];
    input.read_exact(&mut size)?;
    usize::try_from(u32::from_le_bytes(size)).map_err(|_| corrupt())
}

/// The unread rest of a record.
struct Cursor<'r> {
    bytes: &'r [u8],
}

impl<'r> Cursor<'r> {
    #[inline(always)]
    fn varint(&mut self) -> io::Result<u64> {
        // One byte (small lengths, lines, columns) or two (offsets in a spec): most of them.
        match *self.bytes {
            [low, ref rest @ ..] if low < 0x80 => {
                self.bytes = rest;
                Ok(u64::from(low))
            }
            [low, high, ref rest @ ..] if high < 0x80 => {
                self.bytes = rest;
                Ok(u64::from(low & 0x7f) | u64::from(high) << 7)
            }
            _ => self.long_varint(),
        }
    }

    /// A varint of three bytes or more (or a damaged one).
    #[cold]
    #[inline(never)]
    fn long_varint(&mut self) -> io::Result<u64> {
        let mut n = 0u64;
        for (i, &byte) in self.bytes.iter().enumerate().take(10) {
            n |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                self.bytes = &self.bytes[i + 1..];
                return Ok(n);
            }
        }
        Err(corrupt())
    }

    /// A length: no more than the bytes left could hold.
    fn len(&mut self) -> io::Result<usize> {
        match self.varint()? {
            n if n <= self.bytes.len() as u64 => Ok(n as usize),
            _ => Err(corrupt()),
        }
    }

    /// A record's counts: by severity, then fixes by safety.
    fn counts(&mut self) -> io::Result<[u32; COUNTED]> {
        let mut counts = [0; COUNTED];
        for n in &mut counts {
            *n = u32::from_le_bytes(self.array::<4>()?);
        }
        Ok(counts)
    }

    fn u32(&mut self) -> io::Result<u32> {
        u32::try_from(self.varint()?).map_err(|_| corrupt())
    }

    fn array<const N: usize>(&mut self) -> io::Result<[u8; N]> {
        let (head, rest) = self.bytes.split_first_chunk::<N>().ok_or_else(corrupt)?;
        self.bytes = rest;
        Ok(*head)
    }

    fn str(&mut self) -> io::Result<&'r str> {
        crate::json::text_of(self.bytes()?).ok_or_else(corrupt)
    }

    /// A string's bytes, unchecked.
    fn bytes(&mut self) -> io::Result<&'r [u8]> {
        let len = self.len()?;
        let (bytes, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        Ok(bytes)
    }

    fn string(&mut self) -> io::Result<String> {
        self.str().map(str::to_owned)
    }

    /// A message or help from [`write_after_start`], its rule's `start` put back, written
    /// over `into`.
    fn text_after_start_into(&mut self, into: &mut String, start: &str) -> io::Result<()> {
        let head = self.varint()?;
        let started = head & 1 != 0;
        let len = usize::try_from(head >> 1).map_err(|_| corrupt())?;
        let (rest, left) = self.bytes.split_at_checked(len).ok_or_else(corrupt)?;
        let rest = crate::json::text_of(rest).ok_or_else(corrupt)?;
        self.bytes = left;
        overwrite(into, [if started { start } else { "" }, rest]);
        Ok(())
    }

    /// A pointer from [`write_pointer`]: its own bytes, then those it shares with the end of
    /// `message`, written over `into`.
    fn pointer_into(&mut self, into: &mut String, message: &str) -> io::Result<()> {
        let shared = usize::try_from(self.varint()?).map_err(|_| corrupt())?;
        let rest = self.str()?;
        let from = message.len().checked_sub(shared).ok_or_else(corrupt)?;
        let tail = message.get(from..).ok_or_else(corrupt)?;
        overwrite(into, [rest, tail]);
        Ok(())
    }

    /// A place from [`short_place`].
    fn short_place(&mut self) -> io::Result<(Span, Position, Position)> {
        let place = self.array::<SHORT_PLACE_BYTES>()?;
        let u16_at = |i: usize| u32::from(u16::from_le_bytes([place[i], place[i + 1]]));
        let start = u32::from_le_bytes([place[0], place[1], place[2], place[3]]);
        let end = start.checked_add(u16_at(4)).ok_or_else(corrupt)?;
        let line = u16_at(6);
        Ok((
            Span { start, end },
            Position {
                line,
                column: u16_at(8),
            },
            Position {
                line,
                column: u16_at(10),
            },
        ))
    }

    fn place(&mut self) -> io::Result<(Span, Position, Position)> {
        let place = self.array::<PLACE_BYTES>()?;
        let mut n = [0u32; 6];
        for (slot, bytes) in n.iter_mut().zip(place.chunks_exact(4)) {
            *slot = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        Ok((
            Span {
                start: n[0],
                end: n[1],
            },
            Position {
                line: n[2],
                column: n[3],
            },
            Position {
                line: n[4],
                column: n[5],
            },
        ))
    }

    fn fix(&mut self) -> io::Result<Fix> {
        let [safety] = self.array::<1>()?;
        let safety = match safety {
            0 => Safety::Safe,
            1 => Safety::Unsafe,
            _ => return Err(corrupt()),
        };
        let count = self.len()?;
        let mut edits = Vec::with_capacity(count.min(16));
        for _ in 0..count {
            let start = self.u32()?;
            let end = self.u32()?;
            edits.push(Edit {
                span: Span { start, end },
                replacement: self.string()?,
            });
        }
        Ok(Fix { safety, edits })
    }

    fn provenance(&mut self) -> io::Result<Provenance> {
        let version = Arc::from(self.str()?);
        let mut stamps = [None, None];
        for slot in &mut stamps {
            let [flag] = self.array::<1>()?;
            *slot = match flag {
                0 => None,
                1 | 3 => Some(Stamp {
                    commit: self.string()?,
                    date: self.string()?,
                    author: self.string()?,
                    boundary: flag == 3,
                }),
                _ => return Err(corrupt()),
            };
        }
        let [introduced, removed] = stamps;
        Ok(Provenance {
            version,
            introduced,
            removed,
        })
    }
}

/// `parts` written over `into`, its buffer reused. A buffer too small is replaced rather than
/// grown: growing would copy the old text, which is overwritten anyway.
fn overwrite(into: &mut String, parts: [&str; 2]) {
    into.clear();
    let len = parts[0].len() + parts[1].len();
    if into.capacity() < len {
        *into = String::with_capacity(len.max(2 * into.capacity()));
    }
    into.push_str(parts[0]);
    into.push_str(parts[1]);
}

pub(super) fn corrupt() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "the temporary file of findings is damaged",
    )
}

#[cfg(test)]
mod tests;
