//! `mend revert ID`: take an applied heal or an approved proposal back out
//! of the wrapper file (`mend::review::revert`). The adaptation's verdict
//! stays as it was; `mend reject ID` reverts and also refuses the XPath for
//! good. This module prints what it did.

use std::process::ExitCode;

use mend::review;
use mend::store::AdaptationRef;

use super::review::{self as cli, StoreArg, WrapperArg};

/// Revert an applied or approved adaptation: put the pattern's old XPath back.
#[derive(clap::Args, Debug)]
#[command(after_long_help = cli::STORE_RULE)]
pub struct Args {
    /// The adaptation's id, as `mend log` lists it, or as TAG:ID (the
    /// store's tag and the id, as a run's output names them).
    id: AdaptationRef,
    /// Why, for the history.
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
    /// Put the old XPath back even if the wrapper file no longer has the
    /// adaptation's XPath.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    store: StoreArg,
    #[command(flatten)]
    wrapper: WrapperArg,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    Ok(revert(&args).unwrap_or_else(|code| code))
}

fn revert(args: &Args) -> Result<ExitCode, ExitCode> {
    let (mut store, path) = cli::open_store(&args.store)?;
    let id = cli::own_id(&store, &path, &args.id)?;
    let options = cli::options(args.reason.as_deref(), args.force, &args.wrapper);
    let reverted = review::revert(&mut store, &path, id, &options).map_err(|e| cli::report(&e))?;
    cli::print_reverted(&reverted);
    Ok(ExitCode::SUCCESS)
}
