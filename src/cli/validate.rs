//! `mend validate WRAPPER...`: checks wrapper files and reports every problem.
//!
//! Each valid file gets an `ok:` line on stdout; problems (and warnings, such
//! as a `tr` step directly under `table`) are printed on stderr as
//! compiler-style diagnostics. The tree-grams a wrapper names are read as a
//! run reads them, so that a file `mend run` would refuse (outside the
//! project, not a regular file, too large) fails here first. A wrapper that
//! is not a regular file (a FIFO, a device) is refused without waiting on
//! it. The command only reads the files it is given and their tree-grams.

use std::path::PathBuf;
use std::process::ExitCode;

use mend::runtime::{Project, load_treegrams};
use mend::wrapper::{self, LoadError, Pattern, render_all};

use super::{EXIT_BAD_INPUT, EXIT_FAILURE};

/// Check wrapper files: YAML syntax, the schema, names, ranges, regexes and XPaths.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// Wrapper files to check.
    #[arg(required = true, value_name = "WRAPPER")]
    wrappers: Vec<PathBuf>,
}

/// Checks every file; exit 0 if all are valid, 2 if any is not (or is
/// missing), 3 if one is there but cannot be read.
pub fn run(args: &ValidateArgs) -> ExitCode {
    let mut invalid = false;
    let mut unreadable = false;
    for path in &args.wrappers {
        match wrapper::check_file(path) {
            Ok(report) => {
                if !report.diagnostics.is_empty() {
                    say!("{}\n", render_all(&report.diagnostics));
                }
                match report.wrapper {
                    // The tree-grams it names are read as a run reads them:
                    // one that a run would refuse fails validation too.
                    Some(w) => match load_treegrams(&Project::of(path), &w) {
                        Ok(_) => {
                            let n = count(&w.patterns);
                            let plural = if n == 1 { "" } else { "s" };
                            out!("ok: {} ({n} pattern{plural})", path.display());
                        }
                        Err(e) => {
                            say!("error: {}: {e}", path.display());
                            invalid = true;
                        }
                    },
                    None => invalid = true,
                }
            }
            Err(LoadError::Invalid(diagnostics)) => {
                say!("{}\n", render_all(&diagnostics));
                invalid = true;
            }
            Err(e) => {
                say!("error: {e}");
                if super::load_error_code(&e) == EXIT_FAILURE {
                    unreadable = true;
                } else {
                    invalid = true;
                }
            }
        }
    }
    if unreadable {
        ExitCode::from(EXIT_FAILURE)
    } else if invalid {
        ExitCode::from(EXIT_BAD_INPUT)
    } else {
        ExitCode::SUCCESS
    }
}

/// All patterns in a tree, children included.
fn count(patterns: &[Pattern]) -> usize {
    patterns.iter().map(|p| 1 + count(&p.patterns)).sum()
}
