//! The decisions as library calls: a wrapper file, its tree-gram and a
//! store in a temporary folder, with a run, a page and adaptations recorded
//! through the store's API.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::*;
use crate::store::{
    AdaptationFilter, AdaptationId, AdaptationStatus, NewAdaptation, PageId, State, Store, Verdict,
};
use crate::wrapper::HealMode;

/// A wrapper whose nested `price` pattern broke: the page has no `p.price`.
const WRAPPER: &str = "\
# A shop, with comments that must survive a rewrite.
name: shop
patterns:
  - name: book
    xpath: //li
    patterns:
      - name: price  # in pounds
        xpath: ./p[@class='price']   # broke in May
        treegram: treegrams/shop/book/price.html
";

const PAGE: &str = "<html><body><ul>\
    <li><h3>A</h3><span class=\"cost\">£1.00</span></li>\
    <li><h3>B</h3><span class=\"cost\">£2.50</span></li>\
    </ul></body></html>";

/// The tree-gram as it was before any decision.
const GRAM: &str = "<!-- the tree-gram captured when the price was a paragraph -->\n";

const OLD: &str = "./p[@class='price']";
const NEW: &str = "./span[@class='cost']";

/// `shop.yaml`, its tree-gram and its store at `.mend/mend.db`, holding
/// one run of the wrapper (by its absolute path) and one page.
struct Shop {
    dir: tempfile::TempDir,
    store: Store,
    page: PageId,
}

impl Shop {
    fn new(wrapper: &str) -> Shop {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("shop.yaml"), wrapper).unwrap();
        let gram = dir.path().join("treegrams/shop/book/price.html");
        std::fs::create_dir_all(gram.parent().unwrap()).unwrap();
        std::fs::write(gram, GRAM).unwrap();
        let mut store = Store::open(&dir.path().join(".mend/mend.db")).unwrap();
        let run = store
            .begin_run(
                "shop",
                &dir.path().join("shop.yaml"),
                HealMode::Propose,
                at(1_000),
            )
            .unwrap();
        let page = store
            .record_page(run, "pages/shop.html", PAGE.as_bytes(), true)
            .unwrap();
        Shop { dir, store, page }
    }

    fn store_path(&self) -> PathBuf {
        self.dir.path().join(".mend/mend.db")
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.file(name)).unwrap()
    }

    /// Records an adaptation of `book/price` from [`OLD`] to [`NEW`].
    fn adaptation(&mut self, status: AdaptationStatus, created: i64) -> AdaptationId {
        self.store
            .record_adaptation(&NewAdaptation {
                page_id: self.page,
                pattern: "book/price".to_owned(),
                old_xpath: OLD.to_owned(),
                new_xpath: Some(NEW.to_owned()),
                algorithm: Some("ctm".to_owned()),
                score: Some(0.93),
                runner_up: Some(0.41),
                status,
                change_scope: None,
                reason: None,
                model: None,
                confidence: None,
                candidates: vec![],
                samples_before: vec![json!(null), json!(null)],
                samples_after: vec![json!(1.0), json!(2.5)],
                constraint_results: vec![],
                created_at: at(created),
            })
            .unwrap()
    }

    /// Makes a decision on adaptation `id` of the shop's store.
    fn decide<T>(
        &mut self,
        decision: Decide<T>,
        id: AdaptationId,
        options: &DecisionOptions,
    ) -> Result<T, ReviewError> {
        let path = self.store_path();
        decision(&mut self.store, &path, id, options)
    }

    fn verdict(&self, id: AdaptationId) -> Option<Verdict> {
        self.store.decision(id).unwrap().map(|d| d.verdict)
    }
}

/// [`approve`], [`reject`] or [`revert`].
type Decide<T> = fn(&mut Store, &Path, AdaptationId, &DecisionOptions) -> Result<T, ReviewError>;

fn at(millis: i64) -> Timestamp {
    Timestamp::from_unix_millis(millis)
}

/// Options with a reason, at time `millis`.
fn options(reason: Option<&str>, millis: i64) -> DecisionOptions<'_> {
    DecisionOptions {
        reason,
        force: false,
        wrapper: None,
        now: at(millis),
    }
}

/// Checks that `error` is a refusal the person can act on, worded as `expected`.
fn check_bad_input(error: &ReviewError, expected: &str) {
    assert!(error.is_bad_input(), "{error:?}");
    assert_eq!(error.to_string(), expected);
}

#[test]
fn approve_rewrites_the_wrapper_and_refreshes_the_treegram() {
    let mut shop = Shop::new(WRAPPER);
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let approved = shop
        .decide(approve, id, &options(Some("the price moved"), 5_000))
        .unwrap();
    assert!(approved.rewritten);
    assert_eq!(approved.new_xpath, NEW);
    assert_eq!(approved.file, shop.file("shop.yaml"));
    assert_eq!(approved.twins, []);
    assert_eq!(
        approved.refreshed,
        [shop.file("treegrams/shop/book/price.html")]
    );
    assert!(approved.treegram_note.is_none());
    assert!(approved.wrapper_note.is_none());
    assert!(approved.unmarked.is_none());
    // Only the XPath changes, and the old one goes to the history.
    assert_eq!(
        shop.read("shop.yaml"),
        WRAPPER.replace(
            &format!("xpath: {OLD}   # broke in May\n"),
            &format!("xpath: {NEW}   # broke in May\n        history:\n          - {OLD}\n")
        )
    );
    let gram = shop.read("treegrams/shop/book/price.html");
    assert!(gram.contains("£2.50"), "{gram}");
    let decision = shop.store.decision(id).unwrap().unwrap();
    assert_eq!(decision.verdict, Verdict::Approved);
    assert_eq!(decision.reason.as_deref(), Some("the price moved"));
    assert_eq!(decision.decided_at, at(5_000), "the caller's time");
}

/// A proposal that stands for two stored pages refreshes its tree-gram over
/// both: the refreshed file says what it learned across them.
#[test]
fn approve_refreshes_the_treegram_over_every_page_the_proposal_stands_for() {
    let mut shop = Shop::new(WRAPPER);
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let run = shop.store.page(shop.page).unwrap().unwrap().run_id;
    let other = PAGE.replace("£1.00", "£7.00").replace("£2.50", "£8.25");
    let second = shop
        .store
        .record_page(run, "pages/shop-2.html", other.as_bytes(), true)
        .unwrap();
    let mut batch = shop.store.batch().unwrap();
    batch.add_pages(id, &[second]).unwrap();
    batch.commit().unwrap();
    shop.decide(approve, id, &options(None, 5_000)).unwrap();
    let gram = shop.read("treegrams/shop/book/price.html");
    assert!(
        gram.contains(r#"<meta name="mend:pages" content="2">"#),
        "{gram}"
    );
    assert!(gram.contains("£2.50"), "{gram}");
}

#[test]
fn approving_twice_is_refused_as_bad_input() {
    let mut shop = Shop::new(WRAPPER);
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    shop.decide(approve, id, &options(None, 5_000)).unwrap();
    let approved = shop.read("shop.yaml");
    let error = shop.decide(approve, id, &options(None, 6_000)).unwrap_err();
    check_bad_input(
        &error,
        &format!(
            "adaptation {id} was already approved at {}; a decision is not changed",
            at(5_000)
        ),
    );
    assert_eq!(shop.read("shop.yaml"), approved);
}

#[test]
fn approve_settles_the_twins_and_records_one_time() {
    let mut shop = Shop::new(WRAPPER);
    let first = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let twin = shop.adaptation(AdaptationStatus::Proposed, 3_000);
    let approved = shop.decide(approve, first, &options(None, 5_000)).unwrap();
    assert_eq!(approved.twins, [twin]);
    let decision = shop.store.decision(twin).unwrap().unwrap();
    assert_eq!(decision.verdict, Verdict::Approved);
    assert_eq!(decision.decided_at, at(5_000));
    assert_eq!(
        decision.reason,
        Some(format!(
            "the same XPath as adaptation {first}, approved with it"
        ))
    );
}

#[test]
fn approve_refuses_a_wrapper_that_changed_since_unless_forced() {
    let changed = WRAPPER.replace(OLD, "./p[@class='amount']");
    let mut shop = Shop::new(&changed);
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let error = shop.decide(approve, id, &options(None, 5_000)).unwrap_err();
    assert!(
        matches!(error, ReviewError::ChangedSinceAdaptation(_)),
        "{error:?}"
    );
    assert!(error.is_bad_input());
    assert_eq!(shop.read("shop.yaml"), changed);
    assert_eq!(shop.verdict(id), None);
    let forced = DecisionOptions {
        force: true,
        ..options(None, 6_000)
    };
    assert!(shop.decide(approve, id, &forced).unwrap().rewritten);
    assert!(
        shop.read("shop.yaml")
            .contains("          - ./p[@class='amount']")
    );
}

#[test]
fn approve_of_a_wrapper_that_does_not_load_carries_its_diagnostics() {
    let mut shop = Shop::new(WRAPPER);
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    std::fs::write(shop.file("shop.yaml"), "name: shop\npatterns: 3\n").unwrap();
    let error = shop.decide(approve, id, &options(None, 5_000)).unwrap_err();
    let file = shop.file("shop.yaml");
    check_bad_input(
        &error,
        &format!("{} does not load; fix it before approving", file.display()),
    );
    assert!(
        error.diagnostics().is_some_and(|d| !d.is_empty()),
        "{error:?}"
    );
}

#[test]
fn only_proposals_are_approved() {
    let mut shop = Shop::new(WRAPPER);
    let applied = shop.adaptation(AdaptationStatus::Applied, 2_000);
    let error = shop
        .decide(approve, applied, &options(None, 5_000))
        .unwrap_err();
    assert!(
        matches!(error, ReviewError::AppliedByRun { .. }),
        "{error:?}"
    );
    assert!(error.is_bad_input());
    let unknown = AdaptationId(99);
    let error = shop
        .decide(approve, unknown, &options(None, 5_000))
        .unwrap_err();
    check_bad_input(
        &error,
        &format!(
            "no adaptation 99 in the store {} (its newest is {applied}); an id printed by a run \
             that used another store needs --store PATH",
            shop.store_path().display()
        ),
    );
    assert_eq!(shop.read("shop.yaml"), WRAPPER);
}

#[test]
fn reject_of_an_applied_heal_reverts_then_rejects() {
    let mut shop = Shop::new(&WRAPPER.replace(OLD, NEW));
    let id = shop.adaptation(AdaptationStatus::Applied, 2_000);
    let rejected = shop
        .decide(reject, id, &options(Some("the shipping cost"), 5_000))
        .unwrap();
    let reverted = rejected.reverted.expect("the heal was in the wrapper");
    assert_eq!(reverted.new_xpath, NEW);
    // The run wrote no tree-gram for it, so none is put back.
    assert_eq!(reverted.left_alone, Vec::<PathBuf>::new());
    // The wrong XPath is not kept as a fallback.
    assert_eq!(shop.read("shop.yaml"), WRAPPER);
    let decision = shop.store.decision(id).unwrap().unwrap();
    assert_eq!(decision.verdict, Verdict::Rejected);
    assert_eq!(decision.reason.as_deref(), Some("the shipping cost"));
    assert!(shop.store.is_rejected("shop", "book/price", NEW).unwrap());
    assert_eq!(shop.store.reverts(id).unwrap().len(), 1);
    // Nothing is left in the wrapper to reject again.
    let error = shop.decide(reject, id, &options(None, 6_000)).unwrap_err();
    check_bad_input(
        &error,
        &format!("adaptation {id} was already rejected at {}", at(5_000)),
    );
}

#[test]
fn reject_of_a_proposal_leaves_the_wrapper_and_rejects_its_twins() {
    let mut shop = Shop::new(WRAPPER);
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let twin = shop.adaptation(AdaptationStatus::Proposed, 3_000);
    let rejected = shop.decide(reject, id, &options(None, 5_000)).unwrap();
    assert!(rejected.reverted.is_none());
    assert_eq!(rejected.twins, [twin]);
    assert_eq!(shop.verdict(id), Some(Verdict::Rejected));
    assert_eq!(shop.verdict(twin), Some(Verdict::Rejected));
    assert_eq!(shop.read("shop.yaml"), WRAPPER);
    assert_eq!(shop.read("treegrams/shop/book/price.html"), GRAM);
}

#[test]
fn revert_after_approve_puts_the_wrapper_and_the_treegram_back() {
    let mut shop = Shop::new(WRAPPER);
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    shop.decide(approve, id, &options(None, 5_000)).unwrap();
    assert_ne!(shop.read("treegrams/shop/book/price.html"), GRAM);
    let reverted = shop
        .decide(revert, id, &options(Some("wrong column"), 6_000))
        .unwrap();
    assert_eq!(reverted.file, shop.file("shop.yaml"));
    assert_eq!(reverted.new_xpath, NEW);
    assert!(reverted.left_alone.is_empty(), "{:?}", reverted.left_alone);
    // The tree-gram byte for byte; the wrapper with the old XPath, and the
    // reverted one not kept in the pattern's history as a fallback.
    assert_eq!(
        std::fs::read(shop.file("treegrams/shop/book/price.html")).unwrap(),
        GRAM.as_bytes()
    );
    let w = crate::wrapper::load_str(&shop.read("shop.yaml"), "shop.yaml").unwrap();
    let price = w.pattern(&"book/price".parse().unwrap()).unwrap();
    assert_eq!(price.xpath.source(), OLD);
    assert!(
        !price.history.iter().any(|x| x == NEW),
        "{:?}",
        price.history
    );
    // The approval stays; the revert is a row of its own; the state says
    // reverted, everywhere it is read.
    assert_eq!(shop.verdict(id), Some(Verdict::Approved));
    let record = shop.store.adaptation(id).unwrap().unwrap();
    assert_eq!(record.state, State::Reverted);
    assert_eq!(record.reverts.len(), 1);
    let reverts = shop.store.reverts(id).unwrap();
    assert_eq!(reverts[0].reason.as_deref(), Some("wrong column"));
    assert_eq!(reverts[0].reverted_at, at(6_000));
    let applied_or_approved = |state| {
        shop.store
            .adaptations(&AdaptationFilter {
                state: Some(state),
                ..AdaptationFilter::default()
            })
            .unwrap()
            .len()
    };
    assert_eq!(applied_or_approved(State::Approved), 0);
    assert_eq!(applied_or_approved(State::Reverted), 1);
    let error = shop.decide(revert, id, &options(None, 7_000)).unwrap_err();
    check_bad_input(
        &error,
        &format!(
            "adaptation {id} is reverted already: only an applied heal or an approved proposal \
             is in the wrapper to revert"
        ),
    );
    // A person who finds the reverted XPath wrong can still refuse it for
    // good: the verdict turns, the files stay as the revert left them.
    let wrapper = shop.read("shop.yaml");
    let rejected = shop
        .decide(reject, id, &options(Some("never"), 8_000))
        .unwrap();
    assert!(rejected.reverted.is_none());
    assert_eq!(shop.verdict(id), Some(Verdict::Rejected));
    assert!(shop.store.is_rejected("shop", "book/price", NEW).unwrap());
    assert_eq!(shop.read("shop.yaml"), wrapper);
    assert_eq!(
        shop.store.adaptation(id).unwrap().unwrap().state,
        State::Rejected
    );
}

#[test]
fn revert_of_a_proposal_is_refused() {
    let mut shop = Shop::new(WRAPPER);
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let error = shop.decide(revert, id, &options(None, 5_000)).unwrap_err();
    check_bad_input(
        &error,
        &format!(
            "adaptation {id} is proposed: only an applied heal or an approved proposal is in \
             the wrapper to revert"
        ),
    );
    assert!(!in_wrapper(&shop.store, &shop.store.adaptation(id).unwrap().unwrap()).unwrap());
}

#[test]
fn the_wrapper_file_is_found_beside_the_store_or_named() {
    let shop = Shop::new(WRAPPER);
    let store = shop.store_path();
    assert_eq!(
        find_wrapper_file(Path::new("shop.yaml"), &store),
        Some(shop.file("shop.yaml"))
    );
    assert_eq!(find_wrapper_file(Path::new("gone.yaml"), &store), None);
    let mut shop = shop;
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let record = shop.store.adaptation(id).unwrap().unwrap();
    let missing = shop.file("moved.yaml");
    let error = wrapper_of(&shop.store, &record, &store, Some(&missing)).unwrap_err();
    check_bad_input(
        &error,
        &format!("--wrapper {}: no such file", missing.display()),
    );
}
