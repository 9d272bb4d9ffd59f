//! Where a finding of a history audit (`forgelint history`) comes from: the commit that
//! introduced it, the commit that removed it, and the version of the file its positions refer
//! to. Check runs leave it out.

use std::sync::Arc;

/// A commit as a finding's `introduced` or `removed` object shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// The full commit id, in hexadecimal.
    pub commit: String,
    /// The author date, strict ISO 8601 with the author's offset.
    pub date: String,
    /// The author, `Name <e-mail>`.
    pub author: String,
    /// History stops at this commit (a shallow clone's boundary): what it introduced was
    /// introduced there or before.
    pub boundary: bool,
}

impl Stamp {
    /// The commit as `git log --oneline` abbreviates it.
    pub fn short(&self) -> &str {
        self.commit.get(..7).unwrap_or(&self.commit)
    }

    /// The day of the author date, `2024-03-02`.
    pub fn day(&self) -> &str {
        self.date.get(..10).unwrap_or(&self.date)
    }

    /// The author's name, without the e-mail address.
    pub fn name(&self) -> &str {
        match self.author.rfind(" <") {
            Some(at) if self.author.ends_with('>') => &self.author[..at],
            _ => &self.author,
        }
    }
}

/// A finding's place in history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The object id of the version of the file the finding's span and positions are in: the
    /// tip's when it is still there, else the version that introduced it.
    pub version: Arc<str>,
    /// `None`: it was there before the range began.
    pub introduced: Option<Stamp>,
    /// `None`: it is still at a tip of the range.
    pub removed: Option<Stamp>,
}
