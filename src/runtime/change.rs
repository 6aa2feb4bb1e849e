//! The wrapper-change protocol: the one way mend changes a wrapper file and
//! the tree-gram files that go with it.
//!
//! A change is made in six steps, by whichever command makes it (a run
//! healing in `auto` mode, `mend approve`, `mend snapshot`):
//!
//! 1. take the wrapper's lock ([`WrapperLock`]), and [`reconcile`] any change
//!    an earlier process left unfinished;
//! 2. read the files again under the lock and compute the new contents from
//!    what they hold now (a run merges its heals into a file that another
//!    process changed, or refuses the heals whose pattern moved under it);
//! 3. record the change in the store as pending, with every file's content
//!    before and after, in the same transaction as what it decides (the
//!    adaptations it applies, the approval it writes);
//! 4. write each file to a temporary file created exclusively, sync it, and
//!    rename it over the old one ([`carry_out`]); the wrapper file, last,
//!    only over the content read in step 2 (`project::replace_if_unchanged`):
//!    a person's editor takes no lock, so a save that lands after the read
//!    is kept and the change is rolled back. The command then reads the
//!    file as saved and makes its change again where it still applies
//!    cleanly (the pattern still has the XPath it expects), up to
//!    [`MAX_SAVES_MEANWHILE`] times: `mend approve` and `mend revert` (and
//!    the review page's buttons) refuse a decision that no longer applies
//!    as changed, and a run leaves such a heal a proposal, saying why; a
//!    command that meets a save every time fails with
//!    `RuntimeError::EditedMeanwhile` (exit 3);
//! 5. sync the folders, so the renames themselves are on disk;
//! 6. mark the change done.
//!
//! A process killed anywhere in between leaves a pending change, which the
//! next command to take the lock reconciles from the wrapper file: if the
//! file holds the new content, the change is rolled forward (the other files
//! get their new content, and it is marked done); if it holds the old
//! content, it is rolled back (the other files get their old content back,
//! and what it decided is undone: applied adaptations become proposals, an
//! approval is withdrawn). If someone edited the file meanwhile, each
//! adaptation stays applied exactly when the file holds its XPath. So the
//! store never says "applied" of an XPath the wrapper file does not hold,
//! whatever is killed, full or read-only. A failure to write (a full disk, a
//! read-only folder) is rolled back at once, in the same way.

use std::path::{Path, PathBuf};

use super::clock::now;
use super::lock::remove_stale_temp_files;
use super::{
    Replaced, RuntimeError, WrapperLock, replace_if_unchanged, stage_files, write_bytes_atomically,
};
use crate::store::{
    AdaptationId, Batch, ChangeId, ChangeKind, ChangeRecord, ChangeState, FileChange, Store,
    StoreError,
};
use crate::wrapper::{self, PatternPath};

/// How many times in a row a change (a run's heals, an approval, a revert)
/// is made again from the wrapper file as a person saved it meanwhile,
/// before the command fails.
/// Each time the file is read again under the lock, and the decision is
/// made again only where it still applies cleanly.
pub const MAX_SAVES_MEANWHILE: u32 = 3;

/// What became of a pending change that was reconciled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reconciled {
    /// The change.
    pub change: ChangeId,
    /// The wrapper file it changed.
    pub wrapper: PathBuf,
    /// Done (rolled forward) or rolled back.
    pub state: ChangeState,
    /// The adaptations whose application or approval was undone.
    pub undone: Vec<AdaptationId>,
}

/// The file's content now, or `None` if it does not exist; what a change
/// records as a file's content before.
pub fn read_current(path: &Path) -> Result<Option<Vec<u8>>, RuntimeError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(RuntimeError::Io {
            action: "read",
            path: path.to_owned(),
            error,
        }),
    }
}

/// Writes the files of change `id` (recorded as pending, under `lock`),
/// the wrapper file last, syncs their folders and marks the change done.
///
/// When a file cannot be written, the ones written are put back and the
/// change is rolled back in the store, and the error is given: nothing the
/// change decided stands. When even that fails, the change stays pending for
/// the next command to reconcile. When the files are written but the store
/// cannot mark the change done, the change stands (the next command rolls it
/// forward) and the store's error is given as [`Carried::Unmarked`].
pub fn carry_out(
    store: &mut Store,
    lock: &WrapperLock,
    id: ChangeId,
    files: &[FileChange],
) -> Result<Carried, RuntimeError> {
    // Every file but the wrapper is staged and synced first, then renamed
    // into place; the wrapper goes in last, so that readers see the change
    // only once everything it names is there.
    let (others, wrapper): (Vec<&FileChange>, Vec<&FileChange>) =
        files.iter().partition(|f| f.path != lock.wrapper());
    let written = stage_files(
        others
            .iter()
            .map(|f| (f.path.as_path(), f.after.as_slice())),
    )
    .map_err(|e| (0, e))
    .and_then(|staged| staged.persist());
    if let Err((done, e)) = written {
        return Err(roll_back(store, id, &others[..done], e));
    }
    // The wrapper file goes in only over what was read under the lock: a
    // person's editor takes no lock, and their save wins.
    for f in &wrapper {
        let replaced = match replace_if_unchanged(&f.path, &f.after, f.before.as_deref()) {
            Ok(Replaced::Done) => Ok(()),
            Ok(Replaced::EditedMeanwhile) => Err(RuntimeError::EditedMeanwhile {
                path: f.path.clone(),
            }),
            Err(e) => Err(e),
        };
        if let Err(e) = replaced {
            return Err(roll_back(store, id, &others, e));
        }
    }
    sync_folders(files)?;
    match store.finish_change(id, now()) {
        Ok(()) => Ok(Carried::Done),
        Err(e) => Ok(Carried::Unmarked(RuntimeError::store(
            "the files are written, but the change could not be marked done (the next run \
             completes it)",
            e,
        ))),
    }
}

/// Records a change of `kind` to the files under `lock` as pending, with
/// what `decide` records in the same transaction (given the change's id),
/// then [`carry_out`]s it. Nothing is written when recording fails.
pub fn make_change<T>(
    store: &mut Store,
    lock: &WrapperLock,
    kind: ChangeKind,
    files: &[FileChange],
    decide: impl FnOnce(&mut Batch<'_>, ChangeId) -> Result<T, StoreError>,
) -> Result<(T, Carried), RuntimeError> {
    let failed = |e| RuntimeError::store("cannot record the change to the wrapper", e);
    let mut batch = store.batch().map_err(failed)?;
    let id = batch
        .begin_change(lock.wrapper(), kind, files, now())
        .map_err(failed)?;
    let decided = decide(&mut batch, id).map_err(failed)?;
    batch.commit().map_err(failed)?;
    let carried = carry_out(store, lock, id, files)?;
    Ok((decided, carried))
}

/// What [`carry_out`] achieved, its files being written.
#[derive(Debug)]
#[must_use]
pub enum Carried {
    /// The change is done.
    Done,
    /// The files are written; the store could not mark the change done.
    Unmarked(RuntimeError),
}

/// Reconciles the pending changes of the wrapper whose lock is held, oldest
/// first, and removes temporary files that killed writes left behind.
pub fn reconcile(store: &mut Store, lock: &WrapperLock) -> Result<Vec<Reconciled>, RuntimeError> {
    remove_stale_temp_files(lock.wrapper());
    let pending = store
        .pending_changes(Some(lock.wrapper()))
        .map_err(|e| RuntimeError::store("cannot read the journal of wrapper changes", e))?;
    pending.into_iter().map(|c| settle(store, c)).collect()
}

/// Reconciles every pending change in the store, each under its wrapper's
/// lock; what review commands do before they read the history.
pub fn reconcile_all(store: &mut Store) -> Result<Vec<Reconciled>, RuntimeError> {
    let pending = store
        .pending_changes(None)
        .map_err(|e| RuntimeError::store("cannot read the journal of wrapper changes", e))?;
    let mut wrappers: Vec<PathBuf> = pending.into_iter().map(|c| c.wrapper_path).collect();
    wrappers.dedup();
    let mut out = Vec::new();
    for wrapper in wrappers {
        if wrapper.exists() {
            let lock = WrapperLock::acquire(&wrapper)?;
            out.extend(reconcile(store, &lock)?);
        } else {
            // A wrapper that is gone holds no XPath; nobody can be writing
            // it, as a change needs the file to take its lock.
            let pending = store
                .pending_changes(Some(&wrapper))
                .map_err(|e| RuntimeError::store("cannot read the journal", e))?;
            for c in pending {
                out.push(settle(store, c)?);
            }
        }
    }
    Ok(out)
}

/// Decides which way one pending change goes, from the wrapper file.
fn settle(store: &mut Store, change: ChangeRecord) -> Result<Reconciled, RuntimeError> {
    for f in &change.files {
        remove_stale_temp_files(&f.path);
    }
    let current = read_current(&change.wrapper_path)?;
    let wrapper_file = change.files.iter().find(|f| f.path == change.wrapper_path);
    let store_error = |e| RuntimeError::store("cannot settle an unfinished wrapper change", e);
    let all: Vec<AdaptationId> = change.effects.iter().map(|e| e.adaptation).collect();
    let (state, undone, why) = match wrapper_file {
        Some(w) if current.as_deref() == Some(w.after.as_slice()) => {
            for f in change
                .files
                .iter()
                .filter(|f| f.path != change.wrapper_path)
            {
                if read_current(&f.path)?.as_deref() != Some(f.after.as_slice()) {
                    write_bytes_atomically(&f.path, &f.after)?;
                }
            }
            sync_folders(&change.files)?;
            (ChangeState::Done, Vec::new(), None)
        }
        Some(w) if current == w.before => {
            for f in change
                .files
                .iter()
                .filter(|f| f.path != change.wrapper_path)
            {
                if read_current(&f.path)? != f.before {
                    restore(f)?;
                }
            }
            sync_folders(&change.files)?;
            let why = "the process that made the change stopped before the wrapper file was \
                       written";
            (ChangeState::RolledBack, all, Some(why))
        }
        _ => {
            // Edited by other hands since: each adaptation stands exactly
            // when the file holds its XPath; the files are left as they are.
            let text = current.map(|b| String::from_utf8_lossy(&b).into_owned());
            let loaded = text.as_deref().and_then(|t| {
                wrapper::load_str(t, &change.wrapper_path.display().to_string()).ok()
            });
            let undone: Vec<AdaptationId> = change
                .effects
                .iter()
                .filter(|e| {
                    let holds = loaded.as_ref().is_some_and(|w| {
                        e.pattern
                            .parse::<PatternPath>()
                            .ok()
                            .and_then(|p| w.pattern(&p).map(|p| p.xpath.source() == e.new_xpath))
                            .unwrap_or(false)
                    });
                    !holds
                })
                .map(|e| e.adaptation)
                .collect();
            let state = if undone.is_empty() {
                ChangeState::Done
            } else {
                ChangeState::RolledBack
            };
            let why = "the wrapper file was edited elsewhere before the change was completed, \
                       and does not hold this XPath";
            (state, undone, Some(why))
        }
    };
    match (state, why) {
        (ChangeState::Done, None) => store.finish_change(change.id, now()).map_err(store_error)?,
        (state, why) => store
            .settle_change(change.id, state, &undone, why.unwrap_or_default(), now())
            .map_err(store_error)?,
    }
    tracing::info!(change = %change.id, state = state.as_str(), undone = undone.len(), "reconciled an unfinished wrapper change");
    Ok(Reconciled {
        change: change.id,
        wrapper: change.wrapper_path,
        state,
        undone,
    })
}

/// Puts a file back as it was before a change: its old content, or no file.
fn restore(f: &FileChange) -> Result<(), RuntimeError> {
    match &f.before {
        Some(before) => write_bytes_atomically(&f.path, before),
        None => match std::fs::remove_file(&f.path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(RuntimeError::Io {
                action: "remove",
                path: f.path.clone(),
                error,
            }),
        },
    }
}

/// Puts back the files of change `id` already written (`written`) after
/// `e` stopped it, and marks the change rolled back when all of them went
/// back; gives `e`.
fn roll_back(
    store: &mut Store,
    id: ChangeId,
    written: &[&FileChange],
    e: RuntimeError,
) -> RuntimeError {
    let put_back = written.iter().all(|f| restore(f).is_ok());
    if put_back {
        let why = match &e {
            RuntimeError::EditedMeanwhile { .. } => {
                "the wrapper file was edited meanwhile; the edit is kept".to_owned()
            }
            e => format!("the wrapper file could not be written ({e})"),
        };
        let undo = effects(store, id);
        if let Err(s) = store.settle_change(id, ChangeState::RolledBack, &undo, &why, now()) {
            tracing::warn!(change = %id, error = %s, "change left pending");
        }
    }
    e
}

/// The ids of what change `id` decided, for undoing; none when the store
/// cannot say (the change then stays pending, and is reconciled later).
fn effects(store: &Store, id: ChangeId) -> Vec<AdaptationId> {
    match store.change(id) {
        Ok(Some(c)) => c.effects.iter().map(|e| e.adaptation).collect(),
        _ => Vec::new(),
    }
}

/// Syncs each folder that holds one of `files`, so that their renames are
/// on disk before the change is marked done.
fn sync_folders(files: &[FileChange]) -> Result<(), RuntimeError> {
    let mut folders: Vec<&Path> = files.iter().filter_map(|f| f.path.parent()).collect();
    folders.sort();
    folders.dedup();
    for dir in folders {
        // A folder that does not exist holds no file to sync: a change that
        // created it was rolled back.
        #[cfg(unix)]
        match std::fs::File::open(dir).and_then(|d| d.sync_all()) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(RuntimeError::Io {
                    action: "sync",
                    path: dir.to_owned(),
                    error,
                });
            }
        }
        #[cfg(not(unix))]
        let _ = dir;
    }
    Ok(())
}
