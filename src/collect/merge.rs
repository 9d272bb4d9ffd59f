//! One pass over spilled runs: a k-way merge by path, in batches of whole files. Each run is
//! read with positional reads of its own, so passes never disturb one another.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::sync::mpsc;

use super::codec::{record_head, Decoder};
use super::{Counts, EachRendered, Render, Run};
use crate::diagnostic::Finding;

/// At most this many runs are read side by side (8 MiB of read buffers); more are first merged
/// into fewer, a group at a time.
pub(super) const MAX_FAN_IN: usize = 1024;
/// Findings handed to the reader at a time (more when one file has more).
const BATCH: usize = 1024;
/// The read buffer of each run.
const READ_BUFFER: usize = 8 * 1024;

/// Calls `each` with every finding of `runs` in sorted order, in batches of whole files: the
/// order sorting all of them at once gives (findings of one path in two runs are merged by
/// their key, the earlier run's first on a tie, as a stable sort keeps them). With `render`,
/// each batch comes with its text, rendered where it was decoded.
///
/// Three stages overlap: one thread merges the runs' records by path, undecoded; [`DECODERS`]
/// threads decode its batches (and render them), taking turns (batch `k` to decoder
/// `k % DECODERS`); and this thread takes the decoded batches in the same turns, so in order,
/// hands each to `each`, then back to its decoder to be refilled. Decoding was the merge's
/// cost, on one thread while the report's threads waited. Each decoder holds at most a batch
/// waiting, one being decoded, one decoded, one handed back and its spares. Without threads
/// (a thread limit), all is done on this one.
pub(super) fn each_batch(
    runs: &[Run],
    render: Option<&Render<'_>>,
    each: &mut EachRendered<'_>,
) -> io::Result<()> {
    std::thread::scope(|scope| {
        let mut decoders = Vec::with_capacity(DECODERS);
        for _ in 0..DECODERS {
            let (raw_tx, raw_rx) = mpsc::sync_channel::<RawBatch>(1);
            let (full_tx, full_rx) = mpsc::sync_channel::<io::Result<Decoded>>(1);
            let (empty_tx, empty_rx) = mpsc::channel::<Decoded>();
            let started = std::thread::Builder::new()
                .name("forgelint-decode".into())
                .spawn_scoped(scope, move || {
                    decode_each(&raw_rx, render, &full_tx, &empty_rx)
                });
            if started.is_err() {
                break;
            }
            decoders.push((raw_tx, full_rx, empty_tx));
        }
        if decoders.is_empty() {
            return merge_and_decode(runs, render, each);
        }
        let raw_txs: Vec<_> = decoders.iter().map(|(tx, _, _)| tx.clone()).collect();
        let merger = std::thread::Builder::new()
            .name("forgelint-merge".into())
            .spawn_scoped(scope, move || {
                let mut turn = 0;
                merge(runs, &mut |batch| {
                    let full = std::mem::replace(batch, batch.next());
                    let sent = raw_txs[turn % raw_txs.len()].send(full);
                    turn += 1;
                    sent.map_err(|_| io::Error::other("the report stopped reading findings"))
                })
            });
        let (receivers, returns): (Vec<_>, Vec<_>) = decoders
            .into_iter()
            .map(|(_, full_rx, empty_tx)| (full_rx, empty_tx))
            .unzip();
        let Ok(merger) = merger else {
            // The decoders stop as their senders, dropped with the receivers, go.
            drop((receivers, returns));
            return merge_and_decode(runs, render, each);
        };
        let mut written = Ok(());
        // A decoder's channel closes once the merge has ended and it has sent all it had.
        for (turn, decoded) in (0..).map(|k| (k, receivers[k % receivers.len()].recv())) {
            let Ok(decoded) = decoded else { break };
            written = decoded.and_then(|decoded| {
                let done = each(&decoded.findings, decoded.text());
                // Refilled by its decoder; gone when the decoder has finished.
                let _ = returns[turn % returns.len()].send(decoded);
                done
            });
            if written.is_err() {
                break;
            }
        }
        // The merge and the decoders, blocked on full channels, stop when nobody will read.
        drop(receivers);
        let read = merger
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        written.and(read)
    })
}

/// Decoding threads beside the merge's: two keep up with the writing of a report on two
/// cores when they render it too.
const DECODERS: usize = 2;

/// A batch decoded, and rendered when asked.
#[derive(Default)]
struct Decoded {
    findings: Vec<Finding>,
    text: Vec<u8>,
    rendered: bool,
}

impl Decoded {
    /// Decodes `batch` over this one (its buffers reused) and renders it with `render`.
    fn refill(
        &mut self,
        batch: &RawBatch,
        decoder: &mut Decoder,
        render: Option<&Render<'_>>,
    ) -> io::Result<()> {
        batch.decode(decoder, &mut self.findings)?;
        self.text.clear();
        self.rendered = false;
        match render {
            // A file with more findings than that is rendered by the writer in chunks: its
            // whole text is not held.
            Some(render) if self.findings.len() <= RENDERED_AT_MOST => {
                render(&self.findings, batch.before, &mut self.text)?;
                self.rendered = true;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The batch's text, when it was rendered.
    fn text(&self) -> Option<&[u8]> {
        self.rendered.then_some(&self.text[..])
    }
}

/// Decoded batches a decoder keeps for reuse beyond the one it refills.
const SPARE_BATCHES: usize = 2;

/// The most findings a decoder renders in one batch.
const RENDERED_AT_MOST: usize = 4 * BATCH;

/// A decoder's loop: decodes (and renders) each batch from `raw` and sends it on `full`,
/// refilling one of the batches handed back on `empty`. A decoder that runs ahead of the
/// writer finds none handed back yet and makes a batch; the batches that come back together
/// later are kept as spares (as many as [`SPARE_BATCHES`]), so that their buffers, not new
/// ones, take the next findings.
fn decode_each(
    raw: &mpsc::Receiver<RawBatch>,
    render: Option<&Render<'_>>,
    full: &mpsc::SyncSender<io::Result<Decoded>>,
    empty: &mpsc::Receiver<Decoded>,
) {
    let mut decoder = Decoder::default();
    let mut spares: Vec<Decoded> = Vec::with_capacity(SPARE_BATCHES + 1);
    for batch in raw.iter() {
        for back in empty.try_iter() {
            if spares.len() < SPARE_BATCHES {
                spares.push(back);
            }
        }
        let mut decoded = spares.pop().unwrap_or_default();
        let done = decoded
            .refill(&batch, &mut decoder, render)
            .map(|()| decoded);
        if full.send(done).is_err() {
            return;
        }
    }
}

/// [`each_batch`] on this thread alone.
fn merge_and_decode(
    runs: &[Run],
    render: Option<&Render<'_>>,
    each: &mut EachRendered<'_>,
) -> io::Result<()> {
    let mut decoder = Decoder::default();
    let mut decoded = Decoded::default();
    merge(runs, &mut |batch| {
        decoded.refill(batch, &mut decoder, render)?;
        *batch = batch.next();
        each(&decoded.findings, decoded.text())
    })
}

/// Whole files' records, merged and undecoded.
#[derive(Default)]
struct RawBatch {
    bytes: Vec<u8>,
    /// Where each record ends in `bytes`.
    record_ends: Vec<usize>,
    /// Where each file's records end in `record_ends`: a file spilled in several runs has a
    /// record in each.
    file_ends: Vec<usize>,
    /// The findings in all of them.
    findings: usize,
    /// The findings of the pass before this batch.
    before: usize,
}

impl RawBatch {
    /// The empty batch after this one, with room for as many bytes.
    fn next(&self) -> RawBatch {
        RawBatch {
            bytes: Vec::with_capacity(self.bytes.capacity()),
            before: self.before + self.findings,
            ..RawBatch::default()
        }
    }

    /// Adds one file's records, taken from `sources` in their order.
    fn add_file(&mut self, sources: &[Source<'_>], from: &[usize]) {
        for &i in from {
            self.bytes.extend_from_slice(sources[i].decoder_record());
            self.record_ends.push(self.bytes.len());
            self.findings += sources[i].findings;
        }
        self.file_ends.push(self.record_ends.len());
    }

    /// Decodes the batch's findings over `into` (its findings' strings reused), in order: a
    /// file's findings from several runs ordered by the rest of the key, the earlier run's
    /// first on a tie.
    fn decode(&self, decoder: &mut Decoder, into: &mut Vec<Finding>) -> io::Result<()> {
        into.reserve(self.findings.saturating_sub(into.len()));
        let (mut record, mut start, mut filled) = (0, 0, 0);
        for &file_end in &self.file_ends {
            let from = filled;
            for &end in &self.record_ends[record..file_end] {
                decoder.decode_over(&self.bytes[start..end], into, &mut filled)?;
                start = end;
            }
            if file_end - record > 1 {
                into[from..filled].sort_by(Finding::cmp_in_file);
            }
            record = file_end;
        }
        into.truncate(filled);
        Ok(())
    }
}

/// The merge of [`each_batch`], of records by path: `emit` takes each full batch, leaving an
/// empty one in its place.
fn merge(runs: &[Run], emit: &mut dyn FnMut(&mut RawBatch) -> io::Result<()>) -> io::Result<()> {
    let mut sources: Vec<Source<'_>> = runs.iter().map(Source::new).collect();
    let mut heads: BinaryHeap<Reverse<(Vec<u8>, usize)>> = BinaryHeap::new();
    for (i, source) in sources.iter_mut().enumerate() {
        if let Some(path) = source.advance()? {
            heads.push(Reverse((path, i)));
        }
    }
    let mut batch = RawBatch::default();
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
        batch.add_file(&sources, &same);
        let mut reused = Some(path);
        for &i in &same {
            if let Some(next) = sources[i].advance_reusing(reused.take())? {
                heads.push(Reverse((next, i)));
            }
        }
        if batch.findings >= BATCH {
            emit(&mut batch)?;
        }
    }
    if !batch.file_ends.is_empty() {
        emit(&mut batch)?;
    }
    Ok(())
}

/// Calls `each` with every file's path and [`Counts`] (`files` is 1) in path order, read from
/// the records' heads (a run's index of them, where it has one), decoding no finding: the
/// same paths come out of the heap together, as in [`merge`], and are one file.
pub(super) fn each_file(
    runs: &[Run],
    each: &mut dyn FnMut(&str, Counts) -> io::Result<()>,
) -> io::Result<()> {
    // Each run's reader, and the counts of its head record.
    let mut sources: Vec<(BufReader<RunReader<'_>>, Decoder, Counts)> = runs
        .iter()
        .map(|run| {
            let input = BufReader::with_capacity(READ_BUFFER, RunReader::heads_of(run));
            (input, Decoder::default(), Counts::default())
        })
        .collect();
    // A head's path is read into the buffer of one already passed: no allocation a file.
    let next_head =
        |(input, decoder, counts): &mut (_, Decoder, Counts), i: usize, mut buffer: Vec<u8>| {
            *counts = Counts::default();
            let path = decoder.read_counts(input, counts)?;
            io::Result::Ok(path.map(|path| {
                buffer.clear();
                buffer.extend_from_slice(path);
                Reverse((buffer, i))
            }))
        };
    let mut heads: BinaryHeap<Reverse<(Vec<u8>, usize)>> = BinaryHeap::new();
    for (i, source) in sources.iter_mut().enumerate() {
        heads.extend(next_head(source, i, Vec::new())?);
    }
    let mut file: Option<(Vec<u8>, Counts)> = None;
    while let Some(Reverse((path, i))) = heads.pop() {
        let counts = sources[i].2;
        let spare = match &mut file {
            Some((last, total)) if *last == path => {
                total.add_all(&counts);
                path
            }
            _ => match file.replace((path, counts)) {
                Some((last, total)) => {
                    each(path_text(&last)?, Counts { files: 1, ..total })?;
                    last
                }
                None => Vec::new(),
            },
        };
        heads.extend(next_head(&mut sources[i], i, spare)?);
    }
    match file {
        Some((last, total)) => each(path_text(&last)?, Counts { files: 1, ..total }),
        None => Ok(()),
    }
}

/// A record's path, which was written from a `str`.
fn path_text(path: &[u8]) -> io::Result<&str> {
    crate::json::text_of(path).ok_or_else(super::codec::corrupt)
}

/// A run being read: its current record (one file's findings), undecoded.
struct Source<'r> {
    input: BufReader<RunReader<'r>>,
    decoder: Decoder,
    /// The findings in the current record.
    findings: usize,
}

impl<'r> Source<'r> {
    fn new(run: &'r Run) -> Source<'r> {
        Source {
            input: BufReader::with_capacity(READ_BUFFER, RunReader::of(run)),
            decoder: Decoder::default(),
            findings: 0,
        }
    }

    /// Reads the next record; its path, or `None` at the end.
    fn advance(&mut self) -> io::Result<Option<Vec<u8>>> {
        self.advance_reusing(None)
    }

    /// [`Source::advance`], the path written into `buffer` if one is given.
    fn advance_reusing(&mut self, buffer: Option<Vec<u8>>) -> io::Result<Option<Vec<u8>>> {
        let Some(record) = self.decoder.next_record(&mut self.input)? else {
            return Ok(None);
        };
        let (findings, path) = record_head(record)?;
        self.findings = findings;
        let mut buffer = buffer.unwrap_or_default();
        buffer.clear();
        buffer.extend_from_slice(path.as_bytes());
        Ok(Some(buffer))
    }

    /// The current record's bytes.
    fn decoder_record(&self) -> &[u8] {
        self.decoder.record()
    }
}

/// Reads `file` from `at` to `end` with positional reads: the file's own offset is not used.
struct RunReader<'r> {
    file: &'r File,
    at: u64,
    end: u64,
}

impl<'r> RunReader<'r> {
    /// The run's records.
    fn of(run: &'r Run) -> RunReader<'r> {
        RunReader {
            file: &run.file,
            at: run.start,
            end: run.start + run.len,
        }
    }

    /// The run's index of heads, or its records where it has none: either is read by
    /// [`Decoder::read_counts`].
    fn heads_of(run: &'r Run) -> RunReader<'r> {
        match &run.heads {
            Some(heads) => RunReader {
                file: &run.file,
                at: heads.start,
                end: heads.end,
            },
            None => RunReader::of(run),
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
