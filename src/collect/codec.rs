//! A compact binary form of findings for the sorted runs spilled to disk: one record per
//! file (its path once, then its findings), integers as LEB128 varints (a finding's value hash
//! as 8 little-endian bytes), strings as a length and their UTF-8 bytes. Each record starts
//! with its size (4 bytes, little-endian), so that it is read whole into a buffer and decoded
//! from there, not a byte at a time through a reader, then its findings' [`Counts`] (five
//! more), so that a pass that only counts reads no finding.
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
    counts.add(first);
    write_finding(out, first);
    for f in findings {
        counts.add(f);
        write_finding(out, f);
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

fn write_finding(out: &mut Vec<u8>, f: &Finding) {
    write_str(out, &f.rule);
    out.extend_from_slice(&[
        f.severity as u8,
        u8::from(f.secret)
            | u8::from(f.help.is_some()) << 1
            | u8::from(f.fix.is_some()) << 2
            | u8::from(f.history.is_some()) << 3,
    ]);
    write_str(out, &f.message);
    if let Some(help) = &f.help {
        write_str(out, help);
    }
    write_str(out, &f.pointer);
    write_place(out, f.span, f.start, f.end);
    // A hash fills its 64 bits: as a varint it would take ten bytes and a loop.
    out.extend_from_slice(&f.value_hash.to_le_bytes());
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
        for _ in 0..count {
            let rule = self.rule(input.str()?);
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
    let [severity, flags] = input.array::<2>()?;
    f.severity = match severity {
        0 => Severity::Note,
        1 => Severity::Warning,
        2 => Severity::Error,
        _ => return Err(corrupt()),
    };
    f.secret = flags & 1 != 0;
    input.string_into(&mut f.message)?;
    if flags & 2 != 0 {
        input.string_into(f.help.get_or_insert_with(String::new))?;
    } else {
        f.help = None;
    }
    input.string_into(&mut f.pointer)?;
    (f.span, f.start, f.end) = input.place()?;
    f.value_hash = u64::from_le_bytes(input.array::<8>()?);
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
    f.fix = if flags & 4 != 0 {
        Some(Box::new(input.fix()?))
    } else {
        None
    };
    f.history = if flags & 8 != 0 {
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

    /// A string written over `into`, its buffer reused. A buffer too small is replaced rather
    /// than grown: growing would copy the old text, which is overwritten anyway.
    fn string_into(&mut self, into: &mut String) -> io::Result<()> {
        let text = self.str()?;
        into.clear();
        if into.capacity() < text.len() {
            *into = String::with_capacity(text.len().max(2 * into.capacity()));
        }
        into.push_str(text);
        Ok(())
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

pub(super) fn corrupt() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "the temporary file of findings is damaged",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(path: &Arc<str>, rule: &str, message: &str) -> Finding {
        Finding {
            path: path.clone(),
            rule: RuleId::new(rule),
            severity: Severity::Warning,
            message: message.into(),
            help: Some("help é".into()),
            pointer: "/spec/x".into(),
            span: Span::new(3, 300),
            start: Position { line: 1, column: 4 },
            end: Position {
                line: u32::MAX,
                column: 7,
            },
            related: vec![Related {
                path: Some(Arc::from("exp/config.yaml")),
                span: Span::new(0, 1),
                start: Position { line: 2, column: 1 },
                end: Position { line: 2, column: 2 },
                label: "here".into(),
            }],
            value_hash: u64::MAX,
            secret: true,
            fix: Some(Box::new(Fix {
                safety: Safety::Unsafe,
                edits: vec![Edit {
                    span: Span::new(5, 9),
                    replacement: "\"forge/v2\"".into(),
                }],
            })),
            history: Some(Box::new(Provenance {
                version: Arc::from("0123abcd"),
                introduced: Some(Stamp {
                    commit: "c".repeat(40),
                    date: "2024-03-02T10:04:00+01:00".into(),
                    author: "Ada Lovelace <ada@lab.example>".into(),
                    boundary: true,
                }),
                removed: None,
            })),
        }
    }

    #[test]
    fn findings_read_back_as_written() {
        let a: Arc<str> = Arc::from("specs/a.jobspec.json");
        let b: Arc<str> = Arc::from("specs/b.jobspec.json");
        let mut plain = finding(&b, "kind", "");
        plain.help = None;
        plain.fix = None;
        plain.related.clear();
        plain.secret = false;
        plain.severity = Severity::Error;
        plain.history = None;
        let mut removed = finding(&b, "exp-secret", "m3");
        if let Some(h) = removed.history.as_mut() {
            h.removed = h.introduced.take();
        }
        let groups = vec![
            vec![finding(&a, "api-version", "m1"), finding(&a, "kind", "m2")],
            vec![plain, removed],
        ];
        let mut bytes = Vec::new();
        for group in &groups {
            write_group(&mut bytes, group.iter()).unwrap();
        }
        let mut input = &bytes[..];
        let mut decoder = Decoder::default();
        let mut read = Vec::new();
        let mut back = Vec::new();
        while decoder.read_group(&mut input, &mut read).unwrap() {
            back.push(std::mem::take(&mut read));
        }
        assert_eq!(back, groups);
        assert!(std::ptr::eq(
            back[0][1].rule.as_str(),
            back[1][0].rule.as_str()
        ));
        assert!(Arc::ptr_eq(&back[0][0].path, &back[0][1].path));
        // The headers alone: each record's path, and the counts of its findings.
        let mut input = &bytes[..];
        let mut counts = Counts::default();
        let mut paths = Vec::new();
        while let Some(path) = decoder.read_counts(&mut input, &mut counts).unwrap() {
            paths.push(String::from_utf8(path.to_vec()).unwrap());
        }
        assert_eq!(paths, [&*a, &*b]);
        assert_eq!((counts.severities, counts.fixes), ([0, 3, 1], [0, 3]));
    }

    /// Varints read back at every width (the one- and two-byte shortcuts and the loop), and
    /// one cut short or past ten bytes is an error.
    #[test]
    fn varints_read_back_at_every_width() {
        let mut values: Vec<u64> = vec![0, 1, u64::MAX];
        for bits in (7..64).step_by(7) {
            values.extend([(1 << bits) - 1, 1 << bits, (1 << bits) + 1]);
        }
        for n in values {
            let mut bytes = Vec::new();
            write_varint(&mut bytes, n);
            bytes.push(0x2a);
            let mut input = Cursor { bytes: &bytes };
            assert_eq!(input.varint().unwrap(), n);
            assert_eq!(input.bytes, [0x2a]);
            let cut = &bytes[..bytes.len() - 2];
            assert!(Cursor { bytes: cut }.varint().is_err(), "{n}");
        }
        assert!(Cursor { bytes: &[0x80; 11] }.varint().is_err());
    }

    #[test]
    fn a_damaged_record_is_an_error_not_a_panic() {
        let a: Arc<str> = Arc::from("a.json");
        let mut bytes = Vec::new();
        write_group(&mut bytes, [finding(&a, "kind", "m")].iter()).unwrap();
        for cut in 1..bytes.len() {
            let mut input = &bytes[..cut];
            let mut read = Vec::new();
            assert!(Decoder::default()
                .read_group(&mut input, &mut read)
                .is_err());
        }
        let mut input: &[u8] = &[0xff; 12];
        assert!(Decoder::default()
            .read_group(&mut input, &mut Vec::new())
            .is_err());
        // Any byte of the record damaged: an error or other findings, never a panic.
        for at in 1..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] = 0xff;
            let mut input = &damaged[..];
            let _ = Decoder::default().read_group(&mut input, &mut Vec::new());
        }
    }

    #[test]
    fn heads_read_back_as_the_records_counts_and_paths() {
        let a: Arc<str> = Arc::from("specs/a.jobspec.json");
        let b: Arc<str> = Arc::from("é/b.jobspec.json");
        let mut plain = finding(&b, "kind", "m3");
        plain.fix = None;
        plain.severity = Severity::Error;
        let mut records = Vec::new();
        write_group(&mut records, [finding(&a, "api-version", "m1")].iter()).unwrap();
        write_group(&mut records, [finding(&b, "kind", "m2"), plain].iter()).unwrap();
        let mut heads = Vec::new();
        push_heads(&records, &mut heads).unwrap();
        assert!(
            heads.len() < records.len() / 4,
            "{} of {}",
            heads.len(),
            records.len()
        );
        let read_all = |mut input: &[u8]| {
            let (mut decoder, mut got) = (Decoder::default(), Vec::new());
            let mut counts = Counts::default();
            while let Some(path) = decoder.read_counts(&mut input, &mut counts).unwrap() {
                got.push(String::from_utf8(path.to_vec()).unwrap());
            }
            (got, counts)
        };
        let (paths, counts) = read_all(&heads);
        assert_eq!(paths, [&*a, &*b]);
        assert_eq!((counts.severities, counts.fixes), ([0, 2, 1], [0, 2]));
        assert_eq!(read_all(&records), (paths, counts));
        // A record cut short is refused, not indexed in part.
        assert!(push_heads(&records[..records.len() - 1], &mut Vec::new()).is_err());
        assert!(push_heads(&records[..3], &mut Vec::new()).is_err());
    }
}
