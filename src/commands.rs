//! `forgelint rules` and `forgelint explain`.

use crate::cli::{ExplainArgs, ListFormat, RulesArgs};
use crate::escape::visible;
use crate::rules::Rule;
use crate::{load_settings, Env, Error, ExitStatus};

fn needs_text(rule: &Rule) -> String {
    let names = rule.needs.names();
    if names.is_empty() {
        "-".to_string()
    } else {
        names.join(", ")
    }
}

pub fn rules(args: RulesArgs, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let settings = load_settings(
        args.config.as_deref(),
        args.no_config,
        &args.rules,
        &env.cwd,
    )?;
    let rules = &settings.rules.rules;
    let io = |e| Error::Io {
        path: "standard output".into(),
        source: e,
    };
    match args.format {
        ListFormat::Json => {
            let list: Vec<serde_json::Value> = rules
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "id": r.id,
                        "severity": r.severity.as_str(),
                        "needs": r.needs.names(),
                        "summary": r.summary,
                        "builtin": r.origin.builtin,
                        "source": r.origin.name,
                    })
                })
                .collect();
            let text = serde_json::to_string_pretty(&list).unwrap_or_default();
            writeln!(env.stdout, "{text}").map_err(io)?;
        }
        ListFormat::Human => {
            let id_width = rules.iter().map(|r| r.id.len()).max().unwrap_or(2).max(2);
            let needs_width = rules
                .iter()
                .map(|r| needs_text(r).len())
                .max()
                .unwrap_or(5)
                .max(5);
            writeln!(
                env.stdout,
                "{:id_width$}  {:8}  {:needs_width$}  SUMMARY",
                "ID", "SEVERITY", "NEEDS"
            )
            .map_err(io)?;
            for r in rules {
                writeln!(
                    env.stdout,
                    "{:id_width$}  {:8}  {:needs_width$}  {}",
                    r.id,
                    r.severity.as_str(),
                    needs_text(r),
                    visible(&r.summary)
                )
                .map_err(io)?;
            }
        }
    }
    Ok(ExitStatus::Success)
}

pub fn explain(args: ExplainArgs, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let settings = load_settings(
        args.config.as_deref(),
        args.no_config,
        &args.rules,
        &env.cwd,
    )?;
    let Some(rule) = settings.rules.get(&args.rule) else {
        let help = crate::error::suggest(
            &args.rule,
            settings.rules.rules.iter().map(|r| r.id.as_str()),
        )
        .map(|s| format!("did you mean `{s}`?"))
        .or_else(|| Some("`forgelint rules` lists every rule".into()));
        return Err(Error::Usage {
            message: format!("unknown rule `{}`", visible(&args.rule)),
            help,
        });
    };
    let io = |e| Error::Io {
        path: "standard output".into(),
        source: e,
    };
    // The same page as docs/rules/<id>.md, with anything from a user's rule file made visible.
    let doc = rule_doc(rule);
    let safe: String = doc.lines().map(|l| format!("{}\n", visible(l))).collect();
    write!(env.stdout, "{safe}").map_err(io)?;
    Ok(ExitStatus::Success)
}

/// A rule's documentation page (Markdown): what `docs/rules/<id>.md` holds and SARIF's `helpUri`
/// points at.
pub fn rule_doc(rule: &Rule) -> String {
    let mut out = format!("# {}\n\n", rule.id);
    out.push_str(&format!(
        "Severity: **{}** · needs: {}\n\n{}\n",
        rule.severity,
        needs_text(rule),
        rule.summary
    ));
    if !rule.explanation.is_empty() {
        out.push_str(&format!("\n## Why\n\n{}\n", rule.explanation));
    }
    if let Some(help) = &rule.help {
        out.push_str(&format!("\n## Fix\n\n{}\n", help.render(|_| Some("…"))));
    }
    for (valid, title) in [(false, "Fails"), (true, "Passes")] {
        if let Some(case) = rule
            .cases
            .iter()
            .find(|c| c.valid == valid && !c.document.is_empty())
        {
            out.push_str(&format!(
                "\n## {title}: {}\n\n```json\n{}\n```\n",
                case.name,
                case.document.trim_end()
            ));
        }
    }
    out
}
