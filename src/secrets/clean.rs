//! The texts a worker found free of secrets: messages and helps repeat from finding to
//! finding, and telling one clean costs a pass of the prefilter.

/// Some texts found clean, by a hash of each, each compared whole before it is trusted. Many
/// findings repeat a message (an audit meets the same unknown keys file after file) or a
/// rule's help, and telling one clean costs a pass of the prefilter: a worker keeps one of
/// these from file to file. Memory stays bounded by its slots.
pub struct CleanTexts {
    slots: [Option<Box<str>>; CLEAN_SLOTS],
}

/// Slots of [`CleanTexts`], in sets of two: a text may sit in either slot of its set.
const CLEAN_SLOTS: usize = 256;

impl Default for CleanTexts {
    fn default() -> CleanTexts {
        CleanTexts {
            slots: std::array::from_fn(|_| None),
        }
    }
}

impl CleanTexts {
    /// Whether `text` is one found clean.
    pub(super) fn holds(&self, text: &str) -> bool {
        let set = Self::set(text);
        self.slots[set..set + 2]
            .iter()
            .any(|kept| kept.as_deref() == Some(text))
    }

    /// Keeps `text`, found clean: in an empty slot of its set, else in the first, the text
    /// there moving to the second in place of the older one.
    pub(super) fn insert(&mut self, text: &str) {
        let set = Self::set(text);
        let ways = &mut self.slots[set..set + 2];
        if ways[0].is_some() {
            ways.swap(0, 1);
        }
        ways[0] = Some(text.into());
    }

    /// The first slot of a text's set, from a hash of the whole text, eight bytes a step.
    /// Messages of one rule often differ only in the middle (`spec.source.exp "experiments/a"
    /// names no directory…`), so a key of their ends and length would give them one slot, where
    /// they would push each other out file after file. A collision only costs a pass of the
    /// patterns.
    pub(super) fn set(text: &str) -> usize {
        const K: u64 = 0x9E37_79B9_7F4A_7C15;
        let bytes = text.as_bytes();
        let mut words = bytes.chunks_exact(8);
        let mut hash = bytes.len() as u64;
        for word in &mut words {
            let word = word.try_into().map_or(0, u64::from_le_bytes);
            hash = (hash.rotate_left(23) ^ word).wrapping_mul(K);
        }
        let mut tail = [0u8; 8];
        tail[..words.remainder().len()].copy_from_slice(words.remainder());
        hash = (hash.rotate_left(23) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
        ((hash >> 56) as usize % CLEAN_SLOTS) & !1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages that differ only in the middle, of one length, are kept side by side: the
    /// hash reads the whole text.
    #[test]
    fn messages_differing_in_the_middle_are_all_kept() {
        let messages: Vec<String> = ["agents", "speech", "vision", "my-lab"]
            .iter()
            .map(|e| {
                format!(
                    "spec.source.exp \"experiments/{e}\" names no directory under the project root"
                )
            })
            .collect();
        let mut clean = CleanTexts::default();
        for m in &messages {
            clean.insert(m);
        }
        assert!(messages.iter().all(|m| clean.holds(m)));
    }

    /// A set keeps its two latest texts; a third pushes out the older.
    #[test]
    fn a_set_keeps_its_two_latest_texts() {
        let first = "a clean text";
        let same_set = |n: usize| {
            (0..100_000)
                .map(|i| format!("another clean text {i}"))
                .filter(|t| CleanTexts::set(t) == CleanTexts::set(first))
                .nth(n)
                .expect("texts of the same set")
        };
        let (second, third) = (same_set(0), same_set(1));
        let mut clean = CleanTexts::default();
        clean.insert(first);
        clean.insert(&second);
        assert!(clean.holds(first) && clean.holds(&second));
        clean.insert(&third);
        assert!(!clean.holds(first) && clean.holds(&second) && clean.holds(&third));
        assert!(!clean.holds("a clean tex") && !clean.holds(""));
    }
}
