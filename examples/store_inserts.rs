//! Measures how fast the store records a run: `cargo run --release --example store_inserts [-- --pages N]`.
//!
//! Writes to a fresh store file in a temporary folder, as a real run would
//! (WAL, `synchronous = NORMAL`), in three ways: every page a transaction of
//! its own; pages in batches of 500; and pages that each triggered an
//! adaptation (snapshot kept, 20 candidates, a few constraint results), one
//! batch per page with its adaptation. Prints one JSON line per way, after
//! one for the speed of the content hash alone.

use std::path::Path;
use std::time::Instant;

use mend::store::{AdaptationStatus, Candidate, ConstraintResult, NewAdaptation, Store, Timestamp};
use mend::wrapper::HealMode;
use sha2::{Digest, Sha256};

fn main() {
    let mut pages = 10_000usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--pages" {
            pages = args
                .next()
                .and_then(|n| n.parse().ok())
                .expect("--pages needs a number");
        } else {
            panic!("unknown argument {arg}");
        }
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut store = Store::open(&dir.path().join("mend.db")).expect("a new store");
    let run = store
        .begin_run(
            "bookshop",
            Path::new("bookshop.yaml"),
            HealMode::Propose,
            Timestamp::from_unix_millis(0),
        )
        .expect("a run");

    // Pages are made before each measurement, so that only the store is timed.
    let made: Vec<Vec<u8>> = (0..pages).map(page).collect();
    let megabytes = made.iter().map(Vec::len).sum::<usize>() as f64 / 1e6;
    let start = Instant::now();
    for bytes in &made {
        std::hint::black_box(Sha256::digest(bytes));
    }
    println!(
        "{{\"what\": \"sha256 of the pages\", \"megabytes_per_second\": {:.0}}}",
        megabytes / start.elapsed().as_secs_f64()
    );

    let start = Instant::now();
    for (i, bytes) in made.iter().enumerate() {
        store
            .record_page(run, &format!("page-{i}.html"), bytes, false)
            .expect("a page");
    }
    report("page per transaction", pages, start);

    let made: Vec<Vec<u8>> = (pages..2 * pages).map(page).collect();
    let start = Instant::now();
    for (n, chunk) in made.chunks(500).enumerate() {
        let mut batch = store.batch().expect("a batch");
        for (i, bytes) in chunk.iter().enumerate() {
            batch
                .record_page(run, &format!("batched-{n}-{i}.html"), bytes, false)
                .expect("a page");
        }
        batch.commit().expect("a commit");
    }
    report("pages in batches of 500", pages, start);

    let adapted = pages / 10;
    let made: Vec<Vec<u8>> = (2 * pages..2 * pages + adapted).map(page).collect();
    let start = Instant::now();
    for (i, bytes) in made.iter().enumerate() {
        let mut batch = store.batch().expect("a batch");
        let page_id = batch
            .record_page(run, &format!("adapted-{i}.html"), bytes, true)
            .expect("a page");
        batch
            .record_adaptation(&adaptation(page_id, i))
            .expect("an adaptation");
        batch.commit().expect("a commit");
    }
    report("adapted page with snapshot per transaction", adapted, start);
}

/// A page of about 25 KB, distinct for each `i`.
fn page(i: usize) -> Vec<u8> {
    let mut html = format!("<html><head><title>Page {i}</title></head><body><ol>");
    for book in 0..100 {
        html.push_str(&format!(
            "<li><article class=\"product_pod\"><h3><a href=\"/b/{book}\" title=\"Book {book}\">\
             Book {book}</a></h3><p class=\"price_color\">£{}.{:02}</p></article></li>",
            10 + (i + book) % 50,
            (i * 7 + book) % 100
        ));
    }
    html.push_str("</ol></body></html>");
    html.into_bytes()
}

fn adaptation(page_id: mend::store::PageId, i: usize) -> NewAdaptation {
    NewAdaptation {
        page_id,
        pattern: "book/price".to_owned(),
        old_xpath: ".//p[@class='price']".to_owned(),
        new_xpath: Some(".//p[@class='price_color']".to_owned()),
        algorithm: Some("ctm".to_owned()),
        score: Some(0.9),
        runner_up: Some(0.4),
        status: AdaptationStatus::Proposed,
        change_scope: Some("local".to_owned()),
        reason: None,
        model: None,
        confidence: None,
        candidates: (0..20)
            .map(|c| Candidate {
                xpath: format!("/html/body/ol/li[{}]/article/p", c + 1),
                score: 0.9 - c as f64 * 0.02,
                algorithm: "ctm".to_owned(),
            })
            .collect(),
        samples_before: vec![serde_json::Value::Null],
        samples_after: vec![serde_json::json!(format!("£{}.00", i % 50))],
        constraint_results: ["min", "max", "regex"]
            .iter()
            .map(|c| ConstraintResult {
                constraint: (*c).to_owned(),
                passed: true,
                detail: String::new(),
            })
            .collect(),
        created_at: Timestamp::from_unix_millis(i as i64),
    }
}

fn report(what: &str, count: usize, start: Instant) {
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{{\"what\": \"{what}\", \"count\": {count}, \"seconds\": {seconds:.3}, \"per_second\": {:.0}}}",
        count as f64 / seconds
    );
}
