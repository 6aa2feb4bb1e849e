//! The `mend` command line.
//!
//! ## What it refuses
//!
//! It holds no unsafe code, and prints nothing through `print!`,
//! `println!`, `eprint!` or `eprintln!`: the attributes below forbid the one
//! and have clippy deny the other, so output goes through `out!` and
//! `say!`, which never panic. It refuses nothing else itself: parsing,
//! refusals and exit codes are `cli::main`'s.

#![forbid(unsafe_code)]
// Output goes through `out!` and `say!` (src/cli/stdout.rs), which never panic.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
