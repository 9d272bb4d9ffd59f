//! A rule's documentation: the Markdown page of `docs/rules/<id>.md` (SARIF's `helpUri`), the
//! same page rendered for a terminal (`forgelint explain`), and the findings of the rule's
//! failing cases as forgelint prints them (pinned per rule by a snapshot test, and shown on the
//! page). The cases' files and findings are shown with their secrets masked, as every excerpt
//! of a file is.

use crate::case_runner::run_case;
use crate::rules::{secret_detector, Case, CaseSource, Rule, Target};
use crate::secrets::Detector;

/// What context a rule needs, for `forgelint rules` and the page's header.
pub fn needs_text(rule: &Rule) -> String {
    let names = rule.needs.names();
    if names.is_empty() {
        "-".to_string()
    } else {
        names.join(", ")
    }
}

/// A rule's documentation page (Markdown): what `docs/rules/<id>.md` holds and SARIF's `helpUri`
/// points at.
pub fn rule_doc(rule: &Rule) -> String {
    let detector = secret_detector([rule]);
    let mut out = format!("# {}\n\n", rule.id);
    out.push_str(&format!(
        "Severity: **{}** · needs: {} · reads: {}\n\n{}\n",
        rule.severity,
        needs_text(rule),
        target_text(rule.target),
        rule.summary
    ));
    if !rule.explanation.is_empty() {
        out.push_str(&format!("\n## Why\n\n{}\n", rule.explanation));
    }
    let automatic = rule.fix_safety().map(|safety| match safety {
        crate::diagnostic::Safety::Safe => "`forgelint --fix` fixes it (a safe fix).".to_string(),
        crate::diagnostic::Safety::Unsafe => {
            "`forgelint --fix --unsafe-fixes` fixes it (an unsafe fix: it may change what the job does; `--diff` shows it first).".to_string()
        }
    });
    match (&rule.help, automatic) {
        (Some(help), automatic) => out.push_str(&format!(
            "\n## Fix\n\n{}\n{}",
            help.render(|_| Some("…")),
            automatic.map(|a| format!("\n{a}\n")).unwrap_or_default()
        )),
        (None, Some(automatic)) => out.push_str(&format!("\n## Fix\n\n{automatic}\n")),
        (None, None) => {}
    }
    for (valid, title) in [(false, "Fails"), (true, "Passes")] {
        // Prefer a case that differs from the reference spec: it shows what matters.
        let mut cases = rule.cases().iter().filter(|c| c.valid == valid);
        let example = cases
            .clone()
            .find(|c| !matches!(c.source, CaseSource::Reference) || !c.edits.is_empty())
            .or_else(|| cases.next());
        if let Some(case) = example {
            out.push_str(&format!("\n## {title}: {}\n\n", case.name));
            out.push_str(&detector.mask(&case_text(case)));
            if !valid {
                let findings = case_findings(rule, case, &detector);
                if !findings.is_empty() {
                    out.push_str(&format!("\nforgelint reports:\n\n```text\n{findings}```\n"));
                }
            }
        }
    }
    let all = failing_cases_findings(rule);
    if rule.cases().iter().filter(|c| !c.valid).count() > 1 && !all.is_empty() {
        out.push_str(&format!(
            "\n## Every failing case\n\nWhat forgelint reports on each of the rule's failing cases:\n\n```text\n{all}```\n"
        ));
    }
    out
}

/// The findings of every failing case of `rule`, one block a case under its name.
pub fn failing_cases_findings(rule: &Rule) -> String {
    let detector = secret_detector([rule]);
    let mut out = String::new();
    for case in rule.cases().iter().filter(|c| !c.valid) {
        out.push_str(&format!("{}:\n", case.name));
        let findings = case_findings(rule, case, &detector);
        for line in findings.lines() {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}

/// What the rule reports on a case, as `forgelint check --format concise` prints it, with the
/// built-in rules running beside it (as in a real run: `unused-suppression` needs the rule a
/// suppression names to run).
fn case_findings(rule: &Rule, case: &Case, detector: &Detector) -> String {
    static BUILTIN: std::sync::OnceLock<Option<crate::rules::RuleSet>> = std::sync::OnceLock::new();
    let builtin = BUILTIN.get_or_init(|| crate::rules::RuleSet::builtin().ok());
    let mut rules: Vec<&Rule> = builtin
        .iter()
        .flat_map(|set| set.rules.iter())
        .filter(|r| r.id != rule.id)
        .collect();
    rules.push(rule);
    let Ok(mut findings) = run_case(case, &rules) else {
        return String::new();
    };
    detector.mask_findings(&mut findings);
    findings
        .iter()
        .filter(|f| *f.rule == rule.id)
        .map(|f| {
            format!(
                "{}:{}:{}: {}[{}] {}\n",
                f.path, f.start.line, f.start.column, f.severity, f.rule, f.message
            )
        })
        .collect()
}

fn target_text(target: Target) -> &'static str {
    match target {
        Target::Jobspec => "jobspecs",
        Target::Text => "the text of experiment files",
        Target::Yaml => "YAML files of experiments",
        Target::Toml => "TOML files of experiments",
        Target::Json => "JSON files of experiments",
    }
}

/// The language of a code block for a file of an experiment.
fn fence_language(file: &str) -> &'static str {
    crate::text::language_of(std::path::Path::new(file), "")
        .sarif_name()
        .map_or("text", |name| match name {
            "shellscript" => "sh",
            other => other,
        })
}

/// A case as a reader wants it: the file, or the fields that matter of an otherwise valid spec.
fn case_text(case: &Case) -> String {
    if let Some((file, text)) = &case.file {
        let mut out = format!(
            "The experiment file `{file}`:\n\n```{}\n{}\n```\n",
            fence_language(file),
            text.trim_end()
        );
        if !matches!(case.source, CaseSource::Reference) {
            out.push_str("\nThe spec that names the experiment:\n\n");
            out.push_str(&spec_text(case));
        }
        return out;
    }
    let mut out = spec_text(case);
    if let Some((file, text)) = &case.config {
        out.push_str(&format!(
            "\nThe experiment's `{file}`:\n\n```{}\n{}\n```\n",
            fence_language(file),
            text.trim_end()
        ));
    }
    out
}

/// A case's spec: the fields that differ from a spec that passes every rule.
fn spec_text(case: &Case) -> String {
    let mut out = match &case.source {
        CaseSource::Reference => "A spec that passes every built-in rule.\n".to_string(),
        CaseSource::Patch(patch) => {
            let pretty = serde_json::from_str::<serde_json::Value>(patch)
                .ok()
                .map(|v| crate::json::writer::to_pretty_string(&v))
                .unwrap_or_else(|| patch.clone());
            let removes = patch.contains("null");
            format!(
                "A spec that passes every built-in rule, with these fields{}:\n\n```json\n{pretty}\n```\n",
                if removes { " (`null`: the field left out)" } else { "" }
            )
        }
        CaseSource::Document(document) => {
            format!("The whole file:\n\n```json\n{}\n```\n", document.trim_end())
        }
    };
    for (old, new) in &case.edits {
        out.push_str(&format!("\nthen the text {old:?} replaced by {new:?}.\n"));
    }
    let c = &case.context;
    let mut context = Vec::new();
    if let Some(kind) = &c.kind {
        context.push(format!("kind = {kind:?}"));
    }
    match &c.catalog {
        Some(None) => context.push("no catalog".to_string()),
        Some(Some(catalog)) => context.push(format!("a catalog of {:?}", catalog.names())),
        None => {}
    }
    if let Some(r) = &c.registries {
        context.push(format!("registries = {r:?}"));
    }
    if let Some(q) = c.gpu_quota {
        context.push(format!("gpu-quota = {q}"));
    }
    if let Some(q) = &c.project_quota {
        context.push(format!("project-quota = {q:?}"));
    }
    if let Some(d) = &c.dirs {
        context.push(format!("directories {d:?}"));
    }
    if !context.is_empty() {
        out.push_str(&format!("\nIn a context with {}.\n", context.join(", ")));
    }
    out
}

/// The page rendered for a terminal: headings underlined, code blocks indented without their
/// fences, links as their text, no `**`.
pub fn terminal(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut in_code = false;
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            out.push_str("    ");
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let (text, underline) = match line {
            l if l.starts_with("## ") => (inline(&l[3..]), Some('-')),
            l if l.starts_with("# ") => (inline(&l[2..]), Some('=')),
            l => (inline(l), None),
        };
        out.push_str(&text);
        out.push('\n');
        if let Some(c) = underline {
            out.extend(std::iter::repeat_n(c, text.chars().count()));
            out.push('\n');
        }
    }
    out
}

/// A line's inline Markdown for a terminal: `[text](target)` as `text`, `**x**` as `x`.
fn inline(line: &str) -> String {
    let line = line.replace("**", "");
    let mut out = String::with_capacity(line.len());
    let mut rest = line.as_str();
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|c| open + c) else {
            break;
        };
        let Some(end) = rest[close..].find(')').map(|e| close + e) else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&rest[open + 1..close]);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_page_has_no_markdown_syntax() {
        let page = terminal(
            "# gpu-quota\n\nSeverity: **error** · see [the docs](../x.md).\n\n## Fix\n\n```json\n{\"a\": 1}\n```\n",
        );
        assert_eq!(
            page,
            "gpu-quota\n=========\n\nSeverity: error · see the docs.\n\nFix\n---\n\n    {\"a\": 1}\n"
        );
    }
}
