//! Regression tests for deleted targets that leave something alike behind:
//! a lookalike elsewhere on the page (a related item, a footer's link), the
//! page's `<title>`, which repeats a deleted headline, and the empty wrapper
//! that held the target, where its XPath now lands.

use super::tests::{drift_of, heal_one_field, healed_node, text_of};

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
    assert_eq!(text_of(&doc, node), "C. S. Morning");
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

/// Regression (zyte articles, mutation track): the article body was
/// wrapped twice and then deleted, and its absolute XPath landed on the
/// empty wrapper that had held it: one node, the constraints met, nothing
/// reported. An element without text that shares none of the target's
/// classes or attribute values is not the target.
#[test]
fn an_xpath_left_on_the_empty_wrapper_of_a_deleted_body_is_drift() {
    let page = |body: &str| {
        format!(
            "<!DOCTYPE html><html><body><div class=\"page\"><h1>Son of former president stabbed</h1>\
             <div class=\"byline\">By Staff</div><div class=\"row\">{body}</div></div></body></html>"
        )
    };
    let body = "<div class=\"article-body\" itemprop=\"articleBody\">The son of the former \
                president was stabbed to death during a lecture at a clinic in Berlin.</div>";
    let xpath = "/html/body/div/div[2]/div";
    let old = page(body);
    let w = super::tests::one_field(xpath);
    let grams = super::tests::grams_from(&w, &old);
    let drifted = |page: &str| drift_of(&w, &grams, page);
    let emptied = page("<div class=\"layout-wrapper\"></div>");
    let found = drifted(&emptied);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].constraint, crate::extract::ViolationKind::Drift);
    let (h, doc) = heal_one_field(xpath, &old, &emptied);
    assert_eq!(healed_node(&h, &doc), None, "{:?}", h.adaptations[0]);
    // The body emptied in place (a script fills it) keeps its class: no
    // drift.
    assert!(
        drifted(&page(
            "<div class=\"article-body\" itemprop=\"articleBody\"></div>"
        ))
        .is_empty()
    );
}

/// A book page whose details `cells` stand in a table after the title, and
/// `far` deep in the footer.
fn details_page(cells: &str, far: &str) -> String {
    let links: String = (1..=12)
        .map(|i| format!("<li><a href=\"/help/{i}\">Help topic {i}</a></li>"))
        .collect();
    format!(
        "<!DOCTYPE html><html><body><div class=\"product\"><h1>Psalms for Praying</h1>\
         <div class=\"details\">{cells}</div></div>\
         <footer><div class=\"cols\"><div class=\"col\"><ul>{links}</ul>\
         <div class=\"more\">{far}</div></div></div></footer></body></html>"
    )
}

fn vendor_cell(vendor: &str) -> String {
    format!(
        "<td width=\"50%\"><b>Format:</b> Paperback<br><b>Vendor:</b> {vendor}<br>\
         <b>Publication Date:</b> 1970<br><b>Dimensions:</b> 6 X 4.25 (inches)</td>"
    )
}

fn table(cells: &str) -> String {
    format!("<table><tbody><tr>{cells}</tr></tbody></table>")
}

/// Regression (christianbook, mutation track): a details cell, large enough
/// to be its own context in the tree-gram, was deleted, and a copy of it
/// with another vendor stood in another region. Its label locator
/// (`//td[b='Format:']`) selected the copy, and the tree-gram, the cell
/// alone, had nothing of what stood around it. The header now keeps the
/// texts of its row, and the copy stands among none of them.
#[test]
fn a_deleted_details_cell_whose_copy_stands_in_the_footer_is_left_absent() {
    let xpath = "/html/body/div/div/table/tbody/tr/td[1]";
    let isbn = "<td><b>ISBN:</b> 0800601092<br><b>Availability:</b> In Stock</td>";
    let old = details_page(
        &table(&format!("{}{isbn}", vendor_cell("Augsburg Fortress"))),
        "",
    );
    let new = details_page(&table(isbn), &table(&vendor_cell("Morning Fortress")));
    let (h, doc) = heal_one_field(xpath, &old, &new);
    assert_eq!(healed_node(&h, &doc), None, "{:?}", h.adaptations[0]);
    // The vendor changed in the row, the table wrapped: the cell beside
    // the ISBN is the target with a new value.
    let new = details_page(
        &format!(
            "<section>{}</section>",
            table(&format!("{}{isbn}", vendor_cell("Morning Fortress")))
        ),
        "",
    );
    let (h, doc) = heal_one_field(xpath, &old, &new);
    let Some(node) = healed_node(&h, &doc) else {
        return super::tests::model_abstained(&h);
    };
    assert!(text_of(&doc, node).contains("Morning Fortress"));
}
