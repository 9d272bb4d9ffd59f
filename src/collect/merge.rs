//! One pass over spilled runs: a k-way merge by path, in batches of whole files. Each run is
//! read with positional reads of its own, so passes never disturb one another.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::sync::{mpsc, Arc};

use super::codec::Decoder;
use super::{Counts, Run};
use crate::diagnostic::Finding;

/// At most this many runs are read side by side (8 MiB of read buffers); more are first merged
/// into fewer, a group at a time.
pub(super) const MAX_FAN_IN: usize = 1024;
/// Findings handed to the reader at a time (more when one file has more).
const BATCH: usize = 4096;
/// The read buffer of each run.
const READ_BUFFER: usize = 8 * 1024;

/// Calls `each` with every finding of `runs` in sorted order, in batches of whole files: the
/// order sorting all of them at once gives (findings of one path in two runs are merged by
/// their key, the earlier run's first on a tie, as a stable sort keeps them).
///
/// The runs are read and decoded on a thread of their own, a batch ahead of `each`, which
/// hands each batch back to be emptied there: decoding and freeing findings overlap with
/// writing the report instead of coming between its batches. Four batches are alive at most:
/// the one being read, one waiting, the one being written and one handed back, emptied when
/// the next is sent. Without a thread (a thread limit), all is done on this one.
pub(super) fn each_batch(
    runs: &[Run],
    each: &mut dyn FnMut(&[Finding]) -> io::Result<()>,
) -> io::Result<()> {
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = mpsc::sync_channel::<Vec<Finding>>(1);
        let (empty_tx, empty_rx) = mpsc::channel::<Vec<Finding>>();
        let reader = std::thread::Builder::new()
            .name("forgelint-merge".into())
            .spawn_scoped(scope, move || {
                merge(runs, &mut |batch| {
                    // Every batch handed back is emptied now (its findings freed here), one
                    // kept for the next: no full batch waits to be emptied.
                    let mut next = None;
                    for mut used in empty_rx.try_iter() {
                        used.clear();
                        next.get_or_insert(used);
                    }
                    let next = next.unwrap_or_else(|| Vec::with_capacity(BATCH));
                    full_tx
                        .send(std::mem::replace(batch, next))
                        .map_err(|_| io::Error::other("the report stopped reading findings"))
                })
            });
        let Ok(reader) = reader else {
            return merge(runs, &mut |batch| {
                each(batch)?;
                batch.clear();
                Ok(())
            });
        };
        let mut written = Ok(());
        for batch in full_rx.iter() {
            written = each(&batch);
            if written.is_err() {
                break;
            }
            // Emptied by the reader; gone when the reader has finished.
            let _ = empty_tx.send(batch);
        }
        // The reader, blocked on a full channel, stops when nobody will read.
        drop(full_rx);
        let read = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        written.and(read)
    })
}

/// The merge of [`each_batch`]: `emit` takes each full batch, leaving an empty one in its place.
fn merge(
    runs: &[Run],
    emit: &mut dyn FnMut(&mut Vec<Finding>) -> io::Result<()>,
) -> io::Result<()> {
    let mut sources: Vec<Source<'_>> = runs.iter().map(Source::new).collect();
    let mut heads: BinaryHeap<Reverse<(Arc<str>, usize)>> = BinaryHeap::new();
    for (i, source) in sources.iter_mut().enumerate() {
        if let Some(path) = source.advance()? {
            heads.push(Reverse((path, i)));
        }
    }
    let mut batch: Vec<Finding> = Vec::with_capacity(BATCH);
    let mut same: Vec<usize> = Vec::new();
    while let Some(Reverse((path, first))) = heads.pop() {
        same.clear();
        same.push(first);
        while heads.peek().is_some_and(|Reverse((p, _))| *p == path) {
            if let Some(Reverse((_, i))) = heads.pop() {
                same.push(i);
            }
        }
        same.sort_unstable();
        let from = batch.len();
        for &i in &same {
            batch.append(&mut sources[i].group);
        }
        if same.len() > 1 {
            // One path's findings from several runs: ordered by the rest of the key.
            batch[from..].sort_by(|a, b| a.sort_key_in_file().cmp(&b.sort_key_in_file()));
        }
        for &i in &same {
            if let Some(next) = sources[i].advance()? {
                heads.push(Reverse((next, i)));
            }
        }
        if batch.len() >= BATCH {
            emit(&mut batch)?;
        }
    }
    if !batch.is_empty() {
        emit(&mut batch)?;
    }
    Ok(())
}

/// The [`Counts`] of every finding of `runs`, read from the records' headers: the same
/// paths come out of the heap together, as in [`merge`], and are one file.
pub(super) fn count(runs: &[Run]) -> io::Result<Counts> {
    let mut counts = Counts::default();
    let mut sources: Vec<(BufReader<RunReader<'_>>, Decoder)> = runs
        .iter()
        .map(|run| {
            (
                BufReader::with_capacity(READ_BUFFER, RunReader::of(run)),
                Decoder::default(),
            )
        })
        .collect();
    let mut heads: BinaryHeap<Reverse<(Vec<u8>, usize)>> = BinaryHeap::new();
    for (i, (input, decoder)) in sources.iter_mut().enumerate() {
        if let Some(path) = decoder.read_counts(input, &mut counts)? {
            heads.push(Reverse((path.to_vec(), i)));
        }
    }
    let mut last: Vec<u8> = Vec::new();
    while let Some(Reverse((path, i))) = heads.pop() {
        if counts.files == 0 || path != last {
            counts.files += 1;
        }
        let (input, decoder) = &mut sources[i];
        if let Some(next) = decoder.read_counts(input, &mut counts)? {
            heads.push(Reverse((next.to_vec(), i)));
        }
        last = path;
    }
    Ok(counts)
}

/// A run being read: its current record (one file's findings).
struct Source<'r> {
    input: BufReader<RunReader<'r>>,
    decoder: Decoder,
    group: Vec<Finding>,
}

impl<'r> Source<'r> {
    fn new(run: &'r Run) -> Source<'r> {
        Source {
            input: BufReader::with_capacity(READ_BUFFER, RunReader::of(run)),
            decoder: Decoder::default(),
            group: Vec::new(),
        }
    }

    /// Reads the next record; its path, or `None` at the end.
    fn advance(&mut self) -> io::Result<Option<Arc<str>>> {
        self.group.clear();
        if !self.decoder.read_group(&mut self.input, &mut self.group)? {
            return Ok(None);
        }
        match self.group.first() {
            Some(f) => Ok(Some(f.path.clone())),
            None => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the temporary file of findings is damaged",
            )),
        }
    }
}

/// Reads `file` from `at` to `end` with positional reads: the file's own offset is not used.
struct RunReader<'r> {
    file: &'r File,
    at: u64,
    end: u64,
}

impl<'r> RunReader<'r> {
    fn of(run: &'r Run) -> RunReader<'r> {
        RunReader {
            file: &run.file,
            at: run.start,
            end: run.start + run.len,
        }
    }
}

impl Read for RunReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = usize::try_from(self.end - self.at).unwrap_or(usize::MAX);
        let want = buf.len().min(left);
        if want == 0 {
            return Ok(0);
        }
        let n = read_at(self.file, &mut buf[..want], self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}
