//! Byte offsets to line and column, in the units every output format uses.
//!
//! Columns are 1-based UTF-16 code units everywhere (SARIF and GitHub need them; one unit for every
//! format keeps them comparable). Lines end at `\n`; a `\r` before it belongs to the line ending.

/// A 1-based position: line, UTF-16 column, and the byte column for tools that want bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<u32>,
    /// For each line longer than [`BLOCK`] bytes that a position was asked on: the UTF-16
    /// units before each `BLOCK`-byte step of it. A position on a long line (a minified 32 MiB
    /// spec is one line) then counts at most `BLOCK` bytes, so a file's positions cost
    /// O(text + findings × BLOCK) instead of O(text × findings).
    long_lines: std::collections::HashMap<u32, Vec<u32>>,
}

/// The step of a long line's checkpoints, in bytes.
const BLOCK: usize = 4096;

/// UTF-16 code units in valid UTF-8 `bytes`: one per char (every byte that does not continue
/// one), two for a four-byte char (its lead byte is 0xF0 or above). Per byte, so it adds up
/// over any split of the bytes, char boundaries or not.
fn utf16_units(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .map(|&b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        // Specs are pretty-printed: a line every twenty bytes or so.
        let mut line_starts = Vec::with_capacity(text.len() / 16 + 1);
        line_starts.push(0);
        push_line_starts(text.as_bytes(), &mut line_starts);
        LineIndex {
            line_starts,
            long_lines: std::collections::HashMap::new(),
        }
    }

    /// 0-based line holding `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&(offset as u32)) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts[line] as usize
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Byte range of 0-based `line` without its line ending.
    pub fn line_range(&self, text: &str, line: usize) -> std::ops::Range<usize> {
        let start = self.line_starts[line] as usize;
        let mut end = self
            .line_starts
            .get(line + 1)
            .map(|&s| s as usize - 1)
            .unwrap_or(text.len());
        if end > start && text.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
        start..end
    }

    /// 1-based line and UTF-16 column of `offset` (clamped to the text and to a char boundary).
    pub fn position(&mut self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let start = self.line_starts[line] as usize;
        let bytes = text.as_bytes();
        let column = if offset - start <= BLOCK {
            utf16_units(&bytes[start..offset])
        } else {
            let steps = self.long_lines.entry(line as u32).or_insert_with(|| {
                let end = bytes[start..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |at| start + at);
                let mut units = 0u32;
                let mut steps = vec![0];
                for block in bytes[start..end].chunks_exact(BLOCK) {
                    units += utf16_units(block) as u32;
                    steps.push(units);
                }
                steps
            });
            let step = (offset - start) / BLOCK;
            let from = start + step * BLOCK;
            steps[step] as usize + utf16_units(&bytes[from..offset])
        };
        Position {
            line: line as u32 + 1,
            column: column as u32 + 1,
        }
    }
}

impl LineIndex {
    /// 1-based line and UTF-16 column of `offset`, at or after `from` (a char boundary) whose
    /// position is `at`: a span's end from its start. On the same line and at most a
    /// [`BLOCK`] further, the column counts on from `at`'s, without searching for the line
    /// again; otherwise as [`LineIndex::position`].
    pub fn position_after(
        &mut self,
        text: &str,
        (from, at): (usize, Position),
        offset: usize,
    ) -> Position {
        let next_line = self.line_starts.get(at.line as usize).map(|&s| s as usize);
        let same_line = next_line.is_none_or(|next| offset < next);
        if offset < from || offset - from > BLOCK || offset > text.len() || !same_line {
            return self.position(text, offset);
        }
        let mut offset = offset;
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        Position {
            line: at.line,
            column: at.column + utf16_units(&text.as_bytes()[from..offset]) as u32,
        }
    }
}

/// Positions in a text with few findings, counted instead of indexed: counting the line breaks
/// before an offset is one vectorised pass (about 70 ns over a 2.5 KB spec) where building the
/// index searches line by line (about 800 ns), and most files with findings have two or three.
/// A count goes on from the last offset asked when the new one is further on.
#[derive(Debug, Default)]
pub struct LineCount {
    asked: usize,
    /// The last offset counted to, and the 0-based line it is on.
    offset: usize,
    line: usize,
}

/// Texts up to this size have their first positions counted (each count reads at most this
/// much); past it, or past [`COUNTED_POSITIONS`], the index is built.
const COUNTED_TEXT: usize = 64 * 1024;
const COUNTED_POSITIONS: usize = 16;

impl LineCount {
    /// Whether `n` more positions in `text` are counted rather than indexed.
    pub fn takes(&self, text: &str, n: usize) -> bool {
        text.len() <= COUNTED_TEXT && self.asked + n <= COUNTED_POSITIONS
    }

    /// 1-based line and UTF-16 column of `offset` (clamped to the text and to a char
    /// boundary), as [`LineIndex::position`] gives them.
    pub fn position(&mut self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let bytes = text.as_bytes();
        let (from, line) = if offset >= self.offset {
            (self.offset, self.line)
        } else {
            (0, 0)
        };
        let line = line + line_breaks(&bytes[from..offset]);
        let start = memchr::memrchr(b'\n', &bytes[..offset]).map_or(0, |at| at + 1);
        self.asked += 1;
        self.offset = offset;
        self.line = line;
        Position {
            line: line as u32 + 1,
            column: utf16_units(&bytes[start..offset]) as u32 + 1,
        }
    }
}

/// Pushes the offset after each `\n` of `bytes`. Built for the first finding of a file, so it
/// runs often, over lines a few dozen bytes long: a `memchr` per line pays its set-up per line,
/// where a mask of each 32-byte block's line breaks costs the same whatever the lines, about
/// three times less on a spec.
fn push_line_starts(bytes: &[u8], line_starts: &mut Vec<u32>) {
    let mut blocks = bytes.chunks_exact(BREAK_BLOCK);
    let mut base = 0u32;
    for block in &mut blocks {
        let Ok(block) = block.try_into() else {
            continue;
        };
        let mut breaks = block_breaks(block);
        while breaks != 0 {
            line_starts.push(base + breaks.trailing_zeros() + 1);
            breaks &= breaks - 1;
        }
        base += BREAK_BLOCK as u32;
    }
    let tail = blocks.remainder().iter().enumerate();
    line_starts.extend(
        tail.filter(|(_, &b)| b == b'\n')
            .map(|(i, _)| base + i as u32 + 1),
    );
}

/// Bytes of a block whose line breaks [`block_breaks`] finds at once.
const BREAK_BLOCK: usize = 32;

/// A mask of the line breaks of `block`: bit `i` for a `\n` at `i`. Two 16-byte compares with
/// SSE2 (part of every x86_64 target).
#[cfg(target_arch = "x86_64")]
fn block_breaks(block: &[u8; BREAK_BLOCK]) -> u32 {
    use std::arch::x86_64::_mm_set1_epi8;
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8};
    // SAFETY: each unaligned load reads 16 of the block's 32 bytes; SSE2 is always there.
    let (low, high) = unsafe {
        let newline = _mm_set1_epi8(b'\n' as i8);
        let at = |i: usize| _mm_loadu_si128(block.as_ptr().add(i).cast::<__m128i>());
        (
            _mm_movemask_epi8(_mm_cmpeq_epi8(at(0), newline)),
            _mm_movemask_epi8(_mm_cmpeq_epi8(at(16), newline)),
        )
    };
    // Each mask holds 16 bits in the low half of an `i32`.
    (low as u32 & 0xFFFF) | (high as u32) << 16
}

/// [`block_breaks`] on other targets: a fold the compiler vectorises.
#[cfg(not(target_arch = "x86_64"))]
fn block_breaks(block: &[u8; BREAK_BLOCK]) -> u32 {
    block
        .iter()
        .enumerate()
        .fold(0u32, |mask, (i, &b)| mask | (u32::from(b == b'\n') << i))
}

/// How many `\n` `bytes` holds: counted in runs short enough for a byte counter, which the
/// compiler vectorises.
fn line_breaks(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|run| {
            let breaks = run
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(b == b'\n')));
            usize::from(breaks)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block-wise scan finds the line breaks a byte-by-byte scan finds: texts of every
    /// length around the block width, breaks at each end of a block, runs of breaks, and
    /// multi-byte chars whose bytes are never `\n`.
    #[test]
    fn line_starts_are_every_line_break() {
        let naive = |bytes: &[u8]| -> Vec<u32> {
            let after = bytes.iter().enumerate().filter(|(_, &b)| b == b'\n');
            std::iter::once(0)
                .chain(after.map(|(i, _)| i as u32 + 1))
                .collect()
        };
        let mut texts: Vec<Vec<u8>> = Vec::new();
        for len in 0..=130 {
            texts.push(vec![b'x'; len]);
            texts.push(vec![b'\n'; len]);
            let mut ends = vec![b'a'; len];
            for at in [0, 30, 31, 32, 33, 63, 64, 95, 96, 127] {
                if at < len {
                    ends[at] = b'\n';
                }
            }
            texts.push(ends);
        }
        texts.push("é名😀\n\r\n".repeat(40).into_bytes());
        for text in texts {
            let mut found = vec![0];
            push_line_starts(&text, &mut found);
            assert_eq!(found, naive(&text), "{text:?}");
        }
    }

    #[test]
    fn columns_are_utf16_code_units() {
        let text = "{\n  \"名\": \"😀x\"\r\n}";
        let mut index = LineIndex::new(text);
        let x = text.find('x').unwrap();
        // `  "名": "😀` = 2 + 1 + 1 + 1 + 1 + 1 + 1 + 2 UTF-16 units before x.
        assert_eq!(
            index.position(text, x),
            Position {
                line: 2,
                column: 11
            }
        );
        assert_eq!(
            index.position(text, text.len() - 1),
            Position { line: 3, column: 1 }
        );
        assert_eq!(&text[index.line_range(text, 1)], "  \"名\": \"😀x\"");
    }

    /// Positions on lines past the checkpoint step agree with counting the chars, on ASCII,
    /// two-, three- and four-byte chars, and offsets around every step.
    #[test]
    fn long_lines_count_like_chars() {
        let mut text = String::from("{\"k\": \"");
        let pieces = ["a", "é", "名", "😀", "bc"];
        for i in 0..9000 {
            text.push_str(pieces[i * 7 % pieces.len()]);
        }
        text.push_str("\"}\n\"second\"\n");
        text.push_str(&"😀".repeat(3000));
        let mut index = LineIndex::new(&text);
        let slow = |offset: usize| -> Position {
            let before = &text[..offset];
            let line_start = before.rfind('\n').map_or(0, |at| at + 1);
            let column: usize = text[line_start..offset].chars().map(char::len_utf16).sum();
            Position {
                line: before.matches('\n').count() as u32 + 1,
                column: column as u32 + 1,
            }
        };
        let mut offsets: Vec<usize> = (0..text.len()).step_by(97).collect();
        for step in 1..12 {
            for delta in 0..6 {
                offsets.push((step * BLOCK + delta).min(text.len()));
                offsets.push((step * BLOCK).saturating_sub(delta));
            }
        }
        offsets.push(text.len());
        for offset in offsets {
            let mut at = offset;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            assert_eq!(index.position(&text, offset), slow(at), "offset {offset}");
        }
    }

    /// Texts of up to 400 pieces: line breaks (`\n`, `\r\n`, runs of them), multi-byte chars
    /// and a bit of JSON.
    fn spec_like_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "a",
            "\n",
            "\r\n",
            "é",
            "名",
            "😀",
            "{\"k\": 1}",
            "\n\n\n",
        ]);
        prop::collection::vec(piece, 0..400).prop_map(|p| p.concat())
    }

    /// Counted positions are the index's, whatever the order they are asked in: across
    /// line breaks (`\n`, `\r\n`), multi-byte chars, offsets inside a char or past the end,
    /// and runs of more than 255 line breaks.
    #[test]
    fn counted_positions_are_the_index_positions() {
        use proptest::prelude::*;
        let text = spec_like_text();
        let case = text.prop_flat_map(|t| {
            let len = t.len();
            (Just(t), prop::collection::vec(0..len + 3, 1..12))
        });
        proptest!(|((text, offsets) in case)| {
            let mut index = LineIndex::new(&text);
            let mut counted = LineCount::default();
            for offset in offsets {
                prop_assert_eq!(counted.position(&text, offset), index.position(&text, offset));
            }
        });
        let breaks = "\n".repeat(1000);
        let mut counted = LineCount::default();
        assert_eq!(
            counted.position(&breaks, 700),
            Position {
                line: 701,
                column: 1
            }
        );
        assert_eq!(
            counted.position(&breaks, 999),
            Position {
                line: 1000,
                column: 1
            }
        );
        assert_eq!(
            counted.position(&breaks, 3),
            Position { line: 4, column: 1 }
        );
    }

    /// A position counted on from an earlier one is the index's: on its line or past it, a
    /// char's middle, past the end, and across a long line's blocks.
    #[test]
    fn positions_after_are_the_index_positions() {
        use proptest::prelude::*;
        let text = spec_like_text();
        let case = text.prop_flat_map(|t| {
            let len = t.len();
            (Just(t), 0..len + 1, 0..len + 3)
        });
        proptest!(|((text, from, offset) in case)| {
            let mut index = LineIndex::new(&text);
            let mut from = from;
            while !text.is_char_boundary(from) {
                from -= 1;
            }
            let at = index.position(&text, from);
            prop_assert_eq!(
                index.position_after(&text, (from, at), offset),
                index.position(&text, offset)
            );
        });
        let long = "é".repeat(3 * BLOCK);
        let mut index = LineIndex::new(&long);
        for (from, offset) in [(0, 2 * BLOCK), (2, 2 + BLOCK), (BLOCK, 5 * BLOCK), (6, 4)] {
            let at = index.position(&long, from);
            assert_eq!(
                index.position_after(&long, (from, at), offset),
                index.position(&long, offset),
                "{from}..{offset}"
            );
        }
    }

    /// A locator counts the first positions of a small text and indexes the rest, or a large
    /// text's from the first; the positions are the same either way.
    #[test]
    fn a_locator_counts_then_indexes() {
        let small: String = (0..300).map(|i| format!("line {i} é\n")).collect();
        let large = small.repeat(300);
        for (text, spans) in [(&small, 1), (&large, 1), (&small, 40)] {
            let mut locator = crate::diagnostic::Locator::for_spans(text, spans);
            let mut index = LineIndex::new(text);
            for i in (0..40).rev() {
                let at = (i * 977) % text.len();
                let (span, start, end) =
                    locator.positions(crate::diagnostic::Span::new(at, at + 3));
                assert_eq!(start, index.position(text, span.start as usize), "{i}");
                assert_eq!(end, index.position(text, span.end as usize), "{i}");
            }
        }
    }
}
