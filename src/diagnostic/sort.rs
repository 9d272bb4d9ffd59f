//! Sorting a run's findings into report order, whatever the order the workers found them in.

use std::sync::Arc;

use rayon::prelude::*;

use super::Finding;

/// Sorts findings by [`Finding::sort_key`], stably: [`sorted_order`], then each finding is
/// moved once.
pub fn sort_findings(findings: &mut [Finding]) {
    let order = sorted_order(findings);
    permute(findings, order);
}

/// The positions of `findings` in the order a stable sort by [`Finding::sort_key`] gives them,
/// without moving a finding (a spill encodes them in this order as they lie).
///
/// A file's findings arrive together and share one path, so the runs of one path are sorted by
/// path, and then each path's findings by the rest of the key. Paths are compared by the 16
/// bytes after the prefix all of them share (a number, no memory to fetch), and in full only
/// when those are equal.
pub fn sorted_order(findings: &[Finding]) -> Vec<usize> {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if Arc::ptr_eq(&findings[run.start].path, &f.path) => run.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    let path_of = |run: &std::ops::Range<usize>| -> &str { &findings[run.start].path };
    let skip = runs.split_first().map_or(0, |(first, rest)| {
        let first = path_of(first).as_bytes();
        rest.iter().fold(first.len(), |len, run| {
            common_prefix_len(&first[..len], path_of(run).as_bytes())
        })
    });
    let mut keyed: Vec<(u128, &str, std::ops::Range<usize>)> = runs
        .into_iter()
        .map(|run| {
            let path = path_of(&run);
            (path_key(&path.as_bytes()[skip..]), path, run)
        })
        .collect();
    // The run's start breaks ties: runs of one path in two `Arc`s keep their order, and so do
    // their findings below.
    keyed.par_sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| a.1.cmp(b.1))
            .then(a.2.start.cmp(&b.2.start))
    });
    let mut order: Vec<usize> = Vec::with_capacity(findings.len());
    let mut keyed = keyed.into_iter().peekable();
    while let Some((_, path, run)) = keyed.next() {
        let from = order.len();
        order.extend(run);
        while let Some((_, _, next)) = keyed.next_if(|(_, p, _)| *p == path) {
            order.extend(next);
        }
        // One path's findings: ordered by the rest of the key.
        order[from..].sort_by(|&a, &b| {
            let key = |i: usize| findings[i].sort_key_in_file();
            key(a).cmp(&key(b))
        });
    }
    order
}

/// Rearranges `items` in place so that position `i` holds what was at `order[i]` (`order` is a
/// permutation of the positions). Each cycle of the permutation is followed once, so every item
/// moves once; two fresh vectors as large as the findings would cost their page faults too.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    assert_eq!(items.len(), order.len());
    for start in 0..order.len() {
        let mut at = start;
        // Each swap puts what belongs at `at` there; the cycle closes where `start`'s item,
        // carried along, belongs.
        while order[at] != DONE {
            let from = std::mem::replace(&mut order[at], DONE);
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

/// The length of the longest common prefix of `a` and `b`.
fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The first 16 bytes of `bytes` as a big-endian number, zero-padded: numbers order as the
/// byte strings do, except that strings equal over their first 16 bytes tie.
fn path_key(bytes: &[u8]) -> u128 {
    let mut key = [0u8; 16];
    let len = bytes.len().min(16);
    key[..len].copy_from_slice(&bytes[..len]);
    u128::from_be_bytes(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Permuting in place gives what collecting by the order gives, for every permutation of a
    /// few items and for long cycles.
    #[test]
    fn permute_follows_the_order() {
        fn all_orders(n: usize) -> Vec<Vec<usize>> {
            if n == 0 {
                return vec![Vec::new()];
            }
            let mut out = Vec::new();
            for smaller in all_orders(n - 1) {
                for at in 0..n {
                    let mut order = smaller.clone();
                    order.insert(at, n - 1);
                    out.push(order);
                }
            }
            out
        }
        for n in 0..6 {
            for order in all_orders(n) {
                let items: Vec<String> = (0..n).map(|i| format!("item {i}")).collect();
                let expected: Vec<String> = order.iter().map(|&i| items[i].clone()).collect();
                let mut permuted = items.clone();
                super::permute(&mut permuted, order.clone());
                assert_eq!(permuted, expected, "{order:?}");
            }
        }
        let n = 1000;
        let order: Vec<usize> = (0..n).map(|i| (i * 7 + 3) % n).collect();
        let mut permuted: Vec<usize> = (0..n).collect();
        super::permute(&mut permuted, order.clone());
        assert_eq!(permuted, order);
    }

    /// Sorting by indices orders findings as a stable sort of the findings does: equal keys
    /// keep their order.
    #[test]
    fn findings_sort_stably_by_key() {
        use crate::diagnostic::Span;
        let finding = |path: &str, start: usize, rule: &str, pointer: &str| Finding {
            pointer: pointer.into(),
            span: Span::new(start, start + 1),
            ..Finding::for_tests(path, rule, 1)
        };
        let mut findings = Vec::new();
        for i in 0..300usize {
            let path = ["b.json", "a.json", "a/b.json", "c.json"][i * 7 % 4];
            let rule = ["x", "y"][i % 2];
            // The pointer is not in the key: it tells equal keys apart.
            findings.push(finding(path, i * 13 % 5, rule, &i.to_string()));
        }
        // As files report them: runs sharing one path, and a path in two runs of their own.
        let paths: Vec<Arc<str>> = ["b.json", "a.json", "b.json", "c.json", "a.json", "a/b.json"]
            .iter()
            .map(|&p| Arc::from(p))
            .collect();
        for i in 0..300usize {
            let mut f = finding("", i * 11 % 7, ["x", "y", "z"][i % 3], &format!("r{i}"));
            f.path = paths[i / 13 % paths.len()].clone();
            findings.push(f);
        }
        let mut expected = findings.clone();
        expected.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let in_order: Vec<Finding> = super::sorted_order(&findings)
            .into_iter()
            .map(|i| findings[i].clone())
            .collect();
        assert_eq!(in_order, expected);
        super::sort_findings(&mut findings);
        assert_eq!(findings, expected);

        // Long paths with a shared prefix: equal over the 16 bytes after it and different
        // later, one a prefix of another, and non-ASCII text where the shared prefix ends.
        let long = [
            "archive/000/run-000006.jobspec.json",
            "archive/000/run-000006.jobspec.json.bak",
            "archive/000/run-000006.jobspec",
            "archive/000/run-000006.jobspec.jso",
            "archive/000/run-000006.jobspec.json/x",
            "archive/000/run-000005.jobspec.json",
            "archive/001/run-000006.jobspec.json",
            "archive/00é/run.json",
            "archive/00è/run.json",
            "archive/00",
            "archive/",
        ];
        let mut findings = Vec::new();
        for i in 0..200usize {
            findings.push(finding(
                long[i * 7 % long.len()],
                i % 3,
                "x",
                &i.to_string(),
            ));
        }
        let mut expected = findings.clone();
        expected.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        super::sort_findings(&mut findings);
        assert_eq!(findings, expected);
        let mut none: Vec<Finding> = Vec::new();
        super::sort_findings(&mut none);
        assert!(none.is_empty());
        let mut none = Vec::new();
        super::sort_findings(&mut none);
        assert!(none.is_empty());
    }
}
