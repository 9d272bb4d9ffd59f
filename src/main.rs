use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use forgelint::{cli::Cli, run, Env, ExitStatus};

fn main() -> ExitCode {
    // A panic is a bug, reported as a finding for the file being linted; its message may hold
    // text from that file, so it is made visible before it reaches the terminal.
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        eprintln!(
            "forgelint: internal error{location}: {} (this is a bug in forgelint)",
            forgelint::escape::visible(&payload)
        );
    }));
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let stdout_is_terminal = stdout.is_terminal();
    // Standard input and output are not locked for the whole run: `forgelint lsp` reads and
    // writes them on threads of its own. The buffer still makes a lock per 64 KiB, not per line.
    let mut stdout = std::io::BufWriter::with_capacity(64 * 1024, stdout);
    // Not locked for the whole run: the panic hook writes to stderr from worker threads.
    let mut stderr = std::io::stderr();
    let mut stdin = std::io::stdin();
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!("error: cannot read the current directory: {e}");
            return ExitCode::from(ExitStatus::Error as u8);
        }
    };
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100);
    let mut env = Env {
        stdout: &mut stdout,
        stderr: &mut stderr,
        stdin: &mut stdin,
        stdout_is_terminal,
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        cwd,
        width,
    };
    let status = match run(cli, &mut env) {
        Ok(status) => status,
        Err(err) => {
            let report = miette::Report::new(err);
            let handler = miette::GraphicalReportHandler::new_themed(
                if std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
                    miette::GraphicalTheme::unicode()
                } else {
                    miette::GraphicalTheme::unicode_nocolor()
                },
            )
            .with_links(false)
            .with_width(width);
            let mut out = String::new();
            if handler.render_report(&mut out, report.as_ref()).is_err() {
                out = format!("error: {report}\n");
            }
            eprint!("{out}");
            ExitStatus::Error
        }
    };
    ExitCode::from(status as u8)
}
