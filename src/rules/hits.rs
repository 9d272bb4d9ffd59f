//! The violations a rule's checks find in one file, kept bounded.

use crate::diagnostic::Span;

/// A violation found by a check, before the engine stamps rule id and severity on it.
#[derive(Debug, Clone)]
pub struct Hit {
    pub span: Span,
    pub pointer: String,
    pub message: String,
    pub help: Option<String>,
    pub related: Vec<(Span, String)>,
    /// Related places in another file, located already.
    pub elsewhere: Vec<crate::diagnostic::Related>,
    /// How the check that found it fixes it, if it can.
    pub fix: Option<std::sync::Arc<super::fix::FixSpec>>,
    /// The one key a misspelt key most likely meant (`unknown-field`).
    pub suggestion: Option<String>,
}

/// One rule's hits in a file: one per span and pointer (two checks of a rule can agree on a
/// value, while two fields missing from one object are two faults drawn at the same span), of
/// which only the first `limit` by span and pointer are reported. A hostile file can make a
/// check fail on each of a million items, so past twice the limit the hits are sorted and cut
/// back to it; of the hits cut only the span and a hash of the pointer are kept, to count the
/// distinct ones. Memory stays bounded by the limit (and 16 bytes a cut hit), time
/// O(n log n) in the number of hits.
#[derive(Debug, Default)]
pub struct Hits {
    limit: usize,
    kept: Vec<Hit>,
    cut: Vec<(Span, u64)>,
}

impl Hits {
    pub fn new(limit: usize) -> Hits {
        Hits {
            limit: limit.max(1),
            kept: Vec::new(),
            cut: Vec::new(),
        }
    }

    /// Empties it for a new file with `limit`, keeping its buffers: a worker reuses one,
    /// whose hits would otherwise grow from nothing for every rule of every file.
    pub fn reset(&mut self, limit: usize) {
        self.limit = limit.max(1);
        self.kept.clear();
        self.cut.clear();
    }

    pub fn push(&mut self, hit: Hit) {
        self.kept.push(hit);
        if self.kept.len() >= 2 * self.limit {
            self.cut_back();
        }
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Sorts by span and pointer (stably: of equal ones the first found stays), drops repeats,
    /// and moves all past the limit to `cut`. A hit cut once has `limit` distinct smaller ones
    /// kept before it from then on, so it can never come back.
    fn cut_back(&mut self) {
        self.kept
            .sort_by(|a, b| (a.span, &a.pointer).cmp(&(b.span, &b.pointer)));
        self.kept
            .dedup_by(|a, b| a.span == b.span && a.pointer == b.pointer);
        if self.kept.len() > self.limit {
            self.cut.extend(
                self.kept
                    .drain(self.limit..)
                    .map(|hit| (hit.span, pointer_hash(&hit.pointer))),
            );
        }
    }

    /// The rule's hits in span and pointer order, one each, at most `limit`; and how many
    /// more distinct ones were found. Leaves `self` empty for the next rule, its buffers kept.
    pub fn take(&mut self) -> (std::vec::Drain<'_, Hit>, usize) {
        self.cut_back();
        let mut more = 0;
        if !self.cut.is_empty() {
            self.cut.sort_unstable();
            self.cut.dedup();
            // No cut hit is a kept one (see `cut_back`), so the distinct cut ones are the rest
            // (two pointers of one span whose hashes collide would count once).
            more = self.cut.len();
            self.cut.clear();
        }
        (self.kept.drain(..), more)
    }
}

/// A pointer's hash, to tell cut hits of one span apart without keeping their pointers.
fn pointer_hash(pointer: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    pointer.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(start: u32, pointer: &str, message: &str) -> Hit {
        Hit {
            elsewhere: Vec::new(),
            fix: None,
            suggestion: None,
            span: Span::new(start as usize, start as usize + 1),
            pointer: pointer.into(),
            message: message.into(),
            help: None,
            related: Vec::new(),
        }
    }

    /// Whatever the order and repeats of the spans and pointers, the result is what sorting
    /// every hit, keeping the first of each span and pointer and cutting at the limit gives,
    /// with the count of the rest.
    #[test]
    fn bounded_hits_match_sorting_them_all() {
        for limit in [1usize, 2, 3, 7, 50] {
            for n in [0usize, 1, 5, 13, 100, 1000] {
                let mut hits = Hits::new(limit);
                let mut all = Vec::new();
                for i in 0..n {
                    // Spans in a scrambled order, each value several times, with one of two
                    // pointers (two missing fields of one object share a span).
                    let start = ((i * 7919) % (n / 3 + 1)) as u32;
                    let pointer = if i % 5 < 2 { "/a" } else { "/b" };
                    let h = hit(start, pointer, &format!("#{i}"));
                    all.push(h.clone());
                    hits.push(h);
                    assert!(hits.kept.len() < 2 * limit.max(1));
                }
                all.sort_by(|a, b| (a.span, &a.pointer).cmp(&(b.span, &b.pointer)));
                all.dedup_by(|a, b| (a.span, &a.pointer) == (b.span, &b.pointer));
                let more = all.len().saturating_sub(limit);
                all.truncate(limit);
                let (kept, cut) = hits.take();
                let kept: Vec<Hit> = kept.collect();
                let messages = |v: &[Hit]| v.iter().map(|h| h.message.clone()).collect::<Vec<_>>();
                assert_eq!(messages(&kept), messages(&all), "limit {limit}, {n} hits");
                assert_eq!(cut, more, "limit {limit}, {n} hits");
                assert!(hits.is_empty() && hits.take().1 == 0, "taken whole");
            }
        }
    }
}
