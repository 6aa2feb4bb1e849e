//! The store: mend's history, kept in SQLite.
//!
//! It keeps what a person needs to review healing after the fact: runs,
//! pages (the content hash of each, and a compressed snapshot of every page
//! that triggered an adaptation), adaptations with everything that went into
//! choosing them (candidates and scores, samples before and after, constraint
//! results), people's decisions on proposals, and the field health of each
//! run and snapshot (`health.rs`). Rejected XPaths are
//! remembered per wrapper and pattern as negative examples, so healing never
//! proposes them again. Tracing is for operators; this is the record.
//!
//! The store is by default a file at `.mend/mend.db` beside the wrapper
//! ([`Store::default_path`]), written in SQLite's WAL mode so that `mend log`
//! can read while a run writes.
//!
//! It refuses:
//! - to read the clock: every operation that records a time takes it as an
//!   argument ([`Timestamp`]), so tests are deterministic;
//! - to open a file that is not a mend store (damaged, another program's
//!   database, or a newer mend's schema): each is a [`StoreError`], and the
//!   file is left untouched;
//! - to be shared between threads: a [`Store`] is one SQLite connection,
//!   `Send` but not `Sync`. A run's session (`runtime::Session`) owns it on
//!   the job's output thread, where pages are healed one at a time. Another
//!   process may open the same file at the same time, as SQLite allows.
//!
//! Every write is one transaction. Many writes go in one [`Batch`]: a run
//! records each page with its snapshot and its adaptations in one batch, so
//! the history never holds half of a page's adaptations.

mod adaptation;
mod batch;
mod capture;
mod change;
mod decision;
mod error;
mod gc;
mod health;
mod page;
mod reference;
mod revert;
mod run;
mod schema;
mod snapshot;
mod state;
mod timestamp;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

pub use adaptation::{
    AdaptationFilter, AdaptationRecord, AdaptationStatus, Candidate, ConstraintResult,
    NewAdaptation,
};
pub use batch::Batch;
pub use capture::CaptureRecord;
pub use change::{ChangeEffect, ChangeKind, ChangeRecord, ChangeState, FileChange};
pub use decision::{Decision, Verdict};
pub use error::StoreError;
pub use gc::{Collected, Retention};
pub use health::{HealthSample, HealthSampleId, SampleSource};
pub use page::{PageRecord, page_hash};
pub use reference::{AdaptationRef, StoreTag};
pub use revert::Revert;
pub use run::RunRecord;
pub use schema::SCHEMA_VERSION;
pub use snapshot::{Compressed, MAX_SNAPSHOT_BYTES, Snapshot};
pub use state::{STATES, State};
pub use timestamp::Timestamp;

/// The folder, beside the wrapper, that holds the default store.
pub const STORE_DIR: &str = ".mend";

/// The default store's file name inside [`STORE_DIR`].
pub const STORE_FILE: &str = "mend.db";

/// How long a write waits for another process's write to finish before it
/// fails: a `mend approve` during a long run should wait, not error.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Every write transaction takes the write lock when it begins. A deferred
/// one that reads first and writes later can fail with `SQLITE_BUSY` when
/// another process wrote in between, and the busy timeout cannot help it.
const IMMEDIATE: TransactionBehavior = TransactionBehavior::Immediate;

/// Declares an id type: a row id that cannot be mixed up with another table's.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::num::ParseIntError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                s.trim().parse().map($name)
            }
        }
    };
}

id_type!(
    /// The id of a run in the store.
    RunId
);
id_type!(
    /// The id of a page in the store.
    PageId
);
id_type!(
    /// The id of an adaptation in the store, as `mend show ID` takes it.
    AdaptationId
);
id_type!(
    /// The id of a change to a wrapper file in the store's journal.
    ChangeId
);

/// An open store: one connection to one SQLite database.
///
/// Reads take `&self`; writes take `&mut self`, because each is a
/// transaction on the one connection.
pub struct Store {
    conn: Connection,
    /// Who the decisions and reverts made through this store are recorded
    /// as made by ([`Store::act_as`]).
    actor: Option<String>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.conn.path())
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Where the store for the wrapper at `wrapper_path` lives by default:
    /// `.mend/mend.db` in the wrapper's folder.
    pub fn default_path(wrapper_path: &Path) -> PathBuf {
        let dir = wrapper_path.parent().unwrap_or(Path::new(""));
        dir.join(STORE_DIR).join(STORE_FILE)
    }

    /// Opens the store at `path`, creating its folder, the file and the
    /// schema as needed, and migrating an older schema forward. A file that
    /// is there but empty is refused ([`StoreError::Empty`]), never made a
    /// new store: a store is created only where no file is.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: dir.to_owned(),
                source,
            })?;
        }
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() && m.len() == 0 => {
                return Err(StoreError::Empty {
                    path: path.to_owned(),
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Store::create(path)?,
            _ => {}
        }
        let conn = Connection::open(path).map_err(|e| schema::file_error(path, e))?;
        match Store::set_up(conn, path) {
            // A store that mend may not write (a read-only file or folder,
            // a copy kept for audit) can still be read: `log` and `show`
            // work, and a command that writes fails when it writes.
            Err(e) if e.is_read_only() => Store::open_read_only(path).map_err(|_| e),
            opened => opened,
        }
    }

    /// Opens the store at `path` for reading only. A store in WAL mode needs
    /// its shared-memory file beside it; in a folder mend may not write,
    /// where no writer can be either, the file is read as immutable.
    fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        use rusqlite::OpenFlags;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let read = |conn: Connection| -> Result<Store, StoreError> {
            let mut conn = conn;
            conn.busy_timeout(BUSY_TIMEOUT)
                .map_err(|e| schema::file_error(path, e))?;
            schema::migrate(&mut conn, path)?;
            Ok(Store { conn, actor: None })
        };
        let plain = Connection::open_with_flags(path, flags)
            .map_err(|e| schema::file_error(path, e))
            .and_then(read);
        match plain {
            Ok(store) => Ok(store),
            Err(_) => {
                let uri =
                    url::Url::from_file_path(std::path::absolute(path).map_err(|source| {
                        StoreError::CreateDir {
                            path: path.to_owned(),
                            source,
                        }
                    })?)
                    .map_err(|()| {
                        StoreError::Corrupt(format!("{} is not a file path", path.display()))
                    })?;
                let conn = Connection::open_with_flags(
                    format!("{uri}?immutable=1"),
                    flags | OpenFlags::SQLITE_OPEN_URI,
                )
                .map_err(|e| schema::file_error(path, e))?;
                read(conn)
            }
        }
    }

    /// Makes a new store at `path`, where no file is: its schema is written
    /// to a temporary file beside it, which is then linked into place unless
    /// another process made the store first. So a file at a store's path is
    /// never a store half made, and an empty one is a store emptied.
    fn create(path: &Path) -> Result<(), StoreError> {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let io = |source| StoreError::CreateDir {
            path: dir.to_owned(),
            source,
        };
        let temp = tempfile::Builder::new()
            .prefix(".mend-store-")
            .suffix(".db")
            .tempfile_in(dir)
            .map_err(io)?;
        {
            let mut conn =
                Connection::open(temp.path()).map_err(|e| schema::file_error(path, e))?;
            schema::migrate(&mut conn, path)?;
        }
        match temp.persist_noclobber(path) {
            Ok(_) => Ok(()),
            // Another process made the store meanwhile: it is the store.
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) => Err(io(e.error)),
        }
    }

    /// Opens a store that lives in memory and vanishes when dropped, for tests.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let path = Path::new(":memory:");
        let conn = Connection::open_in_memory().map_err(|e| schema::file_error(path, e))?;
        Store::set_up(conn, path)
    }

    fn set_up(mut conn: Connection, path: &Path) -> Result<Store, StoreError> {
        let setting = |e| schema::file_error(path, e);
        conn.busy_timeout(BUSY_TIMEOUT).map_err(setting)?;
        // SQLite leaves foreign keys unchecked unless each connection asks.
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(setting)?;
        schema::migrate(&mut conn, path)?;
        // WAL lets readers (`mend log`) work while a run writes. With WAL,
        // `synchronous = NORMAL` never corrupts the file and survives a crash
        // of mend; only a power cut can lose the last commits, which is a fair
        // price for not syncing the disk on every page. In-memory databases
        // answer `memory` and keep it, which is fine.
        // The switch to WAL needs the file to itself for a moment; many
        // processes opening a new store at once wait for it in turn.
        let mode: String = conn
            .pragma_query_value(None, "journal_mode", |row| row.get(0))
            .map_err(setting)?;
        if !mode.eq_ignore_ascii_case("wal") {
            let mut tries = 0;
            loop {
                match conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| {
                    row.get::<_, String>(0)
                }) {
                    Ok(_) => break,
                    Err(rusqlite::Error::SqliteFailure(e, _))
                        if e.code == rusqlite::ErrorCode::DatabaseBusy && tries < 100 =>
                    {
                        tries += 1;
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(e) => return Err(setting(e)),
                }
            }
        }
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(setting)?;
        Ok(Store { conn, actor: None })
    }

    /// The store's tag, drawn once when it was made: what `TAG:ID` names it by.
    pub fn tag(&self) -> Result<StoreTag, StoreError> {
        let tag: String = self
            .conn
            .query_row("SELECT tag FROM store_identity", [], |row| row.get(0))?;
        tag.parse()
            .map_err(|why: String| StoreError::Corrupt(format!("the store's tag: {why}")))
    }

    /// Runs `write` in one transaction on the connection, committing only if
    /// it succeeds.
    fn write<T>(
        &mut self,
        write: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let tx = self.conn.transaction_with_behavior(IMMEDIATE)?;
        let value = write(&tx)?;
        tx.commit()?;
        Ok(value)
    }
}

/// Converts a count or size for SQLite, whose integers are signed.
fn to_sql_int(what: &'static str, value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::TooLarge { what, value })
}

/// Converts a stored count or size back, refusing the negative numbers that
/// mend never writes.
fn from_sql_int(what: &str, value: i64) -> Result<u64, StoreError> {
    u64::try_from(value).map_err(|_| StoreError::Corrupt(format!("{what} is {value}")))
}
