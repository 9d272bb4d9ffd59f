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
        let mut line_starts = Vec::with_capacity(text.len() / 24 + 1);
        line_starts.push(0);
        // A vectorised search: built for the first finding of a file, so it runs often.
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i as u32 + 1));
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
