//! Opening stores: paths, schema versions, and files that are not stores.

use super::*;

#[test]
fn the_store_is_send() {
    fn send<T: Send>() {}
    send::<Store>();
}

#[test]
fn default_path_is_beside_the_wrapper() {
    assert_eq!(
        Store::default_path(Path::new("wrappers/bookshop.yaml")),
        PathBuf::from("wrappers/.mend/mend.db")
    );
    assert_eq!(
        Store::default_path(Path::new("bookshop.yaml")),
        PathBuf::from(".mend/mend.db")
    );
    assert_eq!(
        Store::default_path(Path::new("/srv/w/bookshop.yaml")),
        PathBuf::from("/srv/w/.mend/mend.db")
    );
}

#[test]
fn open_creates_folders_and_schema_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = Store::default_path(&dir.path().join("bookshop.yaml"));
    let run = {
        let mut store = Store::open(&path).unwrap();
        store
            .begin_run(
                "bookshop",
                Path::new("bookshop.yaml"),
                HealMode::Auto,
                at(5),
            )
            .unwrap()
    };
    assert!(path.is_file());
    let conn = raw(&path);
    assert_eq!(user_version(&conn), SCHEMA_VERSION);
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.run(run).unwrap().unwrap().heal_mode, HealMode::Auto);
}

/// A store mend may not write was refused outright ("unable to open
/// database file"). The read-only opening reads it, and refuses writes.
/// (The tests run as root, for whom no file is read-only, so the path the
/// fallback takes is called directly.)
#[test]
fn a_read_only_store_can_be_read_and_refuses_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mend.db");
    let run = {
        let mut store = Store::open(&path).unwrap();
        store
            .begin_run(
                "bookshop",
                Path::new("bookshop.yaml"),
                HealMode::Auto,
                at(5),
            )
            .unwrap()
    };
    let mut store = Store::open_read_only(&path).unwrap();
    assert_eq!(store.run(run).unwrap().unwrap().heal_mode, HealMode::Auto);
    let tag = store.tag().unwrap();
    let error = store
        .begin_run(
            "bookshop",
            Path::new("bookshop.yaml"),
            HealMode::Auto,
            at(6),
        )
        .unwrap_err();
    assert!(error.is_read_only(), "{error}");
    drop(store);
    assert_eq!(Store::open(&path).unwrap().tag().unwrap(), tag);
}

#[test]
fn each_store_has_its_own_tag_and_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let tag_a = Store::open(&a).unwrap().tag().unwrap();
    let tag_b = Store::open(&b).unwrap().tag().unwrap();
    // Two draws of 24 random bits collide once in sixteen million.
    assert_ne!(tag_a, tag_b);
    assert_eq!(Store::open(&a).unwrap().tag().unwrap(), tag_a);
}

#[test]
fn a_store_from_a_newer_mend_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mend.db");
    drop(Store::open(&path).unwrap());
    raw(&path)
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    match Store::open(&path) {
        Err(StoreError::TooNew {
            found, supported, ..
        }) => {
            assert_eq!(found, SCHEMA_VERSION + 1);
            assert_eq!(supported, SCHEMA_VERSION);
        }
        other => panic!("expected TooNew, got {other:?}"),
    }
    let message = Store::open(&path).unwrap_err().to_string();
    assert!(message.contains("newer mend"), "{message}");
}

#[test]
fn garbage_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("text.db", b"hello, this is not a database".repeat(100)),
        ("short.db", b"SQLite format 3\0".to_vec()),
        ("zeros.db", vec![0xff; 4096]),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let error = Store::open(&path).unwrap_err();
        assert!(
            matches!(error, StoreError::NotADatabase { .. }),
            "{name}: {error:?}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name} was changed");
    }
}

#[test]
fn another_programs_database_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("theirs.db");
    raw(&path)
        .execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
        .unwrap();
    assert!(matches!(
        Store::open(&path),
        Err(StoreError::Foreign { .. })
    ));
    let conn = raw(&path);
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
        .unwrap();
    assert_eq!(tables, 1);
    assert_eq!(user_version(&conn), 0);

    let path = dir.path().join("other_app.db");
    raw(&path)
        .pragma_update(None, "application_id", 42)
        .unwrap();
    assert!(matches!(
        Store::open(&path),
        Err(StoreError::Foreign { .. })
    ));
}

#[test]
fn a_store_emptied_to_nothing_is_refused_not_made_a_new_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mend.db");
    let tag = Store::open(&path).unwrap().tag().unwrap();
    std::fs::write(&path, b"").unwrap();
    let error = Store::open(&path).unwrap_err();
    assert!(matches!(error, StoreError::Empty { .. }), "{error}");
    assert!(error.is_not_a_store());
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        0,
        "nothing was written"
    );
    // Deleting it is how a person starts again, with a new tag.
    std::fs::remove_file(&path).unwrap();
    assert_ne!(Store::open(&path).unwrap().tag().unwrap(), tag);
}

#[test]
fn a_folder_is_not_a_store() {
    let dir = tempfile::tempdir().unwrap();
    assert!(Store::open(dir.path()).is_err());
}

#[test]
fn two_connections_share_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mend.db");
    let mut writer = Store::open(&path).unwrap();
    let reader = Store::open(&path).unwrap();
    let run = writer
        .begin_run("bookshop", Path::new("b.yaml"), HealMode::Off, at(1))
        .unwrap();
    assert_eq!(reader.run(run).unwrap().unwrap().wrapper, "bookshop");
}
