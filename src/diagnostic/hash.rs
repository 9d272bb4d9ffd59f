//! The stable hash: FNV-1a over bytes, the same on every platform and in every version, so
//! that it can be stored (baselines, SARIF and GitLab fingerprints, `--shard`).

/// FNV-1a, 64 bits: stable across versions and platforms, unlike std's hasher, so it can be
/// stored in baselines and SARIF fingerprints; and cheap on short keys, so it also hashes maps
/// keyed by our own short strings (as a [`std::hash::Hasher`]).
#[derive(Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    #[inline]
    pub fn byte(&mut self, b: u8) {
        self.0 ^= u64::from(b);
        self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
    }
}

impl std::hash::Hasher for Fnv {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// [`Fnv`] over `parts`, each followed by a NUL.
pub fn fnv1a(parts: &[&str]) -> u64 {
    let mut hash = Fnv::default();
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0)) {
            hash.byte(b);
        }
    }
    hash.0
}

/// Hash of a JSON value's text without the whitespace between tokens: [`fnv1a`] of the minified
/// text, computed as it is read (no copy).
pub fn value_hash(json_text: &str) -> u64 {
    let bytes = json_text.as_bytes();
    let mut hash = Fnv::default();
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        at += 1;
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            continue;
        }
        hash.byte(b);
        if b == b'"' {
            at = hash_string_rest(&mut hash, bytes, at);
        }
    }
    hash.byte(0);
    hash.0
}

/// Hashes a JSON string's bytes from `at` (just past its opening quote) to its closing quote,
/// whitespace and all: the runs between quotes and backslashes are found with `memchr2` and
/// hashed in a plain loop, not tested byte by byte. Returns the offset past the string.
fn hash_string_rest(hash: &mut Fnv, bytes: &[u8], mut at: usize) -> usize {
    loop {
        let rest = bytes.get(at..).unwrap_or_default();
        let Some(run) = memchr::memchr2(b'"', b'\\', rest) else {
            std::hash::Hasher::write(hash, rest);
            return bytes.len();
        };
        std::hash::Hasher::write(hash, &rest[..=run]);
        at += run + 1;
        if rest[run] == b'"' {
            return at;
        }
        // A backslash: the byte it escapes is the string's, even a quote.
        if let Some(&escaped) = bytes.get(at) {
            hash.byte(escaped);
            at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash as first written, a byte at a time: stored baselines hold its values.
    fn value_hash_bytewise(json_text: &str) -> u64 {
        let mut hash = Fnv::default();
        let (mut in_string, mut escaped) = (false, false);
        for b in json_text.bytes() {
            if in_string {
                hash.byte(b);
                match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_string = false,
                    _ => {}
                }
            } else if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                in_string = b == b'"';
                hash.byte(b);
            }
        }
        hash.byte(0);
        hash.0
    }

    #[test]
    fn value_hash_is_the_bytewise_hash() {
        let texts = [
            "",
            "\"",
            "\"\\",
            "\"a\\\"b\" ,\n 1",
            "\"unterminated \\",
            "{ \"a\\\\\": [1, \"é \\u0041\"],\r\n\t\"b\": \"x y\" }",
            "\"legacy_field_00\"",
            "  [ \"a\\\\\" , \" \\\" \" ]  ",
        ];
        for text in texts {
            assert_eq!(value_hash(text), value_hash_bytewise(text), "{text:?}");
            // Every prefix too: a span cut anywhere, inside an escape or a string.
            for end in (0..text.len()).filter(|&e| text.is_char_boundary(e)) {
                let cut = &text[..end];
                assert_eq!(value_hash(cut), value_hash_bytewise(cut), "{cut:?}");
            }
        }
    }

    #[test]
    fn value_hash_ignores_formatting_only() {
        assert_eq!(value_hash("[1, 2,\n  3]"), value_hash("[1,2,3]"));
        assert_ne!(value_hash("\"a b\""), value_hash("\"ab\""));
        assert_ne!(value_hash("[1,2]"), value_hash("[1,3]"));
        // The same hash as of the minified text, so stored baselines stay valid.
        assert_eq!(
            value_hash("{ \"a\\\" b\": [1, \"é\"] }"),
            fnv1a(&["{\"a\\\" b\":[1,\"é\"]}"])
        );
    }
}
