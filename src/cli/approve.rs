//! `mend approve ID...`: accept proposals and write their XPaths to the
//! wrapper; `--pending` or `--pattern PATH` approves every waiting proposal
//! (of one pattern), oldest first, each on its own.
//!
//! The decision is `mend::review::approve`: only a proposal that waits for a
//! person is approved; the wrapper file the run used (its canonical path, as
//! the store recorded it, and only if it is still the wrapper of that name,
//! unless `--wrapper PATH`) is rewritten in place, and only if the pattern
//! still has the XPath the adaptation replaced, unless `--force`; the
//! pattern's tree-gram is refreshed in the same change of the
//! wrapper-change protocol. This module prints what it did.
//!
//! ## What it refuses
//!
//! It approves nothing and exits 2 without ids, `--pending` or
//! `--pattern`, for an id with another store's tag, and for a store that is
//! missing, not a mend store, or one of two that could be meant. An
//! approval the library refuses (decided already, applied by a run,
//! abstained, the wrapper changed since without `--force`) is exit 2, a
//! failure of the files or the store exit 3; the other ids still go on, and
//! the command ends with the worst code. With nothing waiting it exits 0.

use std::path::Path;
use std::process::ExitCode;

use mend::review::{self, Approved};
use mend::store::{AdaptationId, Store};

use super::review::{self as cli, StoreArg, WrapperArg};

/// Approve a proposal: rewrite the wrapper's XPath and record the decision.
#[derive(clap::Args, Debug)]
#[command(after_long_help = cli::STORE_RULE)]
pub struct Args {
    #[command(flatten)]
    targets: cli::Targets,
    /// Why, for the history.
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
    /// Rewrite the XPath even if the wrapper file no longer has the XPath
    /// the adaptation replaced.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    store: StoreArg,
    #[command(flatten)]
    wrapper: WrapperArg,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    Ok(cli::for_each_target(
        &args.store,
        &args.targets,
        "approve",
        |store, path, id| approve(&args, store, path, id),
    ))
}

fn approve(
    args: &Args,
    store: &mut Store,
    path: &Path,
    id: AdaptationId,
) -> Result<ExitCode, ExitCode> {
    let options = cli::options(args.reason.as_deref(), args.force, &args.wrapper);
    let approved = review::approve(store, path, id, &options).map_err(|e| cli::report(&e))?;
    print(&approved);
    Ok(ExitCode::SUCCESS)
}

/// Prints what an approval did: notes and warnings on standard error, the
/// approval itself on standard output.
fn print(approved: &Approved) {
    let Approved {
        record,
        file,
        new_xpath,
        ..
    } = approved;
    if let Some(note) = &approved.wrapper_note {
        say!("note: {note}");
    }
    if !approved.rewritten {
        out!(
            "note: {} already has the new XPath for {}; recording the approval only",
            file.display(),
            record.pattern
        );
    }
    if let Some(e) = &approved.unmarked {
        say!("warning: {e}");
    }
    if approved.rewritten {
        out!(
            "approved adaptation {} of {} in {}: {} now has\n  xpath: {new_xpath}\n(the old \
             XPath is kept in the pattern's history)",
            record.id,
            record.pattern,
            record.wrapper,
            file.display()
        );
    } else {
        out!(
            "approved adaptation {} of {} in {}",
            record.id,
            record.pattern,
            record.wrapper
        );
    }
    if !approved.twins.is_empty() {
        out!(
            "approved with it: {} (the same XPath)",
            cli::ids(&approved.twins)
        );
    }
    for written in &approved.refreshed {
        out!("refreshed the tree-gram {}", written.display());
    }
    if let Some(note) = &approved.treegram_note {
        say!("note: {note}");
    }
}
