//! Tests for a heal on another page of the site than the one the wrapper
//! was captured on: the XPath it writes must hold on the site's other
//! pages, not only on the page it was written from.

use super::tests::{heal_one_field, healed_node, text_of};
use crate::dom::Document;

/// A recipe page: the recipe's name in the card's heading and in the pin
/// button's `data-description`, as recipe plugins write them; `wrap` puts
/// the card one `div` deeper, and `heading_id` gives the heading the slug
/// of its text as an id, as table-of-contents plugins do.
fn recipe(name: &str, slug: &str, wrap: bool, heading_id: bool) -> String {
    let id = if heading_id {
        format!(" id=\"{slug}\"")
    } else {
        String::new()
    };
    let card = format!(
        "<div class=\"recipe-card\"><h2 class=\"recipe-name\"{id}>{name}</h2>\
         <a class=\"pin\" data-description=\"{name}\" href=\"/pin/{slug}\">Pin</a>\
         <a href=\"/print/{slug}\">Print</a>\
         <ul class=\"ingredients\"><li>2 eggs</li><li>1 cup of flour</li></ul></div>"
    );
    let card = if wrap {
        format!("<div class=\"card-wrap\">{card}</div>")
    } else {
        card
    };
    format!(
        "<!DOCTYPE html><html><body><main><article><h1>{name}</h1>\
         <p>We made this on a rainy afternoon and it kept well for days.</p>{card}\
         <h2>Comments</h2><p>No comments yet.</p></article></main></body></html>"
    )
}

/// Regression: heals on a second page of a recipe site wrote
/// `//h2[@id='best-banana-bread']` and `//a[@data-description='Best Banana
/// Bread']`, tests of that page's own content, which select nothing on any
/// other page of the site. The XPath a heal writes now prefers the values
/// the capture page held too: here the classes both pages carry.
#[test]
fn a_heal_on_another_page_writes_what_the_capture_page_shares() {
    let old = recipe("Black Forest Cake", "black-forest-cake", false, false);
    let new = recipe("Best Banana Bread", "best-banana-bread", true, true);
    let other = recipe("Apple Pie", "apple-pie", true, false);
    for (xpath, kept, text) in [
        (
            "/html/body/main/article/div/h2",
            "recipe-name",
            "Best Banana Bread",
        ),
        ("/html/body/main/article/div/a[1]", "pin", "Pin"),
    ] {
        let (h, doc) = heal_one_field(xpath, &old, &new);
        let node = healed_node(&h, &doc).unwrap_or_else(|| panic!("{:?}", h.adaptations[0]));
        assert_eq!(text_of(&doc, node), text);
        let written = h.adaptations[0].new_xpath.clone().unwrap();
        assert!(written.contains(kept), "{written}");
        // The written XPath selects the same element on a third page.
        let third = crate::dom::Document::parse_str(&other);
        let selected = crate::xpath::XPath::compile(&written)
            .unwrap()
            .select_item(&third, crate::xpath::Item::Node(third.root()))
            .unwrap();
        assert_eq!(selected.len(), 1, "{written}");
        assert_eq!(
            selected[0].string_value(&third).trim(),
            text.replace("Best Banana Bread", "Apple Pie")
        );
    }
}

/// A post whose title's class is `title`, or `headline` after a redesign;
/// `menu` adds a heading to the site's menu, far from the post.
fn post(class: &str, menu: bool) -> String {
    let menu = if menu {
        "<nav><div><div><ul><li><h2>Sections</h2></li><li>News</li></ul></div></div></nav>"
    } else {
        "<nav><div><div><ul><li>News</li></ul></div></div></nav>"
    };
    format!(
        "<!DOCTYPE html><html><body>{menu}<main><div class=\"post\">\
         <h2 class=\"{class}\">Rain again</h2><p>It rained all week, and the river rose.</p>\
         </div></main></body></html>"
    )
}

/// The heal of `w` on `new` with its tree-gram captured on `old`, and with
/// `old` kept as the whole capture page when `with_page`.
fn heal_beside_capture(
    w: &crate::wrapper::Wrapper,
    old: &str,
    new: &Document,
    with_page: bool,
) -> super::Healing {
    let options = crate::treegram::CaptureOptions {
        sha256: "ab12",
        ..crate::treegram::CaptureOptions::of(w)
    };
    let mut grams = super::TreeGrams::capture(w, &Document::parse_str(old), &options);
    if with_page {
        grams.keep_page("ab12", old.as_bytes().to_vec());
    }
    super::heal(w, new, None, &grams, &super::Rejections::new())
}

/// The written XPath's nodes on `page`, by their text.
fn selected_texts(xpath: &str, page: &str) -> Vec<String> {
    let doc = crate::dom::Document::parse_str(page);
    crate::xpath::XPath::compile(xpath)
        .unwrap()
        .select_item(&doc, crate::xpath::Item::Node(doc.root()))
        .unwrap()
        .iter()
        .map(|i| i.string_value(&doc).trim().to_owned())
        .collect()
}

/// Regression: on a page without the menu's heading, a heal wrote `//h2`,
/// exact there and on the tree-gram's neighbourhood of the capture page,
/// which selects the menu's heading too on every page that has one. Given
/// the whole capture page, the heal writes a path that selects there what
/// the wrapper selected.
#[test]
fn a_heal_writes_a_path_that_selects_the_captured_node_on_the_whole_capture_page() {
    let w = super::tests::one_field("/html/body/main/div/h2[@class='title']");
    let old = post("title", true);
    let new = Document::parse_str(&post("headline", false));
    let written = |with_page: bool| {
        let h = heal_beside_capture(&w, &old, &new, with_page);
        let node = healed_node(&h, &new).unwrap_or_else(|| panic!("{:?}", h.adaptations[0]));
        assert_eq!(text_of(&new, node), "Rain again");
        h.adaptations[0].new_xpath.clone().unwrap()
    };
    let alone = written(false);
    assert_eq!(
        selected_texts(&alone, &old),
        ["Sections", "Rain again"],
        "{alone}"
    );
    let beside = written(true);
    assert_eq!(selected_texts(&beside, &old), ["Rain again"], "{beside}");
}

/// An article of paragraphs too long to be tested by their text; `extra`
/// puts one more before them.
fn article(extra: bool) -> String {
    let lines = [
        "The council met on Tuesday to discuss the new bridge over the river.",
        "Residents asked why the work had been delayed for another two years.",
        "The mayor said the money would come from the regional budget next spring.",
        "A vote on the plan is expected before the end of the summer holidays.",
    ];
    let extra = if extra {
        "<p>Updated on Wednesday with the mayor's answer to the residents' letter.</p>"
    } else {
        ""
    };
    let body: String = lines.iter().map(|l| format!("<p>{l}</p>")).collect();
    format!("<!DOCTYPE html><html><body><main><div>{extra}{body}</div></main></body></html>")
}

/// A heal whose every XPath selects, on the page the wrapper was captured
/// on, only another node than the wrapper did, is refused: on a page still
/// in the capture's layout it would give that other node. Without the
/// capture page the same heal is made, by position.
#[test]
fn a_heal_whose_xpath_names_another_node_on_the_capture_page_is_refused() {
    let w = super::tests::one_field("/html/body/main/div/p[2]");
    let old = article(false);
    let new = Document::parse_str(&article(true));
    let alone = heal_beside_capture(&w, &old, &new, false);
    let node = healed_node(&alone, &new).unwrap_or_else(|| panic!("{:?}", alone.adaptations[0]));
    assert!(text_of(&new, node).starts_with("Residents asked"));
    let written = alone.adaptations[0].new_xpath.clone().unwrap();
    assert!(
        selected_texts(&written, &old)[0].starts_with("The mayor"),
        "{written}"
    );
    let beside = heal_beside_capture(&w, &old, &new, true);
    super::tests::model_abstained(&beside);
    let reason = beside.adaptations[0].reason.clone().unwrap_or_default();
    assert!(
        reason.contains("other nodes on the page the pattern was captured on"),
        "{reason}"
    );
}
