//! Tests for a heal on another page of the site than the one the wrapper
//! was captured on: the XPath it writes must hold on the site's other
//! pages, not only on the page it was written from.

use super::tests::{heal_one_field, healed_node, text_of};

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
