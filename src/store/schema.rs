//! The database schema and its forward-only migrations.
//!
//! A mend store is recognised by SQLite's `application_id` header field
//! (the ASCII bytes `mend`), and its schema version is the `user_version`
//! header field: the number of migrations applied. Migrations only go
//! forward; a file from a newer mend is refused with a clear error rather
//! than read wrongly, and a file that belongs to another program is refused
//! before anything in it is changed.

use std::path::Path;

use rusqlite::{Connection, ErrorCode, TransactionBehavior};

use super::StoreError;

/// The `application_id` of a mend store: `mend` in ASCII.
const APPLICATION_ID: i32 = 0x6d65_6e64;

/// The migrations, in order: entry `i` takes a store from version `i` to `i + 1`.
///
/// Never edit an entry once it has shipped: stores in the field have run it.
/// A change to the schema is a new entry at the end.
const MIGRATIONS: &[&str] = &[V1];

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Times are milliseconds since the Unix epoch (UTC), passed in by callers.
/// Hashes are lowercase hexadecimal SHA-256. JSON columns hold arrays.
const V1: &str = "
CREATE TABLE runs (
    id           INTEGER PRIMARY KEY,
    wrapper      TEXT    NOT NULL,
    wrapper_path TEXT    NOT NULL,
    heal_mode    TEXT    NOT NULL CHECK (heal_mode IN ('off', 'propose', 'auto')),
    started_at   INTEGER NOT NULL,
    finished_at  INTEGER,
    pages        INTEGER NOT NULL DEFAULT 0,
    violations   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_wrapper ON runs (wrapper);

CREATE TABLE snapshots (
    sha256 TEXT    PRIMARY KEY,
    size   INTEGER NOT NULL,
    zlib   BLOB    NOT NULL
);

CREATE TABLE pages (
    id       INTEGER PRIMARY KEY,
    run_id   INTEGER NOT NULL REFERENCES runs (id),
    name     TEXT    NOT NULL,
    sha256   TEXT    NOT NULL,
    size     INTEGER NOT NULL,
    snapshot TEXT    REFERENCES snapshots (sha256)
);
CREATE INDEX pages_by_run ON pages (run_id);

CREATE TABLE adaptations (
    id             INTEGER PRIMARY KEY,
    page_id        INTEGER NOT NULL REFERENCES pages (id),
    pattern        TEXT    NOT NULL,
    old_xpath      TEXT    NOT NULL,
    new_xpath      TEXT,
    algorithm      TEXT,
    score          REAL,
    runner_up      REAL,
    status         TEXT    NOT NULL
                   CHECK (status IN ('applied', 'proposed', 'abstained', 'rejected')),
    reason         TEXT,
    samples_before TEXT    NOT NULL,
    samples_after  TEXT    NOT NULL,
    created_at     INTEGER NOT NULL
);
CREATE INDEX adaptations_by_page ON adaptations (page_id);
CREATE INDEX adaptations_by_pattern ON adaptations (pattern);
CREATE INDEX adaptations_by_time ON adaptations (created_at);

CREATE TABLE candidates (
    adaptation_id INTEGER NOT NULL REFERENCES adaptations (id),
    position      INTEGER NOT NULL,
    xpath         TEXT    NOT NULL,
    score         REAL    NOT NULL,
    algorithm     TEXT    NOT NULL,
    PRIMARY KEY (adaptation_id, position)
) WITHOUT ROWID;

CREATE TABLE constraint_results (
    adaptation_id INTEGER NOT NULL REFERENCES adaptations (id),
    position      INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    passed        INTEGER NOT NULL CHECK (passed IN (0, 1)),
    detail        TEXT    NOT NULL,
    PRIMARY KEY (adaptation_id, position)
) WITHOUT ROWID;

CREATE TABLE decisions (
    adaptation_id INTEGER PRIMARY KEY REFERENCES adaptations (id),
    verdict       TEXT    NOT NULL CHECK (verdict IN ('approved', 'rejected')),
    reason        TEXT,
    decided_at    INTEGER NOT NULL
);
CREATE INDEX decisions_by_verdict ON decisions (verdict);
";

/// Checks that `conn` holds a mend store (or nothing yet) and brings its
/// schema up to [`SCHEMA_VERSION`].
///
/// The checks come before any change, so that opening the wrong file by
/// mistake leaves that file exactly as it was.
pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let found = version(conn, path)?;
    if found > SCHEMA_VERSION {
        return Err(too_new(path, found));
    }
    for target in found + 1..=SCHEMA_VERSION {
        // An immediate transaction takes the write lock before reading the
        // version again, so two processes opening a new store at once do not
        // both run the same migration.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| file_error(path, e))?;
        let now = version(&tx, path)?;
        if now > SCHEMA_VERSION {
            return Err(too_new(path, now));
        }
        if now >= target {
            continue;
        }
        let Some(sql) = usize::try_from(now).ok().and_then(|i| MIGRATIONS.get(i)) else {
            return Err(StoreError::Corrupt(format!("schema version {now}")));
        };
        tx.execute_batch(sql).map_err(|e| file_error(path, e))?;
        tx.pragma_update(None, "user_version", now + 1)
            .map_err(|e| file_error(path, e))?;
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(|e| file_error(path, e))?;
        tx.commit().map_err(|e| file_error(path, e))?;
    }
    Ok(())
}

/// The schema version of the store in `conn`: 0 for an empty database, an
/// error for a file that is not a mend store.
fn version(conn: &Connection, path: &Path) -> Result<i64, StoreError> {
    let read = |pragma: &str| -> Result<i64, StoreError> {
        conn.pragma_query_value(None, pragma, |row| row.get(0))
            .map_err(|e| file_error(path, e))
    };
    let application_id = read("application_id")?;
    let user_version = read("user_version")?;
    if application_id == i64::from(APPLICATION_ID) {
        return Ok(user_version);
    }
    if application_id != 0 || user_version != 0 {
        return Err(StoreError::Foreign {
            path: path.to_owned(),
        });
    }
    // Neither header field is set: a database that was never a mend store.
    // It may be new and empty, which is ours to fill, or another program's.
    let objects: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0))
        .map_err(|e| file_error(path, e))?;
    if objects == 0 {
        Ok(0)
    } else {
        Err(StoreError::Foreign {
            path: path.to_owned(),
        })
    }
}

fn too_new(path: &Path, found: i64) -> StoreError {
    StoreError::TooNew {
        path: path.to_owned(),
        found,
        supported: SCHEMA_VERSION,
    }
}

/// Names the failure of a file-level operation: a damaged or non-SQLite
/// file gets its own error, anything else keeps SQLite's word for it.
pub(super) fn file_error(path: &Path, e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => StoreError::NotADatabase {
            path: path.to_owned(),
        },
        _ => StoreError::Open {
            path: path.to_owned(),
            source: e,
        },
    }
}
