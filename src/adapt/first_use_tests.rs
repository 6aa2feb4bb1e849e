//! What a new user met on real sites, as pages written for the project: a
//! page is never drift against its own capture, and a record spread over
//! several containers is whole on its capture page.

use super::tests::grams_from;
use super::*;
use crate::dom::Document;
use crate::extract::extract;
use crate::wrapper;

/// The drift check's violations of `page` against tree-grams captured on
/// `captured`.
fn drift_on(w: &Wrapper, captured: &str, page: &str) -> Vec<crate::extract::Violation> {
    let grams = grams_from(w, captured);
    let doc = Document::parse_str(page);
    let extraction = extract(w, &doc, None);
    drift(w, &doc, &grams, &extraction)
}

/// Every wrapper and example page that ship with mend, each pair that
/// belongs together.
fn shipped() -> Vec<(Wrapper, String)> {
    let root = env!("CARGO_MANIFEST_DIR");
    ["bookshop", "article", "exchange-rates"]
        .into_iter()
        .map(|name| {
            let yaml = std::fs::read_to_string(format!("{root}/wrappers/{name}.yaml")).unwrap();
            let page =
                std::fs::read_to_string(format!("{root}/examples/pages/{name}.html")).unwrap();
            (wrapper::load_str(&yaml, "w.yaml").unwrap(), page)
        })
        .collect()
}

#[test]
fn a_page_is_never_drift_against_its_own_capture() {
    for (w, page) in shipped() {
        assert_eq!(drift_on(&w, &page, &page), [], "{}", w.name);
        let grams = grams_from(&w, &page);
        let doc = Document::parse_str(&page);
        let h = heal(&w, &doc, None, &grams, &Rejections::new());
        assert!(h.adaptations.is_empty(), "{}: {:?}", w.name, h.adaptations);
        assert!(h.extraction.violations.is_empty(), "{}", w.name);
    }
}

#[test]
fn a_record_spread_over_several_containers_is_whole_on_its_capture_page() {
    let w = wrapper::load_str(
        r#"
name: carousel
patterns:
  - name: item
    xpath: //div[@class='carousel']/ul/li
    constraints: {min: 1}
    patterns:
      - name: name
        xpath: ./a
        constraints: {min: 1, max: 1}
"#,
        "carousel.yaml",
    )
    .unwrap();
    let lists: String = (0..4)
        .map(|l| {
            let items: String = (0..10)
                .map(|i| format!("<li><a href='/p/{l}/{i}'>Product {l}-{i}</a></li>"))
                .collect();
            format!("<ul class='slide'>{items}</ul>")
        })
        .collect();
    let page = format!(
        "<!DOCTYPE html><html><body><h1>Offers</h1><div class='carousel'>{lists}</div></body></html>"
    );
    assert_eq!(drift_on(&w, &page, &page), []);
    let grams = grams_from(&w, &page);
    let doc = Document::parse_str(&page);
    let h = heal(&w, &doc, None, &grams, &Rejections::new());
    assert!(h.adaptations.is_empty(), "{:?}", h.adaptations);
    let items = h.extraction.record["item"].as_array().map(Vec::len);
    assert_eq!(items, Some(40));
}
