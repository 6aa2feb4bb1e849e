//! Command-line entry: one module per command, each a clap struct with `run()`.
//!
//! Exit codes (DESIGN.md): 0 success, 1 the job ran but some patterns stay
//! violated, 2 bad input (wrapper, arguments), 3 internal or I/O failure.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod validate;

/// Exit code: the job ran but some patterns stay violated.
// `mend run` will use it; it is defined with its siblings so the codes stay in one place.
#[allow(dead_code)]
pub const EXIT_VIOLATED: u8 = 1;
/// Exit code: bad input (wrapper, arguments).
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code: internal or I/O failure.
pub const EXIT_FAILURE: u8 = 3;

/// mend: self-healing web wrappers.
#[derive(Parser, Debug)]
#[command(name = "mend", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check wrapper files and report every problem with its line and column.
    Validate(validate::ValidateArgs),
}

/// Parses arguments, runs the command and maps its outcome to an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_BAD_INPUT } else { 0 });
        }
    };
    match cli.command {
        Command::Validate(args) => validate::run(&args),
    }
}
