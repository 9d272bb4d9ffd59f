use super::*;
use crate::diagnostic::{Position, Safety, Severity, Span};
use std::io::Write;
use std::sync::Arc;

fn finding(path: &Arc<str>, at: u32, rule: &str) -> Finding {
    let start = Position {
        line: 1,
        column: at + 1,
    };
    Finding {
        // Shared: the findings of one file share their path.
        path: path.clone(),
        severity: Severity::Warning,
        message: format!("m{at}"),
        span: Span::new(at as usize, at as usize + 1),
        start,
        end: start,
        value_hash: u64::from(at),
        ..Finding::for_tests("", rule, 1)
    }
}

/// Each file's path and number of findings, from sorted findings.
fn files_of(sorted: &[Finding]) -> Vec<(String, usize)> {
    sorted
        .chunk_by(|a, b| a.path == b.path)
        .map(|file| (file[0].path.to_string(), file.len()))
        .collect()
}

/// What [`Findings::each_file`] calls its callback with.
fn each_file(findings: &dyn Findings) -> Vec<(String, usize)> {
    let mut files = Vec::new();
    findings
        .each_file(&mut |path, n| {
            files.push((path.to_string(), n));
            Ok(())
        })
        .unwrap();
    files
}

/// Files' findings kept from several threads in any order, some paths twice, one file at a
/// time or gathered a few at a time: read back from spilled runs, they are what sorting them
/// all gives, in batches of whole files.
#[test]
fn spilled_runs_merge_into_the_sorted_whole() {
    let paths: Vec<Arc<str>> = (0..300)
        .map(|i| (i * 37) % 150)
        .map(|n| Arc::from(format!("d{}/f{n:03}.json", n % 7)))
        .collect();
    let outcomes: Vec<Vec<Finding>> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| {
            (0..(i % 5) as u32)
                .map(|k| {
                    let mut f = finding(p, (k * 13 + i as u32) % 9, ["b", "a"][k as usize % 2]);
                    f.severity =
                        [Severity::Note, Severity::Warning, Severity::Error][(i + k as usize) % 3];
                    f.fix = (k % 2 == 1).then(|| {
                        Box::new(crate::diagnostic::Fix {
                            safety: [Safety::Safe, Safety::Unsafe][i % 2],
                            edits: Vec::new(),
                        })
                    });
                    f
                })
                .collect()
        })
        .collect();
    let mut expected: Vec<Finding> = outcomes.iter().flatten().cloned().collect();
    sort_findings(&mut expected);
    let counts = Counts::of_sorted(&expected).unwrap();
    assert_eq!(
        (counts.severities, counts.fixes, counts.files),
        ([200, 200, 200], [120, 120], 120)
    );
    let files = files_of(&expected);
    for budget in [1, 2_000, 50_000, usize::MAX] {
        let spool = Spool::with_budget(budget);
        std::thread::scope(|scope| {
            for (n, part) in outcomes.chunks(40).enumerate() {
                let spool = &spool;
                // Half the threads keep file by file, half gather three files at a time
                // (held, or encoded once the spool spills) and keep them together.
                scope.spawn(move || {
                    if n % 2 == 0 {
                        part.iter().for_each(|outcome| spool.keep(outcome.clone()));
                        return;
                    }
                    for files in part.chunks(3) {
                        let mut gathered = Gathered::default();
                        for outcome in files {
                            spool.gather(&mut gathered, outcome.clone());
                        }
                        spool.keep_gathered(gathered);
                    }
                });
            }
        });
        let mut collected = spool.finish().unwrap();
        assert_eq!(collected.spilled(), budget < usize::MAX, "budget {budget}");
        // Each spilled run is indexed by its records' heads, which the counting passes read.
        assert!(collected.runs.iter().all(|r| r.heads.is_some()));
        if budget == 1 {
            // Hundreds of runs, read side by side three at most.
            let runs = std::mem::take(&mut collected.runs);
            assert!(runs.len() > 100, "{}", runs.len());
            // One temporary file (one descriptor) holds them all.
            assert!(runs.windows(2).all(|w| Arc::ptr_eq(&w[0].file, &w[1].file)));
            collected.runs = narrow(runs, 3).unwrap();
            assert!(collected.runs.len() <= 3);
            // A run merged from others is counted from its records.
            assert!(collected.runs.iter().any(|r| r.heads.is_none()));
        }
        assert_eq!(collected.count(), expected.len());
        // Counted from the records' headers when spilled: a file in several runs once.
        assert_eq!(collected.counts().unwrap(), counts, "budget {budget}");
        assert_eq!(each_file(&collected), files, "budget {budget}");
        assert!(collected.may_hold("a") && collected.may_hold("b"));
        assert!(!collected.may_hold("c") && !collected.may_hold(""));
        for _pass in 0..2 {
            let mut got = Vec::new();
            let mut last_path: Option<Arc<str>> = None;
            collected
                .each_batch(&mut |batch| {
                    // No file is split between batches.
                    if let (Some(last), Some(first)) = (&last_path, batch.first()) {
                        assert_ne!(last, &first.path, "budget {budget}");
                    }
                    last_path = batch.last().map(|f| f.path.clone());
                    got.extend_from_slice(batch);
                    Ok(())
                })
                .unwrap();
            assert_eq!(got, expected, "budget {budget}");
        }
    }
}

/// Two filters, one after the other, each counting what it hides (as `--new-from-rev` and
/// a baseline do): the second sees only what the first left, whether the findings were
/// held or spilled, and every pass after hides what both hid.
#[test]
fn a_second_filter_sees_what_the_first_left() {
    let path: Arc<str> = Arc::from("a.json");
    let all: Vec<Finding> = (0..40).map(|at| finding(&path, at, "r")).collect();
    for budget in [1, usize::MAX] {
        let spool = Spool::with_budget(budget);
        for f in &all {
            spool.keep(vec![f.clone()]);
        }
        let mut collected = spool.finish().unwrap();
        // Even positions, then every third; a filter that counts (as a baseline's
        // entries do) must not be shown what the first hid.
        let even = |f: &Finding| f.span.start % 2 == 0;
        let third = |f: &Finding| f.span.start % 3 == 0;
        let first = collected
            .hide(&mut |f| even(f), Box::new(move || Box::new(even)))
            .unwrap();
        let mut seen = 0;
        let second = collected
            .hide(
                &mut |f| {
                    seen += 1;
                    third(f)
                },
                Box::new(move || Box::new(third)),
            )
            .unwrap();
        assert_eq!((first, second, seen), (20, 7, 20), "budget {budget}");
        let expected: Vec<&Finding> = all.iter().filter(|f| !even(f) && !third(f)).collect();
        assert_eq!(collected.count(), expected.len());
        let shown: Vec<Finding> = expected.iter().map(|&f| f.clone()).collect();
        let counts = Counts::of_sorted(&shown).unwrap();
        assert_eq!((counts.severities[1], counts.files), (shown.len(), 1));
        assert_eq!(collected.counts().unwrap(), counts, "budget {budget}");
        assert_eq!(each_file(&collected), files_of(&shown), "budget {budget}");
        for _pass in 0..2 {
            let mut got = Vec::new();
            collected
                .each_batch(&mut |batch| {
                    got.extend(batch.iter().cloned());
                    Ok(())
                })
                .unwrap();
            assert_eq!(got.iter().collect::<Vec<_>>(), expected, "budget {budget}");
        }
    }
}

/// Many batches of spilled findings, each with or without help, related locations, a fix and
/// the secret flag: a batch handed back and refilled carries nothing over from the findings
/// that were in it, and each batch's text is rendered from it where it was decoded, numbered
/// from the start of the pass.
#[test]
fn refilled_batches_carry_nothing_over() {
    let mut outcomes: Vec<Vec<Finding>> = Vec::new();
    for file in 0..1500u32 {
        let path: Arc<str> = Arc::from(format!("d/{:04}.json", (file * 7919) % 1500));
        let outcome = (0..file % 9)
            .map(|k| {
                let n = file + k;
                let mut f = finding(&path, k, ["a", "b", "c"][(n % 3) as usize]);
                f.message = "m".repeat(1 + (n % 40) as usize);
                f.help = (n % 2 == 0).then(|| format!("help {n}"));
                f.pointer = format!("/{}", "p".repeat((n % 13) as usize));
                f.secret = n % 4 == 0;
                if n % 3 == 0 {
                    f.related.push(crate::diagnostic::Related {
                        path: (n % 6 == 0).then(|| Arc::from("other.toml")),
                        span: Span::new(1, 2),
                        start: Position { line: 1, column: 2 },
                        end: Position { line: 1, column: 3 },
                        label: format!("related {n}"),
                    });
                }
                f.fix = (n % 5 == 0).then(|| {
                    Box::new(crate::diagnostic::Fix {
                        safety: Safety::Safe,
                        edits: vec![crate::diagnostic::Edit {
                            span: Span::new(0, 1),
                            replacement: format!("r{n}"),
                        }],
                    })
                });
                f
            })
            .collect();
        outcomes.push(outcome);
    }
    // One file with more findings than a decoder renders: left to the writer.
    let huge: Arc<str> = Arc::from("e/huge.json");
    outcomes.push((0..5000).map(|at| finding(&huge, at, "h")).collect());
    let mut expected: Vec<Finding> = outcomes.iter().flatten().cloned().collect();
    sort_findings(&mut expected);
    let render = |batch: &[Finding], before: usize, buffer: &mut Vec<u8>| {
        for (i, f) in batch.iter().enumerate() {
            writeln!(
                buffer,
                "{} {} {} {:?}",
                before + i,
                f.path,
                f.message,
                f.help
            )?;
        }
        Ok(())
    };
    let mut expected_text = Vec::new();
    render(&expected, 0, &mut expected_text).unwrap();

    let spool = Spool::with_budget(20_000);
    for outcome in outcomes {
        spool.keep(outcome);
    }
    let collected = spool.finish().unwrap();
    assert!(collected.spilled());
    for _pass in 0..2 {
        let (mut got, mut text, mut batches) = (Vec::new(), Vec::new(), 0);
        collected
            .each_batch_rendered(&render, &mut |batch, rendered| {
                batches += 1;
                match rendered {
                    Some(rendered) => text.extend_from_slice(rendered),
                    None => {
                        assert!(batch.iter().any(|f| f.path == huge), "{}", batch.len());
                        render(batch, got.len(), &mut text)?;
                    }
                }
                got.extend_from_slice(batch);
                Ok(())
            })
            .unwrap();
        assert!(batches > 4, "{batches} batches");
        assert_eq!(got, expected);
        assert_eq!(
            String::from_utf8(text).unwrap(),
            String::from_utf8(expected_text.clone()).unwrap()
        );
    }
}

/// Once a run has spilled, findings are kept encoded: a file kept twice, its findings out of
/// order and some with equal keys (told apart by their pointers), reads back as a stable sort
/// of everything kept gives it.
#[test]
fn findings_kept_encoded_read_back_sorted_and_stable() {
    let a: Arc<str> = Arc::from("a.json");
    let b: Arc<str> = Arc::from("b.json");
    let tagged = |path: &Arc<str>, at: u32, tag: &str| Finding {
        pointer: tag.into(),
        ..finding(path, at, "r")
    };
    let keeps = vec![
        vec![tagged(&b, 5, "first"), tagged(&b, 1, "first")],
        // Past this budget: everything after is kept encoded.
        vec![tagged(&a, 3, "x"); 40],
        vec![
            tagged(&b, 5, "second"),
            tagged(&b, 0, "second"),
            tagged(&b, 5, "third"),
        ],
        vec![
            tagged(&a, 2, "late"),
            tagged(&b, 5, "late"),
            tagged(&b, 1, "late"),
        ],
        vec![tagged(&a, 3, "last")],
    ];
    let mut expected: Vec<Finding> = keeps.iter().flatten().cloned().collect();
    expected.sort_by(|x, y| x.sort_key().cmp(&y.sort_key()));
    let spool = Spool::with_budget(4_000);
    for keep in &keeps {
        spool.keep(keep.clone());
    }
    assert!(spool.spilling.load(Ordering::Relaxed));
    assert!(!spool.held.lock().unwrap().encoded.is_empty());
    let collected = spool.finish().unwrap();
    assert!(collected.spilled());
    let mut got = Vec::new();
    collected
        .each_batch(&mut |batch| {
            got.extend_from_slice(batch);
            Ok(())
        })
        .unwrap();
    let tags = |fs: &[Finding]| fs.iter().map(|f| f.pointer.clone()).collect::<Vec<_>>();
    assert_eq!(tags(&got), tags(&expected));
    assert_eq!(got, expected);
}
