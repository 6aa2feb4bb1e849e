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
