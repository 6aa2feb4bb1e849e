//! Runs `wrappers/booksamillion.yaml` over the 200 SWDE booksamillion pages in
//! `../shared/data` and scores every field against the SWDE ground truth.
//!
//! Values compare after collapsing whitespace, dropping the leading ": " that
//! SWDE keeps from the label's text node, and ignoring case. Per field, over
//! all pages: precision is the share of extracted values that are in the
//! truth for their page; recall is the share of true values that were
//! extracted.
//!
//! Per page, so that a few pages where most values are lost cannot hide in
//! the pooled figures: a page's recall is the share of its true values, all
//! fields together, that are among the values extracted from it for their
//! field (a page with no true value is left out). The test reports the mean
//! of that over pages and the number of pages whose every true value was
//! extracted, and holds both to a floor.

use std::collections::HashMap;
use std::path::Path;

use mend::extract::extract;
use mend::xpath::normalize_space;
use mend::{Document, wrapper};
use serde_json::Value;

const DATA: &str = "../shared/data/swde_subset";
const FIELDS: &[&str] = &[
    "title",
    "author",
    "isbn_13",
    "publisher",
    "publication_date",
];

fn norm(s: &str) -> String {
    normalize_space(s)
        .trim_start_matches(':')
        .trim()
        .to_lowercase()
}

/// page id → field → true values.
fn ground_truth() -> HashMap<String, HashMap<String, Vec<String>>> {
    let mut truth: HashMap<String, HashMap<String, Vec<String>>> = HashMap::new();
    for field in FIELDS {
        let path = format!("{DATA}/groundtruth/book/book-booksamillion-{field}.txt");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for line in text.lines().skip(2) {
            let cells: Vec<&str> = line.split('\t').collect();
            let values = cells[2..]
                .iter()
                .filter(|v| **v != "<NULL>")
                .map(|v| norm(v))
                .collect();
            truth
                .entry(cells[0].to_owned())
                .or_default()
                .insert((*field).to_owned(), values);
        }
    }
    truth
}

fn values(v: &Value) -> Vec<String> {
    match v {
        Value::Null => vec![],
        Value::Array(items) => items.iter().flat_map(values).collect(),
        Value::String(s) => vec![norm(s)],
        other => vec![norm(&other.to_string())],
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn booksamillion_fields_match_the_swde_ground_truth() {
    let wrapper = wrapper::load_file("wrappers/booksamillion.yaml").unwrap();
    let truth = ground_truth();
    let mut counts: HashMap<&str, (usize, usize, usize)> = HashMap::new();
    let mut violations = 0;
    let dir = Path::new(DATA).join("pages/book/book-booksamillion-2000");
    let mut pages = 0;
    // Per page: recall, for the pages with at least one true value.
    let mut page_recalls: Vec<(String, f64)> = Vec::new();
    for id in 0..200 {
        let id = format!("{id:04}");
        let page = dir.join(format!("{id}.htm"));
        let bytes = std::fs::read(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        let doc = Document::parse(&bytes);
        let out = extract(&wrapper, &doc, None);
        violations += out.violations.len();
        pages += 1;
        let (mut page_true, mut page_found) = (0, 0);
        for field in FIELDS {
            let got = values(&out.record[*field]);
            let expected = &truth[&id][*field];
            let correct = got.iter().filter(|g| expected.contains(g)).count();
            let c = counts.entry(field).or_default();
            c.0 += correct;
            c.1 += got.len();
            c.2 += expected.len();
            page_true += expected.len();
            page_found += expected.iter().filter(|e| got.contains(e)).count();
        }
        if page_true > 0 {
            page_recalls.push((id, page_found as f64 / page_true as f64));
        }
    }
    assert_eq!(pages, 200);
    println!("booksamillion, {pages} pages, {violations} violations");
    println!(
        "{:<18} {:>9} {:>9} {:>9} {:>9}",
        "field", "extracted", "true", "precision", "recall"
    );
    for field in FIELDS {
        let (correct, got, expected) = counts[field];
        let precision = correct as f64 / got.max(1) as f64;
        let recall = correct.min(expected) as f64 / expected.max(1) as f64;
        println!("{field:<18} {got:>9} {expected:>9} {precision:>9.3} {recall:>9.3}");
        assert!(
            precision >= 0.99 && recall >= 0.99,
            "{field}: precision {precision:.3}, recall {recall:.3}"
        );
    }
    assert_eq!(violations, 0);

    let scored = page_recalls.len();
    let mean = page_recalls.iter().map(|(_, r)| r).sum::<f64>() / scored.max(1) as f64;
    let complete = page_recalls.iter().filter(|(_, r)| *r == 1.0).count();
    let mut worst = page_recalls.clone();
    worst.sort_by(|a, b| a.1.total_cmp(&b.1));
    worst.truncate(5);
    println!(
        "per page: {scored} pages with true values, mean recall {mean:.4}, \
         {complete} with every true value extracted; lowest {worst:?}"
    );
    // Measured: 200 pages scored, mean recall 1.0000, 200 of 200 complete.
    assert_eq!(scored, 200, "every page has true values");
    assert!(
        mean >= 0.995,
        "mean per-page recall {mean:.4}; lowest {worst:?}"
    );
    assert!(
        complete >= 198,
        "{complete} of {scored} pages with every true value; lowest {worst:?}"
    );
}
