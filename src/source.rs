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
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = Vec::with_capacity(text.len() / 24 + 1);
        line_starts.push(0);
        // A vectorised search: built for the first finding of a file, so it runs often.
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i as u32 + 1));
        LineIndex { line_starts }
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
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let start = self.line_starts[line] as usize;
        let column: usize = text[start..offset].chars().map(char::len_utf16).sum();
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
        let index = LineIndex::new(text);
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
}
