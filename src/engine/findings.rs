//! Findings as the engine makes them: a file's kept hits located and stamped with their rule
//! and severity, and the findings about a file as a whole (unreadable, crashed on).

use std::path::Path;
use std::sync::Arc;

use super::{Active, MAX_FINDINGS_PER_FILE};
use crate::diagnostic::{Finding, Locator, Related, Severity, Span, INTERNAL_ERROR};
use crate::rules::eval::Hit;

/// The finding for a panic caught while linting `path`.
pub fn internal_error(path: &Arc<str>, payload: &(dyn std::any::Any + Send)) -> Finding {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    at_file_start(
        path,
        INTERNAL_ERROR,
        Severity::Error,
        format!(
            "forgelint crashed while linting {}: {}. This is a bug in forgelint; please report it with this file.",
            crate::escape::visible(path),
            crate::escape::visible(&what)
        ),
    )
}

/// Runs `lint`, the lint of the file at `path`. A panic while it runs is a bug: it is caught
/// and returned as an `internal-error` finding for that file, so that the caller goes on with
/// the other files (a run then exits 2; the language server publishes the finding).
pub fn contain<T>(
    path: &Path,
    from: crate::paths::ShownFrom<'_>,
    lint: impl FnOnce() -> T,
) -> Result<T, Finding> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        panic_for_tests(path);
        lint()
    }))
    .map_err(|payload| {
        let shown: Arc<str> = crate::paths::shown(path, from);
        internal_error(&shown, payload.as_ref())
    })
}

/// Debug builds only: panics on the file named by `FORGELINT_PANIC_ON`, so the tests can prove
/// that a panic is contained. Release builds compile this to nothing.
pub fn panic_for_tests(path: &Path) {
    if cfg!(debug_assertions) {
        if let Some(name) = std::env::var_os("FORGELINT_PANIC_ON") {
            if path.file_name() == Some(name.as_os_str()) {
                panic!("FORGELINT_PANIC_ON matched");
            }
        }
    }
}

/// A finding at the very start of a file (unreadable, not a regular file, too large).
pub fn file_finding(path: &Arc<str>, rule: Active<'_>, message: String) -> Finding {
    at_file_start(path, &rule.rule.id, rule.severity, message)
}

/// A finding about a file as a whole: an empty span at 1:1.
pub fn at_file_start(path: &Arc<str>, rule: &str, severity: Severity, message: String) -> Finding {
    let start = crate::diagnostic::Position { line: 1, column: 1 };
    Finding {
        path: path.clone(),
        rule: crate::diagnostic::RuleId::new(rule),
        severity,
        message,
        help: None,
        pointer: String::new(),
        span: Span::default(),
        start,
        end: start,
        related: Vec::new(),
        value_hash: 0,
        secret: false,
        fix: None,
        history: None,
    }
}

/// The name a file's findings carry, made when the first of them needs it: most files have
/// no finding, and then their name is never built.
pub struct FileName<'a> {
    made: std::cell::OnceCell<Arc<str>>,
    make: Option<&'a dyn Fn() -> Arc<str>>,
}

impl<'a> FileName<'a> {
    /// A name `make` builds on first use.
    pub fn lazy(make: &'a dyn Fn() -> Arc<str>) -> FileName<'a> {
        FileName {
            made: std::cell::OnceCell::new(),
            make: Some(make),
        }
    }

    /// A name already built.
    pub fn ready(name: Arc<str>) -> FileName<'a> {
        FileName {
            made: std::cell::OnceCell::from(name),
            make: None,
        }
    }

    pub fn get(&self) -> &Arc<str> {
        self.made
            .get_or_init(|| self.make.map_or_else(|| Arc::from(""), |make| make()))
    }
}

/// Makes the fix of a hit in the file being linted.
pub type Fixer<'a> = dyn Fn(&crate::rules::eval::Hit) -> Option<crate::diagnostic::Fix> + 'a;

/// The kept hits of a file's rules as findings: located (in position order, so the line
/// index is built once, on the first), stamped with rule and severity, and the last one
/// saying how many more were cut. Their value hashes are computed when `hashes` asks.
pub fn locate(
    text: &str,
    path: &FileName<'_>,
    kept: KeptHits<'_>,
    fixer: Option<&Fixer<'_>>,
    hashes: bool,
) -> Vec<Finding> {
    let (mut kept, dropped) = kept.finish();
    let spans = kept.iter().map(|(_, hit)| 1 + hit.related.len()).sum();
    let mut locator = Locator::for_spans(text, spans);
    if locator.counts() {
        // Few hits, in rule order: located in the order of their spans, each count goes on
        // from the last instead of from the start of the file. (Hits cut to the limit are in
        // this order already; the sort is stable.)
        kept.sort_by_key(|(_, hit)| (hit.span.start, hit.span.end));
    }
    let mut findings: Vec<Finding> = kept
        .into_iter()
        .map(|(active, hit)| {
            let fix = fixer
                .filter(|_| hit.fix.is_some())
                .and_then(|fixer| fixer(&hit))
                .map(Box::new);
            let (span, start, end) = locator.positions(hit.span);
            let related = hit
                .related
                .into_iter()
                .map(|(span, label)| {
                    let (span, start, end) = locator.positions(span);
                    Related {
                        path: None,
                        span,
                        start,
                        end,
                        label,
                    }
                })
                .chain(hit.elsewhere)
                .collect();
            Finding {
                path: path.get().clone(),
                rule: active.rule.rule_id,
                severity: active.severity,
                message: hit.message,
                help: hit.help,
                pointer: hit.pointer,
                span,
                start,
                end,
                related,
                value_hash: if hashes {
                    crate::diagnostic::value_hash(&text[span.start as usize..span.end as usize])
                } else {
                    0
                },
                secret: active.rule.mask,
                history: None,
                fix,
            }
        })
        .collect();
    if dropped > 0 {
        if let Some(last) = findings.last_mut() {
            last.message.push_str(&format!(
                " ({dropped} more findings in this file not shown)"
            ));
        }
    }
    crate::diagnostic::sort_in_file(&mut findings);
    findings
}

/// The hits of a file's rules, at most [`MAX_FINDINGS_PER_FILE`] of them in the end: the first
/// by the order findings are reported in (span, then rule id, then message, then pointer:
/// two missing fields of one object share a span and a rule). Past twice the limit the list
/// is sorted and cut back to the limit, so memory stays bounded and the time is O(n log n) in
/// the number of hits.
#[derive(Default)]
pub struct KeptHits<'a> {
    hits: Vec<(Active<'a>, Hit)>,
    dropped: usize,
}

impl<'a> KeptHits<'a> {
    /// A rule's hits, and how many more it found that were cut.
    pub fn add(
        &mut self,
        active: &Active<'a>,
        hits: impl ExactSizeIterator<Item = Hit>,
        more: usize,
    ) {
        self.dropped += more;
        self.hits.reserve(hits.len());
        for hit in hits {
            self.hits.push((*active, hit));
            if self.hits.len() >= 2 * MAX_FINDINGS_PER_FILE {
                self.cut();
            }
        }
    }

    fn cut(&mut self) {
        self.hits.sort_by(|(ra, a), (rb, b)| {
            (
                a.span.start,
                a.span.end,
                ra.rule.id.as_str(),
                &a.message,
                &a.pointer,
            )
                .cmp(&(
                    b.span.start,
                    b.span.end,
                    rb.rule.id.as_str(),
                    &b.message,
                    &b.pointer,
                ))
        });
        if self.hits.len() > MAX_FINDINGS_PER_FILE {
            self.dropped += self.hits.len() - MAX_FINDINGS_PER_FILE;
            self.hits.truncate(MAX_FINDINGS_PER_FILE);
        }
    }

    /// The kept hits in report order (when any were dropped; in rule order otherwise, as the
    /// run sorts every finding later) and how many were dropped.
    fn finish(mut self) -> (Vec<(Active<'a>, Hit)>, usize) {
        if self.hits.len() > MAX_FINDINGS_PER_FILE || self.dropped > 0 {
            self.cut();
        }
        (self.hits, self.dropped)
    }
}
