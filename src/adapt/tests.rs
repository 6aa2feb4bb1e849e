use super::*;
use crate::dom::Document;
use crate::similarity::NoMask;
use crate::treegram::{CaptureOptions, TreeGram, capture};
use crate::wrapper::{self, Wrapper};

const BOOKSHOP: &str = include_str!("../../wrappers/bookshop.yaml");
const PAGE: &str = include_str!("../../examples/pages/bookshop.html");

fn grams_from(wrapper: &Wrapper, page: &str) -> TreeGrams {
    let doc = Document::parse_str(page);
    let options = CaptureOptions {
        url: None,
        sha256: "",
        captured: "",
        instances: wrapper.adapt.treegram_instances,
        min_context: wrapper.adapt.treegram_min_context,
        only: None,
        unstable: &NoMask,
    };
    let (captured, _) = capture(wrapper, &doc, &options);
    let mut grams = TreeGrams::new();
    for c in captured {
        grams.insert(c.pattern, TreeGram::parse(c.html.as_bytes()).unwrap());
    }
    grams
}

fn bookshop() -> Wrapper {
    wrapper::load_str(BOOKSHOP, "bookshop.yaml").unwrap()
}

fn heal_page(wrapper: &Wrapper, page: &str) -> Healing {
    let grams = grams_from(wrapper, PAGE);
    let doc = Document::parse_str(page);
    heal(wrapper, &doc, None, &grams, &Rejections::new())
}

fn summary(h: &Healing) -> Vec<(String, Outcome, Option<String>)> {
    h.adaptations
        .iter()
        .map(|a| (a.pattern.clone(), a.outcome, a.new_xpath.clone()))
        .collect()
}

#[test]
fn a_good_page_needs_no_adaptation() {
    let h = heal_page(&bookshop(), PAGE);
    assert!(h.adaptations.is_empty());
}

#[test]
fn a_renamed_class_is_healed() {
    let page = PAGE.replace("class=\"price\"", "class=\"cost\"");
    let h = heal_page(&bookshop(), &page);
    let a = &h.adaptations[0];
    println!("{:?} {:?} {:?} {:?} {:?} {:?}", a.algorithm, a.label, a.score, a.runner_up, a.similarity, a.candidates);
    assert_eq!(
        summary(&h),
        [(
            "book/price".to_owned(),
            Outcome::Healed,
            Some(".//p[contains(concat(' ', normalize-space(@class), ' '), ' cost ')]".to_owned())
        )]
    );
    assert!(h.extraction.violations.is_empty(), "{:?}", h.extraction.violations);
}

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/pages/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

fn show(h: &Healing) {
    for a in &h.adaptations {
        println!(
            "{} {:?} {:?} {:?}/{:?} score {:?} runner {:?} sim {:?} -> {:?}\n  reason {:?}",
            a.pattern, a.outcome, a.trigger, a.algorithm, a.label, a.score, a.runner_up, a.similarity, a.new_xpath, a.reason
        );
        for c in a.candidates.iter().take(12) {
            println!("    {:?}/{:?} {:.3} {:.3} {} {:?}", c.algorithm, c.label, c.score, c.similarity, c.verdict, c.nodes);
        }
    }
}

#[test]
fn redesign_e2e_probe() {
    let h = heal_page(&bookshop(), &fixture("bookshop-redesign.html"));
    show(&h);
    println!("{}", serde_json::to_string_pretty(&h.extraction.record).unwrap());
    println!("{:?}", h.extraction.violations);
}

#[test]
fn silent_probe() {
    let h = heal_page(&bookshop(), &fixture("bookshop-silent.html"));
    show(&h);
    println!("{:?}", h.extraction.violations);
}

#[test]
fn ambiguous_probe() {
    let h = heal_page(&bookshop(), &fixture("bookshop-ambiguous.html"));
    show(&h);
    println!("{:?}", h.extraction.violations);
}
