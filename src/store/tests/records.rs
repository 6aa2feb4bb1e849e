//! Runs, pages, snapshots and adaptations: round trips, filters, batches
//! and damaged rows.

use super::*;

#[test]
fn runs_round_trip_and_list_newest_first() {
    let mut store = Store::open_in_memory().unwrap();
    let first = store
        .begin_run(
            "bookshop",
            Path::new("w/bookshop.yaml"),
            HealMode::Propose,
            at(100),
        )
        .unwrap();
    let second = store
        .begin_run("news", Path::new("w/news.yaml"), HealMode::Off, at(200))
        .unwrap();
    let third = store
        .begin_run(
            "bookshop",
            Path::new("w/bookshop.yaml"),
            HealMode::Auto,
            at(300),
        )
        .unwrap();
    assert_eq!(store.run(first).unwrap().unwrap().finished_at, None);
    store.finish_run(first, at(150), 10_000, 3).unwrap();
    let record = store.run(first).unwrap().unwrap();
    assert_eq!(
        record,
        RunRecord {
            id: first,
            wrapper: "bookshop".to_owned(),
            wrapper_path: PathBuf::from("w/bookshop.yaml"),
            wrapper_file: None,
            started_at: at(100),
            finished_at: Some(at(150)),
            pages: 10_000,
            violations: 3,
            heal_mode: HealMode::Propose,
        }
    );
    let json = serde_json::to_value(&record).unwrap();
    assert_eq!(json["heal_mode"], "propose");
    assert_eq!(json["started_at"], "1970-01-01T00:00:00.100Z");
    assert_eq!(json["id"], first.0);

    let ids = |runs: Vec<RunRecord>| runs.into_iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(ids(store.runs(None).unwrap()), [third, second, first]);
    assert_eq!(ids(store.runs(Some("bookshop")).unwrap()), [third, first]);
    assert!(store.runs(Some("nothing")).unwrap().is_empty());
    assert_eq!(store.run(RunId(99)).unwrap(), None);
    assert!(matches!(
        store.finish_run(RunId(99), at(1), 0, 0),
        Err(StoreError::UnknownRun(RunId(99)))
    ));
    assert!(matches!(
        store.finish_run(first, at(1), u64::MAX, 0),
        Err(StoreError::TooLarge { .. })
    ));
}

#[test]
fn pages_keep_hashes_and_snapshots() {
    let (mut store, run, page) = store_with_page();
    let record = store.page(page).unwrap().unwrap();
    assert_eq!(record.run_id, run);
    assert_eq!(record.url_or_path, "https://shop.example/books?page=1");
    assert_eq!(record.size, 14);
    assert_eq!(record.sha256, snapshot::sha256_hex(b"<html>1</html>"));
    assert!(record.snapshot.is_some());
    assert_eq!(
        store.page_html(page).unwrap().as_deref(),
        Some(&b"<html>1</html>"[..])
    );
    let json = serde_json::to_value(&record).unwrap();
    assert!(json["snapshot"].is_u64());

    let bare = store
        .record_page(run, "two.html", b"<p>2</p>", false)
        .unwrap();
    let record = store.page(bare).unwrap().unwrap();
    assert_eq!(record.snapshot, None);
    assert_eq!(
        serde_json::to_value(&record).unwrap()["snapshot"],
        json!(null)
    );
    assert_eq!(store.page_html(bare).unwrap(), None);

    assert_eq!(store.page(PageId(99)).unwrap(), None);
    assert!(matches!(
        store.page_html(PageId(99)),
        Err(StoreError::UnknownPage(PageId(99)))
    ));
    assert!(matches!(
        store.record_page(RunId(99), "x", b"x", true),
        Err(StoreError::UnknownRun(RunId(99)))
    ));
}

#[test]
fn snapshots_are_compressed_and_kept_once() {
    let (mut store, run, _) = store_with_page();
    let html = "<li class=\"book\"><a href=\"/b\">A book</a><p>£1.00</p></li>\n".repeat(500);
    let a = store
        .record_page(run, "a.html", html.as_bytes(), true)
        .unwrap();
    let b = store
        .record_page(run, "b.html", html.as_bytes(), true)
        .unwrap();
    let c = store
        .record_page(run, "c.html", html.as_bytes(), false)
        .unwrap();
    let (snapshots, stored): (i64, i64) = store
        .conn
        .query_row(
            "SELECT count(*), sum(length(zlib)) FROM snapshots",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    // The page of store_with_page, and this one once.
    assert_eq!(snapshots, 2);
    assert!((stored as usize) * 10 < html.len(), "{stored} bytes stored");
    for page in [a, b] {
        assert_eq!(store.page_html(page).unwrap().unwrap(), html.as_bytes());
    }
    // Not asked to keep its snapshot, but the same content is kept already.
    assert_eq!(store.page_html(c).unwrap().unwrap(), html.as_bytes());
    assert_eq!(
        store.page(a).unwrap().unwrap().sha256,
        store.page(c).unwrap().unwrap().sha256
    );
}

#[test]
fn a_snapshot_made_beforehand_is_kept_as_record_page_keeps_one() {
    let (mut store, run, _) = store_with_page();
    let html = "<li class=\"book\"><a href=\"/b\">A book</a><p>£2.00</p></li>\n".repeat(300);
    let snapshot = Snapshot::of(html.as_bytes()).unwrap();
    assert_eq!(snapshot.sha256(), page_hash(html.as_bytes()));
    assert_eq!(snapshot.size(), html.len() as u64);
    let mut batch = store.batch().unwrap();
    let made = batch
        .record_snapshot_page(run, "made.html", &snapshot)
        .unwrap();
    let again = batch
        .record_snapshot_page(run, "again.html", &snapshot)
        .unwrap();
    let plain = batch
        .record_page(run, "plain.html", html.as_bytes(), true)
        .unwrap();
    batch.commit().unwrap();
    for page in [made, again, plain] {
        let record = store.page(page).unwrap().unwrap();
        assert_eq!(record.sha256, snapshot.sha256());
        assert_eq!(record.size, html.len() as u64);
        assert_eq!(store.page_html(page).unwrap().unwrap(), html.as_bytes());
    }
    let snapshots: i64 = store
        .conn
        .query_row("SELECT count(*) FROM snapshots", [], |r| r.get(0))
        .unwrap();
    // The page of store_with_page, and this content once.
    assert_eq!(snapshots, 2);
}

#[test]
fn a_page_too_large_has_no_snapshot() {
    let bytes = vec![b' '; MAX_SNAPSHOT_BYTES as usize + 1];
    assert!(matches!(
        Snapshot::of(&bytes),
        Err(StoreError::TooLarge { .. })
    ));
}

#[test]
fn damaged_snapshots_are_errors() {
    let (store, _, page) = store_with_page();
    store
        .conn
        .execute("UPDATE snapshots SET zlib = x'00ff00ff'", [])
        .unwrap();
    assert!(matches!(store.page_html(page), Err(StoreError::Corrupt(_))));

    let (store, _, page) = store_with_page();
    let other = snapshot::compress(b"<html>2</html>");
    store
        .conn
        .execute("UPDATE snapshots SET zlib = ?1", [other])
        .unwrap();
    assert!(matches!(store.page_html(page), Err(StoreError::Corrupt(_))));
}

#[test]
fn adaptations_round_trip() {
    let (mut store, run, page) = store_with_page();
    let new = proposal(page, "book/price", ".//span[@itemprop='price']", 2_000);
    let id = store.record_adaptation(&new).unwrap();
    let record = store.adaptation(id).unwrap().unwrap();
    assert_eq!(
        record,
        AdaptationRecord {
            id,
            run_id: run,
            page_id: page,
            wrapper: "bookshop".to_owned(),
            pattern: new.pattern.clone(),
            old_xpath: new.old_xpath.clone(),
            new_xpath: new.new_xpath.clone(),
            algorithm: new.algorithm.clone(),
            score: new.score,
            runner_up: new.runner_up,
            status: new.status,
            change_scope: new.change_scope.clone(),
            reason: None,
            model: None,
            confidence: None,
            candidates: new.candidates.clone(),
            samples_before: new.samples_before.clone(),
            samples_after: new.samples_after.clone(),
            constraint_results: new.constraint_results.clone(),
            created_at: new.created_at,
            page_count: 1,
            decision: None,
            state: State::Proposed,
            reverts: Vec::new(),
        }
    );
    assert!(record.is_pending());
    let json = serde_json::to_value(&record).unwrap();
    assert_eq!(json["status"], "proposed");
    assert_eq!(json["pattern"], "book/price");
    assert_eq!(json["candidates"][1]["score"], 0.42);
    assert_eq!(json["samples_after"][2]["raw"], "£51.77");
    assert_eq!(json["decision"], json!(null));

    let abstained = NewAdaptation {
        new_xpath: None,
        algorithm: None,
        score: None,
        runner_up: None,
        status: AdaptationStatus::Abstained,
        change_scope: None,
        reason: Some("no candidate reached 0.75".to_owned()),
        model: None,
        confidence: None,
        candidates: Vec::new(),
        samples_after: Vec::new(),
        constraint_results: Vec::new(),
        ..new
    };
    let id = store.record_adaptation(&abstained).unwrap();
    let record = store.adaptation(id).unwrap().unwrap();
    assert_eq!(record.status, AdaptationStatus::Abstained);
    assert_eq!(record.reason.as_deref(), Some("no candidate reached 0.75"));
    assert_eq!(record.new_xpath, None);
    assert!(record.candidates.is_empty());
    assert!(!record.is_pending());
    assert_eq!(store.adaptation(AdaptationId(99)).unwrap(), None);
}

#[test]
fn adaptations_that_would_mislead_are_refused() {
    let (mut store, _, page) = store_with_page();
    let mut nan = proposal(page, "book/price", "//x", 1);
    nan.candidates[1].score = f64::NAN;
    assert!(matches!(
        store.record_adaptation(&nan),
        Err(StoreError::NotFinite { .. })
    ));
    let mut infinite = proposal(page, "book/price", "//x", 1);
    infinite.runner_up = Some(f64::INFINITY);
    assert!(matches!(
        store.record_adaptation(&infinite),
        Err(StoreError::NotFinite { .. })
    ));
    let mut blank = proposal(page, "book/price", "//x", 1);
    blank.new_xpath = None;
    assert!(matches!(
        store.record_adaptation(&blank),
        Err(StoreError::MissingXPath { .. })
    ));
    let orphan = proposal(PageId(99), "book/price", "//x", 1);
    assert!(matches!(
        store.record_adaptation(&orphan),
        Err(StoreError::UnknownPage(PageId(99)))
    ));
    // Nothing was half-written by the refusals.
    assert!(
        store
            .adaptations(&AdaptationFilter::default())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn filters_and_newest_first() {
    let (mut store, run, page) = store_with_page();
    let news_run = store
        .begin_run("news", Path::new("news.yaml"), HealMode::Auto, at(1))
        .unwrap();
    let news_page = store.record_page(news_run, "n.html", b"n", true).unwrap();
    let price = store
        .record_adaptation(&proposal(page, "book/price", "//a", 300))
        .unwrap();
    let title = store
        .record_adaptation(&proposal(page, "book/title", "//b", 100))
        .unwrap();
    let mut applied = proposal(news_page, "headline", "//h1", 200);
    applied.status = AdaptationStatus::Applied;
    let headline = store.record_adaptation(&applied).unwrap();
    // Same time as `price`: the later record comes first.
    let price_again = store
        .record_adaptation(&proposal(page, "book/price", "//c", 300))
        .unwrap();
    store
        .decide(price, Verdict::Rejected, None, at(400))
        .unwrap();

    let ids = |filter: AdaptationFilter<'_>| {
        store
            .adaptations(&filter)
            .unwrap()
            .into_iter()
            .map(|a| a.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids(AdaptationFilter::default()),
        [price_again, price, headline, title]
    );
    let bookshop = AdaptationFilter {
        wrapper: Some("bookshop"),
        ..Default::default()
    };
    assert_eq!(ids(bookshop), [price_again, price, title]);
    assert_eq!(
        ids(AdaptationFilter {
            pattern: Some("book/price"),
            ..bookshop
        }),
        [price_again, price]
    );
    assert_eq!(
        ids(AdaptationFilter {
            status: Some(AdaptationStatus::Applied),
            ..Default::default()
        }),
        [headline]
    );
    assert_eq!(
        ids(AdaptationFilter {
            run: Some(run),
            ..Default::default()
        }),
        [price_again, price, title]
    );
    assert_eq!(
        ids(AdaptationFilter {
            pending: true,
            ..Default::default()
        }),
        [price_again, title]
    );
    assert_eq!(
        ids(AdaptationFilter {
            limit: Some(2),
            ..Default::default()
        }),
        [price_again, price]
    );
    assert!(
        ids(AdaptationFilter {
            wrapper: Some("nothing"),
            ..Default::default()
        })
        .is_empty()
    );
    let listed = store.adaptations(&bookshop).unwrap();
    assert_eq!(
        listed[1].decision.as_ref().unwrap().verdict,
        Verdict::Rejected
    );
    assert_eq!(listed[0].candidates.len(), 2);
    assert_eq!(listed[0].constraint_results.len(), 2);
}

#[test]
fn batches_commit_together_or_not_at_all() {
    let (mut store, run, _) = store_with_page();
    {
        let mut batch = store.batch().unwrap();
        let page = batch
            .record_page(run, "kept.html", b"<p>kept</p>", true)
            .unwrap();
        batch
            .record_adaptation(&proposal(page, "book/price", "//kept", 1))
            .unwrap();
        batch.commit().unwrap();
    }
    {
        let mut batch = store.batch().unwrap();
        let page = batch
            .record_page(run, "lost.html", b"<p>lost</p>", true)
            .unwrap();
        batch
            .record_adaptation(&proposal(page, "book/price", "//lost", 1))
            .unwrap();
        // Dropped without a commit.
    }
    let all = store.adaptations(&AdaptationFilter::default()).unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].new_xpath.as_deref(), Some("//kept"));
    assert_eq!(
        store.page_html(all[0].page_id).unwrap().as_deref(),
        Some(&b"<p>kept</p>"[..])
    );
    let pages: i64 = store
        .conn
        .query_row("SELECT count(*) FROM pages", [], |r| r.get(0))
        .unwrap();
    assert_eq!(pages, 2);
}

#[test]
fn damaged_rows_are_errors() {
    let (mut store, run, page) = store_with_page();
    let id = store
        .record_adaptation(&proposal(page, "book/price", "//a", 1))
        .unwrap();
    store
        .conn
        .execute_batch(
            "PRAGMA ignore_check_constraints = ON;
             UPDATE adaptations SET status = 'maybe';
             UPDATE runs SET heal_mode = 'sometimes', pages = -1;",
        )
        .unwrap();
    assert!(matches!(store.adaptation(id), Err(StoreError::Corrupt(_))));
    assert!(matches!(
        store.adaptations(&AdaptationFilter::default()),
        Err(StoreError::Corrupt(_))
    ));
    assert!(matches!(
        store.decide(id, Verdict::Approved, None, at(1)),
        Err(StoreError::Corrupt(_))
    ));
    assert!(matches!(store.run(run), Err(StoreError::Corrupt(_))));
    store
        .conn
        .execute_batch("UPDATE adaptations SET status = 'proposed', samples_after = '{';")
        .unwrap();
    assert!(matches!(store.adaptation(id), Err(StoreError::Corrupt(_))));
    store
        .conn
        .execute_batch("UPDATE adaptations SET samples_after = '[]', created_at = 'soon';")
        .unwrap();
    assert!(matches!(store.adaptation(id), Err(StoreError::Sqlite(_))));
}

#[test]
fn violations_become_failed_constraint_results() {
    let violation = Violation {
        pattern: "book/price".parse().unwrap(),
        constraint: crate::extract::ViolationKind::Regex,
        expected: "text matching ^£\\d+\\.\\d\\d$".to_owned(),
        found: "\"Free\"".to_owned(),
        context: "/".to_owned(),
        node: None,
    };
    let result = ConstraintResult::from(&violation);
    assert_eq!(result.constraint, "regex");
    assert!(!result.passed);
    assert_eq!(
        result.detail,
        "expected text matching ^£\\d+\\.\\d\\d$, found \"Free\""
    );
}

#[test]
fn ids_and_statuses_parse_from_the_command_line() {
    assert_eq!(" 42 ".parse::<AdaptationId>().unwrap(), AdaptationId(42));
    assert!("forty".parse::<AdaptationId>().is_err());
    for status in [
        AdaptationStatus::Applied,
        AdaptationStatus::Proposed,
        AdaptationStatus::Abstained,
        AdaptationStatus::Rejected,
    ] {
        assert_eq!(status.as_str().parse::<AdaptationStatus>().unwrap(), status);
        assert_eq!(
            serde_json::to_value(status).unwrap(),
            json!(status.as_str())
        );
    }
    assert!("pending".parse::<AdaptationStatus>().is_err());
}

#[test]
fn an_entry_stands_for_every_page_it_was_found_on() {
    let (mut store, run, first) = store_with_page();
    let mut batch = store.batch().unwrap();
    let second = batch
        .record_page_hash(run, "p2.html", &page_hash(b"<html>2</html>"), 14)
        .unwrap();
    let third = batch
        .record_page(run, "p3.html", b"<html>1</html>", false)
        .unwrap();
    let id = batch
        .record_adaptation(&proposal(first, "book/price", ".//b", 2_000))
        .unwrap();
    // A page already among the entry's counts once.
    batch
        .add_pages(id, &[first, second, third, second])
        .unwrap();
    batch.commit().unwrap();
    assert_eq!(store.adaptation(id).unwrap().unwrap().page_count, 3);
    assert_eq!(
        store.adaptation_pages(id).unwrap(),
        vec![first, second, third]
    );
    // The page kept by hash links to no snapshot; the one whose content is
    // kept already shares it.
    assert_eq!(store.page_html(second).unwrap(), None);
    assert_eq!(
        store.page_html(third).unwrap().as_deref(),
        Some(&b"<html>1</html>"[..])
    );
    let mut batch = store.batch().unwrap();
    assert!(matches!(
        batch.add_pages(AdaptationId(99), &[first]),
        Err(StoreError::UnknownAdaptation(_))
    ));
}

#[test]
fn a_waiting_proposal_takes_the_pages_of_its_twin_until_it_is_decided() {
    let (mut store, _, page) = store_with_page();
    let id = store
        .record_adaptation(&proposal(page, "book/price", ".//b", 2_000))
        .unwrap();
    let canonical = std::fs::canonicalize("wrappers/bookshop.yaml").ok();
    let twin = |store: &mut Store, new: &str| {
        let batch = store.batch().unwrap();
        batch
            .pending_twin(
                "bookshop",
                canonical.as_deref(),
                "book/price",
                ".//p[@class='price']",
                new,
            )
            .unwrap()
    };
    assert_eq!(twin(&mut store, ".//b"), Some(id));
    assert_eq!(twin(&mut store, ".//i"), None);
    // Twins recorded one per page by an earlier mend are found from either.
    let older = store
        .record_adaptation(&proposal(page, "book/price", ".//b", 3_000))
        .unwrap();
    assert_eq!(store.pending_twins(id).unwrap(), vec![older]);
    store
        .decide(id, Verdict::Approved, None, at(4_000))
        .unwrap();
    assert_eq!(twin(&mut store, ".//b"), Some(older));
    store
        .decide(older, Verdict::Rejected, None, at(5_000))
        .unwrap();
    assert_eq!(twin(&mut store, ".//b"), None);
}

#[test]
fn history_fallbacks_add_up_per_run() {
    let (mut store, run, _) = store_with_page();
    for _ in 0..2 {
        let mut batch = store.batch().unwrap();
        batch.record_fallback(run, "book/isbn", "//old", 3).unwrap();
        batch.commit().unwrap();
    }
    assert_eq!(
        store.fallbacks(run).unwrap(),
        vec![("book/isbn".to_owned(), "//old".to_owned(), 6)]
    );
}

#[test]
fn the_model_that_judged_an_adaptation_and_its_confidence_are_kept() {
    let (mut store, _, page) = store_with_page();
    let judged = NewAdaptation {
        model: Some("heal-gbdt-0123456789ab".to_owned()),
        confidence: Some(0.934),
        ..proposal(page, "book/price", "//span[@class='cost']", 2_000)
    };
    let id = store.record_adaptation(&judged).unwrap();
    let unjudged = store
        .record_adaptation(&proposal(page, "book", "//li", 2_001))
        .unwrap();
    let record = store.adaptation(id).unwrap().unwrap();
    assert_eq!(record.model.as_deref(), Some("heal-gbdt-0123456789ab"));
    assert_eq!(record.confidence, Some(0.934));
    let record = store.adaptation(unjudged).unwrap().unwrap();
    assert_eq!((record.model, record.confidence), (None, None));
    // A confidence that is not a number is refused, not stored as null.
    let nan = NewAdaptation {
        confidence: Some(f64::NAN),
        ..proposal(page, "book/title", "//h3", 2_002)
    };
    assert!(store.record_adaptation(&nan).is_err());
}
