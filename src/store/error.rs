//! Why a store operation failed.
//!
//! ## What it refuses
//!
//! The variants name what the store refuses to record, too: a second
//! decision, a score that is not finite, an applied or proposed adaptation
//! without a new XPath, a number beyond SQLite's signed 64-bit integers.
//! An empty, damaged, foreign or too new file is
//! [`StoreError::is_not_a_store`]: a wrong path, not a failure of the store.
//! [`StoreError::is_read_only`] holds only for SQLite's read-only and
//! cannot-open codes, at opening or in a query.

use std::path::PathBuf;

use super::{AdaptationId, AdaptationStatus, PageId, RunId, Verdict};

/// Why the store could not be opened, read or written.
///
/// Every failure of the database file itself (damaged, foreign, too new) is
/// one of these, never a panic: the store is read by commands that a person
/// runs on whatever file happens to sit at `.mend/mend.db`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The folder that should hold the database could not be created.
    #[error("{path}: cannot create the store's folder: {source}")]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// SQLite could not open or set up the database file.
    #[error("{path}: cannot open the store: {source}")]
    Open {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        source: rusqlite::Error,
    },
    /// The file is not an SQLite database, or it is damaged.
    #[error("{path}: not a mend store (the file is not an SQLite database, or it is damaged)")]
    NotADatabase {
        /// The database file.
        path: PathBuf,
    },
    /// The file is there but empty (0 bytes): whatever emptied it took the
    /// store's history, and a new store in its place would hide that.
    #[error(
        "{path}: the store is empty (0 bytes), so its history is gone; restore it from a \
         backup, or delete the file to start a new store"
    )]
    Empty {
        /// The database file.
        path: PathBuf,
    },
    /// The file is an SQLite database that belongs to another program.
    #[error("{path}: not a mend store (an SQLite database of another program)")]
    Foreign {
        /// The database file.
        path: PathBuf,
    },
    /// The database was written by a newer mend, whose schema this one cannot read.
    #[error(
        "{path}: the store has schema version {found}, but this mend knows versions up to \
         {supported}; use a newer mend, or move the file aside"
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// The schema version found in the file.
        found: i64,
        /// The newest schema version this build knows.
        supported: i64,
    },
    /// A query failed inside SQLite.
    #[error("store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// No run has this id.
    #[error("no run {0} in the store")]
    UnknownRun(RunId),
    /// No page has this id.
    #[error("no page {0} in the store")]
    UnknownPage(PageId),
    /// No adaptation has this id.
    #[error("no adaptation {0} in the store")]
    UnknownAdaptation(AdaptationId),
    /// The adaptation already carries a person's decision.
    #[error("adaptation {id} was already {verdict}")]
    AlreadyDecided {
        /// The adaptation.
        id: AdaptationId,
        /// The decision it carries.
        verdict: Verdict,
    },
    /// This adaptation cannot take this verdict: only proposals can be
    /// approved, and only proposals and applied adaptations rejected.
    #[error(
        "adaptation {id} is {status}: only proposals can be approved, and only proposals and \
         applied adaptations rejected"
    )]
    NotProposed {
        /// The adaptation.
        id: AdaptationId,
        /// Its status.
        status: AdaptationStatus,
    },
    /// A revert asked of an adaptation whose XPath never went into the
    /// wrapper: only applied heals and approved proposals can be reverted.
    #[error(
        "adaptation {id} was neither applied by a run nor approved: its XPath never went into the wrapper"
    )]
    NotInWrapper {
        /// The adaptation.
        id: AdaptationId,
    },
    /// A revert asked of an adaptation reverted already: its XPath is out
    /// of the wrapper, and a second revert would write the old one twice.
    #[error("adaptation {id} was reverted already: its XPath is no longer in the wrapper")]
    AlreadyReverted {
        /// The adaptation.
        id: AdaptationId,
    },
    /// A score to record is NaN or infinite: scores are similarities, and
    /// such a value is a bug upstream that the history should not hide.
    #[error("cannot record {what}: the score is not a finite number")]
    NotFinite {
        /// Which score.
        what: String,
    },
    /// An applied or proposed adaptation to record has no new XPath.
    #[error("cannot record an adaptation of {pattern} that is {status} without a new XPath")]
    MissingXPath {
        /// The pattern's path of names.
        pattern: String,
        /// The adaptation's status.
        status: AdaptationStatus,
    },
    /// Sample values could not be written as JSON.
    #[error("cannot record sample values as JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// A count or size does not fit SQLite's 64-bit signed integers.
    #[error("cannot record {what}: {value} is too large")]
    TooLarge {
        /// Which number.
        what: &'static str,
        /// The number.
        value: u64,
    },
    /// A stored value is not what mend writes: the file was damaged or edited.
    #[error("the store holds a damaged value: {0}")]
    Corrupt(String),
}

impl StoreError {
    /// Whether the file is not a store this mend can use (not an SQLite
    /// database, another program's, or written by a newer mend): a mistake in
    /// the path a person gave, rather than a failure of the store.
    pub fn is_not_a_store(&self) -> bool {
        matches!(
            self,
            StoreError::NotADatabase { .. }
                | StoreError::Empty { .. }
                | StoreError::Foreign { .. }
                | StoreError::TooNew { .. }
        )
    }

    /// Whether SQLite refused to write (or to make the files it writes
    /// beside the store): the file or its folder is read-only to mend.
    pub fn is_read_only(&self) -> bool {
        use rusqlite::ErrorCode;
        let source = match self {
            StoreError::Open { source, .. } | StoreError::Sqlite(source) => source,
            _ => return false,
        };
        matches!(
            source.sqlite_error_code(),
            Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen)
        )
    }
}
