//! Rejecting: an adaptation's new XPath refused for good.
//!
//! The verdict is recorded with its reason, and the store remembers the
//! XPath as a negative example: healing never proposes it again for that
//! wrapper's pattern. A proposal leaves the wrapper file as it is, and its
//! twins (the same XPath, recorded one per page by an earlier mend) are
//! rejected with it. An adaptation whose XPath is in the wrapper (applied by
//! a run in `auto` mode, or approved) is first reverted: the old XPath is put
//! back through the wrapper-change protocol, and only then is the verdict
//! turned into a rejection. One reverted already has only its verdict turned.

use std::path::Path;

use super::revert::take_out;
use super::{Action, DecisionOptions, Reverted, ReviewError, adaptation, in_wrapper, wrapper_of};
use crate::store::{
    AdaptationId, AdaptationRecord, AdaptationStatus, State, Store, StoreError, Timestamp, Verdict,
};

/// What a rejection did.
#[derive(Debug)]
pub struct Rejected {
    /// The adaptation, as it was read before the rejection.
    pub record: AdaptationRecord,
    /// The revert that took its XPath out of the wrapper first, when it was
    /// in the wrapper.
    pub reverted: Option<Reverted>,
    /// The proposals of the same XPath that an earlier mend recorded one
    /// per page, rejected with it.
    pub twins: Vec<AdaptationId>,
}

/// Rejects adaptation `id` of `store` (opened from `store_path`), as of
/// `options.now` (see the module documentation). `options.force` and
/// `options.wrapper` matter for an adaptation in the wrapper, as they do
/// for [`super::revert()`].
pub fn reject(
    store: &mut Store,
    store_path: &Path,
    id: AdaptationId,
    options: &DecisionOptions<'_>,
) -> Result<Rejected, ReviewError> {
    let record = adaptation(store, store_path, id)?;
    if in_wrapper(store, &record)? {
        let file = wrapper_of(store, &record, store_path, options.wrapper)?;
        let reverted = take_out(store, store_path, record.clone(), file, options)?;
        if let Err(error) = store.turn_to_rejection(id, options.reason, options.now) {
            return Err(ReviewError::RevertedNotRejected {
                reverted: Box::new(reverted),
                error,
            });
        }
        return Ok(Rejected {
            record,
            reverted: Some(reverted),
            twins: Vec::new(),
        });
    }
    if record.state == State::Reverted {
        // Its XPath is out of the wrapper already: only the verdict turns,
        // so that the XPath is never proposed again.
        store.turn_to_rejection(id, options.reason, options.now)?;
        return Ok(Rejected {
            record,
            reverted: None,
            twins: Vec::new(),
        });
    }
    if let Some(decision) = &record.decision {
        return Err(ReviewError::AlreadyDecided {
            id,
            verdict: decision.verdict,
            at: decision.decided_at,
            action: Action::Reject,
        });
    }
    match record.status {
        AdaptationStatus::Proposed | AdaptationStatus::Applied => {}
        AdaptationStatus::Abstained => {
            return Err(ReviewError::Abstained {
                id,
                action: Action::Reject,
            });
        }
        AdaptationStatus::Rejected => {
            return Err(ReviewError::RefusedByRun {
                id,
                reason: record.reason.clone(),
                action: Action::Reject,
            });
        }
    }
    let twins = store.pending_twins(id)?;
    decide(store, store_path, id, options.reason, options.now)?;
    let twin_reason = format!("the same XPath as adaptation {id}, rejected with it");
    for twin in &twins {
        decide(store, store_path, *twin, Some(&twin_reason), options.now)?;
    }
    Ok(Rejected {
        record,
        reverted: None,
        twins,
    })
}

/// Records the rejection of adaptation `id` at `at`.
fn decide(
    store: &mut Store,
    store_path: &Path,
    id: AdaptationId,
    reason: Option<&str>,
    at: Timestamp,
) -> Result<(), ReviewError> {
    match store.decide(id, Verdict::Rejected, reason, at) {
        Ok(_) => Ok(()),
        // Another process may have decided it since it was read.
        Err(e @ (StoreError::AlreadyDecided { .. } | StoreError::NotProposed { .. })) => {
            Err(ReviewError::Refused(e))
        }
        Err(StoreError::UnknownAdaptation(id)) => Err(ReviewError::Vanished {
            id,
            store: store_path.to_owned(),
        }),
        Err(e) => Err(ReviewError::Store(e)),
    }
}
