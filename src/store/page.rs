//! Pages: what a run read, by content hash, with a snapshot when it matters.
//!
//! ## What it refuses
//!
//! A page of a run the store does not hold is [`StoreError::UnknownRun`],
//! and a page whose snapshot is to be kept but is larger than
//! [`MAX_SNAPSHOT_BYTES`](snapshot::MAX_SNAPSHOT_BYTES) is
//! [`StoreError::TooLarge`]: neither is recorded. [`Store::page_html`]
//! gives `None` when no snapshot was kept, [`StoreError::UnknownPage`] for
//! an id the store does not hold, and an error rather than bytes that do
//! not match the page's hash.

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Serialize, Serializer};

use super::snapshot::{self, Snapshot};
use super::{Batch, PageId, RunId, Store, StoreError, from_sql_int, to_sql_int};

/// A page as the store keeps it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PageRecord {
    /// The page's id.
    pub id: PageId,
    /// The run that read it.
    pub run_id: RunId,
    /// The URL or file path the page came from, as the run named it.
    pub url_or_path: String,
    /// The lowercase hexadecimal SHA-256 of the page's bytes.
    pub sha256: String,
    /// The page's size in bytes.
    pub size: u64,
    /// The page's bytes, zlib-compressed, if a snapshot was kept; see
    /// [`Store::page_html`] for them decompressed. In JSON this is the
    /// compressed size, or null: the bytes themselves are no use there.
    #[serde(serialize_with = "serialize_snapshot")]
    pub snapshot: Option<Vec<u8>>,
}

impl Store {
    /// Records a page that run `run` read, named `url_or_path`, and gives its id.
    ///
    /// With `keep_snapshot` (set it for every page that triggered an
    /// adaptation), the page's bytes are kept too, compressed, once per
    /// distinct content. Without it, a page whose content is already kept
    /// is linked to that snapshot anyway, as that costs nothing. The hash is
    /// kept either way, so later runs can tell whether a page changed.
    pub fn record_page(
        &mut self,
        run: RunId,
        url_or_path: &str,
        bytes: &[u8],
        keep_snapshot: bool,
    ) -> Result<PageId, StoreError> {
        self.write(|tx| insert(tx, run, url_or_path, bytes, keep_snapshot))
    }

    /// The page with id `id`, if there is one, with its compressed snapshot.
    pub fn page(&self, id: PageId) -> Result<Option<PageRecord>, StoreError> {
        self.conn
            .prepare_cached(
                "SELECT p.id, p.run_id, p.name, p.sha256, p.size, s.zlib
                 FROM pages p LEFT JOIN snapshots s ON s.sha256 = p.snapshot
                 WHERE p.id = ?1",
            )?
            .query_row([id.0], |row| Ok(read_page(row)))
            .optional()?
            .transpose()
    }

    /// The bytes of page `id` as they were read, if a snapshot was kept.
    ///
    /// This is what `mend approve` refreshes a tree-gram from. The bytes are
    /// checked against the page's hash, so a damaged store gives an error
    /// rather than a wrong page.
    pub fn page_html(&self, id: PageId) -> Result<Option<Vec<u8>>, StoreError> {
        let snapshot: Option<String> = self
            .conn
            .prepare_cached("SELECT snapshot FROM pages WHERE id = ?1")?
            .query_row([id.0], |row| row.get(0))
            .optional()?
            .ok_or(StoreError::UnknownPage(id))?;
        match snapshot {
            None => Ok(None),
            Some(sha256) => match snapshot::load(&self.conn, &sha256)? {
                Some(bytes) => Ok(Some(bytes)),
                // The foreign key makes this impossible in a store that
                // mend wrote; a hand-edited one still gets no panic.
                None => Err(StoreError::Corrupt(format!(
                    "page {id} refers to the missing snapshot {sha256}"
                ))),
            },
        }
    }

    /// The pages of run `run` whose snapshot was kept, in the order read.
    pub fn pages_with_snapshot(&self, run: RunId) -> Result<Vec<PageId>, StoreError> {
        let mut statement = self.conn.prepare_cached(
            "SELECT id FROM pages WHERE run_id = ?1 AND snapshot IS NOT NULL ORDER BY id",
        )?;
        let ids = statement
            .query_map([run.0], |row| row.get(0))?
            .map(|r| r.map(PageId))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ids)
    }

    /// Fails with [`StoreError::UnknownPage`] unless a page has id `id`.
    pub(super) fn check_page(conn: &Connection, id: PageId) -> Result<(), StoreError> {
        conn.prepare_cached("SELECT 1 FROM pages WHERE id = ?1")?
            .query_row([id.0], |_| Ok(()))
            .optional()?
            .ok_or(StoreError::UnknownPage(id))
    }
}

impl Batch<'_> {
    /// [`Store::record_page`], as part of this batch.
    pub fn record_page(
        &mut self,
        run: RunId,
        url_or_path: &str,
        bytes: &[u8],
        keep_snapshot: bool,
    ) -> Result<PageId, StoreError> {
        insert(&self.tx, run, url_or_path, bytes, keep_snapshot)
    }

    /// Records a page of run `run` with its snapshot, made beforehand
    /// (perhaps on another thread), as [`Store::record_page`] with
    /// `keep_snapshot` does.
    pub fn record_snapshot_page(
        &mut self,
        run: RunId,
        url_or_path: &str,
        snapshot: &Snapshot,
    ) -> Result<PageId, StoreError> {
        snapshot::keep(&self.tx, snapshot)?;
        self.record_page_hash(run, url_or_path, snapshot.sha256(), snapshot.size())
    }

    /// Records a page of run `run` by its hash and size alone, for a page
    /// whose bytes were not kept; it is linked to a snapshot of the same
    /// content when the store has one.
    pub fn record_page_hash(
        &mut self,
        run: RunId,
        url_or_path: &str,
        sha256: &str,
        size: u64,
    ) -> Result<PageId, StoreError> {
        Store::check_run(&self.tx, run)?;
        let size = to_sql_int("a page's size", size)?;
        let linked = snapshot::exists(&self.tx, sha256)?;
        self.tx
            .prepare_cached(
                "INSERT INTO pages (run_id, name, sha256, size, snapshot) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![run.0, url_or_path, sha256, size, linked.then_some(sha256)])?;
        Ok(PageId(self.tx.last_insert_rowid()))
    }
}

/// The lowercase hexadecimal SHA-256 of a page's bytes, as the store keys them.
pub fn page_hash(bytes: &[u8]) -> String {
    snapshot::sha256_hex(bytes)
}

fn insert(
    conn: &Connection,
    run: RunId,
    url_or_path: &str,
    bytes: &[u8],
    keep_snapshot: bool,
) -> Result<PageId, StoreError> {
    Store::check_run(conn, run)?;
    let size = to_sql_int("a page's size", bytes.len() as u64)?;
    let (sha256, linked) = if keep_snapshot {
        (snapshot::keep_bytes(conn, bytes)?, true)
    } else {
        let sha256 = snapshot::sha256_hex(bytes);
        let linked = snapshot::exists(conn, &sha256)?;
        (sha256, linked)
    };
    conn.prepare_cached(
        "INSERT INTO pages (run_id, name, sha256, size, snapshot) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        run.0,
        url_or_path,
        sha256,
        size,
        linked.then_some(&sha256)
    ])?;
    Ok(PageId(conn.last_insert_rowid()))
}

fn read_page(row: &Row<'_>) -> Result<PageRecord, StoreError> {
    Ok(PageRecord {
        id: PageId(row.get(0)?),
        run_id: RunId(row.get(1)?),
        url_or_path: row.get(2)?,
        sha256: row.get(3)?,
        size: from_sql_int("a page's size", row.get(4)?)?,
        snapshot: row.get(5)?,
    })
}

fn serialize_snapshot<S: Serializer>(
    snapshot: &Option<Vec<u8>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match snapshot {
        Some(zlib) => serializer.serialize_u64(zlib.len() as u64),
        None => serializer.serialize_none(),
    }
}
