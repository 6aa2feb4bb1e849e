//! Regression tests for deleted targets that leave something alike behind:
//! a lookalike elsewhere on the page (a related item, a sidebar widget) and
//! the page's `<title>`, which repeats a deleted headline.

use super::tests::{heal_one_field, healed_node};
use crate::dom::Document;
use crate::xpath::Item;

/// The text of `node`, spaces normalized.
fn text(doc: &Document, node: crate::dom::NodeId) -> String {
    Item::Node(node)
        .string_value(doc)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A product page: `details` in the product block, `side` in a column of
/// the footer.
fn page(details: &str, side: &str) -> String {
    let links: String = (1..=12)
        .map(|i| format!("<li><a href=\"/help/{i}\">Help topic {i}</a></li>"))
        .collect();
    format!(
        "<!DOCTYPE html><html><body><div class=\"product\"><h1>The Four Loves</h1>{details}\
         <div class=\"publisher\">Houghton Mifflin / 1971 / Paperback</div>\
         <div class=\"sku\">Stock No: WW9301</div></div>\
         <footer><div class=\"cols\"><div class=\"col\"><h3>Help</h3><ul>{links}</ul>\
         <div class=\"more\">{side}</div></div></div></footer></body></html>"
    )
}

fn author(name: &str) -> String {
    format!("<a class=\"who\" href=\"/author/lewis\">{name}</a>")
}

/// Regression (christianbook and booksamillion, mutation track): the author
/// was deleted, and a lookalike (the same tag, classes and link, another
/// name) stood in another region of the page. Its label locator or its
/// attributes found it, and its own evidence was the target's: mend
/// answered it. It has none of what stood around the author (the title,
/// the publisher line), and is left alone.
#[test]
fn a_deleted_author_whose_lookalike_stands_in_the_footer_is_left_absent() {
    let xpath = "/html/body/div/div[1]/a";
    let old = page(
        &format!("<div class=\"author\">By: {}</div>", author("C. S. Lewis")),
        "",
    );
    let new = page("", &author("C. S. Morning"));
    let (h, doc) = heal_one_field(xpath, &old, &new);
    assert_eq!(healed_node(&h, &doc), None, "{:?}", h.adaptations[0]);
    let reason = h.adaptations[0].reason.as_deref().unwrap_or_default();
    assert!(reason.contains("lookalike"), "{reason}");

    // The author's name changed where it stood, its block wrapped so that
    // the XPath breaks: the node among the title and the publisher is the
    // author with a new value.
    let new = page(
        &format!(
            "<section><div class=\"author\">By: {}</div></section>",
            author("C. S. Morning")
        ),
        "",
    );
    let (h, doc) = heal_one_field(xpath, &old, &new);
    let node = healed_node(&h, &doc).unwrap_or_else(|| panic!("{:?}", h.adaptations[0]));
    assert_eq!(text(&doc, node), "C. S. Morning");
}

/// Regression (zyte articles, mutation track): the headline was deleted.
/// Its text locator, let go of its tag, found one element with the stored
/// text: the page's `<title>`, which no browser shows.
#[test]
fn a_deleted_headline_is_not_found_in_the_pages_title() {
    let page = |headline: &str| {
        format!(
            "<!DOCTYPE html><html><head><title>Plague cases confirmed in the north</title></head>\
             <body><main><header>{headline}<p class=\"by\">By A. Writer</p></header>\
             <p>Officials say the risk of an outbreak is low.</p></main></body></html>"
        )
    };
    let old = page("<h1 class=\"headline\">Plague cases confirmed in the north</h1>");
    let (h, doc) = heal_one_field("/html/body/main/header/h1", &old, &page(""));
    assert_eq!(healed_node(&h, &doc), None, "{:?}", h.adaptations[0]);
}
