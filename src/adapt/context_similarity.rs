//! How much the structure around a field's nodes looks like the context the
//! tree-gram stored around its target: the region similarity the tree
//! search reads of its own candidates, measured for nodes that another
//! source proposed (the locators, a witness, a relaxed locator) and for a
//! field's current selection.
//!
//! A candidate that carries the target's text may still stand in another
//! place: a teaser of the same article, a copy in a sidebar, the value a
//! stale XPath now reaches in a redesigned block. Its own evidence says
//! nothing of where it stands; the tree search's region similarity does,
//! but only for what the search found, so the model could not weigh the
//! place of any other source's answer and sent it on to the search.
//!
//! The stored context is the target's nearest ancestor with a few elements
//! (`treegram::capture`). On the page the context is looked for at the same
//! height above each node, and one level lower and higher, since a wrapper
//! added or removed between them moves it by one. Each is compared with
//! clustered tree matching under tag labels (classes are what a redesign
//! renames, and the likeness features weigh them already), and the best
//! counts. The measure is the mean over the parent instances.
//!
//! ## What it refuses
//!
//! It compares no region of more than [`MAX_SIZE_RATIO`] times the stored
//! context's elements, as the tree search's sweeps do not: a region that
//! large is no image of the context, and comparing it would cost what the
//! search costs. A parent instance without nodes counts 0. It decides
//! nothing, and reads no file.

use crate::dom::{Document, NodeId};
use crate::similarity::{Algorithm, LabelMode, LabeledTree, Labels, similarity};
use crate::treegram::{GramMask, TreeGram};
use crate::xpath::Item;

/// The largest region compared, in times the stored context's elements:
/// the default size ratio of the tree search's sweeps
/// (`Search::region_size_ratio`). It is a constant, not that setting, as
/// the heal model was fitted on the feature measured with it.
pub(crate) const MAX_SIZE_RATIO: usize = 10;

/// The similarity, in [0, 1], of the regions around `targets` (per parent
/// instance) to the context the tree-gram stored around its target.
pub(crate) fn context_similarity(doc: &Document, gram: &TreeGram, targets: &[Vec<Item>]) -> f64 {
    if targets.is_empty() {
        return 0.0;
    }
    let mut labels = Labels::default();
    let contexts = stored_contexts(gram, &mut labels);
    let total: f64 = targets
        .iter()
        .filter_map(|nodes| nodes.first())
        .map(|&item| best_region(doc, item, &contexts, &mut labels))
        .sum();
    total / targets.len() as f64
}

/// A stored context: its view, and how many levels its root stands above
/// the element that held the target.
struct Context {
    view: LabeledTree,
    height: usize,
}

/// The contexts of the tree-gram's instances that mark a target.
fn stored_contexts(gram: &TreeGram, labels: &mut Labels) -> Vec<Context> {
    gram.instances
        .iter()
        .filter_map(|gi| {
            let &(owner, _) = gi.targets.first()?;
            let height = if owner == gi.root {
                0
            } else {
                gram.doc.ancestors(owner).position(|a| a == gi.root)? + 1
            };
            let view =
                LabeledTree::build_masked(&gram.doc, gi.root, LabelMode::Tag, &GramMask, labels)
                    .ok()?;
            Some(Context { view, height })
        })
        .collect()
}

/// The best similarity of any stored context to a region around `item`.
fn best_region(doc: &Document, item: Item, contexts: &[Context], labels: &mut Labels) -> f64 {
    let Some(element) = super::signals::owner_of(doc, item) else {
        return 0.0;
    };
    let mut best: f64 = 0.0;
    for context in contexts {
        let limit = context.view.len() * MAX_SIZE_RATIO;
        let lowest = context.height.saturating_sub(1);
        for root in regions_above(doc, element, lowest, context.height + 1) {
            if !within_size(doc, root, limit) {
                // Regions only grow going up.
                break;
            }
            let Ok(region) = LabeledTree::build(doc, root, LabelMode::Tag, labels) else {
                continue;
            };
            let score = similarity(Algorithm::Ctm, &context.view, &region);
            best = best.max(score.clamp(0.0, 1.0));
        }
    }
    best
}

/// The element ancestors of `element` (itself at height 0) from height
/// `low` to `high`, lowest first; none above the root element.
fn regions_above(doc: &Document, element: NodeId, low: usize, high: usize) -> Vec<NodeId> {
    std::iter::once(element)
        .chain(doc.ancestors(element))
        .take_while(|&n| doc.is_element(n))
        .take(high + 1)
        .skip(low)
        .collect()
}

/// Whether the sub-tree at `root` has at most `limit` elements, counted no
/// further than the limit.
fn within_size(doc: &Document, root: NodeId, limit: usize) -> bool {
    doc.descendants(root)
        .filter(|&n| doc.is_element(n))
        .take(limit)
        .count()
        < limit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::tests::{grams_from, one_field};
    use crate::wrapper::PatternPath;

    const CAPTURED: &str = "<html><body>\
        <div class='card'><h2>Title</h2><p class='by'>Ann</p><ul><li>a</li><li>b</li></ul>\
        <span class='price'>9</span></div>\
        <div class='side'><table><tr><td>x</td><td>y</td></tr></table><span class='price'>3</span></div>\
        </body></html>";

    /// The similarity of the nodes `xpath` selects on `html` to the
    /// context of the card's price at capture.
    fn check(html: &str, xpath: &str) -> f64 {
        let grams = grams_from(&one_field("/html/body/div[1]/span"), CAPTURED);
        let gram = grams
            .get(&PatternPath::top("field".to_owned()))
            .expect("a tree-gram");
        let doc = Document::parse_str(html);
        let nodes = crate::xpath::XPath::compile(xpath)
            .expect("an XPath")
            .select_item(&doc, Item::Node(doc.root()))
            .expect("selected");
        context_similarity(&doc, gram, &[nodes])
    }

    #[test]
    fn the_captured_target_stands_in_its_own_context() {
        let s = check(CAPTURED, "//div[@class='card']/span");
        assert!(s > 0.99, "{s}");
    }

    #[test]
    fn a_lookalike_in_another_block_stands_in_another_context() {
        let own = check(CAPTURED, "//div[@class='card']/span");
        let other = check(CAPTURED, "//div[@class='side']/span");
        assert!(other < own - 0.3, "{other} against {own}");
    }

    #[test]
    fn a_target_wrapped_in_a_new_element_keeps_most_of_its_context() {
        let wrapped = CAPTURED.replace(
            "<span class='price'>9</span>",
            "<div><span class='price'>9</span></div>",
        );
        let s = check(&wrapped, "//div[@class='card']//span");
        let other = check(&wrapped, "//div[@class='side']/span");
        assert!(s > other, "{s} against {other}");
        assert!(s > 0.5, "{s}");
    }

    #[test]
    fn no_nodes_have_no_context() {
        assert_eq!(check(CAPTURED, "//article"), 0.0);
    }
}
