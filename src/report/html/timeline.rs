//! The timeline of a history audit: per month, the findings introduced and removed in it and
//! those open at its end, counted in the first pass (a count per month: bounded by the
//! history's span, not by the findings).

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::text::thousands;
use crate::diagnostic::{Finding, Stamp};

/// Months filled in between the first and the last: more than a century is left with gaps.
const MAX_MONTHS: usize = 1200;

#[derive(Debug, Default)]
pub struct Timeline {
    /// Per month, as `(year, month)`: introduced in it, removed in it.
    months: BTreeMap<(u32, u32), [usize; 2]>,
    /// Findings there before the commits read: open from the start.
    before: usize,
    /// Some finding came from a history audit.
    any: bool,
}

/// A row of the timeline.
#[derive(Debug, PartialEq, Eq)]
pub struct Month {
    pub year: u32,
    pub month: u32,
    pub introduced: usize,
    pub removed: usize,
    pub open: usize,
}

/// The month of a commit's date (`2024-03-02T…`).
fn month_of(stamp: &Stamp) -> Option<(u32, u32)> {
    let year = stamp.date.get(..4)?.parse().ok()?;
    let month: u32 = stamp.date.get(5..7)?.parse().ok()?;
    (stamp.date.as_bytes().get(4) == Some(&b'-') && (1..=12).contains(&month))
        .then_some((year, month))
}

impl Timeline {
    pub fn add(&mut self, f: &Finding) {
        let Some(history) = &f.history else {
            return;
        };
        self.any = true;
        match history.introduced.as_ref().and_then(month_of) {
            Some(month) => self.months.entry(month).or_default()[0] += 1,
            None => self.before += 1,
        }
        if let Some(month) = history.removed.as_ref().and_then(month_of) {
            self.months.entry(month).or_default()[1] += 1;
        }
    }

    /// Each month from the first event's to the last's, with the findings open at its end.
    pub fn rows(&self) -> Vec<Month> {
        let (Some(first), Some(last)) = (self.months.keys().next(), self.months.keys().last())
        else {
            return Vec::new();
        };
        let span = (last.0 * 12 + last.1) as usize - (first.0 * 12 + first.1) as usize;
        let months: Vec<(u32, u32)> = if span < MAX_MONTHS {
            let mut all = Vec::with_capacity(span + 1);
            let mut at = *first;
            while at <= *last {
                all.push(at);
                at = if at.1 == 12 {
                    (at.0 + 1, 1)
                } else {
                    (at.0, at.1 + 1)
                };
            }
            all
        } else {
            self.months.keys().copied().collect()
        };
        let mut open = self.before;
        months
            .into_iter()
            .map(|(year, month)| {
                let [introduced, removed] =
                    self.months.get(&(year, month)).copied().unwrap_or_default();
                open = (open + introduced).saturating_sub(removed);
                Month {
                    year,
                    month,
                    introduced,
                    removed,
                    open,
                }
            })
            .collect()
    }

    /// The section of the page, for a history audit's findings.
    pub fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        if !self.any {
            return Ok(());
        }
        let rows = self.rows();
        let max = rows.iter().map(|r| r.open).max().unwrap_or(1).max(1);
        writeln!(
            out,
            "<section id=\"timeline\">\n<h2>Findings over time</h2>\n\
             <p class=\"hint\">By the author date of the commits that introduced and removed them; open: still in some file at the month's end{}.</p>\n\
             <table>\n<thead><tr><th>Month</th><th class=\"num\">Introduced</th><th class=\"num\">Removed</th><th class=\"num\">Open at its end</th><th></th></tr></thead>\n<tbody>",
            match self.before {
                0 => String::new(),
                n => format!(" ({} there before the commits read count from the start)", thousands(n)),
            }
        )?;
        for row in &rows {
            let share = row.open as f64 / max as f64 * 100.0;
            writeln!(
                out,
                "<tr><td>{:04}-{:02}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"barcell\"><span class=\"bar\" style=\"width:{share:.1}%\"></span></td></tr>",
                row.year,
                row.month,
                thousands(row.introduced),
                thousands(row.removed),
                thousands(row.open)
            )?;
        }
        writeln!(out, "</tbody>\n</table>\n</section>")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Provenance;
    use std::sync::Arc;

    fn stamp(date: &str) -> Option<Stamp> {
        Some(Stamp {
            commit: "c".repeat(40),
            date: date.into(),
            author: "A <a@x>".into(),
            boundary: false,
        })
    }

    fn finding(introduced: Option<&str>, removed: Option<&str>) -> Finding {
        Finding {
            history: Some(Box::new(Provenance {
                version: Arc::from("v"),
                introduced: introduced.and_then(stamp),
                removed: removed.and_then(stamp),
            })),
            ..Finding::for_tests("a.json", "r", 1)
        }
    }

    #[test]
    fn months_count_what_came_and_went_and_what_stayed() {
        let mut t = Timeline::default();
        for f in [
            finding(
                Some("2024-11-03T10:00:00+01:00"),
                Some("2025-01-09T10:00:00Z"),
            ),
            finding(Some("2024-11-20T00:00:00Z"), None),
            finding(None, Some("2024-12-01T00:00:00Z")),
            finding(Some("2025-02-01T00:00:00Z"), None),
            finding(Some("not a date"), None),
        ] {
            t.add(&f);
        }
        let rows: Vec<(u32, u32, usize, usize, usize)> = t
            .rows()
            .iter()
            .map(|r| (r.year, r.month, r.introduced, r.removed, r.open))
            .collect();
        // Two there before (one with no date it can read): open from the start.
        assert_eq!(
            rows,
            [
                (2024, 11, 2, 0, 4),
                (2024, 12, 0, 1, 3),
                (2025, 1, 0, 1, 2),
                (2025, 2, 1, 0, 3),
            ]
        );
        let mut none = Timeline::default();
        none.add(&Finding::for_tests("a.json", "r", 1));
        let mut page = Vec::new();
        none.write(&mut page).unwrap();
        assert!(page.is_empty(), "no section for a check's findings");
    }
}
