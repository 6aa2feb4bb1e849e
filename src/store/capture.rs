//! Captures: the page each pattern's tree-gram was taken from at `mend
//! snapshot`, kept so that a reviewer sees a proposal's old page beside its
//! new one, and so that a run's heal tries its XPath there before writing
//! it (the tree-gram's header names the page by its SHA-256). The page's
//! bytes are kept once per content, with the snapshots of pages that runs
//! read.
//!
//! ## What it refuses
//!
//! A page larger than
//! [`MAX_SNAPSHOT_BYTES`](snapshot::MAX_SNAPSHOT_BYTES) is not kept, and
//! its capture is recorded for none of the patterns
//! ([`StoreError::TooLarge`]). [`Store::capture_before`] never gives a
//! capture later than the time asked. A page whose bytes the store no
//! longer keeps reads as `None`, and damaged bytes as
//! [`StoreError::Corrupt`], never as wrong bytes.

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError, Timestamp, snapshot};

/// A page a pattern's tree-gram was captured on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureRecord {
    /// The wrapper's name.
    pub wrapper: String,
    /// The pattern's path of names (`book/price`).
    pub pattern: String,
    /// The page's URL or file, as the snapshot named it.
    pub name: String,
    /// The SHA-256 of the page's bytes, in hex.
    pub sha256: String,
    /// When it was captured.
    pub captured_at: Timestamp,
}

impl Store {
    /// Records that the tree-grams of `patterns` of `wrapper` were captured
    /// on the page `name` with `bytes`, at `at`, keeping the page's bytes.
    pub fn record_capture(
        &mut self,
        wrapper: &str,
        patterns: &[&str],
        name: &str,
        bytes: &[u8],
        at: Timestamp,
    ) -> Result<(), StoreError> {
        self.write(|tx| {
            let sha256 = snapshot::keep_bytes(tx, bytes)?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO captures (wrapper, pattern, name, sha256, captured_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for pattern in patterns {
                insert.execute(params![wrapper, pattern, name, sha256, at.unix_millis()])?;
            }
            Ok(())
        })
    }

    /// The newest capture of `pattern` of `wrapper` at or before `at`: the
    /// page the pattern's tree-gram came from when a run read a page then.
    pub fn capture_before(
        &self,
        wrapper: &str,
        pattern: &str,
        at: Timestamp,
    ) -> Result<Option<CaptureRecord>, StoreError> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT wrapper, pattern, name, sha256, captured_at FROM captures
                 WHERE wrapper = ?1 AND pattern = ?2 AND captured_at <= ?3
                 ORDER BY captured_at DESC, id DESC LIMIT 1",
            )?
            .query_row(params![wrapper, pattern, at.unix_millis()], capture_of)
            .optional()?)
    }

    /// Every capture of `wrapper`, oldest first.
    pub fn captures(&self, wrapper: &str) -> Result<Vec<CaptureRecord>, StoreError> {
        let mut statement = self.conn.prepare_cached(
            "SELECT wrapper, pattern, name, sha256, captured_at FROM captures
             WHERE wrapper = ?1 ORDER BY captured_at, id",
        )?;
        let rows = statement.query_map(params![wrapper], capture_of)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The bytes of a page the store keeps, by their SHA-256 (in hex).
    pub fn kept_page(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        snapshot::load(&self.conn, sha256)
    }

    /// The size in bytes of a page the store keeps, by its SHA-256, without
    /// reading the page.
    pub fn kept_page_size(&self, sha256: &str) -> Result<Option<u64>, StoreError> {
        snapshot::size(&self.conn, sha256)
    }

    /// The bytes of a captured page.
    pub fn capture_html(&self, capture: &CaptureRecord) -> Result<Option<Vec<u8>>, StoreError> {
        snapshot::load(&self.conn, &capture.sha256)
    }
}

/// A capture, read from a row of `wrapper, pattern, name, sha256,
/// captured_at`.
fn capture_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<CaptureRecord> {
    Ok(CaptureRecord {
        wrapper: r.get(0)?,
        pattern: r.get(1)?,
        name: r.get(2)?,
        sha256: r.get(3)?,
        captured_at: Timestamp::from_unix_millis(r.get(4)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_capture_before_a_time_is_the_newest_one_then() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("mend.db")).unwrap();
        let at = Timestamp::from_unix_millis;
        store
            .record_capture(
                "shop",
                &["book", "book/price"],
                "a.html",
                b"<p>a</p>",
                at(10),
            )
            .unwrap();
        store
            .record_capture("shop", &["book"], "b.html", b"<p>b</p>", at(20))
            .unwrap();
        let check = |pattern: &str, when: i64, expected: Option<&str>| {
            let found = store.capture_before("shop", pattern, at(when)).unwrap();
            assert_eq!(
                found.as_ref().map(|c| c.name.as_str()),
                expected,
                "{pattern} at {when}"
            );
            if let Some(c) = found {
                let html = store.capture_html(&c).unwrap().unwrap();
                assert_eq!(html, format!("<p>{}</p>", &c.name[..1]).as_bytes());
            }
        };
        check("book", 5, None);
        check("book", 10, Some("a.html"));
        check("book", 25, Some("b.html"));
        check("book/price", 25, Some("a.html"));
        check("other", 25, None);
        assert!(
            store
                .capture_before("blog", "book", at(25))
                .unwrap()
                .is_none()
        );
    }
}
