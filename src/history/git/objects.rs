//! Objects by id through one `git cat-file --batch`.

use std::io::{self, BufRead, BufWriter, Read, Write};
use std::process::ChildStdin;

use super::{GitError, Mode, Oid, Process};

/// Called with each object [`Objects::read_each`] reads: its index in the ids asked for, what
/// it is (`None`: no such object), and its bytes.
pub type EachObject<'a> = dyn FnMut(usize, Option<Object>, &[u8]) + 'a;

/// What an object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Blob,
    Tree,
    Commit,
    Tag,
}

/// An object read by [`Objects::read`]: its kind and full size; the bytes kept are at most the
/// limit asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Object {
    pub kind: Kind,
    pub size: u64,
}

/// A `git cat-file --batch` process: ask for an object, get its bytes.
pub struct Objects {
    input: Option<BufWriter<ChildStdin>>,
    process: Process,
    /// Bytes in an object id here (learned from the first answer; 20 until then).
    hash_len: usize,
}

impl Objects {
    pub(super) fn new(mut process: Process) -> Objects {
        let input = process.child.stdin.take().map(BufWriter::new);
        Objects {
            input,
            process,
            hash_len: 0,
        }
    }

    /// Reads the object `name` (an id, or `rev:path`) into `into`, keeping at most `limit`
    /// bytes (the rest is read and dropped, so a huge blob costs no memory). `None` when the
    /// repository has no such object.
    pub fn read(
        &mut self,
        name: &str,
        limit: usize,
        into: &mut Vec<u8>,
    ) -> Result<Option<Object>, GitError> {
        into.clear();
        if name.contains(['\n', '\r']) || name.is_empty() {
            return Ok(None);
        }
        let input = self
            .input
            .as_mut()
            .ok_or_else(|| self.process.parse("the input is closed"))?;
        let sent = input
            .write_all(name.as_bytes())
            .and_then(|()| input.write_all(b"\n"))
            .and_then(|()| input.flush());
        if let Err(e) = sent {
            // git ended: its own words say why.
            self.input = None;
            return Err(self.process.finish().err().unwrap_or(self.process.io(e)));
        }
        let answer = answer(&mut self.process, &mut self.hash_len, limit, into);
        if answer.is_err() {
            self.input = None;
        }
        answer
    }

    /// Reads the objects `ids` in order, each handed to `each` with at most `limit` of its
    /// bytes (see [`Objects::read`]; `None` for one the repository lacks). The requests are
    /// written on a thread while the answers are read here, so git never waits for a round
    /// trip: about three times faster than one [`Objects::read`] after another.
    pub fn read_each(
        &mut self,
        ids: &[Oid],
        limit: usize,
        each: &mut EachObject<'_>,
    ) -> Result<(), GitError> {
        let Some(input) = self.input.as_mut() else {
            return Err(self.process.parse("the input is closed"));
        };
        let mut bytes = Vec::new();
        let (process, hash_len) = (&mut self.process, &mut self.hash_len);
        let sent = std::thread::scope(|scope| -> Result<(), GitError> {
            let writer = scope.spawn(move || -> io::Result<()> {
                let mut line = String::with_capacity(66);
                for id in ids {
                    line.clear();
                    use std::fmt::Write as _;
                    let _ = writeln!(line, "{id}");
                    input.write_all(line.as_bytes())?;
                }
                input.flush()
            });
            for (i, _) in ids.iter().enumerate() {
                let object = answer(process, hash_len, limit, &mut bytes)?;
                each(i, object, &bytes);
            }
            writer
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("writer panicked")))
                .map_err(|e| process.io(e))
        });
        if sent.is_err() {
            self.input = None;
        }
        sent
    }

    /// The entries of a tree object read by [`Objects::read`]: mode, name, id.
    pub fn tree_entries<'t>(&self, tree: &'t [u8]) -> TreeEntries<'t> {
        TreeEntries {
            rest: tree,
            hash_len: if self.hash_len == 0 {
                20
            } else {
                self.hash_len
            },
        }
    }
}

impl Drop for Objects {
    fn drop(&mut self) {
        // Closing its input ends cat-file; `Process` then waits for it.
        self.input = None;
    }
}

/// The entries of a raw tree: `<octal mode> SP <name> NUL <raw id>`, repeated.
pub struct TreeEntries<'t> {
    rest: &'t [u8],
    hash_len: usize,
}

impl<'t> Iterator for TreeEntries<'t> {
    type Item = (Mode, &'t [u8], Oid);

    fn next(&mut self) -> Option<Self::Item> {
        let space = self.rest.iter().position(|&b| b == b' ')?;
        let nul = space + self.rest[space..].iter().position(|&b| b == 0)?;
        let end = nul + 1 + self.hash_len;
        let id = Oid::from_bytes(self.rest.get(nul + 1..end)?)?;
        let mode = Mode::parse(&self.rest[..space])?;
        let name = &self.rest[space + 1..nul];
        self.rest = &self.rest[end..];
        Some((mode, name, id))
    }
}

/// Whether a blob is a Git LFS pointer (the file's content lives on an LFS server, not here).
pub fn is_lfs_pointer(blob: &[u8]) -> bool {
    blob.len() < 1024 && blob.starts_with(b"version https://git-lfs.github.com/spec/v1\n")
}

/// Reads one answer of `cat-file --batch`: its header, then its bytes (at most `limit`
/// kept).
fn answer(
    process: &mut Process,
    hash_len: &mut usize,
    limit: usize,
    into: &mut Vec<u8>,
) -> Result<Option<Object>, GitError> {
    into.clear();
    let mut header = Vec::with_capacity(128);
    let n = process
        .stdout
        .read_until(b'\n', &mut header)
        .map_err(|e| process.io(e))?;
    if n == 0 {
        return Err(process
            .finish()
            .err()
            .unwrap_or_else(|| process.parse("no answer")));
    }
    let header = header.trim_ascii_end();
    // `<id> <type> <size>`, or `<name> missing` / `<name> ambiguous`.
    let mut words = header.rsplitn(3, |&b| b == b' ');
    let (Some(size), Some(kind), Some(id)) = (words.next(), words.next(), words.next()) else {
        return Ok(None);
    };
    let kind = match kind {
        b"blob" => Kind::Blob,
        b"tree" => Kind::Tree,
        b"commit" => Kind::Commit,
        b"tag" => Kind::Tag,
        _ => return Ok(None),
    };
    let size: u64 = std::str::from_utf8(size)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| process.parse("an object without a size"))?;
    if let Some(id) = Oid::from_hex(id) {
        *hash_len = id.as_bytes().len();
    }
    let kept = size.min(limit as u64);
    let Process { stdout, name, .. } = &mut *process;
    let failed = |source| GitError::Io {
        command: name.clone(),
        source,
    };
    into.reserve(kept as usize);
    let read = stdout
        .by_ref()
        .take(kept)
        .read_to_end(into)
        .map_err(failed)?;
    let dropped =
        io::copy(&mut stdout.by_ref().take(size - kept), &mut io::sink()).map_err(failed)?;
    let mut newline = [0u8; 1];
    stdout.read_exact(&mut newline).map_err(failed)?;
    if read as u64 + dropped != size || newline[0] != b'\n' {
        return Err(process.parse("an object cut short"));
    }
    Ok(Some(Object { kind, size }))
}
