//! Tests for a target a redesign retagged where an XPath of positions
//! counts by tag: the XPath now names the next element with the old tag, a
//! sibling with other text and attributes, and one node still meets the
//! constraints. And for an item removed from the end of a list, whose
//! position the last item takes.

use super::tests::{
    drift_of, drifts_and_heals, grams_from, heal_one_field, healed_node, one_field, signal_markup,
    text_of,
};
use crate::extract::ViolationKind;

const XPATH: &str = "/html/body/div/p/span[1]";

/// An article's byline: `name` and `title` are the markup of the author's
/// name and of their title, side by side.
fn byline(name: &str, title: &str) -> String {
    format!(
        "<!DOCTYPE html><html><body><div class=\"post\"><h1>Shipping a product in a week</h1>\
         <p class=\"byline\">Posted by {name}, {title}</p>\
         <div class=\"body\">We set out to ship the smallest thing that helps.</div>\
         </div></body></html>"
    )
}

fn name(tag: &str, text: &str) -> String {
    format!("<{tag} class=\"byline__name\">{text}</{tag}>")
}

const TITLE: &str = "<span class=\"byline__title\">CEO</span>";

/// What `retagged_beside` finds beside `xpath`'s one node on `page`, with
/// the tree-gram captured on `old`.
fn check(old: &str, page: &str, xpath: &str) -> Option<String> {
    signal_markup(old, page, xpath, super::signals::retagged_beside)
}

/// A redesign retagged the author's name from `span` to `em`. `span[1]`
/// now names the author's title: one node, the constraints met, and the
/// name's class locator finds nothing. The title shares no attribute with
/// the name, and its sibling has the name's text and class: drift, healed
/// to the name.
#[test]
fn a_target_retagged_beside_the_element_its_xpath_now_counts_is_healed() {
    let old = byline(&name("span", "Gina Trapani"), TITLE);
    let new = byline(&name("em", "Gina Trapani"), TITLE);
    assert_eq!(
        check(&old, &new, XPATH).as_deref(),
        Some("<em class=\"byline__name\">Gina Trapani</em>")
    );
    let (doc, node) = drifts_and_heals(XPATH, &old, &new);
    assert_eq!(text_of(&doc, node), "Gina Trapani");
    assert_eq!(doc.name(node), "em");
}

/// A target without attributes is told from the element now in its place
/// by having none, as that element has a class.
#[test]
fn a_target_without_attributes_is_found_beside_an_element_with_a_class() {
    let old = byline("<span>Gina Trapani</span>", TITLE);
    let new = byline("<font>Gina Trapani</font>", TITLE);
    assert_eq!(
        check(&old, &new, XPATH).as_deref(),
        Some("<font>Gina Trapani</font>")
    );
}

/// Where the selection may be the target (the capture page, another post
/// by another author, or an element with the target's class), where the
/// sibling with the target's text has the target's tag, or where no
/// sibling, or more than one, has the target's text and attributes,
/// nothing speaks against the selection.
#[test]
fn no_retag_is_seen_where_the_selection_may_be_the_target() {
    let old = byline(&name("span", "Gina Trapani"), TITLE);
    assert_eq!(check(&old, &old, XPATH), None);
    let other = byline(&name("span", "Ada Lovelace"), TITLE);
    assert_eq!(check(&old, &other, XPATH), None);
    let w = one_field(XPATH);
    let grams = grams_from(&w, &old);
    assert!(drift_of(&w, &grams, &other).is_empty());

    // The title has the name's class too: it may be the target.
    let classed = byline(
        &name("em", "Gina Trapani"),
        "<span class=\"byline__name byline__title\">CEO</span>",
    );
    assert_eq!(check(&old, &classed, XPATH), None);

    // The name is gone, or its sibling has another text.
    assert_eq!(check(&old, &byline("", TITLE), XPATH), None);
    let edited = byline(&name("em", "G. Trapani"), TITLE);
    assert_eq!(check(&old, &edited, XPATH), None);

    // The first byline name is now another person's, an editor's, and the
    // captured author's name stands second with the target's own tag: a
    // second name, not a retag.
    let second = byline(
        "<span class=\"byline__editor\">Ada Lovelace</span>",
        &name("span", "Gina Trapani"),
    );
    assert_eq!(check(&old, &second, XPATH), None);

    // Two siblings have the name's text and class: neither is told apart.
    let twice = byline(
        &format!(
            "{}{}",
            name("em", "Gina Trapani"),
            name("b", "Gina Trapani")
        ),
        TITLE,
    );
    assert_eq!(check(&old, &twice, XPATH), None);
}

/// A recipe's steps, one `li` each.
fn steps(items: &[&str]) -> String {
    let lis: String = items.iter().map(|s| format!("<li>{s}</li>")).collect();
    format!(
        "<!DOCTYPE html><html><body><main><h1>Iced mint tea</h1><ol class=\"steps\">{lis}\
         </ol></main></body></html>"
    )
}

/// Regression (wide corpus, mutation track): the second of three steps was
/// removed, and `li[2]` named the last step, one node, constraints met. The
/// signal of a neighbour's text asked for the text that followed that
/// neighbour at capture after it on the page too, and there was none on
/// either: the last step went out as the second. A selection with the text
/// of the target's last sibling, itself last, is drift; the heal finds
/// nothing that carries the removed step.
#[test]
fn a_step_removed_so_its_xpath_names_the_last_step_is_drift() {
    let xpath = "/html/body/main/ol/li[2]";
    let first = "Bring a litre of water to the boil.";
    let second = "Pour it over a handful of fresh mint leaves.";
    let last = "Chill before serving, or serve over ice.";
    let old = steps(&[first, second, last]);
    let w = one_field(xpath);
    let grams = grams_from(&w, &old);
    let removed = steps(&[first, last]);
    let found = drift_of(&w, &grams, &removed);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].constraint, ViolationKind::Drift);
    assert!(found[0].found.contains("neighbour"), "{found:?}");
    let (h, doc) = heal_one_field(xpath, &old, &removed);
    assert_eq!(healed_node(&h, &doc), None, "{:?}", h.adaptations[0]);

    // Another recipe of two steps, the second its own, and one of three
    // whose second step is this one's last but not last there: no drift.
    let two = steps(&["Warm the pot.", "Steep the leaves for five minutes."]);
    assert!(drift_of(&w, &grams, &two).is_empty());
    let three = steps(&[first, last, "Garnish with a slice of lemon."]);
    assert!(drift_of(&w, &grams, &three).is_empty());
    assert!(drift_of(&w, &grams, &old).is_empty());
}
