//! Findings held encoded, as the records a spilled run is made of. Once a run has spilled, a
//! worker encodes its findings where it made them, while they are in its cache, and frees
//! them there: the spool then holds compact bytes, and a spill only orders records by path
//! and writes them, instead of reading back cold findings to sort and encode them.

use std::io;
use std::ops::Range;
use std::sync::Arc;

use super::codec::{self, Decoder};
use super::spill::{RunOut, WRITE_AT};
use crate::diagnostic::{path_order, sort_in_file, Finding};

/// Chunks grow to this size (a larger file's findings get a chunk their size).
const MAX_CHUNK: usize = 256 * 1024;

/// Records of files' findings, each file's sorted, in the order they came.
#[derive(Default)]
pub(super) struct Encoded {
    chunks: Vec<Vec<u8>>,
    records: Vec<Record>,
    /// Bytes held, the records' index included.
    bytes: usize,
}

/// One file's findings: a stretch of a chunk.
struct Record {
    path: Arc<str>,
    chunk: usize,
    range: Range<usize>,
    findings: usize,
}

impl Encoded {
    /// Encodes `findings`, one record for each stretch of one file's findings, sorted first
    /// where they are not ([`sort_in_file`]: the engine makes them sorted).
    pub fn encode(findings: &mut [Finding]) -> io::Result<Encoded> {
        let mut encoded = Encoded::default();
        encoded.add(findings)?;
        Ok(encoded)
    }

    /// [`Encoded::encode`] into these records: after them, in their last chunk.
    pub fn add(&mut self, findings: &mut [Finding]) -> io::Result<()> {
        // A record takes about a hundred bytes a finding. A chunk without room for these is
        // followed by a new one, twice as large (a record lies in one chunk): a batch of
        // files is encoded without copying its chunk over as it grows.
        let needed = findings.len() * 128;
        let (room, last) = self
            .chunks
            .last()
            .map_or((0, 0), |c| (c.capacity() - c.len(), c.capacity()));
        if room < needed || self.chunks.is_empty() {
            let size = needed.max(last.saturating_mul(2).min(MAX_CHUNK));
            self.chunks.push(Vec::with_capacity(size));
            self.bytes += size;
        }
        let at = self.chunks.len() - 1;
        let chunk = &mut self.chunks[at];
        let (capacity, first) = (chunk.capacity(), self.records.len());
        let same_file =
            |a: &Finding, b: &Finding| Arc::ptr_eq(&a.path, &b.path) || a.path == b.path;
        for file in findings.chunk_by_mut(same_file) {
            sort_in_file(file);
            let start = chunk.len();
            codec::write_group(chunk, file.iter())?;
            self.records.push(Record {
                path: file[0].path.clone(),
                chunk: at,
                range: start..chunk.len(),
                findings: file.len(),
            });
        }
        // A record holds its path alive once the findings are gone.
        let added = &self.records[first..];
        let paths: usize = added.iter().map(|r| r.path.len() + 16).sum();
        self.bytes += chunk.capacity() - capacity + std::mem::size_of_val(added) + paths;
        Ok(())
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// How many findings.
    pub fn findings(&self) -> usize {
        self.records.iter().map(|r| r.findings).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Takes `other`'s records after these.
    pub fn append(&mut self, other: Encoded) {
        let first = self.chunks.len();
        self.chunks.extend(other.chunks);
        self.records
            .extend(other.records.into_iter().map(|r| Record {
                chunk: r.chunk + first,
                ..r
            }));
        self.bytes += other.bytes;
    }

    /// Writes the records as one sorted run: by path, stably; a file's records from several
    /// keeps are merged into one (the earlier's findings first on a tie). Returns how many
    /// findings.
    pub fn write_sorted(&self, out: &mut RunOut<'_>) -> io::Result<usize> {
        let paths: Vec<&str> = self.records.iter().map(|r| &*r.path).collect();
        let order = path_order(&paths);
        let mut pending: Vec<u8> = Vec::with_capacity(WRITE_AT);
        let mut count = 0;
        let mut next = 0;
        while next < order.len() {
            let path = paths[order[next]];
            let mut end = next + 1;
            while end < order.len() && paths[order[end]] == path {
                end += 1;
            }
            let same = &order[next..end];
            if let [only] = same {
                pending.extend_from_slice(self.record_bytes(*only));
            } else {
                self.merge_records(same, &mut pending)?;
            }
            count += same
                .iter()
                .map(|&i| self.records[i].findings)
                .sum::<usize>();
            if pending.len() >= WRITE_AT {
                out.write_records(&pending)?;
                pending.clear();
            }
            next = end;
        }
        out.write_records(&pending)?;
        Ok(count)
    }

    fn record_bytes(&self, i: usize) -> &[u8] {
        let record = &self.records[i];
        &self.chunks[record.chunk][record.range.clone()]
    }

    /// One file's records `same` (in order of arrival) as one record: decoded, their findings
    /// sorted stably, encoded again. Rare: a file's findings are kept at once.
    fn merge_records(&self, same: &[usize], out: &mut Vec<u8>) -> io::Result<()> {
        let mut decoder = Decoder::default();
        let mut findings = Vec::new();
        let mut filled = 0;
        for &i in same {
            let record = self.record_bytes(i);
            // A record as the codec reads it starts after its size.
            decoder.decode_over(&record[4..], &mut findings, &mut filled)?;
        }
        findings.sort_by(Finding::cmp_in_file);
        codec::write_group(out, findings.iter())
    }
}
