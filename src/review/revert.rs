//! Reverting: an applied heal or an approved proposal taken back out of
//! the wrapper file.
//!
//! The pattern's XPath is set back to the adaptation's old XPath with the
//! format-preserving rewrite. The reverted XPath does not go to the
//! pattern's `history`, and leaves it if it was there: the history is the
//! fallback chain, and an XPath a person took out must not serve pages
//! silently. The pattern's tree-gram file, when the writing change
//! refreshed it, is put back as it was, when nothing touched it since; the
//! files of other patterns that the same change wrote stay, as their XPaths
//! stay healed. It is one change of the wrapper-change protocol: locked,
//! journaled, and a revert whose files never reached the disk is no revert.
//! The adaptation's verdict stays as it was; rejecting ([`super::reject()`])
//! reverts and also refuses the XPath for good.

use std::path::{Path, PathBuf};

use super::{
    Action, Changed, DecisionOptions, ReviewError, adaptation, change, current_xpath, wrapper_of,
};
use crate::runtime::Project;
use crate::runtime::{self, RuntimeError};
use crate::store::{
    AdaptationId, AdaptationRecord, AdaptationStatus, ChangeKind, FileChange, State, Store, Verdict,
};
use crate::wrapper::{PatternPath, Wrapper, take_back_xpath};

/// What a revert did.
#[derive(Debug)]
pub struct Reverted {
    /// The adaptation, as it was read before the revert.
    pub record: AdaptationRecord,
    /// The wrapper file.
    pub file: PathBuf,
    /// The XPath taken out of the wrapper (it stays in the pattern's
    /// history); the pattern has the record's old XPath again.
    pub new_xpath: String,
    /// The tree-gram files the writing change refreshed that are left as
    /// they are, being new since or changed since.
    pub left_alone: Vec<PathBuf>,
    /// The files are written, but the change could not be marked done in
    /// the store (the next command completes it).
    pub unmarked: Option<RuntimeError>,
}

/// Reverts adaptation `id` of `store` (opened from `store_path`), as of
/// `options.now`: puts the pattern's old XPath back in the wrapper file the
/// run used (or `options.wrapper`). Only an applied heal or an approved
/// proposal, not reverted since, is in the wrapper to revert; and only if
/// the pattern still has the adaptation's XPath, unless `options.force`.
pub fn revert(
    store: &mut Store,
    store_path: &Path,
    id: AdaptationId,
    options: &DecisionOptions<'_>,
) -> Result<Reverted, ReviewError> {
    let record = adaptation(store, store_path, id)?;
    if !in_wrapper(store, &record)? {
        let state = match record.state {
            State::Reverted => "reverted already".to_owned(),
            other => other.to_string(),
        };
        return Err(ReviewError::NotInWrapper { id, state });
    }
    let file = wrapper_of(store, &record, store_path, options.wrapper)?;
    take_out(store, store_path, record, file, options)
}

/// Whether `record`'s XPath went into the wrapper: applied by a run, or
/// approved by a person (and not reverted since).
pub fn in_wrapper(store: &Store, record: &AdaptationRecord) -> Result<bool, ReviewError> {
    let approved = record
        .decision
        .as_ref()
        .is_some_and(|d| d.verdict == Verdict::Approved);
    let written = record.status == AdaptationStatus::Applied || approved;
    Ok(written && store.reverts(record.id)?.is_empty())
}

/// Takes `record`'s XPath back out of the wrapper file `file` (see the
/// module documentation).
pub(super) fn take_out(
    store: &mut Store,
    store_path: &Path,
    record: AdaptationRecord,
    file: PathBuf,
    options: &DecisionOptions<'_>,
) -> Result<Reverted, ReviewError> {
    let id = record.id;
    let Some(new) = record.new_xpath.clone() else {
        return Err(ReviewError::NoXPathToRevert { id });
    };
    let lock = change::lock(store, &file)?;
    // Read again under the lock: another revert may have won the race.
    let record = adaptation(store, store_path, id)?;
    if !in_wrapper(store, &record)? {
        return Err(ReviewError::NoLongerInWrapper { id });
    }
    // A person's save between the read and the rename is kept, and the
    // revert made again from the file as saved where it still applies (see
    // approve).
    let mut saves = 0;
    let (made, left_alone) = loop {
        let (text, wrapper) = change::read(&file, Action::Revert)?;
        let current = current_xpath(&wrapper, &record, &file)?;
        if current != new && current != record.old_xpath && !options.force {
            return Err(ReviewError::ChangedSinceWritten(Box::new(Changed {
                file,
                id,
                pattern: record.pattern.clone(),
                current: current.to_owned(),
                new,
                old: record.old_xpath.clone(),
            })));
        }
        let edited = if current == record.old_xpath {
            text.clone()
        } else {
            let names: Vec<&str> = record.pattern.split('/').collect();
            take_back_xpath(&text, &names, &record.old_xpath)
                .map_err(|e| ReviewError::rewrite(&file, e))?
        };
        let own = own_treegram(&wrapper, &record.pattern, lock.wrapper());
        let (mut files, left_alone) = treegrams_back(store, id, lock.wrapper(), own.as_deref())?;
        files.push(FileChange {
            path: lock.wrapper().to_owned(),
            before: Some(text.into_bytes()),
            after: edited.into_bytes(),
        });
        let made =
            runtime::make_change(store, &lock, ChangeKind::Revert, &files, |batch, change| {
                batch.revert_in_change(id, options.reason, options.now, change)
            });
        match made {
            Err(RuntimeError::EditedMeanwhile { .. }) if saves < runtime::MAX_SAVES_MEANWHILE => {
                saves += 1;
            }
            made => break (made, left_alone),
        }
    };
    let ((), unmarked) = change::made(made, &file, Action::Revert)?;
    Ok(Reverted {
        record,
        file,
        new_xpath: new,
        left_alone,
        unmarked,
    })
}

/// The tree-gram file of the pattern `pattern` (a path of names) of
/// `wrapper` (read from `wrapper_path`), canonical where it exists. Only
/// its own: the patterns under it have heals (and reverts) of their own.
fn own_treegram(wrapper: &Wrapper, pattern: &str, wrapper_path: &Path) -> Option<PathBuf> {
    let path: PatternPath = pattern.parse().ok()?;
    let p = wrapper.pattern(&path)?;
    let project = Project::of(wrapper_path);
    Some(canonical(&project.treegram_path(wrapper, &path, p)))
}

/// `path` canonical, or as it is when it cannot be (it does not exist).
fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_owned())
}

/// The tree-gram `own` when the change which wrote adaptation `id`
/// refreshed it, put back to what it was when it still holds what that
/// change wrote, or else left as it is.
fn treegrams_back(
    store: &Store,
    id: AdaptationId,
    wrapper: &Path,
    own: Option<&Path>,
) -> Result<(Vec<FileChange>, Vec<PathBuf>), ReviewError> {
    let (mut back, mut left_alone) = (Vec::new(), Vec::new());
    let writing = store.writing_change(id)?;
    let Some(change) = writing.and_then(|c| store.change(c).ok().flatten()) else {
        return Ok((back, left_alone));
    };
    for f in change.files {
        // The wrapper is rewritten above; another pattern's tree-gram goes
        // with that pattern's own heal.
        if f.path == wrapper || own != Some(canonical(&f.path).as_path()) {
            continue;
        }
        match (&f.before, std::fs::read(&f.path)) {
            (Some(before), Ok(now)) if now == f.after => back.push(FileChange {
                path: f.path.clone(),
                before: Some(now),
                after: before.clone(),
            }),
            _ => left_alone.push(f.path),
        }
    }
    Ok((back, left_alone))
}
