//! Tests for a target a redesign put a wrapper around: the XPath of
//! positions that named the target now names the wrapper, which holds the
//! target's text and none of its attributes, so no constraint notices.

use super::tests::{drift_of, drifts_and_heals, grams_from, one_field, signal_markup, text_of};

const XPATH: &str = "/html/body/div/p/a/span";

/// An article's byline, with `author` where the author's name stands, and
/// its comments, whose authors' names carry the same `itemprop`.
fn byline(author: &str) -> String {
    let comments: String = ["Mary Somerville", "Charles Babbage", "Augustus De Morgan"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            format!(
                "<li><a href=\"/people/{}\">{}</a> wrote: I agree.</li>",
                i + 2,
                named(name)
            )
        })
        .collect();
    format!(
        "<!DOCTYPE html><html><body><div class=\"post\"><h1>Notes on the engine</h1>\
         <p class=\"meta\">Posted on 3 March by <a href=\"/people/1\">{author}</a></p>\
         <div class=\"body\">The engine weaves algebraic patterns.</div>\
         <ul class=\"comments\">{comments}</ul></div></body></html>"
    )
}

fn named(name: &str) -> String {
    format!("<span itemprop=\"name\">{name}</span>")
}

/// What `wrapped_target` finds under `xpath`'s one node on `page`, with the
/// tree-gram captured on `old`.
fn check(old: &str, page: &str, xpath: &str) -> Option<String> {
    signal_markup(old, page, xpath, super::signals::wrapped_target)
}

/// A redesign put a `span` with a class of its own around the author's
/// name. The XPath still gives the name, from the wrapper: one node, the
/// constraints met. The wrapper lacks the name's `itemprop`, and holds
/// only an element with the target's tag that has it: drift, healed to
/// the name inside.
#[test]
fn a_target_wrapped_by_a_redesign_is_healed_inside_its_wrapper() {
    let old = byline(&named("Ada Lovelace"));
    let new = byline(&format!(
        "<span class=\"layout-wrap\">{}</span>",
        named("Ada Lovelace")
    ));
    assert_eq!(
        check(&old, &new, XPATH).as_deref(),
        Some("<span itemprop=\"name\">Ada Lovelace</span>")
    );
    let (doc, node) = drifts_and_heals(XPATH, &old, &new);
    assert_eq!(text_of(&doc, node), "Ada Lovelace");
    assert_eq!(doc.attr(node, "itemprop"), Some("name"));
}

/// A target without attributes is told from a wrapper with a class by
/// having none.
#[test]
fn a_target_without_attributes_is_found_inside_a_wrapper_with_a_class() {
    let plain = byline("<span>Ada Lovelace</span>");
    let wrapped = byline("<span class=\"layout-wrap\"><span>Ada Lovelace</span></span>");
    assert_eq!(
        check(&plain, &wrapped, XPATH).as_deref(),
        Some("<span>Ada Lovelace</span>")
    );
}

/// Two wrappers, and white space between them and the target, hide the
/// target no better than one.
#[test]
fn a_target_under_two_wrappers_is_found() {
    let old = byline(&named("Ada Lovelace"));
    let new = byline(&format!(
        "<span class=\"outer\">\n  <span class=\"inner\">\n    {}\n  </span>\n</span>",
        named("Ada Lovelace")
    ));
    assert_eq!(
        check(&old, &new, XPATH).as_deref(),
        Some("<span itemprop=\"name\">Ada Lovelace</span>")
    );
}

/// Where the selection is the target (the capture page, or another page
/// of the site with another author), or holds more than the element with
/// the target's attributes, or has the target's attributes itself, nothing
/// speaks against the selection.
#[test]
fn no_wrapper_is_seen_where_the_selection_may_be_the_target() {
    let old = byline(&named("Ada Lovelace"));
    // The capture page, and another post by another author.
    assert_eq!(check(&old, &old, XPATH), None);
    let other = byline(&named("Ida Rhodes"));
    assert_eq!(check(&old, &other, XPATH), None);
    let w = one_field(XPATH);
    let grams = grams_from(&w, &old);
    assert!(drift_of(&w, &grams, &other).is_empty());

    // The selection has text of its own beside the element.
    let more = byline(&format!(
        "<span class=\"layout-wrap\">{} and friends</span>",
        named("Ada Lovelace")
    ));
    assert_eq!(check(&old, &more, XPATH), None);

    // The selection shares the target's attribute: it may be the target,
    // holding a copy of itself.
    let nested = byline(&format!("<span itemprop=\"name\">{}</span>", named("Ada")));
    assert_eq!(check(&old, &nested, XPATH), None);

    // A target without attributes, in a wrapper without any either: the
    // wrapper may be the target, holding an element of its own.
    let plain = byline("<span>Ada Lovelace</span>");
    let bare = byline("<span><span>Ada Lovelace</span></span>");
    assert_eq!(check(&plain, &bare, XPATH), None);

    // The element inside has the target's attribute but another tag.
    let other_tag = byline("<span class=\"w\"><b itemprop=\"name\">Ada Lovelace</b></span>");
    assert_eq!(check(&old, &other_tag, XPATH), None);
}

/// A chain of wrappers shares one text, so it is read by the tags and
/// attributes of its elements alone, once, however long it is (here as
/// deep as the parser nests elements).
#[test]
fn a_long_chain_of_wrappers_is_read_down_to_the_target() {
    let old = byline(&named("Ada Lovelace"));
    let depth = 400;
    let deep = byline(&format!(
        "{}{}{}",
        "<span class=\"w\">".repeat(depth),
        named("Ada Lovelace"),
        "</span>".repeat(depth)
    ));
    assert_eq!(
        check(&old, &deep, XPATH).as_deref(),
        Some("<span itemprop=\"name\">Ada Lovelace</span>")
    );
}
