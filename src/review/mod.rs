//! Review of adaptations as a library.
//!
//! The decisions: approving a proposal, rejecting an adaptation, reverting
//! one, with the same effect whoever asks (`mend approve`, `mend reject`,
//! `mend revert`, or the review page). What a person is shown before
//! deciding, the same to whoever shows it (`mend show`, the review page):
//! the wrapper diff, the selections in their parents' instances, the
//! preview on the stored pages ([`inspect()`], [`preview`]), and the old and
//! new sub-trees aligned ([`alignment`], pure). Beyond the command line:
//! stored pages made safe to show (`sanitize`, pure), and the local review
//! page that shows them (`server`, axum on 127.0.0.1).
//!
//! A decision that changes the wrapper file goes through the wrapper-change
//! protocol of [`crate::runtime`]: the wrapper's lock, the journal in the
//! store, the files written and synced, so that the file and the store never
//! disagree. Approving rewrites the pattern's XPath in place (comments,
//! layout and quoting stay; the old XPath goes to the pattern's history),
//! refreshes its tree-gram from the stored page and approves the proposal's
//! twins with it; reverting puts the old XPath and the tree-grams back;
//! rejecting reverts first when the XPath is in the wrapper. Finding the
//! wrapper file a run used, and the adaptation an id or a `TAG:ID`
//! reference names, are here too.
//!
//! The decisions refuse to print, and read no clock: the caller passes the
//! decision time ([`DecisionOptions::now`]), as the store's API takes
//! timestamps (the protocol's journal and a captured tree-gram keep the
//! runtime's own times). A refusal or failure is a [`ReviewError`], which
//! says whether the person can act on it; an outcome carries everything
//! there is to tell them. Choosing which adaptations to decide and finding
//! the store are the caller's.

pub mod alignment;
mod approve;
mod change;
mod change_class;
mod error;
pub mod history;
mod inspect;
mod lookup;
pub mod preview;
mod reject;
mod revert;
pub mod sanitize;
pub mod server;
mod wrapper_file;

#[cfg(test)]
mod tests;

use std::path::Path;

pub use approve::{Approved, approve};
pub use change_class::ChangeClass;
pub use error::{Action, Changed, ReviewError};
pub use inspect::{Inspection, Parents, Side, inspect, parents_of};
pub use lookup::{adaptation, own_id};
pub use reject::{Rejected, reject};
pub use revert::{Reverted, in_wrapper, revert};
pub use wrapper_file::{
    check_wrapper_name, current_xpath, find_wrapper_file, load_wrapper_text, recorded_wrapper_path,
    wrapper_file, wrapper_of,
};

use crate::store::Timestamp;

/// What a person asked along with a decision.
#[derive(Clone, Copy, Debug)]
pub struct DecisionOptions<'a> {
    /// Why, for the history.
    pub reason: Option<&'a str>,
    /// Change the wrapper file even if its pattern no longer has the XPath
    /// the change expects: the one the adaptation replaced (approving), or
    /// the adaptation's own (reverting, rejecting an adaptation in the
    /// wrapper).
    pub force: bool,
    /// The wrapper file to change instead of the one the run used (it has
    /// moved, or the change goes to another copy of the wrapper).
    pub wrapper: Option<&'a Path>,
    /// When the decision is made, as the store records it.
    pub now: Timestamp,
}
