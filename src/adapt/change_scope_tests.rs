//! Change sensing on small pages whose change is known.

use super::{ChangeScope, PageFacts, Sensed, sense};
use crate::dom::Document;
use crate::treegram::{CaptureOptions, TreeGram, capture};
use crate::wrapper;
use crate::xpath::{Item, XPath};

/// A shop's page: a menu, a product with its price, a footer. The price's
/// XPath counts the body's children, as a recorded XPath often does.
const PAGE: &str = r#"<html><body>
<nav class="menu"><a href="/">Home</a> <a href="/books">Books</a></nav>
<main id="content">
  <div class="product">
    <h1 class="title">Dune</h1>
    <div class="buy"><span class="label">Price</span><span class="price">£12.99</span></div>
    <p class="note">In stock</p>
  </div>
</main>
<footer><p>© Shop</p></footer>
</body></html>"#;

const XPATH: &str = "/html/body/*[2]/div/div/span[2]";

fn wrapper() -> wrapper::Wrapper {
    let yaml = format!(
        "name: shop\npatterns:\n  - name: price\n    xpath: \"{XPATH}\"\n    extract: text\n"
    );
    wrapper::load_str(&yaml, "shop.yaml").unwrap()
}

/// The price's tree-gram captured on `page`, with `edit` applied to the file.
fn gram_of(page: &str, edit: &dyn Fn(String) -> String) -> TreeGram {
    let wrapper = wrapper();
    let doc = Document::parse_str(page);
    let captured = capture(&wrapper, &doc, &CaptureOptions::of(&wrapper)).0;
    TreeGram::parse(edit(captured[0].html.clone()).as_bytes()).unwrap()
}

/// Senses `new` against the tree-gram captured on `old`.
fn sense_pages(
    old: &str,
    new: &str,
    facts: PageFacts,
    edit: &dyn Fn(String) -> String,
) -> (Sensed, Document) {
    let gram = gram_of(old, edit);
    let doc = Document::parse_str(new);
    let selection = XPath::compile(XPATH)
        .unwrap()
        .select_item(&doc, Item::Node(doc.root()))
        .unwrap();
    let selected = |n| {
        selection
            .iter()
            .any(|i| matches!(*i, Item::Node(s) if s == n || doc.parent(s) == Some(n)))
    };
    let sensed = sense(&doc, &gram, facts, &selected);
    (sensed, doc)
}

fn check(new: &str, expected: ChangeScope) -> Sensed {
    check_with(new, PageFacts::default(), expected)
}

fn check_with(new: &str, facts: PageFacts, expected: ChangeScope) -> Sensed {
    let (sensed, _) = sense_pages(PAGE, new, facts, &|g| g);
    assert_eq!(sensed.class, expected, "{new}");
    sensed
}

#[test]
fn the_same_page_is_no_change() {
    check(PAGE, ChangeScope::None);
}

#[test]
fn a_new_value_in_the_same_parent_is_local() {
    check(&PAGE.replace("£12.99", "£13.49"), ChangeScope::Local);
}

#[test]
fn a_sibling_inserted_before_the_target_is_local_and_scoped_to_the_old_context() {
    let new = PAGE.replace(
        r#"<span class="price">"#,
        r#"<span class="save">Save 10%</span><span class="price">"#,
    );
    let (sensed, doc) = sense_pages(PAGE, &new, PageFacts::default(), &|g| g);
    assert_eq!(sensed.class, ChangeScope::Local);
    let within = sensed.within.expect("one counterpart");
    // The scope holds the price where it now is.
    let price = doc
        .all()
        .find(|&n| doc.is_element(n) && doc.attr(n, "class") == Some("price"))
        .unwrap();
    assert!(doc.is_ancestor(within, price));
}

#[test]
fn a_target_wrapped_inside_its_parent_is_local() {
    let new = PAGE.replace(
        r#"<span class="price">£12.99</span>"#,
        r#"<b><span class="price">£12.99</span></b>"#,
    );
    check(&new, ChangeScope::Local);
}

#[test]
fn a_renamed_parent_is_structural() {
    check(
        &PAGE.replace(r#"class="buy""#, r#"class="purchase""#),
        ChangeScope::Structural,
    );
}

#[test]
fn a_parent_with_a_new_attribute_is_structural() {
    check(
        &PAGE.replace(r#"class="buy""#, r#"class="buy" data-sku="9""#),
        ChangeScope::Structural,
    );
}

#[test]
fn an_intact_context_that_moved_is_local_unless_the_frame_changed() {
    // A banner before the content: the XPath's `*[2]` is now the banner.
    // The parent is unchanged and holds the target: the search starts there.
    let new = PAGE.replace("<main", r#"<div class="banner">Sale</div><main"#);
    let sensed = check(&new, ChangeScope::Local);
    assert!(sensed.within.is_some());
    let frame_changed = PageFacts {
        frame_changed: true,
        ..PageFacts::default()
    };
    check_with(&new, frame_changed, ChangeScope::Template);
}

#[test]
fn a_page_that_matches_its_unstable_template_is_unstable() {
    let only_unstable = PageFacts {
        only_unstable: true,
        ..PageFacts::default()
    };
    check_with(
        &PAGE.replace("In stock", "3 left"),
        only_unstable,
        ChangeScope::Unstable,
    );
}

#[test]
fn a_text_marked_unstable_in_the_tree_gram_is_unstable_content() {
    // The note's text changes from load to load, as `mend learn` marks it.
    let mark = |g: String| {
        g.replacen(
            r#"<p class="note">"#,
            r#"<p class="note" data-mend-unstable-text="In stock||3 left">"#,
            1,
        )
    };
    let new = PAGE.replace("In stock", "2 left");
    let (sensed, _) = sense_pages(PAGE, &new, PageFacts::default(), &mark);
    assert_eq!(sensed.class, ChangeScope::Unstable);
    // Without the mark the same page is a local change.
    let (sensed, _) = sense_pages(PAGE, &new, PageFacts::default(), &|g| g);
    assert_eq!(sensed.class, ChangeScope::Local);
}

#[test]
fn of_two_alike_products_the_changed_ones_context_is_the_scope() {
    let two = PAGE.replace(
        "</main>",
        r#"<div class="product"><h1 class="title">Emma</h1><div class="buy"><span class="label">Price</span><span class="price">£8.00</span></div><p class="note">Sold out</p></div></main>"#,
    );
    let new = two.replace(
        r#"<span class="price">£12.99</span>"#,
        r#"<span class="was">£15</span><span class="price">£12.99</span>"#,
    );
    let (sensed, doc) = sense_pages(&two, &new, PageFacts::default(), &|g| g);
    assert_eq!(sensed.class, ChangeScope::Local);
    // The changed product's context, never the other product's.
    let within = sensed
        .within
        .expect("the changed product is clearly the counterpart");
    assert!(
        doc.string_value(within).contains("Dune"),
        "{}",
        doc.string_value(within)
    );
}

#[test]
fn a_page_with_nothing_of_the_context_is_structural() {
    check(
        "<html><body><p>Gone</p></body></html>",
        ChangeScope::Structural,
    );
    check("", ChangeScope::Structural);
}

#[test]
fn a_deep_page_is_sensed_without_recursion() {
    let deep = format!(
        "<html><body>{}{}</body></html>",
        "<div>".repeat(20_000),
        PAGE
    );
    let (sensed, _) = sense_pages(PAGE, &deep, PageFacts::default(), &|g| g);
    assert!(ChangeScope::ALL.contains(&sensed.class));
}

#[test]
fn classes_read_back_from_their_names() {
    for c in ChangeScope::ALL {
        assert_eq!(c.as_str().parse::<ChangeScope>(), Ok(c));
    }
    assert!("moved".parse::<ChangeScope>().is_err());
}

#[test]
fn an_ancestor_renamed_above_the_grandparent_leaves_the_change_local() {
    // The parent and its own parent are as they were; only `main`'s id
    // changed, so the target's parent did not change and the search starts
    // in its context.
    let new = PAGE.replace(r#"id="content""#, r#"id="page-main""#);
    let sensed = check(&new, ChangeScope::Local);
    assert!(sensed.within.is_some());
}
