//! The review commands as a person runs them: `mend log`, `show`, `reject`
//! and `approve` on a store built through the library, beside a wrapper file
//! and a page written here.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tempfile::TempDir;

use mend::store::{
    AdaptationId, AdaptationStatus, Candidate, ConstraintResult, NewAdaptation, PageId, Store,
    Timestamp,
};
use mend::wrapper::HealMode;

use crate::support::cli::{Mend, Run};

/// A wrapper whose nested `price` pattern broke: the page has no `p.price`.
/// Its tree-gram was captured (`mend snapshot`) when it worked, and is named
/// where `mend snapshot` names it.
const WRAPPER: &str = "\
# A shop, with comments that must survive a rewrite.
name: shop
patterns:
  - name: title   # the heading
    xpath: //h1
  - name: book
    xpath: //li
    patterns:
      - name: price  # in pounds
        xpath: ./p[@class='price']   # broke in May
        treegram: treegrams/shop/book/price.html
        constraints: {min: 1, max: 1}
";

const PAGE: &str = "<html><body><h1>Books</h1><ul>\
    <li><h3>A</h3><span class=\"cost\">£1.00</span></li>\
    <li><h3>B</h3><span class=\"cost\">£2.50</span></li>\
    </ul><span class=\"cost\">not a book</span></body></html>";

const OLD: &str = "./p[@class='price']";
const NEW: &str = "./span[@class='cost']";

/// A folder with `shop.yaml` and its store at `.mend/mend.db`, holding one
/// run (which named the wrapper `shop.yaml`, relative to the folder) and one
/// page with its snapshot.
struct Shop {
    dir: TempDir,
    page: PageId,
}

impl Shop {
    fn new() -> Shop {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("shop.yaml"), WRAPPER).unwrap();
        let mut store = Store::open(&dir.path().join(".mend/mend.db")).unwrap();
        let run = store
            .begin_run("shop", Path::new("shop.yaml"), HealMode::Propose, at(1_000))
            .unwrap();
        let page = store
            .record_page(run, "pages/shop.html", PAGE.as_bytes(), true)
            .unwrap();
        Shop { dir, page }
    }

    fn store_path(&self) -> PathBuf {
        self.dir.path().join(".mend/mend.db")
    }

    fn wrapper_text(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("shop.yaml")).unwrap()
    }

    /// Records an adaptation of `book/price` to [`NEW`] with this status.
    fn adaptation(&self, status: AdaptationStatus, created: i64) -> AdaptationId {
        self.adaptation_of("book/price", OLD, NEW, status, created)
    }

    /// Records an adaptation of `pattern` from `old` to `new` (no new XPath
    /// when it abstained).
    fn adaptation_of(
        &self,
        pattern: &str,
        old: &str,
        new: &str,
        status: AdaptationStatus,
        created: i64,
    ) -> AdaptationId {
        let mut store = Store::open(&self.store_path()).unwrap();
        let found = status != AdaptationStatus::Abstained;
        store
            .record_adaptation(&NewAdaptation {
                page_id: self.page,
                pattern: pattern.to_owned(),
                old_xpath: old.to_owned(),
                new_xpath: found.then(|| new.to_owned()),
                algorithm: Some("ctm".to_owned()),
                score: Some(0.93),
                runner_up: Some(0.41),
                status,
                change_scope: Some("local".to_owned()),
                reason: (!found).then(|| "no candidate reached 0.75".to_owned()),
                model: None,
                confidence: None,
                candidates: vec![
                    Candidate {
                        xpath: "/html/body/ul/li[1]/span".to_owned(),
                        score: 0.93,
                        algorithm: "ctm".to_owned(),
                    },
                    Candidate {
                        xpath: "/html/body/span".to_owned(),
                        score: 0.41,
                        algorithm: "ctm".to_owned(),
                    },
                ],
                samples_before: vec![json!(null), json!(null)],
                samples_after: vec![json!(1.0), json!(2.5)],
                constraint_results: vec![ConstraintResult {
                    constraint: "max".to_owned(),
                    passed: true,
                    detail: "1 node per book".to_owned(),
                }],
                created_at: at(created),
            })
            .unwrap()
    }

    /// Runs `mend ARGS` in the folder, so the store is found by default.
    fn mend(&self, args: &[&str]) -> Run {
        mend_in(self.dir.path(), args)
    }
}

fn at(millis: i64) -> Timestamp {
    Timestamp::from_unix_millis(millis)
}

/// Runs `mend ARGS` in `dir`.
fn mend_in(dir: &Path, args: &[&str]) -> Run {
    Mend::new(args).dir(dir).output().into()
}

/// Checks that `text` holds every one of `lines` as a whole line.
fn check_lines(text: &str, lines: &[&str]) {
    for line in lines {
        assert!(
            text.lines().any(|l| l == *line),
            "no line {line:?} in:\n{text}"
        );
    }
}

#[test]
fn log_lists_adaptations_newest_first() {
    let shop = Shop::new();
    let proposed = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let abstained = shop.adaptation(AdaptationStatus::Abstained, 3_000);

    let plain = shop.mend(&["log"]).check(0).stdout;
    let lines: Vec<&str> = plain.lines().collect();
    assert_eq!(lines.len(), 3, "{plain}");
    assert!(lines[0].starts_with("ID  TIME (UTC)"), "{plain}");
    assert!(lines[1].starts_with(&format!(" {abstained}  1970-01-01 00:00:03  shop")));
    assert!(lines[1].contains("abstained"));
    assert!(lines[1].ends_with(&format!("{OLD} → (none)")));
    for word in ["book/price", "proposed", "pending", "0.930", "0.410"] {
        assert!(lines[2].contains(word), "{word} in {plain}");
    }
    assert!(lines[2].ends_with(&format!("{OLD} → {NEW}")), "{plain}");

    let json = shop.mend(&["log", "--json"]).check(0).json();
    let ids: Vec<_> = json.as_array().unwrap().iter().map(|r| &r["id"]).collect();
    assert_eq!(ids, [&json!(abstained.0), &json!(proposed.0)]);
    assert_eq!(json[1]["new_xpath"], NEW);
    assert_eq!(json[1]["candidates"][1]["score"], 0.41);
    assert_eq!(json[1]["decision"], Value::Null);

    let pending = shop.mend(&["log", "--pending", "--json"]).check(0).json();
    assert_eq!(pending.as_array().unwrap().len(), 1);
    assert_eq!(pending[0]["id"], proposed.0);
    let abstentions = shop
        .mend(&["log", "--status", "abstained", "--json"])
        .check(0)
        .json();
    assert_eq!(abstentions[0]["id"], abstained.0);
    let newest = shop
        .mend(&["log", "--limit", "1", "--json"])
        .check(0)
        .json();
    assert_eq!(newest.as_array().unwrap().len(), 1);
    let other = shop.mend(&["log", "--wrapper", "news", "--json"]).check(0);
    assert_eq!(other.stdout.trim(), "[]");
}

#[test]
fn a_missing_store_is_bad_input_that_says_how_to_name_one() {
    let dir = tempfile::tempdir().unwrap();
    let run = mend_in(dir.path(), &["log"]).check(2);
    assert!(
        run.stderr.contains("no store at .mend/mend.db"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--store"), "{}", run.stderr);
    let run = mend_in(dir.path(), &["show", "1", "--store", "elsewhere.db"]).check(2);
    assert!(
        run.stderr.contains("no store at elsewhere.db"),
        "{}",
        run.stderr
    );
    // The commands never create a store.
    assert!(!dir.path().join(".mend").exists());
    assert!(!dir.path().join("elsewhere.db").exists());
}

#[test]
fn the_store_can_be_named_by_the_environment() {
    let shop = Shop::new();
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let elsewhere = tempfile::tempdir().unwrap();
    let output = Mend::new(&["log", "--json"])
        .dir(elsewhere.path())
        .env("MEND_STORE", shop.store_path())
        .output();
    assert_eq!(output.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json[0]["id"], id.0);
}

#[test]
fn show_prints_the_record_the_wrapper_diff_and_the_matched_subtrees() {
    let shop = Shop::new();
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let out = shop.mend(&["show", &id.to_string()]).check(0).stdout;
    check_lines(
        &out,
        &[
            &format!("adaptation {id} (proposed, pending)"),
            "  pattern    book/price",
            "  wrapper    shop (shop.yaml)",
            "  score      0.930, runner-up 0.410 (margin 0.520)",
            &format!("  new xpath  {NEW}"),
            "  0.930  ctm  /html/body/ul/li[1]/span",
            "  ok    max        1 node per book",
            "--- shop.yaml",
            "+++ shop.yaml",
            "-        xpath: ./p[@class='price']   # broke in May",
            "+        xpath: ./span[@class='cost']   # broke in May",
            "+        history:",
            "+          - ./p[@class='price']",
            "         treegram: treegrams/shop/book/price.html",
            "matched by the old XPath (0 matches)",
            "matched by the new XPath (2 matches)",
            "  /html/body/ul/li[1]/span",
            "    <span class=\"cost\">£1.00</span>",
            "  /html/body/ul/li[2]/span",
            "    <span class=\"cost\">£2.50</span>",
            // Before approval, the new XPath on every stored page of the run.
            "the new XPath on the stored pages (1 fixed, 0 unchanged, 0 changed, 0 broken, 0 still violated)",
            "  fixed           1  pages/shop.html",
        ],
    );
    // Only the books' spans: the new XPath is evaluated in each book.
    assert!(!out.contains("not a book"), "{out}");
    assert!(!out.contains("\nnotes"), "{out}");
}

#[test]
fn show_json_adds_the_diff_and_the_matches_to_the_record() {
    let shop = Shop::new();
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let json = shop
        .mend(&["show", &id.to_string(), "--json"])
        .check(0)
        .json();
    assert_eq!(json["id"], id.0);
    assert_eq!(json["pattern"], "book/price");
    let diff = json["yaml_diff"].as_str().unwrap();
    check_lines(
        diff,
        &["+        xpath: ./span[@class='cost']   # broke in May"],
    );
    assert_eq!(json["matched"]["before"], json!([]));
    assert_eq!(
        json["matched"]["after"][1],
        json!({"path": "/html/body/ul/li[2]/span", "html": "<span class=\"cost\">£2.50</span>"})
    );
    assert_eq!(json["matched"]["after_total"], 2);
    assert_eq!(json["notes"], json!([]));
}

#[test]
fn show_evaluates_a_field_in_the_instances_of_its_parent_adapted_on_the_same_page() {
    let shop = Shop::new();
    let parent = shop.adaptation_of(
        "book",
        "//li",
        "//li[h3='B']",
        AdaptationStatus::Proposed,
        2_000,
    );
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_001);
    let json = shop
        .mend(&["show", &id.to_string(), "--json"])
        .check(0)
        .json();
    assert_eq!(json["matched"]["after_total"], 1);
    assert_eq!(
        json["matched"]["after"][0]["html"],
        "<span class=\"cost\">£2.50</span>"
    );
    let note = json["notes"][0].as_str().unwrap();
    assert!(
        note.starts_with(&format!(
            "book was adapted on this page too (adaptation {parent}"
        )),
        "{note}"
    );
}

#[test]
fn show_finds_the_wrapper_beside_the_store_from_anywhere() {
    let shop = Shop::new();
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let elsewhere = tempfile::tempdir().unwrap();
    let store = shop.store_path();
    let run = mend_in(
        elsewhere.path(),
        &["show", &id.to_string(), "--store", store.to_str().unwrap()],
    )
    .check(0);
    check_lines(&run.stdout, &["+          - ./p[@class='price']"]);
}

#[test]
fn show_says_when_the_wrapper_changed_since() {
    let shop = Shop::new();
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let changed = WRAPPER.replace(OLD, "./p[@class='amount']");
    std::fs::write(shop.dir.path().join("shop.yaml"), changed).unwrap();
    let out = shop.mend(&["show", &id.to_string()]).check(0).stdout;
    assert!(
        out.contains("the XPath of book/price is now ./p[@class='amount']"),
        "{out}"
    );
}

#[test]
fn an_unknown_id_is_bad_input() {
    let shop = Shop::new();
    let store = shop.store_path();
    let tag = Store::open(&store).unwrap().tag().unwrap();
    for command in ["show", "approve", "reject"] {
        let run = shop.mend(&[command, "99"]).check(2);
        // The command says which store it read, and that the id may
        // belong to another one.
        check_lines(
            &run.stderr,
            &[
                &format!("mend: store .mend/mend.db (tag {tag})"),
                "error: no adaptation 99 in the store .mend/mend.db: it holds none; an id \
                 printed by a run that used another store needs --store PATH",
            ],
        );
    }
    let run = shop
        .mend(&["show", "99", "--store", store.to_str().unwrap()])
        .check(2);
    assert!(run.stderr.contains(&store.display().to_string()));
}

#[test]
fn two_stores_that_could_both_be_meant_are_refused() {
    let shop = Shop::new();
    let id = shop
        .adaptation(AdaptationStatus::Proposed, 2_000)
        .to_string();
    let other = shop.dir.path().join("wrappers/.mend");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(shop.store_path(), other.join("mend.db")).unwrap();
    let run = shop.mend(&["approve", &id]).check(2);
    assert!(run.stderr.contains("two stores"), "{}", run.stderr);
    assert_eq!(shop.wrapper_text(), WRAPPER);
    shop.mend(&["show", &id, "--store", ".mend/mend.db"])
        .check(0);
}

#[test]
fn an_id_tagged_with_another_store_is_refused_and_decides_nothing() {
    let shop = Shop::new();
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let ours = Store::open(&shop.store_path()).unwrap().tag().unwrap();
    // Another project's store has an adaptation of the same number.
    let elsewhere = tempfile::tempdir().unwrap();
    let theirs = Store::open(&elsewhere.path().join("mend.db"))
        .unwrap()
        .tag()
        .unwrap();
    assert_ne!(ours, theirs);
    let foreign = format!("{theirs}:{id}");
    for command in [
        vec!["show", foreign.as_str()],
        vec!["approve", foreign.as_str()],
        vec!["reject", foreign.as_str()],
        vec!["revert", foreign.as_str()],
        // One foreign id among good ones: nothing is done at all.
        vec!["approve", &format!("{ours}:{id}"), foreign.as_str()],
    ] {
        let run = shop.mend(&command).check(2);
        check_lines(
            &run.stderr,
            &[&format!(
                "error: adaptation {foreign} belongs to the store tagged {theirs}, but \
                 .mend/mend.db is tagged {ours}: pass --store PATH (or set MEND_STORE) to \
                 read the store of the run that printed it"
            )],
        );
    }
    assert_eq!(shop.wrapper_text(), WRAPPER);
    let store = Store::open(&shop.store_path()).unwrap();
    assert_eq!(
        store.adaptation(id).unwrap().unwrap().status,
        AdaptationStatus::Proposed
    );
    assert!(store.adaptation(id).unwrap().unwrap().decision.is_none());
}

#[test]
fn an_id_tagged_with_its_own_store_is_taken() {
    let shop = Shop::new();
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let tag = Store::open(&shop.store_path()).unwrap().tag().unwrap();
    let reference = format!("{tag}:{id}");
    let shown = shop.mend(&["show", &reference]).check(0).stdout;
    assert!(shown.contains(&format!("adaptation {id} ")), "{shown}");
    shop.mend(&["approve", &reference.to_uppercase()]).check(0);
    assert!(shop.wrapper_text().contains(NEW));
    let json = shop.mend(&["log", "--json"]).check(0).json();
    assert_eq!(json[0]["store"], tag.as_str());
    let malformed = shop.mend(&["show", "3fa9:1"]).check(2);
    assert!(
        malformed.stderr.contains("is not a store tag"),
        "{}",
        malformed.stderr
    );
}

#[test]
fn reject_records_the_decision_once() {
    let shop = Shop::new();
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let id = id.to_string();
    let run = shop
        .mend(&["reject", &id, "--reason", "takes the shipping cost"])
        .check(0);
    assert!(
        run.stdout.contains("will not be proposed again"),
        "{}",
        run.stdout
    );
    assert_eq!(shop.wrapper_text(), WRAPPER);

    let json = shop.mend(&["log", "--json"]).check(0).json();
    assert_eq!(json[0]["decision"]["verdict"], "rejected");
    assert_eq!(json[0]["decision"]["reason"], "takes the shipping cost");
    let store = Store::open(&shop.store_path()).unwrap();
    assert!(store.is_rejected("shop", "book/price", NEW).unwrap());
    let plain = shop.mend(&["log"]).check(0).stdout;
    assert!(
        plain.lines().nth(1).unwrap().contains("rejected"),
        "{plain}"
    );

    let again = shop.mend(&["reject", &id]).check(2);
    assert!(
        again.stderr.contains("was already rejected"),
        "{}",
        again.stderr
    );
    let approve = shop.mend(&["approve", &id]).check(2);
    assert!(
        approve.stderr.contains("was already rejected"),
        "{}",
        approve.stderr
    );
    assert_eq!(shop.wrapper_text(), WRAPPER);
}

#[test]
fn rejecting_an_applied_adaptation_puts_the_old_xpath_back() {
    let shop = Shop::new();
    // The run applied the heal: the file holds the new XPath.
    let healed = WRAPPER.replace(OLD, NEW);
    std::fs::write(shop.dir.path().join("shop.yaml"), &healed).unwrap();
    let id = shop.adaptation(AdaptationStatus::Applied, 2_000);
    let run = shop
        .mend(&["reject", &id.to_string(), "--reason", "the shipping cost"])
        .check(0);
    assert!(run.stdout.contains("reverted adaptation"), "{}", run.stdout);
    assert!(
        run.stdout.contains("will not be proposed again"),
        "{}",
        run.stdout
    );
    let text = shop.wrapper_text();
    check_lines(
        &text,
        &["        xpath: ./p[@class='price']   # broke in May"],
    );
    // The rejected XPath is not kept as a fallback.
    assert!(!text.contains(NEW), "{text}");
    let json = shop.mend(&["log", "--json"]).check(0).json();
    assert_eq!(json[0]["status"], "applied");
    assert_eq!(json[0]["state"], "rejected");
    assert_eq!(json[0]["decision"]["verdict"], "rejected");
    let store = Store::open(&shop.store_path()).unwrap();
    assert!(store.is_rejected("shop", "book/price", NEW).unwrap());
    assert_eq!(store.reverts(id).unwrap().len(), 1);
    // Nothing is left in the wrapper to reject or revert.
    let again = shop.mend(&["revert", &id.to_string()]).check(2);
    assert!(
        again
            .stderr
            .contains(&format!("adaptation {id} is rejected")),
        "{}",
        again.stderr
    );
}

#[test]
fn reject_after_approve_reverts_the_approval() {
    let shop = Shop::new();
    let id = shop
        .adaptation(AdaptationStatus::Proposed, 2_000)
        .to_string();
    shop.mend(&["approve", &id]).check(0);
    assert!(shop.wrapper_text().contains(NEW));
    let run = shop.mend(&["reject", &id]).check(0);
    assert!(run.stdout.contains("reverted adaptation"), "{}", run.stdout);
    check_lines(
        &shop.wrapper_text(),
        &["        xpath: ./p[@class='price']   # broke in May"],
    );
    let json = shop.mend(&["log", "--json"]).check(0).json();
    assert_eq!(json[0]["decision"]["verdict"], "rejected");
}

#[test]
fn revert_puts_back_an_approved_xpath_and_keeps_the_approval() {
    let shop = Shop::new();
    let id = shop
        .adaptation(AdaptationStatus::Proposed, 2_000)
        .to_string();
    shop.mend(&["approve", &id]).check(0);
    let run = shop
        .mend(&["revert", &id, "--reason", "wrong column"])
        .check(0);
    assert!(run.stdout.contains("reverted adaptation"), "{}", run.stdout);
    check_lines(
        &shop.wrapper_text(),
        &["        xpath: ./p[@class='price']   # broke in May"],
    );
    // The reverted XPath is not kept as a fallback that would serve pages
    // silently.
    assert!(
        !shop.wrapper_text().contains(NEW),
        "{}",
        shop.wrapper_text()
    );
    let json = shop.mend(&["log", "--json"]).check(0).json();
    assert_eq!(json[0]["decision"]["verdict"], "approved");
    assert_eq!(json[0]["state"], "reverted");
    assert_eq!(json[0]["reverts"][0]["reason"], "wrong column");
    let store = Store::open(&shop.store_path()).unwrap();
    let reverts = store.reverts(AdaptationId(id.parse().unwrap())).unwrap();
    assert_eq!(reverts[0].reason.as_deref(), Some("wrong column"));
    // Every reading says reverted: the log's filters and table, and show.
    let approved = shop.mend(&["log", "--status", "approved"]).check(0);
    assert!(approved.stdout.is_empty(), "{}", approved.stdout);
    let reverted = shop.mend(&["log", "--status", "reverted"]).check(0);
    assert!(
        reverted.stdout.contains(" reverted "),
        "{}",
        reverted.stdout
    );
    let shown = shop.mend(&["show", &id]).check(0);
    assert!(
        shown
            .stdout
            .starts_with(&format!("adaptation {id} (reverted; the run proposed)")),
        "{}",
        shown.stdout
    );
    assert!(shown.stdout.contains("reverted   at "), "{}", shown.stdout);
    // And the person can still refuse the XPath for good.
    shop.mend(&["reject", &id, "--reason", "never"]).check(0);
    let json = shop.mend(&["log", "--json"]).check(0).json();
    assert_eq!(json[0]["state"], "rejected");
    // A proposal that was never approved has nothing in the wrapper.
    let other = shop
        .adaptation_of("title", "//h1", "//h2", AdaptationStatus::Proposed, 3_000)
        .to_string();
    let refused = shop.mend(&["revert", &other]).check(2);
    assert!(refused.stderr.contains("proposed"), "{}", refused.stderr);
}

#[test]
fn approve_and_reject_take_several_ids_or_a_filter() {
    let shop = Shop::new();
    let price = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let title = shop.adaptation_of(
        "title",
        "//h1",
        "//h1[1]",
        AdaptationStatus::Proposed,
        3_000,
    );
    let none = shop.mend(&["approve"]).check(2);
    assert!(none.stderr.contains("--pending"), "{}", none.stderr);
    // A filter names the waiting proposals of one pattern.
    shop.mend(&["reject", "--pattern", "title"]).check(0);
    let json = shop.mend(&["log", "--json"]).check(0).json();
    let verdict = |id: AdaptationId| {
        json.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id.0)
            .unwrap()["decision"]["verdict"]
            .clone()
    };
    assert_eq!(verdict(title), "rejected");
    assert_eq!(verdict(price), Value::Null);
    // Several ids: each is decided on its own, the worst exit code wins.
    let both = shop
        .mend(&["approve", &price.to_string(), &title.to_string()])
        .check(2);
    assert!(
        both.stdout.contains("approved adaptation"),
        "{}",
        both.stdout
    );
    assert!(
        both.stderr.contains("was already rejected"),
        "{}",
        both.stderr
    );
    let pending = shop.mend(&["approve", "--pending"]).check(0);
    assert!(
        pending.stdout.contains("no proposal waits"),
        "{}",
        pending.stdout
    );
}

#[test]
fn approving_a_proposal_settles_its_twins() {
    let shop = Shop::new();
    let first = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let twin = shop.adaptation(AdaptationStatus::Proposed, 3_000);
    let run = shop.mend(&["approve", &first.to_string()]).check(0);
    assert!(
        run.stdout.contains(&format!("approved with it: {twin}")),
        "{}",
        run.stdout
    );
    let json = shop.mend(&["log", "--json", "--pending"]).check(0).json();
    assert_eq!(json, json!([]));
}

#[test]
fn only_proposals_can_be_approved_and_abstentions_not_rejected() {
    let shop = Shop::new();
    let applied = shop
        .adaptation(AdaptationStatus::Applied, 2_000)
        .to_string();
    let abstained = shop
        .adaptation(AdaptationStatus::Abstained, 3_000)
        .to_string();
    let run = shop.mend(&["approve", &applied]).check(2);
    assert!(run.stderr.contains("applied by the run"), "{}", run.stderr);
    let run = shop.mend(&["approve", &abstained]).check(2);
    assert!(run.stderr.contains("abstained"), "{}", run.stderr);
    let run = shop.mend(&["reject", &abstained]).check(2);
    assert!(run.stderr.contains("nothing to reject"), "{}", run.stderr);
    assert_eq!(shop.wrapper_text(), WRAPPER);
    let json = shop.mend(&["log", "--json"]).check(0).json();
    assert!(
        json.as_array()
            .unwrap()
            .iter()
            .all(|r| r["decision"].is_null())
    );
}

#[test]
fn approve_refuses_a_wrapper_that_changed_since() {
    let shop = Shop::new();
    let id = shop
        .adaptation(AdaptationStatus::Proposed, 2_000)
        .to_string();
    let changed = WRAPPER.replace(OLD, "./p[@class='amount']");
    std::fs::write(shop.dir.path().join("shop.yaml"), &changed).unwrap();
    let run = shop.mend(&["approve", &id]).check(2);
    assert!(run.stderr.contains("has changed since"), "{}", run.stderr);
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    assert_eq!(shop.wrapper_text(), changed);
    let json = shop.mend(&["log", "--json"]).check(0).json();
    assert!(json[0]["decision"].is_null());
}

#[test]
fn approve_rewrites_the_wrapper_and_records_the_decision() {
    let shop = Shop::new();
    let id = shop
        .adaptation(AdaptationStatus::Proposed, 2_000)
        .to_string();
    let run = shop
        .mend(&["approve", &id, "--reason", "the price moved"])
        .check(0);
    assert!(
        run.stdout.contains(&format!("xpath: {NEW}")),
        "{}",
        run.stdout
    );
    check_lines(
        &run.stdout,
        &["refreshed the tree-gram ./treegrams/shop/book/price.html"],
    );
    // Only the XPath changes, and the old one goes to the history.
    assert_eq!(
        shop.wrapper_text(),
        "\
# A shop, with comments that must survive a rewrite.
name: shop
patterns:
  - name: title   # the heading
    xpath: //h1
  - name: book
    xpath: //li
    patterns:
      - name: price  # in pounds
        xpath: ./span[@class='cost']   # broke in May
        history:
          - ./p[@class='price']
        treegram: treegrams/shop/book/price.html
        constraints: {min: 1, max: 1}
"
    );
    let json = shop.mend(&["log", "--json"]).check(0).json();
    assert_eq!(json[0]["decision"]["verdict"], "approved");
    assert_eq!(json[0]["decision"]["reason"], "the price moved");
    // The tree-gram now holds what the new XPath matches.
    let gram =
        std::fs::read_to_string(shop.dir.path().join("treegrams/shop/book/price.html")).unwrap();
    assert!(gram.contains("£2.50"), "{gram}");
    assert!(!gram.contains("not a book"), "{gram}");
    // No temporary file is left beside the wrapper.
    let mut names: Vec<_> = std::fs::read_dir(shop.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, [".mend", "shop.yaml", "treegrams"]);
    let again = shop.mend(&["approve", &id]).check(2);
    assert!(
        again.stderr.contains("was already approved"),
        "{}",
        again.stderr
    );
}

#[test]
fn approve_with_a_missing_wrapper_file_is_bad_input_and_changes_nothing() {
    let shop = Shop::new();
    let id = shop
        .adaptation(AdaptationStatus::Proposed, 2_000)
        .to_string();
    for given in ["moved.yaml", ".mend"] {
        let run = shop.mend(&["approve", &id, "--wrapper", given]).check(2);
        assert!(
            run.stderr
                .contains(&format!("--wrapper {given}: no such file")),
            "{}",
            run.stderr
        );
    }
    // The file the run used, gone from where it was.
    std::fs::rename(
        shop.dir.path().join("shop.yaml"),
        shop.dir.path().join("moved.yaml"),
    )
    .unwrap();
    let run = shop.mend(&["approve", &id]).check(2);
    assert!(run.stderr.contains("pass --wrapper PATH"), "{}", run.stderr);
    let log = shop.mend(&["log", "--pending", "--json"]).check(0).json();
    assert_eq!(log.as_array().map(Vec::len), Some(1), "still pending");
}

#[test]
fn approve_with_force_replaces_an_xpath_that_changed_since() {
    let shop = Shop::new();
    let id = shop.adaptation(AdaptationStatus::Proposed, 2_000);
    let changed = WRAPPER.replace(OLD, "./p[@class='amount']");
    std::fs::write(shop.dir.path().join("shop.yaml"), &changed).unwrap();
    shop.mend(&["approve", &id.to_string(), "--force"]).check(0);
    let text = shop.wrapper_text();
    check_lines(
        &text,
        &[
            "        xpath: ./span[@class='cost']   # broke in May",
            "          - ./p[@class='amount']",
        ],
    );
}
