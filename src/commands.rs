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
    let mut text = format!(
        "{} ({}; needs: {})\n\n{}\n",
        rule.id,
        rule.severity,
        needs_text(rule),
        rule.summary
    );
    if !rule.explanation.is_empty() {
        text.push_str(&format!("\n{}\n", rule.explanation));
    }
    let example = |valid: bool| rule.cases.iter().find(|c| c.valid == valid);
    if let Some(case) = example(false) {
        text.push_str(&format!(
            "\nFails ({}):\n\n{}\n",
            case.name,
            indent(&case.document)
        ));
    }
    if let Some(case) = example(true) {
        text.push_str(&format!(
            "\nPasses ({}):\n\n{}\n",
            case.name,
            indent(&case.document)
        ));
    }
    write!(env.stdout, "{}", visible(&text).replace("\\u{a}", "\n")).map_err(io)?;
    Ok(ExitStatus::Success)
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
