//! What approving and reverting share around their one change to the
//! wrapper file: the lock taken, the file read under it, and what became of
//! the change.
//!
//! It refuses a wrapper file that does not load, with the loader's
//! diagnostics (`ReviewError::DoesNotLoad`), and the file is read only under
//! the lock, once a change an earlier process left unfinished is settled. The
//! store's refusals of a decision (already decided, not a proposal, not in the
//! wrapper, already reverted) are kept apart as `ReviewError::Refused`, for the
//! person to see; any other failure is `ReviewError::NotMade`, and means
//! nothing was changed.

use std::path::Path;

use super::{Action, ReviewError, load_wrapper_text};
use crate::runtime::{self, Carried, RuntimeError, WrapperLock};
use crate::store::{Store, StoreError};
use crate::wrapper::Wrapper;

/// Takes the wrapper-change protocol's lock on `file`, held from the moment
/// the file is read until the change is done, and settles first a change
/// to it that an earlier process left unfinished.
pub(super) fn lock(store: &mut Store, file: &Path) -> Result<WrapperLock, ReviewError> {
    let lock = WrapperLock::acquire(file)?;
    runtime::reconcile(store, &lock)?;
    Ok(lock)
}

/// The wrapper file's text and the wrapper it loads as, read under its
/// lock; a file that does not load is refused with its diagnostics.
pub(super) fn read(file: &Path, action: Action) -> Result<(String, Wrapper), ReviewError> {
    let text = std::fs::read_to_string(file).map_err(|error| ReviewError::Read {
        file: file.to_owned(),
        error,
    })?;
    let wrapper =
        load_wrapper_text(&text, file).map_err(|diagnostics| ReviewError::DoesNotLoad {
            file: file.to_owned(),
            diagnostics,
            action,
        })?;
    Ok((text, wrapper))
}

/// What a change of [`runtime::make_change`] to `file` decided, and the
/// warning to give when its files are written but it could not be marked
/// done. The store refusing the decision (another process decided or
/// reverted the adaptation since it was read) is the person's to know;
/// any other failure means nothing was changed.
pub(super) fn made<T>(
    made: Result<(T, Carried), RuntimeError>,
    file: &Path,
    action: Action,
) -> Result<(T, Option<RuntimeError>), ReviewError> {
    match made {
        Ok((decided, Carried::Done)) => Ok((decided, None)),
        Ok((decided, Carried::Unmarked(e))) => Ok((decided, Some(e))),
        Err(RuntimeError::Store {
            error:
                e @ (StoreError::AlreadyDecided { .. }
                | StoreError::NotProposed { .. }
                | StoreError::NotInWrapper { .. }
                | StoreError::AlreadyReverted { .. }),
            ..
        }) => Err(ReviewError::Refused(e)),
        Err(error) => Err(ReviewError::NotMade {
            error: Box::new(error),
            file: file.to_owned(),
            action,
        }),
    }
}
