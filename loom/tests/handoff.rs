//! Model checks of the hand-over queue between the walker threads and the lint workers: every
//! interleaving loom can reach (up to its preemption bound) of two producers and two consumers
//! must deliver every item exactly once and end, with nothing left waiting.
//!
//! `RUSTFLAGS="--cfg loom" cargo test --release` in this folder (`.ci/run` does).
#![cfg(loom)]

use forgelint_loom::handoff::Handoff;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// A model with a preemption bound: the full search of four threads is far too large, and
/// bugs of this kind show within a few preemptions (loom's guidance).
fn model(test: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(test);
}

/// Two walker threads fill a queue of two while two workers drain it; the last walker to
/// finish closes it, as the walk's closer does. Every item arrives once and both workers end.
#[test]
fn two_producers_two_consumers_with_close() {
    model(|| {
        let queue = Arc::new(Handoff::new(2));
        let producing = Arc::new(AtomicUsize::new(2));
        let producers: Vec<_> = [0usize, 10]
            .into_iter()
            .map(|base| {
                let queue = queue.clone();
                let producing = producing.clone();
                thread::spawn(move || {
                    for i in base..base + 2 {
                        assert!(queue.push(i), "the queue closed while producers were left");
                    }
                    if producing.fetch_sub(1, Ordering::AcqRel) == 1 {
                        queue.close();
                    }
                })
            })
            .collect();
        let consumer = {
            let queue = queue.clone();
            thread::spawn(move || std::iter::from_fn(|| queue.pop()).collect::<Vec<usize>>())
        };
        // The main thread is the second worker.
        let mut got: Vec<usize> = std::iter::from_fn(|| queue.pop()).collect();
        for p in producers {
            p.join().unwrap();
        }
        got.extend(consumer.join().unwrap());
        got.sort_unstable();
        assert_eq!(got, [0, 1, 10, 11]);
    });
}

/// Workers that stop early (a panic: their closer runs) release both producers blocked on the
/// full queue; the producers' pushes after the close are refused, and nothing hangs.
#[test]
fn consumers_closing_release_blocked_producers() {
    model(|| {
        let queue = Arc::new(Handoff::new(2));
        let producers: Vec<_> = [0usize, 10]
            .into_iter()
            .map(|base| {
                let queue = queue.clone();
                thread::spawn(move || (base..base + 3).filter(|&i| queue.push(i)).count())
            })
            .collect();
        let consumer = {
            let queue = queue.clone();
            thread::spawn(move || {
                let _closer = queue.closer();
                queue.pop().is_some()
            })
        };
        let took = {
            let _closer = queue.closer();
            queue.pop().is_some()
        };
        let pushed: usize = producers.into_iter().map(|p| p.join().unwrap()).sum();
        // Nothing closes the queue before a worker's first take returns, so that take has an
        // item; the other worker may find the queue closed and empty.
        let taken = usize::from(consumer.join().unwrap()) + usize::from(took);
        assert!(taken >= 1);
        // What was pushed is what was taken plus what the closed queue still holds.
        let left = std::iter::from_fn(|| queue.pop()).count();
        assert_eq!(pushed, taken + left);
        assert!(left <= 2);
    });
}

/// A consumer waiting on an empty queue is released by the producers' close, with the items
/// pushed before it.
#[test]
fn close_releases_waiting_consumers() {
    model(|| {
        let queue = Arc::new(Handoff::<usize>::new(2));
        let consumers: Vec<_> = (0..2)
            .map(|_| {
                let queue = queue.clone();
                thread::spawn(move || std::iter::from_fn(|| queue.pop()).count())
            })
            .collect();
        {
            let _closer = queue.closer();
            assert!(queue.push(1));
        }
        let taken: usize = consumers.into_iter().map(|c| c.join().unwrap()).sum();
        assert_eq!(taken, 1);
    });
}
