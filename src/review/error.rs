//! Why a review decision was refused or failed.

use std::fmt;
use std::path::PathBuf;

use super::Reverted;
use crate::runtime::RuntimeError;
use crate::store::{AdaptationId, AdaptationRef, RunId, StoreError, StoreTag, Timestamp, Verdict};
use crate::wrapper::RewriteError;

/// The decision that was being made, for the words of a refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Approving a proposal.
    Approve,
    /// Rejecting an adaptation.
    Reject,
    /// Taking an adaptation's XPath back out of the wrapper.
    Revert,
}

impl Action {
    /// The verb, as a refusal says what there is nothing to do.
    pub fn verb(self) -> &'static str {
        match self {
            Action::Approve => "approve",
            Action::Reject => "reject",
            Action::Revert => "revert",
        }
    }

    fn gerund(self) -> &'static str {
        match self {
            Action::Approve => "approving",
            Action::Reject => "rejecting",
            Action::Revert => "reverting",
        }
    }
}

/// Why a decision was not made.
///
/// Some refusals are in what a person asked for and can be acted on (the
/// adaptation was decided already, the wrapper file changed since, it does
/// not load): [`ReviewError::is_bad_input`] tells them from failures of the
/// files, the store or mend itself. Either way nothing was decided and no
/// file was changed, but for [`ReviewError::RevertedNotRejected`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    /// The store has no adaptation of this id.
    #[error(fmt = unknown_adaptation)]
    UnknownAdaptation {
        /// The id asked for.
        id: AdaptationId,
        /// The store read.
        store: PathBuf,
        /// The store's newest adaptation, if it holds any.
        newest: Option<AdaptationId>,
    },
    /// The adaptation was there when read, and gone when decided.
    #[error("no adaptation {id} in {}", store.display())]
    Vanished {
        /// The adaptation.
        id: AdaptationId,
        /// The store read.
        store: PathBuf,
    },
    /// A reference carries the tag of another store: its id means another
    /// adaptation here.
    #[error(
        "adaptation {reference} belongs to the store tagged {theirs}, but {} is tagged {ours}: \
         pass --store PATH (or set MEND_STORE) to read the store of the run that printed it",
        store.display()
    )]
    ForeignId {
        /// The reference as given.
        reference: AdaptationRef,
        /// The tag it carries.
        theirs: StoreTag,
        /// The tag of the store read.
        ours: StoreTag,
        /// The store read.
        store: PathBuf,
    },
    /// A person decided the adaptation already; a decision is not changed.
    #[error(
        "adaptation {id} was already {verdict} at {at}{}",
        if *action == Action::Approve { "; a decision is not changed" } else { "" }
    )]
    AlreadyDecided {
        /// The adaptation.
        id: AdaptationId,
        /// The verdict it carries.
        verdict: Verdict,
        /// When it was given.
        at: Timestamp,
        /// What was asked.
        action: Action,
    },
    /// An approval asked of a heal that a run applied: its XPath is in the
    /// wrapper already.
    #[error(
        "adaptation {id} was applied by the run (auto mode), so the wrapper file already has \
         its XPath; there is nothing to approve (`mend revert {id}` takes it back out, `mend \
         reject {id}` does that and records it as wrong)"
    )]
    AppliedByRun {
        /// The adaptation.
        id: AdaptationId,
    },
    /// The adaptation abstained: it has no XPath to decide.
    #[error(
        "adaptation {id} abstained: it found no XPath, so there is nothing to {}",
        action.verb()
    )]
    Abstained {
        /// The adaptation.
        id: AdaptationId,
        /// What was asked.
        action: Action,
    },
    /// The run refused the adaptation's XPath: it was never used.
    #[error(fmt = refused_by_run)]
    RefusedByRun {
        /// The adaptation.
        id: AdaptationId,
        /// Why the run refused it, if it said.
        reason: Option<String>,
        /// What was asked.
        action: Action,
    },
    /// A revert asked of an adaptation whose XPath is not in the wrapper.
    #[error(
        "adaptation {id} is {state}: only an applied heal or an approved proposal is in the \
         wrapper to revert"
    )]
    NotInWrapper {
        /// The adaptation.
        id: AdaptationId,
        /// What it is instead, in words (`proposed`, `reverted already`).
        state: String,
    },
    /// Read again under the wrapper's lock, the adaptation's XPath was no
    /// longer in the wrapper: another revert won.
    #[error(
        "adaptation {id} is not in the wrapper (it was reverted already, or never applied nor \
         approved)"
    )]
    NoLongerInWrapper {
        /// The adaptation.
        id: AdaptationId,
    },
    /// A revert asked of an adaptation without a new XPath.
    #[error("adaptation {id} has no XPath to revert")]
    NoXPathToRevert {
        /// The adaptation.
        id: AdaptationId,
    },
    /// The wrapper file named in place of the run's is not a file.
    #[error("--wrapper {}: no such file", given.display())]
    NoSuchWrapperFile {
        /// The path given.
        given: PathBuf,
    },
    /// The wrapper file the run used is not found.
    #[error("{why}; pass --wrapper PATH to name it")]
    WrapperNotFound {
        /// Where it was looked for ([`super::wrapper_file()`]).
        why: String,
    },
    /// The wrapper file does not load; [`ReviewError::diagnostics`] says why.
    #[error("{} does not load; fix it before {}", file.display(), action.gerund())]
    DoesNotLoad {
        /// The wrapper file.
        file: PathBuf,
        /// The loader's diagnostics, rendered.
        diagnostics: String,
        /// What was asked.
        action: Action,
    },
    /// The wrapper file is another wrapper than the adaptation's, and the
    /// person did not name it.
    #[error(
        "{} is the wrapper {name:?}, but adaptation {id} belongs to the wrapper {wrapper:?}; \
         pass --wrapper PATH to change that file anyway",
        file.display()
    )]
    WrongWrapper {
        /// The wrapper file.
        file: PathBuf,
        /// The name of the wrapper in it.
        name: String,
        /// The adaptation.
        id: AdaptationId,
        /// The name of the adaptation's wrapper.
        wrapper: String,
    },
    /// The wrapper file no longer has the adaptation's pattern.
    #[error("{} has no pattern {pattern} now", file.display())]
    NoPattern {
        /// The wrapper file.
        file: PathBuf,
        /// The pattern's path of names.
        pattern: String,
    },
    /// Approving: the pattern's XPath is neither the one the adaptation
    /// replaced nor its new one, and the person did not force it.
    #[error(
        "{} has changed since adaptation {id}: the XPath of {pattern} is now\n  {current}\nnot \
         the adaptation's old XPath\n  {old}\nsee `mend show {id}`, and pass --force to replace \
         it anyway",
        .0.file.display(), id = .0.id, pattern = .0.pattern, current = .0.current, old = .0.old
    )]
    ChangedSinceAdaptation(Box<Changed>),
    /// Reverting: the pattern's XPath is neither the adaptation's nor the
    /// one it replaced, and the person did not force it.
    #[error(
        "{} has changed since adaptation {id}: the XPath of {pattern} is now\n  {current}\nnot \
         the adaptation's XPath\n  {new}\npass --force to put back\n  {old}\nanyway",
        .0.file.display(), id = .0.id, pattern = .0.pattern, current = .0.current,
        new = .0.new, old = .0.old
    )]
    ChangedSinceWritten(Box<Changed>),
    /// The format-preserving rewrite refused the wrapper file.
    #[error("{}: {error}", file.display())]
    Rewrite {
        /// The wrapper file.
        file: PathBuf,
        /// Why.
        error: RewriteError,
    },
    /// The store refused the decision: the adaptation was decided or
    /// reverted by another process since it was read.
    #[error(transparent)]
    Refused(StoreError),
    /// The store could not be read or written (or is not a mend store).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The store holds no run for the adaptation.
    #[error("the store holds no run {run} for adaptation {id}")]
    NoRun {
        /// The run the adaptation names.
        run: RunId,
        /// The adaptation.
        id: AdaptationId,
    },
    /// A proposal without a new XPath: the store is damaged.
    #[error("proposal {id} has no new XPath")]
    NoNewXPath {
        /// The adaptation.
        id: AdaptationId,
    },
    /// The store names a pattern that is not a path of names.
    #[error("the store names the pattern {pattern:?}, which is not a pattern path")]
    BadPatternPath {
        /// The pattern as stored.
        pattern: String,
    },
    /// The wrapper file could not be read.
    #[error("cannot read {}: {error}", file.display())]
    Read {
        /// The wrapper file.
        file: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// The wrapper as rewritten does not load; [`ReviewError::diagnostics`]
    /// says why.
    #[error("the rewritten wrapper does not load")]
    RewrittenDoesNotLoad {
        /// The loader's diagnostics, rendered.
        diagnostics: String,
    },
    /// The rewrite did not pass its own verification: a bug in mend.
    #[error(transparent)]
    Verification(RewriteError),
    /// The wrapper's lock, the journal of changes or the tree-gram files
    /// failed.
    #[error(transparent)]
    Runtime(Box<RuntimeError>),
    /// The change was not made: nothing is decided and the files are as
    /// they were.
    #[error(fmt = not_made)]
    NotMade {
        /// Why.
        error: Box<RuntimeError>,
        /// The wrapper file.
        file: PathBuf,
        /// What was asked.
        action: Action,
    },
    /// Rejecting an adaptation in the wrapper: it was reverted (the files
    /// are changed), but the rejection could not be recorded.
    #[error("{error}")]
    RevertedNotRejected {
        /// The revert that was made.
        reverted: Box<Reverted>,
        /// Why the rejection was not recorded.
        error: StoreError,
    },
}

/// A pattern whose XPath in the wrapper file is not the one a decision
/// expects.
#[derive(Debug)]
pub struct Changed {
    /// The wrapper file.
    pub file: PathBuf,
    /// The adaptation.
    pub id: AdaptationId,
    /// The pattern's path of names.
    pub pattern: String,
    /// The pattern's XPath in the file now.
    pub current: String,
    /// The adaptation's new XPath.
    pub new: String,
    /// The XPath the adaptation replaced.
    pub old: String,
}

impl From<RuntimeError> for ReviewError {
    fn from(error: RuntimeError) -> ReviewError {
        ReviewError::Runtime(Box::new(error))
    }
}

impl ReviewError {
    /// Whether the refusal is in what the person asked for, which they can
    /// act on (exit 2), rather than a failure of the files, the store or
    /// mend (exit 3).
    pub fn is_bad_input(&self) -> bool {
        match self {
            ReviewError::Store(e) | ReviewError::RevertedNotRejected { error: e, .. } => {
                e.is_not_a_store()
            }
            ReviewError::NoRun { .. }
            | ReviewError::NoNewXPath { .. }
            | ReviewError::BadPatternPath { .. }
            | ReviewError::Read { .. }
            | ReviewError::RewrittenDoesNotLoad { .. }
            | ReviewError::Verification(_)
            | ReviewError::Runtime(_)
            | ReviewError::NotMade { .. } => false,
            _ => true,
        }
    }

    /// The wrapper loader's diagnostics, rendered, for an error about a
    /// wrapper that does not load: what to show before the error itself.
    pub fn diagnostics(&self) -> Option<&str> {
        match self {
            ReviewError::DoesNotLoad { diagnostics, .. }
            | ReviewError::RewrittenDoesNotLoad { diagnostics } => Some(diagnostics),
            _ => None,
        }
    }

    /// An error of the format-preserving rewrite of `file`: a failed
    /// verification is mend's; any other refusal is in the file.
    pub(super) fn rewrite(file: &std::path::Path, error: RewriteError) -> ReviewError {
        match error {
            RewriteError::Verification { .. } => ReviewError::Verification(error),
            error => ReviewError::Rewrite {
                file: file.to_owned(),
                error,
            },
        }
    }
}

fn unknown_adaptation(
    id: &AdaptationId,
    store: &std::path::Path,
    newest: &Option<AdaptationId>,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    match newest {
        Some(newest) => write!(
            f,
            "no adaptation {id} in the store {} (its newest is {newest}); an id printed by a run \
             that used another store needs --store PATH",
            store.display()
        ),
        None => write!(
            f,
            "no adaptation {id} in the store {}: it holds none; an id printed by a run that used \
             another store needs --store PATH",
            store.display()
        ),
    }
}

fn refused_by_run(
    id: &AdaptationId,
    reason: &Option<String>,
    action: &Action,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    let why = reason
        .as_deref()
        .map(|r| format!(" ({r})"))
        .unwrap_or_default();
    match action {
        Action::Approve => write!(
            f,
            "adaptation {id} was refused by the run{why}, so it cannot be approved"
        ),
        Action::Reject | Action::Revert => write!(
            f,
            "adaptation {id} was already refused by the run{why}: its XPath was never used"
        ),
    }
}

fn not_made(
    error: &RuntimeError,
    file: &std::path::Path,
    action: &Action,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    let what = match action {
        Action::Approve => "the approval is not recorded",
        Action::Reject => "nothing is rejected",
        Action::Revert => "nothing is reverted",
    };
    write!(f, "{error}; {what} and {} is as it was", file.display())
}
