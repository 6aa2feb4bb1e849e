//! Decisions on proposals, and the negative examples rejections leave.

use super::*;

#[test]
fn decisions_are_recorded_once_and_only_on_proposals() {
    let (mut store, _, page) = store_with_page();
    let id = store
        .record_adaptation(&proposal(page, "book/price", "//a", 1))
        .unwrap();
    assert_eq!(store.decision(id).unwrap(), None);
    let decision = store
        .decide(id, Verdict::Approved, Some("looks right"), at(50))
        .unwrap();
    assert_eq!(
        decision,
        Decision {
            adaptation_id: id,
            verdict: Verdict::Approved,
            reason: Some("looks right".to_owned()),
            decided_at: at(50),
            by: None,
        }
    );
    assert_eq!(store.decision(id).unwrap(), Some(decision.clone()));
    let record = store.adaptation(id).unwrap().unwrap();
    assert_eq!(record.decision, Some(decision));
    // The status stays what the run did.
    assert_eq!(record.status, AdaptationStatus::Proposed);
    assert!(!record.is_pending());
    assert_eq!(
        serde_json::to_value(&record).unwrap()["decision"]["verdict"],
        "approved"
    );

    match store.decide(id, Verdict::Rejected, None, at(60)) {
        Err(StoreError::AlreadyDecided { id: got, verdict }) => {
            assert_eq!((got, verdict), (id, Verdict::Approved));
        }
        other => panic!("expected AlreadyDecided, got {other:?}"),
    }
    let mut applied = proposal(page, "book/price", "//b", 2);
    applied.status = AdaptationStatus::Applied;
    let applied = store.record_adaptation(&applied).unwrap();
    assert!(matches!(
        store.decide(applied, Verdict::Approved, None, at(70)),
        Err(StoreError::NotProposed {
            status: AdaptationStatus::Applied,
            ..
        })
    ));
    let mut abstained = proposal(page, "book/price", "//c", 3);
    abstained.status = AdaptationStatus::Abstained;
    abstained.new_xpath = None;
    let abstained = store.record_adaptation(&abstained).unwrap();
    assert!(matches!(
        store.decide(abstained, Verdict::Rejected, None, at(70)),
        Err(StoreError::NotProposed {
            status: AdaptationStatus::Abstained,
            ..
        })
    ));
    assert!(matches!(
        store.decide(AdaptationId(99), Verdict::Approved, None, at(70)),
        Err(StoreError::UnknownAdaptation(AdaptationId(99)))
    ));
    assert!(matches!(
        store.decision(AdaptationId(99)),
        Err(StoreError::UnknownAdaptation(AdaptationId(99)))
    ));
    assert_eq!(store.decision(applied).unwrap(), None);
}

#[test]
fn an_applied_adaptation_can_be_rejected_after_the_fact() {
    let (mut store, _, page) = store_with_page();
    let mut applied = proposal(page, "book/price", "//b", 1);
    applied.status = AdaptationStatus::Applied;
    let applied = store.record_adaptation(&applied).unwrap();
    let decision = store
        .decide(applied, Verdict::Rejected, Some("wrong column"), at(5))
        .unwrap();
    assert_eq!(decision.verdict, Verdict::Rejected);
    let record = store.adaptation(applied).unwrap().unwrap();
    assert_eq!(record.status, AdaptationStatus::Applied);
    assert_eq!(record.decision, Some(decision));
    assert!(store.is_rejected("bookshop", "book/price", "//b").unwrap());
}

#[test]
fn rejected_xpaths_become_negative_examples() {
    let (mut store, _, page) = store_with_page();
    let other_run = store
        .begin_run("news", Path::new("news.yaml"), HealMode::Propose, at(1))
        .unwrap();
    let other_page = store.record_page(other_run, "n.html", b"n", false).unwrap();
    let mut decide = |page: PageId, pattern: &str, xpath: &str, verdict: Option<Verdict>| {
        let id = store
            .record_adaptation(&proposal(page, pattern, xpath, 1))
            .unwrap();
        if let Some(verdict) = verdict {
            store.decide(id, verdict, Some("wrong"), at(2)).unwrap();
        }
    };
    decide(page, "book/price", "//span[1]", Some(Verdict::Rejected));
    decide(page, "book/price", "//span[2]", Some(Verdict::Rejected));
    decide(page, "book/price", "//span[3]", Some(Verdict::Approved));
    decide(page, "book/price", "//span[4]", None);
    decide(page, "book/title", "//h3", Some(Verdict::Rejected));
    decide(other_page, "book/price", "//em", Some(Verdict::Rejected));

    let rejected = store.rejected_xpaths("bookshop", "book/price").unwrap();
    let mut sorted: Vec<_> = rejected.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    assert_eq!(sorted, ["//span[1]", "//span[2]"]);
    assert!(
        store
            .is_rejected("bookshop", "book/price", "//span[1]")
            .unwrap()
    );
    assert!(
        !store
            .is_rejected("bookshop", "book/price", "//span[3]")
            .unwrap()
    );
    assert!(
        !store
            .is_rejected("bookshop", "book/price", "//span[4]")
            .unwrap()
    );
    assert!(!store.is_rejected("bookshop", "book/price", "//h3").unwrap());
    assert!(!store.is_rejected("bookshop", "book/price", "//em").unwrap());
    assert!(store.is_rejected("news", "book/price", "//em").unwrap());
    assert!(
        store
            .rejected_xpaths("bookshop", "nothing")
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_decision_and_a_revert_record_who_made_them() {
    let (mut store, _, page) = store_with_page();
    store.act_as(Some("ada via the review page".to_owned()));
    let id = store
        .record_adaptation(&proposal(page, "price", "//b", 10))
        .unwrap();
    let decided = store.decide(id, Verdict::Approved, None, at(20)).unwrap();
    assert_eq!(decided.by.as_deref(), Some("ada via the review page"));
    let record = store.adaptation(id).unwrap().unwrap();
    assert_eq!(
        record.decision.and_then(|d| d.by).as_deref(),
        Some("ada via the review page")
    );
    store.act_as(Some("grace".to_owned()));
    store.turn_to_rejection(id, Some("wrong"), at(30)).unwrap();
    assert_eq!(
        store.decision(id).unwrap().and_then(|d| d.by).as_deref(),
        Some("grace")
    );
    // Nobody named, nobody recorded.
    store.act_as(None);
    let other = store
        .record_adaptation(&proposal(page, "title", "//h1", 40))
        .unwrap();
    let decided = store
        .decide(other, Verdict::Rejected, None, at(50))
        .unwrap();
    assert_eq!(decided.by, None);
}

#[test]
fn an_adaptation_is_reverted_once_and_only_rejected_after_the_fact_when_in_the_wrapper() {
    let (mut store, _, page) = store_with_page();
    let mut applied = proposal(page, "book/price", "//b", 1);
    applied.status = AdaptationStatus::Applied;
    let applied = store.record_adaptation(&applied).unwrap();
    let revert = |store: &mut Store| {
        let mut batch = store.batch()?;
        let change = batch.begin_change(Path::new("/w.yaml"), ChangeKind::Revert, &[], at(5))?;
        batch.revert_in_change(applied, None, at(5), change)?;
        batch.commit()
    };
    revert(&mut store).unwrap();
    // Two reverts that both passed the caller's check: the second is refused
    // in its own transaction, and nothing of it is recorded.
    let second = revert(&mut store).unwrap_err();
    assert!(
        matches!(second, StoreError::AlreadyReverted { id } if id == applied),
        "{second}"
    );
    assert_eq!(store.reverts(applied).unwrap().len(), 1);

    let waiting = store
        .record_adaptation(&proposal(page, "book/title", "//h1", 2))
        .unwrap();
    let refused = store.turn_to_rejection(waiting, None, at(6)).unwrap_err();
    assert!(
        matches!(refused, StoreError::NotInWrapper { .. }),
        "{refused}"
    );
    let unknown = AdaptationId(applied.0 + 100);
    let refused = store.turn_to_rejection(unknown, None, at(6)).unwrap_err();
    assert!(
        matches!(refused, StoreError::UnknownAdaptation(_)),
        "{refused}"
    );
    store
        .turn_to_rejection(applied, Some("wrong"), at(7))
        .unwrap();
    assert_eq!(
        store.decision(applied).unwrap().map(|d| d.verdict),
        Some(Verdict::Rejected)
    );
}
