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
//! surroundings carries any of the stored context's own texts, is not the
//! target. Its surroundings are its siblings and those of its ancestors, up
//! to the stored context's depth and two levels more (for wrappers added
//! above it), read nearest first and no more than a few times the stored
//! context's size. A node with the stored text as written is not asked: its text
//! says what it is.
//!
//! ## What it refuses
//!
//! It gives no verdict (`false`) when the stored context has fewer than
//! [`MIN_CONTEXT_TEXTS`] texts of its own outside the target: a context of a
//! lone element says nothing about where the target must stand. It compares
//! texts as the tree-gram keeps them (`treegram::kept_text`), exactly;
//! masked (unstable) texts are left out.

use std::collections::BTreeSet;

use crate::dom::{Document, NodeId, NodeKind};
use crate::similarity::Mask;
use crate::treegram::{GramMask, TreeGram, kept_text};
use crate::xpath::Item;

/// The fewest texts of its own (outside the target) a stored context must
/// have before their absence around a node says anything.
pub(crate) const MIN_CONTEXT_TEXTS: usize = 2;
/// Levels above the stored context's depth that a node's surroundings may
/// reach: wrappers added above the target push its neighbours up.
const EXTRA_LEVELS: usize = 2;
/// How many nodes around a node are read, as a multiple of the stored
/// context's size (in nodes), and the floor of that bound: a small context
/// still looks at a block around the node, never at the whole page.
const SIZE_FACTOR: usize = 2;
const MIN_SIZE: usize = 60;

/// Whether the first node of the selection's first non-empty parent
/// instance has none of the stored context's texts around it (see the
/// module doc). The caller asks only of a node whose text differs from the
/// stored target's.
pub(crate) fn out_of_place(doc: &Document, gram: &TreeGram, selection: &[Vec<Item>]) -> bool {
    let Some(context) = StoredContext::of(gram) else {
        return false;
    };
    let Some(node) = selection
        .iter()
        .find_map(|s| s.first())
        .and_then(|&item| owner(doc, item))
    else {
        return false;
    };
    !surroundings_hold(doc, node, &context)
}

/// Whether any text around `node` is one of the context's: the siblings of
/// `node` and of each of its ancestors up to the context's depth and
/// [`EXTRA_LEVELS`] more, nearest first, with their sub-trees, until the
/// context's size times [`SIZE_FACTOR`] nodes have been read. Reading by
/// nearness rather than by whole ancestors keeps to the node's block where
/// an unwrapped container left the neighbours among many siblings.
fn surroundings_hold(doc: &Document, node: NodeId, context: &StoredContext) -> bool {
    let mut left = (SIZE_FACTOR * context.size).max(MIN_SIZE);
    let mut child = node;
    for ancestor in doc.ancestors(node).take(context.depth + EXTRA_LEVELS) {
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
                        && context.texts.contains(&kept)
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

/// The texts of the first stored instance outside its first target, with
/// the target's depth below the instance's root and the instance's size.
struct StoredContext {
    texts: BTreeSet<String>,
    depth: usize,
    size: usize,
}

impl StoredContext {
    /// The texts of the nearest ancestor of the target, within the first
    /// instance, that holds [`MIN_CONTEXT_TEXTS`] of them outside the
    /// target: the target's own neighbours, and not the far end of a large
    /// context, which a lookalike put elsewhere in the same block would
    /// stand among too.
    fn of(gram: &TreeGram) -> Option<StoredContext> {
        let doc = &gram.doc;
        let instance = gram.instances.first()?;
        let &(target, _) = instance.targets.first()?;
        let mask = GramMask;
        for (levels, ancestor) in doc.ancestors(target).enumerate() {
            let texts: BTreeSet<String> = text_nodes(doc, ancestor)
                .filter(|&t| !(t >= target && t < doc.subtree_end(target)))
                .filter(|&t| !mask.masks_text(doc, t))
                .map(|t| kept_text(doc.text(t)))
                .filter(|t| telling(t))
                .collect();
            if texts.len() >= MIN_CONTEXT_TEXTS {
                return Some(StoredContext {
                    texts,
                    depth: levels + 1,
                    size: doc.subtree_size(ancestor),
                });
            }
            if ancestor == instance.root {
                break;
            }
        }
        None
    }
}

/// The text nodes of the sub-tree of `root`, in document order.
fn text_nodes(doc: &Document, root: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    let end = doc.subtree_end(root).index();
    (root.index()..end)
        .map(|i| NodeId(i as u32))
        .filter(move |&n| doc.kind(n) == NodeKind::Text)
}

/// The most times a context text may occur on the page and still say
/// where a node stands: "Books" in a menu, a sidebar and a breadcrumb
/// stands beside anything.
const MAX_OCCURRENCES: usize = 2;

/// Whether `kept`, a text as the tree-gram keeps it, occurs on the page at
/// most [`MAX_OCCURRENCES`] times. A text cut by the tree-gram is long
/// enough to be taken as rare.
fn rare(doc: &Document, kept: &str) -> bool {
    if kept.ends_with('…') {
        return true;
    }
    let mut seen = 0;
    for n in (0..doc.len()).map(|i| NodeId(i as u32)) {
        if doc.kind(n) == NodeKind::Text && doc.text(n).split_ascii_whitespace().eq(kept.split(' '))
        {
            seen += 1;
            if seen > MAX_OCCURRENCES {
                return false;
            }
        }
    }
    true
}

/// Whether a text can say where a node stands: two letters or digits at
/// least.
fn telling(text: &str) -> bool {
    text.chars().filter(|c| c.is_alphanumeric()).count() >= 2
}

/// The element a selected item belongs to.
fn owner(doc: &Document, item: Item) -> Option<NodeId> {
    match item {
        Item::Node(n) if doc.is_element(n) => Some(n),
        Item::Node(n) => doc.parent(n),
        Item::Attr { element, .. } => Some(element),
        _ => None,
    }
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
}
