//! The journal of changes to wrapper files.
//!
//! A change to a wrapper file (and the tree-gram files that go with it) is
//! recorded here as `pending`, with every file's content before and after,
//! in the same transaction as what the change decides: a run's applied
//! adaptations, or a person's approval, point at the change. Only then are
//! the files written; the change is marked `done` once they are on disk, or
//! `rolled_back` when they could not be written, in which case what it
//! decided is undone: an applied adaptation becomes a proposal again (with
//! the reason), an approval is withdrawn. A change found `pending` later
//! belongs to a process that died in between; `runtime::change` reconciles
//! it from the files' contents.
//!
//! The store only keeps the journal. It refuses to touch files: writing them
//! and deciding which way a pending change goes is the runtime's job.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use super::{AdaptationId, Batch, ChangeId, Store, StoreError, Timestamp, Verdict, snapshot};

/// What kind of command changed the wrapper file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// `mend run --heal auto` applied heals.
    Heal,
    /// `mend approve` wrote a proposal's XPath.
    Approve,
    /// `mend snapshot` wrote tree-grams and named them in the wrapper.
    Snapshot,
    /// A revert put an earlier XPath back.
    Revert,
    /// `mend snapshot --harden` replaced XPaths with robust ones.
    Harden,
}

impl ChangeKind {
    /// The word the store keeps.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Heal => "heal",
            ChangeKind::Approve => "approve",
            ChangeKind::Snapshot => "snapshot",
            ChangeKind::Revert => "revert",
            ChangeKind::Harden => "harden",
        }
    }

    fn parse(word: &str) -> Option<ChangeKind> {
        [
            ChangeKind::Heal,
            ChangeKind::Approve,
            ChangeKind::Snapshot,
            ChangeKind::Revert,
            ChangeKind::Harden,
        ]
        .into_iter()
        .find(|k| k.as_str() == word)
    }
}

/// Where a change stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeState {
    /// Recorded; its files may or may not be written yet.
    Pending,
    /// Its files are on disk.
    Done,
    /// Its files were not written (or were put back), and what it decided
    /// was undone.
    RolledBack,
}

impl ChangeState {
    /// The word the store keeps.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeState::Pending => "pending",
            ChangeState::Done => "done",
            ChangeState::RolledBack => "rolled_back",
        }
    }

    fn parse(word: &str) -> Option<ChangeState> {
        [
            ChangeState::Pending,
            ChangeState::Done,
            ChangeState::RolledBack,
        ]
        .into_iter()
        .find(|k| k.as_str() == word)
    }
}

/// One file of a change: its content before (`None` when it did not exist)
/// and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    /// The file, as an absolute path.
    pub path: PathBuf,
    /// What it held before the change; `None` if it did not exist.
    pub before: Option<Vec<u8>>,
    /// What it holds after the change.
    pub after: Vec<u8>,
}

/// What a change decided in the store: an adaptation it applied, or an
/// approval it wrote. Undoing a change undoes these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeEffect {
    /// The adaptation.
    pub adaptation: AdaptationId,
    /// The pattern's path of names.
    pub pattern: String,
    /// The XPath the change wrote for it.
    pub new_xpath: String,
}

/// A change as the journal keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct ChangeRecord {
    /// Its id.
    pub id: ChangeId,
    /// The wrapper file's canonical path.
    pub wrapper_path: PathBuf,
    /// Which command made it.
    pub kind: ChangeKind,
    /// Where it stands.
    pub state: ChangeState,
    /// When it was recorded.
    pub started_at: Timestamp,
    /// Its files, the wrapper among them.
    pub files: Vec<FileChange>,
    /// What it decided in the store.
    pub effects: Vec<ChangeEffect>,
}

impl Batch<'_> {
    /// Records a change to the wrapper file at `wrapper_path` (canonical) as
    /// pending, with its files, and gives its id. Tie what it decides to it
    /// with [`Batch::apply_in_change`] or [`Batch::approve_in_change`], in
    /// this same batch.
    pub fn begin_change(
        &mut self,
        wrapper_path: &Path,
        kind: ChangeKind,
        files: &[FileChange],
        at: Timestamp,
    ) -> Result<ChangeId, StoreError> {
        self.tx
            .prepare_cached(
                "INSERT INTO wrapper_changes (wrapper_path, kind, state, started_at)
                 VALUES (?1, ?2, 'pending', ?3)",
            )?
            .execute(params![
                path_bytes(wrapper_path),
                kind.as_str(),
                at.unix_millis()
            ])?;
        let id = ChangeId(self.tx.last_insert_rowid());
        for (position, f) in files.iter().enumerate() {
            keep_copies(&self.tx, id, position, f)?;
        }
        Ok(id)
    }

    /// Marks adaptation `adaptation`, recorded as applied in this batch, as
    /// applied by change `change`.
    pub fn apply_in_change(
        &mut self,
        adaptation: AdaptationId,
        change: ChangeId,
    ) -> Result<(), StoreError> {
        let changed = self
            .tx
            .prepare_cached(
                "UPDATE adaptations SET change_id = ?2 WHERE id = ?1 AND status = 'applied'",
            )?
            .execute(params![adaptation.0, change.0])?;
        if changed == 0 {
            return Err(StoreError::Corrupt(format!(
                "adaptation {adaptation} is not an applied adaptation"
            )));
        }
        Ok(())
    }

    /// Records the approval of proposal `id` as written by change `change`;
    /// fails as [`Store::decide`] does.
    pub fn approve_in_change(
        &mut self,
        id: AdaptationId,
        reason: Option<&str>,
        decided_at: Timestamp,
        change: ChangeId,
    ) -> Result<super::Decision, StoreError> {
        let decision = super::decision::decide_in(
            &self.tx,
            id,
            Verdict::Approved,
            reason,
            decided_at,
            self.actor.as_deref(),
        )?;
        self.tx
            .prepare_cached("UPDATE decisions SET change_id = ?2 WHERE adaptation_id = ?1")?
            .execute(params![id.0, change.0])?;
        Ok(decision)
    }
}

impl Store {
    /// The pending changes, oldest first; of the wrapper at `wrapper_path`
    /// (canonical) only, when given.
    pub fn pending_changes(
        &self,
        wrapper_path: Option<&Path>,
    ) -> Result<Vec<ChangeRecord>, StoreError> {
        self.changes_where("state = 'pending'", wrapper_path, "id", None)
    }

    /// Every change of the wrapper at `wrapper_path` (canonical), or of all
    /// wrappers, newest first, at most `limit`: the wrapper's versions.
    pub fn changes(
        &self,
        wrapper_path: Option<&Path>,
        limit: Option<u64>,
    ) -> Result<Vec<ChangeRecord>, StoreError> {
        self.changes_where("1", wrapper_path, "id DESC", limit)
    }

    fn changes_where(
        &self,
        condition: &str,
        wrapper_path: Option<&Path>,
        order: &str,
        limit: Option<u64>,
    ) -> Result<Vec<ChangeRecord>, StoreError> {
        let wanted = wrapper_path.map(path_bytes);
        // SQLite reads a negative limit as no limit at all.
        let limit = limit.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let ids: Vec<i64> = self
            .conn
            .prepare_cached(&format!(
                "SELECT id FROM wrapper_changes
                 WHERE {condition} AND (?1 IS NULL OR wrapper_path = ?1)
                 ORDER BY {order} LIMIT ?2"
            ))?
            .query_map(params![wanted, limit], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        ids.into_iter()
            .map(|id| {
                self.change(ChangeId(id))?
                    .ok_or_else(|| StoreError::Corrupt(format!("change {id} vanished")))
            })
            .collect()
    }

    /// The change `id`, with its files and effects.
    pub fn change(&self, id: ChangeId) -> Result<Option<ChangeRecord>, StoreError> {
        read_change(&self.conn, id)
    }

    /// Marks change `id` done: its files are on disk.
    pub fn finish_change(&mut self, id: ChangeId, at: Timestamp) -> Result<(), StoreError> {
        self.write(|tx| settle(tx, id, ChangeState::Done, &[], None, at))
    }

    /// Ends change `id` in `state`, undoing the effects in `undo`: an applied
    /// adaptation becomes a proposal with `why` as its reason, an approval is
    /// withdrawn. A change rolled back undoes all its effects; one that is
    /// settled after the wrapper file was edited by other hands may keep
    /// those the file still holds.
    pub fn settle_change(
        &mut self,
        id: ChangeId,
        state: ChangeState,
        undo: &[AdaptationId],
        why: &str,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        self.write(|tx| settle(tx, id, state, undo, Some(why), at))
    }
}

fn settle(
    conn: &Connection,
    id: ChangeId,
    state: ChangeState,
    undo: &[AdaptationId],
    why: Option<&str>,
    at: Timestamp,
) -> Result<(), StoreError> {
    let changed = conn
        .prepare_cached(
            "UPDATE wrapper_changes SET state = ?2, ended_at = ?3, note = ?4
             WHERE id = ?1 AND state = 'pending'",
        )?
        .execute(params![id.0, state.as_str(), at.unix_millis(), why])?;
    if changed == 0 {
        return Err(StoreError::Corrupt(format!("change {id} is not pending")));
    }
    // A revert whose change never reached the disk did not happen.
    if state == ChangeState::RolledBack {
        conn.prepare_cached("DELETE FROM reverts WHERE change_id = ?1")?
            .execute([id.0])?;
    }
    let why = why.unwrap_or("the change to the wrapper file was undone");
    for a in undo {
        conn.prepare_cached(
            "UPDATE adaptations SET status = 'proposed',
                 reason = 'not applied: ' || ?3
             WHERE id = ?1 AND change_id = ?2 AND status = 'applied'",
        )?
        .execute(params![a.0, id.0, why])?;
        conn.prepare_cached("DELETE FROM decisions WHERE adaptation_id = ?1 AND change_id = ?2")?
            .execute(params![a.0, id.0])?;
    }
    Ok(())
}

/// Keeps file `f` of change `id` at `position`: its contents by hash in
/// `snapshots`, or inline when one is too large for a snapshot. Gives
/// whether they were kept by hash.
pub(super) fn keep_copies(
    conn: &Connection,
    id: ChangeId,
    position: usize,
    f: &FileChange,
) -> Result<bool, StoreError> {
    let fits = |b: &[u8]| b.len() as u64 <= snapshot::MAX_SNAPSHOT_BYTES;
    if fits(&f.after) && f.before.as_deref().is_none_or(fits) {
        let before = match &f.before {
            Some(b) => Some(snapshot::keep_bytes(conn, b)?),
            None => None,
        };
        let after = snapshot::keep_bytes(conn, &f.after)?;
        conn.prepare_cached(
            "INSERT INTO wrapper_change_copies (change_id, position, path, before, after)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            id.0,
            position as i64,
            path_bytes(&f.path),
            before,
            after
        ])?;
        Ok(true)
    } else {
        conn.prepare_cached(
            "INSERT INTO wrapper_change_files (change_id, position, path, before, after)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            id.0,
            position as i64,
            path_bytes(&f.path),
            f.before,
            f.after
        ])?;
        Ok(false)
    }
}

/// The files of change `id` in their order, from its copies by hash and
/// its inline copies (a change recorded before copies were kept by hash,
/// or a file too large for a snapshot).
pub(super) fn copies_of(conn: &Connection, id: ChangeId) -> Result<Vec<FileChange>, StoreError> {
    let mut files: Vec<(i64, FileChange)> = conn
        .prepare_cached(
            "SELECT position, path, before, after FROM wrapper_change_files WHERE change_id = ?1",
        )?
        .query_map([id.0], |row| {
            Ok((
                row.get(0)?,
                FileChange {
                    path: bytes_path(row.get(1)?),
                    before: row.get(2)?,
                    after: row.get(3)?,
                },
            ))
        })?
        .collect::<Result<_, _>>()?;
    let by_hash: Vec<(i64, Vec<u8>, Option<String>, String)> = conn
        .prepare_cached(
            "SELECT position, path, before, after FROM wrapper_change_copies WHERE change_id = ?1",
        )?
        .query_map([id.0], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?
        .collect::<Result<_, _>>()?;
    let copy = |sha: &str| {
        snapshot::load(conn, sha)?.ok_or_else(|| {
            StoreError::Corrupt(format!(
                "change {id} names a copy {sha} the store does not hold"
            ))
        })
    };
    for (position, path, before, after) in by_hash {
        let before = match before {
            Some(sha) => Some(copy(&sha)?),
            None => None,
        };
        files.push((
            position,
            FileChange {
                path: bytes_path(path),
                before,
                after: copy(&after)?,
            },
        ));
    }
    files.sort_by_key(|(position, _)| *position);
    Ok(files.into_iter().map(|(_, f)| f).collect())
}

fn read_change(conn: &Connection, id: ChangeId) -> Result<Option<ChangeRecord>, StoreError> {
    let row = conn
        .prepare_cached(
            "SELECT wrapper_path, kind, state, started_at FROM wrapper_changes WHERE id = ?1",
        )?
        .query_row([id.0], |row| {
            Ok((
                row.get::<_, Vec<u8>>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, i64>(3)?,
            ))
        })
        .optional()?;
    let Some((wrapper_path, kind, state, started_at)) = row else {
        return Ok(None);
    };
    let corrupt =
        |what: &str, word: &str| StoreError::Corrupt(format!("change {id} has {what} {word:?}"));
    let kind = ChangeKind::parse(&kind).ok_or_else(|| corrupt("kind", &kind))?;
    let state = ChangeState::parse(&state).ok_or_else(|| corrupt("state", &state))?;
    let files = copies_of(conn, id)?;
    // An adaptation the change applied, or one whose approval it wrote.
    let effects = conn
        .prepare_cached(
            "SELECT a.id, a.pattern, a.new_xpath FROM adaptations a
             LEFT JOIN decisions d ON d.adaptation_id = a.id
             WHERE (a.change_id = ?1 AND a.status = 'applied') OR d.change_id = ?1
             ORDER BY a.id",
        )?
        .query_map([id.0], |row| {
            Ok(ChangeEffect {
                adaptation: AdaptationId(row.get(0)?),
                pattern: row.get(1)?,
                new_xpath: row.get::<_, Option<String>>(2)?.unwrap_or_default(),
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(Some(ChangeRecord {
        id,
        wrapper_path: bytes_path(wrapper_path),
        kind,
        state,
        started_at: Timestamp::from_unix_millis(started_at),
        files,
        effects,
    }))
}

/// A path's bytes, kept exactly: a path that is not UTF-8 must still name
/// the same file when a change is reconciled.
pub(super) fn path_bytes(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec()
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().into_owned().into_bytes()
    }
}

/// The path whose bytes [`path_bytes`] kept.
pub(super) fn bytes_path(bytes: Vec<u8>) -> PathBuf {
    #[cfg(unix)]
    {
        PathBuf::from(<std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
    }
}
