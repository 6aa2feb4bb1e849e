//! Another stored element: a field's selection that is, by its text and
//! what stands beside it, an element of the stored context other than the
//! target.
//!
//! When a target is deleted or moved away, an XPath of positions, and the
//! class and positional locators with it, slide onto an element that stood
//! elsewhere in the target's context at capture: the next headline of a
//! list, the cell of another row, the byline after a removed date. That
//! element kept its text and its siblings, so the tree-gram holds it as it
//! now stands. `selects_a_neighbour` (`signals.rs`) asks this of the
//! target's own siblings; this asks it of every element of the stored
//! context with the selection's tag.
//!
//! On another page of the site the selection's text is that page's, and it
//! may stand in the capture's context too (page B's title as a teaser of
//! page A), but not with the teaser's siblings around it: both sides must
//! read as they did, and one of them must hold a text.
//!
//! ## What it refuses
//!
//! It is asked of a selection of one element in one parent instance, with
//! a telling text (`MIN_TELLING_TEXT` characters and a letter, shorter than
//! a profile's cap) that is not the stored target's. The target, its
//! ancestors and its descendants are not other elements; elements outside
//! the first stored instance are not looked at. It reads the tree-gram's
//! text index (built once per tree-gram, on first use) and the selection's
//! own siblings, never the rest of the page.

use crate::dom::{Document, NodeId};
use crate::treegram::TreeGram;

use super::likeness::MAX_TEXT;
use super::signals::{Shifted, element_sibling_after, element_sibling_before, element_text};

/// The selection's text, when the selection is an element of the stored
/// context other than the target, read by its tag, its text and the texts
/// of the element siblings around it (module doc).
pub(crate) fn selects_other_stored(
    doc: &Document,
    gram: &TreeGram,
    selected: &Shifted,
) -> Option<String> {
    let Shifted { node, owner, text } = selected;
    let (node, owner) = (*node, *owner);
    if text.chars().count() >= MAX_TEXT {
        return None;
    }
    let root = gram.instances.first()?.root;
    let stored = &gram.doc;
    let tag = stored.sym(doc.name(node))?;
    let found = stored
        .elements_with_text(tag, text)
        .filter(|&e| !related(stored, e, owner) && stored.ancestors(e).any(|a| a == root))
        .filter_map(|e| with_siblings(stored, e, owner, root, doc, node))
        .any(|(e, n)| same_siblings(stored, e, owner, doc, n));
    found.then(|| text.clone())
}

/// `stored` and `node`, or the nearest ancestors of both, level for level
/// and of the same tags, of which one has an element sibling with text:
/// a link alone in its list item is told by the items around it. `None`
/// when the climb reaches the stored instance's root or the target.
fn with_siblings(
    gram: &Document,
    mut stored: NodeId,
    owner: NodeId,
    root: NodeId,
    doc: &Document,
    mut node: NodeId,
) -> Option<(NodeId, NodeId)> {
    loop {
        if texted_sibling(gram, stored, Some(owner)) || texted_sibling(doc, node, None) {
            return Some((stored, node));
        }
        let (up, page_up) = (gram.parent(stored)?, doc.parent(node)?);
        if up == root || related(gram, up, owner) || gram.name(up) != doc.name(page_up) {
            return None;
        }
        (stored, node) = (up, page_up);
    }
}

/// Whether `n` has an element sibling with text, `skip` and what is
/// related to it passed over.
fn texted_sibling(doc: &Document, n: NodeId, skip: Option<NodeId>) -> bool {
    let sides: [fn(&Document, NodeId) -> Option<NodeId>; 2] =
        [element_sibling_after, element_sibling_before];
    sides.into_iter().any(|side| {
        std::iter::successors(side(doc, n), |&s| side(doc, s))
            .filter(|&s| skip.is_none_or(|k| !related(doc, s, k)))
            .any(|s| element_text(doc, s, false).is_some())
    })
}

/// Whether `a` is `b`, an ancestor or a descendant of it.
fn related(doc: &Document, a: NodeId, b: NodeId) -> bool {
    a == b || doc.ancestors(a).any(|n| n == b) || doc.ancestors(b).any(|n| n == a)
}

/// Whether the element siblings with text on both sides of `stored` (in
/// the tree-gram, passing over the target `owner`, which the change may
/// have taken away) read as those of `node` on the page, one side at
/// least with a text.
fn same_siblings(
    gram: &Document,
    stored: NodeId,
    owner: NodeId,
    doc: &Document,
    node: NodeId,
) -> bool {
    let stored_side = |next: fn(&Document, NodeId) -> Option<NodeId>| {
        std::iter::successors(next(gram, stored), |&n| next(gram, n))
            .filter(|&n| !related(gram, n, owner))
            .find_map(|n| element_text(gram, n, true))
    };
    let page_side = |next: fn(&Document, NodeId) -> Option<NodeId>| {
        std::iter::successors(next(doc, node), |&n| next(doc, n))
            .find_map(|n| element_text(doc, n, false))
    };
    let after = (
        stored_side(element_sibling_after),
        page_side(element_sibling_after),
    );
    let before = (
        stored_side(element_sibling_before),
        page_side(element_sibling_before),
    );
    after.0 == after.1 && before.0 == before.1 && (after.0.is_some() || before.0.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::signals::shifted_selection;
    use crate::adapt::tests::{drift_of, grams_from, one_field};
    use crate::xpath::{Item, XPath};

    /// What `selects_other_stored` says of `xpath`'s selection on `page`,
    /// with the tree-gram captured on `old`.
    fn check(old: &str, page: &str, xpath: &str) -> Option<String> {
        let w = one_field(xpath);
        let grams = grams_from(&w, old);
        let gram = grams.get(&"field".parse().unwrap()).unwrap();
        let doc = Document::parse_str(page);
        let selected = XPath::compile(xpath)
            .unwrap()
            .select_item(&doc, Item::Node(doc.root()))
            .unwrap();
        let shifted = shifted_selection(&doc, gram, &[selected])?;
        selects_other_stored(&doc, gram, &shifted)
    }

    /// A list of stories, each a headline and its summary.
    fn stories(items: &[(&str, &str)]) -> String {
        let items: String = items
            .iter()
            .map(|(h, p)| format!("<article><h3>{h}</h3><p>{p}</p></article>"))
            .collect();
        format!(
            "<!DOCTYPE html><html><body><h1>Today</h1><section>{items}</section>\
             <footer>All stories</footer></body></html>"
        )
    }

    const RIVER: (&str, &str) = ("River levels fall", "The dry spell goes on.");
    const BRIDGE: (&str, &str) = ("Bridge reopens to traffic", "Repairs took a year.");
    const MARKET: (&str, &str) = ("Market moves indoors", "Stalls find a hall.");

    const XPATH: &str = "/html/body/section/article[2]/h3";

    /// The second story deleted: the XPath of positions now names the
    /// third story's headline, which stood elsewhere in the target's
    /// context with the same summary after it.
    #[test]
    fn a_story_removed_leaves_its_xpath_on_the_next_story_seen_as_another_stored_element() {
        let old = stories(&[RIVER, BRIDGE, MARKET]);
        let new = stories(&[RIVER, MARKET]);
        assert_eq!(
            check(&old, &new, XPATH).as_deref(),
            Some("Market moves indoors")
        );
        let w = one_field(XPATH);
        let found = drift_of(&w, &grams_from(&w, &old), &new);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].found.contains("another element"), "{found:?}");
    }

    /// On the capture page the selection is the target; with the target's
    /// text edited it is still the target, whose text no other element had.
    #[test]
    fn the_target_itself_is_no_other_element() {
        let old = stories(&[RIVER, BRIDGE, MARKET]);
        assert_eq!(check(&old, &old, XPATH), None);
        let edited = stories(&[RIVER, ("Bridge reopens at last", BRIDGE.1), MARKET]);
        assert_eq!(check(&old, &edited, XPATH), None);
    }

    /// Another page of the site lists the capture page's stories in other
    /// places and with other summaries: its own headline may be one of
    /// them, but not with that story's summary beside it.
    #[test]
    fn another_pages_story_with_a_headline_stored_elsewhere_is_no_other_element() {
        let old = stories(&[RIVER, BRIDGE, MARKET]);
        let other = stories(&[
            ("Council meets", "A short agenda."),
            ("Market moves indoors", "Traders welcome the roof."),
            RIVER,
        ]);
        assert_eq!(check(&old, &other, XPATH), None);
    }

    /// A list of links, each alone in its item.
    fn links(items: &[&str]) -> String {
        let items: String = items
            .iter()
            .map(|t| format!("<li><a>{t}</a></li>"))
            .collect();
        format!("<!DOCTYPE html><html><body><h1>Links</h1><ul>{items}</ul></body></html>")
    }

    /// A link alone in its item is told by the items around it: the item
    /// removed leaves `li[2]/a` on the next item's link, between the items
    /// that stood around that one.
    #[test]
    fn a_link_alone_in_its_item_is_told_by_the_items_around_it() {
        let xpath = "/html/body/ul/li[2]/a";
        let old = links(&[
            "Bridge reopens",
            "River levels fall",
            "Market indoors",
            "Council meets",
        ]);
        let new = links(&["Bridge reopens", "Market indoors", "Council meets"]);
        assert_eq!(check(&old, &new, xpath).as_deref(), Some("Market indoors"));
        let reordered = links(&["Council meets", "Market indoors", "Bridge reopens"]);
        assert_eq!(check(&old, &reordered, xpath), None);
    }

    /// Nothing around an element, at any level up to the stored context's
    /// root, tells nothing.
    #[test]
    fn alone_at_every_level_is_no_evidence() {
        let page = |t: &str| {
            format!(
                "<!DOCTYPE html><html><body><div><p><b>{t}</b></p></div><div><p><b>Bridge reopens</b></p></div></body></html>"
            )
        };
        let xpath = "/html/body/div[1]/p/b";
        assert_eq!(
            check(&page("River levels fall"), &page("Bridge reopens"), xpath),
            None
        );
    }
}
