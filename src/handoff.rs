//! The bounded queue that carries batches of files from the walker to the lint workers.
//!
//! The walker is far faster than the workers, so the queue is full almost all the time. A
//! rendezvous channel wakes the walker for every batch a worker takes: one context switch per
//! batch on a machine whose cores are all linting, and each switch costs a few microseconds
//! more inside a virtual machine. This queue wakes the waiting walker threads only once the
//! workers have drained it to half, so a walker fills half the queue per wake-up.
//!
//! Any number of threads may push (the parallel walker pushes from each of its threads) and
//! any number may pop. The protocol, checked by the model test in `loom/` and by the stress
//! tests: a thread that waits first counts itself in the state, under the lock; a thread that
//! makes room (or an item) sees that count under the same lock and wakes the waiters. Every
//! waiting walker is woken at once (`notify_all`), so none can be left asleep when the walker
//! that was woken instead finishes and never pushes again.

#[cfg(loom)]
use loom::sync::{Condvar, Mutex, MutexGuard};
use std::collections::VecDeque;
#[cfg(not(loom))]
use std::sync::{Condvar, Mutex, MutexGuard};

pub struct Handoff<T> {
    state: Mutex<State<T>>,
    /// Walker threads wait here while the queue is full.
    drained: Condvar,
    /// Workers wait here while the queue is empty.
    filled: Condvar,
    capacity: usize,
}

struct State<T> {
    items: VecDeque<T>,
    closed: bool,
    /// Non-zero while a walker thread may be waiting in `push`: each one adds itself before it
    /// waits, and the consumer that wakes them all sets it back to 0 (a woken walker that still
    /// finds the queue full adds itself again). It can count too many, never too few.
    producers_waiting: usize,
    /// Workers waiting in `pop`, each counted until it has the lock again.
    consumers_waiting: usize,
}

impl<T> Handoff<T> {
    /// A queue of at most `capacity` items (at least 2).
    pub fn new(capacity: usize) -> Handoff<T> {
        let capacity = capacity.max(2);
        Handoff {
            state: Mutex::new(State {
                items: VecDeque::with_capacity(capacity),
                closed: false,
                producers_waiting: 0,
                consumers_waiting: 0,
            }),
            drained: Condvar::new(),
            filled: Condvar::new(),
            capacity,
        }
    }

    /// A panic elsewhere while holding the lock leaves the queue consistent (every change is
    /// one field write), so a poisoned lock is used as it is.
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds `item`, waiting while the queue is full. Returns `false` (and drops the item) once
    /// the queue is closed: nobody will take it.
    pub fn push(&self, item: T) -> bool {
        let mut state = self.lock();
        while state.items.len() >= self.capacity && !state.closed {
            state.producers_waiting += 1;
            state = self.drained.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        if state.closed {
            return false;
        }
        state.items.push_back(item);
        let wake = state.consumers_waiting > 0;
        // Woken after the lock is let go, so the woken thread does not wait on it at once.
        drop(state);
        if wake {
            self.filled.notify_one();
        }
        true
    }

    /// Takes the oldest item, waiting while the queue is empty and open; `None` once it is
    /// closed and empty.
    pub fn pop(&self) -> Option<T> {
        let mut state = self.lock();
        loop {
            if let Some(item) = state.items.pop_front() {
                let wake = state.producers_waiting > 0 && state.items.len() <= self.capacity / 2;
                if wake {
                    state.producers_waiting = 0;
                    drop(state);
                    self.drained.notify_all();
                }
                return Some(item);
            }
            if state.closed {
                return None;
            }
            state.consumers_waiting += 1;
            state = self.filled.wait(state).unwrap_or_else(|e| e.into_inner());
            state.consumers_waiting -= 1;
        }
    }

    /// No more items will come (or be taken): waiting workers get what is left, then `None`;
    /// a waiting walker returns.
    pub fn close(&self) {
        self.lock().closed = true;
        self.filled.notify_all();
        self.drained.notify_all();
    }

    /// Closes the queue when the returned guard is dropped, on a panic too: a walker that dies
    /// must not leave the workers waiting, nor workers that die leave the walker waiting.
    pub fn closer(&self) -> Closer<'_, T> {
        Closer(self)
    }
}

pub struct Closer<'a, T>(&'a Handoff<T>);

impl<T> Drop for Closer<'_, T> {
    fn drop(&mut self) {
        self.0.close();
    }
}

// Plain threads and timeouts: the model test (`loom/`) replaces these primitives.
#[cfg(all(test, not(loom)))]
mod tests {
    use super::Handoff;
    use std::sync::Arc;
    use std::time::Duration;

    /// Runs `f` on a thread of its own and returns its result; a lost wake-up (a thread
    /// waiting forever) fails the test instead of hanging it.
    fn within<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
        let (done, result) = std::sync::mpsc::channel();
        std::thread::spawn(move || done.send(f()));
        result
            .recv_timeout(Duration::from_secs(20))
            .expect("a thread waited forever: a wake-up was lost")
    }

    /// Every item pushed is popped exactly once, in order per producer and consumer, whatever
    /// the capacity and the numbers of producers and consumers; the consumers end when the last
    /// producer closes the queue.
    #[test]
    fn every_item_arrives_once() {
        const EACH: usize = 2000;
        for capacity in [1, 2, 3, 8, 32] {
            for producers in [1, 2, 3] {
                for consumers in [1, 2, 5] {
                    let seen = within(move || {
                        let queue = Arc::new(Handoff::new(capacity));
                        let handles: Vec<_> = (0..consumers)
                            .map(|_| {
                                let queue = queue.clone();
                                std::thread::spawn(move || {
                                    std::iter::from_fn(|| queue.pop()).collect::<Vec<usize>>()
                                })
                            })
                            .collect();
                        let pushers: Vec<_> = (0..producers)
                            .map(|p| {
                                let queue = queue.clone();
                                std::thread::spawn(move || {
                                    for i in p * EACH..(p + 1) * EACH {
                                        assert!(queue.push(i));
                                    }
                                })
                            })
                            .collect();
                        for p in pushers {
                            p.join().unwrap();
                        }
                        queue.close();
                        handles
                            .into_iter()
                            .map(|h| h.join().unwrap())
                            .collect::<Vec<Vec<usize>>>()
                    });
                    for got in &seen {
                        for p in 0..producers {
                            let from_p = got.iter().filter(|&&i| i / EACH == p);
                            let ordered: Vec<_> = from_p.collect();
                            assert!(ordered.windows(2).all(|w| w[0] < w[1]), "out of order");
                        }
                    }
                    let mut all: Vec<usize> = seen.concat();
                    all.sort_unstable();
                    assert_eq!(
                        all,
                        (0..producers * EACH).collect::<Vec<_>>(),
                        "capacity {capacity}, {producers} producers, {consumers} consumers"
                    );
                }
            }
        }
    }

    /// Two producers wait on a full queue; draining it must wake both, not only the one that
    /// then refills it and stops (the walker thread that finishes its part of the tree).
    #[test]
    fn a_drained_queue_wakes_every_waiting_producer() {
        within(|| {
            let queue = Arc::new(Handoff::new(2));
            assert!(queue.push(0));
            assert!(queue.push(1));
            let producers: Vec<_> = [10, 20]
                .into_iter()
                .map(|item| {
                    let queue = queue.clone();
                    std::thread::spawn(move || queue.push(item))
                })
                .collect();
            while queue.lock().producers_waiting < 2 {
                std::thread::yield_now();
            }
            let mut got: Vec<i32> = (0..4).filter_map(|_| queue.pop()).collect();
            for p in producers {
                assert!(p.join().unwrap());
            }
            got.sort_unstable();
            assert_eq!(got, [0, 1, 10, 20]);
        });
    }

    /// A producer blocked on a full queue returns when the consumers close it, and a closed
    /// queue takes nothing more but still hands out what it holds.
    #[test]
    fn closing_releases_a_waiting_producer() {
        within(|| {
            let queue = Arc::new(Handoff::new(2));
            let producer = {
                let queue = queue.clone();
                std::thread::spawn(move || (0..10).filter(|&i| queue.push(i)).count())
            };
            // Let the producer fill the queue and wait.
            while queue.lock().producers_waiting == 0 {
                std::thread::yield_now();
            }
            drop(queue.closer());
            assert_eq!(producer.join().unwrap(), 2);
            assert!(!queue.push(99), "a closed queue takes nothing");
            let rest: Vec<i32> = std::iter::from_fn(|| queue.pop()).collect();
            assert_eq!(rest, [0, 1]);
        });
    }

    /// A producer blocked on a full queue is woken once the consumers drain it to half.
    #[test]
    fn a_drained_queue_wakes_the_producer() {
        within(|| {
            let queue = Arc::new(Handoff::new(4));
            let producer = {
                let queue = queue.clone();
                std::thread::spawn(move || (0..6).filter(|&i| queue.push(i)).count())
            };
            while queue.lock().producers_waiting == 0 {
                std::thread::yield_now();
            }
            // Three left: not yet half, the producer sleeps on.
            assert_eq!(queue.pop(), Some(0));
            assert!(queue.lock().producers_waiting > 0);
            // Two left: half; the producer is woken and pushes the last two.
            assert_eq!(queue.pop(), Some(1));
            assert_eq!(producer.join().unwrap(), 6);
            let rest: Vec<i32> = {
                queue.close();
                std::iter::from_fn(|| queue.pop()).collect()
            };
            assert_eq!(rest, [2, 3, 4, 5]);
        });
    }

    /// Consumers waiting on an empty queue are released by the close.
    #[test]
    fn closing_releases_waiting_consumers() {
        within(|| {
            let queue = Arc::new(Handoff::<u8>::new(4));
            let consumers: Vec<_> = (0..3)
                .map(|_| {
                    let queue = queue.clone();
                    std::thread::spawn(move || queue.pop())
                })
                .collect();
            while queue.lock().consumers_waiting < 3 {
                std::thread::yield_now();
            }
            queue.close();
            for c in consumers {
                assert_eq!(c.join().unwrap(), None);
            }
        });
    }
}
