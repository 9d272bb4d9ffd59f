//! A direct writer of pretty JSON for the elements of long reports (one per finding).
//!
//! It writes byte for byte what [`crate::escape::write_json_at`] writes for the same value —
//! serde_json's two-space layout and escapes, with every [`is_dangerous`] character escaped
//! too — without serde's token-by-token calls: a finding is most of a report's cost once there
//! are thousands of them.

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
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // Whether any byte of `v` is zero (exact for "any", whichever byte it is).
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS != 0;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let w = u64::from_ne_bytes(w);
        // Below 0x20 (a control), 0x80 and above (not ASCII), or DEL, `"` or `\`.
        let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGHS != 0;
        if below_space
            || w & HIGHS != 0
            || has_zero(w ^ (ONES * 0x7F))
            || has_zero(w ^ (ONES * u64::from(b'"')))
            || has_zero(w ^ (ONES * u64::from(b'\\')))
        {
            return false;
        }
    }
    words.remainder().iter().all(|&b| PLAIN[b as usize])
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

/// Pretty JSON appended to a buffer, starting at a nesting level.
pub struct JsonWriter<'b> {
    out: &'b mut Vec<u8>,
    level: usize,
    /// The innermost open container has no entry yet.
    first: bool,
}

impl<'b> JsonWriter<'b> {
    /// A writer for a value that sits at nesting `level` of a document.
    pub fn new(out: &'b mut Vec<u8>, level: usize) -> JsonWriter<'b> {
        JsonWriter {
            out,
            level,
            first: true,
        }
    }

    fn newline_indent(&mut self) {
        self.out.push(b'\n');
        self.out.extend(std::iter::repeat_n(b' ', 2 * self.level));
    }

    fn open(&mut self, bracket: u8) {
        self.out.push(bracket);
        self.level += 1;
        self.first = true;
    }

    fn close(&mut self, bracket: u8) {
        self.level -= 1;
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
        self.out.extend_from_slice(b"\": ");
    }

    pub fn boolean(&mut self, value: bool) {
        self.out
            .extend_from_slice(if value { b"true" } else { b"false" });
    }

    pub fn null(&mut self) {
        self.out.extend_from_slice(b"null");
    }

    pub fn number(&mut self, n: u64) {
        let mut digits = [0u8; 20];
        self.out.extend_from_slice(decimal(n, &mut digits));
    }

    /// A JSON string: serde_json's escapes, and `\uXXXX` for every other dangerous character.
    pub fn string(&mut self, s: &str) {
        self.out.push(b'"');
        if is_plain(s.as_bytes()) {
            self.out.extend_from_slice(s.as_bytes());
        } else {
            self.escaped(s);
        }
        self.out.push(b'"');
    }

    /// `s` with its escapes: runs of plain text are copied whole.
    fn escaped(&mut self, s: &str) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let bytes = s.as_bytes();
        let mut plain = 0;
        let mut at = 0;
        while let Some(&b) = bytes.get(at) {
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
                    self.out.extend_from_slice(&bytes[plain..at]);
                    self.out.extend_from_slice(b"\\u");
                    for shift in [12, 8, 4, 0] {
                        self.out.push(HEX[(n >> shift & 0xF) as usize]);
                    }
                    at += c.len_utf8();
                    plain = at;
                    continue;
                }
            };
            self.out.extend_from_slice(&bytes[plain..at]);
            self.out.extend_from_slice(escape);
            at += 1;
            plain = at;
        }
        self.out.extend_from_slice(&bytes[plain..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::escape::write_json_at;

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
}
