//! `mend reject ID...`: refuse adaptations' new XPaths; `--pending` or
//! `--pattern PATH` rejects every waiting proposal (of one pattern).
//!
//! The decision is `mend::review::reject`: the verdict is recorded with its
//! reason, and healing never proposes the XPath again for that wrapper's
//! pattern. A proposal leaves the wrapper file as it is, and its twins are
//! rejected with it; an adaptation whose XPath is in the wrapper (applied by
//! a run in `auto` mode, or approved) is first reverted, as `mend revert`
//! does. This module prints what it did.

use std::path::Path;
use std::process::ExitCode;

use mend::review::{self, Rejected, ReviewError};
use mend::store::{AdaptationId, Store};

use super::review::{self as cli, StoreArg, WrapperArg};

/// Reject proposed, applied or approved adaptations; their XPaths are never proposed again.
#[derive(clap::Args, Debug)]
#[command(after_long_help = cli::STORE_RULE)]
pub struct Args {
    #[command(flatten)]
    targets: cli::Targets,
    /// Why, for the history.
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
    /// Put the old XPath back even if the wrapper file no longer has the
    /// rejected one (for an applied or approved adaptation).
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
        "reject",
        |store, path, id| reject(&args, store, path, id),
    ))
}

fn reject(
    args: &Args,
    store: &mut Store,
    path: &Path,
    id: AdaptationId,
) -> Result<ExitCode, ExitCode> {
    let options = cli::options(args.reason.as_deref(), args.force, &args.wrapper);
    let rejected = match review::reject(store, path, id, &options) {
        Ok(rejected) => rejected,
        Err(e) => {
            // The XPath is out of the wrapper even so: say so first.
            if let ReviewError::RevertedNotRejected { reverted, .. } = &e {
                cli::print_reverted(reverted);
            }
            return Err(cli::report(&e));
        }
    };
    let Rejected {
        record,
        reverted,
        twins,
    } = &rejected;
    if let Some(reverted) = reverted {
        cli::print_reverted(reverted);
    }
    out!(
        "rejected adaptation {} of {} in {}: {} will not be proposed again",
        record.id,
        record.pattern,
        record.wrapper,
        record.new_xpath.as_deref().unwrap_or("(none)")
    );
    if !twins.is_empty() {
        out!("rejected with it: {} (the same XPath)", cli::ids(twins));
    }
    Ok(ExitCode::SUCCESS)
}
