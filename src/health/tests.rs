//! Field health end to end over extracted pages: what is counted per item,
//! what is judged and what is said, and that counting does not depend on
//! the order or grouping of the pages.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;
use crate::dom::Document;
use crate::extract::{Violation, ViolationKind, extract};
use crate::wrapper::{Monitor, PatternPath, Wrapper, load_str};

/// A listing: a page title, books with a typed and checked price, and a
/// list of tags.
fn shop(monitor: &str) -> Wrapper {
    load_str(
        &format!(
            "name: shop\npatterns:\n  - name: title\n    xpath: //h1\n    constraints: {{max: 1}}\n  \
             - name: book\n    xpath: //li\n    patterns:\n      - name: price\n        \
             xpath: ./b\n        type: number\n        constraints: {{max: 1, regex: '^\\d+$'}}\n      \
             - name: tags\n        xpath: ./i\n{monitor}"
        ),
        "shop.yaml",
    )
    .unwrap()
}

/// A page with a title (when given) and one `li` per book: its price
/// (none when `None`) and tags.
fn page(title: Option<&str>, books: &[(Option<&str>, &[&str])]) -> String {
    let mut html = String::new();
    if let Some(t) = title {
        html.push_str(&format!("<h1>{t}</h1>"));
    }
    html.push_str("<ul>");
    for (price, tags) in books {
        html.push_str("<li>");
        if let Some(p) = price {
            html.push_str(&format!("<b>{p}</b>"));
        }
        for t in *tags {
            html.push_str(&format!("<i>{t}</i>"));
        }
        html.push_str("</li>");
    }
    html.push_str("</ul>");
    html
}

/// The statistics of `pages` (named p0, p1, ...) extracted with `wrapper`.
fn stats_of(wrapper: &Wrapper, pages: &[String]) -> Vec<FieldStats> {
    let mut tally = HealthTally::new(wrapper);
    for (i, html) in pages.iter().enumerate() {
        let e = extract(wrapper, &Document::parse(html.as_bytes()), None);
        tally.merge(HealthTally::of_page(
            wrapper,
            i as u64,
            &format!("p{i}"),
            &e.record,
            &e.violations,
            None,
        ));
    }
    tally.stats()
}

fn field<'a>(stats: &'a [FieldStats], path: &str) -> &'a FieldStats {
    stats
        .iter()
        .find(|s| s.pattern == *path)
        .unwrap_or_else(|| panic!("no {path}"))
}

/// Checks one pattern's (items, filled, values, typed, distinct) and its
/// fill examples.
#[track_caller]
fn check(stats: &[FieldStats], path: &str, counts: (u64, u64, u64, u64, u64), missing: &[&str]) {
    let s = field(stats, path);
    assert_eq!(
        (s.items, s.filled, s.values, s.typed, s.distinct),
        counts,
        "{path}"
    );
    assert_eq!(s.examples.fill, missing, "{path}");
}

#[test]
fn fields_inside_records_count_per_item() {
    let w = shop("");
    let stats = stats_of(
        &w,
        &[
            page(
                Some("A"),
                &[
                    (Some("1"), &["x"]),
                    (Some("2"), &[]),
                    (Some("2"), &["x", "y"]),
                ],
            ),
            page(None, &[(None, &["z"]), (Some("3"), &[])]),
            page(Some("C"), &[]),
        ],
    );
    // Pages are the items of top-level patterns; books of their fields.
    check(&stats, "title", (3, 2, 2, 2, 2), &["p1"]);
    check(&stats, "book", (3, 2, 0, 0, 0), &["p2"]);
    check(&stats, "book/price", (5, 4, 4, 4, 3), &["p1"]);
    // A list field is filled by any value; each value counts.
    check(&stats, "book/tags", (5, 3, 4, 4, 3), &["p0", "p1"]);
    let price = field(&stats, "book/price");
    assert_eq!(price.fill(), Some(0.8));
    assert_eq!(price.type_pass(), Some(1.0));
    assert_eq!(
        (price.regex_checked, price.regex_passed),
        (Some(4), Some(4))
    );
    assert!(field(&stats, "book").is_record());
    assert_eq!(field(&stats, "book").measure(Measure::TypePass), None);
    assert_eq!(field(&stats, "title").regex_pass(), None);
}

#[test]
fn values_that_fail_their_type_or_regex_are_counted_as_values() {
    let w = shop("");
    let stats = stats_of(
        &w,
        &[
            page(Some("A"), &[(Some("1"), &[]), (Some("free"), &[])]),
            page(Some("B"), &[(Some("2.5"), &[]), (Some("4"), &[])]),
        ],
    );
    let price = field(&stats, "book/price");
    // "free" does not convert: null in the record, so the item is unfilled.
    assert_eq!(
        (price.items, price.filled, price.values, price.typed),
        (4, 3, 4, 3)
    );
    assert_eq!(price.type_pass(), Some(0.75));
    // "free" and "2.5" fail the regex.
    assert_eq!(price.regex_pass(), Some(0.5));
    assert_eq!(price.examples.type_pass, ["p0"]);
    assert_eq!(price.examples.regex_pass, ["p0", "p1"]);
    assert_eq!(price.examples.fill, ["p0"]);
}

#[test]
fn blank_text_is_no_value() {
    let w = shop("");
    let stats = stats_of(&w, &[page(Some("  "), &[]), page(Some("T"), &[])]);
    check(&stats, "title", (2, 1, 2, 2, 1), &["p0"]);
}

#[test]
fn a_flattened_run_counts_only_its_record_pattern() {
    let w = shop("");
    let html = page(Some("A"), &[(Some("1"), &[])]);
    let e = extract(&w, &Document::parse(html.as_bytes()), None);
    let books = e.record["book"].clone();
    let mut only_books = Map::new();
    only_books.insert("book".to_owned(), books);
    let tally = HealthTally::of_page(&w, 0, "p0", &only_books, &e.violations, Some("book"));
    let stats = tally.stats();
    check(&stats, "title", (0, 0, 0, 0, 0), &[]);
    check(&stats, "book", (1, 1, 0, 0, 0), &[]);
    check(&stats, "book/price", (1, 1, 1, 1, 1), &[]);
}

/// Statistics of `path` with `items` items of which `filled` filled, all
/// of them values that converted and matched.
fn stats(path: &str, items: u64, filled: u64) -> FieldStats {
    FieldStats {
        pattern: path.parse().unwrap(),
        value_type: Some(crate::wrapper::ValueType::Number),
        items,
        filled,
        values: filled,
        typed: filled,
        regex_checked: Some(filled),
        regex_passed: Some(filled),
        distinct: filled,
        distinct_capped: false,
        examples: ExamplePages {
            fill: vec!["a.html".into(), "b.html".into()],
            ..ExamplePages::default()
        },
    }
}

fn monitor(yaml: &str) -> Monitor {
    shop(yaml).monitor().clone()
}

/// The drops as their one-line messages.
fn said(judgement: &Judgement) -> Vec<String> {
    judgement.drops.iter().map(ToString::to_string).collect()
}

#[test]
fn a_fill_rate_under_its_floor_is_a_drop_with_example_pages() {
    let m = monitor("monitor:\n  fields:\n    book/price: {min_fill: 0.95}\n");
    let now = [stats("book/price", 100, 62)];
    let base = [stats("book/price", 100, 99)];
    let judgement = judge(
        &m,
        &now,
        &[Baseline {
            label: "the snapshot",
            stats: &base,
        }],
    );
    // The floor (0.95) is above the drop's threshold (0.99 - 0.1): it is
    // the one reported.
    assert_eq!(
        said(&judgement),
        [
            "book/price fill 0.62 < 0.95 (min_fill; baseline 0.99 from the snapshot; e.g. pages \
          a.html, b.html)"
        ]
    );
    let drop = &judgement.drops[0];
    assert_eq!(drop.field, PatternPath::top("book").child("price"));
    assert_eq!((drop.limit, drop.limit_value), ("min_fill", 0.95));
    assert_eq!(
        (judgement.judged, judgement.compared, judgement.too_few),
        (1, 1, 0)
    );
    assert_eq!(judgement.patterns_below(), 1);
    let json = serde_json::to_value(drop).unwrap();
    assert_eq!(json["measure"], "fill");
    assert_eq!(json["field"], "book/price");
    assert_eq!(json["example_pages"], json!(["a.html", "b.html"]));
}

#[test]
fn a_drop_against_the_baseline_uses_the_default_limit() {
    let m = Monitor::default();
    let base = [stats("book/price", 50, 50)];
    let baselines = [Baseline {
        label: "run 3",
        stats: &base,
    }];
    let judgement = judge(&m, &[stats("book/price", 100, 85)], &baselines);
    assert_eq!(
        said(&judgement),
        [
            "book/price fill 0.85 < 0.90 (max_fill_drop 0.10: baseline 1.00 from run 3; e.g. \
          pages a.html, b.html)"
        ]
    );
    // A floor as high as the drop's threshold is the one reported.
    let tie = monitor("monitor:\n  min_fill: 0.9\n");
    assert_eq!(
        judge(&tie, &[stats("book/price", 100, 50)], &baselines).drops[0].limit,
        "min_fill"
    );
    // Exactly at the threshold is no drop; a rate that rose is none either.
    assert!(
        judge(&m, &[stats("book/price", 100, 90)], &baselines)
            .drops
            .is_empty()
    );
    assert!(
        judge(&m, &[stats("book/price", 10, 10)], &baselines)
            .drops
            .is_empty()
    );
}

#[test]
fn few_items_are_not_judged_in_the_run_or_in_the_baseline() {
    let m = Monitor::default();
    let judgement = judge(
        &m,
        &[stats("book/price", 19, 0)],
        &[Baseline {
            label: "run 1",
            stats: &[stats("book/price", 100, 100)],
        }],
    );
    assert!(judgement.drops.is_empty());
    assert_eq!(
        (judgement.judged, judgement.compared, judgement.too_few),
        (0, 0, 1)
    );
    // A baseline of one page does not stand for the field; the next one does.
    let one_page = [stats("book/price", 1, 1)];
    let long_run = [stats("book/price", 200, 180)];
    let judgement = judge(
        &m,
        &[stats("book/price", 100, 50)],
        &[
            Baseline {
                label: "the snapshot",
                stats: &one_page,
            },
            Baseline {
                label: "run 2",
                stats: &long_run,
            },
        ],
    );
    assert_eq!(judgement.drops[0].baseline_from.as_deref(), Some("run 2"));
    assert_eq!(judgement.drops[0].baseline, Some(0.9));
    // Without a baseline, only floors are judged.
    let alone = judge(&m, &[stats("book/price", 100, 1)], &[]);
    assert!(alone.drops.is_empty());
    assert_eq!((alone.judged, alone.compared), (1, 0));
    // min_items may be lowered for small jobs.
    let small = monitor("monitor:\n  min_items: 1\n  min_fill: 0.5\n");
    assert_eq!(
        judge(&small, &[stats("book/price", 2, 0)], &[]).drops.len(),
        1
    );
}

#[test]
fn distinct_values_are_judged_by_count_and_by_share() {
    let m = monitor("monitor:\n  min_distinct: 5\n  max_distinct_drop: 0.5\n");
    let mut now = stats("book/price", 100, 100);
    now.distinct = 3;
    let mut base = stats("book/price", 100, 100);
    base.distinct = 80;
    let judgement = judge(
        &m,
        std::slice::from_ref(&now),
        &[Baseline {
            label: "run 1",
            stats: &[base],
        }],
    );
    assert_eq!(
        said(&judgement),
        [
            "book/price distinct 3 < 5 (min_distinct; baseline 80 from run 1)",
            "book/price distinct_share 0.03 < 0.40 (max_distinct_drop 0.50: baseline 0.80 from \
             run 1)",
        ]
    );
    assert_eq!(judgement.patterns_below(), 1);
    // A count past the cap says only "at least": it is not judged.
    now.distinct_capped = true;
    assert!(judge(&m, &[now], &[]).drops.is_empty());
}

#[test]
fn a_violation_of_another_kind_changes_no_count() {
    let w = shop("");
    let record: Map<String, Value> = serde_json::from_value(json!({
        "title": "T",
        "book": [{"price": 3, "tags": []}]
    }))
    .unwrap();
    let violation = Violation {
        pattern: "book/price".parse().unwrap(),
        constraint: ViolationKind::Min,
        expected: "at least 2".into(),
        found: "1 match".into(),
        context: "/html/body/ul/li".into(),
        node: None,
    };
    let with = HealthTally::of_page(&w, 0, "p", &record, &[violation], None);
    let without = HealthTally::of_page(&w, 0, "p", &record, &[], None);
    assert_eq!(with, without);
}

/// A generated book's price: a number, text that did not convert, or none.
#[derive(Clone, Debug)]
enum GenPrice {
    Number(u8),
    Unconvertible,
    Missing,
}

/// One generated page: a title (or none) and books with a price and tags.
#[derive(Clone, Debug)]
struct GenPage {
    title: Option<u8>,
    books: Vec<(GenPrice, Vec<u8>)>,
}

fn gen_page() -> impl Strategy<Value = GenPage> {
    let price = prop_oneof![
        (0u8..6).prop_map(GenPrice::Number),
        Just(GenPrice::Unconvertible),
        Just(GenPrice::Missing),
    ];
    (
        proptest::option::of(0u8..4),
        proptest::collection::vec((price, proptest::collection::vec(0u8..5, 0..3)), 0..4),
    )
        .prop_map(|(title, books)| GenPage { title, books })
}

/// The record and violations extraction would give for `p`.
fn record_of(p: &GenPage) -> (Map<String, Value>, Vec<Violation>) {
    let mut violations = Vec::new();
    let books: Vec<Value> = p
        .books
        .iter()
        .map(|(price, tags)| {
            let price = match price {
                GenPrice::Number(n) => json!(n),
                GenPrice::Unconvertible => {
                    for kind in [ViolationKind::Regex, ViolationKind::Type] {
                        violations.push(Violation {
                            pattern: "book/price".parse().unwrap(),
                            constraint: kind,
                            expected: String::new(),
                            found: String::new(),
                            context: String::new(),
                            node: None,
                        });
                    }
                    Value::Null
                }
                GenPrice::Missing => Value::Null,
            };
            json!({"price": price, "tags": tags.iter().map(|t| format!("t{t}")).collect::<Vec<_>>()})
        })
        .collect();
    let record = serde_json::from_value(json!({
        "title": p.title.map(|t| format!("T{t}")),
        "book": books,
    }))
    .unwrap();
    (record, violations)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(200)))]

    /// Regression guard for `--jobs`: pages counted in any order and merged
    /// in any grouping give the statistics of counting them one by one.
    #[test]
    fn merging_in_any_order_gives_the_same_statistics(
        pages in proptest::collection::vec(gen_page(), 0..12),
        order in proptest::collection::vec(any::<u32>(), 12),
        groups in proptest::collection::vec(1usize..4, 12),
    ) {
        let w = shop("");
        let tallies: Vec<HealthTally> = pages
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let (record, violations) = record_of(p);
                HealthTally::of_page(&w, i as u64, &format!("p{i}"), &record, &violations, None)
            })
            .collect();
        let mut sequential = HealthTally::new(&w);
        for t in tallies.clone() {
            sequential.merge(t);
        }
        // Shuffle, then merge in groups, then merge the groups backwards.
        let mut shuffled: Vec<(u32, HealthTally)> =
            order.iter().copied().zip(tallies).collect();
        shuffled.sort_by_key(|(k, _)| *k);
        let mut rest = shuffled.into_iter().map(|(_, t)| t).peekable();
        let mut partials = Vec::new();
        for &size in &groups {
            if rest.peek().is_none() {
                break;
            }
            let mut partial = HealthTally::new(&w);
            for t in rest.by_ref().take(size) {
                partial.merge(t);
            }
            partials.push(partial);
        }
        for t in rest {
            partials.push(t);
        }
        let mut merged = HealthTally::new(&w);
        for partial in partials.into_iter().rev() {
            merged.merge(partial);
        }
        prop_assert_eq!(merged.stats(), sequential.stats());
    }

    /// The same for distinct values past a small cap.
    #[test]
    fn capped_distinct_counts_merge_in_any_order(
        hashes in proptest::collection::vec(0u64..40, 0..60),
        split in 0usize..60,
    ) {
        let mut one = Distinct::with_cap(8);
        for &h in &hashes {
            one.insert_hash(h);
        }
        let split = split.min(hashes.len());
        let (a, b) = hashes.split_at(split);
        let mut left = Distinct::with_cap(8);
        let mut right = Distinct::with_cap(8);
        for &h in a.iter().rev() {
            left.insert_hash(h);
        }
        for &h in b {
            right.insert_hash(h);
        }
        right.merge(left);
        let mut unique = hashes.clone();
        unique.sort_unstable();
        unique.dedup();
        prop_assert_eq!(one.count(), unique.len().min(8) as u64);
        prop_assert_eq!(one.is_capped(), unique.len() > 8);
        prop_assert_eq!(right, one);
    }
}
