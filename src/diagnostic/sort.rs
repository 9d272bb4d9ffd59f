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

/// Sorts one file's findings by [`Finding::cmp_in_file`], stably, where they are made: the
/// run's sort then finds each file's findings in order and only orders the files.
pub fn sort_in_file(findings: &mut [Finding]) {
    if findings.is_sorted_by(|a, b| a.cmp_in_file(b).is_le()) {
        return;
    }
    let order = if findings.iter().all(|f| f.history.is_none()) {
        order_by_span(findings)
    } else {
        let mut order: Vec<usize> = (0..findings.len()).collect();
        order.sort_by(|&a, &b| findings[a].cmp_in_file(&findings[b]));
        order
    };
    permute(findings, order);
}

/// The order of [`sort_in_file`] for findings without history, whose key starts with the
/// span: each finding's span and position as one integer, sorted as integers (a finding's
/// position keeps equal keys in their order); spans that tie are ordered by the rest.
fn order_by_span(findings: &[Finding]) -> Vec<usize> {
    let mut keyed: Vec<u128> = findings
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let span = u64::from(f.span.start) << 32 | u64::from(f.span.end);
            u128::from(span) << 64 | i as u128
        })
        .collect();
    keyed.sort_unstable();
    let mut order: Vec<usize> = keyed.iter().map(|&k| k as u64 as usize).collect();
    let mut from = 0;
    while from < keyed.len() {
        let span = keyed[from] >> 64;
        let to = from + keyed[from..].partition_point(|&k| k >> 64 == span);
        if to - from > 1 {
            order[from..to].sort_by(|&a, &b| findings[a].cmp_in_file(&findings[b]));
        }
        from = to;
    }
    order
}

/// The positions of `findings` in the order a stable sort by [`Finding::sort_key`] gives them,
/// without moving a finding (a spill encodes them in this order as they lie).
///
/// A file's findings arrive together and share one path, so the runs of one path are sorted by
/// path ([`path_order`]), and then each path's findings by the rest of the key.
pub fn sorted_order(findings: &[Finding]) -> Vec<usize> {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if Arc::ptr_eq(&findings[run.start].path, &f.path) => run.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    let paths: Vec<&str> = runs.iter().map(|run| &*findings[run.start].path).collect();
    let by_path = path_order(&paths);
    let mut order: Vec<usize> = Vec::with_capacity(findings.len());
    let mut next = 0;
    while next < by_path.len() {
        let path = paths[by_path[next]];
        let from = order.len();
        while next < by_path.len() && paths[by_path[next]] == path {
            order.extend(runs[by_path[next]].clone());
            next += 1;
        }
        // One path's findings: ordered by the rest of the key, which a file's findings as
        // the engine makes them already are.
        let in_file = |&a: &usize, &b: &usize| findings[a].cmp_in_file(&findings[b]);
        if !order[from..].is_sorted_by(|a, b| in_file(a, b).is_le()) {
            order[from..].sort_by(in_file);
        }
    }
    order
}

/// The positions of `paths` in the order a stable sort of them gives. Paths are compared by
/// the 16 bytes after the prefix all of them share (a number, no memory to fetch), and in
/// full only when those are equal.
pub fn path_order(paths: &[&str]) -> Vec<usize> {
    let skip = paths.split_first().map_or(0, |(first, rest)| {
        let first = first.as_bytes();
        rest.iter().fold(first.len(), |len, path| {
            common_prefix_len(&first[..len], path.as_bytes())
        })
    });
    let mut keyed: Vec<(u128, usize)> = paths
        .iter()
        .enumerate()
        .map(|(i, path)| (path_key(&path.as_bytes()[skip..]), i))
        .collect();
    // The position breaks ties: equal paths keep their order.
    keyed.par_sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| paths[a.1].cmp(paths[b.1]))
            .then(a.1.cmp(&b.1))
    });
    keyed.into_iter().map(|(_, i)| i).collect()
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

    /// One file's findings sort as a stable sort by [`Finding::sort_key_in_file`] does:
    /// spans that tie and are told apart by rule, by message, or not at all (their order is
    /// kept), with and without history.
    #[test]
    fn a_files_findings_sort_stably_by_their_key() {
        use crate::diagnostic::{Provenance, Span};
        let make = |i: usize, history: bool| Finding {
            span: Span::new(i * 7 % 5, i * 7 % 5 + i % 3 * 2),
            message: ["b", "a"][i / 3 % 2].into(),
            pointer: i.to_string(),
            history: history.then(|| {
                Box::new(Provenance {
                    version: Arc::from(["v1", "v0"][i / 4 % 2]),
                    introduced: None,
                    removed: None,
                })
            }),
            ..Finding::for_tests("a.json", ["y", "x"][i / 2 % 2], 1)
        };
        for history in [false, true] {
            for n in [0, 1, 2, 7, 40, 130] {
                let findings: Vec<Finding> = (0..n).map(|i| make(i, history)).collect();
                let mut expected = findings.clone();
                expected.sort_by(|a, b| a.sort_key_in_file().cmp(&b.sort_key_in_file()));
                let mut sorted = findings;
                super::sort_in_file(&mut sorted);
                assert_eq!(sorted, expected, "history {history}, {n} findings");
            }
        }
    }
}
