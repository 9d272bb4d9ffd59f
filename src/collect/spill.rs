//! Sorted runs on disk: where they are, how one is written, and how many are merged into few.
//!
//! A run spilled from held findings is followed by its index of heads: each record's counts
//! and path, framed as a record of their own. A pass that only counts (the summary's counts,
//! each file's path) reads those instead of the records: about 60 bytes a file instead of
//! every finding. A run merged from others (past [`merge::MAX_FAN_IN`] runs) has no index, since its
//! heads could be more than memory holds; it is counted from its records.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::sync::Arc;

use super::codec;
use super::merge;
use crate::diagnostic::Finding;

/// One sorted run: stretches of a temporary file.
#[derive(Clone)]
pub(super) struct Run {
    pub file: Arc<File>,
    /// Its records: where they start in the file, and their size, in bytes.
    pub start: u64,
    pub len: u64,
    /// Its index of heads, where it has one, after the records.
    pub heads: Option<Range<u64>>,
    /// The findings in it.
    pub count: usize,
}

/// The temporary file that runs are appended to: one file (one descriptor) however many runs
/// there are, read back with positional reads.
#[derive(Default)]
pub(super) struct SpillFile {
    file: Option<Arc<File>>,
    end: u64,
}

/// Where a run is written: its records, and each one's head when the run is indexed.
pub(super) struct RunOut<'f> {
    records: BufWriter<&'f File>,
    /// The records' bytes written so far.
    written: u64,
    heads: Option<Vec<u8>>,
}

impl RunOut<'_> {
    /// Writes whole records (each with its size, as [`codec::write_group`] makes them).
    pub fn write_records(&mut self, records: &[u8]) -> io::Result<()> {
        if let Some(heads) = &mut self.heads {
            codec::push_heads(records, heads)?;
        }
        self.records.write_all(records)?;
        self.written += records.len() as u64;
        Ok(())
    }
}

/// Whether a run gets an index of heads.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Heads {
    Indexed,
    Unindexed,
}

impl SpillFile {
    /// Appends one run, the records `write` writes (then their heads, when `heads` says so);
    /// `write` returns how many findings.
    pub fn append(
        &mut self,
        heads: Heads,
        write: impl FnOnce(&mut RunOut<'_>) -> io::Result<usize>,
    ) -> io::Result<Run> {
        let file = match &self.file {
            Some(file) => file.clone(),
            None => self.file.insert(Arc::new(tempfile::tempfile()?)).clone(),
        };
        let start = self.end;
        // A write that failed part way has moved the offset: the next run starts at the end of
        // the last whole one.
        (&*file).seek(SeekFrom::Start(start))?;
        let mut out = RunOut {
            records: BufWriter::with_capacity(256 * 1024, &*file),
            written: 0,
            heads: (heads == Heads::Indexed).then(Vec::new),
        };
        let count = write(&mut out)?;
        let len = out.written;
        let heads = match out.heads.take() {
            Some(heads) => {
                out.records.write_all(&heads)?;
                Some(start + len..start + len + heads.len() as u64)
            }
            None => None,
        };
        out.records.flush()?;
        drop(out);
        self.end = heads.as_ref().map_or(start + len, |h| h.end);
        Ok(Run {
            file,
            start,
            len,
            heads,
            count,
        })
    }
}

/// Merges groups of `fan_in` runs into one run each until at most `fan_in` are left, so that
/// reading them side by side takes bounded memory however many there are. Groups are
/// consecutive runs, merged into the group's place: the order of ties stays that of arrival.
pub(super) fn narrow(mut runs: Vec<Run>, fan_in: usize) -> io::Result<Vec<Run>> {
    while runs.len() > fan_in {
        let mut target = SpillFile::default();
        let mut narrowed = Vec::with_capacity(runs.len().div_ceil(fan_in));
        for group in runs.chunks(fan_in) {
            narrowed.push(match group {
                [only] => only.clone(),
                _ => target.append(Heads::Unindexed, |out| {
                    let mut count = 0;
                    merge::each_batch(group, None, &mut |batch, _| {
                        count += write_sorted(out, batch)?;
                        Ok(())
                    })?;
                    Ok(count)
                })?,
            });
        }
        runs = narrowed;
    }
    Ok(runs)
}

/// Writes sorted findings as records, one per file; returns how many.
fn write_sorted<'f>(
    out: &mut RunOut<'_>,
    sorted: impl IntoIterator<Item = &'f Finding>,
) -> io::Result<usize> {
    let mut encoded = Vec::with_capacity(2 * WRITE_AT);
    let mut count = 0;
    let mut group: Vec<&Finding> = Vec::new();
    for f in sorted {
        if group.first().is_some_and(|first| first.path != f.path) {
            codec::write_group(&mut encoded, group.drain(..))?;
            if encoded.len() >= WRITE_AT {
                out.write_records(&encoded)?;
                encoded.clear();
            }
        }
        group.push(f);
        count += 1;
    }
    codec::write_group(&mut encoded, group.drain(..))?;
    out.write_records(&encoded)?;
    Ok(count)
}

/// Encoded records are written in pieces of about this many bytes.
pub(super) const WRITE_AT: usize = 256 * 1024;
