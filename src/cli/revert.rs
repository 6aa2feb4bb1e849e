//! `mend revert ID`: take an applied heal or an approved proposal back out
//! of the wrapper file (see `undo.rs`). The adaptation's verdict stays as it
//! was; `mend reject ID` reverts and also refuses the XPath for good.

use std::process::ExitCode;

use mend::store::AdaptationRef;

use super::review::{self, StoreArg, WrapperArg};
use super::undo;

/// Revert an applied or approved adaptation: put the pattern's old XPath back.
#[derive(clap::Args, Debug)]
#[command(after_long_help = review::STORE_RULE)]
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
    let (mut store, path) = review::open_store(&args.store)?;
    let id = review::own_id(&store, &path, &args.id)?;
    let record = review::adaptation(&store, &path, id)?;
    if !undo::in_wrapper(&store, &record)? {
        return Err(review::bad_input(format!(
            "adaptation {} is {}: only an applied heal or an approved proposal is in the \
             wrapper to revert",
            record.id,
            match (&record.decision, store.reverts(record.id)) {
                (_, Ok(r)) if !r.is_empty() => "reverted already".to_owned(),
                (Some(d), _) => format!("{}", d.verdict),
                (None, _) => record.status.to_string(),
            }
        )));
    }
    let file = review::wrapper_of(&store, &record, &path, args.wrapper.wrapper.as_deref())?;
    undo::revert(
        &mut store,
        &path,
        &record,
        &file,
        args.reason.as_deref(),
        args.force,
    )?;
    Ok(ExitCode::SUCCESS)
}
