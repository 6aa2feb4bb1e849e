//! What can go wrong around a run: the files and the store.
//!
//! It does not fold a fault in what the user gave (a tree-gram or template
//! mend will not read, a wrapper outside its folder or that does not load, a
//! file that is not a mend store) together with a failure of the files or the
//! store: `RuntimeError::is_bad_input` keeps them apart, for exit 2 against
//! exit 3. A wrapper file saved by someone else while mend was changing it is
//! never overwritten: `RuntimeError::EditedMeanwhile` keeps their edit and
//! leaves mend's change unwritten.

use std::path::PathBuf;

use crate::store::StoreError;
use crate::wrapper::{PatternPath, RewriteError};

/// A failure of the files or the store around a run. The run goes on
/// without what failed where it can; the caller reports the error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    /// The store could not be opened, read or written.
    #[error("{what}: {error}")]
    Store {
        /// What was being done, in words (`cannot open the store X`).
        what: String,
        /// What the store said.
        error: StoreError,
    },
    /// A file could not be read or written.
    #[error("cannot {action} {}: {error}", path.display())]
    Io {
        /// `read`, `write` or `create`.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// The wrapper file could not be edited to name a tree-gram.
    #[error("cannot name the tree-gram of {pattern} in the wrapper: {error}")]
    Rewrite {
        /// The pattern whose `treegram:` key was being set.
        pattern: PatternPath,
        /// Why the edit was refused.
        error: RewriteError,
    },
    /// A pattern's tree-gram file is not one mend will read: outside the
    /// project directory, not a regular file, or too large.
    #[error("the tree-gram of {pattern} at {}: {why}", path.display())]
    BadTreegram {
        /// The pattern.
        pattern: PatternPath,
        /// The file, as the wrapper names it.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The wrapper's learned unstable-content template is not one mend
    /// will read: not a regular file, too large, or not a template.
    #[error("the unstable-content template at {}: {why}", path.display())]
    BadTemplate {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// Someone saved the wrapper file after mend read it under its lock
    /// and before mend wrote its change: their edit is kept, and mend's
    /// change is not written (its heals stay proposals).
    #[error(
        "{} was edited while mend was changing it: your edit is kept, and mend's change was not written (its heals are proposals; run again, or see mend log --pending)",
        path.display()
    )]
    EditedMeanwhile {
        /// The wrapper file.
        path: PathBuf,
    },
    /// The wrapper path is a link to a file outside its own folder, where
    /// mend will not make its lock and temporary files.
    #[error(
        "{} leads to {}, outside the wrapper's folder; mend changes wrapper files only inside it (copy the wrapper in, or name the file itself)",
        path.display(),
        resolved.display()
    )]
    OutsideProject {
        /// The path given.
        path: PathBuf,
        /// Where it leads.
        resolved: PathBuf,
    },
    /// The wrapper file does not load.
    #[error("cannot load {}: {message}", path.display())]
    Load {
        /// The wrapper file.
        path: PathBuf,
        /// The loader's diagnostics, rendered.
        message: String,
    },
}

impl RuntimeError {
    /// Whether the error is in what the user gave (exit 2) rather than a
    /// failure of the files or the store (exit 3).
    pub fn is_bad_input(&self) -> bool {
        match self {
            RuntimeError::BadTreegram { .. }
            | RuntimeError::BadTemplate { .. }
            | RuntimeError::OutsideProject { .. }
            | RuntimeError::Load { .. } => true,
            // A file that is not a mend store (damaged, emptied, another
            // program's) is the user's to fix, as in every review command.
            RuntimeError::Store { error, .. } => error.is_not_a_store(),
            _ => false,
        }
    }

    /// A store error, with what was being done.
    pub(crate) fn store(what: impl Into<String>, error: StoreError) -> RuntimeError {
        RuntimeError::Store {
            what: what.into(),
            error,
        }
    }
}
