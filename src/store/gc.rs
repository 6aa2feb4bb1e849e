//! Bounding the store: what `mend gc` keeps and what it lets go.
//!
//! A store grows with every run (its pages' snapshots), every capture and
//! every change to a wrapper file (the copies of the files before and
//! after). Copies are kept once per content and compressed, so a heal and
//! its revert that move files between the same versions add rows, not
//! copies. What is left to bound is history a person may still want, so it
//! is let go only by [`Store::collect_garbage`], under a [`Retention`]:
//!
//! - the snapshots of the pages of each wrapper's last `runs` runs are
//!   kept, and those of any page a proposal that still waits was found on
//!   (the review page shows them); older pages keep their hash and size,
//!   so that `mend history` still tells their versions apart;
//! - the last `captures` pages `mend snapshot` captured each pattern on are
//!   kept (the old side of a proposal's page);
//! - every change and adaptation row stays, with the copies of its files:
//!   reverting an old heal needs them, and they are shared and small;
//! - changes recorded before copies were shared have theirs moved into the
//!   shared, compressed form (a change still pending is left as it is);
//! - a snapshot nothing names any more is deleted.
//!
//! It refuses nothing a pending change, a waiting proposal or a revert may
//! read, and runs in one transaction: a run or a decision at the same time
//! waits for it, and sees the store before or after, never between.

use rusqlite::{Connection, params};

use super::change::{bytes_path, keep_copies};
use super::{ChangeId, FileChange, Store, StoreError};

/// What [`Store::collect_garbage`] keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    /// Each wrapper's last runs whose pages keep their snapshots.
    pub runs: u32,
    /// The last captures of each pattern kept.
    pub captures: u32,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            runs: 20,
            captures: 5,
        }
    }
}

/// What [`Store::collect_garbage`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Collected {
    /// Pages whose snapshot was let go.
    pub pages_cleared: u64,
    /// Captures deleted.
    pub captures_deleted: u64,
    /// Files of older changes moved to shared, compressed copies.
    pub copies_moved: u64,
    /// Snapshots (page and file contents) deleted.
    pub snapshots_deleted: u64,
}

impl Store {
    /// Lets go of what `keep` does not keep (see the module documentation),
    /// in one transaction. The file keeps its size until
    /// [`Store::compact`].
    pub fn collect_garbage(&mut self, keep: Retention) -> Result<Collected, StoreError> {
        self.write(|tx| {
            let copies_moved = move_inline_copies(tx)?;
            let pages_cleared = tx
                .prepare_cached(CLEAR_OLD_PAGES)?
                .execute(params![keep.runs])? as u64;
            let captures_deleted = tx
                .prepare_cached(DELETE_OLD_CAPTURES)?
                .execute(params![keep.captures])? as u64;
            let snapshots_deleted = tx.prepare_cached(DELETE_ORPHANS)?.execute([])? as u64;
            Ok(Collected {
                pages_cleared,
                captures_deleted,
                copies_moved,
                snapshots_deleted,
            })
        })
    }

    /// Rewrites the store's file without its free pages (SQLite's
    /// `VACUUM`), so that what [`Store::collect_garbage`] let go leaves
    /// the disk. Fails while another process reads or writes the store.
    pub fn compact(&mut self) -> Result<(), StoreError> {
        self.conn.execute_batch("VACUUM")?;
        Ok(())
    }

    /// The bytes the store's database takes: its pages times their size.
    pub fn size_in_bytes(&self) -> Result<u64, StoreError> {
        let pragma = |name: &str| -> Result<i64, StoreError> {
            Ok(self.conn.pragma_query_value(None, name, |r| r.get(0))?)
        };
        Ok((pragma("page_count")? * pragma("page_size")?).max(0) as u64)
    }
}

/// Pages of runs older than each wrapper's last `?1`, on which no waiting
/// proposal was found, let go of their snapshots.
const CLEAR_OLD_PAGES: &str = "
UPDATE pages SET snapshot = NULL
WHERE snapshot IS NOT NULL
  AND run_id NOT IN (
      SELECT id FROM (
          SELECT id, row_number() OVER (PARTITION BY wrapper ORDER BY id DESC) AS k FROM runs
      ) WHERE k <= ?1)
  AND id NOT IN (
      SELECT ap.page_id FROM adaptation_pages ap WHERE ap.adaptation_id IN (
          SELECT a.id FROM adaptations a LEFT JOIN decisions d ON d.adaptation_id = a.id
          WHERE a.status = 'proposed' AND d.adaptation_id IS NULL)
      UNION
      SELECT a.page_id FROM adaptations a LEFT JOIN decisions d ON d.adaptation_id = a.id
      WHERE a.status = 'proposed' AND d.adaptation_id IS NULL)";

/// Captures older than each pattern's last `?1`.
const DELETE_OLD_CAPTURES: &str = "
DELETE FROM captures WHERE id IN (
    SELECT id FROM (
        SELECT id, row_number() OVER (
            PARTITION BY wrapper, pattern ORDER BY captured_at DESC, id DESC) AS k
        FROM captures
    ) WHERE k > ?1)";

/// Snapshots no page, capture or change names.
const DELETE_ORPHANS: &str = "
DELETE FROM snapshots
WHERE NOT EXISTS (SELECT 1 FROM pages WHERE pages.snapshot = snapshots.sha256)
  AND NOT EXISTS (SELECT 1 FROM captures WHERE captures.sha256 = snapshots.sha256)
  AND NOT EXISTS (SELECT 1 FROM wrapper_change_copies c WHERE c.after = snapshots.sha256)
  AND NOT EXISTS (SELECT 1 FROM wrapper_change_copies c WHERE c.before = snapshots.sha256)";

/// Moves the inline copies of settled changes into shared copies; gives how
/// many files moved. A file too large for a snapshot stays inline.
fn move_inline_copies(conn: &Connection) -> Result<u64, StoreError> {
    let rows: Vec<(i64, i64)> = conn
        .prepare(
            "SELECT f.change_id, f.position FROM wrapper_change_files f
             JOIN wrapper_changes c ON c.id = f.change_id
             WHERE c.state <> 'pending'",
        )?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut moved = 0;
    for (change, position) in rows {
        let file = conn
            .prepare_cached(
                "SELECT path, before, after FROM wrapper_change_files
                 WHERE change_id = ?1 AND position = ?2",
            )?
            .query_row(params![change, position], |row| {
                Ok(FileChange {
                    path: bytes_path(row.get(0)?),
                    before: row.get(1)?,
                    after: row.get(2)?,
                })
            })?;
        conn.prepare_cached(
            "DELETE FROM wrapper_change_files WHERE change_id = ?1 AND position = ?2",
        )?
        .execute(params![change, position])?;
        let position = usize::try_from(position)
            .map_err(|_| StoreError::Corrupt(format!("change {change} has a negative position")))?;
        if keep_copies(conn, ChangeId(change), position, &file)? {
            moved += 1;
        }
    }
    Ok(moved)
}
