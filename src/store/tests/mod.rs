//! Tests of the store, one file per area: opening files, records, decisions.
//! The helpers here build a store with a run and a page, and proposals.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::*;
use crate::extract::Violation;
use crate::wrapper::HealMode;

mod decisions;
mod files;
mod gc;
mod health;
mod records;

pub(super) fn at(millis: i64) -> Timestamp {
    Timestamp::from_unix_millis(millis)
}

/// A store with one run of `bookshop` and one page, for tests that need
/// somewhere to hang adaptations.
pub(super) fn store_with_page() -> (Store, RunId, PageId) {
    let mut store = Store::open_in_memory().unwrap();
    let run = store
        .begin_run(
            "bookshop",
            Path::new("wrappers/bookshop.yaml"),
            HealMode::Propose,
            at(1_000),
        )
        .unwrap();
    let page = store
        .record_page(
            run,
            "https://shop.example/books?page=1",
            b"<html>1</html>",
            true,
        )
        .unwrap();
    (store, run, page)
}

pub(super) fn proposal(
    page: PageId,
    pattern: &str,
    new_xpath: &str,
    created: i64,
) -> NewAdaptation {
    NewAdaptation {
        page_id: page,
        pattern: pattern.to_owned(),
        old_xpath: ".//p[@class='price']".to_owned(),
        new_xpath: Some(new_xpath.to_owned()),
        algorithm: Some("ctm".to_owned()),
        score: Some(0.91),
        runner_up: Some(0.42),
        status: AdaptationStatus::Proposed,
        change_scope: Some("local".to_owned()),
        reason: None,
        model: None,
        confidence: None,
        candidates: vec![
            Candidate {
                xpath: "/html/body/div[2]/span".to_owned(),
                score: 0.91,
                algorithm: "ctm".to_owned(),
            },
            Candidate {
                xpath: "/html/body/div[3]/span".to_owned(),
                score: 0.42,
                algorithm: "ctm".to_owned(),
            },
        ],
        samples_before: vec![json!(null)],
        samples_after: vec![json!("£51.77"), json!(51.77), json!({"raw": "£51.77"})],
        constraint_results: vec![
            ConstraintResult {
                constraint: "min".to_owned(),
                passed: true,
                detail: "1 node".to_owned(),
            },
            ConstraintResult {
                constraint: "regex".to_owned(),
                passed: true,
                detail: "£51.77 matches".to_owned(),
            },
        ],
        created_at: at(created),
    }
}

pub(super) fn raw(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

pub(super) fn user_version(conn: &rusqlite::Connection) -> i64 {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap()
}
