//! The output of `git log --raw -z` and `git ls-tree -r -z`, parsed as it streams.

use super::{Change, Commit, GitError, Mode, Oid, Process, Side};

/// The commits of [`Repo::log`], oldest first.
pub struct Log {
    process: Process,
    token: Vec<u8>,
    /// The header of the next commit, read while looking for the end of this one.
    header: Option<Vec<u8>>,
    done: bool,
    warnings: String,
}

impl Log {
    pub(super) fn new(process: Process) -> Log {
        Log {
            process,
            token: Vec::new(),
            header: None,
            done: false,
            warnings: String::new(),
        }
    }

    fn read_commit(&mut self) -> Result<Option<Commit>, GitError> {
        let header = match self.header.take() {
            Some(h) => h,
            None => loop {
                if !self.process.token(&mut self.token)? {
                    return Ok(None);
                }
                let t = self.token.trim_ascii_start();
                if t.is_empty() {
                    continue;
                }
                if t.first() != Some(&1) {
                    return Err(self
                        .process
                        .parse("a commit that does not start with its id"));
                }
                break t.to_vec();
            },
        };
        let mut commit = self.parse_header(&header)?;
        loop {
            if !self.process.token(&mut self.token)? {
                return Ok(Some(commit));
            }
            let start = self.token.iter().position(|&b| b != b'\n');
            let Some(start) = start else { continue };
            match self.token[start] {
                1 => {
                    self.header = Some(self.token[start..].to_vec());
                    return Ok(Some(commit));
                }
                b':' => {
                    let meta = self.token[start..].to_vec();
                    let change = parse_change(&mut self.process, &mut self.token, &meta)?;
                    if let Some(change) = change {
                        commit.changes.push(change);
                    }
                }
                _ => {
                    return Err(self
                        .process
                        .parse("a change line that does not start with ':'"))
                }
            }
        }
    }

    /// `\x01<id> <tree> <parents>`, then the fields after it: `<time> <date>`, name, e-mail.
    fn parse_header(&mut self, first: &[u8]) -> Result<Commit, GitError> {
        let ids = &first[1..];
        let mut words = ids.split(|&b| b == b' ').filter(|w| !w.is_empty());
        let mut next_id = |what: &str| {
            words
                .next()
                .and_then(Oid::from_hex)
                .ok_or_else(|| self.process.parse(format!("a commit without {what}")))
        };
        let id = next_id("an id")?;
        let tree = next_id("a tree")?;
        let parents = words
            .map(|w| Oid::from_hex(w).ok_or_else(|| self.process.parse("a bad parent id")))
            .collect::<Result<Vec<_>, _>>()?;
        let mut fields: [String; 3] = Default::default();
        for field in &mut fields {
            if !self.process.token(&mut self.token)? {
                return Err(self.process.parse("a commit header cut short"));
            }
            *field = String::from_utf8_lossy(&self.token).into_owned();
        }
        let [when, author, email] = fields;
        let (time, date) = when
            .split_once(' ')
            .and_then(|(t, d)| Some((t.parse::<i64>().ok()?, d.to_string())))
            .ok_or_else(|| self.process.parse("a commit without a date"))?;
        Ok(Commit {
            id,
            tree,
            parents,
            time,
            date,
            author,
            email,
            changes: Vec::new(),
        })
    }
}

/// `:<old mode> <new mode> <old id> <new id> <status>`, then one path, or two for a rename
/// or copy. Copies are not asked for; an unmerged entry cannot appear in a commit.
pub(super) fn parse_change(
    process: &mut Process,
    token: &mut Vec<u8>,
    meta: &[u8],
) -> Result<Option<Change>, GitError> {
    let fields: Vec<&[u8]> = meta[1..].split(|&b| b == b' ').collect();
    let [old_mode, new_mode, old_id, new_id, status] = fields[..] else {
        return Err(process.parse("a change line without five fields"));
    };
    let bad = |what: &str| process.parse(format!("a change line with a bad {what}"));
    let old_mode = Mode::parse(old_mode).ok_or_else(|| bad("mode"))?;
    let new_mode = Mode::parse(new_mode).ok_or_else(|| bad("mode"))?;
    let old_id = Oid::from_hex(old_id).ok_or_else(|| bad("id"))?;
    let new_id = Oid::from_hex(new_id).ok_or_else(|| bad("id"))?;
    let letter = *status.first().ok_or_else(|| bad("status"))?;
    let score = std::str::from_utf8(&status[1..])
        .ok()
        .and_then(|s| s.parse::<u8>().ok())
        .unwrap_or(0);
    let mut path = || -> Result<String, GitError> {
        if !process.token(&mut *token)? {
            return Err(process.parse("a change without its path"));
        }
        Ok(String::from_utf8_lossy(&*token).into_owned())
    };
    let side = |path: String, mode: Mode, id: Oid| Side { path, mode, id };
    Ok(Some(match letter {
        b'A' => Change::Added(side(path()?, new_mode, new_id)),
        b'D' => Change::Deleted(side(path()?, old_mode, old_id)),
        b'M' | b'T' => {
            let p = path()?;
            Change::Modified {
                old: side(p.clone(), old_mode, old_id),
                new: side(p, new_mode, new_id),
            }
        }
        b'R' | b'C' => {
            let from = path()?;
            let to = path()?;
            if letter == b'C' {
                // A copy leaves its source in place: the new path is new.
                Change::Added(side(to, new_mode, new_id))
            } else {
                Change::Renamed {
                    old: side(from, old_mode, old_id),
                    new: side(to, new_mode, new_id),
                    similarity: score,
                }
            }
        }
        _ => {
            // `U` or `X`: never in a commit's diff; skip its path and go on.
            path()?;
            return Ok(None);
        }
    }))
}

impl Log {
    /// What git said on stderr, once the log is read to its end (rename detection skipped in
    /// a huge commit, say).
    pub fn warnings(&self) -> &str {
        &self.warnings
    }
}

impl Iterator for Log {
    type Item = Result<Commit, GitError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.read_commit() {
            Ok(Some(commit)) => Some(Ok(commit)),
            Ok(None) => {
                self.done = true;
                match self.process.finish() {
                    Ok(warnings) => {
                        self.warnings = warnings;
                        None
                    }
                    Err(e) => Some(Err(e)),
                }
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// The files of [`Repo::files`].
pub struct Files {
    process: Process,
    token: Vec<u8>,
}

impl Files {
    pub(super) fn new(process: Process) -> Files {
        Files {
            process,
            token: Vec::new(),
        }
    }
}

impl Iterator for Files {
    type Item = Result<Side, GitError>;

    /// `<mode> SP <type> SP <id> TAB <path>`, NUL-terminated.
    fn next(&mut self) -> Option<Self::Item> {
        match self.process.token(&mut self.token) {
            Ok(true) => {}
            Ok(false) => return self.process.finish().err().map(Err),
            Err(e) => return Some(Err(e)),
        }
        let parsed = (|| {
            let tab = self.token.iter().position(|&b| b == b'\t')?;
            let mut meta = self.token[..tab].split(|&b| b == b' ');
            let mode = Mode::parse(meta.next()?)?;
            let _kind = meta.next()?;
            let id = Oid::from_hex(meta.next()?)?;
            let path = String::from_utf8_lossy(&self.token[tab + 1..]).into_owned();
            Some(Side { path, mode, id })
        })();
        Some(parsed.ok_or_else(|| self.process.parse("a tree entry")))
    }
}
