//! The command line.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::ConfigSource;
use crate::report::Format;

#[derive(Debug, Parser)]
#[command(
    name = "forgelint",
    version,
    about = "A fast static policy linter for forge/v2 job specifications",
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub check: CheckArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint files and directories (the default command)
    #[command(visible_alias = "lint")]
    Check(Box<CheckArgs>),
    /// List every rule: id, default severity, the context it needs, summary
    Rules(RulesArgs),
    /// Explain a rule: why the server refuses it, a failing and a passing example, the fix
    Explain(ExplainArgs),
    /// Run the passing and failing cases of rule files (default: the built-in rules)
    TestRules(TestRulesArgs),
    /// Write a commented starter forgelint.toml in the current directory
    Init,
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish)
    Completions(CompletionsArgs),
    /// Print a JSON Schema (draft 2020-12) for editors: jobspec, config or rule
    Schema(SchemaArgs),
    /// Join reports of one format (json, jsonl or sarif), such as the parts of a --shard run,
    /// into one, sorted as one run sorts its findings
    Merge(MergeArgs),
    /// Run a language server for editors over standard input and output
    Lsp(LspArgs),
    /// Lint every version of the specs and experiment files in git history; report each
    /// finding once, with the commits that introduced and removed it
    History(Box<HistoryArgs>),
}

#[derive(Debug, Clone, Args)]
pub struct LspArgs {
    /// Talk over standard input and output: the only transport, accepted for the clients that
    /// pass it
    #[arg(long)]
    pub stdio: bool,
}

#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// The reports to join (json, jsonl or sarif, all of one format)
    #[arg(required = true, value_name = "REPORT")]
    pub reports: Vec<PathBuf>,
    /// Write the merged report to FILE (atomically) instead of standard output
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct SchemaArgs {
    /// Which file the schema describes
    #[arg(value_enum)]
    pub kind: SchemaKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaKind {
    /// A forge/v2 jobspec.json
    Jobspec,
    /// forgelint.toml
    Config,
    /// A rule file (TOML)
    Rule,
}

#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Clone, Args)]
pub struct TestRulesArgs {
    /// Rule files or folders whose cases to run [default: the built-in rules]
    pub paths: Vec<PathBuf>,
}

/// A report asked for with `--format`: its format, and the file it goes to (`FMT=FILE`), or
/// none for standard output (or `-o FILE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatTarget {
    pub format: Format,
    pub file: Option<PathBuf>,
}

/// `--format FMT[=FILE]`. The format names are its possible values: `--help` lists them and
/// the shell completion scripts offer them. An unknown name is refused as clap refuses a value
/// of an enum, with the names and the nearest one ("a similar value exists: 'sarif'").
#[derive(Debug, Clone, Copy)]
struct FormatTargetParser;

impl clap::builder::TypedValueParser for FormatTargetParser {
    type Value = FormatTarget;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<FormatTarget, clap::Error> {
        let name = value
            .to_str()
            .map(|text| text.split_once('=').map_or(text, |(name, _)| name));
        match name {
            Some(name) if Format::from_name(name).is_none() => Err(unknown_format(cmd, arg, name)),
            // The file part (or text that is not UTF-8) is checked as before.
            _ => clap::builder::TypedValueParser::parse_ref(
                &(parse_format_target as fn(&str) -> Result<FormatTarget, String>),
                cmd,
                arg,
                value,
            ),
        }
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            Format::ALL
                .iter()
                .map(|f| clap::builder::PossibleValue::new(f.name())),
        ))
    }
}

/// clap's own error for a value outside the possible ones, with a did-you-mean.
fn unknown_format(cmd: &clap::Command, arg: Option<&clap::Arg>, name: &str) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
    let mut error = clap::Error::new(ErrorKind::InvalidValue).with_cmd(cmd);
    let arg = arg.map_or_else(|| "--format".to_string(), ToString::to_string);
    error.insert(ContextKind::InvalidArg, ContextValue::String(arg));
    error.insert(
        ContextKind::InvalidValue,
        ContextValue::String(crate::escape::visible(name).into_owned()),
    );
    error.insert(
        ContextKind::ValidValue,
        ContextValue::Strings(names.iter().map(|n| n.to_string()).collect()),
    );
    if let Some(near) = crate::error::suggest(name, names.iter().copied()) {
        error.insert(
            ContextKind::SuggestedValue,
            ContextValue::String(near.to_string()),
        );
    }
    error
}

fn parse_format_target(text: &str) -> Result<FormatTarget, String> {
    let (name, file) = match text.split_once('=') {
        Some((name, file)) => (name, Some(file)),
        None => (text, None),
    };
    let format = Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!(
            "`{}` is not a format; the formats are {}",
            crate::escape::visible(name),
            names.join(", ")
        )
    })?;
    if file == Some("") {
        return Err(format!("`{name}=` needs a file name: --format {name}=FILE"));
    }
    Ok(FormatTarget {
        format,
        file: file.map(PathBuf::from),
    })
}

/// A rule id (`explain`, `--select`, `--ignore`): any text, checked against the rules a run
/// loads once they are loaded (a config may add rules). The built-in ids, known when the binary
/// is built, are its possible values, for shell completion.
#[derive(Debug, Clone, Copy)]
struct RuleIdParser;

impl clap::builder::TypedValueParser for RuleIdParser {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            builtin_rule_ids().map(clap::builder::PossibleValue::new),
        ))
    }
}

/// The ids of the built-in rules: their files' names.
pub fn builtin_rule_ids() -> impl Iterator<Item = &'static str> {
    crate::rules::BUILTIN
        .iter()
        .filter_map(|(file, _)| file.strip_suffix(".toml"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum FailOn {
    #[default]
    Error,
    Warning,
    Note,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

/// Where the settings and rules come from: shared by every command that loads them.
#[derive(Debug, Clone, Args, Default)]
pub struct ConfigArgs {
    /// Configuration file (instead of the nearest forgelint.toml; its `rules` count too)
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Ignore any forgelint.toml
    #[arg(long)]
    pub no_config: bool,
    /// Extra rule files or folders (repeatable)
    #[arg(long = "rules", value_name = "PATH")]
    pub rules: Vec<PathBuf>,
}

impl ConfigArgs {
    /// Where the settings come from, in the core's terms.
    pub fn source(&self) -> ConfigSource {
        ConfigSource {
            file: self.config.clone(),
            none: self.no_config,
            extra_rules: self.rules.clone(),
        }
    }
}

/// What `check` and `history` share: the rules that run, the reports written, the exit status.
#[derive(Debug, Clone, Args, Default)]
pub struct ReportArgs {
    /// Output format: FMT, or FMT=FILE to write that report to FILE; repeatable, one lint
    /// and several reports [default: human]
    #[arg(long, value_name = "FMT[=FILE]", value_parser = FormatTargetParser)]
    pub format: Vec<FormatTarget>,
    /// Write the report to FILE (atomically) instead of standard output
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Counts per rule and per severity (human, concise: instead of the findings; json, jsonl:
    /// beside them; not with sarif, github, junit or gitlab)
    #[arg(long)]
    pub statistics: bool,
    /// --format html: count files by the first N folders of their path
    #[arg(long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub group_depth: u32,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Run only these rules (comma-separated, repeatable)
    #[arg(long, value_name = "RULE,…", value_delimiter = ',', value_parser = RuleIdParser,
          hide_possible_values = true)]
    pub select: Vec<String>,
    /// Do not run these rules (comma-separated, repeatable)
    #[arg(long, value_name = "RULE,…", value_delimiter = ',', value_parser = RuleIdParser,
          hide_possible_values = true)]
    pub ignore: Vec<String>,
    /// Hide the findings recorded in this baseline file; report only new ones
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Report at most N findings, the most severe first (errors, then warnings, then notes; in
    /// path order within a severity); the rest are counted in the summary (GitHub code
    /// scanning refuses a SARIF run of more than 25000 results). The exit code counts them all
    #[arg(long, value_name = "N")]
    pub max_results: Option<usize>,
    /// Lowest severity that makes the exit code 1
    #[arg(long, value_enum, default_value_t)]
    pub fail_on: FailOn,
    /// Exit 0 even with findings at or above --fail-on (2 still says the tool could not run)
    #[arg(long)]
    pub exit_zero: bool,
    /// When to use colour (NO_COLOR is honoured with auto)
    #[arg(long, value_enum, default_value_t)]
    pub color: ColorChoice,
    /// Worker threads [default: the number of CPUs]
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Print findings only: no summary
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Args, Default)]
pub struct CheckArgs {
    /// Files and directories to lint; `-` reads a spec from standard input [default: .]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Report only the findings the files did not have at the git revision REV (a pull
    /// request's base: `origin/main`); the baseline is REV's tree, computed in memory
    #[arg(long, value_name = "REV")]
    pub new_from_rev: Option<String>,
    /// Lint only the K-th of N disjoint parts of the files (by a stable hash of each path):
    /// the N parts' findings together are one whole run's
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::shard::Shard>,
    /// Record today's findings in this baseline file (written atomically) and exit 0
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    pub write_baseline: Option<PathBuf>,
    /// The file name to report (and to find the project root by) for a spec read from `-`
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<PathBuf>,
    /// Lint files that .gitignore and .ignore files exclude
    #[arg(long)]
    pub no_ignore: bool,
    /// Of the files named, lint only those a walk of the project would: a spec's name
    /// ([files] include, exclude), a file of an experiment folder ([files] experiments), not
    /// ignored by .gitignore, each by its nearest config; the others are left out, not
    /// reported (what the pre-commit hook passes: every staged file)
    #[arg(long)]
    pub discovered_only: bool,
    /// Apply the safe fixes to the files, then report what remains (`-`: the fixed spec goes
    /// to standard output, the report to standard error)
    #[arg(long, conflicts_with_all = ["write_baseline", "baseline"])]
    pub fix: bool,
    /// With --fix or --diff: apply the unsafe fixes too, which may change what the job does
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print a unified diff of what --fix would change and write nothing (exit 1 if anything
    /// would change)
    #[arg(long, conflicts_with_all = ["write_baseline", "baseline", "output", "statistics"])]
    pub diff: bool,
}

#[derive(Debug, Clone, Args, Default)]
pub struct HistoryArgs {
    /// The commits to read, as `git log` takes them (`main`, `v1.0..HEAD`, `^old`)
    /// [default: HEAD]
    #[arg(value_name = "REV-RANGE")]
    pub revs: Vec<String>,
    /// Only the files these git pathspecs match (after `--`)
    #[arg(last = true, value_name = "PATHS")]
    pub paths: Vec<String>,
    /// Every branch, tag and remote-tracking branch (as `git log --all`)
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub report: ReportArgs,
    /// `check`'s flags that have no meaning for history: refused, each with why.
    #[command(flatten)]
    pub refused: RefusedInHistory,
}

/// Flags of `check` that `history` refuses with a reason (clap would only say "unexpected").
#[derive(Debug, Clone, Args, Default)]
pub struct RefusedInHistory {
    #[arg(long, hide = true)]
    pub fix: bool,
    #[arg(long, hide = true)]
    pub unsafe_fixes: bool,
    #[arg(long, hide = true)]
    pub diff: bool,
    #[arg(long, hide = true, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    #[arg(long, hide = true, value_name = "REV")]
    pub new_from_rev: Option<String>,
    #[arg(long, hide = true, value_name = "K/N")]
    pub shard: Option<String>,
    #[arg(long, hide = true, value_name = "NAME")]
    pub stdin_filename: Option<PathBuf>,
    #[arg(long, hide = true)]
    pub no_ignore: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ListFormat {
    #[default]
    Human,
    Json,
}

#[derive(Debug, Clone, Args)]
pub struct RulesArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    #[arg(long, value_enum, default_value_t)]
    pub format: ListFormat,
}

#[derive(Debug, Clone, Args)]
pub struct ExplainArgs {
    /// The rule id
    #[arg(value_parser = RuleIdParser, hide_possible_values = true)]
    pub rule: String,
    #[command(flatten)]
    pub config: ConfigArgs,
}
