//! The JSON writer of everything forgelint prints or saves (reports, merged reports, baselines,
//! schemas, rule lists): pretty JSON in serde_json's two-space layout and escapes, with every
//! [`is_dangerous`] character escaped too, so the output is inert on a terminal whatever a
//! linted file held. One string and number writer serves three ways in:
//!
//! - any serializable value, through serde ([`SafeJsonFormatter`], [`write_json_at`]);
//! - the elements of long reports (one per finding), written directly ([`JsonWriter`], with a
//!   [`Skeleton`] for their shared shape), without serde's token-by-token calls: a finding is
//!   most of a report's cost once there are thousands of them;
//! - a document assembled field by field ([`ObjectWriter`], [`ArrayWriter`]).
//!
//! All three write the same bytes for the same value (tests hold them to it).

use std::io::Write;

use crate::escape::is_dangerous;

/// The bytes written as they are: printable ASCII but `"` and `\\`.
const PLAIN: [bool; 256] = {
    let mut plain = [false; 256];
    let mut b = 0x20;
    while b < 0x7F {
        plain[b] = b != b'"' as usize && b != b'\\' as usize;
        b += 1;
    }
    plain
};

/// Are all of `bytes` [`PLAIN`]? Eight at a time: a report's strings are mostly plain, and a
/// table lookup per byte was a fifth of the cost of rendering a SARIF result.
fn is_plain(bytes: &[u8]) -> bool {
    let mut words = bytes.chunks_exact(8);
    words.all(|word| word_is_plain(word_at(word)))
        && words.remainder().iter().all(|&b| PLAIN[b as usize])
}

/// The first eight of `bytes` (at least eight) as one word, the first byte lowest (so that
/// [`unplain_bytes`] finds the first byte that is not plain on any platform).
fn word_at(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(w)
}

/// Are all eight bytes of `w` [`PLAIN`]?
fn word_is_plain(w: u64) -> bool {
    unplain_bytes(w) == 0
}

/// The high bit of each byte of `w` that may not be [`PLAIN`]: none when all eight are, and
/// the lowest set bit is exactly that of the first byte that is not (a borrow only runs up,
/// from a byte that matched, into the bytes after it).
fn unplain_bytes(w: u64) -> u64 {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // The bytes of `v` that are zero.
    let zeros = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    // Below 0x20 (a control), 0x80 and above (not ASCII), or DEL, `"` or `\`.
    let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
    below_space
        | w & HIGHS
        | zeros(w ^ (ONES * 0x7F))
        | zeros(w ^ (ONES * u64::from(b'"')))
        | zeros(w ^ (ONES * u64::from(b'\\')))
}

/// The decimal digits of `n`, written at the end of `digits`.
pub fn decimal(mut n: u64, digits: &mut [u8; 20]) -> &[u8] {
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &digits[at..];
        }
    }
}

/// Pretty JSON appended to a buffer, starting at a nesting level; or compact JSON, on one line.
pub struct JsonWriter<'b> {
    out: &'b mut Vec<u8>,
    level: usize,
    /// The innermost open container has no entry yet.
    first: bool,
    /// One line, as serde_json's compact output: no line breaks, no space after `:`.
    compact: bool,
}

impl<'b> JsonWriter<'b> {
    /// A writer for a value that sits at nesting `level` of a document.
    pub fn new(out: &'b mut Vec<u8>, level: usize) -> JsonWriter<'b> {
        JsonWriter {
            out,
            level,
            first: true,
            compact: false,
        }
    }

    /// A writer for a value written compact, on one line (JSON Lines).
    pub fn compact(out: &'b mut Vec<u8>) -> JsonWriter<'b> {
        JsonWriter {
            out,
            level: 0,
            first: true,
            compact: true,
        }
    }

    /// A writer that carries on inside an object or array open at `level` (after a
    /// [`Skeleton`]'s last part); `first`: nothing has been written in it yet.
    pub fn resume(out: &'b mut Vec<u8>, level: usize, first: bool) -> JsonWriter<'b> {
        JsonWriter {
            out,
            level,
            first,
            compact: false,
        }
    }

    /// [`JsonWriter::resume`] for a compact value (after a [`Skeleton::compact`]'s last part).
    pub fn resume_compact(out: &'b mut Vec<u8>, first: bool) -> JsonWriter<'b> {
        JsonWriter {
            first,
            ..JsonWriter::compact(out)
        }
    }

    fn newline_indent(&mut self) {
        if self.compact {
            return;
        }
        // Writing to a `Vec` cannot fail.
        let _ = write_newline_indent(self.out, self.level);
    }

    fn open(&mut self, bracket: u8) {
        self.out.push(bracket);
        self.level += 1;
        self.first = true;
    }

    fn close(&mut self, bracket: u8) {
        // A resumed compact writer does not know its level, which it does not need.
        self.level = self.level.saturating_sub(1);
        if !self.first {
            self.newline_indent();
        }
        self.out.push(bracket);
        // Back in the enclosing container, which has this value.
        self.first = false;
    }

    fn entry(&mut self) {
        if self.first {
            self.first = false;
        } else {
            self.out.push(b',');
        }
        self.newline_indent();
    }

    pub fn begin_object(&mut self) {
        self.open(b'{');
    }

    pub fn end_object(&mut self) {
        self.close(b'}');
    }

    pub fn begin_array(&mut self) {
        self.open(b'[');
    }

    pub fn end_array(&mut self) {
        self.close(b']');
    }

    /// Starts an array element.
    pub fn item(&mut self) {
        self.entry();
    }

    /// Starts an object member; `key` is one of our own field names (plain ASCII, written as
    /// is).
    pub fn key(&mut self, key: &'static str) {
        debug_assert!(key.bytes().all(|b| PLAIN[b as usize]));
        self.entry();
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        let colon: &[u8] = if self.compact { b"\":" } else { b"\": " };
        self.out.extend_from_slice(colon);
    }

    pub fn boolean(&mut self, value: bool) {
        self.out
            .extend_from_slice(if value { b"true" } else { b"false" });
    }

    pub fn null(&mut self) {
        self.out.extend_from_slice(b"null");
    }

    pub fn number(&mut self, n: u64) {
        write_number(self.out, n);
    }

    /// A JSON string: serde_json's escapes, and `\uXXXX` for every other dangerous character.
    pub fn string(&mut self, s: &str) {
        write_string(self.out, s);
    }

    /// Marks the place of a value that is written later, into a [`Skeleton`].
    pub fn hole(&mut self) {
        self.out.push(HOLE);
    }
}

/// A JSON string: serde_json's escapes, and `\uXXXX` for every other dangerous character.
pub fn write_string(out: &mut Vec<u8>, s: &str) {
    // Room for a plain string and its quotes at once (the commonest case), not grown in three
    // steps.
    out.reserve(s.len() + 2);
    out.push(b'"');
    if is_plain(s.as_bytes()) {
        out.extend_from_slice(s.as_bytes());
    } else {
        write_escaped(out, s);
    }
    out.push(b'"');
}

/// A JSON number.
pub fn write_number(out: &mut Vec<u8>, n: u64) {
    // Lines, columns and a spec's offsets: mostly one to four digits, written without the
    // division loop.
    match n {
        0..=9 => out.push(b'0' + n as u8),
        10..=99 => out.extend_from_slice(&two_digits(n)),
        100..=999 => {
            let [tens, ones] = two_digits(n % 100);
            out.extend_from_slice(&[b'0' + (n / 100) as u8, tens, ones]);
        }
        // A spec's byte offsets past its first kilobyte.
        1000..=9999 => {
            let ([a, b], [c, d]) = (two_digits(n / 100), two_digits(n % 100));
            out.extend_from_slice(&[a, b, c, d]);
        }
        _ => {
            let mut digits = [0u8; 20];
            out.extend_from_slice(decimal(n, &mut digits));
        }
    }
}

/// The two digits of `n` (below 100), from a table: one lookup instead of a division and a
/// remainder per digit.
fn two_digits(n: u64) -> [u8; 2] {
    const PAIRS: [[u8; 2]; 100] = {
        let mut pairs = [[0u8; 2]; 100];
        let mut i = 0;
        while i < 100 {
            pairs[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
            i += 1;
        }
        pairs
    };
    PAIRS[n as usize % 100]
}

/// Marks a value's place in a skeleton. It never occurs in the fixed text: keys are plain
/// ASCII ([`JsonWriter::key`]), and the rest is punctuation, newlines and spaces.
const HOLE: u8 = 0;

/// The fixed text of a JSON shape written at one nesting level, cut where its values go. A
/// long report's elements share their shape, so the keys, punctuation and indentation between
/// their values are made once and copied whole, not written piece by piece for every element.
pub struct Skeleton {
    parts: Vec<Part>,
}

/// One fixed text of a [`Skeleton`]. Most are a key and its punctuation, a few dozen bytes at
/// most: those are kept in a block of fixed size, copied whole (two vector moves, no call to
/// `memcpy`) and the copy cut back to their length.
enum Part {
    Short { block: [u8; SHORT_PART], len: u8 },
    Long(Box<[u8]>),
}

/// The size of a [`Part::Short`]'s block.
const SHORT_PART: usize = 32;

impl Part {
    fn new(text: &[u8]) -> Part {
        if text.len() > SHORT_PART {
            return Part::Long(text.into());
        }
        let mut block = [0; SHORT_PART];
        block[..text.len()].copy_from_slice(text);
        Part::Short {
            block,
            len: text.len() as u8,
        }
    }

    #[inline]
    fn append_to(&self, out: &mut Vec<u8>) {
        match self {
            Part::Short { block, len } => {
                let end = out.len() + usize::from(*len);
                out.extend_from_slice(block);
                out.truncate(end);
            }
            Part::Long(text) => out.extend_from_slice(text),
        }
    }
}

impl Skeleton {
    /// The skeleton of what `shape` writes at nesting `level`, with [`JsonWriter::hole`] for
    /// each value.
    pub fn new(level: usize, shape: impl FnOnce(&mut JsonWriter<'_>)) -> Skeleton {
        let mut text = Vec::new();
        shape(&mut JsonWriter::new(&mut text, level));
        Skeleton::cut(&text)
    }

    /// The skeleton of what `shape` writes compact, on one line.
    pub fn compact(shape: impl FnOnce(&mut JsonWriter<'_>)) -> Skeleton {
        let mut text = Vec::new();
        shape(&mut JsonWriter::compact(&mut text));
        Skeleton::cut(&text)
    }

    fn cut(text: &[u8]) -> Skeleton {
        Skeleton {
            parts: text.split(|&b| b == HOLE).map(Part::new).collect(),
        }
    }

    /// The parts in order: the text before the first value, between each value and the next,
    /// and after the last.
    pub fn parts(&self) -> Parts<'_> {
        Parts(self.parts.iter())
    }
}

/// A skeleton's parts, taken one by one between the values.
pub struct Parts<'s>(std::slice::Iter<'s, Part>);

impl Parts<'_> {
    /// Appends the next part to `out`.
    #[inline]
    pub fn next_into(&mut self, out: &mut Vec<u8>) {
        let part = self.0.next();
        debug_assert!(
            part.is_some(),
            "a value more than the skeleton has places for"
        );
        if let Some(part) = part {
            part.append_to(out);
        }
    }

    /// Passes over the next `n` parts: their text was written another way.
    pub fn skip(&mut self, n: usize) {
        for _ in 0..n {
            let part = self.0.next();
            debug_assert!(part.is_some(), "more parts skipped than the skeleton has");
        }
    }

    /// Whether every part has been taken.
    pub fn is_done(&self) -> bool {
        self.0.len() == 0
    }
}

/// `s` with its escapes: runs of plain text are copied whole, and passed over eight bytes at a
/// time (a message quoting a value has a few quotes in a long plain text).
fn write_escaped(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    let mut plain = 0;
    let mut at = 0;
    loop {
        // Plain words are passed over whole; a word that is not is entered at its first byte
        // that is not plain, not byte by byte.
        while bytes.len() - at >= 8 {
            let unplain = unplain_bytes(word_at(&bytes[at..]));
            if unplain != 0 {
                at += (unplain.trailing_zeros() / 8) as usize;
                break;
            }
            at += 8;
        }
        let Some(&b) = bytes.get(at) else {
            break;
        };
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            0x0C => b"\\f",
            b'\r' => b"\\r",
            0x20..0x7F => {
                at += 1;
                continue;
            }
            _ => {
                let Some(c) = s[at..].chars().next() else {
                    break;
                };
                if !is_dangerous(c) {
                    at += c.len_utf8();
                    continue;
                }
                // Every dangerous character is below U+10000: four hex digits.
                let n = c as u32;
                out.extend_from_slice(&bytes[plain..at]);
                out.extend_from_slice(b"\\u");
                for shift in [12, 8, 4, 0] {
                    out.push(HEX[(n >> shift & 0xF) as usize]);
                }
                at += c.len_utf8();
                plain = at;
                continue;
            }
        };
        out.extend_from_slice(&bytes[plain..at]);
        out.extend_from_slice(escape);
        at += 1;
        plain = at;
    }
    out.extend_from_slice(&bytes[plain..]);
}

/// A pretty JSON formatter (two-space indent, byte-identical to serde_json's
/// `PrettyFormatter`) that also writes every [`is_dangerous`] character as a `\uXXXX` escape
/// (serde_json escapes only C0 controls). It can start at any nesting level, so a part of a
/// document rendered on its own (see [`write_json_at`]) matches the same part rendered in place.
#[derive(Default)]
pub struct SafeJsonFormatter {
    /// Nesting level of the line being written.
    level: usize,
    /// The container being closed had a value (serde_json's `has_value`).
    has_value: bool,
    /// One line, as serde_json's `CompactFormatter` (with the same escapes as pretty output).
    compact: bool,
}

impl SafeJsonFormatter {
    /// A formatter for a value that sits at nesting `level` of a document.
    pub fn at_level(level: usize) -> SafeJsonFormatter {
        SafeJsonFormatter {
            level,
            has_value: false,
            compact: false,
        }
    }

    /// A formatter that writes compact JSON, on one line.
    pub fn compact() -> SafeJsonFormatter {
        SafeJsonFormatter {
            compact: true,
            ..SafeJsonFormatter::default()
        }
    }
}

/// A line break and the indentation of nesting `level`, in one write.
pub fn write_newline_indent<W: ?Sized + std::io::Write>(
    writer: &mut W,
    level: usize,
) -> std::io::Result<()> {
    const SPACES: &[u8; 129] = &{
        let mut line = [b' '; 129];
        line[0] = b'\n';
        line
    };
    let width = 2 * level;
    if width < SPACES.len() {
        return writer.write_all(&SPACES[..width + 1]);
    }
    writer.write_all(b"\n")?;
    for _ in 0..level {
        writer.write_all(b"  ")?;
    }
    Ok(())
}

impl SafeJsonFormatter {
    fn open<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level -= 1;
        if self.has_value && !self.compact {
            write_newline_indent(w, self.level)?;
        }
        w.write_all(bracket)
    }

    /// Before an array item or an object key: a comma after the first, then a new line.
    fn next_line<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        if self.compact {
            return Ok(());
        }
        write_newline_indent(w, self.level)
    }
}

impl serde_json::ser::Formatter for SafeJsonFormatter {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.next_line(w, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.next_line(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(if self.compact { b":" } else { b": " })
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        // serde_json has escaped quotes, backslashes and C0 controls already: a fragment holds
        // none, so the shared escaper adds only the escapes of the other dangerous characters.
        if is_plain(fragment.as_bytes()) {
            return writer.write_all(fragment.as_bytes());
        }
        let mut escaped = Vec::with_capacity(fragment.len() + 8);
        write_escaped(&mut escaped, fragment);
        writer.write_all(&escaped)
    }
}

/// Writes `value` as pretty JSON with [`SafeJsonFormatter`], streaming: the whole document at
/// once, which the tests compare reports assembled from parts with.
#[cfg(test)]
pub fn write_json<T: serde::Serialize + ?Sized>(
    out: &mut dyn std::io::Write,
    value: &T,
) -> std::io::Result<()> {
    // serde_json writes a token at a time: a concrete buffer in front of the `dyn` writer keeps
    // those small writes out of virtual calls.
    let mut buffered = std::io::BufWriter::with_capacity(64 * 1024, out);
    write_json_at(&mut buffered, 0, value)?;
    std::io::Write::flush(&mut buffered)
}

/// `value` as pretty JSON text (with [`SafeJsonFormatter`]'s escapes), without a final newline.
pub fn to_pretty_string<T: serde::Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    // Writing to memory fails only if serializing does, which plain data cannot.
    let _ = write_json_at(&mut out, 0, value);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes `value` as [`write_json`] would where it sits at nesting `level` of a document.
pub fn write_json_at<W: std::io::Write, T: serde::Serialize + ?Sized>(
    out: &mut W,
    level: usize,
    value: &T,
) -> std::io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(out, SafeJsonFormatter::at_level(level));
    value.serialize(&mut ser).map_err(std::io::Error::other)
}

/// Writes `value` as compact JSON on one line, with [`SafeJsonFormatter`]'s escapes.
pub fn write_json_compact<W: std::io::Write, T: serde::Serialize + ?Sized>(
    out: &mut W,
    value: &T,
) -> std::io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(out, SafeJsonFormatter::compact());
    value.serialize(&mut ser).map_err(std::io::Error::other)
}

/// An open object or array at nesting `level`: what comes before each of its entries, and its
/// end, as the streaming writer writes them.
struct Open<'w, W: Write> {
    out: &'w mut W,
    level: usize,
    first: bool,
    close: &'static [u8],
}

impl<'w, W: Write> Open<'w, W> {
    fn begin(out: &'w mut W, level: usize, brackets: &'static [u8; 2]) -> std::io::Result<Self> {
        out.write_all(&brackets[..1])?;
        Ok(Open {
            out,
            level,
            first: true,
            close: &brackets[1..],
        })
    }

    /// Starts an entry; returns the writer and the entry's nesting level.
    fn entry(&mut self) -> std::io::Result<(&mut W, usize)> {
        if !self.first {
            self.out.write_all(b",")?;
        }
        self.first = false;
        write_newline_indent(self.out, self.level + 1)?;
        Ok((self.out, self.level + 1))
    }

    fn end(self) -> std::io::Result<()> {
        if !self.first {
            write_newline_indent(self.out, self.level)?;
        }
        self.out.write_all(self.close)
    }
}

/// An object at nesting `level`, written field by field.
pub struct ObjectWriter<'w, W: Write>(Open<'w, W>);

impl<'w, W: Write> ObjectWriter<'w, W> {
    pub fn begin(out: &'w mut W, level: usize) -> std::io::Result<Self> {
        Open::begin(out, level, b"{}").map(ObjectWriter)
    }

    /// A field whose value `write` writes, given the writer and the value's nesting level.
    pub fn field(
        &mut self,
        key: &str,
        write: impl FnOnce(&mut W, usize) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let (out, level) = self.0.entry()?;
        write_json_at(out, level, key)?;
        out.write_all(b": ")?;
        write(out, level)
    }

    /// A field with a serializable value.
    pub fn value<T: serde::Serialize + ?Sized>(
        &mut self,
        key: &str,
        value: &T,
    ) -> std::io::Result<()> {
        self.field(key, |out, level| write_json_at(out, level, value))
    }

    pub fn end(self) -> std::io::Result<()> {
        self.0.end()
    }
}

/// An array at nesting `level`, written element by element.
pub struct ArrayWriter<'w, W: Write>(Open<'w, W>);

impl<'w, W: Write> ArrayWriter<'w, W> {
    pub fn begin(out: &'w mut W, level: usize) -> std::io::Result<Self> {
        Open::begin(out, level, b"[]").map(ArrayWriter)
    }

    /// An element that `write` writes, given the writer and the element's nesting level.
    pub fn element(
        &mut self,
        write: impl FnOnce(&mut W, usize) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let (out, level) = self.0.entry()?;
        write(out, level)
    }

    pub fn end(self) -> std::io::Result<()> {
        self.0.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time test agrees with the table for every byte value at every place of
    /// strings of 0 to 24 bytes.
    #[test]
    fn plain_words_agree_with_the_table() {
        assert!(is_plain(b""));
        for len in 1..=24 {
            assert!(is_plain(&vec![b'a'; len]));
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    assert_eq!(
                        is_plain(&bytes),
                        PLAIN[b as usize],
                        "{b:#04x} at {at} of {len}"
                    );
                }
            }
        }
    }

    /// The first byte [`unplain_bytes`] marks is the first that is not plain, whatever the
    /// bytes after it: every byte value at every place, followed by each kind of escape.
    #[test]
    fn the_first_unplain_byte_is_found_exactly() {
        for at in 0..8 {
            for b in 0..=255u8 {
                for after in [b'a', b'"', b'\\', 0x00, 0x1f, 0x7f, 0x80, 0xff] {
                    let mut bytes = [b'a'; 8];
                    bytes[at] = b;
                    bytes[at + 1..].fill(after);
                    let first = bytes.iter().position(|&x| !PLAIN[x as usize]);
                    let unplain = unplain_bytes(word_at(&bytes));
                    let found = (unplain != 0).then(|| (unplain.trailing_zeros() / 8) as usize);
                    assert_eq!(found, first, "{bytes:?}");
                }
            }
        }
    }

    /// Numbers come out as `to_string` writes them: every value to 12,000, and at the edges of
    /// each width up to `u64::MAX`.
    #[test]
    fn numbers_are_their_decimal_digits() {
        let mut values: Vec<u64> = (0..=12_000).collect();
        let mut power = 10u64;
        while let Some(next) = power.checked_mul(10) {
            values.extend([power - 1, power, power + 1]);
            power = next;
        }
        values.push(u64::MAX);
        for n in values {
            let mut out = b"x".to_vec();
            write_number(&mut out, n);
            assert_eq!(out, format!("x{n}").into_bytes());
        }
    }

    fn via_serde<T: serde::Serialize>(level: usize, value: &T) -> String {
        let mut out = Vec::new();
        write_json_at(&mut out, level, value).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Strings come out as serde_json and the safe formatter write them: every character up to
    /// U+0200, and the dangerous ones beyond.
    #[test]
    fn strings_match_the_serde_path() {
        let mut texts: Vec<String> = (0u32..0x200)
            .filter_map(char::from_u32)
            .map(|c| format!("a{c}b"))
            .collect();
        texts.extend(
            [
                "\u{61C}",
                "\u{200E}",
                "\u{202E}x",
                "\u{2066}",
                "\u{2069}",
                "\u{2028}",
                "\u{2029}",
                "\u{FEFF}",
                "\u{1F600}",
                "é\u{1b}[2J\"\\",
                "",
                "plain text",
                "\u{7f}\u{9f}\u{a0}",
            ]
            .map(String::from),
        );
        texts.push(texts.concat());
        // Each escape at every place of a longer plain text, where a word-wide step may land
        // on it or straddle it.
        for special in ["\"", "\\", "\n", "\u{1b}", "é", "\u{202E}", "\u{7f}"] {
            for at in 0..=20 {
                texts.push(format!(
                    "{}{special}{}",
                    "p".repeat(at),
                    "q".repeat(20 - at)
                ));
            }
        }
        for text in &texts {
            let mut out = Vec::new();
            JsonWriter::new(&mut out, 0).string(text);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                via_serde(0, text),
                "{text:?}"
            );
        }
        assert!(!texts.concat().is_empty());
    }

    #[derive(serde::Serialize)]
    struct Inner {
        n: u64,
        s: Option<&'static str>,
    }

    #[derive(serde::Serialize)]
    struct Outer {
        a: &'static str,
        empty: Vec<Inner>,
        items: Vec<Inner>,
        inner: Inner,
        none: Option<&'static str>,
    }

    fn write_inner(w: &mut JsonWriter<'_>, inner: &Inner) {
        w.begin_object();
        w.key("n");
        w.number(inner.n);
        w.key("s");
        match inner.s {
            Some(s) => w.string(s),
            None => w.null(),
        }
        w.end_object();
    }

    /// A part appends its text and nothing else, short or long, onto text already there.
    #[test]
    fn parts_append_their_own_text() {
        for len in 0..=2 * SHORT_PART {
            let text: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            let part = Part::new(&text);
            assert_eq!(matches!(part, Part::Short { .. }), len <= SHORT_PART);
            let mut out = b"before".to_vec();
            part.append_to(&mut out);
            assert_eq!(out, [&b"before"[..], &text].concat(), "{len} bytes");
        }
    }

    /// A skeleton filled in with values, and a writer resumed after its last part, give the
    /// text the writer gives for the whole value.
    #[test]
    fn filled_skeletons_match_the_writer() {
        let hostile = "x\u{1b}[31m \"q\" \u{202e}";
        // Level 12's parts are longer than a short part's block.
        for level in [0, 1, 4, 12] {
            let skeleton = Skeleton::new(level, |w| {
                w.begin_object();
                w.key("a");
                w.hole();
                w.key("b");
                w.begin_array();
                w.item();
                w.hole();
                w.item();
                w.begin_object();
                w.key("c");
                w.hole();
                w.end_object();
                w.end_array();
            });
            let mut filled = Vec::new();
            let mut parts = skeleton.parts();
            parts.next_into(&mut filled);
            write_string(&mut filled, hostile);
            parts.next_into(&mut filled);
            write_number(&mut filled, 42);
            parts.next_into(&mut filled);
            write_string(&mut filled, "");
            assert!(!parts.is_done());
            parts.next_into(&mut filled);
            assert!(parts.is_done());
            let mut rest = JsonWriter::resume(&mut filled, level + 1, false);
            rest.key("d");
            rest.null();
            rest.end_object();

            let mut direct = Vec::new();
            let mut w = JsonWriter::new(&mut direct, level);
            w.begin_object();
            w.key("a");
            w.string(hostile);
            w.key("b");
            w.begin_array();
            w.item();
            w.number(42);
            w.item();
            w.begin_object();
            w.key("c");
            w.string("");
            w.end_object();
            w.end_array();
            w.key("d");
            w.null();
            w.end_object();
            assert_eq!(
                String::from_utf8(filled),
                String::from_utf8(direct),
                "level {level}"
            );
        }
    }

    /// Nesting, empty and full arrays, numbers and nulls are laid out as serde_json lays them
    /// out, at any starting level.
    #[test]
    fn layout_matches_the_serde_path() {
        let value = Outer {
            a: "x",
            empty: Vec::new(),
            items: vec![
                Inner { n: 0, s: None },
                Inner {
                    n: u64::MAX,
                    s: Some("y"),
                },
            ],
            inner: Inner {
                n: 1234567890,
                s: Some("\n"),
            },
            none: None,
        };
        for level in [0, 1, 3, 70] {
            let mut out = Vec::new();
            let mut w = JsonWriter::new(&mut out, level);
            w.begin_object();
            w.key("a");
            w.string(value.a);
            w.key("empty");
            w.begin_array();
            w.end_array();
            w.key("items");
            w.begin_array();
            for inner in &value.items {
                w.item();
                write_inner(&mut w, inner);
            }
            w.end_array();
            w.key("inner");
            write_inner(&mut w, &value.inner);
            w.key("none");
            w.null();
            w.end_object();
            assert_eq!(String::from_utf8(out).unwrap(), via_serde(level, &value));
        }
    }

    /// The compact writer, a compact skeleton and the compact formatter all write what
    /// serde_json's compact output writes (for text without dangerous characters).
    #[test]
    fn compact_layout_matches_serde_json() {
        let value = serde_json::json!({
            "a": "x y: z", "empty": [], "obj": {}, "items": [{"n": 0, "s": null}, {"n": 1, "s": "\n"}]
        });
        let expected = serde_json::to_string(&value).unwrap();
        let mut via_formatter = Vec::new();
        write_json_compact(&mut via_formatter, &value).unwrap();
        assert_eq!(String::from_utf8(via_formatter).unwrap(), expected);

        let skeleton = Skeleton::compact(|w| {
            w.begin_object();
            w.key("a");
            w.hole();
            w.key("empty");
            w.begin_array();
            w.end_array();
            w.key("obj");
            w.begin_object();
            w.end_object();
            w.key("items");
            w.begin_array();
            w.item();
            w.hole();
        });
        let mut out = Vec::new();
        let mut parts = skeleton.parts();
        parts.next_into(&mut out);
        write_string(&mut out, "x y: z");
        parts.next_into(&mut out);
        let mut first = JsonWriter::compact(&mut out);
        write_inner(&mut first, &Inner { n: 0, s: None });
        parts.next_into(&mut out);
        assert!(parts.is_done());
        let mut w = JsonWriter::resume_compact(&mut out, false);
        w.item();
        write_inner(
            &mut w,
            &Inner {
                n: 1,
                s: Some("\n"),
            },
        );
        w.end_array();
        w.end_object();
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }
}
