//! Page snapshots: content hashes, and the compressed copies of pages.
//!
//! A page is hashed with SHA-256. It is not the fastest hash (BLAKE3 is
//! several times faster), but at close to a gigabyte a second on our
//! machines (`examples/store_inserts.rs`) it costs little beside parsing the
//! page at about fifty megabytes a second, it brings no C or assembly build,
//! and it is the hash an operator can check by hand: `sha256sum page.html`
//! prints the same text as the store's `sha256` column.
//!
//! Snapshots are zlib-compressed (HTML shrinks three- to fivefold) and stored
//! once per distinct content, keyed by the hash, however many pages and runs
//! refer to it. Reading one back is bounded and verified: a damaged or
//! hand-edited blob gives an error, never a huge allocation or wrong bytes.
//!
//! ## What it refuses
//!
//! It keeps no snapshot of a page larger than [`MAX_SNAPSHOT_BYTES`]
//! ([`StoreError::TooLarge`]), and never decompresses more than that. A
//! stored blob that does not decompress within its recorded size, or whose
//! bytes do not match their size and hash, is [`StoreError::Corrupt`]; a
//! hash with no snapshot reads as `None`. A content stored already is not
//! stored again, and `keep_bytes` does not even compress it.

use std::fmt::Write as _;
use std::io::{Read, Write};

use flate2::Compression;
use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::{StoreError, from_sql_int, to_sql_int};

/// The largest page the store keeps a snapshot of, and so the most it will
/// ever decompress: the largest page mend reads at all.
pub const MAX_SNAPSHOT_BYTES: u64 = crate::fetch::MAX_PAGE_BYTES;

/// The lowercase hexadecimal SHA-256 of `bytes`.
pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        // Writing to a String cannot fail.
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// A page's snapshot made ready to store: its hash, its size and its bytes
/// compressed.
///
/// Making one is the expensive part of keeping a page (on an 11 MB page,
/// tens of milliseconds) and touches no store, so a run that will keep a
/// page can compress it on another thread while it heals the page
/// ([`Compressed`]); storing it is then one insert
/// ([`Batch::record_snapshot_page`]).
///
/// [`Batch::record_snapshot_page`]: super::Batch::record_snapshot_page
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    sha256: String,
    size: u64,
    zlib: Vec<u8>,
}

impl Snapshot {
    /// The snapshot of `bytes`; fails for a page larger than
    /// [`MAX_SNAPSHOT_BYTES`], which the store does not keep.
    pub fn of(bytes: &[u8]) -> Result<Snapshot, StoreError> {
        Ok(Compressed::of(bytes)?.hashed(sha256_hex(bytes)))
    }

    /// The lowercase hexadecimal SHA-256 of the page's bytes.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The page's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }
}

/// A page's bytes compressed, waiting for their hash to become a
/// [`Snapshot`].
///
/// A run hashes every broken page anyway ([`page_hash`]), on its main
/// thread; a page it will likely keep is compressed meanwhile on a thread of
/// its own, and the two meet at the settlement. Hashing on the compressing
/// thread too cost some 10 ms on an 11 MB page, on the thread the heal
/// waits for. A wrong hash given to [`Compressed::hashed`] is caught when the
/// snapshot is read back, whose bytes are checked against it.
///
/// [`page_hash`]: super::page_hash
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compressed {
    size: u64,
    zlib: Vec<u8>,
}

impl Compressed {
    /// `bytes` compressed; fails for a page larger than
    /// [`MAX_SNAPSHOT_BYTES`], which the store does not keep.
    pub fn of(bytes: &[u8]) -> Result<Compressed, StoreError> {
        let size = bytes.len() as u64;
        if size > MAX_SNAPSHOT_BYTES {
            return Err(StoreError::TooLarge {
                what: "a snapshot's size",
                value: size,
            });
        }
        Ok(Compressed {
            size,
            zlib: compress(bytes),
        })
    }

    /// The snapshot of the compressed page, whose SHA-256 (as
    /// [`page_hash`](super::page_hash) gives it) is `sha256`.
    pub fn hashed(self, sha256: String) -> Snapshot {
        Snapshot {
            sha256,
            size: self.size,
            zlib: self.zlib,
        }
    }
}

/// Stores a snapshot of `bytes` unless one with their hash is already
/// there, and gives the hash: compressing is the expensive part, so it is
/// skipped too.
pub(super) fn keep_bytes(conn: &Connection, bytes: &[u8]) -> Result<String, StoreError> {
    let sha256 = sha256_hex(bytes);
    if !exists(conn, &sha256)? {
        keep(conn, &Compressed::of(bytes)?.hashed(sha256.clone()))?;
    }
    Ok(sha256)
}

/// Stores `snapshot` unless a snapshot with its hash is already there.
pub(super) fn keep(conn: &Connection, snapshot: &Snapshot) -> Result<(), StoreError> {
    let size = to_sql_int("a snapshot's size", snapshot.size)?;
    if exists(conn, &snapshot.sha256)? {
        return Ok(());
    }
    conn.prepare_cached("INSERT INTO snapshots (sha256, size, zlib) VALUES (?1, ?2, ?3)")?
        .execute(params![snapshot.sha256, size, snapshot.zlib])?;
    Ok(())
}

/// Whether a snapshot with hash `sha256` is stored.
pub(super) fn exists(conn: &Connection, sha256: &str) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM snapshots WHERE sha256 = ?1")?
        .query_row([sha256], |_| Ok(()))
        .optional()?
        .is_some())
}

/// The bytes of the snapshot with hash `sha256`, or `None` if there is none.
/// The size of the snapshot `sha256`, when the store keeps it.
pub(super) fn size(conn: &Connection, sha256: &str) -> Result<Option<u64>, StoreError> {
    let size: Option<i64> = conn
        .prepare_cached("SELECT size FROM snapshots WHERE sha256 = ?1")?
        .query_row([sha256], |row| row.get(0))
        .optional()?;
    size.map(|s| from_sql_int("a snapshot's size", s))
        .transpose()
}

pub(super) fn load(conn: &Connection, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
    let row: Option<(i64, Vec<u8>)> = conn
        .prepare_cached("SELECT size, zlib FROM snapshots WHERE sha256 = ?1")?
        .query_row([sha256], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    let Some((size, zlib)) = row else {
        return Ok(None);
    };
    let size = from_sql_int("a snapshot's size", size)?;
    let bytes = decompress(&zlib, size.min(MAX_SNAPSHOT_BYTES))
        .ok_or_else(|| StoreError::Corrupt(format!("the snapshot {sha256} does not decompress")))?;
    if bytes.len() as u64 != size || sha256_hex(&bytes) != sha256 {
        return Err(StoreError::Corrupt(format!(
            "the snapshot {sha256} does not match its hash"
        )));
    }
    Ok(Some(bytes))
}

/// Compresses with zlib at the fastest level: a snapshot is written while a
/// run waits for it (on an 11 MB page the default level took a third of a
/// heal's time, about 230 ms). flate2 is built on zlib-rs, not its default
/// miniz_oxide: at this level it takes about half the time (some 28 ms
/// against 53 ms on that page, `bench/heal_speed.py` under perf), for
/// output a sixth larger; HTML still shrinks three- to fivefold.
pub(super) fn compress(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = ZlibEncoder::new(Vec::with_capacity(bytes.len() / 4), Compression::fast());
    // Writing to a Vec cannot fail, and neither can finishing into one; an
    // error here would be a bug in flate2, and the stored blob would then be
    // caught by the hash check when read.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}

/// Decompresses at most `limit` bytes, giving `None` for a stream that is
/// damaged or longer than that.
fn decompress(zlib: &[u8], limit: u64) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    ZlibDecoder::new(zlib)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= limit).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_like_sha256sum() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn compression_round_trips_and_shrinks_html() {
        let page = "<li class=\"book\"><a href=\"/b/1\">A book</a></li>\n".repeat(200);
        let zlib = compress(page.as_bytes());
        assert!(zlib.len() * 5 < page.len());
        assert_eq!(
            decompress(&zlib, page.len() as u64).unwrap(),
            page.as_bytes()
        );
    }

    #[test]
    fn decompression_is_bounded_and_refuses_garbage() {
        let zlib = compress(&[b'x'; 10_000]);
        assert_eq!(decompress(&zlib, 9_999), None);
        assert_eq!(decompress(b"not zlib at all", 100), None);
        assert_eq!(decompress(&zlib[..zlib.len() / 2], 10_000), None);
    }
}
