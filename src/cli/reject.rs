//! `mend reject ID`: refuse an adaptation's new XPath.
//!
//! The verdict is recorded with its reason, and the store remembers the XPath
//! as a negative example: healing never proposes it again for that wrapper's
//! pattern. A proposal leaves the wrapper file as it is. An adaptation that a
//! run applied on its own (`auto` mode) can be rejected after the fact too;
//! the wrapper file still holds its XPath then, and the command says how to
//! put the old one back.

use std::process::ExitCode;

use mend::store::{AdaptationId, AdaptationStatus, Verdict};

use super::review::{self, StoreArg};

/// Reject a proposed (or applied) adaptation; its XPath is never proposed again.
#[derive(clap::Args, Debug)]
#[command(after_long_help = review::STORE_RULE)]
pub struct Args {
    /// The adaptation's id, as `mend log` lists it.
    id: AdaptationId,
    /// Why, for the history.
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
    #[command(flatten)]
    store: StoreArg,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    Ok(reject(&args).unwrap_or_else(|code| code))
}

fn reject(args: &Args) -> Result<ExitCode, ExitCode> {
    let (mut store, path) = review::open_store(&args.store)?;
    let record = review::adaptation(&store, &path, args.id)?;
    if let Some(decision) = &record.decision {
        return Err(review::bad_input(format!(
            "adaptation {} was already {} at {}; a decision is not changed",
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
    review::decide(
        &mut store,
        &path,
        args.id,
        Verdict::Rejected,
        args.reason.as_deref(),
    )?;
    let new = record.new_xpath.as_deref().unwrap_or("(none)");
    out!(
        "rejected adaptation {} of {} in {}: {new} will not be proposed again",
        record.id,
        record.pattern,
        record.wrapper
    );
    if record.status == AdaptationStatus::Applied {
        let file = review::recorded_wrapper_path(&store, &record)?;
        out!(
            "note: the run applied it, so the wrapper file {} still holds it; to revert, set \
             the xpath of pattern {} back to:\n  {}",
            file.display(),
            record.pattern,
            record.old_xpath
        );
    }
    Ok(ExitCode::SUCCESS)
}
