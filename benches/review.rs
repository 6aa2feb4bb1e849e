//! Criterion benchmark of the review page's list on a large store: 10,000
//! adaptations over five wrappers and forty patterns (proposals, applied
//! heals, abstentions), each with three candidates, samples and constraint
//! results, as runs record them. It measures the server's time for the
//! list's HTML, from the store's rows to the last byte: its first page and
//! its last (50 rows each), and the first page of the proposals that wait.
//!
//! Run with `cargo bench --bench review`.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use mend::review::server::list_page;
use mend::store::{AdaptationStatus, Candidate, ConstraintResult, NewAdaptation, Store, Timestamp};
use mend::wrapper::HealMode;
use serde_json::json;

const ADAPTATIONS: usize = 10_000;

fn large_store() -> Store {
    let mut store = Store::open_in_memory().expect("an in-memory store");
    let mut pages = Vec::new();
    for w in 0..5 {
        let run = store
            .begin_run(
                &format!("shop{w}"),
                Path::new(&format!("wrappers/shop{w}.yaml")),
                HealMode::Propose,
                Timestamp::from_unix_millis(1_000 + w),
            )
            .expect("a run");
        let page = store
            .record_page(
                run,
                &format!("https://shop{w}.example/p"),
                b"<html></html>",
                false,
            )
            .expect("a page");
        pages.push(page);
    }
    for i in 0..ADAPTATIONS {
        let status = match i % 10 {
            0..=5 => AdaptationStatus::Proposed,
            6..=8 => AdaptationStatus::Applied,
            _ => AdaptationStatus::Abstained,
        };
        let found = status != AdaptationStatus::Abstained;
        let score = 0.3 + (i % 70) as f64 / 100.0;
        store
            .record_adaptation(&NewAdaptation {
                page_id: pages[i % 5],
                pattern: format!("book/field{}", i % 8),
                old_xpath: format!("/html/body/div[{}]/span", i % 9 + 1),
                new_xpath: found.then(|| format!("//span[@class='f{}']", i % 97)),
                algorithm: Some("ctm".to_owned()),
                score: found.then_some(score),
                runner_up: Some(score / 2.0),
                status,
                change_scope: None,
                reason: (!found).then(|| "no candidate above the threshold".to_owned()),
                model: None,
                confidence: None,
                candidates: (0..3)
                    .map(|c| Candidate {
                        xpath: format!("/html/body/div[{c}]/span"),
                        score: score / f64::from(c + 1),
                        algorithm: "ctm".to_owned(),
                    })
                    .collect(),
                samples_before: vec![json!(null)],
                samples_after: vec![json!(format!("value {i}"))],
                constraint_results: vec![ConstraintResult {
                    constraint: "min".to_owned(),
                    passed: true,
                    detail: "1 node".to_owned(),
                }],
                created_at: Timestamp::from_unix_millis(2_000 + i as i64),
            })
            .expect("an adaptation");
    }
    store
}

fn bench_list(c: &mut Criterion) {
    let store = large_store();
    let path = Path::new("wrappers/.mend/mend.db");
    let token = "0123456789abcdef";
    // The list shows 50 rows a page, whatever the store holds.
    for query in ["", "page=200", "status=pending"] {
        let page = list_page(&store, path, token, query).expect("the list");
        assert_eq!(page.matches("<tr class=\"row\"").count(), 50, "{query}");
        println!("review list ?{query}: {} bytes", page.len());
    }
    let mut group = c.benchmark_group("review");
    group.sample_size(20);
    group.bench_function("list/10000", |b| {
        b.iter(|| list_page(black_box(&store), path, token, "").expect("the list"))
    });
    group.bench_function("list/10000/last-page", |b| {
        b.iter(|| list_page(black_box(&store), path, token, "page=200").expect("the list"))
    });
    group.bench_function("list/10000/pending", |b| {
        b.iter(|| list_page(black_box(&store), path, token, "status=pending").expect("the list"))
    });
    group.finish();
}

criterion_group!(benches, bench_list);
criterion_main!(benches);
