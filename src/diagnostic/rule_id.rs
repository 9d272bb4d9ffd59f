//! Rule ids, interned: a finding names its rule with one pointer to text kept for the process,
//! copied without an allocation or a shared count (a dense audit makes a million findings, on
//! every worker at once). With the id the process keeps what its findings' messages and help
//! start with, so that a spilled finding need not repeat it.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// A rule's id. Equal ids are one text: they compare by address first.
#[derive(Clone, Copy)]
pub struct RuleId(&'static Interned);

struct Interned {
    id: &'static str,
    texts: OnceLock<RuleTexts>,
}

/// The text a rule's messages start with, and its help: the literal start of its templates
/// (what all its checks' share), as the first definition of the rule compiled gave them. Set
/// once and never changed, so what was encoded with them decodes with them; a finding that does
/// not start with them (another definition of the id, a message made elsewhere) is written
/// whole.
#[derive(Debug, Default)]
pub struct RuleTexts {
    pub message: Box<str>,
    pub help: Box<str>,
}

impl RuleId {
    /// The id `id`, interned: the first time an id is seen its text is kept for the process
    /// (ids come from rule files, a few dozen); then it is looked up. For a rule's compiler and
    /// the rare finding made outside one (a file that cannot be read); a lint takes its rule's.
    pub fn new(id: &str) -> RuleId {
        static IDS: OnceLock<Mutex<HashMap<&'static str, &'static Interned>>> = OnceLock::new();
        let mut ids = IDS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(&known) = ids.get(id) {
            return RuleId(known);
        }
        let kept: &'static Interned = Box::leak(Box::new(Interned {
            id: Box::leak(id.into()),
            texts: OnceLock::new(),
        }));
        ids.insert(kept.id, kept);
        RuleId(kept)
    }

    pub fn as_str(self) -> &'static str {
        self.0.id
    }

    /// Offers the rule's [`RuleTexts`]: the first offer is kept, later ones are ignored.
    pub fn offer_texts(self, message: &str, help: &str) {
        let _ = self.0.texts.set(RuleTexts {
            message: message.into(),
            help: help.into(),
        });
    }

    /// The rule's [`RuleTexts`], once offered.
    pub fn texts(self) -> Option<&'static RuleTexts> {
        self.0.texts.get()
    }
}

impl std::ops::Deref for RuleId {
    type Target = str;
    fn deref(&self) -> &str {
        self.0.id
    }
}

impl AsRef<str> for RuleId {
    fn as_ref(&self) -> &str {
        self.0.id
    }
}

impl std::borrow::Borrow<str> for RuleId {
    fn borrow(&self) -> &str {
        self.0.id
    }
}

impl From<&str> for RuleId {
    fn from(id: &str) -> RuleId {
        RuleId::new(id)
    }
}

impl PartialEq for RuleId {
    fn eq(&self, other: &RuleId) -> bool {
        std::ptr::eq(self.0, other.0) || self.0.id == other.0.id
    }
}

impl Eq for RuleId {}

impl PartialEq<str> for RuleId {
    fn eq(&self, other: &str) -> bool {
        self.0.id == other
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.0.id == *other
    }
}

impl PartialOrd for RuleId {
    fn partial_cmp(&self, other: &RuleId) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for RuleId {
    fn cmp(&self, other: &RuleId) -> std::cmp::Ordering {
        if std::ptr::eq(self.0, other.0) {
            return std::cmp::Ordering::Equal;
        }
        self.0.id.cmp(other.0.id)
    }
}

impl std::hash::Hash for RuleId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.id.hash(state);
    }
}

impl std::fmt::Debug for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.0.id, f)
    }
}

impl std::fmt::Display for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_interned_and_compare_as_text() {
        let a = RuleId::new("unknown-field");
        let b = RuleId::new(&String::from("unknown-field"));
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert_eq!(a, b);
        assert_eq!(a, "unknown-field");
        let c = RuleId::new("api-version");
        assert!(c < a);
        assert_eq!(format!("{c}|{c:?}"), "api-version|\"api-version\"");
    }
}
