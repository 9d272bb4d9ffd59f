//! The bounded queue that carries batches of files from the walker to the lint workers.
//!
//! The walker is far faster than the workers, so the queue is full almost all the time. A
//! rendezvous channel wakes the walker for every batch a worker takes: one context switch per
//! batch on a machine whose cores are all linting, and each switch costs a few microseconds
//! more inside a virtual machine. This queue wakes a waiting walker only once the workers have
//! drained it to half, so the walker fills half the queue per wake-up.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

pub struct Handoff<T> {
    state: Mutex<State<T>>,
    /// The walker waits here while the queue is full.
    drained: Condvar,
    /// Workers wait here while the queue is empty.
    filled: Condvar,
    capacity: usize,
}

struct State<T> {
    items: VecDeque<T>,
    closed: bool,
    producer_waiting: bool,
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
                producer_waiting: false,
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
            state.producer_waiting = true;
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
                let wake = state.producer_waiting && state.items.len() <= self.capacity / 2;
                if wake {
                    state.producer_waiting = false;
                    drop(state);
                    self.drained.notify_one();
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

#[cfg(test)]
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

    /// Every item pushed is popped exactly once, in order per consumer, whatever the capacity
    /// and the number of consumers; the consumers end when the producer closes.
    #[test]
    fn every_item_arrives_once() {
        for capacity in [1, 2, 3, 8, 32] {
            for consumers in [1, 2, 5] {
                let seen = within(move || {
                    let queue = Arc::new(Handoff::new(capacity));
                    let handles: Vec<_> = (0..consumers)
                        .map(|_| {
                            let queue = queue.clone();
                            std::thread::spawn(move || {
                                let mut got = Vec::new();
                                while let Some(i) = queue.pop() {
                                    got.push(i);
                                }
                                got
                            })
                        })
                        .collect();
                    {
                        let _closer = queue.closer();
                        for i in 0..2000 {
                            assert!(queue.push(i));
                        }
                    }
                    handles
                        .into_iter()
                        .map(|h| h.join().unwrap())
                        .collect::<Vec<Vec<usize>>>()
                });
                for got in &seen {
                    assert!(got.windows(2).all(|w| w[0] < w[1]), "out of order: {got:?}");
                }
                let mut all: Vec<usize> = seen.concat();
                all.sort_unstable();
                assert_eq!(all, (0..2000).collect::<Vec<_>>(), "capacity {capacity}");
            }
        }
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
            while !queue.lock().producer_waiting {
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
            while !queue.lock().producer_waiting {
                std::thread::yield_now();
            }
            // Three left: not yet half, the producer sleeps on.
            assert_eq!(queue.pop(), Some(0));
            assert!(queue.lock().producer_waiting);
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
