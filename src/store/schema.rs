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
const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6, V7, V8, V9];

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

/// The journal of changes to wrapper files (the wrapper-change protocol,
/// `runtime::change`): each change is recorded as `pending` with every file's
/// content before and after, in the same transaction as what it decides (the
/// run's applied adaptations, or a person's approval, point at it through
/// `change_id`), and marked `done` once the files are on disk, or
/// `rolled_back`. Runs also record the wrapper file's canonical path, so that
/// a review command finds that very file from anywhere.
const V2: &str = "
CREATE TABLE wrapper_changes (
    id           INTEGER PRIMARY KEY,
    wrapper_path BLOB    NOT NULL,
    kind         TEXT    NOT NULL
                 CHECK (kind IN ('heal', 'approve', 'snapshot', 'revert', 'harden')),
    state        TEXT    NOT NULL CHECK (state IN ('pending', 'done', 'rolled_back')),
    started_at   INTEGER NOT NULL,
    ended_at     INTEGER,
    note         TEXT
);
CREATE INDEX wrapper_changes_pending ON wrapper_changes (wrapper_path) WHERE state = 'pending';

CREATE TABLE wrapper_change_files (
    change_id INTEGER NOT NULL REFERENCES wrapper_changes (id),
    position  INTEGER NOT NULL,
    path      BLOB    NOT NULL,
    before    BLOB,
    after     BLOB    NOT NULL,
    PRIMARY KEY (change_id, position)
) WITHOUT ROWID;

ALTER TABLE adaptations ADD COLUMN change_id INTEGER REFERENCES wrapper_changes (id);
ALTER TABLE decisions ADD COLUMN change_id INTEGER REFERENCES wrapper_changes (id);
ALTER TABLE runs ADD COLUMN wrapper_canonical BLOB;
CREATE INDEX adaptations_by_change ON adaptations (change_id) WHERE change_id IS NOT NULL;
";

/// One decision per change: an adaptation is one entry for every page of a
/// run (and of later runs, while it is a pending proposal) that it was found
/// on or held on, with a page count and the pages themselves; the page
/// that found it stays its `page_id`. Pages served by an XPath of a
/// pattern's `history` are counted per run. Reverts of an approval or an
/// applied heal are kept beside the decisions, each pointing at its change.
const V3: &str = "
ALTER TABLE adaptations ADD COLUMN page_count INTEGER NOT NULL DEFAULT 1;

CREATE TABLE adaptation_pages (
    adaptation_id INTEGER NOT NULL REFERENCES adaptations (id),
    page_id       INTEGER NOT NULL REFERENCES pages (id),
    PRIMARY KEY (adaptation_id, page_id)
) WITHOUT ROWID;
CREATE INDEX adaptation_pages_by_page ON adaptation_pages (page_id);
INSERT INTO adaptation_pages (adaptation_id, page_id) SELECT id, page_id FROM adaptations;

CREATE TABLE fallbacks (
    run_id  INTEGER NOT NULL REFERENCES runs (id),
    pattern TEXT    NOT NULL,
    xpath   TEXT    NOT NULL,
    pages   INTEGER NOT NULL,
    PRIMARY KEY (run_id, pattern, xpath)
) WITHOUT ROWID;

CREATE TABLE reverts (
    id            INTEGER PRIMARY KEY,
    adaptation_id INTEGER NOT NULL REFERENCES adaptations (id),
    change_id     INTEGER REFERENCES wrapper_changes (id),
    reason        TEXT,
    reverted_at   INTEGER NOT NULL
);
CREATE INDEX reverts_by_adaptation ON reverts (adaptation_id);
";

/// Field health (`health`): one sample per run, and one per `mend snapshot`
/// (the baseline later runs are judged against), with every pattern's
/// statistics over the sample's pages and the drops the run was judged to
/// have. A run's sample names its run; a snapshot's names none.
const V4: &str = "
CREATE TABLE health_samples (
    id          INTEGER PRIMARY KEY,
    wrapper     TEXT    NOT NULL,
    source      TEXT    NOT NULL CHECK (source IN ('run', 'snapshot')),
    run_id      INTEGER REFERENCES runs (id),
    recorded_at INTEGER NOT NULL,
    pages       INTEGER NOT NULL,
    drops       INTEGER NOT NULL DEFAULT 0,
    CHECK ((source = 'run') = (run_id IS NOT NULL))
);
CREATE INDEX health_samples_by_wrapper ON health_samples (wrapper, source, recorded_at);

CREATE TABLE field_stats (
    sample_id       INTEGER NOT NULL REFERENCES health_samples (id),
    position        INTEGER NOT NULL,
    pattern         TEXT    NOT NULL,
    value_type      TEXT,
    items           INTEGER NOT NULL,
    filled          INTEGER NOT NULL,
    value_count     INTEGER NOT NULL,
    typed           INTEGER NOT NULL,
    regex_checked   INTEGER,
    regex_passed    INTEGER,
    distinct_values INTEGER NOT NULL,
    distinct_capped INTEGER NOT NULL CHECK (distinct_capped IN (0, 1)),
    examples        TEXT    NOT NULL,
    PRIMARY KEY (sample_id, position)
) WITHOUT ROWID;

CREATE TABLE health_drops (
    sample_id      INTEGER NOT NULL REFERENCES health_samples (id),
    position       INTEGER NOT NULL,
    pattern        TEXT    NOT NULL,
    measure        TEXT    NOT NULL,
    limit_name     TEXT    NOT NULL,
    limit_value    REAL    NOT NULL,
    baseline_value REAL,
    baseline_from  TEXT,
    now_value      REAL    NOT NULL,
    threshold      REAL    NOT NULL,
    example_pages  TEXT    NOT NULL,
    PRIMARY KEY (sample_id, position)
) WITHOUT ROWID;
";

/// The store's tag: six random hexadecimal digits, drawn once when the store
/// is made (or first migrated to this version) and never changed. Ids are
/// row numbers, so every store has an adaptation 1; `TAG:ID` names one
/// adaptation of one store, and a review command refuses a tag that is not
/// its store's instead of deciding another store's adaptation of that number.
const V5: &str = "
CREATE TABLE store_identity (
    tag TEXT NOT NULL CHECK (length(tag) = 6 AND tag NOT GLOB '*[^0-9a-f]*')
);
INSERT INTO store_identity (tag) VALUES (lower(hex(randomblob(3))));
";

/// The pages `mend snapshot` captured tree-grams on, by pattern: what a
/// reviewer compares a proposal's new page with.
const V6: &str = "
CREATE TABLE captures (
    id          INTEGER PRIMARY KEY,
    wrapper     TEXT    NOT NULL,
    pattern     TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    sha256      TEXT    NOT NULL REFERENCES snapshots (sha256),
    captured_at INTEGER NOT NULL
);
CREATE INDEX captures_by_pattern ON captures (wrapper, pattern, captured_at);
";

/// How the page changed around each adapted pattern (`none`, `unstable`,
/// `template`, `local` or `structural`); null for adaptations made before
/// mend sensed changes, and for a pattern with no tree-gram to sense against.
const V7: &str = "
ALTER TABLE adaptations ADD COLUMN change_scope TEXT
    CHECK (change_scope IN ('none', 'unstable', 'template', 'local', 'structural'));
";

/// Which heal model judged each adaptation (its version, as
/// `models/heal.json` names it) and the model's confidence in the nodes
/// chosen; null for adaptations made before mend had a model, and for one
/// the model did not judge (a record, a list field).
const V8: &str = "
ALTER TABLE adaptations ADD COLUMN model TEXT;
ALTER TABLE adaptations ADD COLUMN confidence REAL;
";

/// A change's copies of its files, kept once per content: each names its
/// content before and after by hash in `snapshots` (compressed, verified
/// when read, shared by every change and page of the same bytes), so that
/// heals and reverts that move a file between the same versions add rows,
/// not copies. Changes recorded before keep their inline copies in
/// `wrapper_change_files` until `mend gc` moves them here; a file too large
/// for a snapshot stays inline. Decisions and reverts record who made them
/// (null for those made before).
const V9: &str = "
CREATE TABLE wrapper_change_copies (
    change_id INTEGER NOT NULL REFERENCES wrapper_changes (id),
    position  INTEGER NOT NULL,
    path      BLOB    NOT NULL,
    before    TEXT    REFERENCES snapshots (sha256),
    after     TEXT    NOT NULL REFERENCES snapshots (sha256),
    PRIMARY KEY (change_id, position)
) WITHOUT ROWID;
CREATE INDEX wrapper_change_copies_after ON wrapper_change_copies (after);
CREATE INDEX wrapper_change_copies_before ON wrapper_change_copies (before);
CREATE INDEX captures_by_sha256 ON captures (sha256);
CREATE INDEX pages_by_snapshot ON pages (snapshot) WHERE snapshot IS NOT NULL;
ALTER TABLE decisions ADD COLUMN decided_by TEXT;
ALTER TABLE reverts ADD COLUMN reverted_by TEXT;
";

/// Checks that `conn` holds a mend store (or nothing yet) and brings its
/// schema up to [`SCHEMA_VERSION`].
///
/// The checks come before any change, so that opening the wrong file by
/// mistake leaves that file exactly as it was.
pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    migrate_with(conn, path, MIGRATIONS)
}

/// [`migrate`] with a given list of migrations, so that tests can play a
/// later mend whose schema has grown.
fn migrate_with(conn: &mut Connection, path: &Path, migrations: &[&str]) -> Result<(), StoreError> {
    let supported = migrations.len() as i64;
    // The version is read in one read transaction: its three reads see one
    // state of the file, not a half of another process's first migration.
    let found = {
        let tx = conn.transaction().map_err(|e| file_error(path, e))?;
        let found = version(&tx, path)?;
        tx.finish().map_err(|e| file_error(path, e))?;
        found
    };
    if found > supported {
        return Err(too_new(path, found, supported));
    }
    if found == supported {
        return Ok(());
    }
    // An immediate transaction takes the write lock before reading the
    // version again, so two processes opening a new store at once do not
    // both run the same migration. Every step left runs in that one
    // transaction: a new store is made with one commit (in the rollback
    // journal a new file has, each commit is several syncs of the disk), and
    // a store is never left between two versions.
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| file_error(path, e))?;
    let now = version(&tx, path)?;
    if now > supported {
        return Err(too_new(path, now, supported));
    }
    if now == supported {
        return Ok(());
    }
    for step in now..supported {
        let Some(sql) = usize::try_from(step).ok().and_then(|i| migrations.get(i)) else {
            return Err(StoreError::Corrupt(format!("schema version {step}")));
        };
        tx.execute_batch(sql).map_err(|e| file_error(path, e))?;
    }
    tx.pragma_update(None, "user_version", supported)
        .map_err(|e| file_error(path, e))?;
    tx.pragma_update(None, "application_id", APPLICATION_ID)
        .map_err(|e| file_error(path, e))?;
    tx.commit().map_err(|e| file_error(path, e))?;
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

fn too_new(path: &Path, found: i64, supported: i64) -> StoreError {
    StoreError::TooNew {
        path: path.to_owned(),
        found,
        supported,
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

#[cfg(test)]
mod tests {
    use super::*;

    const V2: &str = super::V2;
    /// A migration a later mend might add, to play a schema that has grown.
    const LATER: &str = "ALTER TABLE runs ADD COLUMN note TEXT;";

    fn version_of(conn: &Connection) -> i64 {
        conn.pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn migrations_run_forward_once_and_keep_data() {
        let path = Path::new(":memory:");
        let mut conn = Connection::open_in_memory().unwrap();
        migrate_with(&mut conn, path, &[V1, V2]).unwrap();
        conn.execute(
            "INSERT INTO runs (wrapper, wrapper_path, heal_mode, started_at)
             VALUES ('w', 'w.yaml', 'off', 0)",
            [],
        )
        .unwrap();
        // A later mend adds a column; the run recorded before is still there.
        migrate_with(&mut conn, path, &[V1, V2, LATER]).unwrap();
        assert_eq!(version_of(&conn), 3);
        let note: Option<String> = conn
            .query_row("SELECT note FROM runs WHERE wrapper = 'w'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(note, None);
        // Opening again runs nothing twice (ALTER TABLE would fail if it did).
        migrate_with(&mut conn, path, &[V1, V2, LATER]).unwrap();
        // And the earlier mend refuses the later store.
        match migrate_with(&mut conn, path, &[V1, V2]) {
            Err(StoreError::TooNew {
                found, supported, ..
            }) => assert_eq!((found, supported), (3, 2)),
            other => panic!("expected TooNew, got {other:?}"),
        }
    }

    #[test]
    fn a_failed_migration_changes_nothing() {
        let path = Path::new(":memory:");
        let mut conn = Connection::open_in_memory().unwrap();
        migrate_with(&mut conn, path, &[V1, V2]).unwrap();
        let broken = "ALTER TABLE runs ADD COLUMN note TEXT; THIS IS NOT SQL;";
        assert!(migrate_with(&mut conn, path, &[V1, V2, broken]).is_err());
        assert_eq!(version_of(&conn), 2);
        migrate_with(&mut conn, path, &[V1, V2, LATER]).unwrap();
        assert_eq!(version_of(&conn), 3);
    }

    #[test]
    fn migrations_left_run_as_one_so_a_failure_in_the_last_undoes_the_first() {
        let path = Path::new(":memory:");
        let mut conn = Connection::open_in_memory().unwrap();
        migrate_with(&mut conn, path, &[V1]).unwrap();
        let broken = "THIS IS NOT SQL;";
        assert!(migrate_with(&mut conn, path, &[V1, V2, LATER, broken]).is_err());
        assert_eq!(version_of(&conn), 1);
        let note: i64 = conn
            .query_row(
                "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'note'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(note, 0, "the step before the failing one is undone too");
        migrate_with(&mut conn, path, &[V1, V2, LATER]).unwrap();
        assert_eq!(version_of(&conn), 3);
    }

    #[test]
    fn a_store_migrated_from_an_earlier_version_is_given_a_tag_once() {
        let path = Path::new(":memory:");
        let mut conn = Connection::open_in_memory().unwrap();
        migrate_with(&mut conn, path, &[V1, V2, V3, V4]).unwrap();
        migrate_with(&mut conn, path, MIGRATIONS).unwrap();
        let tags = |conn: &Connection| -> Vec<String> {
            let mut statement = conn.prepare("SELECT tag FROM store_identity").unwrap();
            statement
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let first = tags(&conn);
        assert_eq!(first.len(), 1);
        assert!(
            first[0].parse::<super::super::StoreTag>().is_ok(),
            "{first:?}"
        );
        migrate_with(&mut conn, path, MIGRATIONS).unwrap();
        assert_eq!(tags(&conn), first);
    }
}
