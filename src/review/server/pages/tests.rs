use std::path::Path;

use super::*;
use crate::review::server::layout::layout;
use crate::review::server::list::{Filters, list, list_order};
use maud::html;

use crate::store::{AdaptationFilter, AdaptationStatus, NewAdaptation, Timestamp};
use crate::wrapper::HealMode;

/// A store whose adaptations are `rows`: (wrapper, pattern, status), in
/// the order they are recorded.
fn store_of(rows: &[(&str, &str, AdaptationStatus)]) -> Store {
    let mut store = Store::open_in_memory().unwrap();
    let run = store
        .begin_run(
            "shop",
            Path::new("wrappers/shop.yaml"),
            HealMode::Propose,
            Timestamp::from_unix_millis(1_000),
        )
        .unwrap();
    let page = store
        .record_page(run, "https://shop.example/p", b"<html></html>", false)
        .unwrap();
    for (i, (wrapper, pattern, status)) in rows.iter().enumerate() {
        // The wrapper an adaptation belongs to is its run's.
        let run = store
            .begin_run(
                wrapper,
                Path::new(&format!("wrappers/{wrapper}.yaml")),
                HealMode::Propose,
                Timestamp::from_unix_millis(2_000 + i as i64),
            )
            .unwrap();
        let page = store
            .record_page(run, "https://shop.example/p", b"<html></html>", false)
            .unwrap_or(page);
        store
            .record_adaptation(&NewAdaptation {
                page_id: page,
                pattern: (*pattern).to_owned(),
                old_xpath: "//old".to_owned(),
                new_xpath: Some(format!("//new[{i}]")),
                algorithm: Some("ctm".to_owned()),
                score: Some(0.9),
                runner_up: None,
                status: *status,
                change_scope: None,
                reason: None,
                model: None,
                confidence: None,
                candidates: Vec::new(),
                samples_before: Vec::new(),
                samples_after: Vec::new(),
                constraint_results: Vec::new(),
                created_at: Timestamp::from_unix_millis(3_000 + i as i64),
            })
            .unwrap();
    }
    store
}

/// The list page for `query`, and how many rows it shows.
fn check_list(store: &Store, query: &str, expected_rows: usize) -> String {
    let mut nonce = || "n0nce".to_owned();
    let html = list(
        store,
        Path::new("s.db"),
        "tok",
        &Filters::parse(query),
        None,
        &mut nonce,
    )
    .unwrap()
    .into_string();
    assert_eq!(
        html.matches("<tr class=\"row\"").count(),
        expected_rows,
        "{query}: {html}"
    );
    html
}

/// Every `href`, `src` and `action` of `html`.
fn addresses(html: &str) -> Vec<String> {
    let doc = crate::dom::Document::parse_str(html);
    doc.all()
        .filter(|&n| doc.is_element(n))
        .flat_map(|n| {
            ["href", "src", "action"]
                .into_iter()
                .filter_map(|a| doc.attr(n, a).map(str::to_owned))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn many(n: usize) -> Vec<(&'static str, &'static str, AdaptationStatus)> {
    (0..n)
        .map(|i| {
            let pattern = ["a", "b", "c"][i % 3];
            ("shop", pattern, AdaptationStatus::Proposed)
        })
        .collect()
}

#[test]
fn the_list_shows_fifty_rows_a_page_and_links_to_the_others() {
    let store = store_of(&many(120));
    let html = check_list(&store, "", 50);
    assert!(html.contains("Rows 1–50 of 120 (page 1 of 3)"), "{html}");
    assert!(html.contains("href=\"/tok/?page=2\""), "{html}");
    assert!(!html.contains("rel=\"prev\""), "{html}");
    check_list(&store, "page=2", 50);
    let last = check_list(&store, "page=3", 20);
    assert!(last.contains("Rows 101–120 of 120"), "{last}");
    // A page past the end shows the last; a nonsense page the first.
    check_list(&store, "page=99", 20);
    check_list(&store, "page=-1", 50);
    // The filters go with the pages.
    let pending = check_list(&store, "status=pending", 50);
    assert!(
        pending.contains("href=\"/tok/?status=pending&amp;page=2\""),
        "{pending}"
    );
}

#[test]
fn the_list_is_grouped_by_wrapper_and_pattern_in_the_store_s_order_within() {
    let store = store_of(&[
        ("zeta", "b", AdaptationStatus::Proposed),
        ("alpha", "b", AdaptationStatus::Proposed),
        ("alpha", "a", AdaptationStatus::Applied),
        ("alpha", "b", AdaptationStatus::Proposed),
    ]);
    let records = store.adaptations(&AdaptationFilter::default()).unwrap();
    let order: Vec<i64> = list_order(&records).iter().map(|r| r.id.0).collect();
    // The store lists the newest first.
    assert_eq!(order, [3, 4, 2, 1]);
    let html = check_list(&store, "", 4);
    let at = |id: i64| html.find(&format!("data-id=\"{id}\"")).unwrap();
    assert!(at(3) < at(4) && at(4) < at(2) && at(2) < at(1), "{html}");
}

#[test]
fn each_wrapper_with_several_pending_proposals_gets_one_form_to_decide_them() {
    let store = store_of(&[
        ("alpha", "a", AdaptationStatus::Proposed),
        ("alpha", "b", AdaptationStatus::Proposed),
        ("alpha", "c", AdaptationStatus::Applied),
        ("beta", "a", AdaptationStatus::Proposed),
    ]);
    let html = check_list(&store, "", 4);
    assert_eq!(html.matches("<form class=\"bulk\"").count(), 1, "{html}");
    let form = &html[html.find("<form class=\"bulk\"").unwrap()..];
    let form = &form[..form.find("</form>").unwrap()];
    assert!(form.contains("action=\"/tok/bulk\""), "{form}");
    assert!(form.contains("name=\"nonce\" value=\"n0nce\""), "{form}");
    let ids: Vec<&str> = form
        .split("name=\"id\" value=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert_eq!(ids, ["1", "2"], "{form}");
    assert!(
        form.contains("Approve all 2") && form.contains("Reject all 2"),
        "{form}"
    );
}

#[test]
fn every_address_on_the_list_is_absolute() {
    let store = store_of(&many(60));
    let html = check_list(&store, "", 50);
    let all = addresses(&html);
    assert!(all.len() > 50, "{all:?}");
    for a in all {
        assert!(a.starts_with("/tok/"), "{a}");
    }
}

#[test]
fn every_page_has_a_viewport_for_small_screens() {
    let html = layout("tok", "T", html! { p { "x" } }).into_string();
    assert!(
        html.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"),
        "{html}"
    );
}
