//! What `mend revert` and `mend reject` share: taking an applied heal or an
//! approved proposal back out of the wrapper file.
//!
//! The pattern's XPath is set back to the adaptation's old XPath with the
//! format-preserving rewrite (so the reverted XPath goes to the pattern's
//! `history`, and the old one leaves it), and each tree-gram file that the
//! writing change refreshed is put back as it was, when nothing touched it
//! since. It is one change of the wrapper-change protocol: locked,
//! journaled, and a revert whose files never reached the disk is no revert.

use std::path::Path;
use std::process::ExitCode;

use mend::runtime::{self, Carried, RuntimeError, WrapperLock};
use mend::store::{AdaptationRecord, AdaptationStatus, ChangeKind, FileChange, Store, StoreError};
use mend::wrapper::{RewriteError, replace_xpath};

use super::review;

/// Whether `record`'s XPath went into the wrapper: applied by a run, or
/// approved by a person (and not reverted since).
pub fn in_wrapper(store: &Store, record: &AdaptationRecord) -> Result<bool, ExitCode> {
    let approved = record
        .decision
        .as_ref()
        .is_some_and(|d| d.verdict == mend::store::Verdict::Approved);
    let written = record.status == AdaptationStatus::Applied || approved;
    let reverted = !store
        .reverts(record.id)
        .map_err(|e| review::store_failure(&e))?
        .is_empty();
    Ok(written && !reverted)
}

/// Takes `record`'s XPath back out of the wrapper file `file` (see the
/// module documentation). Refuses, unless `force`, when the pattern no
/// longer has the adaptation's XPath.
pub fn revert(
    store: &mut Store,
    store_path: &Path,
    record: &AdaptationRecord,
    file: &Path,
    reason: Option<&str>,
    force: bool,
) -> Result<(), ExitCode> {
    let Some(new) = record.new_xpath.as_deref() else {
        return Err(review::bad_input(format!(
            "adaptation {} has no XPath to revert",
            record.id
        )));
    };
    let lock = WrapperLock::acquire(file).map_err(review::failure)?;
    runtime::reconcile(store, &lock).map_err(review::failure)?;
    // Read again under the lock: another revert may have won the race.
    let record = review::adaptation(store, store_path, record.id)?;
    if !in_wrapper(store, &record)? {
        return Err(review::bad_input(format!(
            "adaptation {} is not in the wrapper (it was reverted already, or never applied \
             nor approved)",
            record.id
        )));
    }
    let text = std::fs::read_to_string(file)
        .map_err(|e| review::failure(format!("cannot read {}: {e}", file.display())))?;
    let wrapper = review::load_wrapper_text(&text, file).map_err(|d| {
        say_raw!("{d}");
        review::bad_input(format!(
            "{} does not load; fix it before reverting",
            file.display()
        ))
    })?;
    let current = review::current_xpath(&wrapper, &record, file)?;
    if current != new && current != record.old_xpath && !force {
        return Err(review::bad_input(format!(
            "{} has changed since adaptation {}: the XPath of {} is now\n  {current}\nnot the \
             adaptation's XPath\n  {new}\npass --force to put back\n  {}\nanyway",
            file.display(),
            record.id,
            record.pattern,
            record.old_xpath
        )));
    }
    let names: Vec<&str> = record.pattern.split('/').collect();
    let edited = if current == record.old_xpath {
        text.clone()
    } else {
        replace_xpath(&text, &names, &record.old_xpath).map_err(|e| match e {
            RewriteError::Verification { .. } => review::failure(&e),
            _ => review::bad_input(format!("{}: {e}", file.display())),
        })?
    };
    // The tree-grams the writing change refreshed go back to what they were,
    // when they still hold what that change wrote.
    let mut files = Vec::new();
    let writing = store
        .writing_change(record.id)
        .map_err(|e| review::store_failure(&e))?;
    if let Some(change) = writing.and_then(|c| store.change(c).ok().flatten()) {
        for f in change.files {
            if f.path == lock.wrapper() {
                continue;
            }
            match (&f.before, std::fs::read(&f.path)) {
                (Some(before), Ok(now)) if now == f.after => files.push(FileChange {
                    path: f.path.clone(),
                    before: Some(now),
                    after: before.clone(),
                }),
                _ => say!(
                    "note: {} is left as it is (it is new since, or changed since)",
                    f.path.display()
                ),
            }
        }
    }
    files.push(FileChange {
        path: lock.wrapper().to_owned(),
        before: Some(text.into_bytes()),
        after: edited.into_bytes(),
    });
    let id = record.id;
    let made = runtime::make_change(store, &lock, ChangeKind::Revert, &files, |batch, change| {
        batch.revert_in_change(id, reason, review::now(), change)
    });
    match made {
        Ok((_, Carried::Done)) => {}
        Ok((_, Carried::Unmarked(e))) => say!("warning: {e}"),
        Err(RuntimeError::Store {
            error: e @ StoreError::NotInWrapper { .. },
            ..
        }) => return Err(review::bad_input(e)),
        Err(e) => {
            return Err(review::failure(format!(
                "{e}; nothing is reverted and {} is as it was",
                file.display()
            )));
        }
    }
    out!(
        "reverted adaptation {} of {} in {}: {} has\n  xpath: {}\nagain ({} is kept in the \
         pattern's history)",
        record.id,
        record.pattern,
        record.wrapper,
        file.display(),
        record.old_xpath,
        new
    );
    Ok(())
}
