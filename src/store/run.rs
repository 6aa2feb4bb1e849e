//! Runs: one `mend run` of one wrapper over its pages.
//!
//! ## What it refuses
//!
//! Finishing a run the store does not hold is [`StoreError::UnknownRun`],
//! and so is recording a fallback for one; a count beyond SQLite's signed
//! 64-bit integers is [`StoreError::TooLarge`]. A run whose wrapper file
//! cannot be canonicalized is recorded without a canonical path. A heal
//! mode or count that mend would not have written reads back as
//! [`StoreError::Corrupt`].

use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, Row, params};
use serde::Serialize;

use super::{RunId, Store, StoreError, Timestamp, from_sql_int, to_sql_int};
use crate::wrapper::HealMode;

/// A run as the store keeps it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunRecord {
    /// The run's id.
    pub id: RunId,
    /// The wrapper's name.
    pub wrapper: String,
    /// The wrapper file, as the run was given it.
    pub wrapper_path: PathBuf,
    /// The wrapper file's canonical absolute path, when it had one (stores
    /// from before mend recorded it have none); `mend approve` rewrites
    /// this file.
    pub wrapper_file: Option<PathBuf>,
    /// When the run began.
    pub started_at: Timestamp,
    /// When the run ended, or `None` while it goes on (or if it died).
    pub finished_at: Option<Timestamp>,
    /// How many pages the run processed.
    pub pages: u64,
    /// How many violations the run found, before healing.
    pub violations: u64,
    /// Whether the run healed, and how.
    pub heal_mode: HealMode,
}

impl Store {
    /// Records the start of a run and gives its id.
    ///
    /// A path that is not valid UTF-8 is kept with its invalid bytes
    /// replaced, as SQLite text must be UTF-8; the file's canonical path is
    /// kept too, byte for byte, so that review commands find this very file
    /// from any directory.
    pub fn begin_run(
        &mut self,
        wrapper: &str,
        wrapper_path: &Path,
        heal_mode: HealMode,
        started_at: Timestamp,
    ) -> Result<RunId, StoreError> {
        let canonical = std::fs::canonicalize(wrapper_path)
            .ok()
            .map(|p| super::change::path_bytes(&p));
        self.write(|tx| {
            tx.prepare_cached(
                "INSERT INTO runs (wrapper, wrapper_path, heal_mode, started_at, wrapper_canonical)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                wrapper,
                wrapper_path.to_string_lossy(),
                heal_mode.as_str(),
                started_at.unix_millis(),
                canonical
            ])?;
            Ok(RunId(tx.last_insert_rowid()))
        })
    }

    /// The newest run's id, if the store holds any: where a copy of the
    /// store made now starts its own runs after.
    pub fn newest_run(&self) -> Result<Option<RunId>, StoreError> {
        let id: Option<i64> = self
            .conn
            .query_row("SELECT max(id) FROM runs", [], |row| row.get(0))?;
        Ok(id.map(RunId))
    }

    /// Records the end of a run with its counts of pages and violations.
    pub fn finish_run(
        &mut self,
        run: RunId,
        finished_at: Timestamp,
        pages: u64,
        violations: u64,
    ) -> Result<(), StoreError> {
        let pages = to_sql_int("a run's page count", pages)?;
        let violations = to_sql_int("a run's violation count", violations)?;
        self.write(|tx| {
            let changed = tx
                .prepare_cached(
                    "UPDATE runs SET finished_at = ?2, pages = ?3, violations = ?4 WHERE id = ?1",
                )?
                .execute(params![run.0, finished_at.unix_millis(), pages, violations])?;
            if changed == 0 {
                return Err(StoreError::UnknownRun(run));
            }
            Ok(())
        })
    }

    /// The pages of run `run` that an XPath of a pattern's `history` served,
    /// by pattern and XPath, as `(pattern, xpath, pages)`.
    pub fn fallbacks(&self, run: RunId) -> Result<Vec<(String, String, u64)>, StoreError> {
        let mut statement = self.conn.prepare_cached(
            "SELECT pattern, xpath, pages FROM fallbacks WHERE run_id = ?1 ORDER BY pattern, xpath",
        )?;
        let rows = statement.query_map([run.0], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, i64>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (pattern, xpath, pages) = row?;
            out.push((
                pattern,
                xpath,
                super::from_sql_int("a fallback's page count", pages)?,
            ));
        }
        Ok(out)
    }

    /// The run with id `id`, if there is one.
    pub fn run(&self, id: RunId) -> Result<Option<RunRecord>, StoreError> {
        self.conn
            .prepare_cached(&format!("{SELECT_RUN} WHERE id = ?1"))?
            .query_row([id.0], |row| Ok(read_run(row)))
            .optional()?
            .transpose()
    }

    /// The runs, newest first, of the wrapper named `wrapper` or of all wrappers.
    pub fn runs(&self, wrapper: Option<&str>) -> Result<Vec<RunRecord>, StoreError> {
        let mut statement = self.conn.prepare_cached(&format!(
            "{SELECT_RUN} WHERE ?1 IS NULL OR wrapper = ?1 ORDER BY started_at DESC, id DESC"
        ))?;
        let rows = statement.query_map([wrapper], |row| Ok(read_run(row)))?;
        let mut runs = Vec::new();
        for run in rows {
            runs.push(run??);
        }
        Ok(runs)
    }

    /// Fails with [`StoreError::UnknownRun`] unless a run has id `id`.
    pub(super) fn check_run(conn: &rusqlite::Connection, id: RunId) -> Result<(), StoreError> {
        conn.prepare_cached("SELECT 1 FROM runs WHERE id = ?1")?
            .query_row([id.0], |_| Ok(()))
            .optional()?
            .ok_or(StoreError::UnknownRun(id))
    }
}

const SELECT_RUN: &str = "SELECT id, wrapper, wrapper_path, started_at, finished_at, pages, \
                          violations, heal_mode, wrapper_canonical FROM runs";

/// Reads a row of [`SELECT_RUN`]. SQLite's own errors surface through the
/// outer `Result` of the row callback; values mend would never have written
/// surface as [`StoreError::Corrupt`].
fn read_run(row: &Row<'_>) -> Result<RunRecord, StoreError> {
    let heal_mode: String = row.get(7)?;
    Ok(RunRecord {
        id: RunId(row.get(0)?),
        wrapper: row.get(1)?,
        wrapper_path: PathBuf::from(row.get::<_, String>(2)?),
        wrapper_file: row
            .get::<_, Option<Vec<u8>>>(8)?
            .map(super::change::bytes_path),
        started_at: Timestamp::from_unix_millis(row.get(3)?),
        finished_at: row
            .get::<_, Option<i64>>(4)?
            .map(Timestamp::from_unix_millis),
        pages: from_sql_int("a run's page count", row.get(5)?)?,
        violations: from_sql_int("a run's violation count", row.get(6)?)?,
        heal_mode: heal_mode
            .parse()
            .map_err(|_| StoreError::Corrupt(format!("heal mode {heal_mode:?}")))?,
    })
}

impl super::Batch<'_> {
    /// Records that `pages` pages of run `run` were served by `xpath`, an
    /// XPath of the `history` of pattern `pattern`, adding to what the run
    /// recorded before.
    pub fn record_fallback(
        &mut self,
        run: RunId,
        pattern: &str,
        xpath: &str,
        pages: u64,
    ) -> Result<(), StoreError> {
        Store::check_run(&self.tx, run)?;
        let pages = to_sql_int("a fallback's page count", pages)?;
        self.tx
            .prepare_cached(
                "INSERT INTO fallbacks (run_id, pattern, xpath, pages) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (run_id, pattern, xpath) DO UPDATE SET pages = pages + excluded.pages",
            )?
            .execute(params![run.0, pattern, xpath, pages])?;
        Ok(())
    }
}
