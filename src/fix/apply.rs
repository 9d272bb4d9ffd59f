//! Applying the fixes of one file's findings: in passes, each re-linted and re-parsed, and the
//! result checked before anything is written.

use crate::diagnostic::{Applicability, Finding, Fix};

/// At most this many passes: two fixes whose edits overlap are applied in separate passes,
/// never merged, and each pass lints the result again.
pub const MAX_PASSES: usize = 8;

/// What fixing a file came to.
#[derive(Debug)]
pub struct Fixed {
    /// The fixed text (the original when nothing applied).
    pub text: String,
    /// The findings of the fixed text.
    pub findings: Vec<Finding>,
    /// How many fixes were applied.
    pub applied: usize,
}

/// Fixing would lose data: the fixed text is not valid JSON, or a fixed finding is still
/// there. A bug in a fix; the file must be left as it was.
#[derive(Debug)]
pub struct FixBug {
    pub rule: crate::diagnostic::RuleId,
    pub message: String,
}

/// Fixes `text`, whose findings are `findings`, with the fixes `applicability` takes; `lint`
/// lints a text (the same rules, the same file). Every pass applies the fixes whose edits
/// overlap no earlier one, parses the result and lints it again, until no fix applies.
pub fn fix_text(
    text: &str,
    findings: Vec<Finding>,
    applicability: Applicability,
    lint: &dyn Fn(&str) -> Vec<Finding>,
) -> Result<Fixed, FixBug> {
    let mut current = text.to_string();
    let mut findings = findings;
    let mut applied = 0;
    let mut fixed: Vec<Identity> = Vec::new();
    for _ in 0..MAX_PASSES {
        let pass = apply_pass(&current, &findings, applicability);
        if pass.applied.is_empty() || pass.text == current {
            break;
        }
        if let Err(e) = crate::json::parse(&pass.text) {
            return Err(FixBug {
                rule: pass.applied[0].rule,
                message: format!("the fixed file would not be valid JSON ({e})"),
            });
        }
        findings = lint(&pass.text);
        applied += pass.applied.len();
        fixed.extend(pass.applied);
        current = pass.text;
    }
    if let Some(left) = fixed
        .iter()
        .find(|id| findings.iter().any(|f| id.matches(f)))
    {
        return Err(FixBug {
            rule: left.rule,
            message: format!(
                "a fix of {} left its finding at {} in place",
                left.rule,
                if left.pointer.is_empty() {
                    "/"
                } else {
                    &left.pointer
                }
            ),
        });
    }
    Ok(Fixed {
        text: current,
        findings,
        applied,
    })
}

/// A fixed finding, as it would be found again if its fix failed: by rule and pointer, and by
/// value for a removal (the next item of an array takes a removed item's pointer).
#[derive(Debug)]
struct Identity {
    rule: crate::diagnostic::RuleId,
    pointer: String,
    value_hash: Option<u64>,
}

impl Identity {
    fn of(f: &Finding, fix: &Fix) -> Identity {
        let removes = fix.edits.iter().all(|e| e.replacement.is_empty());
        Identity {
            rule: f.rule,
            pointer: f.pointer.clone(),
            value_hash: removes.then_some(f.value_hash),
        }
    }

    fn matches(&self, f: &Finding) -> bool {
        f.rule == self.rule
            && f.pointer == self.pointer
            && self.value_hash.is_none_or(|h| h == f.value_hash)
    }
}

struct Pass {
    text: String,
    applied: Vec<Identity>,
}

/// One pass: the fixes `applicability` takes, in position order, each whole or not at all; a
/// fix whose edits start before the end of an edit already taken waits for the next pass.
fn apply_pass(text: &str, findings: &[Finding], applicability: Applicability) -> Pass {
    let mut fixes: Vec<(&Finding, &Fix)> = findings
        .iter()
        .filter_map(|f| f.fix.as_deref().map(|fix| (f, fix)))
        .filter(|(_, fix)| applicability.takes(fix.safety) && !fix.edits.is_empty())
        .collect();
    fixes.sort_by_key(|(_, fix)| (fix.edits[0].span.start, fix.edits[0].span.end));
    let mut out = String::with_capacity(text.len());
    let mut copied = 0usize;
    let mut applied = Vec::new();
    for (finding, fix) in fixes {
        let in_text = fix.edits.iter().all(|e| {
            let (start, end) = (e.span.start as usize, e.span.end as usize);
            start <= end
                && end <= text.len()
                && text.is_char_boundary(start)
                && text.is_char_boundary(end)
        });
        let ordered = fix
            .edits
            .windows(2)
            .all(|w| w[0].span.end <= w[1].span.start);
        if !in_text || !ordered || (fix.edits[0].span.start as usize) < copied {
            continue;
        }
        for edit in &fix.edits {
            out.push_str(&text[copied..edit.span.start as usize]);
            out.push_str(&edit.replacement);
            copied = edit.span.end as usize;
        }
        applied.push(Identity::of(finding, fix));
    }
    out.push_str(&text[copied..]);
    Pass { text: out, applied }
}
