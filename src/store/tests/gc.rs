//! What `mend gc` keeps and lets go, and the shared copies of changes.

use super::*;

fn file(path: &str, before: Option<&str>, after: &str) -> FileChange {
    FileChange {
        path: PathBuf::from(path),
        before: before.map(|b| b.as_bytes().to_vec()),
        after: after.as_bytes().to_vec(),
    }
}

/// Records and finishes a change of `files` to `wrappers/shop.yaml`.
fn change(store: &mut Store, files: &[FileChange], at_millis: i64) -> ChangeId {
    let mut batch = store.batch().unwrap();
    let id = batch
        .begin_change(
            Path::new("wrappers/shop.yaml"),
            ChangeKind::Heal,
            files,
            at(at_millis),
        )
        .unwrap();
    batch.commit().unwrap();
    store.finish_change(id, at(at_millis + 1)).unwrap();
    id
}

fn count(store: &Store, table: &str) -> i64 {
    store
        .conn
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_change_s_copies_are_kept_once_per_content_and_read_back_whole() {
    let (mut store, _, _) = store_with_page();
    let before = count(&store, "snapshots");
    let heal = [
        file("wrappers/shop.yaml", Some("xpath: //a\n"), "xpath: //b\n"),
        file("wrappers/.mend/shop/price.json", None, "{\"gram\": 1}"),
    ];
    let back = [file(
        "wrappers/shop.yaml",
        Some("xpath: //b\n"),
        "xpath: //a\n",
    )];
    let mut ids = Vec::new();
    for round in 0..50 {
        ids.push(change(&mut store, &heal, 10 * round));
        ids.push(change(&mut store, &back, 10 * round + 5));
    }
    // Three contents, however many changes name them.
    assert_eq!(count(&store, "snapshots") - before, 3);
    assert_eq!(count(&store, "wrapper_change_files"), 0);
    assert_eq!(store.change(ids[0]).unwrap().unwrap().files, heal);
    assert_eq!(store.change(ids[99]).unwrap().unwrap().files, back);
}

#[test]
fn gc_lets_old_pages_go_and_keeps_what_a_waiting_proposal_shows() {
    let mut store = Store::open_in_memory().unwrap();
    let mut pages = Vec::new();
    for r in 0..3 {
        let run = store
            .begin_run(
                "shop",
                Path::new("wrappers/shop.yaml"),
                HealMode::Propose,
                at(r),
            )
            .unwrap();
        let html = format!("<html>page of run {r}</html>");
        pages.push(
            store
                .record_page(run, "p.html", html.as_bytes(), true)
                .unwrap(),
        );
    }
    let waiting = store
        .record_adaptation(&proposal(pages[0], "price", "//b", 10))
        .unwrap();
    let keep = Retention {
        runs: 1,
        captures: 1,
    };
    let collected = store.collect_garbage(keep).unwrap();
    assert_eq!(collected.pages_cleared, 1, "{collected:?}");
    assert_eq!(collected.snapshots_deleted, 1, "{collected:?}");
    // The newest run's page and the waiting proposal's page stay.
    assert!(store.page_html(pages[2]).unwrap().is_some());
    assert!(store.page_html(pages[0]).unwrap().is_some());
    assert!(store.page_html(pages[1]).unwrap().is_none());
    // The page keeps its hash and size.
    assert!(store.page(pages[1]).unwrap().is_some());
    // Once decided, the proposal's page goes too; a second pass finds
    // nothing more.
    store
        .decide(waiting, Verdict::Rejected, Some("wrong"), at(20))
        .unwrap();
    assert_eq!(store.collect_garbage(keep).unwrap().pages_cleared, 1);
    assert!(store.page_html(pages[0]).unwrap().is_none());
    assert_eq!(store.collect_garbage(keep).unwrap(), Collected::default());
}

#[test]
fn gc_keeps_each_pattern_s_last_captures() {
    let mut store = Store::open_in_memory().unwrap();
    for k in 0..4 {
        let html = format!("<p>capture {k}</p>");
        store
            .record_capture(
                "shop",
                &["price", "title"],
                "p.html",
                html.as_bytes(),
                at(k),
            )
            .unwrap();
    }
    let keep = Retention {
        runs: 1,
        captures: 2,
    };
    let collected = store.collect_garbage(keep).unwrap();
    assert_eq!(collected.captures_deleted, 4, "{collected:?}");
    assert_eq!(collected.snapshots_deleted, 2, "{collected:?}");
    let kept = store.captures("shop").unwrap();
    assert_eq!(kept.len(), 4);
    let newest = store
        .capture_before("shop", "price", at(10))
        .unwrap()
        .unwrap();
    assert_eq!(
        store.capture_html(&newest).unwrap().unwrap(),
        b"<p>capture 3</p>"
    );
}

#[test]
fn gc_moves_the_inline_copies_of_settled_changes_and_they_read_the_same() {
    let (mut store, _, _) = store_with_page();
    let files = [
        file("wrappers/shop.yaml", Some("a: 1\n"), "a: 2\n"),
        file("wrappers/.mend/shop/t.json", None, "{}"),
    ];
    let done = change(&mut store, &files, 100);
    let mut batch = store.batch().unwrap();
    let pending = batch
        .begin_change(
            Path::new("wrappers/shop.yaml"),
            ChangeKind::Heal,
            &files,
            at(200),
        )
        .unwrap();
    batch.commit().unwrap();
    // As a store written before copies were shared holds them: inline.
    for id in [done, pending] {
        store
            .conn
            .execute(
                "DELETE FROM wrapper_change_copies WHERE change_id = ?1",
                [id.0],
            )
            .unwrap();
        for (position, f) in files.iter().enumerate() {
            store
                .conn
                .execute(
                    "INSERT INTO wrapper_change_files (change_id, position, path, before, after)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    rusqlite::params![
                        id.0,
                        position as i64,
                        f.path.to_str().unwrap().as_bytes(),
                        f.before,
                        f.after
                    ],
                )
                .unwrap();
        }
        assert_eq!(store.change(id).unwrap().unwrap().files, files);
    }
    let collected = store.collect_garbage(Retention::default()).unwrap();
    // The pending change is left for the command that settles it.
    assert_eq!(collected.copies_moved, 2, "{collected:?}");
    assert_eq!(count(&store, "wrapper_change_files"), 2);
    for id in [done, pending] {
        assert_eq!(store.change(id).unwrap().unwrap().files, files);
    }
}
