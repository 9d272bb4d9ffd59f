//! Rule ids, interned: a finding names its rule with one pointer to text kept for the process,
//! copied without an allocation or a shared count (a dense audit makes a million findings, on
//! every worker at once).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// A rule's id. Equal ids are one text: they compare by address first.
#[derive(Clone, Copy)]
pub struct RuleId(&'static str);

impl RuleId {
    /// The id `id`, interned: the first time an id is seen its text is kept for the process
    /// (ids come from rule files, a few dozen); then it is looked up. For a rule's compiler and
    /// the rare finding made outside one (a file that cannot be read); a lint takes its rule's.
    pub fn new(id: &str) -> RuleId {
        static IDS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
        let mut ids = IDS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(&known) = ids.get(id) {
            return RuleId(known);
        }
        let kept: &'static str = Box::leak(id.into());
        ids.insert(kept);
        RuleId(kept)
    }

    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl std::ops::Deref for RuleId {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl AsRef<str> for RuleId {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl std::borrow::Borrow<str> for RuleId {
    fn borrow(&self) -> &str {
        self.0
    }
}

impl From<&str> for RuleId {
    fn from(id: &str) -> RuleId {
        RuleId::new(id)
    }
}

impl PartialEq for RuleId {
    fn eq(&self, other: &RuleId) -> bool {
        std::ptr::eq(self.0, other.0) || self.0 == other.0
    }
}

impl Eq for RuleId {}

impl PartialEq<str> for RuleId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
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
        self.0.cmp(other.0)
    }
}

impl std::hash::Hash for RuleId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl std::fmt::Debug for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.0, f)
    }
}

impl std::fmt::Display for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
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
