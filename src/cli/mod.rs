//! Command-line entry: one module per command, each a clap struct with `run()`.
//!
//! Exit codes (DESIGN.md): 0 success, 1 the job ran but some patterns stay
//! violated or a field's health dropped, 2 bad input (wrapper, arguments), 3
//! internal or I/O failure.
//!
//! The command line refuses nothing of its own beyond clap's arguments:
//! every refusal is the library's, printed with what the user can do about
//! it and ended with its exit code. No command module uses another
//! (ARCHITECTURE.md, invariant 13); what they share is here and in
//! `stdout.rs`, `logging.rs`, `review.rs` and `capture.rs`.

use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use mend::wrapper::{self, LoadError, Wrapper};

/// `eprintln!` that never panics: when standard error is closed or full
/// there is nowhere left to report that, so the message is dropped and the
/// command goes on to its exit code.
///
/// The message is formatted first and written in one call: standard error
/// is unbuffered, and a command that warns about each of thousands of
/// patterns would otherwise make a system call for every piece of each
/// line.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut line = format!($($arg)*);
        line.push('\n');
        let _ = std::io::stderr().write_all(line.as_bytes());
    }};
}

/// `eprint!` that never panics, as [`say!`].
macro_rules! say_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = std::io::stderr().write_all(format!($($arg)*).as_bytes());
    }};
}

/// `println!` that never panics: a failure to write standard output is
/// remembered and the command goes on; it ends with exit code 3
/// (`stdout.rs`).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(crate::cli::stdout::Stdout::new(), $($arg)*);
    }};
}

mod approve;
mod backend_file;
mod capture;
mod completions;
mod crawl;
mod gc;
mod history;
mod learn;
mod log;
mod logging;
mod reject;
mod revert;
mod review;
mod review_page;
mod run;
mod show;
mod similarity;
mod snapshot;
mod stdout;
mod template;
mod validate;
mod worker;
mod xpath;

/// Exit code: the job ran but some patterns stay violated, or a field's
/// health dropped.
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
    /// Run a wrapper over pages and print one JSON object per page.
    Run(run::RunArgs),
    /// Crawl a site with the wrapper's `crawl` block and write the records of its item pages.
    Crawl(crawl::Args),
    /// Work on crawl jobs of the PostgreSQL backend (`mend crawl --backend`), as one of any number of workers.
    Worker(worker::Args),
    /// Show a crawl job's progress in the PostgreSQL backend: queue, leases, workers, errors, heals.
    Status(worker::StatusArgs),
    /// Check wrapper files and report every problem with its line and column.
    Validate(validate::ValidateArgs),
    /// Evaluate an XPath expression on a page.
    Xpath(xpath::Args),
    /// Compare the element trees of two pages.
    Similarity(similarity::Args),
    /// Capture tree-grams on a page where the wrapper works.
    Snapshot(snapshot::Args),
    /// Learn what changes from load to load of a page (dates, clocks, ads) and capture tree-grams that ignore it.
    Learn(learn::Args),
    /// List the wrapper's versions and its pages' versions, with their times.
    History(history::Args),
    /// Compare two wrapper versions (YAML diff) or two page versions (structure), as `mend history` names them.
    Diff(history::DiffArgs),
    /// Find the site's template (header, menus, footer its pages share) and write it beside the tree-grams.
    Template(template::Args),
    /// List adaptations from the store, newest first; with --health, the
    /// field health of the last runs.
    Log(log::Args),
    /// Show one adaptation in full: the record, the wrapper diff, the matched sub-trees.
    Show(show::Args),
    /// Approve a proposal: rewrite the wrapper's XPath and record the decision.
    Approve(approve::Args),
    /// Reject proposed, applied or approved adaptations; their XPaths are never proposed again.
    Reject(reject::Args),
    /// Revert an applied or approved adaptation: put the pattern's old XPath back.
    Revert(revert::Args),
    /// Serve the store's adaptations as a local web page.
    Review(review_page::Args),
    /// Bound the store: let go of old page snapshots and captures, share older change copies, compact the file.
    Gc(gc::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::Args),
}

/// Parses arguments, runs the command and maps its outcome to an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let printed = e.print();
            if e.use_stderr() {
                return ExitCode::from(EXIT_BAD_INPUT);
            }
            // Help and version go to standard output, like any other output.
            if let Err(failure) = printed {
                stdout::remember(failure);
            }
            return finish(ExitCode::SUCCESS);
        }
    };
    logging::install();
    let outcome = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Crawl(args) => crawl::run(args),
        Command::Worker(args) => worker::run(args),
        Command::Status(args) => worker::status(args),
        Command::Validate(args) => Ok(validate::run(&args)),
        Command::Xpath(args) => xpath::run(args),
        Command::Similarity(args) => similarity::run(args),
        Command::Snapshot(args) => snapshot::run(args),
        Command::Learn(args) => learn::run(args),
        Command::Template(args) => template::run(args),
        Command::History(args) => history::run(args),
        Command::Diff(args) => history::diff(args),
        Command::Log(args) => log::run(args),
        Command::Show(args) => show::run(args),
        Command::Approve(args) => approve::run(args),
        Command::Reject(args) => reject::run(args),
        Command::Revert(args) => revert::run(args),
        Command::Review(args) => review_page::run(args),
        Command::Gc(args) => gc::run(args),
        Command::Completions(args) => Ok(completions::run(&args)),
    };
    let code = match outcome {
        Ok(code) => code,
        Err(e) => {
            say!("error: {e:#}");
            ExitCode::from(EXIT_FAILURE)
        }
    };
    finish(code)
}

/// The exit code to end with once the command is done: 3 if standard output
/// could not take everything (quietly when its reader closed the pipe).
fn finish(code: ExitCode) -> ExitCode {
    match stdout::failure() {
        None => code,
        Some(e) if stdout::is_closed_pipe(e) => ExitCode::from(EXIT_FAILURE),
        Some(e) => {
            say!("error: cannot write standard output ({e}); what it should hold is incomplete");
            ExitCode::from(EXIT_FAILURE)
        }
    }
}

/// A clap value parser for one of the library's named enumerations: the
/// accepted spellings (each with its help) come from the enumeration's own
/// `as_str`, and the value is read back with its `FromStr`, so the command
/// line spells every name as wrappers and the store do.
pub fn names<T>(
    all: impl IntoIterator<Item = T>,
    name: fn(T) -> &'static str,
    help: fn(T) -> &'static str,
) -> impl clap::builder::TypedValueParser<Value = T>
where
    T: Copy + std::str::FromStr + Send + Sync + 'static,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
    PossibleValuesParser::new(
        all.into_iter()
            .map(|v| PossibleValue::new(name(v)).help(help(v))),
    )
    .try_map(|s: String| s.parse::<T>())
}

/// The store of a command that runs or changes the wrapper at `wrapper`:
/// `--store`, else `$MEND_STORE`, else `.mend/mend.db` beside the wrapper.
pub fn store_for(arg: Option<&Path>, wrapper: &Path) -> std::path::PathBuf {
    match (
        arg,
        std::env::var_os(review::STORE_ENV).filter(|v| !v.is_empty()),
    ) {
        (Some(path), _) => path.to_owned(),
        (None, Some(env)) => env.into(),
        (None, None) => mend::store::Store::default_path(wrapper),
    }
}

/// Loads a wrapper, printing its diagnostics on failure; the error is the exit
/// code to end with ([`load_error_code`]).
pub fn load_wrapper(path: &Path) -> Result<Wrapper, ExitCode> {
    match wrapper::load_file(path) {
        Ok(w) => Ok(w),
        Err(LoadError::Invalid(diagnostics)) => {
            say_raw!("{}", wrapper::render_all(&diagnostics));
            Err(ExitCode::from(EXIT_BAD_INPUT))
        }
        Err(e) => {
            say!("error: {e}");
            Err(ExitCode::from(load_error_code(&e)))
        }
    }
}

/// The exit code of a wrapper that did not load: 2 (bad input) for an
/// invalid wrapper or a path that names no file (missing, a directory, under
/// something that is not a directory), which the person who typed it can
/// fix; 3 for a file that is there but cannot be read.
pub fn load_error_code(e: &LoadError) -> u8 {
    match e {
        LoadError::Io { source, .. } if !names_no_file(source) => EXIT_FAILURE,
        _ => EXIT_BAD_INPUT,
    }
}

/// Says why a runtime call failed, with `then` after it (what was or was
/// not written), and gives the exit code: 2 for input the user must fix,
/// else 3.
pub fn runtime_failure(e: &mend::runtime::RuntimeError, then: &str) -> ExitCode {
    say!("error: {e}{then}");
    ExitCode::from(if e.is_bad_input() {
        EXIT_BAD_INPUT
    } else {
        EXIT_FAILURE
    })
}

/// The async runtime of the commands that crawl or work on jobs.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    use anyhow::Context as _;
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Whether opening a path failed because the path names no file that can
/// be a wrapper: nothing, a folder, or something other than a regular file
/// (a FIFO, a socket, a device), which the loader refuses as invalid input.
fn names_no_file(e: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        e.kind(),
        ErrorKind::NotFound
            | ErrorKind::IsADirectory
            | ErrorKind::NotADirectory
            | ErrorKind::InvalidInput
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    fn io(kind: ErrorKind) -> LoadError {
        LoadError::Io {
            path: "w.yaml".into(),
            source: Error::from(kind),
        }
    }

    #[test]
    fn a_wrapper_path_naming_no_file_is_bad_input_not_an_io_failure() {
        for kind in [
            ErrorKind::NotFound,
            ErrorKind::IsADirectory,
            ErrorKind::NotADirectory,
        ] {
            assert_eq!(load_error_code(&io(kind)), EXIT_BAD_INPUT, "{kind:?}");
        }
        assert_eq!(load_error_code(&LoadError::Invalid(vec![])), EXIT_BAD_INPUT);
        assert_eq!(
            load_error_code(&io(ErrorKind::PermissionDenied)),
            EXIT_FAILURE
        );
        assert_eq!(load_error_code(&io(ErrorKind::Other)), EXIT_FAILURE);
    }
}
