//! The `mend` command line.

#![forbid(unsafe_code)]
// Output goes through `out!` and `say!` (src/cli/stdout.rs), which never panic.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
