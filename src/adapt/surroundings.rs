//! Whether a field's answer stands where the target stood: among any of the
//! texts that surrounded the target at capture.
//!
//! A deleted field often leaves a lookalike elsewhere on the page: a related
//! item, a teaser, a sidebar widget with the same tag and classes and
//! another value. Its own evidence (tag, attributes, the shape of its text)
//! is the target's, and its label locator may even select it, so nothing
//! about the node itself tells it from the target with a new value. What
//! tells them apart is what stands around it. A target whose value changed
//! kept its neighbours (its label, the other cells of its row, the heading
//! of its block), and a target whose block moved took them along; a
//! lookalike has none of them.
//!
//! So a node with another text than the stored target's, none of whose
//! surroundings carries any of the target's neighbours' texts
//! (`treegram::neighbours`: those of its nearest ancestor with two texts
//! or more outside it), is not the target. Its surroundings are its
//! siblings and those of its ancestors, up to the neighbours' level and two
//! levels more (for wrappers added above it), read nearest first and no
//! more than a few times the neighbours' size. A text found three times or
//! more on the page ("Books" in a menu) places nothing. A node with the
//! stored text as written is not asked: its text says what it is.
//!
//! ## What it refuses
//!
//! It gives no verdict (`false`) when the target had no neighbours with
//! [`MIN_NEIGHBOUR_TEXTS`](crate::treegram::MIN_NEIGHBOUR_TEXTS) texts (in
//! its instance, or in the header when the instance is the target alone):
//! a lone element says nothing about where the target must stand. It
//! compares texts as the tree-gram keeps them (`treegram::kept_text`),
//! exactly; masked (unstable) texts are left out.

use std::collections::BTreeSet;

use crate::dom::{Document, NodeId, NodeKind};
use crate::treegram::{Neighbours, TreeGram, kept_text};
use crate::xpath::Item;

/// Levels above the stored context's depth that a node's surroundings may
/// reach: wrappers added above the target push its neighbours up.
const EXTRA_LEVELS: usize = 2;
/// How many nodes around a node are read, as a multiple of the size (in
/// nodes) of the target's nearest ancestor with its neighbours
/// ([`Neighbours::nodes`]), and the floor of that bound: a small block
/// still looks at a block around the node, never at the whole page.
const SIZE_FACTOR: usize = 2;
const MIN_SIZE: usize = 60;
/// The most times a context text may occur on the page and still say
/// where a node stands: "Books" in a menu, a sidebar and a breadcrumb
/// stands beside anything.
const MAX_OCCURRENCES: usize = 2;

/// Whether the selection is a lookalike of the target, not the target: its
/// text is not the stored target's and none of the target's neighbours'
/// texts stands around it (see the module doc).
pub(crate) fn lookalike(doc: &Document, gram: &TreeGram, selection: &[Vec<Item>]) -> bool {
    !super::signals::same_text(doc, gram, selection) && out_of_place(doc, gram, selection)
}

/// Whether the first node of the selection's first non-empty parent
/// instance has none of the stored context's texts around it (see the
/// module doc). It is asked only of a node whose text differs from the
/// stored target's ([`lookalike`]).
fn out_of_place(doc: &Document, gram: &TreeGram, selection: &[Vec<Item>]) -> bool {
    let Some(context) = gram.stored_neighbours() else {
        return false;
    };
    let Some(node) = selection
        .iter()
        .find_map(|s| s.first())
        .and_then(|&item| super::signals::owner_of(doc, item))
    else {
        return false;
    };
    let texts: BTreeSet<&str> = context.texts.iter().map(String::as_str).collect();
    !surroundings_hold(doc, node, context, &texts)
}

/// Whether any text around `node` is one of the context's: the siblings of
/// `node` and of each of its ancestors up to the context's depth and
/// [`EXTRA_LEVELS`] more, nearest first, with their sub-trees, until
/// [`SIZE_FACTOR`] times the neighbours' size in nodes have been read. Reading by
/// nearness rather than by whole ancestors keeps to the node's block where
/// an unwrapped container left the neighbours among many siblings.
fn surroundings_hold(
    doc: &Document,
    node: NodeId,
    context: &Neighbours,
    texts: &BTreeSet<&str>,
) -> bool {
    // A hand-edited header may hold any numbers: nothing here may overflow.
    let mut left = SIZE_FACTOR.saturating_mul(context.nodes).max(MIN_SIZE);
    let mut child = node;
    for ancestor in doc
        .ancestors(node)
        .take(context.levels.saturating_add(EXTRA_LEVELS))
    {
        if !doc.is_element(ancestor) {
            break;
        }
        let mut before = doc.prev_sibling(child);
        let mut after = doc.next_sibling(child);
        while before.is_some() || after.is_some() {
            for sibling in [after, before].into_iter().flatten() {
                let end = doc.subtree_end(sibling).index();
                for n in (sibling.index()..end).map(|i| NodeId(i as u32)) {
                    if left == 0 {
                        return false;
                    }
                    left -= 1;
                    if doc.kind(n) == NodeKind::Text
                        && let kept = kept_text(doc.text(n))
                        && texts.contains(kept.as_str())
                        && rare(doc, &kept)
                    {
                        return true;
                    }
                }
            }
            before = before.and_then(|b| doc.prev_sibling(b));
            after = after.and_then(|a| doc.next_sibling(a));
        }
        child = ancestor;
    }
    false
}

/// Whether `kept`, a text as the tree-gram keeps it, occurs on the page at
/// most [`MAX_OCCURRENCES`] times. A text cut by the tree-gram is long
/// enough to be taken as rare.
fn rare(doc: &Document, kept: &str) -> bool {
    if kept.ends_with('…') {
        return true;
    }
    // This reads every text node of the page, on every page the drift
    // check asks: a node must start with the kept text's first word before
    // its words are compared.
    let first = kept.split(' ').next().unwrap_or_default();
    let mut seen = 0;
    for n in (0..doc.len()).map(|i| NodeId(i as u32)) {
        if doc.kind(n) == NodeKind::Text
            && doc.text(n).trim_ascii_start().starts_with(first)
            && doc.text(n).split_ascii_whitespace().eq(kept.split(' '))
        {
            seen += 1;
            if seen > MAX_OCCURRENCES {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::tests::{grams_from, one_field};
    use crate::wrapper::PatternPath;

    /// Whether the node `xpath` selects on `new` is out of place for the
    /// tree-gram of `/html/body/div/div[1]/a` captured on `old`.
    fn check(old: &str, new: &str, xpath: &str, expected: bool) {
        let grams = grams_from(&one_field("/html/body/div/div[1]/a"), old);
        let gram = grams
            .get(&PatternPath::top("field".to_owned()))
            .expect("a tree-gram");
        let doc = Document::parse_str(new);
        let selection = crate::xpath::XPath::compile(xpath)
            .unwrap()
            .select_item(&doc, Item::Node(doc.root()))
            .unwrap();
        assert_eq!(
            out_of_place(&doc, gram, &[selection]),
            expected,
            "{xpath} in {new}"
        );
    }

    /// A product block with the author link among `around`, and `far`
    /// deep in a footer column after a list of help links.
    fn page(around: &str, far: &str) -> String {
        let links: String = (1..=12)
            .map(|i| format!("<li><a href=\"/help/{i}\">Help topic {i}</a></li>"))
            .collect();
        format!(
            "<html><body><div><div class=\"author\"><a>C. S. Lewis</a></div>{around}</div>\
             <footer><div><div><ul>{links}</ul><div>{far}</div></div></div></footer></body></html>"
        )
    }

    const AROUND: &str = "<h1>The Four Loves</h1><p>Houghton Mifflin / 1971</p>";

    #[test]
    fn the_target_on_its_own_page_stands_in_place() {
        let p = page(AROUND, "");
        check(&p, &p, "/html/body/div/div[1]/a", false);
    }

    #[test]
    fn a_lookalike_far_from_the_targets_neighbours_is_out_of_place() {
        let old = page(AROUND, "");
        let new = page(AROUND, "<a>C. S. Morning</a>");
        check(&old, &new, "//footer//div/div/a", true);
        // Its neighbours taken along to the footer, it stands in place.
        let new = page("", &format!("<a>C. S. Morning</a>{AROUND}"));
        check(&old, &new, "//footer//div/div/a", false);
    }

    #[test]
    fn a_context_of_one_text_gives_no_verdict() {
        let old = page("<h1>The Four Loves</h1>", "");
        let new = page("<h1>The Four Loves</h1>", "<a>C. S. Morning</a>");
        check(&old, &new, "//footer//div/div/a", false);
    }

    #[test]
    fn a_text_found_all_over_the_page_places_nothing() {
        // "Books" stands beside the lookalike, but also in the menu and the
        // breadcrumb: it says nothing of where a node is.
        let around = "<h1>The Four Loves</h1><p>Books</p>";
        let old = page(around, "");
        let new = page(
            &format!("{around}<nav><a>Books</a></nav><span>Books</span>"),
            "<a>C. S. Morning</a><span>Books</span>",
        );
        check(&old, &new, "//footer//div/div/a", true);
    }

    /// A hand-edited header's numbers, however large, overflow nothing.
    #[test]
    fn a_header_with_huge_numbers_does_not_overflow() {
        let w = one_field("//td[1]");
        let page = "<html><body><table><tr><td><b>Format:</b> Paperback<br><b>Vendor:</b> \
                    Augsburg<br><b>Pages:</b> 96<br><b>Size:</b> 6 X 4</td><td><b>ISBN:</b> \
                    0800601092<br><b>Stock:</b> 4</td></tr></table></body></html>";
        let doc = Document::parse_str(page);
        let (captured, _) =
            crate::treegram::capture(&w, &doc, &crate::treegram::CaptureOptions::of(&w));
        let html = &captured[0].html;
        assert!(html.contains("mend:neighbour"), "{html}");
        let max = usize::MAX.to_string();
        let edited: Vec<String> = html
            .lines()
            .map(|line| match line.find("content=") {
                Some(at) if line.starts_with("<meta name=\"mend:neighbour\"") => format!(
                    "<meta name=\"mend:neighbour\" data-levels=\"{max}\" data-nodes=\"{max}\" {}",
                    &line[at..]
                ),
                _ => line.to_owned(),
            })
            .collect();
        let edited = edited.join("\n");
        let gram = TreeGram::parse(edited.as_bytes()).unwrap();
        let n = gram.header.neighbours.as_ref().expect("the edited header");
        assert_eq!((n.levels, n.nodes), (usize::MAX, usize::MAX));
        let far = Document::parse_str(&page.replace("<table>", "<div><p>x</p></div><table>"));
        let cell = crate::xpath::XPath::compile("//td[1]")
            .unwrap()
            .select_item(&far, Item::Node(far.root()))
            .unwrap();
        // The cell stands among its row: in place, whatever the numbers say.
        assert!(!out_of_place(&far, &gram, &[cell]));
    }
}
