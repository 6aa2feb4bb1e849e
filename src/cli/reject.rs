//! `mend reject ID...`: refuse adaptations' new XPaths.
//!
//! The verdict is recorded with its reason, and the store remembers the XPath
//! as a negative example: healing never proposes it again for that wrapper's
//! pattern. A proposal leaves the wrapper file as it is, and its twins (the
//! same XPath, recorded one per page by an earlier mend) are rejected with
//! it. An adaptation whose XPath is in the wrapper (applied by a run in
//! `auto` mode, or approved) is first reverted (`undo.rs`): the old XPath is
//! put back through the wrapper-change protocol, and only then is the
//! verdict turned into a rejection. `--pending` or `--pattern PATH` rejects
//! every waiting proposal (of one pattern).

use std::path::Path;
use std::process::ExitCode;

use mend::store::{AdaptationId, AdaptationStatus, Store, Verdict};

use super::review::{self, StoreArg, WrapperArg};
use super::undo;

/// Reject proposed, applied or approved adaptations; their XPaths are never proposed again.
#[derive(clap::Args, Debug)]
#[command(after_long_help = review::STORE_RULE)]
pub struct Args {
    #[command(flatten)]
    targets: review::Targets,
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
    Ok(review::for_each_target(
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
    let record = review::adaptation(store, path, id)?;
    let reason = args.reason.as_deref();
    if undo::in_wrapper(store, &record)? {
        let file = review::wrapper_of(store, &record, path, args.wrapper.wrapper.as_deref())?;
        undo::revert(store, path, &record, &file, reason, args.force)?;
        store
            .turn_to_rejection(id, reason, review::now())
            .map_err(|e| review::store_failure(&e))?;
        out!(
            "rejected adaptation {} of {} in {}: {} will not be proposed again",
            record.id,
            record.pattern,
            record.wrapper,
            record.new_xpath.as_deref().unwrap_or("(none)")
        );
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(decision) = &record.decision {
        return Err(review::bad_input(format!(
            "adaptation {} was already {} at {}",
            record.id, decision.verdict, decision.decided_at
        )));
    }
    match record.status {
        AdaptationStatus::Proposed | AdaptationStatus::Applied => {}
        AdaptationStatus::Abstained => {
            return Err(review::bad_input(format!(
                "adaptation {} abstained: it found no XPath, so there is nothing to reject",
                record.id
            )));
        }
        AdaptationStatus::Rejected => {
            return Err(review::bad_input(format!(
                "adaptation {} was already refused by the run{}: its XPath was never used",
                record.id,
                record
                    .reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            )));
        }
    }
    let twins = store
        .pending_twins(id)
        .map_err(|e| review::store_failure(&e))?;
    review::decide(store, path, id, Verdict::Rejected, reason)?;
    let twin_reason = format!("the same XPath as adaptation {id}, rejected with it");
    for twin in &twins {
        review::decide(store, path, *twin, Verdict::Rejected, Some(&twin_reason))?;
    }
    let new = record.new_xpath.as_deref().unwrap_or("(none)");
    out!(
        "rejected adaptation {} of {} in {}: {new} will not be proposed again",
        record.id,
        record.pattern,
        record.wrapper
    );
    if !twins.is_empty() {
        let list: Vec<String> = twins.iter().map(ToString::to_string).collect();
        out!("rejected with it: {} (the same XPath)", list.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}
