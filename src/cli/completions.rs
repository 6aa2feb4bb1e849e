//! `mend completions SHELL`: print a completion script for a shell.
//!
//! The script is generated from the same clap definitions the command line
//! parses with, so it offers every command, flag and named value (`--heal
//! off|propose|auto`, `--format`, `--algo`) that mend takes today. It is
//! written whole or not at all into a buffer first: the generator panics on
//! a write that fails, and standard output may be a closed pipe.
//!
//! ## What it refuses
//!
//! A shell other than bash, zsh, fish, elvish or powershell is clap's
//! refusal (exit 2). Otherwise it always succeeds, but a standard output
//! that cannot take the whole script ends the command with exit 3, as for
//! any command. It installs nothing: where the script goes is the user's.

use std::io::Write as _;
use std::process::ExitCode;

use clap::CommandFactory as _;
use clap_complete::Shell;

use super::Cli;

/// Print a shell completion script on standard output.
#[derive(clap::Args, Debug)]
#[command(
    after_long_help = "Load it in the running shell, or save it where the \
    shell looks for completions:\n  \
    bash: source <(mend completions bash)\n  \
    zsh:  mend completions zsh > \"${fpath[1]}/_mend\"\n  \
    fish: mend completions fish > ~/.config/fish/completions/mend.fish"
)]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

/// Runs the command.
pub fn run(args: &Args) -> ExitCode {
    let script = script(args.shell);
    let mut out = super::stdout::Stdout::new();
    let _ = out.write_all(&script);
    let _ = out.flush();
    ExitCode::SUCCESS
}

/// The completion script for `shell`.
fn script(shell: Shell) -> Vec<u8> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "mend", &mut script);
    script
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(shell: Shell, expected: &[&str]) {
        let script = String::from_utf8(script(shell)).unwrap();
        for text in expected {
            assert!(script.contains(text), "{shell}: no {text:?} in the script");
        }
    }

    #[test]
    fn every_shell_gets_the_commands_and_named_values() {
        check(
            Shell::Bash,
            &["_mend()", "complete -F _mend", "approve", "propose"],
        );
        check(Shell::Zsh, &["#compdef mend", "snapshot", "propose"]);
        check(Shell::Fish, &["complete -c mend", "completions", "propose"]);
    }
}
