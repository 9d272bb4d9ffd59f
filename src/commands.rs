//! The commands other than `check`: their arguments read here, once, and handed to the
//! modules that do the work in those modules' own terms.

use crate::cli::{
    CompletionsArgs, ExplainArgs, ListFormat, MergeArgs, RulesArgs, SchemaArgs, SchemaKind,
    TestRulesArgs,
};
use crate::config::load_settings;
use crate::env::{Env, ExitStatus};
use crate::error::Error;
use crate::escape::visible;

use crate::ruledoc::needs_text;

pub fn rules(args: RulesArgs, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let settings = load_settings(&args.config.source(), &env.cwd)?;
    let rules = &settings.rules.rules;
    let io = |e| Error::Write {
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
                        "target": r.target.as_str(),
                        "fix": r.fix_safety().map(|s| s.as_str()),
                        "summary": r.summary,
                        "builtin": r.origin.builtin,
                        "source": r.origin.name,
                    })
                })
                .collect();
            let text = crate::json::writer::to_pretty_string(&list);
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
    let settings = load_settings(&args.config.source(), &env.cwd)?;
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
    let io = |e| Error::Write {
        path: "standard output".into(),
        source: e,
    };
    // The page of docs/rules/<id>.md, rendered for a terminal, with anything from a user's
    // rule file made visible.
    let doc = crate::ruledoc::terminal(&crate::ruledoc::rule_doc(rule));
    let safe: String = doc.lines().map(|l| format!("{}\n", visible(l))).collect();
    write!(env.stdout, "{safe}").map_err(io)?;
    Ok(ExitStatus::Success)
}

/// Runs the cases of rule files; each case that does not behave as declared is reported with the
/// rule file's own span.
pub fn test_rules(args: TestRulesArgs, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let builtin = crate::rules::RuleSet::builtin()?;
    let (set, strict) = if args.paths.is_empty() {
        (builtin.clone(), true)
    } else {
        let mut set = crate::rules::RuleSet::default();
        for p in &args.paths {
            set.load_path(p)?;
        }
        set.sort();
        (set, false)
    };
    let io = |e| Error::Write {
        path: "standard output".into(),
        source: e,
    };
    // A failed case is shown in its rule file, which may hold a secret (a case's text).
    let detector = crate::rules::secret_detector(&set.rules);
    let (mut passed, mut failed) = (0usize, 0usize);
    for rule in &set.rules {
        // Without a failing case nothing shows the rule can fire at all (a selector or
        // predicate that never matches passes every valid case). A warning: the exit code
        // still says whether the cases that exist hold.
        if !rule.cases().iter().any(|c| !c.valid) {
            writeln!(
                env.stderr,
                "warning: {}: rule `{}` has no [[invalid]] case, so nothing shows that it fires",
                visible(&rule.origin.name),
                visible(&rule.id)
            )
            .ok();
        }
        for case in rule.cases() {
            // Built-in cases must trigger nothing but their own rule; a team's rule is tested
            // on its own.
            let verdict = crate::case_runner::verify_case(rule, case, strict.then_some(&builtin));
            match verdict {
                Ok(()) => passed += 1,
                Err(why) => {
                    failed += 1;
                    let err = crate::error::FileError::new(
                        &rule.origin.name,
                        &rule.origin.text,
                        Some(case.span.clone()),
                        format!(
                            "{}: case \"{}\" failed: {}",
                            rule.id,
                            visible(&case.name),
                            visible(&why)
                        ),
                    )
                    .with_label("this case")
                    .masked(&detector);
                    let mut text = String::new();
                    let handler = miette::GraphicalReportHandler::new_themed(
                        miette::GraphicalTheme::unicode_nocolor(),
                    )
                    .with_links(false)
                    .with_width(env.width);
                    if handler.render_report(&mut text, &err).is_err() {
                        text = format!("{err}\n");
                    }
                    write!(env.stdout, "{text}").map_err(io)?;
                }
            }
        }
    }
    let rules = set.rules.len();
    writeln!(
        env.stdout,
        "{passed} passed, {failed} failed ({rules} rule file{})",
        if rules == 1 { "" } else { "s" }
    )
    .map_err(io)?;
    Ok(if failed > 0 {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

const STARTER_CONFIG: &str = r#"# forgelint configuration. Every key is optional; `forgelint rules` lists the rules.
# Each file is linted with the nearest forgelint.toml in its folder or above.

# A config this one builds on (its keys apply unless this file sets them).
# extend = "../forgelint.toml"

# Extra rule files or folders (your team's policies), relative to this file.
# rules = ["policies/"]

[files]
# Which files are specs (this replaces the defaults), and which paths to skip.
# include = ["**/jobspec.json", "**/*.jobspec.json"]
# exclude = ["vendor/**"]
# Experiment directories linted even when no spec names them.
# experiments = ["experiments/*"]

[experiments]
# Host paths under these roots are data mounts (exp-host-path); this replaces the defaults.
# host-path-roots = ["/mnt", "/data", "/datasets", "/lustre", "/gpfs", "/scratch", "/shared", "/home", "~", "file:"]
# The experiment's config file, for hyperparam-unknown: the first of these that exists.
# config = ["config.yaml", "config.yml", "config.toml", "config.json"]
# Experiment files larger than this (bytes) are reported by exp-large-file, not read.
# max-file-size = 10000000

[platform]
# The SDK's KIND_TRAINING string.
kind = "TrainingJob"
# A snapshot of the admission catalog (TOML or JSON): enables the handshake rules.
# catalog = "catalog.toml"
# Image registries the deployment allows: enables image-registry.
# registries = ["nvcr.io"]
# GPUs per job for any project: enables gpu-quota.
# gpu-quota = 64

# [platform.project-quota]
# big-lab = 256

[severity]
# Per-rule override: "off", "note", "warning" or "error".
# owner-ignored = "off"

[per-file-ignores]
# Glob -> rule ids.
# "archive/**" = ["source-exp-missing"]
"#;

/// Writes a starter forgelint.toml; never overwrites one.
pub fn init(env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let path = env.cwd.join(crate::config::CONFIG_NAMES[0]);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path);
    let mut file = match file {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(Error::usage(format!(
                "{} already exists; forgelint init does not overwrite it",
                path.display()
            )))
        }
        Err(source) => {
            return Err(Error::Write {
                path: path.display().to_string(),
                source,
            })
        }
    };
    std::io::Write::write_all(&mut file, STARTER_CONFIG.as_bytes()).map_err(|source| {
        Error::Write {
            path: path.display().to_string(),
            source,
        }
    })?;
    writeln!(env.stderr, "Wrote {}.", path.display()).ok();
    Ok(ExitStatus::Success)
}

/// `forgelint completions SHELL`: the completion script for the whole command line.
pub fn completions(args: CompletionsArgs, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let mut command = <crate::cli::Cli as clap::CommandFactory>::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "forgelint", &mut script);
    env.stdout
        .write_all(&script)
        .and_then(|_| env.stdout.flush())
        .map_err(|source| Error::Write {
            path: "standard output".into(),
            source,
        })?;
    Ok(ExitStatus::Success)
}

/// `forgelint schema KIND`.
pub fn schema(args: SchemaArgs, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let kind = match args.kind {
        SchemaKind::Jobspec => crate::schema::Kind::Jobspec,
        SchemaKind::Config => crate::schema::Kind::Config,
        SchemaKind::Rule => crate::schema::Kind::Rule,
    };
    crate::schema::print(kind, env)
}

/// `forgelint merge REPORT... [-o FILE]`.
pub fn merge(args: MergeArgs, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    crate::merge::merge(&args.reports, args.output.as_deref(), env)
}
