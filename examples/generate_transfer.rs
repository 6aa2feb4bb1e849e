//! Measures how well generated locators survive from one page to the next
//! pages of the same site, on the SWDE book pages in `../shared/data`.
//!
//! For each site and field, the field's text node on a "training" page is
//! located with `mend::xpath::generate`; the locator is then evaluated on the
//! other pages of the site, and counted as correct when the text it selects
//! equals the ground-truth value. The program also reports the time spent
//! generating. Usage: `cargo run --release --example generate_transfer [PAGES]`.

use std::collections::BTreeMap;
use std::time::Instant;

use mend::dom::{Document, NodeId, NodeKind};
use mend::xpath::generate::{GenerateOptions, generate};
use mend::xpath::{Item, XPath};

fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn main() {
    let pages: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(30);
    let root = "../shared/data/swde_subset";
    let lines = std::fs::read_to_string(format!("{root}/derived_targets.jsonl"))
        .expect("needs ../shared/data");
    // (site, page) -> attribute -> values
    let mut truth: BTreeMap<(String, String), BTreeMap<String, Vec<String>>> = BTreeMap::new();
    let mut files: BTreeMap<(String, String), String> = BTreeMap::new();
    for line in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let site = v["site"].as_str().unwrap_or_default().to_owned();
        let page = v["page"].as_str().unwrap_or_default().to_owned();
        let attr = v["attribute"].as_str().unwrap_or_default().to_owned();
        let value = v["value"].as_str().unwrap_or_default().to_owned();
        files.insert(
            (site.clone(), page.clone()),
            v["file"].as_str().unwrap_or_default().to_owned(),
        );
        truth
            .entry((site, page))
            .or_default()
            .entry(attr)
            .or_default()
            .push(norm(&value));
    }
    let sites: Vec<String> = {
        let mut s: Vec<String> = truth.keys().map(|(s, _)| s.clone()).collect();
        s.dedup();
        s
    };
    let mut docs: BTreeMap<(String, String), Document> = BTreeMap::new();
    for ((site, page), file) in &files {
        if page.parse::<usize>().unwrap_or(usize::MAX) < pages {
            let bytes = std::fs::read(format!("{root}/{file}")).expect("page");
            docs.insert((site.clone(), page.clone()), Document::parse(&bytes));
        }
    }
    let options = GenerateOptions::default();
    let mut total_time = 0.0;
    let mut runs = 0;
    for site in &sites {
        let train = (site.clone(), "0000".to_owned());
        let (Some(doc), Some(fields)) = (docs.get(&train), truth.get(&train)) else {
            continue;
        };
        for (attr, values) in fields {
            let value = &values[0];
            let Some(text) = doc
                .all()
                .find(|&n| doc.kind(n) == NodeKind::Text && norm(doc.text(n)) == *value)
            else {
                println!("{site} {attr}: value not found on the training page");
                continue;
            };
            let start = Instant::now();
            let g = match generate(doc, Item::Node(NodeId::ROOT), &[Item::Node(text)], &options) {
                Ok(g) => g,
                Err(e) => {
                    println!("{site} {attr}: {e}");
                    continue;
                }
            };
            let took = start.elapsed().as_secs_f64();
            total_time += took;
            runs += 1;
            let xp = XPath::compile(&g.xpath).expect("verified");
            let mut ok = 0;
            let mut with_value = 0;
            for ((s, p), d) in &docs {
                if s != site || p == "0000" {
                    continue;
                }
                let Some(want) = truth.get(&(s.clone(), p.clone())).and_then(|f| f.get(attr))
                else {
                    continue;
                };
                with_value += 1;
                let got: Vec<String> = xp
                    .select(d, NodeId::ROOT)
                    .unwrap_or_default()
                    .iter()
                    .map(|i| norm(&i.string_value(d)))
                    .collect();
                // A field may repeat on a page (a title in the breadcrumb and the
                // heading); any selection of true values counts as correct.
                if !got.is_empty() && got.iter().all(|g| want.contains(g)) {
                    ok += 1;
                } else if std::env::var_os("SHOW_MISSES").is_some() {
                    println!("    miss on {p}: got {got:?}, want {want:?}");
                }
            }
            println!(
                "{site:14} {attr:17} {ok:3}/{with_value:<3} {:6.1} ms {:5} evals cost {:4} {}",
                took * 1e3,
                g.evaluations,
                g.cost,
                g.xpath
            );
        }
    }
    println!(
        "mean generation time {:.1} ms over {runs} runs",
        total_time * 1e3 / runs.max(1) as f64
    );
}
