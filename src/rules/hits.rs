//! The violations a rule's checks find in one file, kept bounded.

use crate::json::Span;

/// A violation found by a check, before the engine stamps rule id and severity on it.
#[derive(Debug, Clone)]
pub struct Hit {
    pub span: Span,
    pub pointer: String,
    pub message: String,
    pub help: Option<String>,
    pub related: Vec<(Span, String)>,
}

/// One rule's hits in a file: one per span (two checks of a rule can agree on a value), of
/// which only the first `limit` by span are reported. A hostile file can make a check fail on
/// each of a million items, so past twice the limit the hits are sorted and cut back to it;
/// of the hits cut only the span is kept, to count the distinct ones. Memory stays bounded by
/// the limit (and 8 bytes a cut hit), time O(n log n) in the number of hits.
#[derive(Debug)]
pub struct Hits {
    limit: usize,
    kept: Vec<Hit>,
    cut: Vec<Span>,
}

impl Hits {
    pub fn new(limit: usize) -> Hits {
        Hits {
            limit: limit.max(1),
            kept: Vec::new(),
            cut: Vec::new(),
        }
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

    /// Sorts by span (stably: of equal spans the first found stays), drops repeated spans,
    /// and moves all past the limit to `cut`. A span cut once has `limit` distinct smaller
    /// spans kept before it from then on, so it can never come back.
    fn cut_back(&mut self) {
        self.kept.sort_by_key(|h| h.span);
        self.kept.dedup_by_key(|h| h.span);
        if self.kept.len() > self.limit {
            self.cut
                .extend(self.kept.drain(self.limit..).map(|hit| hit.span));
        }
    }

    /// The rule's hits in span order, one per span, at most `limit`; and how many more
    /// distinct spans were found. Leaves `self` empty for the next rule.
    pub fn take(&mut self) -> (Vec<Hit>, usize) {
        self.cut_back();
        let kept = std::mem::take(&mut self.kept);
        if self.cut.is_empty() {
            return (kept, 0);
        }
        let mut spans = std::mem::take(&mut self.cut);
        spans.sort_unstable();
        spans.dedup();
        // No cut span is a kept one (see `cut_back`), so the distinct cut spans are the rest.
        (kept, spans.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(start: u32, message: &str) -> Hit {
        Hit {
            span: Span::new(start as usize, start as usize + 1),
            pointer: String::new(),
            message: message.into(),
            help: None,
            related: Vec::new(),
        }
    }

    /// Whatever the order and repeats of the spans, the result is what sorting every hit,
    /// keeping the first of each span and cutting at the limit gives, with the count of the
    /// rest.
    #[test]
    fn bounded_hits_match_sorting_them_all() {
        for limit in [1usize, 2, 3, 7, 50] {
            for n in [0usize, 1, 5, 13, 100, 1000] {
                let mut hits = Hits::new(limit);
                let mut all = Vec::new();
                for i in 0..n {
                    // Spans in a scrambled order, each value several times.
                    let start = ((i * 7919) % (n / 3 + 1)) as u32;
                    let h = hit(start, &format!("#{i}"));
                    all.push(h.clone());
                    hits.push(h);
                    assert!(hits.kept.len() < 2 * limit.max(1));
                }
                all.sort_by_key(|h| h.span);
                all.dedup_by_key(|h| h.span);
                let more = all.len().saturating_sub(limit);
                all.truncate(limit);
                let (kept, cut) = hits.take();
                let messages = |v: &[Hit]| v.iter().map(|h| h.message.clone()).collect::<Vec<_>>();
                assert_eq!(messages(&kept), messages(&all), "limit {limit}, {n} hits");
                assert_eq!(cut, more, "limit {limit}, {n} hits");
                assert!(hits.is_empty() && hits.take().1 == 0, "taken whole");
            }
        }
    }
}
