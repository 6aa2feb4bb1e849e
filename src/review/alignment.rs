//! The old and the new sub-tree of an adaptation, aligned for a person to
//! read: each element one line (tag, id, classes, the start of its own
//! text), indented by depth, and each line that simple tree matching pairs
//! with a line of the other tree carries the number of that pair.
//!
//! The sub-tree of a selected node is the element that holds it (the
//! parent of a selected text or attribute); one so small that it says
//! little (fewer than [`MIN_CONTEXT`] elements) is widened to its parent,
//! on both sides alike. Trees are cut at [`MAX_LINES`] lines each, and a
//! pair of trees too large to align by the matching's bounded tables is
//! shown unpaired: the module refuses no input and does no I/O.

use std::collections::HashMap;

use crate::dom::{Document, NodeId};
use crate::similarity::{LabelMode, LabeledTree, Labels, simple_tree_matching};

/// The most lines shown of each tree.
pub const MAX_LINES: usize = 200;

/// The fewest elements a sub-tree is shown with before it is widened to
/// its parent.
pub const MIN_CONTEXT: usize = 4;

/// The longest piece of an element's own text shown on its line.
const TEXT_CHARS: usize = 48;

/// Two sub-trees, line by line, with the pairs of the matching.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AlignedTrees {
    /// The old sub-tree's lines, in document order.
    pub old: Vec<TreeLine>,
    /// The new sub-tree's lines, in document order.
    pub new: Vec<TreeLine>,
    /// How many pairs the matching found.
    pub pairs: usize,
    /// Whether either tree had more than [`MAX_LINES`] lines.
    pub cut: bool,
}

/// One element of a sub-tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeLine {
    /// Its depth below the sub-tree's root (0 for the root).
    pub depth: usize,
    /// What it is: `li#b3.item.sale "The Tide Between Us"`.
    pub label: String,
    /// The number of its pair, the same on both sides, when it was matched.
    pub pair: Option<usize>,
    /// Whether it is (or holds) the node the XPath selected.
    pub selected: bool,
}

/// Aligns the sub-tree around `old` in `old_doc` with the one around `new`
/// in `new_doc` (the selected nodes, elements or not).
pub fn align_subtrees(
    old_doc: &Document,
    old: NodeId,
    new_doc: &Document,
    new: NodeId,
) -> AlignedTrees {
    let (old_target, new_target) = (element_of(old_doc, old), element_of(new_doc, new));
    let elements = |doc: &Document, root: NodeId| {
        1 + doc.descendants(root).filter(|&n| doc.is_element(n)).count()
    };
    let widen =
        elements(old_doc, old_target) < MIN_CONTEXT || elements(new_doc, new_target) < MIN_CONTEXT;
    let root_of = |doc: &Document, target: NodeId| {
        if widen {
            doc.parent(target)
                .filter(|&p| doc.is_element(p))
                .unwrap_or(target)
        } else {
            target
        }
    };
    let (old_root, new_root) = (root_of(old_doc, old_target), root_of(new_doc, new_target));
    let mut labels = Labels::default();
    let pairs: Vec<(NodeId, NodeId)> = match (
        LabeledTree::build(old_doc, old_root, LabelMode::Tag, &mut labels),
        LabeledTree::build(new_doc, new_root, LabelMode::Tag, &mut labels),
    ) {
        // The two roots correspond whatever their tags (the record moved
        // from an `li` to a `div`): their insides are what is aligned.
        (Ok(mut a), Ok(mut b)) => {
            let root = labels.intern("#selected");
            a.relabel_root(root);
            b.relabel_root(root);
            simple_tree_matching(&a, &b)
                .map(|m| m.alignment)
                .unwrap_or_default()
        }
        _ => Vec::new(),
    };
    let by_old: HashMap<NodeId, usize> = pairs
        .iter()
        .enumerate()
        .map(|(i, &(a, _))| (a, i))
        .collect();
    let by_new: HashMap<NodeId, usize> = pairs
        .iter()
        .enumerate()
        .map(|(i, &(_, b))| (b, i))
        .collect();
    let (old_lines, old_cut) = lines(old_doc, old_root, old_target, |n| by_old.get(&n).copied());
    let (new_lines, new_cut) = lines(new_doc, new_root, new_target, |n| by_new.get(&n).copied());
    // A pair whose partner fell past the cut is shown unpaired.
    let shown =
        |lines: &[TreeLine]| -> Vec<usize> { lines.iter().filter_map(|l| l.pair).collect() };
    let (in_old, in_new) = (shown(&old_lines), shown(&new_lines));
    let keep = |lines: Vec<TreeLine>, other: &[usize]| -> Vec<TreeLine> {
        lines
            .into_iter()
            .map(|mut l| {
                l.pair = l.pair.filter(|p| other.contains(p));
                l
            })
            .collect()
    };
    let old = keep(old_lines, &in_new);
    let new = keep(new_lines, &in_old);
    AlignedTrees {
        pairs: old.iter().filter(|l| l.pair.is_some()).count(),
        old,
        new,
        cut: old_cut || new_cut,
    }
}

/// The element a selected node is or belongs to.
fn element_of(doc: &Document, node: NodeId) -> NodeId {
    if doc.is_element(node) {
        node
    } else {
        doc.ancestors(node)
            .find(|&a| doc.is_element(a))
            .unwrap_or(node)
    }
}

/// The lines of the sub-tree at `root`, at most [`MAX_LINES`]; whether it
/// was cut.
fn lines(
    doc: &Document,
    root: NodeId,
    target: NodeId,
    pair: impl Fn(NodeId) -> Option<usize>,
) -> (Vec<TreeLine>, bool) {
    let base = doc.depth(root);
    let mut out = Vec::new();
    let nodes = std::iter::once(root).chain(doc.descendants(root));
    for node in nodes.filter(|&n| doc.is_element(n)) {
        if out.len() == MAX_LINES {
            return (out, true);
        }
        out.push(TreeLine {
            depth: doc.depth(node) - base,
            label: label(doc, node),
            pair: pair(node),
            selected: node == target,
        });
    }
    (out, false)
}

/// `tag#id.class "own text"`.
fn label(doc: &Document, node: NodeId) -> String {
    let mut label = doc.name(node).to_owned();
    if let Some(id) = doc.attr(node, "id").filter(|v| !v.is_empty()) {
        label.push('#');
        label.push_str(id);
    }
    if let Some(class) = doc.attr(node, "class") {
        for token in class.split_ascii_whitespace().take(3) {
            label.push('.');
            label.push_str(token);
        }
    }
    let mut own = String::new();
    for child in doc.children(node) {
        if !doc.is_element(child) {
            own.push_str(doc.text(child));
            own.push(' ');
        }
    }
    let own = own.split_whitespace().collect::<Vec<_>>().join(" ");
    if !own.is_empty() {
        let cut: String = own.chars().take(TEXT_CHARS).collect();
        let more = if cut.len() < own.len() { "…" } else { "" };
        label.push_str(&format!(" \"{cut}{more}\""));
    }
    label
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xpath::{Value, XPath};

    fn first(doc: &Document, xpath: &str) -> NodeId {
        match XPath::compile(xpath)
            .unwrap()
            .evaluate(doc, NodeId::ROOT)
            .unwrap()
        {
            Value::Nodes(items) => items[0].owner(),
            other => panic!("{other:?}"),
        }
    }

    fn check(old: &str, old_x: &str, new: &str, new_x: &str, expected: (&[&str], &[&str])) {
        let (a, b) = (Document::parse_str(old), Document::parse_str(new));
        let aligned = align_subtrees(&a, first(&a, old_x), &b, first(&b, new_x));
        let show = |lines: &[TreeLine]| -> Vec<String> {
            lines
                .iter()
                .map(|l| {
                    format!(
                        "{}{}{}{}",
                        "  ".repeat(l.depth),
                        l.label,
                        l.pair.map(|p| format!(" ={p}")).unwrap_or_default(),
                        if l.selected { " *" } else { "" }
                    )
                })
                .collect()
        };
        assert_eq!(show(&aligned.old), expected.0);
        assert_eq!(show(&aligned.new), expected.1);
        assert_eq!(
            aligned.pairs,
            aligned.new.iter().filter(|l| l.pair.is_some()).count()
        );
    }

    #[test]
    fn a_moved_record_pairs_its_matching_elements_and_marks_the_selection() {
        check(
            "<ul><li class=book><h3>Tide</h3><p>£12</p><p>in stock</p></li></ul>",
            "//li",
            "<div><div class=card><h3>Tide</h3><span>new</span><p>£12</p><p>in stock</p></div></div>",
            "//div[@class='card']",
            (
                &[
                    "li.book =0 *",
                    "  h3 \"Tide\" =1",
                    "  p \"£12\" =2",
                    "  p \"in stock\" =3",
                ],
                &[
                    "div.card =0 *",
                    "  h3 \"Tide\" =1",
                    "  span \"new\"",
                    "  p \"£12\" =2",
                    "  p \"in stock\" =3",
                ],
            ),
        );
    }

    #[test]
    fn a_small_selection_is_shown_with_its_parent() {
        check(
            "<div id=a><b>Price</b><span>£3</span></div>",
            "//span/text()",
            "<div id=b><i>Price</i><em>£3</em></div>",
            "//em",
            (
                &["div#a =0", "  b \"Price\"", "  span \"£3\" *"],
                &["div#b =0", "  i \"Price\"", "  em \"£3\" *"],
            ),
        );
    }

    #[test]
    fn a_large_tree_is_cut_and_never_pairs_past_the_cut() {
        let items = "<p>x</p>".repeat(MAX_LINES + 50);
        let html = format!("<section>{items}</section>");
        let (a, b) = (Document::parse_str(&html), Document::parse_str(&html));
        let aligned = align_subtrees(&a, first(&a, "//section"), &b, first(&b, "//section"));
        assert!(aligned.cut);
        assert_eq!(aligned.old.len(), MAX_LINES);
        assert_eq!(aligned.pairs, MAX_LINES);
    }
}
