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
    let mut hash = Fnv::default();
    let mut add = |b: u8| hash.byte(b);
    let (mut in_string, mut escaped) = (false, false);
    for b in json_text.bytes() {
        if in_string {
            add(b);
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            in_string = b == b'"';
            add(b);
        }
    }
    add(0);
    hash.0
}

#[cfg(test)]
mod tests {
    use super::*;

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
