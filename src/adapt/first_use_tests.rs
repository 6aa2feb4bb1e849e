//! What a new user met on real sites, as pages written for the project: a
//! page is never drift against its own capture, a record spread over
//! several containers is whole on its capture page, and, with tree-grams
//! captured over several pages, an optional field absent on a page and the
//! bold words of one product's description are no drift.

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

/// A product page of the `shop` wrapper below: its title, sale price, list
/// price (optional: `None` leaves it out) and description.
fn product(title: &str, sale: &str, list: Option<&str>, description: &str) -> String {
    let list = list.map_or(String::new(), |l| format!("<span class='list'>{l}</span>"));
    format!(
        "<!DOCTYPE html><html><head><title>{title}</title></head><body>\
         <nav><a href='/'>Home</a><a href='/lamps'>Lamps</a><a href='/cart'>Cart</a></nav>\
         <main><div class='product'><h1 class='title'>{title}</h1>\
         <div class='prices'><span class='sale'>{sale}</span>{list}</div>\
         <div class='desc'>{description}</div>\
         <ul class='specs'><li>Colour: white</li><li>Weight: 2 kg</li></ul></div>\
         <aside><h2>Related</h2><ul><li><a href='/p/9'>Shade</a></li><li><a href='/p/8'>Bulb</a></li></ul></aside>\
         </main><footer><p>Shop Ltd</p></footer></body></html>"
    )
}

fn shop() -> Wrapper {
    wrapper::load_str(
        r#"
name: shop
patterns:
  - name: title
    xpath: //h1[@class='title']
    constraints: {min: 1, max: 1}
  - name: sale_price
    xpath: //span[@class='sale']
    constraints: {min: 1, max: 1}
  - name: list_price
    xpath: //span[@class='list']
    constraints: {max: 1}
  - name: description
    xpath: //div[@class='desc']
    constraints: {min: 1, max: 1}
"#,
        "shop.yaml",
    )
    .unwrap()
}

/// Three product pages where the `shop` wrapper works: the list price is
/// on two of them, and the bold labels of each description are its own.
fn capture_pages() -> [String; 3] {
    [
        product(
            "Desk lamp Orion",
            "$20.00",
            Some("$30.00"),
            "<p>A bright desk lamp.</p><p><b>Features:</b> dimmable</p><p><b>Assembly:</b> none</p>",
        ),
        product(
            "Floor lamp Vega",
            "$45.00",
            None,
            "<p>A tall lamp for a whole room.</p><p><b>Dimensions:</b> 160 cm</p>",
        ),
        product(
            "Wall light Lyra",
            "$15.00",
            Some("$19.00"),
            "<p>A small wall light.</p><p>Needs two screws.</p>",
        ),
    ]
}

/// The tree-grams of `w` captured on the first of `pages`, with what the
/// others showed, read back as their files would be.
fn grams_across(w: &Wrapper, pages: &[String]) -> TreeGrams {
    let docs: Vec<Document> = pages.iter().map(|p| Document::parse_str(p)).collect();
    let others: Vec<&Document> = docs[1..].iter().collect();
    let captured = crate::treegram::capture_across(
        w,
        &docs[0],
        &others,
        &crate::treegram::CaptureOptions::of(w),
    );
    let mut grams = TreeGrams::new();
    for c in captured.0 {
        grams.insert(c.pattern, TreeGram::parse(c.html.as_bytes()).unwrap());
    }
    grams
}

/// That a heal adapted nothing and left no violation.
fn assert_untouched(h: &Healing) {
    assert!(h.adaptations.is_empty(), "{:?}", h.adaptations);
    assert!(
        h.extraction.violations.is_empty(),
        "{:?}",
        h.extraction.violations
    );
}

/// The adaptations and violations of healing `page` against `grams`.
fn healed(w: &Wrapper, grams: &TreeGrams, page: &str) -> Healing {
    let doc = Document::parse_str(page);
    heal(w, &doc, None, grams, &Rejections::new())
}

#[test]
fn capture_over_several_pages_records_what_varies() {
    let w = shop();
    let grams = grams_across(&w, &capture_pages());
    let across = |name: &str| {
        grams
            .get(&PatternPath::top(name))
            .unwrap()
            .header
            .across
            .clone()
            .unwrap()
    };
    let list = across("list_price");
    assert_eq!((list.pages, list.present), (3, 2));
    assert!(list.optional());
    assert!(!across("title").optional());
    // Each description's bold words are its own: none held on every page.
    assert!(across("description").labels.is_empty());
}

#[test]
fn an_optional_field_absent_on_a_new_page_is_not_healed_onto_another_price() {
    let w = shop();
    let grams = grams_across(&w, &capture_pages());
    let page = product(
        "Table lamp Nova",
        "$33.00",
        None,
        "<p>Warm light in a ceramic body.</p>",
    );
    let h = healed(&w, &grams, &page);
    assert_untouched(&h);
    assert_eq!(h.extraction.record["sale_price"], "$33.00");
    assert!(h.extraction.record["list_price"].is_null());
}

#[test]
fn bold_words_of_one_description_are_not_labels_on_another_product() {
    let w = shop();
    let grams = grams_across(&w, &capture_pages());
    let page = product(
        "Pendant Carina",
        "$80.00",
        Some("$95.00"),
        "<p>Hangs over a dining table.</p><p><b>Care:</b> wipe dry</p>",
    );
    let doc = Document::parse_str(&page);
    let extraction = extract(&w, &doc, None);
    assert_eq!(drift(&w, &doc, &grams, &extraction), []);
    let h = healed(&w, &grams, &page);
    assert_untouched(&h);
}

#[test]
fn a_page_healed_against_a_capture_over_several_pages_keeps_every_pattern() {
    let w = shop();
    let pages = capture_pages();
    let grams = grams_across(&w, &pages);
    for page in &pages {
        let h = healed(&w, &grams, page);
        assert_untouched(&h);
    }
}

#[test]
fn an_optional_field_that_moved_is_still_healed() {
    // The list price's class is renamed on a page that has one: the
    // locators that held on every capture page (and found nothing where
    // the field was absent) still find it, so the field broke, and the
    // heal finds it again.
    let w = shop();
    let grams = grams_across(&w, &capture_pages());
    let [first, ..] = capture_pages();
    let page = first.replace("class='list'", "class='was-price'");
    let h = healed(&w, &grams, &page);
    assert_eq!(
        h.extraction.record["list_price"], "$30.00",
        "{:?}",
        h.adaptations
    );
}
