//! How each format says where a finding of a history audit came from: the commit that
//! introduced it and the commit that removed it (`forgelint history`).

use crate::diagnostic::{Provenance, Stamp};
use crate::escape::visible;
use crate::json::writer::JsonWriter;

/// One commit in a sentence: `1a2b3c4 on 2024-03-02 by Ada Lovelace`.
fn commit(stamp: &Stamp) -> String {
    format!(
        "{} on {} by {}",
        visible(stamp.short()),
        visible(stamp.day()),
        visible(stamp.name())
    )
}

/// The line under a finding in the human report: "introduced in 1a2b3c4 on 2024-03-02 by Ada
/// Lovelace; removed in 5d6e7f8 on 2024-04-10 by Alan Turing", or "…; still at the tip".
pub fn sentence(history: &Provenance) -> String {
    let introduced = match &history.introduced {
        Some(s) if s.boundary => format!(
            "introduced in {} or before (history stops there: a shallow clone)",
            commit(s)
        ),
        Some(s) => format!("introduced in {}", commit(s)),
        None => "there before the commits read".to_string(),
    };
    let removed = match &history.removed {
        Some(s) => format!("removed in {}", commit(s)),
        None => "still at the tip".to_string(),
    };
    format!("{introduced}; {removed}")
}

/// The short form the one-line formats append: `(introduced 1a2b3c4 2024-03-02, removed
/// 5d6e7f8 2024-04-10)`, or `(…, still at the tip)`.
pub fn brief(history: &Provenance) -> String {
    let short = |s: &Stamp| format!("{} {}", visible(s.short()), visible(s.day()));
    let introduced = match &history.introduced {
        Some(s) if s.boundary => format!("introduced {} or before", short(s)),
        Some(s) => format!("introduced {}", short(s)),
        None => "there before the commits read".to_string(),
    };
    let removed = match &history.removed {
        Some(s) => format!("removed {}", short(s)),
        None => "still at the tip".to_string(),
    };
    format!("({introduced}, {removed})")
}

/// The `introduced` and `removed` members of a finding in `json`, `jsonl` and SARIF's
/// `properties`: each `{"commit", "date", "author"}` (and `"boundary": true` where a shallow
/// clone's history stops), or `null`.
pub fn write_members(w: &mut JsonWriter<'_>, history: &Provenance) {
    for (key, stamp) in [
        ("introduced", &history.introduced),
        ("removed", &history.removed),
    ] {
        w.key(key);
        match stamp {
            None => w.null(),
            Some(s) => {
                w.begin_object();
                for (key, value) in [
                    ("commit", &s.commit),
                    ("date", &s.date),
                    ("author", &s.author),
                ] {
                    w.key(key);
                    w.string(value);
                }
                if s.boundary {
                    w.key("boundary");
                    w.boolean(true);
                }
                w.end_object();
            }
        }
    }
}

/// A secret found only in history: it is gone from the files, not from the clones.
pub const REVOKE: &str = "revoke it: it stays in every clone (no file holds it now, but the history does); then read it from the environment or the platform's secret store";
